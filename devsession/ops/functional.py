"""TF1's higher-order functions over the first dimension of tensors: ``map_fn``,
``scan``, ``foldl`` and ``foldr``, each one ``while_loop`` (``control_flow.py``), so
they run with the loop's kernels and differentiate with its gradient.

The loop reads element ``i`` of each input with a gather and collects what ``map_fn``
and ``scan`` produce by concatenating one slice per iteration onto an accumulator
(as ``ds.TensorArray``'s writes do, which are values too: each step copies what was
collected, which is quadratic in the number of elements but cheap for the few hundred a batch holds).
The accumulator starts empty, shaped from a trial trace of ``fn`` over placeholders
(thrown away): when that shape is fully known the loop runs from element 0; otherwise
element 0 is computed before the loop and the loop starts at 1, so the accumulator
starts with its real shape; without elements that is TF's UnimplementedError (TF's
zero-size TensorArray stacked without a fully defined element shape), raised before
element 0 is read.

Elements and results are nested structures as in TF1 (tuples, lists, dicts); a result
of another structure than ``elems`` is fine (TF1 asks for ``dtype`` then: it is
accepted and checked against what ``fn`` returns).  ``parallel_iterations``,
``swap_memory`` and ``infer_shape`` are accepted; iterations run one after another.
"""

from __future__ import annotations

