"""``tf.guarantee_const``: TF's ``GuaranteeConst``, an identity that promises the
runtime its input does not change between runs (TF may then treat it as a constant; the
promise is the caller's).  Stateful, as TF's, so the optimizer keeps the node; no
gradient is defined for it, as in TF.  Kernel: ``kernels/reference/guarantee_const.py``
(the identity, on the host)."""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor
from .common import make_op, unary_any
from .registry import OpDef, register_op

__all__ = ["guarantee_const"]

register_op(OpDef("GuaranteeConst", unary_any, 1, stateful=True))


def guarantee_const(input, name=None) -> Tensor:  # noqa: A002  (TF's name)
    """``input`` unchanged, marked as constant across runs."""
    value = convert_to_tensor(input)
    return make_op("GuaranteeConst", [value], name=name)          # T: the value's
