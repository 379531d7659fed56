"""TF1's partitioned variables: one large variable (an embedding) kept as several parts,
each its own Variable, so that ``replica_device_setter`` can spread them over ps tasks.

    with ds.variable_scope("wide", partitioner=ds.fixed_size_partitioner(3)):
        emb = ds.get_variable("emb", [1000, 16])     # a PartitionedVariable
    [v.op.name for v in emb]       # ["wide/emb/part_0", "wide/emb/part_1", "wide/emb/part_2"]
    rows = ds.nn.embedding_lookup(emb, ids)          # gathers from each part
    logits = ds.matmul(x, emb)                       # the parts concatenated

A *partitioner* maps the full shape and dtype to a list of how many parts each axis is
cut into (at most one axis more than 1): ``fixed_size_partitioner``,
``variable_axis_size_partitioner`` (parts under a byte size) and
``min_max_variable_partitioner`` (parts over a byte size, at most a count), each TF1's
arithmetic.  An axis of n rows cut in k parts gives the first ``n % k`` parts one row
more (``iter_slices``).

``get_variable`` (``variable_scope.py``, with TF1's deprecated
``create_partitioned_variables``) makes the parts ``<name>/part_<i>``, each in
the collections a plain variable of those arguments joins; a part carries a
``SaveSliceInfo`` (its offset in the full variable).  A callable initializer is called
once per part with the part's shape and, when it takes one, a ``partition_info``
(``PartitionInfo``: the full shape and the offset; the variance-scaling initializers
compute their fans from the full shape, as TF's); a tensor or array initializer is the
full value, sliced for each part.  So values from constants and arrays equal TF's.

The ``Saver`` writes the parts as one tensor under the full name (``train/saver.py``), so
a checkpoint restores into any partitioning of the same full shape.

``PartitionedVariable`` is TF1's container: iteration and ``len`` give the parts in
offset order, ``as_tensor()`` (and conversion to a Tensor: ``matmul(x, emb)``) their
concatenation named after the full variable, ``assign*`` split a value over the parts.
"""

from __future__ import annotations

import collections.abc
import math

from . import dtypes
from .graph import control_dependencies, name_scope
from .tensor_shape import TensorShape, as_shape

__all__ = ["PartitionedVariable", "PartitionInfo", "fixed_size_partitioner",
           "variable_axis_size_partitioner", "min_max_variable_partitioner"]


# --- partitioners ------------------------------------------------------------------------

def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner cutting ``axis`` into ``num_shards`` parts (fewer when the axis is
    shorter)."""
    def _partitioner(shape, **unused):
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, shape.dims[axis])
        return partitions
    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """A partitioner cutting ``axis`` into parts of at most ``max_shard_bytes`` (at least
    one slice of the axis per part; at most ``max_shards`` parts).  ValueError for a
    non-positive size or ``max_shards``."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(f"Both max_shard_bytes and bytes_per_string_element must be "
                         f"positive. Currently, max_shard_bytes is {max_shard_bytes} and "
                         f"bytes_per_string_element is {bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        size = _element_bytes(dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        bytes_per_slice = 1.0 * (shape.num_elements() / shape.dims[axis]) * size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        shards = int(math.ceil(1.0 * shape.dims[axis] / slices_per_shard))
        partitions[axis] = min(max_shards, shards) if max_shards else shards
        return partitions
    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """A partitioner cutting ``axis`` into parts of at least ``min_slice_size`` bytes, at
    most ``max_partitions`` of them (and at most the axis' length)."""
    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is "
                             f"only {shape}")
        total = shape.num_elements() * _element_bytes(dtype, bytes_per_string_element)
        partitions = [1] * len(shape)
        partitions[axis] = max(1, min(shape.dims[axis], max_partitions,
                                      int(math.ceil(total / min_slice_size))))
        return partitions
    return _partitioner


def _element_bytes(dtype, bytes_per_string_element: int) -> int:
    dtype = dtypes.as_dtype(dtype)
    return bytes_per_string_element if dtype == dtypes.string else dtype.size


def call_partitioner(partitioner, shape: TensorShape, dtype) -> list:
    """The partitioner's list for ``shape``, checked as TF1's ``_call_partitioner``."""
    if not shape.is_fully_defined():
        raise ValueError(f"Shape of a new partitioned variable must be fully defined, but "
                         f"instead was {_shape_text(shape)}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, collections.abc.Sequence):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(f"Partitioner returned a partition list that does not match the "
                         f"Variable's rank: {slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {shape}, "
                         f"partitioning: {slicing}")
    return slicing


def _shape_text(shape: TensorShape) -> str:
    if shape.ndims is None:
        return "<unknown>"
    return "(" + ", ".join("?" if d is None else str(d) for d in shape.dims) + \
        ("," if shape.ndims == 1 else "") + ")"


