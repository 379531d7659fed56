"""``ds.data.Dataset``: TF1's input pipelines, built as graph data and run on the host.

A ``Dataset`` is immutable: each transformation returns a new one holding one more
stage.  It records what its iterator op needs (``ops/dataset.py``): the stages as JSON,
the op's inputs (the source's tensors, then each traced function's captured tensors)
and the traced functions.  Elements are nested structures as TF's: tuples
(``map(lambda x, y: ...)`` receives a tuple's items as arguments), dicts and
namedtuples; a list is a tensor, as in ``tf.data`` (a list returned by a map function
becomes a tuple, as TF1 converts it).

    dataset = ds.data.Dataset.from_tensor_slices((images, labels))
    dataset = dataset.shuffle(1000, seed=1).batch(128).repeat()
    images_batch, labels_batch = dataset.make_one_shot_iterator().get_next()

Iterators: ``iterator.py``.  Kernels: ``kernels/reference/dataset.py``.
"""

from __future__ import annotations

import json

import numpy as np

from .. import dtypes
from ..function_graph import FunctionGraph, serialize
from ..graph import Tensor, constant_value, convert_to_tensor, get_default_graph, name_scope
from ..ops import nest
from ..ops.dataset import FUNCTION_SLOTS, REDUCE
from ..sparse_tensor import SparseTensor, is_sparse
from ..tensor_shape import TensorShape
from . import grouping
from .generator import generator_stage
from .iterator import Iterator
from .options import Options, merge_options
from .resampling import resampled
from .structure import (ElementSpec, SparseSpec, Structured, component_tensors, flat_outputs,
                        holds_sparse, packed_outputs, result_specs)
from .structure import common_shape as _common_shape, lists_as_tuples as _lists_as_tuples
from .window import Windows, stacked, window_stage

__all__ = ["Dataset", "ElementSpec", "AUTOTUNE"]

AUTOTUNE = -1      # tf.data.experimental.AUTOTUNE: devsession runs stages on demand


