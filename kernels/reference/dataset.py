"""Kernels of the dataset iterator ops (``devsession/ops/dataset.py``): the host-side
pipeline behind ``ds.data``, for the reference device and the CPU (``HOST``; GPU
sessions place these ops on the CPU, as TF places its iterator ops).

A pipeline is the op's ``pipeline`` attr, a JSON list of stages, run as a chain of
*sources*: a source is a callable returning a fresh Python iterator of elements (an
element is a list of numpy arrays, one per component), so ``repeat`` starts its
upstream again for each epoch and ``shuffle`` draws a new order each time.  Stages:

================  =========================================================================
``slices``        element ``i`` is row ``i`` of each input (all with the same first dimension)
``tensors``       one element: the inputs
``range``         int64 scalars ``start, start + step, ...`` before ``stop``
``tfrecord``      the records of TFRecord files, scalar strings (``dataset_readers.py``);
                  ``textline``: the lines of text files; ``fixed_length``: their
                  ``record_bytes``-long records between a header and a footer;
                  ``csv``: the parsed lines of CSV files (``dataset_csv.py``)
``generator``     what a registered Python generator yields (``dataset_readers.py``)
``list_files``    the sorted paths matching the input's glob patterns, matched when the
                  iterator starts (``dataset_readers.py``)
``zip``           the elements of several pipelines (``branches``) side by side, until the
                  shortest ends; ``concatenate``: one pipeline's elements after another's
``map``           the traced function ``fn`` (an ``f<k>`` attr) on each element and the
                  tensors it captured
``filter``        the elements for which the traced predicate is True
``shuffle``       TF's buffered shuffle, TF's orders: a buffer of ``buffer_size`` elements
                  (-1: all of them), each output drawn from it by TF's Philox samples and
                  its place refilled from upstream (``dataset_shuffle.py``)
``batch``         ``batch_size`` consecutive elements stacked (the last, smaller batch kept
                  unless ``drop_remainder``); elements of differing shapes are an error
``padded_batch``  as ``batch``, each component padded with its padding value (an input)
                  to its padded shape (-1: the batch's largest); ``unbatch``: each
                  element's rows, one element each (first dimensions must agree); these,
                  ``batch`` and ``window``: ``dataset_batching.py``
``repeat``        the upstream ``count`` times (-1: forever; an epoch with no elements ends it)
``take/skip``     the first ``count`` elements / all but them (-1: all)
``shard``         every ``num_shards``-th element from the ``index``-th (``repeat``,
                  ``take``, ``skip`` and ``shard``: ``dataset_counting.py``)
``take_while``    the elements before the first the traced predicate rejects
``cache``         the first complete pass recorded in memory and replayed after it
``prefetch``      nothing: elements are made when ``get_next`` asks for them (``options``:
                  ``with_options``' options, kept for ``Dataset.options()``, nothing too)
``ignore_errors`` the upstream's elements, skipping the errors among them (below)
``scan``          the traced ``fn`` on ``(state..., element...)``: its first
                  ``num_state`` outputs the next state (from the inputs' initial one),
                  the rest the element
``single``        the upstream's only element (none or a second: InvalidArgumentError)
``group_by_window`` the windows of elements of one key, each padded, with the
                  elements' shapes; ``unpad``: padded components cut back to the
                  shapes that follow them; ``group_by_reducer``: one state per key,
                  folded by the traced ``fn`` (``dataset_grouping.py``)
``unique``        the elements not seen before; ``assert_cardinality``: the elements,
                  checked to be ``expected`` many; ``list``: a source
                  (``dataset_checks.py``); ``rejection_resample``: TF's resampling to
                  a class distribution (``dataset_resampling.py``);
                  ``dense_to_sparse_batch``: batches as a SparseTensor's three arrays
                  (``dataset_sparse.py``)
``choose``        a source: the first branch's int64 scalars pick which other branch
                  gives the next element (an ended branch is skipped, or ends the data
                  with ``stop_on_empty``); ``categorical``: a source of int64 indices
                  drawn with the input's weights, TF's ``sample_from_datasets``
                  selector; ``random``: TF's ``RandomDataset`` (``dataset_random.py``)
``interleave``    per element, the traced ``fn`` computes the inputs of the nested
                  pipeline ``stages``; ``cycle_length`` of those run interleaved,
                  ``block_length`` elements each in turn, in TF's order (``flat_map``:
                  one at a time)
================  =========================================================================

The iterator lives in the session's resources (container ``_datasets``) under the op's
``shared_name``; ``get_next`` takes its lock, so concurrent runs each get their own
elements.  Each element is checked against the op's declared dtypes and static shapes.
An error inside the pipeline (a map function's for one element, a batch of mismatched
shapes, a file that cannot be read) is raised for that ``get_next`` alone, and the next
``get_next`` gives the next element, as TF's: the error travels down the stages as a
``Failed`` element (``dataset_failures.py``) and each stage treats it as TF's does.  A
``map`` followed by a ``batch`` is TF's fused ``MapAndBatchDataset`` (its default
``map_and_batch_fusion``): a batch with an error consumes its ``batch_size`` elements;
any other ``batch`` (``padded_batch``, ``dense_to_sparse_batch``) ends at the error,
losing what it had gathered.  A ``shuffle`` followed by a ``repeat`` is TF's fused
ShuffleAndRepeat, which reads the next epoch sooner (``dataset_shuffle.py``); an
``interleave`` with ``num_parallel_calls`` moves its cycle on past an error, as TF's
parallel interleave does, the sequential one stays.  ``take``, ``skip``, ``shard`` and
``assert_cardinality`` count only elements, not errors (a ``skip`` that meets one starts
counting again, as TF's); ``shuffle``, ``scan`` and the grouping stages keep their
buffers and states past one; ``zip`` reads every branch and gives the first error;
``cache`` records no error.  A file that cannot be opened is its error at every
``get_next`` that reaches it; an error partway through a file ends that file.  An error
that a stage cannot go on past (a Python exception, a ``rejection_resample`` input's)
leaves the iterator failed until its initializer runs again.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import threading

import numpy as np

from devsession.errors import (FailedPreconditionError, InvalidArgumentError, NotFoundError,
                               OutOfRangeError)

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .dataset_batching import (batch_stage, component_parts, gathered_batches,
                               padded_batch_stage, unbatch_stage, window_stage)
from .dataset_checks import assert_cardinality_stage, list_source, unique_stage
from .dataset_counting import (repeat_stage, shard_rows_stage, shard_stage, skip_rows_stage,
                               skip_stage, take_rows_stage, take_stage)
from .dataset_csv import csv_source
from .dataset_failures import Failed, attempt, first_failure
from .dataset_grouping import group_by_reducer_stage, group_by_window_stage, unpad_stage
from .dataset_random import categorical_source, random_source
from .dataset_readers import (default_cycle_length, fixed_length_source, generator_source,
                              interleaved, list_files_source, textline_source,
                              tfrecord_source)
from .dataset_resampling import rejection_resample_stage
from .dataset_shuffle import shuffle_and_repeat_stage, shuffle_stage
from .dataset_sparse import dense_to_sparse_batch_stage
from .sparse import check_indices

__all__ = ["DatasetIterator", "build_pipeline"]

_END = object()                 # next()'s default: the end of a source
CONTAINER = "_datasets"
HANDLES = "_dataset_handles"    # the iterators whose string_handle() ran, by name


class DatasetIterator:
    """One iterator's position in its pipeline (a session resource).  A ``Failed``
    element is raised for that ``next`` alone; an exception out of the pipeline itself
    (a stage that cannot go on) fails the iterator until it is started again."""

    def __init__(self, elements):
        self._elements = elements
        self._failure: BaseException | None = None
        self.lock = threading.Lock()

    def next(self, node) -> list:
        with self.lock:
            if self._failure is not None:
                raise FailedPreconditionError(
                    f"The iterator read by '{node.name}' failed earlier ({self._failure}); "
                    f"run its initializer to start it again.", node.name)
            try:
                element = next(self._elements)
            except StopIteration:
                raise OutOfRangeError("End of sequence", node.name) from None
            except BaseException as e:
                self._failure = e
                raise
            if element.__class__ is Failed:        # this element's error only
                raise element.error
            return element


def build_pipeline(node, stages: list, inputs: list, functions: dict):
    """The source of elements the JSON ``stages`` describe, over the op's ``inputs``.

    Slices travel as row numbers through the stages that only reorder, drop or repeat
    elements (``_ROW_STAGES``), so that a batch of them is one ``np.take`` per component
    rather than a row copy and a stack per element; the first stage that reads an
    element (or the end of the pipeline) materializes the rows.  No error can arise
    before that, so those stages' row versions need not look for ``Failed``.  Where
    TF's default rewrites fuse two stages, their errors are the fused dataset's
    (``_fusions``)."""
    source, table = None, None
    fusions, fused = _fusions(stages), set()
    for index, stage in enumerate(stages):
        if index in fused:
            continue
        stage = _with_tensor_params(node, stage, inputs)
        kind = stage["kind"]
        args = [inputs[i] for i in range(*stage.get("inputs", (0, 0)))]
        if source is None and kind in _COMBINED:
            branches = [build_pipeline(node, b, inputs, functions) for b in stage["branches"]]
            source = _COMBINED[kind](node, stage, branches)
        elif source is None:
            source = _SOURCES[kind](node, stage, args)
            table = args if kind == "slices" and not stage.get("sparse") else None
        elif kind in _PASSES:      # its input read in passes of their own, as TF's
            upstream = functools.partial(build_pipeline, node, stages[:index], inputs, functions)
            source, table = _PASSES[kind](node, stage, upstream, args, functions), None
        elif table is not None and kind == "batch":
            source, table = gathered_batches(stage, source, table), None
        else:
            if table is not None and kind not in _ROW_STAGES:
                source, table = _rows(source, table), None
            following = stages[index + 1]["kind"] if index + 1 < len(stages) else None
            if kind == "batch" and "map_and_batch_fusion" in fusions and \
                    stages[index - 1]["kind"] == "map":
                stage = {**stage, "after_map": True}
            if kind == "shuffle" and following == "repeat" and table is None and \
                    "shuffle_and_repeat_fusion" in fusions and stage["buffer_size"] > 0:
                count = _with_tensor_params(node, stages[index + 1], inputs)["count"]
                source = shuffle_and_repeat_stage(node, stage, count, source)
                fused.add(index + 1)
                continue
            kinds = _ROW_STAGES if table is not None else _STAGES
            source = kinds[kind](node, stage, source, args, functions)
    return source if table is None else _rows(source, table)


def _fusions(stages: list) -> set:
    """TF's default rewrites that fuse stages, those of them the dataset's options leave
    on: ``map_and_batch_fusion`` (a map's batch takes its ``batch_size`` elements even
    past an error) and ``shuffle_and_repeat_fusion`` (``dataset_shuffle.py``)."""
    optimization = {}
    for stage in stages:
        if stage["kind"] == "options":
            optimization.update(stage["options"].get("experimental_optimization", {}))
    default = optimization.get("apply_default_optimizations", True) is not False
    return {name for name in ("map_and_batch_fusion", "shuffle_and_repeat_fusion")
            if optimization.get(name, default) is not False}


def _with_tensor_params(node, stage: dict, inputs: list) -> dict:
    """``stage`` with the int parameters the graph gave as tensors (a fed batch size)
    read from the op's inputs, checked as the builder checks Python ints."""
    params = stage.get("tensor_params")
    if not params:
        return stage
    stage = dict(stage)
    for key, (index, minimum, where) in params.items():
        value = np.asarray(inputs[index])
        if value.ndim != 0 or value.dtype.kind not in "iu":
            raise invalid_argument(node.name, node.op, f"Dataset.{where}: {key} must be an "
                                   f"int scalar, got {value!r}.")
        if minimum is not None and int(value) < minimum:
            raise invalid_argument(node.name, node.op, f"Dataset.{where}: {key} must be at "
                                   f"least {minimum}, got {int(value)}.")
        stage[key] = int(value)
    if stage["kind"] == "shard" and stage["index"] >= stage["num_shards"]:
        raise invalid_argument(node.name, node.op, f"Dataset.shard: index {stage['index']} "
                               f"must be less than num_shards {stage['num_shards']}.")
    return stage


