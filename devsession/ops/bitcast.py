"""``tf.bitcast``: TF's ``Bitcast`` op, the bytes of a tensor read as another numeric
dtype without copying them (attr ``type``).  A dtype of the same size keeps the shape; a
smaller one adds a last dimension of the size ratio; a larger one takes that last
dimension away (it must equal the ratio: ValueError when built if known, else
InvalidArgumentError).  Strings and bools are refused (TypeError), as TF refuses them.
No gradient, as TF.  Kernel: ``kernels/reference/bitcast.py`` (a numpy or cupy view).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["bitcast"]

_NUMERIC = tuple(d for d in dtypes.ALL if d not in (dtypes.bool_, dtypes.string))


def _bitcast(inputs, attrs, node):
    (x,) = inputs
    out = dtypes.as_dtype(attrs["type"])
    for dtype, what in ((x.dtype, "input"), (out, "type")):
        if dtype not in _NUMERIC:
            raise TypeError(f"Op '{node}': Bitcast's {what} has DataType {dtype.name} not in "
                            f"list of allowed values: "
                            f"{', '.join(d.name for d in _NUMERIC)}.")
    size_in, size_out = x.dtype.np.itemsize, out.np.itemsize
    if size_in == size_out:
        return out, x.shape
    if x.shape.ndims is None:
        return out, TensorShape(None)
    dims = list(x.shape.dims)
    if size_in > size_out:
        return out, TensorShape(dims + [size_in // size_out])
    if not dims:
        raise InferError(f"Shape must be at least rank 1 but is rank 0 for '{node}' with "
                         f"input shapes: [].")
    ratio = size_out // size_in
    if dims[-1] is not None and dims[-1] != ratio:
        raise InferError(f"Cannot bitcast from {x.dtype.enum} to {out.enum} due to shape. "
                         f"{dims[-1]} does not match {ratio} for '{node}'.")
    return out, TensorShape(dims[:-1])


register_op(OpDef("Bitcast", _bitcast, 1))
not_differentiable("Bitcast")


def bitcast(input, type, name=None) -> Tensor:  # noqa: A002
    """``input``'s bytes read as dtype ``type`` (TF's ``tf.bitcast``)."""
    return make_op("Bitcast", [convert_to_tensor(input)], {"type": dtypes.as_dtype(type)},
                   name=name or "Bitcast")
