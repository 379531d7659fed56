"""TF's complex-number ops: ``Complex`` (``tf.complex``: a complex tensor of real and
imaginary parts, broadcasting), ``Real``, ``Imag``, ``ComplexAbs`` (``tf.abs`` of a
complex tensor), ``Conj`` and ``Angle``, with TF's attrs (``T`` the input's type,
``Tout`` the output's) so GraphDefs TensorFlow wrote import.

The Python builders are TF1's: ``tf.real`` of a real tensor is that tensor, ``tf.imag``
its ``zeros_like``, ``tf.conj`` the tensor itself, ``tf.angle`` 0 or pi by its sign;
strings and bools are TypeErrors.  Kernels: ``kernels/reference/complex_math.py`` (numpy,
on the host for every device); gradients: ``complex_math_grad.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .common import broadcast, make_op
from .registry import OpDef, register_op

__all__ = ["complex", "real", "imag", "conj", "angle", "complex_abs"]

_PARTS = (dtypes.float32, dtypes.float64)
_COMPLEX = (dtypes.complex64, dtypes.complex128)


def _allowed(x, node: str, allowed, what: str = "input") -> None:
    if x.dtype not in allowed:
        raise TypeError(f"Value passed to parameter '{what}' of Op '{node}' has DataType "
                        f"{x.dtype.name} not in list of allowed values: "
                        f"{', '.join(d.name for d in allowed)}.")


def _complex(inputs, attrs, node):
    re, im = inputs
    _allowed(re, node, _PARTS, "real")
    if im.dtype != re.dtype:
        raise TypeError(f"Op '{node}': the real part is {re.dtype.name} and the imaginary "
                        f"part {im.dtype.name}; they must be the same.")
    want = dtypes.complex64 if re.dtype == dtypes.float32 else dtypes.complex128
    return want, broadcast(inputs, node)


def _complex_part(inputs, attrs, node):
    (x,) = inputs
    _allowed(x, node, _COMPLEX)
    return x.dtype.real_dtype, x.shape


def _conj(inputs, attrs, node):
    (x,) = inputs
    _allowed(x, node, _COMPLEX)
    return x.dtype, x.shape


for _name in ("Real", "Imag", "ComplexAbs", "Angle"):
    register_op(OpDef(_name, _complex_part, 1))
register_op(OpDef("Complex", _complex, 2))
register_op(OpDef("Conj", _conj, 1))


def _numeric_input(input, what: str = "input") -> Tensor:  # noqa: A002
    x = convert_to_tensor(input, name=what)
    if not (x.dtype.is_numeric or x.dtype.is_complex):
        raise TypeError(f"{what} must be a numeric tensor, but got tensor with dtype "
                        f"{x.dtype.name}")
    return x


def complex(real, imag, name=None) -> Tensor:  # noqa: A001  (TF's name)
    """``real + 1j * imag`` (TF's ``tf.complex``): float32 parts make complex64, float64
    parts complex128; other or mixed types are TypeErrors, as TF's."""
    with name_scope(name or "Complex") as scope:
        re = convert_to_tensor(real, name="real")
        im = convert_to_tensor(imag, name="imag")
        if re.dtype != im.dtype or re.dtype not in _PARTS:
            raise TypeError(f"The `real` and `imag` components have incorrect types: "
                            f"{re.dtype.name} {im.dtype.name}. They must be consistent, and "
                            f"one of [ds.float32, ds.float64]")
        want = dtypes.complex64 if re.dtype == dtypes.float32 else dtypes.complex128
        return make_op("Complex", [re, im], {"Tout": want}, name=scope)


def _part(op_type: str, x: Tensor, name: str) -> Tensor:
    return make_op(op_type, [x], {"Tout": x.dtype.real_dtype}, name=name)


def real(input, name=None) -> Tensor:  # noqa: A002
    """The real parts of a complex tensor; a real tensor is returned as it is (TF1)."""
    with name_scope(name or "Real") as scope:
        x = _numeric_input(input)
        return _part("Real", x, scope) if x.dtype.is_complex else x


def imag(input, name=None) -> Tensor:  # noqa: A002
    """The imaginary parts of a complex tensor; of a real tensor, its zeros (TF1)."""
    from .array_fill import zeros_like

    with name_scope(name or "Imag") as scope:
        x = _numeric_input(input)
        return _part("Imag", x, scope) if x.dtype.is_complex else zeros_like(x)


def complex_abs(x, name=None) -> Tensor:
    """The magnitudes of a complex tensor (TF's ComplexAbs, what ``tf.abs`` builds)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        raise TypeError(f"complex_abs takes a complex tensor, not {x.dtype.name}.")
    return _part("ComplexAbs", x, name or "ComplexAbs")


def conj(x, name=None) -> Tensor:
    """The complex conjugates; a real tensor is returned as it is (TF1)."""
    with name_scope(name or "Conj") as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return make_op("Conj", [x], name=scope)
        if x.dtype.is_numeric:
            return x
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


def angle(input, name=None) -> Tensor:  # noqa: A002
    """The arguments of a complex tensor; of a real tensor, pi where it is negative and 0
    elsewhere (TF1's ``tf.angle``)."""
    from .array_fill import ones_like, zeros_like
    from .elementwise import less, multiply, where

    with name_scope(name or "Angle") as scope:
        x = _numeric_input(input)
        if x.dtype.is_complex:
            return _part("Angle", x, scope)
        return where(less(x, 0), multiply(np.pi, ones_like(x)), zeros_like(x))