def _rows(numbers, table: list):
    """Elements from a source of row numbers into the components ``table``."""
    return lambda: ([c[i, ...].copy() for c in table] for i in numbers())


# --- sources ---------------------------------------------------------------------------------

def _slices(node, stage, components):
    if stage.get("sparse"):
        return _sparse_slices(node, components, set(stage["sparse"]))
    rows = {c.shape[0] if c.ndim else None for c in components}
    if None in rows or len(rows) != 1:
        shapes = ", ".join(str(list(c.shape)) for c in components)
        raise InvalidArgumentError(f"'{node.name}': the tensors sliced into a dataset must "
                                   f"have the same first dimension, got shapes {shapes}.",
                                   node.name)
    (count,) = rows
    return lambda: iter(range(count))           # row numbers: see build_pipeline


def _sparse_slices(node, components: list, sparse: set):
    """Rows of components among which SparseTensors' three arrays start at the indices
    in ``sparse``: a SparseTensor's row is TF's slice (its entries of that first index,
    less it, and ``dense_shape[1:]``), after TF's checks of it (rank > 1, its indices
    in bounds and row-major order: ``check_indices``) and of the first dimensions."""
    parts = component_parts(components, sparse)
    counts = set()
    for part in parts:
        if len(part) == 3:
            indices, shape = np.asarray(part[0], np.int64), np.asarray(part[2], np.int64)
            if shape.size < 2:
                raise invalid_argument(node.name, node.op, f"Rank of input SparseTensor "
                                       f"should be > 1, but saw rank: {shape.size}")
            check_indices(node, indices, tuple(int(d) for d in shape))
            counts.add(int(shape[0]))
        else:
            counts.add(part[0].shape[0] if part[0].ndim else None)
    if len(counts) != 1 or None in counts:
        raise invalid_argument(node.name, node.op, "All components must have the same size "
                               "in the 0th dimension")
    (count,) = counts

    def rows():                  # fresh generators per pass (a repeat reads it again)
        sliced = [_sparse_rows(part, count) if len(part) == 3 else
                  ([part[0][i, ...].copy()] for i in range(count)) for part in parts]
        return ([a for row in rows for a in row] for rows in zip(*sliced))
    return rows


