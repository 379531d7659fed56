"""TF1's ``tf.math`` names built from existing ops, as TF's ``math_ops.py`` builds them
(so they fuse, place and differentiate like the rest):

* ``reciprocal_no_nan(x)``: ``div_no_nan(1, x)``: 0 where ``x`` is 0, ``1 / inf`` is 0.
* ``log_sigmoid(x)``: ``-softplus(-x)``, which neither overflows nor loses small values.
* ``scalar_mul(scalar, x)``: ``scalar * x``; a scalar that is not 0-D is a ValueError.
* ``polyval(coeffs, x)``: Horner's rule, the highest power first (zeros for no coeffs).
* ``accumulate_n(inputs)``: ``add_n`` after TF's checks of the inputs' shapes, dtypes
  and ``tensor_dtype``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array import identity
from .array_fill import add_n, zeros_like
from .elementwise import div_no_nan, multiply, negative
from .nn import softplus

__all__ = ["reciprocal_no_nan", "log_sigmoid", "scalar_mul", "polyval", "accumulate_n"]


def reciprocal_no_nan(x, name=None) -> Tensor:
    """``1 / x``, but 0 where ``x`` is 0 (a DivNoNan, as TF's)."""
    with name_scope(name or "reciprocal_no_nan") as scope:
        x = convert_to_tensor(x, name="x")
        one = convert_to_tensor(1, dtype=x.dtype, name="one")
        return div_no_nan(one, x, name=scope)


def log_sigmoid(x, name=None) -> Tensor:
    """``log(sigmoid(x))`` as ``-softplus(-x)``: finite for every finite ``x``."""
    with name_scope(name or "LogSigmoid") as scope:
        x = convert_to_tensor(x, name="x")
        return negative(softplus(negative(x)), name=scope)


def scalar_mul(scalar, x, name=None) -> Tensor:
    """``scalar * x`` for a 0-D ``scalar`` (converted to ``x``'s dtype)."""
    x = convert_to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=x.dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape "
                         f"{scalar.shape}.")
    return multiply(scalar, x, name=name)


def polyval(coeffs, x, name=None) -> Tensor:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule (TF's)."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")
    with name_scope(name or "polyval"):
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return zeros_like(x, name=name)
        terms = [convert_to_tensor(c, dtype_hint=x.dtype, name=f"coeff_{i}")
                 for i, c in enumerate(coeffs)]
        p = terms[0]
        for c in terms[1:]:
            p = c + p * x
        return p


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None) -> Tensor:
    """The sum of ``inputs`` (TF2's ``accumulate_n`` is ``add_n``); TF's ValueError
    unless they share one dtype and a compatible shape, TypeError for a different
    ``tensor_dtype``."""
    error = ValueError("inputs must be a list of at least one Tensor with the same dtype "
                       "and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise error
    tensors = [convert_to_tensor(t) for t in inputs]
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise error
    merged = TensorShape(None) if shape is None else TensorShape(shape)
    for t in tensors:
        merged = merged.merge_with(t.shape)        # ValueError where they conflict
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != tensors[0].dtype:
        raise TypeError(f"The `tensor_dtype` argument is {dtypes.as_dtype(tensor_dtype)}, "
                        f"but `input` is of type {tensors[0].dtype}. These must be equal. "
                        f"Try casting the input to the desired type.")
    if len(tensors) == 1:
        return identity(tensors[0], name=name) if name else tensors[0]
    return add_n(tensors, name=name)
