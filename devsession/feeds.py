"""Feed values checked against the tensors they feed: one rule everywhere.

A local session checks ``feed_dict`` values with it before anything runs, and a cluster
master checks the bytes a client sent with it too (it trusts no client): the value must
have the tensor's dtype, or convert to it without losing information, and a shape that
fits the tensor's static shape.  A SparseTensor key is fed as its three tensors
(``expand_feed``), from a ``SparseTensorValue`` or an ``(indices, values, dense_shape)``
tuple, as TF1's feed expansion; a RaggedTensor key as its flat values and row splits,
from a ``RaggedTensorValue`` of its ragged rank.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .graph import Graph, Tensor
from .ragged.ragged_tensor import RaggedTensor
from .ragged.ragged_tensor_value import RaggedTensorValue
from .sparse_tensor import SparseTensor, SparseTensorValue

__all__ = ["validate_feed", "feed_validator", "expand_feed", "feed_parts", "is_composite"]


def is_composite(key) -> bool:
    """Whether a feed key stands for several tensors (a SparseTensor, a RaggedTensor)."""
    return isinstance(key, (SparseTensor, RaggedTensor))


def feed_parts(key) -> tuple:
    """The tensors a feed key stands for: a SparseTensor's three, a RaggedTensor's flat
    values and row splits, else the key."""
    if isinstance(key, SparseTensor):
        return key.indices, key.values, key.dense_shape
    if isinstance(key, RaggedTensor):
        return (key.flat_values, *key.nested_row_splits)
    return (key,)


def _expand_ragged(key: RaggedTensor, value) -> list:
    if not isinstance(value, RaggedTensorValue):
        raise TypeError(f"A RaggedTensor is fed a ds.ragged.RaggedTensorValue, not a "
                        f"{type(value).__name__}.")
    if value.ragged_rank != key.ragged_rank:
        raise ValueError(f"Cannot feed a RaggedTensorValue of ragged rank "
                         f"{value.ragged_rank} to a RaggedTensor of ragged rank "
                         f"{key.ragged_rank}.")
    return list(zip(feed_parts(key), (value.flat_values, *value.nested_row_splits)))


def expand_feed(key, value) -> list:
    """``[(key, value)]``, or for a SparseTensor key the pairs of its indices, values and
    dense_shape with the parts of ``value``; TypeError when a sparse value is not a
    SparseTensorValue or a 3-tuple."""
    if isinstance(key, RaggedTensor):
        return _expand_ragged(key, value)
    if not isinstance(key, SparseTensor):
        return [(key, value)]
    if isinstance(value, SparseTensor):
        raise TypeError("The value of a feed cannot be a ds.SparseTensor; feed a "
                        "ds.SparseTensorValue or an (indices, values, dense_shape) tuple.")
    if not isinstance(value, (SparseTensorValue, tuple, list)) or len(value) != 3:
        raise TypeError(f"A SparseTensor is fed a ds.SparseTensorValue or an (indices, "
                        f"values, dense_shape) tuple, not a {type(value).__name__}.")
    return list(zip((key.indices, key.values, key.dense_shape), value))


def validate_feed(tensor: Tensor, value) -> np.ndarray:
    """``value`` as an array of ``tensor``'s dtype; ValueError for a wrong dtype or shape."""
    want = tensor.dtype.np
    if tensor.dtype.is_string:
        array = _string_feed(tensor, value)
    elif type(value) is np.ndarray and value.dtype == want:
        array = value
    elif hasattr(value, "__cuda_array_interface__") and getattr(value, "dtype", None) == want:
        array = value
    else:
        if isinstance(value, (Tensor, Graph)) or hasattr(value, "_as_tensor"):
            raise TypeError(f"The value of a feed cannot be a ds.Tensor ('{tensor.name}'); "
                            f"feed numpy arrays or Python values.")
        array = np.asarray(value)
        if array.dtype != want:
            if array.dtype.kind not in "fiubc":
                raise ValueError(f"Cannot feed value of type {array.dtype} to tensor "
                                 f"'{tensor.name}' of dtype {tensor.dtype.name}.")
            if not dtypes.converts_without_loss(array, want):
                raise ValueError(
                    f"Cannot feed value of dtype {array.dtype.name} to tensor '{tensor.name}' "
                    f"of dtype {tensor.dtype.name} without losing information; convert it "
                    f"first (e.g. value.astype(np.{want.name})).")
            array = array.astype(want)
    dims = tensor.shape.dims
    if dims is not None:
        shape = array.shape
        if len(shape) != len(dims) or any(d is not None and d != s for d, s in zip(dims, shape)):
            raise ValueError(f"Cannot feed value of shape {tuple(shape)} for Tensor "
                             f"'{tensor.name}', which has shape {tensor.shape}.")
    return array


def _string_feed(tensor: Tensor, value) -> np.ndarray:
    try:
        return dtypes.string_array(value)
    except TypeError as e:
        raise ValueError(f"Cannot feed a non-string value to string tensor '{tensor.name}': "
                         f"{e}") from None


def feed_validator(tensor: Tensor):
    """``validate_feed`` for one tensor, with a fast path for the common case: an ndarray
    of exactly the tensor's dtype whose shape fits the static shape."""
    want = tensor.dtype.np
    dims = tensor.shape.dims
    ndarray = np.ndarray
    if dims is None or tensor.dtype.is_string:
        return lambda value: validate_feed(tensor, value)
    rank = len(dims)
    if all(d is not None for d in dims):
        def validate(value):
            if type(value) is ndarray and value.dtype is want and value.shape == dims:
                return value
            return validate_feed(tensor, value)
        return validate
    known = tuple((i, d) for i, d in enumerate(dims) if d is not None)

    def validate_partial(value):
        if type(value) is ndarray and value.dtype is want:
            shape = value.shape
            if len(shape) == rank and all(shape[i] == d for i, d in known):
                return value
        return validate_feed(tensor, value)
    return validate_partial
