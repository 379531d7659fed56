"""What a dataset's elements are made of, shared by datasets and iterators."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor
from ..ops import nest
from ..tensor_shape import TensorShape

__all__ = ["ElementSpec", "SparseSpec", "Structured", "common_shape", "lists_as_tuples",
           "flat_outputs", "packed_outputs", "component_tensors", "result_specs",
           "holds_sparse"]


class ElementSpec:
    """One component of a dataset's elements: its dtype and static shape."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype)
        self.shape = TensorShape(shape)

    def __repr__(self):
        return f"ElementSpec({self.dtype.name}, {self.shape})"


class SparseSpec(ElementSpec):
    """A component that is a SparseTensor (a ``map`` function's, ``dense_to_sparse_batch``'s):
    its values' dtype and its dense shape.  A pipeline carries it as three arrays
    (indices, values, dense_shape), which the functions of later stages receive and an
    iterator's ``get_next`` gives back as a SparseTensor."""

    __slots__ = ()

    def __repr__(self):
        return f"SparseSpec({self.dtype.name}, {self.shape})"


def flat_outputs(specs) -> list:
    """The (dtype, shape) of each tensor an iterator op gives for ``specs`` (three for
    a SparseSpec)."""
    out = []
    for spec in specs:
        if isinstance(spec, SparseSpec):
            rank = spec.shape.ndims
            out += [(dtypes.int64, TensorShape([None, rank])),
                    (spec.dtype, TensorShape([None])), (dtypes.int64, TensorShape([rank]))]
        else:
            out.append((spec.dtype, spec.shape))
    return out


def packed_outputs(specs, tensors: list) -> list:
    """``tensors`` (an iterator op's outputs) as one value per spec: a SparseTensor of
    each SparseSpec's three, knowing the spec's dense shape as TF's element does (TF's
    ``SparseTensorSpec._from_compatible_tensor_list``): the known dims become constants
    of its ``dense_shape``, for the ops it meets to infer, and its ``set_shape``."""
    from ..graph import convert_to_tensor
    from ..ops.array import stack, unstack
    from ..sparse_tensor import SparseTensor

    out, at = [], 0
    for spec in specs:
        if isinstance(spec, SparseSpec):
            indices, values, dense_shape = tensors[at:at + 3]
            dims = spec.shape.dims
            if spec.shape.is_fully_defined():
                dense_shape = convert_to_tensor(dims, dtype=dtypes.int64, name="shape")
            elif dims is not None and any(d is not None for d in dims):
                pieces = unstack(dense_shape, num=len(dims))
                dense_shape = stack([piece if d is None else
                                     convert_to_tensor(d, dtype=dtypes.int64)
                                     for piece, d in zip(pieces, dims)])
            sparse = SparseTensor(indices, values, dense_shape)
            sparse.set_shape(spec.shape)
            out.append(sparse)
            at += 3
        else:
            out.append(tensors[at])
            at += 1
    return out


def component_tensors(leaves) -> list:
    """The tensors a traced function returns for ``leaves`` (a nest's flattened
    result): three for a SparseTensor (or SparseTensorValue), one for anything else."""
    from ..graph import convert_to_tensor
    from ..sparse_tensor import SparseTensor, is_sparse

    out = []
    for leaf in leaves:
        if is_sparse(leaf):
            sparse = SparseTensor.from_value(leaf)
            out += [sparse.indices, sparse.values, sparse.dense_shape]
        else:
            out.append(convert_to_tensor(leaf))
    return out


def result_specs(leaves, outputs: list) -> list:
    """The spec of each of ``leaves`` from the function ``outputs`` made of them
    (``component_tensors``): a SparseSpec of its values' dtype and its static dense
    shape for a SparseTensor."""
    from ..sparse_tensor import SparseTensor, is_sparse

    specs, at = [], 0
    for leaf in leaves:
        if is_sparse(leaf):
            sparse = SparseTensor(*outputs[at:at + 3])
            specs.append(SparseSpec(sparse.dtype, sparse.shape))
            at += 3
        else:
            specs.append(ElementSpec(outputs[at].dtype, outputs[at].shape))
            at += 1
    return specs


def holds_sparse(specs) -> bool:
    return any(isinstance(s, SparseSpec) for s in specs)


class Structured:
    """TF1's ``output_types``, ``output_shapes`` and ``output_classes`` of anything with
    a ``_structure`` (a nest of ElementSpec): a Dataset, an Iterator."""

    _structure: object

    @property
    def output_types(self):
        return nest.map_structure(lambda s: s.dtype, self._structure)

    @property
    def output_shapes(self):
        return nest.map_structure(lambda s: s.shape, self._structure)

    @property
    def output_classes(self):
        from ..sparse_tensor import SparseTensor

        return nest.map_structure(
            lambda s: SparseTensor if isinstance(s, SparseSpec) else Tensor, self._structure)


def lists_as_tuples(value):
    """``value`` with its lists as tuples, as TF converts what a traced function returns."""
    if isinstance(value, list):
        return tuple(lists_as_tuples(v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, lists_as_tuples(v)) for k, v in value.items())
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(lists_as_tuples(v) for v in value)
    return value


def common_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both fit: equal dimensions kept, others unknown (TF's
    ``most_specific_compatible_shape``)."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.dims, b.dims)])