def _sparse_rows(arrays: list, count: int):
    """Each row's three arrays of a SparseTensor whose indices are in row-major order."""
    indices, values, shape = (np.asarray(a) for a in arrays)
    bounds = np.searchsorted(indices[:, 0], np.arange(count + 1))
    for begin, end in zip(bounds[:-1], bounds[1:]):
        yield [indices[begin:end, 1:].copy(), values[begin:end].copy(), shape[1:].copy()]


def _tensors(node, stage, components):
    return lambda: iter([[c.copy() for c in components]])


def _range(node, stage, _):
    start, stop, step = stage["start"], stage["stop"], stage["step"]
    if step == 0:
        raise invalid_argument(node.name, node.op, "Dataset.range: step must not be 0.")
    dtype = np.dtype(stage.get("dtype", "int64"))
    return lambda: ([dtype.type(v)] for v in range(start, stop, step))


def _zipped(node, stage, branches):
    """Each element the concatenated components of the branches' elements, until the
    shortest branch ends.  As TF's, every branch is read for each element (up to one
    that ended): an error in one is that element's, the others' elements consumed."""
    def zipped():
        sources = [branch() for branch in branches]
        while True:
            elements = []
            for source in sources:
                element = next(source, _END)
                if element is _END:
                    break
                elements.append(element)
            failure = first_failure(elements)
            if failure is not None:
                yield failure
            if len(elements) < len(sources):
                return
            if failure is None:
                yield [v for e in elements for v in e]
    return zipped


