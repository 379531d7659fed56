"""TF1's masking and counting composites, built from ops devsession has (so their
gradients come with them): ``boolean_mask``, ``sequence_mask``, ``count_nonzero``,
``reverse`` and ``linspace``.

* ``boolean_mask(tensor, mask, axis=0)``: the entries of ``tensor`` whose ``mask`` (a
  bool tensor of the shape of ``tensor``'s dimensions ``axis .. axis + mask.ndim``) is
  true, those dimensions flattened into one: a Where of the flattened mask and a
  GatherV2 (whose gradient scatters back), as TF's.
* ``sequence_mask(lengths, maxlen=None)``: ``range(maxlen) < lengths[..., None]``
  (``maxlen`` the longest length, at least 0, when not given), cast to ``dtype``.  As
  TF's, the comparison is in ``maxlen``'s dtype: float lengths against an int ``maxlen``
  are truncated (``[1.5]`` against 3 is ``[True, False, False]``), and a float ``maxlen``
  counts ``0., 1., ...`` below it (2.5: three steps).
* ``count_nonzero(x, axis)``: the number of non-zero entries along ``axis``, int64 by
  default.
* ``reverse(tensor, axis)``: ``tensor`` with the given axes reversed (a strided slice of
  stride -1 on each).
* ``reverse_sequence(input, seq_lengths, seq_axis, batch_axis)``: each sequence's first
  ``seq_lengths[b]`` steps reversed, the rest left in place (one gather of the
  reordered steps, so its gradient scatters back).  ``seq_lengths`` is checked as TF's
  op checks it: a vector of the batch's size (ValueError when built where the graph
  knows both), each length in ``[0, time]`` (Asserts at run with the words of TF's
  kernel, InvalidArgumentError; none for constant lengths that pass).
* ``linspace(start, stop, num)``: ``num`` evenly spaced values from ``start`` to
  ``stop`` included, in ``start``'s float dtype.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import (Tensor, constant_value, control_dependencies,
                     convert_to_tensor, name_scope)
from ..tensor_shape import bracketed
from .array import concat, expand_dims, identity, reshape, squeeze, static_ints, transpose
from .array_fill import shape, size
from .array_index import gather, strided_slice
from .assert_op import Assert
from .common import one_spelling
from .elementwise import (cast, equal, greater_equal, less, less_equal, maximum, not_equal,
                          where)
from .reduce import reduce_all, reduce_max, reduce_prod, reduce_sum
from .sequence import range as range_op

__all__ = ["boolean_mask", "sequence_mask", "count_nonzero", "reverse", "reverse_sequence",
           "linspace"]


def boolean_mask(tensor, mask, name="boolean_mask", axis=None) -> Tensor:
    """See the module docstring; ValueError when the mask's rank is unknown or 0, or its
    static shape does not match ``tensor``'s dimensions it covers."""
    with name_scope(name):
        x = convert_to_tensor(tensor, name="tensor")
        m = convert_to_tensor(mask, dtype=dtypes.bool_, graph=x.graph, name="mask")
        rank = m.shape.ndims
        if rank is None or rank == 0:
            raise ValueError(f"boolean_mask: the mask '{m.name}' needs a known rank of at "
                             f"least 1, got shape {m.shape}.")
        axis = 0 if axis is None else int(axis)
        if x.shape.ndims is not None:
            covered = x.shape.dims[axis:axis + rank]
            if len(covered) != rank or not m.shape.is_compatible_with(covered):
                raise ValueError(f"boolean_mask: the mask's shape {m.shape} does not match "
                                 f"dimensions {axis}..{axis + rank - 1} of '{x.name}' "
                                 f"({x.shape}).")
        static = x.shape.dims
        dims = shape(x)
        flat = concat([dims[:axis], reduce_prod(dims[axis:axis + rank], keepdims=True),
                       dims[axis + rank:]], 0)
        indices = squeeze(where(reshape(m, [-1])), axis=[1])
        masked = gather(reshape(x, flat), indices, axis=axis)
        if static is not None:
            masked.set_shape(list(static[:axis]) + [None] + list(static[axis + rank:]))
        return masked


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool_, name=None) -> Tensor:
    """See the module docstring; ValueError when ``maxlen`` is not a scalar."""
    with name_scope(name or "SequenceMask"):
        lengths = convert_to_tensor(lengths, dtype_hint=dtypes.int32, name="lengths")
        if maxlen is None:
            maxlen = maximum(np.zeros((), lengths.dtype.np), reduce_max(lengths, axis=None))
        maxlen = convert_to_tensor(maxlen, graph=lengths.graph)
        if maxlen.shape.ndims not in (None, 0):
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen} with shape '{maxlen.shape}' instead")
        steps = range_op(0, maxlen, 1, dtype=maxlen.dtype)
        mask = less(steps, cast(expand_dims(lengths, -1), maxlen.dtype))
        dtype = dtypes.as_dtype(dtype)
        return mask if dtype == dtypes.bool_ else cast(mask, dtype)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None) -> Tensor:  # noqa: A002
    """See the module docstring."""
    x = input if input_tensor is None else input_tensor
    axis = one_spelling(axis, reduction_indices, "axis", "reduction_indices")
    keep = bool(one_spelling(keepdims, keep_dims, "keepdims", "keep_dims"))
    with name_scope(name or "count_nonzero"):
        x = convert_to_tensor(x, name="input_tensor")
        zero = np.zeros((), x.dtype.np) if x.dtype != dtypes.string else b""
        nonzero = cast(not_equal(x, zero), dtypes.int64)
        return cast(reduce_sum(nonzero, axis=axis, keepdims=keep), dtype)


