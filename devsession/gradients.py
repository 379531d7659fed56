"""``ds.gradients``: symbolic reverse-mode differentiation, with TF1's semantics.

``gradients(ys, xs)`` adds the backward pass to the graph ``ys`` and ``xs`` live in,
under a ``gradients/`` name scope (one ``gradients/<op>_grad/`` scope per forward op,
as TF names them), and returns one tensor per x: the sum over every y and every path
of dy/dx, weighted by ``grad_ys`` (ones by default); None for an x no y depends on.

Algorithm (TF's ``_GradientsHelper``, minus control flow):

1. *Reached* ops: walking forward from the ops of ``xs`` through consumers, along
   floating-point tensors only (integer and bool tensors carry no gradient, so a cast
   to int cuts the path).
2. *Between* ops: the reached ops from which some y is reached walking backward.  Only
   these get gradient nodes.
3. Walk the between ops in reverse creation order (the graph's creation order is
   topological, so every consumer of an op's outputs is done before the op), summing
   the gradients each output received (a chain of ``Add``, which the optimizer fuses
   into one kernel; ``_sum``), and call the op's gradient function (``ops/registry.py``:
   ``grad(op, *output_grads) -> [input_grad or None, ...]``, one output grad per output,
   None for an output no gradient reached).  The gradient of each floating-point input
   is recorded (its static shape merged with the input's); other inputs get none.

Stopping: an op of ``stop_gradients`` or a ``StopGradient`` op (``not_differentiable``)
passes nothing to its inputs; nor does an op of ``xs`` none of whose inputs lies
between (its gradient function is not even looked up).  An op between ``xs`` and
``ys`` with no gradient registered raises ``LookupError`` naming it, as TF does.

Sparse forms: where TF's gradient of an x would be an IndexedSlices (every contribution a
GatherV2's on axis 0, passed on only by Identity ops: an embedding's), the dense result
carries its rows (``ops/indexed_rows.py``: ``rows_of``), so the optimizers can update
only those rows as TF's do.

Variables: an x that is a ``ds.Variable`` means the variable itself (its ``VariableV2``
tensor, whose ``read`` Identity the forward pass consumed), as TF1's ``as_ref``.

Inside a cond branch or loop body (a function graph being traced), an x of an enclosing
graph (a variable, a placeholder: MAML's inner step inside ``map_fn``) stands for what
captured it there (``_standins``): its gradient is the sum of theirs.  One the function
uses only through a tensor computed from it outside is refused (ValueError).

    y = x * x + 3 * x
    (dx,) = ds.gradients(y, [x])        # 2x + 3
    (ddx,) = ds.gradients(dx, [x])      # 2: gradients of gradients work too
"""

from __future__ import annotations

import contextlib
from collections import defaultdict

from .graph import (Operation, Tensor, convert_to_tensor, device, different_graphs_error,
                    name_scope)
from .ops.common import graph_of
from .ops.array import concat, reshape, stack
from .ops.array_fill import zeros
from .ops.elementwise import add
from .ops.indexed_rows import IndexedRows, gather_rows, rows_of, with_rows
from .ops.linalg import matmul
from .ops.registry import get_gradient
from .ops.shape_of import ones_like_of, zeros_like_of

__all__ = ["gradients", "hessians", "UnconnectedGradients", "AggregationMethod"]