class Dataset(Structured):
    """A TF1 ``tf.data.Dataset`` (see the module docstring).  Build one with
    ``from_tensor_slices``, ``from_tensors``, ``range``, ``from_generator``,
    ``list_files`` or a file reader (``TFRecordDataset``...: ``readers.py``)."""

    def __init__(self, graph, stages, inputs, functions, structure, captured_control=()):
        self._graph = graph
        self._stages = tuple(stages)
        self._inputs = tuple(inputs)
        self._functions = tuple(functions)
        self._structure = structure          # a nest of ElementSpec
        self._control = tuple(captured_control)

    # --- sources -----------------------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors) -> "Dataset":
        """One element per row of the tensors (they must agree on their first dimension).
        A SparseTensor's row ``i`` is TF's slice: its entries whose first index is ``i``,
        without that index, of dense shape ``dense_shape[1:]``; as the iterator starts,
        an InvalidArgumentError as TF's for one of rank 1, indices out of row-major order
        or bounds, or a first dimension other than the rest's."""
        structure, leaves, flat = _as_tensors(tensors, "from_tensor_slices")
        rows = set()
        for t in leaves:
            if isinstance(t, SparseTensor):
                continue                         # its dense shape's value: checked at run
            if t.shape.ndims == 0:
                raise ValueError(f"from_tensor_slices: '{t.name}' is a scalar; every "
                                 f"component needs a first dimension to slice.")
            if t.shape.ndims is not None and t.shape.dims[0] is not None:
                rows.add(t.shape.dims[0])
        if len(rows) > 1:
            raise ValueError(f"from_tensor_slices: the components' first dimensions differ "
                             f"({sorted(rows)}); they must be equal.")
        specs = [_leaf_spec(t, TensorShape(None) if t.shape.ndims is None
                            else t.shape.dims[1:]) for t in leaves]
        stage = _stage("slices", 0, len(flat))
        if holds_sparse(specs):
            stage["sparse"] = _sparse_components(specs)
        return Dataset(flat[0].graph, [stage], flat, (), nest.pack_sequence_as(structure, specs))

    @staticmethod
    def from_tensors(tensors) -> "Dataset":
        """A dataset of exactly one element: ``tensors`` (a SparseTensor among them
        stays one)."""
        structure, leaves, flat = _as_tensors(tensors, "from_tensors")
        specs = [_leaf_spec(t, t.shape) for t in leaves]
        return Dataset(flat[0].graph, [_stage("tensors", 0, len(flat))], flat, (),
                       nest.pack_sequence_as(structure, specs))

    @staticmethod
    def range(*args, output_type=dtypes.int64) -> "Dataset":
        """Scalars of ``output_type`` (int64) as Python's ``range(start, stop, step)``
        gives them; each argument an int or an int scalar tensor (a placeholder, a
        ``flat_map`` function's argument), read as the iterator starts."""
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Dataset.range takes 1 to 3 arguments, got {len(args)}.")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        start, stop, step = (_python_int_or_tensor(v, "range") for v in (start, stop, step))
        if step == 0:
            raise ValueError("Dataset.range: step must not be 0.")
        dtype = dtypes.as_dtype(output_type)
        if not (dtype.is_integer or dtype.is_floating):
            raise TypeError(f"Dataset.range: output_type must be an integer or float type, "
                            f"got {dtype.name}.")
        source = Dataset(get_default_graph(), (), (), (), None)
        return source._then({"kind": "range", "start": start, "stop": stop, "step": step,
                             "dtype": dtype.name}, ElementSpec(dtype, []))

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None) -> "Dataset":
        """The elements ``generator(*args)`` yields, checked against ``output_types``
        and ``output_shapes`` (``generator.py``)."""
        graph, stage, inputs, structure = generator_stage(generator, output_types,
                                                          output_shapes, args)
        return Dataset(graph, [stage], inputs, (), structure)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None) -> "Dataset":
        """TF1's ``Dataset.list_files``: the paths matching ``file_pattern`` (a glob
        pattern, a list of them, or a string tensor of rank 0 or 1), matched when the
        iterator starts and sorted; with ``shuffle`` None or True, shuffled anew each
        epoch (seeded by ``seed`` and the graph seed as ``shuffle``; TF's order itself
        is not reproduced).  No file matching any pattern fails the iterator's start
        with ``InvalidArgumentError`` ("No files matched pattern: ..."), as TF's.
        Raises ``TypeError``/``ValueError`` for patterns that are not strings of rank
        <= 1."""
        patterns = file_pattern if isinstance(file_pattern, Tensor) else \
            convert_to_tensor(file_pattern, dtype=dtypes.string, name="file_pattern")
        _check_names(patterns, "list_files: file_pattern")
        dataset = Dataset(patterns.graph, [_stage("list_files", 0, 1)], [patterns], (),
                          ElementSpec(dtypes.string, []))
        if shuffle is None or shuffle:
            dataset = dataset._shuffled(seed, buffer_size=-1)    # all of them, as TF's
        return dataset

    @staticmethod
    def zip(datasets) -> "Dataset":
        """Elements of several datasets side by side (a tuple or dict of datasets gives
        tuples or dicts of their elements), until the shortest ends."""
        flat = nest.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError("Dataset.zip takes a tuple or dict of Datasets.")
        structure = nest.pack_sequence_as(datasets, [d._structure for d in flat])
        return _combined("zip", flat, structure)

    def concatenate(self, dataset) -> "Dataset":
        """This dataset's elements, then ``dataset``'s (the same structure and dtypes)."""
        nest.assert_same_structure(self._structure, dataset._structure)
        specs = []
        for mine, theirs in zip(self.flat_specs, dataset.flat_specs):
            if mine.dtype != theirs.dtype:
                raise TypeError(f"Dataset.concatenate: {theirs.dtype.name} components "
                                f"after {mine.dtype.name} ones.")
            if type(mine) is not type(theirs):
                raise TypeError("Dataset.concatenate: SparseTensor components where the "
                                "other dataset has dense ones (or the other way round).")
            specs.append(type(mine)(mine.dtype, _common_shape(mine.shape, theirs.shape)))
        return _combined("concatenate", [self, dataset],
                         nest.pack_sequence_as(self._structure, specs))

    # --- transformations -----------------------------------------------------------------------

    def map(self, map_func, num_parallel_calls=None, deterministic=None) -> "Dataset":
        """``map_func`` applied to each element (traced once into a function)."""
        function, result = self._trace(map_func, "map")
        structure = nest.pack_sequence_as(
            result, result_specs(nest.flatten(result), function.outputs))
        return self._then_function("map", function, structure)

    def flat_map(self, map_func) -> "Dataset":
        """The elements of the dataset ``map_func`` returns for each element, one
        dataset after another."""
        return self._nested("flat_map", map_func, 1, 1)

    def interleave(self, map_func, cycle_length=None, block_length=1,
                   num_parallel_calls=None, deterministic=None) -> "Dataset":
        """The datasets ``map_func`` returns for the elements, ``cycle_length`` of them
        at a time, ``block_length`` elements from each in turn, in TF's deterministic
        order (``kernels/reference/dataset_readers.py``).  ``cycle_length`` None or
        AUTOTUNE: the number of CPUs, as TF's.  ``num_parallel_calls`` and
        ``deterministic`` change nothing in the order, always TF's deterministic one;
        with ``num_parallel_calls`` an error moves the cycle on, as TF's parallel
        interleave's does (``parallel``)."""
        cycle = AUTOTUNE if cycle_length is None else \
            _python_int(cycle_length, "interleave", minimum=AUTOTUNE)
        if cycle == 0:
            raise ValueError("Dataset.interleave: cycle_length must be positive (or "
                             "AUTOTUNE).")
        return self._nested("interleave", map_func, cycle,
                            _python_int(block_length, "interleave", minimum=1),
                            parallel=num_parallel_calls is not None)

    def filter(self, predicate) -> "Dataset":
        """The elements for which ``predicate`` (a scalar bool tensor) is True."""
        return self._then_function("filter", self._predicate(predicate, "filter"),
                                   self._structure)

    def batch(self, batch_size, drop_remainder=False) -> "Dataset":
        """``batch_size`` consecutive elements stacked into one (the last batch may be
        smaller unless ``drop_remainder``)."""
        size = _python_int_or_tensor(batch_size, "batch", minimum=1)
        lead = size if drop_remainder and isinstance(size, int) else None
        structure = nest.map_structure(
            lambda s: type(s)(s.dtype, TensorShape([lead]).concatenate(s.shape)),
            self._structure)
        stage = {"kind": "batch", "batch_size": size, "drop_remainder": bool(drop_remainder)}
        if holds_sparse(self.flat_specs):
            stage["sparse"] = _sparse_components(self.flat_specs)
        return self._then(stage, structure)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False) -> "Dataset":
        """``batch``, each component padded to its ``padded_shapes`` entry (a None or -1
        dimension: the batch's largest; default: every dimension) with its
        ``padding_values`` entry (default 0, or ``b""`` for strings)."""
        if holds_sparse(self.flat_specs):
            raise TypeError("`padded_batch` is only supported for datasets that produce "
                            "tensor elements; these hold SparseTensors (batch them with "
                            "`batch`, or ds.sparse.to_dense them in a map first).")
        size = _python_int_or_tensor(batch_size, "padded_batch", minimum=1)
        specs = self.flat_specs
        shapes = [TensorShape([None] * s.shape.ndims) if s.shape.ndims is not None else None
                  for s in specs] if padded_shapes is None else \
            [_padded_shape(p) for p in _flat_like(self._structure, padded_shapes)]
        if any(s is None for s in shapes):
            raise ValueError("Dataset.padded_batch: components of unknown rank need "
                             "padded_shapes.")
        for spec, padded in zip(specs, shapes):
            if not _pads_to(spec.shape, padded):
                raise ValueError(f"Dataset.padded_batch: components of shape {spec.shape} "
                                 f"cannot be padded to {padded}.")
        values = [b"" if s.dtype == dtypes.string else 0 for s in specs] \
            if padding_values is None else _flat_like(self._structure, padding_values)
        pads = [convert_to_tensor(v, dtype=s.dtype, name="padding_value")
                for v, s in zip(values, specs)]
        lead = size if drop_remainder and isinstance(size, int) else None
        structure = nest.pack_sequence_as(self._structure, [
            ElementSpec(s.dtype, TensorShape([lead]).concatenate(p))
            for s, p in zip(specs, shapes)])
        start = len(self._inputs)
        stage = {**_stage("padded_batch", start, start + len(pads)), "batch_size": size,
                 "drop_remainder": bool(drop_remainder),
                 "padded_shapes": [[-1 if d is None else d for d in p.dims] for p in shapes]}
        with_pads = Dataset(self._graph, self._stages, self._inputs + tuple(pads),
                            self._functions, self._structure, self._control)
        return with_pads._then(stage, structure)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None) -> "Dataset":
        """Elements in random order, drawn from a buffer of ``buffer_size`` (TF's
        algorithm); seeded by ``seed`` and the graph seed as TF1's random ops."""
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        return self._shuffled(seed, _python_int_or_tensor(buffer_size, "shuffle", minimum=1),
                              reshuffle)

    def _shuffled(self, seed, buffer_size, reshuffle=True) -> "Dataset":
        """A shuffle stage (``buffer_size`` -1: every element, list_files' shuffle)."""
        from ..ops.random import _seeds

        with self._graph.as_default():
            seeds = list(_seeds(seed))
        return self._then({"kind": "shuffle", "seeds": seeds, "reshuffle": reshuffle,
                           "buffer_size": buffer_size})

    def repeat(self, count=None) -> "Dataset":
        """The elements ``count`` times over (forever when None or -1)."""
        return self._then({"kind": "repeat", "count": _count(count, "repeat")})

    def take(self, count) -> "Dataset":
        return self._then({"kind": "take", "count": _count(count, "take")})

    def skip(self, count) -> "Dataset":
        return self._then({"kind": "skip", "count": _count(count, "skip")})

    def shard(self, num_shards, index) -> "Dataset":
        """Every ``num_shards``-th element from the ``index``-th: one worker's part of
        the input (TF's ``shard``)."""
        shards = _python_int_or_tensor(num_shards, "shard", minimum=1)
        at = _python_int_or_tensor(index, "shard", minimum=0)
        if isinstance(at, int) and isinstance(shards, int) and at >= shards:
            raise ValueError(f"Dataset.shard: index {at} must be less than num_shards "
                             f"{shards}.")
        return self._then({"kind": "shard", "num_shards": shards, "index": at})

    def unbatch(self) -> "Dataset":
        """Each element split along its first dimension into that many elements (the
        inverse of ``batch``); the components' first dimensions must agree."""
        specs = self.flat_specs
        if any(s.shape.ndims == 0 for s in specs):
            raise ValueError("Dataset.unbatch: every component must have rank >= 1.")
        structure = nest.map_structure(
            lambda s: type(s)(s.dtype, s.shape[1:] if s.shape.ndims is not None
                              else TensorShape(None)), self._structure)
        stage = {"kind": "unbatch"}
        if holds_sparse(specs):
            stage["sparse"] = _sparse_components(specs)
        return self._then(stage, structure)

    def enumerate(self, start=0) -> "Dataset":
        """``(index, element)`` pairs, the index an int64 from ``start`` (TF builds it as
        this zip with a range too)."""
        first = _python_int(start, "enumerate")
        return Dataset.zip((Dataset.range(first, np.iinfo(np.int64).max), self))

    def window(self, size, shift=None, stride=1, drop_remainder=False) -> "Dataset":
        """Windows of ``size`` elements, ``shift`` (default ``size``) apart, every
        ``stride``-th element inside one; the last ones shorter unless
        ``drop_remainder``.  Each window is a dataset (a nest of them for a nested
        element), for ``flat_map``/``interleave``: ``window.py``."""
        self._dense_only("window")
        size = _python_int(size, "window", minimum=1)
        shift = size if shift is None else _python_int(shift, "window", minimum=1)
        stride = _python_int(stride, "window", minimum=1)
        return _WindowDataset(self._graph, self._stages + (window_stage(
            size, shift, stride, drop_remainder),), self._inputs, self._functions,
            stacked(self._structure), self._control)

    def group_by_window(self, key_func, reduce_func, window_size=None,
                        window_size_func=None) -> "Dataset":
        """TF's ``group_by_window``: the datasets ``reduce_func(key, window)`` returns
        for windows of up to ``window_size`` (or ``window_size_func(key)``) elements of
        one ``key_func`` key, in TF's order (``grouping.py``).  Raises TF's
        ``ValueError`` and ``TypeError`` for functions of the wrong kind."""
        self._dense_only("group_by_window")
        with_keys, windows = grouping.keyed(self, key_func, window_size, window_size_func)
        grouped = _GroupedDataset(self._graph, with_keys._stages + (
            {"kind": "group_by_window"},), with_keys._inputs, with_keys._functions,
            windows, with_keys._control)
        grouped._element_structure = self._structure
        return grouping.reduced(grouped, reduce_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None,
                                  padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False) -> "Dataset":
        """TF's ``bucket_by_sequence_length``: padded batches of elements of similar
        ``element_length_func`` lengths (``grouping.py``)."""
        self._dense_only("bucket_by_sequence_length")
        return grouping.bucket_by_sequence_length(
            self, element_length_func, bucket_boundaries, bucket_batch_sizes,
            padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
            drop_remainder)

    def take_while(self, predicate) -> "Dataset":
        """The elements before the first for which ``predicate`` is False."""
        return self._then_function("take_while", self._predicate(predicate, "take_while"),
                                   self._structure)

    def scan(self, initial_state, scan_func) -> "Dataset":
        """TF's ``scan``: ``scan_func(state, element)`` returns ``(new_state, output)``;
        the outputs are the elements, the state starts as ``initial_state`` (a nest of
        tensors; the new state must have its structure and dtypes, and its shapes where
        they are static, as TF's)."""
        return self._scanned(initial_state, scan_func, "scan")

    def reduce(self, initial_state, reduce_func):
        """TF's ``reduce``: ``reduce_func(state, element)`` gives the new state, from
        ``initial_state`` over every element; the final state, a nest of tensors as
        ``initial_state`` (the new state keeps its structure, dtypes and static shapes,
        as ``scan``'s).  Each run of it runs the whole pipeline from its start
        (``DatasetReduce``: a scan whose last state it keeps)."""
        def step(state, element):
            new_state = reduce_func(state, element)
            return new_state, new_state

        scanned = self._scanned(initial_state, step, "reduce")
        specs = scanned.flat_specs
        attrs = {**scanned.op_attrs(), "output_types": tuple(s.dtype for s in specs),
                 "output_shapes": tuple(s.shape for s in specs)}
        op = self._graph.create_op(REDUCE, list(scanned._inputs), attrs,
                                   name="ReduceDataset", control_inputs=scanned._control)
        return nest.pack_sequence_as(scanned._structure, list(op.outputs))

    def _scanned(self, initial_state, scan_func, kind: str) -> "Dataset":
        """This dataset through a scan stage (``scan``; ``reduce`` keeps its last
        state); ``kind`` names the method in errors."""
        state_structure, _, state = _as_tensors(initial_state, kind)
        state = [s if s.graph is self._graph else convert_to_tensor(s) for s in state]
        graph = self._graph
        function = FunctionGraph(graph.unique_name(f"Dataset_{kind}"), graph)
        with function.as_default(), name_scope(None):
            old = nest.pack_sequence_as(state_structure, [
                function.add_input(t.dtype, t.shape, f"state{k}") for k, t in enumerate(state)])
            element = self._traced_element(self._element_arguments(function))
            result = scan_func(old, element)      # a tuple element as one argument
            result = _lists_as_tuples(result)
            if not isinstance(result, tuple) or len(result) != 2:
                raise TypeError("The scan function must return a pair comprising the new "
                                "state and the output value.")
            new_state, output = result
            try:
                nest.assert_same_structure(old, new_state)
            except (ValueError, TypeError) as e:
                raise TypeError(f"The element structure for the new state must match the "
                                f"initial state ({e}).") from None
            new_flat = [convert_to_tensor(t) for t in nest.flatten(new_state)]
            for before, after in zip(state, new_flat):
                if before.dtype != after.dtype:
                    raise TypeError(f"The element types for the new state must match the "
                                    f"initial state. Expected {before.dtype.name}; got "
                                    f"{after.dtype.name}.")
                if not before.shape.is_compatible_with(after.shape):
                    raise ValueError(f"Dataset.{kind}: the new state's shape {after.shape} "
                                     f"differs from the initial state's {before.shape}; "
                                     f"devsession does not relax the state's shape.")
            outputs = component_tensors(nest.flatten(output))
            function.outputs = [function.capture(t) for t in new_flat + outputs]
        structure = nest.pack_sequence_as(
            output, result_specs(nest.flatten(output), outputs))
        if len(self._functions) == len(FUNCTION_SLOTS):
            raise ValueError(f"A devsession Dataset holds at most {len(FUNCTION_SLOTS)} map "
                             f"and filter functions.")
        captured = function.captured
        function.bound_inputs = function.arguments + [function.capture(t) for t in captured]
        start = len(self._inputs)
        stage = {**_stage("scan", start, start + len(state) + len(captured)),
                 "fn": FUNCTION_SLOTS[len(self._functions)], "num_state": len(state)}
        return Dataset(graph, self._stages + (stage,),
                       self._inputs + tuple(state) + tuple(captured),
                       self._functions + (serialize(function),), structure,
                       self._control + tuple(function.control_captures))

    def _sparse_batches(self, batch_size, row_shape: list, spec) -> "Dataset":
        """This dataset in ``dense_to_sparse_batch``'s SparseTensors of ``spec``
        (``sparse_batch.py``); ``row_shape``'s -1: the batch's largest."""
        self._dense_only("dense_to_sparse_batch")
        stage = {"kind": "dense_to_sparse_batch", "row_shape": row_shape,
                 "batch_size": _python_int(batch_size, "dense_to_sparse_batch", minimum=1)}
        return self._then(stage, spec)

    def unique(self) -> "Dataset":
        """The elements not seen before, in their first order; TF's ``TypeError`` for
        components other than int32, int64 or string."""
        self._dense_only("unique")
        for spec in self.flat_specs:
            if spec.dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
                raise TypeError(f"`tf.data.Dataset.unique` does not support type <dtype: "
                                f"'{spec.dtype.name}'> -- only `tf.int32`, `tf.int64`, and "
                                f"`tf.string` are supported.")
        return self._then({"kind": "unique"})

    def rejection_resample(self, class_func, target_dist, initial_dist=None,
                           seed=None) -> "Dataset":
        """TF's ``rejection_resample``: ``(class, element)`` pairs whose classes follow
        ``target_dist`` (``resampling.py``)."""
        self._dense_only("rejection_resample")
        return resampled(self, class_func, target_dist, initial_dist, seed)

    def with_options(self, options) -> "Dataset":
        """This dataset with ``options`` (a ``ds.data.Options``) merged into its
        ``options()`` (``options.py``); the elements are unchanged."""
        if not isinstance(options, Options):
            raise TypeError(f"Dataset.with_options takes a tf.data.Options, got "
                            f"{type(options).__name__}.")
        return self._then({"kind": "options", "options": options.to_dict()})

    def options(self) -> Options:
        """The options of every ``with_options`` this dataset and its inputs were
        given, merged as TF merges them (the later wins); immutable."""
        merged = merge_options(Options(), *[Options.from_dict(d)
                                            for d in _options_of(self._stages)])
        merged._set_mutable(False)
        return merged

    def apply(self, transformation_func) -> "Dataset":
        """``transformation_func(self)``, which must return a Dataset."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(f"Dataset.apply: the transformation function must return a "
                            f"Dataset, got {type(result).__name__}.")
        return result

    def cache(self, filename="") -> "Dataset":
        """The first complete pass kept in memory and replayed (no cache files)."""
        if filename:
            raise ValueError("Dataset.cache: devsession caches in memory only; call "
                             "cache() without a filename.")
        return self._then({"kind": "cache"})

    def prefetch(self, buffer_size) -> "Dataset":
        """Accepted and a no-op: get_next makes each element when it is asked for."""
        _python_int_or_tensor(buffer_size, "prefetch", minimum=-1)
        return self._then({"kind": "prefetch"})

    # --- iterators -------------------------------------------------------------------------------

    def make_one_shot_iterator(self) -> Iterator:
        return Iterator.one_shot(self)

    def make_initializable_iterator(self, shared_name=None) -> Iterator:
        return Iterator.initializable(self, shared_name)

    def __iter__(self):
        raise TypeError("A devsession Dataset is iterated inside a session: use "
                        "dataset.make_one_shot_iterator().get_next() and sess.run it.")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        from ..unsupported import missing

        raise missing("data.Dataset", name)

    # --- what the iterator op needs -----------------------------------------------------------

    def op_attrs(self) -> dict:
        """The pipeline and function attrs of an iterator op over this dataset."""
        attrs = {"pipeline": json.dumps(list(self._stages), sort_keys=True)}
        attrs.update(zip(FUNCTION_SLOTS, self._functions))
        return attrs

    @property
    def flat_specs(self) -> list:
        return nest.flatten(self._structure)

    # --- helpers -------------------------------------------------------------------------------

    def _then(self, stage: dict, structure=None) -> "Dataset":
        """The dataset with ``stage`` after this one's; a parameter given as a tensor
        (``_TensorParam``: a placeholder batch size...) becomes an input of the iterator
        op, read as its iterator is made (``stage["tensor_params"]``)."""
        inputs, params = list(self._inputs), {}
        for key, value in stage.items():
            if isinstance(value, _TensorParam):
                params[key] = [len(inputs), value.minimum, value.where]
                inputs.append(value.tensor)
        if params:
            stage = {**{k: (None if k in params else v) for k, v in stage.items()},
                     "tensor_params": params}
        return Dataset(self._graph, self._stages + (stage,), tuple(inputs), self._functions,
                       self._structure if structure is None else structure, self._control)

    def _then_function(self, kind, function: FunctionGraph, structure) -> "Dataset":
        if len(self._functions) == len(FUNCTION_SLOTS):
            raise ValueError(f"A devsession Dataset holds at most {len(FUNCTION_SLOTS)} map "
                             f"and filter functions.")
        captured = function.captured
        function.bound_inputs = function.arguments + [function.capture(t) for t in captured]
        slot = FUNCTION_SLOTS[len(self._functions)]
        start = len(self._inputs)
        stage = {**_stage(kind, start, start + len(captured)), "fn": slot}
        return Dataset(self._graph, self._stages + (stage,), self._inputs + tuple(captured),
                       self._functions + (serialize(function),), structure,
                       self._control + tuple(function.control_captures))

    def _nested(self, kind, map_func, cycle_length: int, block_length: int,
                parallel: bool = False) -> "Dataset":
        """An ``interleave`` stage: the traced ``map_func`` computes the inputs of the
        dataset it returns, whose stages (and functions, after this one's) the stage
        holds to run once per element."""
        function, inner = self._trace(map_func, kind, returns_dataset=True)
        if len(self._functions) + 1 + len(inner._functions) > len(FUNCTION_SLOTS):
            raise ValueError(f"A devsession Dataset holds at most {len(FUNCTION_SLOTS)} "
                             f"functions (map, filter, interleave and theirs).")
        if inner._control:
            raise ValueError(f"Dataset.{kind}: the dataset map_func returns depends on "
                             f"control inputs, which devsession cannot carry into it.")
        nested = _shifted(inner._stages, 0, len(self._functions) + 1)
        dataset = self._then_function("interleave", function, inner._structure)
        stage = {**dataset._stages[-1], "stages": nested, "cycle_length": cycle_length,
                 "block_length": block_length, **({"parallel": True} if parallel else {})}
        return Dataset(dataset._graph, dataset._stages[:-1] + (stage,), dataset._inputs,
                       dataset._functions + inner._functions, inner._structure,
                       dataset._control)

    def _check_combinable(self, kind: str) -> None:
        """Raises where this dataset cannot be a branch of ``zip``/``concatenate``."""

    def _dense_only(self, kind: str) -> None:
        """TypeError where this dataset's elements hold SparseTensors, for the stages
        that read components as dense arrays."""
        if holds_sparse(self.flat_specs):
            raise TypeError(f"Dataset.{kind}: the elements hold SparseTensors, and "
                            f"devsession's {kind} takes dense components (ds.sparse.to_dense "
                            f"them in a map first).")

    def _element_arguments(self, function: FunctionGraph) -> list:
        """A traced function's placeholders for one element: three per SparseTensor."""
        return [function.add_input(dtype, shape, f"arg{k}")
                for k, (dtype, shape) in enumerate(flat_outputs(self.flat_specs))]

    def _traced_element(self, args: list):
        """The element a traced function receives, from its placeholders ``args``."""
        return nest.pack_sequence_as(self._structure, packed_outputs(self.flat_specs, args))

    def _predicate(self, predicate, kind: str) -> FunctionGraph:
        """``predicate`` traced, checked to return one scalar bool."""
        function, _ = self._trace(predicate, kind)
        out = function.outputs
        if len(out) != 1 or out[0].dtype != dtypes.bool_ or \
                not out[0].shape.is_compatible_with([]):
            raise ValueError(f"Dataset.{kind}: the predicate must return a scalar bool "
                             f"tensor, got {[(t.dtype.name, str(t.shape)) for t in out]}.")
        return function

    def _trace(self, fn, kind: str, returns_dataset=False):
        """``fn`` traced over placeholders of one element: (function graph, result)."""
        graph = self._graph
        function = FunctionGraph(graph.unique_name(f"Dataset_{kind}"), graph)
        with function.as_default(), name_scope(None):
            element = self._traced_element(self._element_arguments(function))
            result = fn(*element) if type(element) is tuple else fn(element)
            if result is None:
                raise ValueError(f"The function given to Dataset.{kind} returned None.")
            if returns_dataset != isinstance(result, Dataset):
                raise TypeError(f"The function given to Dataset.{kind} must return "
                                f"{'a Dataset' if returns_dataset else 'tensors'}, got "
                                f"{type(result).__name__}.")
            if returns_dataset:
                tensors = [convert_to_tensor(t) for t in result._inputs]
            else:
                result = _lists_as_tuples(result)
                tensors = component_tensors(nest.flatten(result))
            function.outputs = [function.capture(t) for t in tensors]
        return function, result


class _WindowDataset(Windows, Dataset):
    """``Dataset.window``'s dataset of windows (``window.py``)."""


class _GroupedDataset(grouping.GroupedWindows, Dataset):
    """``Dataset.group_by_window``'s windows for its ``reduce_func`` (``grouping.py``)."""


def _combined(kind: str, datasets: list, structure, **attrs) -> Dataset:
    """One dataset running ``datasets`` as branches of a ``zip`` or ``concatenate``
    stage: their inputs and functions concatenated, each branch's references shifted."""
    if len({d._graph for d in datasets}) > 1:
        raise ValueError(f"Dataset.{kind}: the datasets belong to different graphs.")
    for d in datasets:
        d._check_combinable(kind)
    branches, inputs, functions, control = [], (), (), ()
    for d in datasets:
        branches.append(_shifted(d._stages, len(inputs), len(functions)))
        inputs, functions = inputs + d._inputs, functions + d._functions
        control += d._control
    if len(functions) > len(FUNCTION_SLOTS):
        raise ValueError(f"A devsession Dataset holds at most {len(FUNCTION_SLOTS)} map "
                         f"and filter functions.")
    return Dataset(datasets[0]._graph, [{"kind": kind, "branches": branches, **attrs}], inputs,
                   functions, structure, control)


def _options_of(stages):
    """The options dicts of the ``options`` stages of a pipeline and of its branches,
    in the order TF merges them."""
    for stage in stages:
        for branch in stage.get("branches", ()):
            yield from _options_of(branch)
        if stage["kind"] == "options":
            yield stage["options"]


def _shifted(stages, inputs_by: int, functions_by: int) -> list:
    """``stages`` with their input ranges and function slots moved along."""
    out = []
    for stage in stages:
        stage = dict(stage)
        if "inputs" in stage:
            stage["inputs"] = [i + inputs_by for i in stage["inputs"]]
        if "fn" in stage:
            stage["fn"] = FUNCTION_SLOTS[FUNCTION_SLOTS.index(stage["fn"]) + functions_by]
        if "branches" in stage:
            stage["branches"] = [_shifted(b, inputs_by, functions_by)
                                 for b in stage["branches"]]
        if "stages" in stage:      # an interleave's: inputs are its function's outputs
            stage["stages"] = _shifted(stage["stages"], 0, functions_by)
        out.append(stage)
    return out


def _flat_like(structure, value) -> list:
    """``value`` (shaped like ``structure``, or one leaf for a one-component element)
    flattened in ``structure``'s order; a leaf may be a list (a padded shape ``[None]``)."""
    return nest.flatten_up_to(structure, value)


def _padded_shape(value) -> TensorShape:
    if isinstance(value, Tensor):
        value = constant_value(value)
    dims = value.dims if isinstance(value, TensorShape) else value
    if dims is None:
        return None
    return TensorShape([None if d is None or int(d) < 0 else int(d) for d in dims])


def _pads_to(shape: TensorShape, padded: TensorShape) -> bool:
    if shape.ndims is None:
        return True
    return shape.ndims == padded.ndims and all(
        s is None or p is None or s <= p for s, p in zip(shape.dims, padded.dims))


def _sparse_components(specs) -> list:
    """Where each SparseSpec's three arrays start among a pipeline's components."""
    starts, at = [], 0
    for spec in specs:
        if isinstance(spec, SparseSpec):
            starts.append(at)
        at += 3 if isinstance(spec, SparseSpec) else 1
    return starts


def _stage(kind: str, start: int, stop: int) -> dict:
    return {"kind": kind, "inputs": [start, stop]}


def _as_tensors(value, where: str):
    """(structure, leaves, flat tensors): tuples and dicts stay structure; anything else
    (a list, an array, a number) is one tensor, and a SparseTensor (or SparseTensorValue)
    one leaf of three tensors, indices, values and dense_shape, as a pipeline carries it
    (``structure.SparseSpec``)."""
    structure = _lists_as_leaves(value) if isinstance(value, (tuple, dict)) and \
        not is_sparse(value) else _Leaf(value)
    leaves = [_leaf_tensor(leaf.value if isinstance(leaf, _Leaf) else leaf)
              for leaf in nest.flatten(structure)]
    flat = component_tensors(leaves)
    if not flat:
        raise ValueError(f"Dataset.{where}: the structure holds no tensors.")
    graphs = {t.graph for t in flat}
    if len(graphs) > 1:
        raise ValueError(f"Dataset.{where}: the tensors belong to different graphs.")
    return structure, leaves, flat


def _leaf_tensor(value):
    if is_sparse(value):
        return SparseTensor.from_value(value)
    return convert_to_tensor(value, name="component")


def _leaf_spec(leaf, shape) -> ElementSpec:
    """The spec of a source's component ``leaf`` with elements of ``shape``."""
    return (SparseSpec if isinstance(leaf, SparseTensor) else ElementSpec)(leaf.dtype, shape)


class _Leaf:
    """A list (or other value) standing as one component in a structure."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _lists_as_leaves(value):
    if is_sparse(value):                     # a SparseTensorValue is a namedtuple: one leaf
        return _Leaf(value)
    if isinstance(value, dict):
        return type(value)((k, _lists_as_leaves(v)) for k, v in value.items())
    if isinstance(value, tuple):
        items = [_lists_as_leaves(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return _Leaf(value) if isinstance(value, list) else value


def _check_names(files: Tensor, where: str) -> None:
    """``TypeError``/``ValueError`` unless ``files`` (file names or patterns) is a string
    tensor of rank 0 or 1."""
    if files.dtype != dtypes.string:
        raise TypeError(f"{where} must be a string tensor, got {files.dtype.name}.")
    if files.shape.ndims is not None and files.shape.ndims > 1:
        raise ValueError(f"{where} must be a scalar or a vector, got shape "
                         f"{files.shape}.")


def _python_int(value, where: str, minimum=None) -> int:
    known = constant_value(value) if isinstance(value, Tensor) else value
    if known is None or np.ndim(known) != 0 or np.asarray(known).dtype.kind not in "iu":
        raise ValueError(f"Dataset.{where}: expected a Python int (or a constant int "
                         f"tensor), got {value!r}.")
    number = int(known)
    if minimum is not None and number < minimum:
        raise ValueError(f"Dataset.{where}: expected at least {minimum}, got {number}.")
    return number


class _TensorParam:
    """A stage's int parameter that only the run knows (a fed batch size)."""

    def __init__(self, tensor, where: str, minimum):
        self.tensor, self.where, self.minimum = tensor, where, minimum


def _python_int_or_tensor(value, where: str, minimum=None):
    """``_python_int``'s int, or for an int scalar tensor the graph cannot compute (a
    placeholder) a ``_TensorParam``: TF1 feeds batch sizes and counts so."""
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        tensor = convert_to_tensor(value)
        if constant_value(tensor) is None:
            if not tensor.dtype.is_integer or tensor.shape.ndims not in (None, 0):
                raise ValueError(f"Dataset.{where}: expected a scalar int tensor, got "
                                 f"{tensor!r}.")
            return _TensorParam(tensor, where, minimum)
    return _python_int(value, where, minimum)


def _count(value, where: str):
    return -1 if value is None else _python_int_or_tensor(value, where, minimum=-1)