def _concatenated(node, stage, branches):
    return lambda: itertools.chain.from_iterable(branch() for branch in branches)


def _chosen(node, stage, branches):
    """TF's DirectedInterleave: the selector (the first branch) names the branch each
    element comes from."""
    stop_on_empty = stage["stop_on_empty"]

    def chosen():
        selector, *sources = [branch() for branch in branches]
        live = len(sources)
        for choice in selector:
            if choice.__class__ is Failed:
                yield choice
                continue
            i = int(choice[0])
            if not 0 <= i < len(sources):
                yield Failed(InvalidArgumentError(f"Selector index out of range: {i} >= "
                                                  f"{len(sources)}", node.name))
                continue
            if sources[i] is None:
                continue
            element = next(sources[i], None)
            if element is not None:
                yield element
                continue
            if stop_on_empty:
                return
            sources[i], live = None, live - 1
            if not live:
                return
    return chosen


_SOURCES = {"slices": _slices, "tensors": _tensors, "range": _range,
            "tfrecord": tfrecord_source, "textline": textline_source,
            "fixed_length": fixed_length_source, "csv": csv_source,
            "generator": generator_source, "list_files": list_files_source,
            "categorical": categorical_source, "list": list_source, "random": random_source}
_COMBINED = {"zip": _zipped, "concatenate": _concatenated, "choose": _chosen}