class UnconnectedGradients:
    """What ``gradients`` returns for an x that no y depends on (TF's enum values)."""

    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    """How ``gradients`` sums the gradients a tensor receives (TF's constants).  Every
    method gives the same sums here: the session's optimizer fuses the chain of adds."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """The symbolic partial derivatives of ``sum(ys)`` with respect to each of ``xs``.

    ``grad_ys`` weights each y (default: ones of its shape; a complex y must have
    one, TF's TypeError otherwise).  ``stop_gradients``:
    tensors held constant (no gradient flows through their ops).
    ``unconnected_gradients`` ("none" or "zero", ``UnconnectedGradients``) is what an x
    no y depends on gets.  ``colocate_gradients_with_ops``: each op's gradient (the sum
    of what its outputs received, and its gradient function's ops) is placed with the
    op, as TF1's, so a model spread over devices or tasks differentiates where it runs;
    otherwise gradient ops take the device scope ``gradients`` is called in.  The TF1
    arguments ``gate_gradients`` and ``aggregation_method`` (one of
    ``AggregationMethod``'s) are accepted and change nothing.  Returns a list as long as
    ``xs``.

    Raises ``LookupError`` for an op on a path without a registered gradient,
    ``TypeError``/``ValueError`` for a ``grad_ys`` entry of the wrong dtype or shape
    and for tensors of different graphs.
    """
    del gate_gradients
    if aggregation_method not in (None, AggregationMethod.ADD_N,
                                  AggregationMethod.EXPERIMENTAL_TREE,
                                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        raise ValueError(f"Invalid aggregation_method specified {aggregation_method}.")
    unconnected_gradients = getattr(unconnected_gradients, "value", unconnected_gradients)
    ys, xs = _as_list(ys), _as_list(xs)
    graph = graph_of(*ys, *xs)
    ys = [convert_to_tensor(y, graph=graph) for y in ys]
    xs = original_xs = [_as_x(x, graph) for x in xs]
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"gradients: {len(grad_ys)} grad_ys for {len(ys)} ys.")
    if unconnected_gradients not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
        raise ValueError(f"Unknown unconnected_gradients value {unconnected_gradients!r}; "
                         f"use 'none' or 'zero'.")
    for t in ys:
        if t.graph is not graph:
            raise different_graphs_error(t, ys[0])      # TF's message
    groups = [_standins(graph, x, ys[0]) for x in xs]   # each x, or what stands for it here
    xs = [t for group in groups for t in group]
    stop_ops = {_op_of(s) for s in _as_list(stop_gradients or [])}

    with graph.as_default(), name_scope(name):
        grads: dict[Tensor, list] = defaultdict(list)   # tensor -> [(gradient, rows)]
        for k, (y, g) in enumerate(zip(ys, grad_ys)):
            grads[y].append((_grad_y(y, g, k), None))
        between = _between_ops(ys, xs, _consumers(graph))
        stop_ops |= _xs_ops_with_nothing_between(xs, between)
        for op in sorted(between, key=_creation_order(graph), reverse=True):
            with _placed_with(op, colocate_gradients_with_ops):
                summed = [_aggregate(grads, t) for t in op.outputs]
                out_grads = [g for g, _ in summed]
                if op in stop_ops or all(g is None for g in out_grads):
                    continue
                for t_in, g in zip(op.inputs, _input_grads(op, out_grads)):
                    if g is not None and _carries_gradient(t_in):
                        grads[t_in].append((g, _rows_passed(op, summed, g)))
        flat = []
        for x in xs:
            with _placed_with(x.op, colocate_gradients_with_ops):
                flat.append(with_rows(*_aggregate(grads, x)))
        results, start = [], 0
        for group in groups:
            parts = [g for g in flat[start:start + len(group)] if g is not None]
            start += len(group)
            results.append(parts[0] if len(parts) == 1 else _sum(parts) if parts else None)
        if unconnected_gradients == UnconnectedGradients.ZERO:
            results = [g if g is not None else zeros_like_of(group[0]) if group
                       else _outer_zeros(x) for x, group, g in zip(original_xs, groups, results)]
    return results


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False,
             gate_gradients=False, aggregation_method=None) -> list:
    """The second derivatives of ``sum(ys)``: for each x, a tensor of shape
    ``x.shape + x.shape`` whose ``[i..., j...]`` is d2y / dx[i...] dx[j...] (TF1's
    ``tf.hessians``).  Each x's shape must be fully known when the graph is built: the
    rows are the gradients of each element of the gradient, built one by one (TF runs
    a while loop).  Where y does not depend on x at all, the hessian is zeros (TF
    fails)."""
    kwargs = dict(colocate_gradients_with_ops=colocate_gradients_with_ops,
                  gate_gradients=gate_gradients, aggregation_method=aggregation_method,
                  unconnected_gradients=UnconnectedGradients.ZERO)
    ys, xs = _as_list(ys), _as_list(xs)
    graph = graph_of(*ys, *xs)
    xs = [_as_x(x, graph) for x in xs]
    for x in xs:
        if not x.shape.is_fully_defined():
            raise ValueError(f"hessians: the shape of '{x.name}' ({x.shape}) must be fully "
                             f"known.")
    with graph.as_default(), name_scope(name):
        first = gradients(ys, xs, **kwargs)
        results = []
        for x, g in zip(xs, first):
            flat = reshape(g, [-1])
            rows = [gradients(flat[j], x, **kwargs)[0]
                    for j in range(x.shape.num_elements())]
            dims = x.shape.as_list()
            results.append(reshape(stack(rows) if rows else zeros_like_of(x), dims + dims))
    return results


def _as_list(values) -> list:
    return list(values) if isinstance(values, (list, tuple)) else [values]


def _as_x(x, graph) -> Tensor:
    if hasattr(x, "_ref"):           # a Variable: the variable itself, not a read of it
        return x._ref()
    return convert_to_tensor(x, graph=graph)


def _standins(graph, x: Tensor, original: Tensor) -> list:
    """The tensors of ``graph`` that ``x`` reaches it as: ``[x]`` when it is in
    ``graph``; for an ``x`` of a graph enclosing the function graph ``graph`` (a
    cond branch or loop body differentiating with respect to an outer tensor or
    variable, as MAML's inner loop inside ``map_fn``), the Placeholders that captured it
    (through each nesting level) or a read of it (a variable's), and the copy of a
    variable the function assigns to; ``[]`` where ``graph`` never used it (its gradient
    is None).  The gradient of ``x`` is the sum of theirs.  An ``x`` of another graph is
    TF's ValueError: it must be from the same graph as ``original`` (the first y)."""
    if x.graph is graph:
        return [x]
    outer = getattr(graph, "outer_graph", None)
    if outer is None or not graph._captures_from(x.graph):
        raise different_graphs_error(x, original)
    found = []
    for t in _standins(outer, x, original):
        seen = [t]
        if t.op.type == "VariableV2":           # its reads, and its copy in ``graph``
            seen += [op.outputs[0] for op in outer.get_operations()
                     if op.type in ("Identity", "_ReadVariable") and op.inputs
                     and op.inputs[0] is t]
            copy = graph.variables.get(t.op)
            if copy is not None:
                found.append(copy.outputs[0])
        found += [graph._captures[s] for s in seen if s in graph._captures]
        indirect = _computed_from(t, [c for c in graph._captures if c not in seen])
        if indirect is not None:
            raise ValueError(
                f"ds.gradients inside '{graph.name}' (a cond branch or loop body) with "
                f"respect to '{x.name}' of an enclosing graph: the function uses "
                f"'{indirect.name}', computed from it outside the function, and its "
                f"gradient cannot reach back there; differentiate with respect to "
                f"'{indirect.name}', or compute it inside the function.")
    return found


def _computed_from(t: Tensor, captured: list):
    """The first of ``captured`` (tensors of ``t``'s graph) computed from ``t`` along
    tensors that carry gradients, or None."""
    for c in captured:
        seen, stack = set(), [c]
        while stack:
            u = stack.pop()
            if u is t:
                return c
            if u in seen or not _carries_gradient(u) or u.op.type == "StopGradient":
                continue
            seen.add(u)
            stack.extend(u.op.inputs)
    return None


def _outer_zeros(x: Tensor) -> Tensor:
    """Zeros for an outer ``x`` the function never used: of its static shape where
    known, so the function does not capture ``x`` only for its shape."""
    if x.shape.is_fully_defined():
        return zeros(x.shape.as_list(), dtype=x.dtype)
    return zeros_like_of(x)


def _op_of(value) -> Operation:
    if isinstance(value, Operation):
        return value
    if hasattr(value, "op"):         # a Tensor, or a Variable (its VariableV2 op, as TF1)
        return value.op
    raise TypeError(f"stop_gradients takes tensors, not {type(value).__name__}.")


def _carries_gradient(t: Tensor) -> bool:
    return t.dtype.is_floating or t.dtype.is_complex


def _grad_y(y: Tensor, grad_y, k: int) -> Tensor:
    """The weight of ``y``: ones of its shape by default (TF's ``grad_ys_k``)."""
    if grad_y is None:
        if y.dtype.is_complex:      # no one weight is right: TF asks for it
            raise TypeError(f"Gradients of complex tensors ({y}) must set grad_ys (y.dtype = "
                            f"{y.dtype.name})")
        return ones_like_of(y, name=f"grad_ys_{k}")
    grad_y = convert_to_tensor(grad_y, dtype_hint=y.dtype, graph=y.graph)
    if grad_y.dtype != y.dtype:
        raise TypeError(f"grad_ys[{k}] ('{grad_y.name}') has dtype {grad_y.dtype.name} but "
                        f"ys[{k}] ('{y.name}') is {y.dtype.name}.")
    if not grad_y.shape.is_compatible_with(y.shape):
        raise ValueError(f"grad_ys[{k}] ('{grad_y.name}') has shape {grad_y.shape}, which "
                         f"does not match shape {y.shape} of ys[{k}] ('{y.name}').")
    return grad_y


def _consumers(graph) -> dict:
    """tensor -> the ops that take it as an input (gradients flow along these edges)."""
    consumers: dict = defaultdict(list)
    for op in graph.get_operations():
        for t in op.inputs:
            consumers[t].append(op)
    return consumers


def _between_ops(ys, xs, consumers) -> set:
    """The ops on some path from an x to a y along floating-point tensors."""
    reached: set = set()
    stack = [x.op for x in xs]
    while stack:
        op = stack.pop()
        if op in reached:
            continue
        reached.add(op)
        for t in op.outputs:
            if _carries_gradient(t):
                stack.extend(consumers.get(t, ()))
    between: set = set()
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op in between or op not in reached:
            continue
        between.add(op)
        stack.extend(t.op for t in op.inputs)
    return between


def _xs_ops_with_nothing_between(xs, between) -> set:
    """Ops of ``xs`` whose inputs all lie outside the between ops: their gradient
    function is never needed (TF's ``_StopOps``)."""
    return {x.op for x in xs
            if not any(t.op in between for t in x.op.inputs)}


def _creation_order(graph):
    position = {id(op): i for i, op in enumerate(graph.get_operations())}
    return lambda op: position[id(op)]


def _placed_with(op: Operation, colocate: bool):
    """Where the gradient ops of ``op`` go: with ``op`` (TF1's
    ``colocate_gradients_with_ops``), else the scopes ``gradients`` was called in."""
    if not colocate:
        return contextlib.nullcontext()
    return op.graph.colocate_with(op, ignore_existing=True)


def _aggregate(grads: dict, t: Tensor) -> tuple:
    """``(gradient, rows)``: the sum of the gradients ``t`` received (remembered as its
    only one; None if none) and its sparse form, all the parts' rows when every part has
    some (TF's sum of IndexedSlices stays one), else None."""
    received = grads.get(t)
    if not received:
        return None, None
    total = _sum([g for g, _ in received])
    rows = None
    if all(r is not None for _, r in received):
        rows = sum((r for _, r in received[1:]), received[0][1])
    grads[t] = [(total, rows)]
    return total, rows


# Stacking the factors of this many weight gradients or more beats adding their products.
STACKED_PRODUCTS = 3


def _sum(parts: list) -> Tensor:
    """The sum of a tensor's gradient parts: TF's AddN, as a chain of adds; but where
    ``STACKED_PRODUCTS`` or more parts are weight gradients ``x_i^T . dz_i`` (MatMuls
    with ``transpose_a`` on one device: a recurrent cell's kernel over its time steps),
    one MatMul of the stacked ``x_i`` and ``dz_i``, ``[x_1; x_2; ...]^T . [dz_1; ...]``.
    That is one product over the summed batch rows instead of a small product per part
    (each writing the whole kernel-sized result) and an add of each into the total."""
    products = [g for g in parts if _weight_gradient(g)]
    groups: dict = defaultdict(list)
    for g in products:
        groups[(g.op.device, g.dtype, _columns(g.op))].append(g)
    stacked = [group for group in groups.values() if len(group) >= STACKED_PRODUCTS]
    used = {id(g) for group in stacked for g in group}
    terms = [_stacked_product(group) for group in stacked]
    terms += [g for g in parts if id(g) not in used]
    total = terms[0]
    for g in terms[1:]:
        total = add(total, g, name="AddN")
    return total


def _weight_gradient(g: Tensor) -> bool:
    op = g.op
    return op.type == "MatMul" and op.attrs.get("transpose_a") and \
        not op.attrs.get("transpose_b") and len(op.inputs) == 2 and \
        all(t.shape.ndims == 2 for t in op.inputs)


def _columns(op: Operation) -> tuple:
    return tuple(t.shape.dims[1] for t in op.inputs)


def _stacked_product(group: list) -> Tensor:
    """``sum(x_i^T . dz_i)`` as one MatMul of the stacked factors, on their device."""
    with device(group[0].op.device or None):
        xs = concat([g.op.inputs[0] for g in group], 0, name="stacked_inputs")
        dzs = concat([g.op.inputs[1] for g in group], 0, name="stacked_gradients")
        return matmul(xs, dzs, transpose_a=True, name="stacked_products")


def _rows_passed(op: Operation, summed: list, in_grad: Tensor) -> IndexedRows | None:
    """The sparse form of ``in_grad``, where TF's would be an IndexedSlices: made by a
    gather (``gather_rows``) or a sparse segment reduction with ``sparse_gradient`` (the
    rows its gradient function remembered), or passed on unchanged by an Identity (a
    variable's read); ``summed``: the op's output ``(gradient, rows)``."""
    if op.type == "Identity":
        out_grad, rows = summed[0]
        return rows if in_grad is out_grad else None
    if op.attrs.get("sparse_gradient") and op.type.startswith("SparseSegment"):
        return rows_of(in_grad)         # the rows its gradient function remembered
    return gather_rows(op, in_grad)


def _input_grads(op: Operation, out_grads: list) -> list:
    """The gradient function's result for ``op``, checked: one entry per input, each
    None or a tensor of the input's dtype and a compatible shape."""
    gradient_type = op.attrs.get("_gradient_op_type", op.type)   # gradient_override_map
    try:
        fn = get_gradient(gradient_type)
    except LookupError:
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: "
                          f"{gradient_type}). Wrap the input in ds.stop_gradient if no gradient "
                          f"should flow through it.") from None
    if fn is None:                   # not differentiable: it blocks
        return [None] * len(op.inputs)
    with name_scope(op.name + "_grad"):
        in_grads = fn(op, *out_grads)
    in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
    if len(in_grads) != len(op.inputs):
        raise ValueError(f"The gradient function of '{op.type}' returned {len(in_grads)} "
                         f"gradients for operation '{op.name}', which has {len(op.inputs)} "
                         f"inputs.")
    checked = []
    for t_in, g in zip(op.inputs, in_grads):
        if g is not None and _carries_gradient(t_in):
            g = convert_to_tensor(g, dtype_hint=t_in.dtype, graph=op.graph)
            if g.dtype != t_in.dtype:
                raise TypeError(f"The gradient of input '{t_in.name}' of '{op.name}' "
                                f"({op.type}) has dtype {g.dtype.name}, not {t_in.dtype.name}.")
            try:
                g.set_shape(t_in.shape)
            except ValueError:
                raise ValueError(f"Incompatible shapes between op input and calculated "
                                 f"input gradient for '{op.name}' ({op.type}): input "
                                 f"'{t_in.name}' has shape {t_in.shape}, its gradient "
                                 f"'{g.name}' {g.shape}.") from None
        checked.append(g)
    return checked