from .. import dtypes
from ..function_graph import FunctionGraph
from ..graph import control_dependencies, convert_to_tensor, get_default_graph, name_scope
from ..tensor_array import TensorArray
from ..tensor_shape import TensorShape
from . import nest
from .array import concat, expand_dims, identity
from .array_fill import shape as shape_of, zeros
from .array_index import gather
from .control_flow import cond, while_loop
from .elementwise import equal, less, subtract
from .masking import reverse as reverse_axes

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None):
    """``fn`` applied to each element of ``elems`` (sliced along the first dimension),
    the results stacked: TF1's ``tf.map_fn``."""
    with name_scope(name or "map"):
        flat = _inputs(elems, "map_fn")
        count = _length(flat)

        def element(i):
            return nest.pack_sequence_as(elems, [gather(t, i) for t in flat])
        specs = _probe_specs(lambda: fn(nest.pack_sequence_as(elems, _element_inputs(flat))))
        results = _collect(lambda i, _: fn(element(i)), count, specs, None, back_prop,
                           "map_fn")
        _check_dtype(dtype, results, "map_fn")
        return results


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The running ``a = fn(a, x)`` over the elements (from the last when ``reverse``),
    each ``a`` stacked at its element's position: TF1's ``tf.scan`` (``initializer``
    defaults to the first element scanned, which is then its own result)."""
    with name_scope(name or "scan"):
        flat = _inputs(elems, "scan")
        count = _length(flat)

        def element(i):
            index = subtract(count - 1, i) if reverse else i
            return nest.pack_sequence_as(elems, [gather(t, index) for t in flat])
        if initializer is None:
            first = element(0)
            stacked = _collect(lambda i, a: fn(a, element(i + 1)), count - 1,
                               _specs_of(first), first, back_prop, "scan")
            joined = [concat([expand_dims(head, 0), rest], 0)
                      for head, rest in zip(nest.flatten(first), nest.flatten(stacked))]
            results = nest.pack_sequence_as(first, joined)
        else:
            start = nest.map_structure(convert_to_tensor, initializer)
            results = _collect(lambda i, a: fn(a, element(i)), count, _specs_of(start), start,
                               back_prop, "scan")
        # each result sits at its element's position, as TF's
        return nest.map_structure(lambda t: reverse_axes(t, [0]), results) if reverse else results


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``a = fn(a, x)`` over the elements from the first; returns the last ``a``
    (TF1's ``tf.foldl``; ``initializer`` defaults to the first element)."""
    return _fold(fn, elems, initializer, back_prop, False, name or "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``foldl`` from the last element (TF1's ``tf.foldr``)."""
    return _fold(fn, elems, initializer, back_prop, True, name or "foldr")


def _fold(fn, elems, initializer, back_prop, reverse, label):
    with name_scope(label):
        flat = _inputs(elems, label)
        count = _length(flat)
        skip = 1 if initializer is None else 0

        def element(i):
            index = subtract(count - 1, i) if reverse else i
            return nest.pack_sequence_as(elems, [gather(t, index) for t in flat])
        start = element(0) if initializer is None else \
            nest.map_structure(convert_to_tensor, initializer)
        loop_vars = (convert_to_tensor(skip, dtype=dtypes.int32), start)
        _, final = while_loop(lambda i, _: less(i, count),
                              lambda i, a: (i + 1, fn(a, element(i))), loop_vars,
                              back_prop=back_prop, return_same_structure=True)
        return final


# --- the accumulating loop -----------------------------------------------------------------

def _collect(step, count, specs, carried, back_prop: bool, label: str):
    """Run ``value = step(i, carried)`` for ``i`` in ``[0, count)`` (``carried``, when not
    None, becomes each value: scan's accumulator) and stack the values; ``specs`` is
    the value's structure of (dtype, static shape)."""
    structure, flat_specs = specs
    known = all(s.is_fully_defined() for _, s in flat_specs)
    start, accumulators = 0, []
    if known:
        accumulators = [zeros([0] + s.as_list(), dtype=d) for d, s in flat_specs]
    else:
        with control_dependencies(_empty_guard(count, flat_specs)):
            index = identity(convert_to_tensor(0))      # the element reads wait for it
        first = step(index, carried)
        carried = first if carried is not None else None
        accumulators = [expand_dims(convert_to_tensor(t), 0) for t in nest.flatten(first)]
        start = 1
    invariants = [TensorShape([None]).concatenate(s) if s.ndims is not None
                  else TensorShape(None) for _, s in flat_specs]
    state = carried if carried is not None else ()

    def body(i, state, accumulators):
        value = step(i, state if carried is not None else None)
        out = [concat([a, expand_dims(convert_to_tensor(v), 0)], 0)
               for a, v in zip(accumulators, nest.flatten(value))]
        return i + 1, (value if carried is not None else state), out
    loop_vars = (convert_to_tensor(start), state, accumulators)
    invariant_tree = (TensorShape([]), nest.map_structure(lambda t: t.shape, state),
                      invariants)
    _, _, stacked = while_loop(lambda i, *_: less(i, count), body, loop_vars,
                               shape_invariants=invariant_tree, back_prop=back_prop,
                               return_same_structure=True, name=f"{label}_loop")
    length = _as_static(count)
    for t, (_, s) in zip(stacked, flat_specs):
        t.set_shape(TensorShape([length]).concatenate(s))
    return nest.pack_sequence_as(structure, stacked)


def _empty_guard(count, flat_specs) -> list:
    """What stops the loop that computes its first element outside (an element shape
    not fully known) when there is no element: TF's stack of a zero-size TensorArray of
    that element shape, UnimplementedError (TF's map_fn and scan end with those stacks).
    A cond on ``count == 0`` where the graph does not know the count."""
    def stack():
        d, s = next((d, s) for d, s in flat_specs if not s.is_fully_defined())
        return shape_of(TensorArray(d, size=0, element_shape=s).stack())[0]
    if isinstance(count, int):
        return [stack()] if count == 0 else []
    return [cond(equal(count, 0), stack, lambda: convert_to_tensor(0))]


def _probe_specs(trace):
    """(structure, [(dtype, shape)]) of what ``trace()`` returns, traced in a throwaway
    function graph so the outer graph gains nothing."""
    probe = FunctionGraph("probe", get_default_graph())
    with probe.as_default(), name_scope(None):
        return _specs_of(trace())


def _specs_of(value):
    flat = [convert_to_tensor(v) for v in nest.flatten(value)]
    return value, [(t.dtype, t.shape) for t in flat]


def _element_inputs(flat: list) -> list:
    graph = get_default_graph()
    return [graph.add_input(t.dtype, TensorShape(None) if t.shape.ndims is None
                            else t.shape.dims[1:], "element") for t in flat]


def _inputs(elems, label: str) -> list:
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{label}: elems must hold at least one tensor.")
    for t in flat:
        if t.shape.ndims == 0:
            raise ValueError(f"{label}: elems must be tensors of rank >= 1; '{t.name}' is "
                             f"a scalar.")
    return flat


def _length(flat: list):
    """The number of elements: a Python int when the graph knows it, else a tensor."""
    known = [t.shape.dims[0] for t in flat if t.shape.ndims and t.shape.dims[0] is not None]
    if len(set(known)) > 1:
        raise ValueError(f"The elems' first dimensions differ: {sorted(set(known))}.")
    return known[0] if known else shape_of(flat[0])[0]


def _as_static(count):
    return count if isinstance(count, int) else None


def _check_dtype(dtype, results, label: str) -> None:
    if dtype is None:
        return
    want = [dtypes.as_dtype(d) for d in nest.flatten(dtype)]
    got = [t.dtype for t in nest.flatten(results)]
    if want != got:
        raise TypeError(f"{label}: fn returns {[d.name for d in got]}, but dtype says "
                        f"{[d.name for d in want]}.")

