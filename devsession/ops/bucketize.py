"""TF's ``Bucketize`` op: each value's bucket given sorted float boundaries (attr
``boundaries``), the number of boundaries at or below it (``std::upper_bound``): 0 below
the first, ``len(boundaries)`` at or above the last, NaN in the last.  int32, int64,
float32 or float64 in, int32 out, of the input's shape; unsorted boundaries are TF's
InvalidArgumentError when it runs.  What ``feature_column.bucketized_column`` builds,
so graphs TensorFlow froze with one import.  Not differentiable, as TF's.  Kernel:
``kernels/reference/bucketize.py``."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from .common import make_op
from .registry import OpDef, not_differentiable, register_op

__all__ = ["bucketize"]

_TYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _infer_bucketize(inputs, attrs, node):
    (x,) = inputs
    if x.dtype not in _TYPES:
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not "
                        f"in list of allowed values: int32, int64, float32, float64")
    return dtypes.int32, x.shape


register_op(OpDef("Bucketize", _infer_bucketize, 1, attr_defaults={"boundaries": ()}))
not_differentiable("Bucketize")


def bucketize(input, boundaries, name=None) -> Tensor:  # noqa: A002
    """The bucket (int32) of each element of ``input`` (see the module docstring)."""
    return make_op("Bucketize", [convert_to_tensor(input)],
                   {"boundaries": tuple(float(b) for b in boundaries)}, name=name or "Bucketize")