# --- stages ----------------------------------------------------------------------------------

def _map(node, stage, upstream, captured, functions):
    fn = functions[stage["fn"]]

    def mapped():
        for element in upstream():
            yield element if element.__class__ is Failed else attempt(fn, element + captured)
    return mapped


def _filter(node, stage, upstream, captured, functions):
    keep = _predicate(node, functions[stage["fn"]], captured, "filter")

    def kept():
        for element in upstream():
            if element.__class__ is Failed:
                yield element
                continue
            verdict = attempt(keep, element)
            if verdict.__class__ is Failed:
                yield verdict
            elif verdict:
                yield element
    return kept


def _ignore_errors(node, stage, upstream, _, __):
    return lambda: (e for e in upstream() if e.__class__ is not Failed)


def _scan(node, stage, upstream, args, functions):
    """The state moves on with each element; an error (the input's or ``fn``'s) leaves
    it as it was, as TF's."""
    fn, count = functions[stage["fn"]], stage["num_state"]
    initial, captured = args[:count], args[count:]

    def scanned():
        state = list(initial)
        for element in upstream():
            if element.__class__ is not Failed:
                element = attempt(fn, state + element + captured)
            if element.__class__ is Failed:
                yield element
                continue
            outputs = [np.asarray(v) for v in element]
            state = outputs[:count]
            yield outputs[count:]
    return scanned


def _single(node, stage, upstream, _, __):
    def single():
        elements = upstream()
        element = next(elements, None)
        if element is None:
            raise InvalidArgumentError("Dataset was empty.", node.name)
        if element.__class__ is not Failed:
            second = next(elements, None)
            if second.__class__ is Failed:
                element = second
            elif second is not None:
                raise InvalidArgumentError("Dataset had more than one element.", node.name)
        yield element
    return single


def _predicate(node, predicate, captured, kind: str):
    """``keep(element)``: the traced predicate's scalar bool for an element."""
    def keep(element) -> bool:
        value = np.asarray(predicate(element + captured)[0])
        if value.shape != () or value.dtype != np.bool_:
            raise InvalidArgumentError(f"'{node.name}': a {kind} predicate must return a "
                                       f"scalar bool, got {value.dtype} {list(value.shape)}.",
                                       node.name)
        return bool(value)
    return keep


def _take_while(node, stage, upstream, captured, functions):
    keep = _predicate(node, functions[stage["fn"]], captured, "take_while")

    def taken():
        for element in upstream():
            verdict = element if element.__class__ is Failed else attempt(keep, element)
            if verdict.__class__ is Failed:
                yield verdict
            elif not verdict:
                return
            else:
                yield element
    return taken


def _cache(node, stage, upstream, _, __):
    memory = _Recording()          # the iterator's lock guards it

    def cached():
        if memory.complete:
            for element in memory.elements:
                yield [v.copy() for v in element]
            return
        memory.elements = []
        for element in upstream():
            if element.__class__ is Failed:          # raised, not recorded (TF's)
                yield element
                continue
            memory.elements.append(element)
            yield [v.copy() for v in element]
        memory.complete = True
    return cached


class _Recording:
    """What a cache stage has seen: the elements of a pass, and whether it finished."""

    def __init__(self):
        self.elements: list = []
        self.complete = False