def reverse(tensor, axis, name=None) -> Tensor:
    """See the module docstring."""
    x = convert_to_tensor(tensor)
    axis = static_ints(axis, "reverse", "axis")
    rank = x.shape.ndims
    if rank is None:
        return _reverse_of_unknown_rank(x, axis, name)
    axes = {a % rank if -rank <= a < rank else _bad_axis(a, rank) for a in axis}
    begin, end, strides = [0] * rank, [0] * rank, [1] * rank
    begin_mask = end_mask = 0
    for a in range(rank):
        begin_mask |= 1 << a
        end_mask |= 1 << a
        if a in axes:
            strides[a] = -1
    return strided_slice(x, begin, end, strides, begin_mask=begin_mask, end_mask=end_mask,
                         name=name or "ReverseV2")            # TF's op's name


def _reverse_of_unknown_rank(x: Tensor, axis, name) -> Tensor:
    """``reverse`` where only a run knows the rank (a TF graph's ReverseV2 after shapes
    import could not follow): a slice with an ellipsis, so the axes must all count from
    the end or all from the start."""
    axes = [int(a) for a in np.atleast_1d(axis)]
    if axes and all(a < 0 for a in axes):
        span = -min(axes)
        steps = [slice(None, None, -1 if a - span in axes else None) for a in range(span)]
        spec = (Ellipsis, *steps)
    elif all(a >= 0 for a in axes):
        span = max(axes, default=-1) + 1
        spec = (*[slice(None, None, -1 if a in axes else None) for a in range(span)],
                Ellipsis)
    else:
        raise ValueError(f"reverse needs '{x.name}' of known rank to take axes {axes} "
                         f"counted from both ends.")
    with name_scope(name or "reverse"):
        return x[spec]


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,  # noqa: A002
                     seq_dim=None, batch_dim=None) -> Tensor:
    """See the module docstring; ``seq_dim``/``batch_dim`` are TF1's older names."""
    seq_axis = one_spelling(seq_axis, seq_dim, "seq_axis", "seq_dim")
    batch_axis = one_spelling(batch_axis, batch_dim, "batch_axis", "batch_dim")
    batch_axis = 0 if batch_axis is None else batch_axis
    if seq_axis is None:
        raise ValueError("reverse_sequence needs seq_axis.")
    with name_scope(name or "ReverseSequence") as scope:
        x = convert_to_tensor(input, name="input")
        rank = x.shape.ndims
        limit = rank if rank is not None else max(seq_axis, batch_axis) + 1
        if not (0 <= seq_axis < limit and 0 <= batch_axis < limit) or seq_axis == batch_axis:
            raise ValueError(f"reverse_sequence: seq_axis {seq_axis} and batch_axis "
                             f"{batch_axis} must be two axes of '{x.name}' ({x.shape}).")
        if rank is None:      # the order of the axes at run time (a Transpose's error
            from .array_sets import invert_permutation   # if the run lacks one)

            order = _batch_and_time_first(x, batch_axis, seq_axis)
            inverse = invert_permutation(order)
        else:
            order = [batch_axis, seq_axis] + [a for a in range(rank)
                                              if a not in (batch_axis, seq_axis)]
            inverse = [order.index(a) for a in range(rank)]
        moved = transpose(x, order)                       # [batch, time, ...]
        dims = shape(moved)
        lengths = convert_to_tensor(seq_lengths, name="seq_lengths")
        if lengths.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Value passed to parameter 'seq_lengths' has DataType "
                            f"{lengths.dtype.name} not in list of allowed values: int32, int64")
        checks = _sequence_checks(scope.rstrip("/"), x, moved, lengths, batch_axis, seq_axis)
        with control_dependencies(checks):
            lengths = identity(cast(lengths, dtypes.int32))   # the steps wait for the checks
        steps = expand_dims(range_op(0, dims[1], 1), 0)   # [1, time]
        length = expand_dims(lengths, 1)                  # [batch, 1]
        source = where(less(steps, length), length - 1 - steps, steps)
        rows = expand_dims(range_op(0, dims[0], 1), 1) * dims[1]
        flat = reshape(moved, concat([[-1], dims[2:]], 0))
        picked = reshape(gather(flat, reshape(rows + source, [-1])), dims)
        picked.set_shape(moved.shape)
        return transpose(picked, inverse)


