"""TF1's ``tf.data.experimental`` transformations, the functions a pipeline passes to
``dataset.apply(...)`` (and the few that take a dataset), built from ``Dataset``'s
stages:

    dataset = dataset.apply(ds.data.experimental.shuffle_and_repeat(10000, seed=1))
    dataset = dataset.apply(ds.data.experimental.map_and_batch(parse, 128))

Orders are TF's where TF's are deterministic (``parallel_interleave`` with
``sloppy=False`` is ``interleave``'s order, ``sloppy=True`` too);
``sample_from_datasets`` and ``RandomDataset`` draw TF's values for a seed
(``kernels/reference/dataset_random.py``).  ``prefetch_to_device`` and ``copy_to_device``
pass the elements through (devsession's pipelines run on the host, and ``get_next``
feeds whichever device reads it).  ``cardinality`` is worked out when the graph is
built, from the stages: UNKNOWN where that needs a run (a slice of a tensor of
unknown length) as well as where TF's is (filter, interleave, readers).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, control_dependencies, convert_to_tensor
from ..ops import nest
from .dataset import Dataset, _combined, _common_shape, _python_int
from .structure import ElementSpec

__all__ = ["shuffle_and_repeat", "map_and_batch", "parallel_interleave", "unbatch",
           "ignore_errors", "enumerate_dataset", "get_single_element", "Counter",
           "take_while", "scan", "sample_from_datasets", "choose_from_datasets",
           "cardinality", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY",
           "prefetch_to_device", "copy_to_device", "group_by_window",
           "bucket_by_sequence_length", "unique", "assert_cardinality", "from_list",
           "RandomDataset"]

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """``shuffle(buffer_size, seed)`` then ``repeat(count)``, as TF defines it."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """``map(map_func)`` then ``batch(batch_size, drop_remainder)``."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`num_parallel_batches` and `num_parallel_calls` are mutually "
                         "exclusive.")
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """``interleave(map_func, cycle_length, block_length)`` (its order whatever
    ``sloppy``), parallel: an error moves the cycle on."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length,
                                              num_parallel_calls=cycle_length)


def unbatch():
    return lambda dataset: dataset.unbatch()


def ignore_errors(log_warning=False):
    """The elements whose making raised no error (an error anywhere upstream, a map
    function's or a batch's, drops that element and the pipeline goes on)."""
    return lambda dataset: dataset._then({"kind": "ignore_errors"})


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """``Dataset.group_by_window`` for ``apply`` (``grouping.py``)."""
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size,
                                                   window_size_func)


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """``Dataset.bucket_by_sequence_length`` for ``apply`` (``grouping.py``)."""
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
        padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)


def unique():
    """``Dataset.unique`` for ``apply``."""
    return lambda dataset: dataset.unique()


def assert_cardinality(expected_cardinality):
    """The elements, checked to be ``expected_cardinality`` many (a Python int or a
    constant; ``INFINITE_CARDINALITY``: never ending): TF's
    ``FailedPreconditionError`` at the first element past them, or at the end of too
    few.  ``cardinality`` of the result is ``expected_cardinality``, as TF's."""
    expected = _python_int(expected_cardinality, "assert_cardinality",
                           minimum=INFINITE_CARDINALITY)
    return lambda dataset: dataset._then({"kind": "assert_cardinality",
                                          "expected": expected})


def from_list(elements) -> Dataset:
    """The items of the list ``elements`` one by one, each a nest of tensors of one
    structure and dtypes (their shapes may differ: the dataset's is the most specific
    shape all fit).  Raises TF's ``ValueError`` for an empty list or another type."""
    if not isinstance(elements, list):
        raise ValueError("Invalid `elements`. `elements` must be a list.")
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty. If you want "
                         "an empty dataset, use `tf.data.Dataset.range(0)`.")
    single = [Dataset.from_tensors(e) for e in elements]
    first = single[0]
    specs = first.flat_specs
    for other in single[1:]:
        nest.assert_same_structure(first._structure, other._structure)
        for k, (mine, theirs) in enumerate(zip(specs, other.flat_specs)):
            if mine.dtype != theirs.dtype:
                raise TypeError(f"from_list: component {k} is {mine.dtype.name} in the "
                                f"first element and {theirs.dtype.name} in another.")
            specs[k] = ElementSpec(mine.dtype, _common_shape(mine.shape, theirs.shape))
    inputs = [t for d in single for t in d._inputs]
    stage = {"kind": "list", "inputs": [0, len(inputs)], "num_components": len(specs)}
    return Dataset(first._graph, [stage], inputs, (),
                   nest.pack_sequence_as(first._structure, specs))


def RandomDataset(seed=None) -> Dataset:  # noqa: N802
    """int64 scalars, TF's uniform uint32s, forever; seeded by ``seed`` and the graph
    seed as TF's (``get_seed``): TF's values for a seed, in each session."""
    from ..graph import get_default_graph
    from ..ops.random import _seeds

    graph = get_default_graph()
    with graph.as_default():
        seeds = list(_seeds(seed))
    return Dataset(graph, [{"kind": "random", "seeds": seeds}], (), (),
                   ElementSpec(dtypes.int64, []))