def _prefetch(node, stage, upstream, _, __):
    return upstream


def _interleave(node, stage, upstream, captured, functions):
    fn, nested = functions[stage["fn"]], stage["stages"]
    cycle = stage["cycle_length"] if stage["cycle_length"] > 0 else default_cycle_length()

    def open_element(element):
        inputs = [np.asarray(v) for v in fn(element + captured)]
        return build_pipeline(node, nested, inputs, functions)()   # an OpError: Failed
    return lambda: interleaved(upstream(), open_element, cycle, stage["block_length"],
                               advance_on_error=stage.get("parallel", False))


# Stages that never look inside an element, so they pass row numbers through: their
# versions for rows, which no error is among.
_ROW_STAGES = {"shuffle": shuffle_stage, "repeat": repeat_stage, "take": take_rows_stage,
               "skip": skip_rows_stage, "shard": shard_rows_stage, "prefetch": _prefetch,
               "options": _prefetch}
_STAGES = {"map": _map, "filter": _filter, "shuffle": shuffle_stage, "batch": batch_stage,
           "padded_batch": padded_batch_stage, "unbatch": unbatch_stage,
           "repeat": repeat_stage, "take": take_stage, "skip": skip_stage,
           "shard": shard_stage, "take_while": _take_while, "cache": _cache,
           "prefetch": _prefetch, "interleave": _interleave, "window": window_stage,
           "ignore_errors": _ignore_errors, "scan": _scan, "single": _single,
           "group_by_window": group_by_window_stage, "unpad": unpad_stage,
           "group_by_reducer": group_by_reducer_stage, "unique": unique_stage,
           "assert_cardinality": assert_cardinality_stage, "options": _prefetch,
           "dense_to_sparse_batch": dense_to_sparse_batch_stage}
# Stages given a builder of their input rather than its source: each pass is built anew,
# as TF's iterators of one input in different places are (a shuffle's seed generator each).
_PASSES = {"rejection_resample": rejection_resample_stage}


# --- the kernels ---------------------------------------------------------------------------------

def _resources(node):
    """The session's resources: through the function service of ops that carry
    pipelines, else the state context stateful ops get."""
    context = node.context
    return context.factory.resources if hasattr(context, "factory") else context.resources


def _starter(node):
    """``start(inputs)``: a new DatasetIterator at the pipeline's first element."""
    with _malformed_pipeline(node):
        stages = json.loads(node.attrs["pipeline"])
        functions = {slot: node.context.instantiate(node.attrs[slot], slot)
                     for slot in _function_slots(stages)}

    def start(inputs) -> DatasetIterator:
        with _malformed_pipeline(node):
            source = build_pipeline(node, stages, [np.asarray(x) for x in inputs],
                                    functions)
        return DatasetIterator(iter(source()))
    return start


@contextlib.contextmanager
def _malformed_pipeline(node):
    """A pipeline attr that is not what ``devsession/data`` writes (a GraphDef is
    untrusted input) is an InvalidArgumentError naming the node, not a crash."""
    try:
        yield
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise InvalidArgumentError(f"'{node.name}': its dataset pipeline is malformed "
                                   f"({type(e).__name__}: {e}).", node.name) from None


def _function_slots(stages) -> set:
    """The function attrs the stages (and their branches) use."""
    slots = {s["fn"] for s in stages if "fn" in s}
    for stage in stages:
        for branch in (*stage.get("branches", ()), stage.get("stages", ())):
            slots |= _function_slots(branch)
    return slots


@register_kernel("MakeDatasetIterator", HOST)
def build_make_iterator(node):
    start, name = _starter(node), node.attrs["shared_name"]

    def make_iterator(*inputs):
        _resources(node).put(CONTAINER, name, start(inputs))
    return make_iterator


def _finder(node):
    """``find(inputs)``: the iterator this node names (a one-shot one started on first
    use), or None where it has not been initialized."""
    name = node.attrs["shared_name"]
    start = _starter(node) if node.attrs.get("one_shot") else None

    def find(inputs):
        resources = _resources(node)
        iterator = resources.get(CONTAINER, name)
        if iterator is None and start is not None:
            iterator = resources.get_or_put(CONTAINER, name, lambda: start(inputs))
        return iterator
    return find