def _sequence_checks(node: str, x: Tensor, moved: Tensor, lengths: Tensor, batch_axis: int,
                     seq_axis: int) -> list:
    """TF's checks of ``seq_lengths`` against ``x`` (``moved``: [batch, time, ...]): a vector
    (ValueError), as long as the batch (ValueError where the graph knows both, else at
    run), each length in ``[0, time]`` (at run, InvalidArgumentError with the words of
    TF's kernel).  The run's Asserts are left out where constant lengths pass."""
    dims = moved.shape.dims
    batch, time = (None, None) if dims is None else (dims[0], dims[1])
    context = f"for '{node}' (op: 'ReverseSequence') with input shapes: " \
              f"{bracketed(x.shape)}, {bracketed(lengths.shape)}"
    if lengths.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {lengths.shape.ndims} {context}.")
    count = None if lengths.shape.ndims is None else lengths.shape.dims[0]
    if batch is not None and count is not None and batch != count:
        raise ValueError(f"Dimensions must be equal, but are {batch} and {count} {context}.")
    known = constant_value(lengths)
    if known is not None and batch is not None and time is not None and \
            len(known) == batch and ((known >= 0) & (known <= time)).all():
        return []
    dims, n = shape(moved), size(lengths, out_type=dtypes.int32)
    check = Assert(equal(n, dims[0]), [f"Length of seq_lengths != input.dims({batch_axis})",
                                       n, dims[0]], name="seq_lengths_count")
    with control_dependencies([check]):
        check = Assert(reduce_all(greater_equal(lengths, 0)), ["seq_lens < 0", lengths],
                       name="seq_lengths_nonnegative")
    with control_dependencies([check]):
        return [Assert(reduce_all(less_equal(lengths, cast(dims[1], lengths.dtype))),
                       [f"seq_lens > input.dims({seq_axis})", lengths, dims[1]],
                       name="seq_lengths_in_range")]


def _batch_and_time_first(x: Tensor, batch_axis: int, seq_axis: int) -> Tensor:
    """The perm putting ``batch_axis`` then ``seq_axis`` first, the other axes of the
    value fed after them in order (for an ``x`` of unknown rank)."""
    from .array_fill import rank
    from .array_sets import setdiff1d

    pair = convert_to_tensor(np.array([batch_axis, seq_axis], np.int32))
    return concat([pair, setdiff1d(range_op(0, rank(x), 1), pair).out], 0)


def _bad_axis(axis, rank):
    raise ValueError(f"reverse: axis {axis} is out of range for a tensor of rank {rank}.")


def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    """See the module docstring (scalars ``start`` and ``stop`` only)."""
    with name_scope(name or "LinSpace"):
        start = convert_to_tensor(start, dtype_hint=dtypes.float32, name="start")
        stop = convert_to_tensor(stop, dtype_hint=start.dtype, name="stop")
        if not start.dtype.is_floating:
            raise TypeError(f"linspace: start '{start.name}' must be floating point, not "
                            f"{start.dtype.name}.")
        known = constant_value(convert_to_tensor(num))
        if known is not None and int(known) < 1:
            raise ValueError(f"linspace: num must be positive, got {int(known)}.")
        if axis != 0:
            raise ValueError("linspace: devsession supports scalar start and stop (axis=0).")
        steps = cast(range_op(0, num, 1), start.dtype)
        count = cast(convert_to_tensor(num), start.dtype)
        width = (stop - start) / maximum(count - 1, 1.0)      # one point has no step
        return start + steps * width
