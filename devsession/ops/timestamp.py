"""``tf.timestamp``: TF's ``Timestamp``, the seconds since the Unix epoch (float64, a
scalar) when the node runs.  Stateful (each run reads the clock anew, and the optimizer
never folds or merges it) and not differentiable, as TF's.  Kernel:
``kernels/reference/timestamp.py`` (on the host)."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, get_default_graph
from ..tensor_shape import TensorShape
from .registry import OpDef, not_differentiable, register_op

__all__ = ["timestamp"]


def _infer_timestamp(inputs, attrs, node):
    return dtypes.float64, TensorShape([])


register_op(OpDef("Timestamp", _infer_timestamp, 0, stateful=True))
not_differentiable("Timestamp")


def timestamp(name=None) -> Tensor:
    """A float64 scalar: the time the node runs, in seconds since the epoch."""
    return get_default_graph().create_op("Timestamp", [], name=name or "Timestamp").outputs[0]