def slice_axis_and_count(slicing) -> tuple:
    """(the axis cut, into how many parts); (0, 1) when nothing is cut."""
    for axis, count in enumerate(slicing):
        if count > 1:
            return axis, count
    return 0, 1


def iter_slices(full_shape: list, num_slices: int, axis: int):
    """(offset, shape) of each part: the first ``n % num_slices`` parts one longer."""
    with_extra = full_shape[axis] % num_slices
    shortest = full_shape[axis] // num_slices
    offset = [0] * len(full_shape)
    for i in range(num_slices):
        shape = list(full_shape)
        shape[axis] = shortest + (i < with_extra)
        yield list(offset), shape
        offset[axis] += shape[axis]


class PartitionInfo:
    """What an initializer is told of the part it fills (TF1's ``_PartitionInfo``): the
    full variable's shape and the part's offset in it."""

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, (list, tuple)) or not isinstance(var_offset,
                                                                       (list, tuple)):
            raise TypeError("full_shape and var_offset must be lists or tuples.")
        if len(full_shape) != len(var_offset):
            raise ValueError(f"Expected equal length, but `var_offset` is of length "
                             f"{len(var_offset)} while full_shape is of length "
                             f"{len(full_shape)}.")
        for i, (offset, size) in enumerate(zip(var_offset, full_shape)):
            if not 0 <= offset < size:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, "
                                 f"shape={size} for var_offset={list(var_offset)}, "
                                 f"full_shape={list(full_shape)}")
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)

    def single_offset(self, shape) -> int:
        """The offset along the one axis this part is cut on."""
        axis = self.single_slice_dim(shape)
        return 0 if axis is None else self.var_offset[axis]

    def single_slice_dim(self, shape):
        """The axis this part (of ``shape``) is cut on, or None."""
        cut = [i for i, (n, full) in enumerate(zip(shape, self.full_shape)) if n != full]
        if len(cut) > 1:
            raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and "
                             f"self.full_shape={self.full_shape} since more than one "
                             f"dimension is partitioned.")
        return cut[0] if cut else None


# --- the container -----------------------------------------------------------------------

class PartitionedVariable:
    """The parts of one partitioned variable (see the module docstring)."""

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        shape = as_shape(shape)
        for v in variable_list:
            info = v._get_save_slice_info()
            if info is None:
                raise ValueError(f"All variables must have a save_slice_info available: "
                                 f"{[v.name for v in variable_list]}")
            if len(shape) != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if info.full_shape != shape.as_list():
                raise ValueError(f"All variables' full shapes must match shape: {shape}; "
                                 f"but full shapes were: {info.full_shape}")
        self._variable_list = sorted(variable_list,
                                     key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtypes.as_dtype(dtype)
        self._partitions = list(partitions) if isinstance(partitions, list) else partitions

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._variable_list[0].graph)

    def get_shape(self) -> TensorShape:
        return self._shape

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length for {len(axes)} > 1 partition axes")
        return len(self._variable_list)

    def __repr__(self) -> str:
        return (f"<ds.PartitionedVariable '{self._name}' shape={self._shape} "
                f"dtype={self._dtype.name} parts={len(self._variable_list)}>")

    def _get_variable_list(self) -> list:
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _partition_axes(self) -> list:
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        """The parts concatenated, named after the full variable (``emb``, ``emb_1``...),
        inside the current control dependencies."""
        from .ops.array import concat, identity

        if len(self._variable_list) == 1:
            with name_scope(None):
                return identity(self._variable_list[0], name=self._name)
        with name_scope(self._name + "/ConcatPartitions/"):
            joined = concat(list(self._variable_list), self._partition_axes()[0])
        with name_scope(None):
            return identity(joined, name=self._name)

    def as_tensor(self):
        """The full value (``_concat``), outside the current control dependencies, as a
        Variable's value is read."""
        with control_dependencies(None):
            return self._concat()

    def _as_tensor(self):
        return self.as_tensor()

    def _apply_assign(self, assign, value) -> list:
        from .ops.array import split

        if isinstance(value, (list, PartitionedVariable)):
            values = list(value)
            if len(values) != len(self._variable_list):
                raise ValueError(f"Assigning {len(values)} values to the "
                                 f"{len(self._variable_list)} parts of '{self._name}'.")
        else:
            axis = self._partition_axes()[0]
            values = split(value, [v.shape.dims[axis] for v in self._variable_list], axis)
        return [assign(var, part) for var, part in zip(self._variable_list, values)]

    def assign(self, value, use_locking=False, name=None, read_value=True) -> list:
        """One assign per part, of its share of ``value`` (a tensor of the full shape, a
        list of part values, or another PartitionedVariable)."""
        return self._apply_assign(lambda v, x: v.assign(x, use_locking, name, read_value), value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True) -> list:
        return self._apply_assign(
            lambda v, x: v.assign_add(x, use_locking, name, read_value), value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True) -> list:
        return self._apply_assign(
            lambda v, x: v.assign_sub(x, use_locking, name, read_value), value)

