"""TF's grouping transformations: ``group_by_window`` (also ``Dataset.group_by_window``)
and ``bucket_by_sequence_length`` built on it, as TF builds it.

    batches = dataset.apply(ds.data.experimental.bucket_by_sequence_length(
        lambda tokens, label: ds.shape(tokens)[0], [10, 20], [64, 32, 16]))

``group_by_window`` is three stages: a ``map`` puts each element's key and its key's
window size (the traced ``key_func`` and ``window_size_func``) before it; the
``group_by_window`` stage gathers the elements of each key into windows, emitted as
each fills (and the unfinished ones, by increasing key, once the input ends: TF's
order); and a ``flat_map`` runs ``reduce_func(key, window)`` on each window, its
dataset's elements before the next window is gathered.  A window is a dataset of its
elements, which may differ in shape (sequences of different lengths), so it travels
padded, with each element's shape, and ``reduce_func``'s window dataset cuts each
element back (``kernels/reference/dataset_grouping.py``).

``group_by_reducer(key_func, reducer)`` is a ``map`` putting each element's key and
``reducer.init_func(key)`` before it, a ``group_by_reducer`` stage folding each element
into its key's state with the traced ``reducer.reduce_func(state, element)`` (the
initial state the first element's), giving each key's state once the input ends (by
increasing key, TF's order), and a ``map`` of ``reducer.finalize_func``.  A state whose
shape the reduce function changes is relaxed to the shape both fit, as TF's.

``bucket_by_sequence_length`` is TF's composition, with one difference of means: TF
batches a window with its bucket's batch size as a tensor, where devsession batches
with the largest of the sizes (a window never holds more than its bucket's size, so the
batches are the same) and drops a short batch with a filter; padding to the bucket's
boundary is a ``map`` padding the batch.  The elements, their order and static shapes
are TF's.  A failed ``pad_to_bucket_boundary`` check is an ``InvalidArgumentError``
with TF's message, where TF wraps it in an ``InternalError``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..function_graph import FunctionGraph
from ..graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from ..ops import (assert_less, cast, constant, equal, gather, less, less_equal,
                   logical_and, nest, pad, reduce_min, shape, stack, where)
from ..tensor_shape import TensorShape
from .structure import ElementSpec, common_shape, lists_as_tuples
from .window import stacked

__all__ = ["keyed", "GroupedWindows", "reduced", "bucket_by_sequence_length",
           "Reducer", "group_by_reducer"]


def keyed(dataset, key_func, window_size=None, window_size_func=None):
    """``dataset`` with each element's key and window size before it, and the
    structure of the windows the ``group_by_window`` stage makes of those: the first
    two stages of ``Dataset.group_by_window`` (``data/dataset.py``).  Raises TF's
    ``ValueError`` for both or neither of ``window_size`` and ``window_size_func``, or
    a key or window size that is not an int64 scalar."""
    if window_size is not None and window_size_func or \
            not (window_size is not None or window_size_func):
        raise ValueError("Either the `window_size` argument or the `window_size_func` "
                         "argument must be specified.")
    if window_size is not None:
        def window_size_func(unused_key):
            return window_size
    unpacked = type(dataset._structure) is tuple     # the function takes its items

    def with_key(*args):
        key = _int64_scalar(key_func(*args), "key_func")
        size = _int64_scalar(window_size_func(key), "window_size_func")
        return key, size, args if unpacked else args[0]

    specs = dataset.flat_specs
    windows = (ElementSpec(dtypes.int64, []), *stacked(specs),
               *[ElementSpec(dtypes.int64, [None, s.shape.ndims]) for s in specs])
    return dataset.map(with_key), windows


class GroupedWindows:
    """What makes a Dataset (``data/dataset.py``'s ``_GroupedDataset``) the windows on
    their way to ``reduce_func``: its elements are ``(key, padded..., shapes...)``,
    which a traced function sees as ``(key, window)``, the window a dataset of the
    elements (of ``_element_structure``)."""

    _element_structure = None

    def _traced_element(self, args: list):
        key, rest = args[0], args[1:]
        window = self.from_tensor_slices(tuple(rest))._then(
            {"kind": "unpad"}, self._element_structure)
        return key, window


def reduced(grouped, reduce_func):
    """The ``flat_map`` of ``reduce_func`` over the windows, with TF's ``TypeError``
    where it returns no Dataset."""
    try:
        return grouped.flat_map(reduce_func)
    except TypeError as e:
        if "must return a Dataset" not in str(e):
            raise
        raise TypeError("Invalid `reduce_func`. `reduce_func` must return a single "
                        "`tf.data.Dataset` object.") from None


def _int64_scalar(value, function: str) -> Tensor:
    """``value`` as an int64 scalar tensor, or TF's ``ValueError``."""
    if isinstance(value, Tensor) and value.dtype != dtypes.int64:
        raise ValueError(f"Tensor conversion requested dtype int64 for Tensor with dtype "
                         f"{value.dtype.name}: {value}")
    tensor = convert_to_tensor(value, dtype=dtypes.int64)
    if not tensor.shape.is_compatible_with([]):
        raise ValueError(f"Invalid `{function}`. `{function}` must return a single "
                         f"`tf.int64` scalar tensor but its return type is "
                         f"TensorSpec(shape={_shape_text(tensor.shape)}, dtype=tf.int64, "
                         f"name=None).")
    return tensor


def _shape_text(shape: TensorShape) -> str:
    """A shape as TF's TensorSpec prints it: ``(2,)``, ``(None, 3)``."""
    return "<unknown>" if shape.ndims is None else str(tuple(shape.dims))


# --- bucket_by_sequence_length ------------------------------------------------------------

def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries,
                              bucket_batch_sizes, padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """``Dataset.bucket_by_sequence_length``: see the module docstring.  Raises TF's
    ``ValueError`` unless there is one more batch size than boundaries."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError(
            f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
            f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
            f"`len(bucket_boundaries)={len(bucket_boundaries)}`.")
    with dataset._graph.as_default():
        batch_sizes = constant(bucket_batch_sizes, dtype=dtypes.int64)
    largest = max(int(b) for b in bucket_batch_sizes)

    def element_to_bucket_id(*args):
        seq_length = element_length_func(*args)
        boundaries = list(bucket_boundaries)
        buckets_min = [np.iinfo(np.int32).min] + boundaries
        buckets_max = boundaries + [np.iinfo(np.int32).max]
        conditions = logical_and(less_equal(buckets_min, seq_length),
                                 less(seq_length, buckets_max))
        return reduce_min(where(conditions))

    def window_size_fn(bucket_id):
        return gather(batch_sizes, bucket_id)

    def batching_fn(bucket_id, grouped):
        if no_padding:
            batched = grouped.batch(largest)
        else:
            shapes = padded_shapes or grouped.output_shapes
            batched = grouped.padded_batch(largest, shapes, padding_values)
            if pad_to_bucket_boundary:
                batched = batched.map(boundary_padding(batched, grouped, shapes, bucket_id))
        if drop_remainder:
            batch_size = window_size_fn(bucket_id)
            batched = batched.filter(lambda *batch: equal(
                cast(shape(nest.flatten(batch)[0])[0], dtypes.int64), batch_size))
        return batched

    def boundary_padding(batched, grouped, shapes, bucket_id):
        """The map padding a batch's dimensions ``shapes`` leaves unknown to the
        bucket's boundary - 1, after TF's check that the bucket has one."""
        check = assert_less(bucket_id, constant(len(bucket_batch_sizes) - 1, dtypes.int64),
                            message="When pad_to_bucket_boundary=True, elements must have "
                                    "length < max(bucket_boundaries).")
        with control_dependencies([check]):
            filler = gather(constant(list(bucket_boundaries), dtypes.int64), bucket_id) - 1
        structure = grouped._structure
        flat_shapes = [_unknown_dims(s) for s in nest.flatten_up_to(structure, shapes)]
        specs = grouped.flat_specs
        values = [b"" if s.dtype == dtypes.string else 0 for s in specs] \
            if padding_values is None else nest.flatten_up_to(structure, padding_values)

        def padded(*batch):
            out = []
            for x, dims, value in zip(nest.flatten(batch), flat_shapes, values):
                if not any(dims):
                    out.append(x)
                    continue
                sizes = shape(x, out_type=dtypes.int64)
                zero = constant(0, dtypes.int64)
                paddings = stack([stack([zero, zero])] + [
                    stack([zero, filler - sizes[i + 1] if unknown else zero])
                    for i, unknown in enumerate(dims)])
                out.append(pad(x, paddings, constant_values=value))
            return nest.pack_sequence_as(batched._structure, out)
        return padded

    return dataset.group_by_window(element_to_bucket_id, batching_fn,
                                   window_size_func=window_size_fn)


def _unknown_dims(padded_shape) -> list:
    """Which dimensions of a padded shape (a TensorShape, or a list with None or -1
    for an unknown dimension) are unknown, the ones padded to the boundary."""
    dims = padded_shape.dims if isinstance(padded_shape, TensorShape) else padded_shape
    return [d is None or int(d) < 0 for d in dims]


# --- group_by_reducer ---------------------------------------------------------------------

class Reducer:
    """TF's ``tf.data.experimental.Reducer``: ``init_func(key)`` makes a key's first
    state, ``reduce_func(state, element)`` the next, ``finalize_func(state)`` the
    element the state gives (a tuple state's items as its arguments)."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


def group_by_reducer(key_func, reducer: Reducer):
    """TF's ``tf.data.experimental.group_by_reducer``, for ``apply``: one element per
    key, ``reducer``'s fold of that key's elements (see the module docstring).  Raises
    TF's ``ValueError`` for a key that is not an int64 scalar and ``TypeError`` for a
    reduce function whose state differs in structure or type from the initial one."""
    return lambda dataset: _grouped_by_reducer(dataset, key_func, reducer)


def _grouped_by_reducer(dataset, key_func, reducer: Reducer):
    dataset._dense_only("group_by_reducer")
    unpacked = type(dataset._structure) is tuple

    def with_state(*args):
        key = key_func(*args)
        key = key if isinstance(key, Tensor) else convert_to_tensor(key)
        if key.dtype != dtypes.int64 or not key.shape.is_compatible_with([]):
            raise ValueError(f"Invalid `key_func`. Expected `key_func` to return a scalar "
                             f"tf.int64 tensor, but instead `key_func` has output "
                             f"types=<dtype: '{key.dtype.name}'> and "
                             f"shapes={_shape_text(key.shape)}.")
        return key, lists_as_tuples(reducer.init_func(key)), args if unpacked else args[0]

    with_states = dataset.map(with_state)
    state_structure = with_states._structure[1]
    state_specs = nest.flatten(state_structure)
    while True:
        function, new_specs = _traced_reduce(dataset, reducer.reduce_func,
                                             state_structure, state_specs)
        relaxed = [ElementSpec(s.dtype, common_shape(s.shape, n.shape))
                   for s, n in zip(state_specs, new_specs)]
        if all(r.shape == s.shape for r, s in zip(relaxed, state_specs)):
            break
        state_specs = relaxed
    structure = nest.pack_sequence_as(state_structure, state_specs)
    folded = with_states._then_function("group_by_reducer", function, structure)
    stage = {**folded._stages[-1], "num_state": len(state_specs)}
    folded = type(folded)(folded._graph, folded._stages[:-1] + (stage,), folded._inputs,
                          folded._functions, structure, folded._control)
    return folded.map(reducer.finalize_func)


def _traced_reduce(dataset, reduce_func, state_structure, state_specs):
    """``reduce_func`` traced over a state of ``state_specs`` and an element: (the
    function, its new state's specs), checked against the state as TF checks it."""
    graph = dataset._graph
    function = FunctionGraph(graph.unique_name("Dataset_group_by_reducer"), graph)
    with function.as_default(), name_scope(None):
        args = [function.add_input(s.dtype, s.shape, f"state{k}")
                for k, s in enumerate(state_specs)]
        args += [function.add_input(s.dtype, s.shape, f"arg{k}")
                 for k, s in enumerate(dataset.flat_specs)]
        state = nest.pack_sequence_as(state_structure, args[:len(state_specs)])
        element = dataset._traced_element(args[len(state_specs):])
        new_state = lists_as_tuples(reduce_func(state, element))
        try:
            nest.assert_same_structure(state, new_state)
        except (ValueError, TypeError) as e:
            raise TypeError(f"Invalid `reducer`. The structure of the new state must match "
                            f"the initial state's ({e}).") from None
        new = [convert_to_tensor(t) for t in nest.flatten(new_state)]
        for before, after in zip(state_specs, new):
            if before.dtype != after.dtype:
                raise TypeError(f"Invalid `reducer`. The element types for the new state "
                                f"<dtype: '{after.dtype.name}'> do not match the element "
                                f"types of the old state <dtype: '{before.dtype.name}'>.")
        function.outputs = [function.capture(t) for t in new]
    return function, [ElementSpec(t.dtype, t.shape) for t in new]

