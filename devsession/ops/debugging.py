"""Numeric checks and prints: ``check_numerics`` (TF's ``CheckNumerics`` op),
``verify_tensor_all_finite`` and TF1's ``Print``.

``CheckNumerics`` passes its float input through unchanged and fails the step with an
``InvalidArgumentError`` ("<message> : Tensor had NaN values", "Inf values" or "Inf and
NaN values", as TF's kernel words it, naming the node) when the input holds a NaN or an
infinity.  Its gradient checks the incoming gradient the same way, as TF's does.
``Print`` passes its first input through and writes ``message`` and its data tensors
(``[1 2 3...]``, TF's summaries, ``kernels/reference/summarize.py``) to stderr each time
it runs, the first ``first_n`` times only when that is set; the gradient passes through.
Kernels: ``kernels/reference/debugging.py`` (the host's) and ``kernels/cuda/debugging.py``.
"""

from __future__ import annotations

from ..graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from .array import identity
from .common import make_op
from .registry import OpDef, register_op

__all__ = ["check_numerics", "verify_tensor_all_finite", "Print"]


def _check_numerics(inputs, attrs, node):
    (x,) = inputs
    if not x.dtype.is_floating:
        raise TypeError(f"Op '{node}' (CheckNumerics) checks floating-point tensors, but "
                        f"'{x.name}' is {x.dtype.name}.")
    return x.dtype, x.shape


register_op(OpDef("CheckNumerics", _check_numerics, 1, attr_defaults={"message": ""}))


def check_numerics(tensor, message, name=None) -> Tensor:
    """``tensor`` itself, after checking at run time that it holds no NaN and no Inf
    (``InvalidArgumentError`` "<message> : Tensor had NaN values" otherwise).  A
    non-float tensor is a ``TypeError``, as in TF."""
    return make_op("CheckNumerics", [convert_to_tensor(tensor)], {"message": str(message)},
                   name=name or "CheckNumerics")


def verify_tensor_all_finite(t, msg, name=None) -> Tensor:
    """An identity of ``t`` that runs ``check_numerics(t, msg)`` first (TF1's
    ``tf.verify_tensor_all_finite``, ``tf.debugging.assert_all_finite``)."""
    with name_scope(name or "VerifyFinite"):
        t = convert_to_tensor(t)
        checked = check_numerics(t, msg)
        with control_dependencies([checked.op]):
            return identity(t, name="control_dependency")


def _print(inputs, attrs, node):
    return inputs[0].dtype, inputs[0].shape


register_op(OpDef("Print", _print, None, stateful=True,
                  attr_defaults={"message": "", "first_n": -1, "summarize": 3}))


def Print(input_, data, message=None, first_n=None, summarize=None, name=None) -> Tensor:
    """``input_`` itself; each time it is computed, ``message`` followed by every tensor
    of ``data`` (TF's ``[1 2 3...]``, ``summarize`` elements, 3 by default) is written to
    stderr, only the first ``first_n`` times when that is given (TF1's ``tf.Print``)."""
    with name_scope(name or "Print") as scope:
        x = convert_to_tensor(input_)
        values = [convert_to_tensor(d, name=f"data_{k}") for k, d in enumerate(data)]
        attrs = {"message": "" if message is None else str(message),
                 "first_n": -1 if first_n is None else int(first_n),
                 "summarize": 3 if summarize is None else int(summarize)}
        return make_op("Print", [x, *values], attrs, name=scope)
