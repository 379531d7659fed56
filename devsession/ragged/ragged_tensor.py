"""``RaggedTensor``: TF's composite of a values tensor and row splits, in graph mode.

A ragged tensor of ragged rank 1 is ``values`` (``[nvals, ...]``) and int64 ``row_splits``
(``[nrows + 1]``): row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``.  A ragged
rank ``k > 1`` nests: ``values`` is itself a RaggedTensor, and ``flat_values`` is the
innermost dense tensor.  Like ``SparseTensor`` it is no graph element of its own: ops
see its tensors, ``Session.run`` fetches ``flat_values`` and every level's row splits and
rebuilds a ``RaggedTensorValue`` (``fetches.py``), and a ragged placeholder is fed one
(``feeds.expand_feed``).

    rt = ds.RaggedTensor.from_row_splits([1., 2., 3.], row_splits=[0, 2, 2, 3])
    sess.run(rt).to_list()   # [[1.0, 2.0], [], [3.0]]

The factories build what TF's Python builds (the splits from lengths, starts, limits or
row ids with Cumsum, ConcatV2, Bincount...), and with ``validate=True`` TF's
assertions, whose failure is an InvalidArgumentError at run time naming the message TF
gives ("Arguments to from_row_splits do not form a valid RaggedTensor:monotonic").  Static
misuse (row splits that are not a vector) is a ValueError when built.  The static
``shape`` is ``[nrows, None (per ragged level), inner dims...]``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import (Tensor, constant_value, control_dependencies, convert_to_tensor,
                     name_scope, run_in_session)
from ..ops.array import concat, identity, reshape
from ..ops.array_fill import shape as shape_of, size as size_of
from ..ops.assertions import assert_equal, assert_non_negative
from ..ops.elementwise import cast, maximum, subtract
from ..ops.reduce import cumsum, reduce_max
from ..ops.sequence import range as range_op
from ..tensor_shape import TensorShape
from .ragged_tensor_value import NestedRows, RaggedTensorValue
from .segment_ids import row_splits_to_segment_ids, segment_ids_to_row_splits

__all__ = ["RaggedTensor", "is_ragged", "convert_to_ragged_or_tensor", "ragged_from_value"]

_SPLITS_TYPES = (dtypes.int32, dtypes.int64)


class RaggedTensor(NestedRows):
    """TF's ``tf.RaggedTensor`` (see the module docstring).  Build one with the
    ``from_*`` factories; the constructor is private, as TF's."""

    def __init__(self, values, row_splits, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        if not isinstance(values, (RaggedTensor, Tensor)):
            raise TypeError(f"values must be a Tensor or RaggedTensor, got {values!r}")
        if row_splits.dtype not in _SPLITS_TYPES:
            raise ValueError("Row-partitioning tensors must have dtype int32 or int64")
        if row_splits.shape.ndims is not None and row_splits.shape.ndims != 1:
            raise ValueError(f"Shape {row_splits.shape} must have rank 1")
        if values.shape.ndims == 0:
            raise ValueError("values must have rank at least 1")
        if isinstance(values, RaggedTensor) and values.row_splits.dtype != row_splits.dtype:
            raise ValueError("dtype mismatch: the row splits of values and of the ragged "
                             "tensor must be of one dtype (see with_row_splits_dtype)")
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = None    # a static row length all rows share, if known

    # --- factories --------------------------------------------------------------------

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True) -> "RaggedTensor":
        """Row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``."""
        with name_scope(name or "RaggedFromRowSplits"):
            values = _values_operand(values)
            row_splits = _partition_operand(row_splits, "row_splits", values)
            if validate:
                msg = "Arguments to from_row_splits do not form a valid RaggedTensor:"
                checks = [assert_equal(row_splits[0], _zero(row_splits), message=msg + "zero"),
                          assert_non_negative(row_splits[1:] - row_splits[:-1],
                                              message=msg + "monotonic"),
                          assert_equal(row_splits[-1], _nvals(values, row_splits.dtype),
                                       message="Arguments to _from_row_partition do not "
                                               "form a valid RaggedTensor")]
                with control_dependencies(checks):
                    row_splits = identity(row_splits)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Row ``i`` holds the next ``row_lengths[i]`` values."""
        with name_scope(name or "RaggedFromRowLengths"):
            values = _values_operand(values)
            lengths = _partition_operand(row_lengths, "row_lengths", values)
            if validate:
                with control_dependencies([assert_non_negative(
                        lengths, message="Arguments to from_row_lengths do not form a "
                                         "valid RowPartition")]):
                    lengths = identity(lengths)
            splits = concat([_zero(lengths)[None], cumsum(lengths)], 0)
            return cls._checked(values, splits, validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Row ``i`` runs from ``row_starts[i]`` to the next start (the last to the end)."""
        with name_scope(name or "RaggedFromRowStarts"):
            values = _values_operand(values)
            starts = _partition_operand(row_starts, "row_starts", values)
            splits = concat([starts, _nvals(values, starts.dtype)[None]], 0)
            if validate:
                splits = _validated(splits, "Arguments to from_row_starts do not form a "
                                            "valid RaggedTensor")
            return cls._checked(values, splits, validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Row ``i`` ends at ``row_limits[i]`` (starting where the row before ended)."""
        with name_scope(name or "RaggedFromRowLimits"):
            values = _values_operand(values)
            limits = _partition_operand(row_limits, "row_limits", values)
            splits = concat([_zero(limits)[None], limits], 0)
            if validate:
                splits = _validated(splits, "Arguments to from_row_limits do not form a "
                                            "valid RaggedTensor")
            return cls._checked(values, splits, validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value ``j`` is in row ``value_rowids[j]`` (sorted); ``nrows`` defaults to the
        last row id plus one."""
        with name_scope(name or "RaggedFromValueRowIds"):
            values = _values_operand(values)
            rowids = _partition_operand(value_rowids, "value_rowids", values)
            if nrows is None:
                last = reshape(rowids[-1:], [-1])
                nrows = concat([last + 1, _zero(rowids)[None]], 0)[0]
            else:
                nrows = convert_to_tensor(nrows, dtype=rowids.dtype, name="nrows")
                if nrows.shape.ndims not in (None, 0):
                    raise ValueError(f"Shape {nrows.shape} must have rank 0")
            checks = []
            if validate:
                msg = "Arguments to from_value_rowids do not form a valid RowPartition"
                checks = [assert_non_negative(rowids[:1], message=msg),
                          assert_non_negative(rowids[1:] - rowids[:-1], message=msg),
                          assert_non_negative(nrows - 1 - rowids[-1:], message=msg)]
            with control_dependencies(checks):
                splits = segment_ids_to_row_splits(rowids, nrows, out_type=rowids.dtype)
            return cls._checked(values, splits, validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None) -> "RaggedTensor":
        """Rows of ``uniform_row_length`` values each (``nrows`` of them, by default as
        many as the values fill); TF's assertion that they use every value."""
        if not isinstance(validate, bool):
            raise TypeError(f"Argument `validate` must have type bool. Received {validate}.")
        with name_scope(name or "RaggedFromUniformRowLength"):
            values = _values_operand(values)
            length = _partition_operand(uniform_row_length, "uniform_row_length", values,
                                        rank=0)
            nvals = _nvals(values, length.dtype)
            if nrows is None:       # as many rows as the values fill (0 for length 0)
                nrows = nvals // maximum(length, _zero(length) + 1) * \
                    cast(length > 0, length.dtype)
            else:
                nrows = convert_to_tensor(nrows, dtype=length.dtype, name="nrows")
            splits = range_op(nrows + 1, dtype=length.dtype) * length
            if validate:        # TF's Assert and its data
                from ..ops.control_flow import Assert
                from ..ops.elementwise import equal
                check = Assert(equal(nrows * length, nvals),
                               ["uniform_row_length", length, "times nrows", nrows,
                                "must equal nvals", nvals])
                with control_dependencies([check]):
                    splits = identity(splits)
            result = cls(values, splits, internal=True)
            result._uniform_row_length = constant_value(length)
            if result._uniform_row_length is not None:
                result._uniform_row_length = int(result._uniform_row_length)
            result._uniform_row_length_tensor = length
            static_rows = constant_value(nrows)
            known_vals = values.shape.dims[0] if values.shape.ndims else None
            if static_rows is None and known_vals is not None and \
                    result._uniform_row_length is not None:
                static_rows = (known_vals // result._uniform_row_length
                               if result._uniform_row_length else 0)
            if static_rows is not None:
                splits.set_shape([int(static_rows) + 1])
            return result

    @property
    def uniform_row_length(self):
        """The length every row has, when built with ``from_uniform_row_length`` (a
        scalar tensor), else None."""
        return getattr(self, "_uniform_row_length_tensor", None)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None,
                               validate=True):
        """Nested ``from_row_splits``, the outermost splits first."""
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        with name_scope(name or "RaggedFromNestedRowSplits"):
            result = flat_values
            for splits in reversed(list(nested_row_splits)):
                result = cls.from_row_splits(result, splits, validate=validate)
            return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        """Nested ``from_row_lengths``, the outermost lengths first."""
        with name_scope(name or "RaggedFromNestedRowlengths"):
            result = flat_values
            for lengths in reversed(list(nested_row_lengths)):
                result = cls.from_row_lengths(result, lengths, validate=validate)
            return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True):
        """Nested ``from_value_rowids``, the outermost row ids first."""
        nested_value_rowids = list(nested_value_rowids)
        nested_nrows = [None] * len(nested_value_rowids) if nested_nrows is None \
            else list(nested_nrows)
        if len(nested_nrows) != len(nested_value_rowids):
            raise ValueError("nested_nrows must have the same length as nested_value_rowids")
        with name_scope(name or "RaggedFromNestedValueRowIds"):
            result = flat_values
            for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
                result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
            return result

    @classmethod
    def _checked(cls, values, splits, validate):
        if validate:
            with control_dependencies([assert_equal(
                    splits[-1], _nvals(values, splits.dtype),
                    message="Arguments to _from_row_partition do not form a valid "
                            "RaggedTensor")]):
                splits = identity(splits)
        return cls(values, splits, internal=True)

    # --- structure --------------------------------------------------------------------

    values = property(lambda self: self._values,
                      doc="The values of the rows (a RaggedTensor for ragged_rank > 1).")
    row_splits = property(lambda self: self._row_splits, doc="Where each row starts.")
    dtype = property(lambda self: self.flat_values.dtype)
    row_splits_dtype = property(lambda self: self._row_splits.dtype)
    graph = property(lambda self: self._row_splits.graph)

    @property
    def shape(self) -> TensorShape:
        """``[nrows, None..., inner dims]``: what the graph knows statically."""
        n = self._row_splits.shape.dims
        nrows = None if n is None or n[0] is None else n[0] - 1
        inner = self.flat_values.shape
        tail = [None] * (inner.ndims - 1) if inner.ndims is not None else None
        if tail is None:
            return TensorShape(None)
        lengths, values = [self._uniform_row_length], self._values
        while isinstance(values, RaggedTensor):
            lengths.append(values._uniform_row_length)
            values = values.values
        return TensorShape([nrows] + lengths + list(inner.dims[1:]))

    def get_shape(self) -> TensorShape:
        return self.shape

    def with_values(self, new_values) -> "RaggedTensor":
        """This row partition over ``new_values`` (as many rows as the old values)."""
        new_values = _values_operand(new_values)
        result = RaggedTensor(new_values, self._row_splits, internal=True)
        result._uniform_row_length = self._uniform_row_length
        return result

    def with_flat_values(self, new_values) -> "RaggedTensor":
        """Every row partition kept, over new flat values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype) -> "RaggedTensor":
        """The same tensor with its row splits (every level) cast to ``dtype``."""
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _SPLITS_TYPES:
            raise ValueError(f"dtype must be int32 or int64, got {dtype.name}")
        values = self._values.with_row_splits_dtype(dtype) \
            if isinstance(self._values, RaggedTensor) else self._values
        splits = self._row_splits if self._row_splits.dtype == dtype \
            else cast(self._row_splits, dtype)
        return RaggedTensor(values, splits, internal=True)

    # --- row partition encodings ------------------------------------------------------

    def row_lengths(self, axis=1, name=None):
        """How many values each row has (``axis`` 1), or each row of a deeper level."""
        with name_scope(name or "RaggedRowLengths"):
            if axis == 0:
                return self.nrows()
            if axis == 1:
                return self._row_splits[1:] - self._row_splits[:-1]
            if isinstance(self._values, RaggedTensor):
                return self.with_values(self._values.row_lengths(axis - 1))
            raise ValueError(f"axis={axis} out of bounds for a ragged tensor of ragged rank "
                             f"{self.ragged_rank}")

    def nested_row_lengths(self, name=None) -> tuple:
        with name_scope(name or "RaggedNestedRowLengths"):
            return tuple(s[1:] - s[:-1] for s in self.nested_row_splits)

    def row_starts(self, name=None):
        with name_scope(name or "RaggedRowStarts"):
            return self._row_splits[:-1]

    def row_limits(self, name=None):
        with name_scope(name or "RaggedRowLimits"):
            return self._row_splits[1:]

    def value_rowids(self, name=None):
        """The row of each value."""
        with name_scope(name or "RaggedValueRowIds"):
            return row_splits_to_segment_ids(self._row_splits)

    def nested_value_rowids(self, name=None) -> tuple:
        with name_scope(name or "RaggedNestedValueRowIds"):
            rowids, values = [self.value_rowids()], self._values
            while isinstance(values, RaggedTensor):
                rowids.append(values.value_rowids())
                values = values.values
            return tuple(rowids)

    def nrows(self, out_type=None, name=None):
        with name_scope(name or "RaggedNRows"):
            rows = size_of(self._row_splits, out_type=self._row_splits.dtype) - 1
            return rows if out_type is None else cast(rows, out_type)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """``[nrows, longest row (per level)..., inner dims]``; ``axis`` picks some."""
        with name_scope(name or "RaggedBoundingBox"):
            out_type = dtypes.as_dtype(out_type or self._row_splits.dtype)
            dims = [reshape(self.nrows(out_type), [1])]
            zero = convert_to_tensor([0], dtype=out_type)
            for splits in self.nested_row_splits:     # 0 when there are no rows
                lengths = cast(splits[1:] - splits[:-1], out_type)
                dims.append(reshape(reduce_max(concat([lengths, zero], 0)), [1]))
            dims.append(shape_of(self.flat_values, out_type=out_type)[1:])
            bounds = concat(dims, 0)
            return bounds if axis is None else _gather_axes(bounds, axis)

    # --- conversion (from_tensor, to_tensor, from_sparse, to_sparse: ragged_conversion.py,
    # as TF's ragged_tensor.py; indexing: ragged_getitem.py; operators: ragged_math.py) --

    def to_list(self):
        raise ValueError("RaggedTensor.to_list() is only supported in eager mode; in graph "
                         "mode, run the tensor and call to_list() on the RaggedTensorValue.")

    def eval(self, feed_dict=None, session=None):
        """Its value in ``session`` (else the default session), a RaggedTensorValue."""
        return run_in_session(self, feed_dict, session, "evaluate a RaggedTensor")

    def __repr__(self) -> str:
        return f"tf.RaggedTensor(values={self._values!r}, row_splits={self._row_splits!r})"

    def __bool__(self):
        raise TypeError("Using a ds.RaggedTensor as a Python bool is not allowed.")

    def __len__(self):
        raise TypeError("len is not well defined for symbolic Tensors")


def _gather_axes(bounds, axis):
    from ..ops.gather_options import gather
    return gather(bounds, axis)


def ragged_from_value(value: RaggedTensorValue) -> RaggedTensor:
    """Constants for a RaggedTensorValue."""
    from ..ops.state import constant
    return RaggedTensor.from_nested_row_splits(
        constant(value.flat_values), [constant(s) for s in value.nested_row_splits],
        validate=False)


def _values_operand(values):
    if isinstance(values, RaggedTensor):
        return values
    if isinstance(values, RaggedTensorValue):
        return ragged_from_value(values)
    return convert_to_tensor(values, name="values")


def _partition_operand(value, what: str, values, rank: int = 1):
    """A row-partitioning tensor: int64 unless given as an int32 tensor, of ``rank``."""
    if isinstance(value, Tensor):
        tensor = value
        if tensor.dtype not in _SPLITS_TYPES:
            raise ValueError("Row-partitioning tensors must have dtype int32 or int64")
    else:
        want = values.row_splits.dtype if isinstance(values, RaggedTensor) else dtypes.int64
        tensor = convert_to_tensor(value, dtype=want, name=what)
    if isinstance(values, RaggedTensor) and values.row_splits.dtype != tensor.dtype:
        raise ValueError("dtype mismatch: the row splits of values and of the ragged tensor "
                         "must be of one dtype (see with_row_splits_dtype)")
    if tensor.shape.ndims is not None and tensor.shape.ndims != rank:
        raise ValueError(f"Shape {tensor.shape} must have rank {rank}")
    return tensor


def _zero(like: Tensor) -> Tensor:
    return convert_to_tensor(0, dtype=like.dtype)


def _nvals(values, dtype) -> Tensor:
    """How many rows ``values`` has, as a scalar of ``dtype``."""
    if isinstance(values, RaggedTensor):
        return values.nrows(out_type=dtype)
    return shape_of(values, out_type=dtype)[0]


def _validated(splits, message: str):
    checks = [assert_equal(splits[0], _zero(splits), message=message),
              assert_non_negative(subtract(splits[1:], splits[:-1]), message=message)]
    with control_dependencies(checks):
        return identity(splits)


def is_ragged(value) -> bool:
    """Whether ``value`` is a RaggedTensor or a RaggedTensorValue."""
    return isinstance(value, (RaggedTensor, RaggedTensorValue))


def convert_to_ragged_or_tensor(value, dtype=None, name=None):
    """A RaggedTensor as it is, a RaggedTensorValue as constants, else a Tensor."""
    if isinstance(value, RaggedTensor):
        return value
    if isinstance(value, RaggedTensorValue):
        return ragged_from_value(value)
    return convert_to_tensor(value, dtype=dtype, name=name)