def enumerate_dataset(start=0):
    return lambda dataset: dataset.enumerate(start)


def take_while(predicate):
    return lambda dataset: dataset.take_while(predicate)


def scan(initial_state, scan_func):
    return lambda dataset: dataset.scan(initial_state, scan_func)


def prefetch_to_device(device, buffer_size=None):
    """A pass-through on the host (see the module docstring)."""
    return lambda dataset: dataset.prefetch(1 if buffer_size is None else buffer_size)


def copy_to_device(target_device, source_device="/cpu:0"):
    """A pass-through on the host (see the module docstring)."""
    return lambda dataset: dataset


def Counter(start=0, step=1, dtype=dtypes.int64) -> Dataset:  # noqa: N802
    """``start, start + step, ...`` forever, of ``dtype``."""
    first = _python_int(start, "Counter")
    stride = _python_int(step, "Counter")
    if stride == 0:
        counter = Dataset.from_tensors(np.int64(first)).repeat()
    else:
        info = np.iinfo(np.int64)
        counter = Dataset.range(first, info.max if stride > 0 else info.min, stride)
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.int64:
        from ..ops.elementwise import cast
        counter = counter.map(lambda x: cast(x, dtype))
    return counter


def get_single_element(dataset: Dataset):
    """The only element of ``dataset`` as tensors, made anew each run; an empty dataset
    or one of several elements fails the run with TF's ``InvalidArgumentError``."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"Invalid `dataset`. Expected a `tf.data.Dataset` object but got "
                        f"{type(dataset)}.")
    iterator = dataset._then({"kind": "single"}).make_initializable_iterator()
    with control_dependencies([iterator.initializer]):
        return iterator.get_next(name="DatasetToSingleElement")


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False) -> Dataset:
    """The element of ``datasets[i]`` for each ``i`` of ``choice_dataset`` (int64
    scalars); a chosen dataset that has ended is passed over (or ends the data with
    ``stop_on_empty_dataset``)."""
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(choice_dataset, Dataset):
        raise TypeError(f"Invalid `choice_dataset`. `choice_dataset` should be a "
                        f"`tf.data.Dataset` but is {type(choice_dataset)}.")
    spec = choice_dataset._structure
    if not isinstance(spec, ElementSpec) or spec.dtype != dtypes.int64 or \
            not spec.shape.is_compatible_with([]):
        raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                        "scalar of type `tf.int64`.")
    return _chosen(list(datasets), choice_dataset, bool(stop_on_empty_dataset))


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False
                         ) -> Dataset:
    """Elements drawn at random from ``datasets``, dataset ``i`` with probability
    ``weights[i]`` (normalized; default equal), TF's draws for a seed: its selector
    (``kernels/reference/dataset_random.py``) from ``RandomDataset(seed)``, which takes
    the op seed.  As TF's, a list of weights drops the datasets of weight 0, and one
    dataset left is returned as it is.  Raises TF's ValueError for no datasets or
    weights of another length, TypeError for weights neither float32 nor float64."""
    from ..ops.random import _seeds

    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    datasets = list(datasets)
    if isinstance(weights, Dataset):
        raise ValueError("sample_from_datasets: devsession takes weights as a list or a "
                         "tensor, not a dataset of them.")
    if weights is None:
        weights = np.full(len(datasets), 1.0 / len(datasets), np.float32)
    elif not (isinstance(weights, Tensor) or hasattr(weights, "_as_tensor")):
        datasets, weights = _weighted(datasets, weights)
    if len(datasets) == 1:
        return datasets[0]
    graph = datasets[0]._graph
    with graph.as_default():
        weights = _float_weights(weights, len(datasets))
        seeds = list(_seeds(seed))
    selector = Dataset(graph, [{"kind": "categorical", "inputs": [0, 1], "seeds": seeds}],
                       [weights], (), ElementSpec(dtypes.int64, []))
    return _chosen(datasets, selector, bool(stop_on_empty_dataset))


def _weighted(datasets: list, weights) -> tuple[list, list]:
    """TF's: the datasets of a positive weight, and their weights (an empty dataset of
    weight 1 where none is)."""
    if len(datasets) != len(weights):
        raise ValueError(f"Invalid `weights`. `weights` should have the same length as "
                         f"`datasets` but got `len(weights)={len(weights)}` vs. "
                         f"`len(datasets)={len(datasets)}`.")
    kept = [(d, w) for d, w in zip(datasets, weights) if w > 0]
    if not kept:
        return [datasets[0].take(0)], [1.0]
    return [d for d, _ in kept], [w for _, w in kept]


def _float_weights(weights, count: int) -> Tensor:
    """The weights as a float32 or float64 vector of ``count``; TF's errors else."""
    weights = convert_to_tensor(weights, name="weights")
    if weights.shape.ndims is not None and weights.shape.ndims != 1 or \
            weights.shape.ndims == 1 and weights.shape.dims[0] not in (None, count):
        raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible "
                         f"with `[len(datasets)]` but is {weights.shape}.")
    if weights.dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(f"Invalid `weights`. `weights` type must be either `tf.float32` or "
                        f"`tf.float64` but is {weights.dtype}.")
    return weights


