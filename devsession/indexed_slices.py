"""TF1's ``tf.IndexedSlices`` (rows ``values`` of a tensor at ``indices`` of its first
dimension, ``dense_shape`` the whole tensor's), ``IndexedSlicesValue`` and the
``convert_to_tensor_or_*`` helpers.

devsession's gradients are dense tensors: where TF's would be an IndexedSlices (a
gather's), ``ds.gradients`` records its rows beside the dense tensor
(``ops/indexed_rows.py``) and the optimizers update those rows alone.  So
``isinstance(g, ds.IndexedSlices)`` is false for every ``ds.gradients`` result, and a TF1
clipping loop takes its dense branch, which works on the same tensor.  An IndexedSlices a
program builds itself converts to the dense sum of its rows (any op taking it: TF's
``unsorted_segment_sum`` into ``dense_shape[0]`` rows), keeping the rows as its sparse
form, so ``apply_gradients`` of one still updates only those rows (the public
``tf.convert_to_tensor`` of one, or of such a gradient, is dense, as TF's:
``gradient_conversions.py``):

    (g,) = ds.gradients(loss, [emb])
    clipped = ds.IndexedSlices(ds.clip_by_norm(values, 1.0), ids, ds.shape(emb))
    opt.apply_gradients([(clipped, emb)])      # a sparse update, as TF's
"""

from __future__ import annotations

import collections

from . import dtypes
from .graph import Tensor, convert_to_tensor
from .sparse_tensor import SparseTensor, SparseTensorValue

__all__ = ["IndexedSlices", "IndexedSlicesValue", "convert_to_tensor_or_indexed_slices",
           "convert_to_tensor_or_sparse_tensor"]

IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue",
                                            ["values", "indices", "dense_shape"])
IndexedSlicesValue.__doc__ = "TF1's ``tf.IndexedSlicesValue``: an IndexedSlices' numpy value."


class IndexedSlices:
    """TF1's ``tf.IndexedSlices(values, indices, dense_shape=None)``: ``values[i]`` is row
    ``indices[i]`` of a tensor of shape ``dense_shape`` (repeated indices add up)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values, name="values")
        self._indices = convert_to_tensor(indices, name="indices")
        self._dense_shape = None if dense_shape is None else \
            convert_to_tensor(dense_shape, name="dense_shape")

    values = property(lambda self: self._values, doc="The rows, ``[n] + row shape``.")
    indices = property(lambda self: self._indices, doc="The rows' indices, ``[n]``.")
    dense_shape = property(lambda self: self._dense_shape,
                           doc="The dense tensor's shape (a 1-D tensor), or None.")
    dtype = property(lambda self: self._values.dtype)
    name = property(lambda self: self._values.name)
    op = property(lambda self: self._values.op)
    graph = property(lambda self: self._values.graph)
    device = property(lambda self: self._values.device)

    def _as_tensor(self) -> Tensor:
        """The dense tensor, its rows remembered as its sparse form (``rows_of``)."""
        from .ops.array_index import unsorted_segment_sum
        from .ops.indexed_rows import IndexedRows, with_rows

        if self._dense_shape is None:
            raise ValueError(f"Tensor conversion requested for IndexedSlices for argument "
                             f"`value` without dense_shape: {self!r}")
        dense = unsorted_segment_sum(self._values, self._indices, self._dense_shape[0])
        return with_rows(dense, IndexedRows(((self._values, self._indices),)))

    def __neg__(self) -> "IndexedSlices":
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else \
            f', dense_shape="{self._dense_shape.name}"'
        return (f'IndexedSlices(indices="{self._indices.name}", values="{self._values.name}"'
                f"{shape})")


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """``value`` itself when an IndexedSlices (TypeError on another ``dtype``), else
    ``convert_to_tensor(value, dtype, name)``."""
    if isinstance(value, IndexedSlices):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise ValueError(f"Incompatible tensor conversion requested to `dtype` "
                             f"{dtypes.as_dtype(dtype).name} for `value` ({value!r}) with "
                             f"dtype {value.dtype.name}.")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensor (a ``SparseTensorValue`` becomes one) or a Tensor for ``value``;
    ``dtype``, if given, must be a SparseTensor's values' dtype (TF's RuntimeError otherwise)."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise RuntimeError(f"Sparse dtype mismatch. Requested: "
                               f"{dtypes.as_dtype(dtype).name},  Actual: {value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