def _not_initialized(node):
    return FailedPreconditionError(
        "GetNext() failed because the iterator has not been initialized. Ensure that you "
        "have run the initializer operation for this iterator before getting the next "
        "element.", node.name)


def _element(node, iterator, check):
    if node.attrs.get("as_optional"):
        return _optional_element(node, iterator, check)
    element = check(iterator.next(node))
    return element[0] if len(element) == 1 else tuple(element)


def _optional_element(node, iterator, check):
    """``get_next_as_optional()``: ``(True, element...)``, or at the end of the data
    ``(False, zeros...)`` (the declared shapes, unknown dimensions 0)."""
    try:
        return (np.bool_(True), *check(iterator.next(node)))
    except OutOfRangeError:
        empty = [np.zeros([d or 0 for d in (shape or ())], np.dtype(dtype))
                 for dtype, shape in zip(node.output_dtypes[1:], node.output_shapes[1:])]
        for value in empty:
            if value.dtype == object:
                value.fill(b"")
        return (np.bool_(False), *empty)


@register_kernel("DatasetOptionalGetValue", HOST)
def build_optional_get_value(node):
    def get_value(has_value, *components):
        if not bool(np.asarray(has_value)):
            raise InvalidArgumentError("The given optional does not have a value.",
                                       node.name)
        return components[0] if len(components) == 1 else tuple(components)
    return get_value


@register_kernel("DatasetIteratorGetNext", HOST)
def build_get_next(node):
    find, check = _finder(node), _element_check(node)

    def get_next(*inputs):
        iterator = find(inputs)
        if iterator is None:
            raise _not_initialized(node)
        return _element(node, iterator, check)
    return get_next


@register_kernel("DatasetIteratorHandle", HOST)
def build_handle(node):
    find, handle = _finder(node), np.array(node.attrs["shared_name"].encode(), object)

    def string_handle(*inputs):
        find(inputs)
        _resources(node).get_or_put(HANDLES, node.attrs["shared_name"], lambda: True)
        return handle
    return string_handle


@register_kernel("DatasetIteratorGetNextFromHandle", HOST)
def build_get_next_from_handle(node):
    check = _element_check(node)

    def get_next(handle):
        handle = np.asarray(handle)
        if handle.shape != () or not isinstance(handle.item(), bytes):
            raise InvalidArgumentError(f"'{node.name}': an iterator handle is a string "
                                       f"scalar, got {handle.dtype} {list(handle.shape)}.",
                                       node.name)
        name = handle.item().decode("utf-8", "replace")
        iterator = _resources(node).get(CONTAINER, name)
        if iterator is None and _resources(node).get(HANDLES, name) is None:
            raise NotFoundError(f"'{node.name}': no iterator with the handle {name!r} in "
                                f"this session on this device: feed a handle that "
                                f"iterator.string_handle() returned in this session, of an "
                                f"iterator on the same device (on a cluster, the same "
                                f"task) as this get_next.", node.name)
        if iterator is None:
            raise _not_initialized(node)
        return _element(node, iterator, check)
    return get_next


def _element_check(node):
    first = 1 if node.attrs.get("as_optional") else 0     # after has_value
    dtypes = [np.dtype(d) for d in node.output_dtypes[first:]]
    shapes = list(node.output_shapes)[first:]

    def check(element: list) -> list:
        if len(element) != len(dtypes):
            raise InvalidArgumentError(f"'{node.name}': the element has {len(element)} "
                                       f"components, the dataset declares {len(dtypes)}.",
                                       node.name)
        out = []
        for k, (value, dtype, shape) in enumerate(zip(element, dtypes, shapes)):
            value = np.asarray(value)
            fits = shape is None or (len(shape) == value.ndim and all(
                d is None or d == v for d, v in zip(shape, value.shape)))
            if value.dtype != dtype or not fits:
                raise InvalidArgumentError(
                    f"'{node.name}': component {k} of the element is {value.dtype} "
                    f"{list(value.shape)}, but the dataset declares {dtype} "
                    f"{'unknown' if shape is None else list(shape)}.", node.name)
            out.append(value)
        return out
    return check