def _chosen(datasets: list, selector: Dataset, stop_on_empty: bool) -> Dataset:
    first = datasets[0]
    specs = []
    for d in datasets[1:]:
        try:
            nest.assert_same_structure(first._structure, d._structure)
        except (ValueError, TypeError):
            raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element "
                            f"specs.\\n Dataset 0 element_spec={first._structure}.\\n"
                            f"Dataset element_spec={d._structure}.") from None
    for k, mine in enumerate(first.flat_specs):
        shape = mine.shape
        for d in datasets[1:]:
            theirs = d.flat_specs[k]
            if theirs.dtype != mine.dtype or type(theirs) is not type(mine):
                raise TypeError(f"Invalid `datasets`. `datasets` must have compatible "
                                f"element specs: component {k} is {mine} and {theirs}.")
            shape = _common_shape(shape, theirs.shape)
        specs.append(type(mine)(mine.dtype, shape))
    return _combined("choose", [selector, *datasets],
                     nest.pack_sequence_as(first._structure, specs),
                     stop_on_empty=stop_on_empty)


# --- cardinality ---------------------------------------------------------------------------

def cardinality(dataset: Dataset):
    """The number of elements as an int64 scalar tensor: INFINITE_CARDINALITY (-1) for
    a dataset that never ends, UNKNOWN_CARDINALITY (-2) where it is not known without
    running the pipeline (see the module docstring)."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"`dataset` must be a `tf.data.Dataset` object, got "
                        f"{type(dataset).__name__}.")
    count = _count(dataset._stages, dataset._inputs)
    with dataset._graph.as_default():
        return convert_to_tensor(np.int64(count), name="DatasetCardinality")


_INF, _UNKNOWN = INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
_SAME = {"shuffle", "cache", "prefetch", "scan", "options"}   # TF1's map: unknown, as TF's v1 map
_ENDLESS = (np.iinfo(np.int64).max, np.iinfo(np.int64).min)    # Counter's range


def _count(stages, inputs) -> int:
    n = _UNKNOWN
    for stage in stages:
        kind = stage["kind"]
        if kind == "range":
            n = _INF if stage["stop"] in _ENDLESS else \
                len(range(stage["start"], stage["stop"], stage["step"]))
        elif kind == "tensors":
            n = 1
        elif kind == "list":
            n = (stage["inputs"][1] - stage["inputs"][0]) // stage["num_components"]
        elif kind == "random":
            n = _INF
        elif kind == "assert_cardinality":
            n = stage["expected"]
        elif kind == "slices":
            dims = inputs[stage["inputs"][0]].shape
            n = dims.dims[0] if dims.ndims and dims.dims[0] is not None else _UNKNOWN
        elif kind == "zip":
            counts = [_count(b, inputs) for b in stage["branches"]]
            finite = [c for c in counts if c >= 0]
            n = _UNKNOWN if _UNKNOWN in counts else min(finite) if finite else _INF
        elif kind == "concatenate":
            counts = [_count(b, inputs) for b in stage["branches"]]
            n = _INF if _INF in counts else _UNKNOWN if _UNKNOWN in counts else sum(counts)
        elif kind in _SAME:
            pass
        elif n == _UNKNOWN:
            continue
        elif stage.get("tensor_params"):    # a fed batch size or count: known at run time
            n = _UNKNOWN
        elif kind in ("batch", "padded_batch"):
            size = stage["batch_size"]
            if n >= 0:
                n = n // size if stage["drop_remainder"] else -(-n // size)
        elif kind == "repeat":
            count = stage["count"]
            n = (0 if n == 0 else _INF) if count < 0 else (n * count if n >= 0 else
                                                           (_INF if count else 0))
        elif kind == "take":
            count = stage["count"]
            n = n if count < 0 else (count if n == _INF else min(n, count))
        elif kind == "skip":
            count = stage["count"]
            if count < 0:
                n = 0 if n >= 0 else n
            elif n >= 0:
                n = max(n - count, 0)
        elif kind == "shard":
            if n >= 0:
                shards, index = stage["num_shards"], stage["index"]
                n = n // shards + (1 if index < n % shards else 0)
        else:                    # filter, interleave, unbatch, readers, ...
            n = _UNKNOWN
    return n


def _dataset_choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True
                                  ) -> Dataset:
    """TF's ``Dataset.choose_from_datasets``, which stops at an ended dataset unless told
    not to (the experimental function goes on)."""
    return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


# TF1's static methods of Dataset that are these functions: attached here, as dataset.py
# cannot import this module (which imports it).
Dataset.random = staticmethod(RandomDataset)
Dataset.sample_from_datasets = staticmethod(sample_from_datasets)
Dataset.choose_from_datasets = staticmethod(_dataset_choose_from_datasets)
