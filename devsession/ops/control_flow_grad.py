"""Gradients of control flow: ``If`` and ``While`` (and their stateless twins).

The gradient of an ``If`` is another ``If`` on the same predicate, whose branches are
the gradient functions of the forward branches: each is built by importing a copy of
the forward branch into a new function graph (its inputs become the gradient
function's first arguments), adding one argument per incoming output gradient, and
differentiating the copy with ``ds.gradients``.  Its outputs are the gradients of the
forward ``If``'s floating-point inputs (zeros where a branch does not use an input), so
the gradient reaches whatever outer tensors the branches captured, and only the taken
branch's gradient runs.

The gradient of a ``While`` is one ``_WhileGrad`` node: its kernel runs the loop again
from the same inputs, keeping every iteration's loop variables (TF1 keeps them on
stacks during the forward pass), then runs the body's gradient function (built as a
branch's is) once per iteration, last first, carrying the loop variables' gradients
back and summing the captured tensors'.  ``back_prop=False`` stops the gradient.  A
``_WhileGrad`` has no gradient: differentiating a loop's gradient again raises TF1's
TypeError (gradients taken inside a body, of what the body computes, are ordinary ops).

Random ops: replay.  The copies recompute the forward functions (TF2 instead makes
the forward op output its intermediates), and a random op recomputed would draw other
values.  So a cond or loop whose functions' outputs need random ops records their
draws (``control_flow.py``'s docstring), and its gradient computes with a *replay* of
its functions (``replay_function``): each recorded value is an input of the replay
(after the function's own inputs) instead of a random op, nested conds and loops
replay from their own records (a nested loop becomes a ``_WhileReplay`` node), and the
control edges are gone (an Assert has checked these values already).  The gradient
``If`` takes the forward ``If``'s records as inputs, so each branch's gradient gets
the values that branch drew; ``_WhileGrad`` takes the loop's records and replays the
body as many times as the loop ran, handing each iteration its draws, to the body's
gradient too.

Why records, outputs of the forward op: they are plain tensors, so this is dataflow
only: nothing outside the step to clean up, freed with the step's other values, and it
holds in a GraphDef and across a cluster's tasks (a loop on one task, its gradient on
another).  A store keyed by step that the gradient kernel reads would need clean-up
hooks at every step's end (a kernel cannot know whether the gradient runs in this step:
unfetched, it is pruned away) and would not reach another task.  Why only the draws,
not every intermediate (TF2's way, which saves the recomputation): the records stay as
small as the random values, and loops without random ops keep exactly their old graph,
memory and speed.  The cost, for a loop with random ops: its draws, kept until the step
ends, and one concatenation of them, also when only the forward pass is fetched
(``back_prop=False`` records nothing).

What still cannot run again is refused at build time (ValueError naming the op):
assigns and other effects in a loop's functions (its gradient runs the body again,
repeating the effect; the gradient of ``If`` refuses one only if it needs its value),
and random ops a gradient would recompute for want of records (a graph imported from
before records existed).
"""

from __future__ import annotations

from .. import dtypes
from ..errors import InvalidArgumentError
from ..function_graph import (FunctionGraph, draws, function_attr, function_nodes,
                              import_function, parse, serialize, without_clearing)
from ..gradients import gradients
from ..graph import Graph, Operation
from ..graph_codec import FunctionAttr, decode_attr, encode_attr
from .control_flow import (IF_OPS, WHILE_GRAD_OP, WHILE_OPS, WHILE_REPLAY_OP,
                           create_control_flow_op, create_if, record_count)
from .registry import get_op_def, not_differentiable, register_gradient
from .shape_of import zeros_like_of

__all__ = ["replay_function"]

not_differentiable("Assert")

# Nodes that hold functions: what matters is what runs inside them.
_CONTAINERS = frozenset(IF_OPS + WHILE_OPS + (WHILE_GRAD_OP, WHILE_REPLAY_OP))
# Stateful ops that may run again: an Assert checks the same values again, a
# PlaceholderWithDefault (stateful so it is never folded) gives its default again, and a
# function's VariableV2 is there for an assign (which is what gets refused).
_REPEATABLE = frozenset({"Assert", "PlaceholderWithDefault", "VariableV2"})


def _if_grad(op: Operation, *out_grads):
    records = record_count(op)
    declared = len(op.outputs) - records
    pred, inputs = op.inputs[0], list(op.inputs[1:])
    wanted = [(k, t.dtype, t.shape) for k, (t, g) in
              enumerate(zip(op.outputs[:declared], out_grads))
              if g is not None and t.dtype.is_floating]
    differentiable = [k for k, t in enumerate(inputs) if t.dtype.is_floating]
    if not wanted or not differentiable:
        return [None] * len(op.inputs)
    graph = op.graph
    functions = []
    for attr, label in (("then_branch", "true"), ("else_branch", "false")):
        function = op.attrs[attr]
        if records:
            function = replay_function(function, records, op.name)
        functions.append(_gradient_function(graph, function, op, attr,
                                            f"{op.name}_{label}_grad", wanted, differentiable))
    grad_op = create_if(graph, pred, [*inputs, *op.outputs[declared:],
                                      *[out_grads[k] for k, _, _ in wanted]],
                        *functions, "If")
    grads = [None] * len(op.inputs)
    for k, g in zip(differentiable, grad_op.outputs):
        grads[1 + k] = g
    return grads


register_gradient("If")(_if_grad)
register_gradient("StatelessIf")(_if_grad)


def _while_grad(op: Operation, *out_grads):
    """See the module docstring.  ``op`` is a While, or a ``_WhileReplay`` (a recording
    loop nested in a function that a gradient replays: its records are its last
    inputs, its body replays already)."""
    replaying = op.type == WHILE_REPLAY_OP
    records = record_count(op)
    count = len(op.outputs) - (0 if replaying else records)
    out_grads = out_grads[:count]
    if not op.attrs.get("back_prop", True) or all(g is None for g in out_grads):
        return [None] * len(op.inputs)
    loop_inputs = list(op.inputs[:len(op.inputs) - records] if replaying else op.inputs)
    recorded = list(op.inputs[len(loop_inputs):] if replaying else op.outputs[count:])
    body = op.attrs["body"]
    if not replaying:
        _refuse_repeated_effects(op, records)
        if records:
            body = replay_function(body, (records - 1) // 2, op.name)
    body = without_clearing(body)          # the loop runs again: its reads read again
    loop_vars = [k for k, t in enumerate(op.outputs[:count]) if t.dtype.is_floating]
    captures = [k for k, t in enumerate(loop_inputs[count:]) if t.dtype.is_floating]
    if not loop_vars:
        return [None] * len(op.inputs)
    graph = op.graph
    wanted = [(k, op.outputs[k].dtype, _loop_var_shape(op, k)) for k in loop_vars]
    body_grad = _gradient_function(graph, body, op, "body", f"{op.name}_body_grad", wanted,
                                   loop_vars + [count + k for k in captures])
    grad_ys = [out_grads[k] if out_grads[k] is not None else zeros_like_of(op.outputs[k])
               for k in loop_vars]
    declared = [loop_inputs[k] for k in loop_vars] + [loop_inputs[count + k] for k in captures]
    attrs = {"body": body, "body_grad": serialize(body_grad),
             "output_types": tuple(t.dtype for t in declared),
             "output_shapes": tuple(t.shape for t in declared),
             "loop_var_grads": tuple(loop_vars), "capture_grads": tuple(captures),
             "num_loop_vars": count}
    if records:
        attrs["num_records"] = records
    else:
        attrs["cond"] = op.attrs["cond"]
    grad_op = create_control_flow_op(graph, WHILE_GRAD_OP, [*loop_inputs, *grad_ys, *recorded],
                                     attrs, "WhileGrad", [body_grad])
    grads = [None] * len(op.inputs)
    for k, g in zip(loop_vars + [count + k for k in captures], grad_op.outputs):
        grads[k] = g
    return grads


def _loop_var_shape(op: Operation, k: int):
    """Loop variable ``k``'s shape in every iteration: its shape invariant, which the
    loop's output shape may refine (map_fn's accumulator grows from [0, ...] to a
    known [n, ...])."""
    invariants = op.attrs.get("output_shapes")
    return invariants[k] if invariants else op.outputs[k].shape


register_gradient("While")(_while_grad)
register_gradient("StatelessWhile")(_while_grad)
register_gradient(WHILE_REPLAY_OP)(_while_grad)


@register_gradient(WHILE_GRAD_OP)
def _while_grad_grad(op: Operation, *out_grads):
    """A loop's gradient differentiated again (a Hessian-vector product or a gradient
    penalty through a ``while_loop``, ``map_fn`` or ``dynamic_rnn``, differentiated from
    outside the loop): TF1's error, where a silent None would hide the missing term.
    ``ds.gradients`` inside a loop body (MAML's inner step in ``map_fn``) is fine."""
    raise TypeError("Second-order gradient for while loops not supported.")


def _refuse_repeated_effects(op: Operation, records: int) -> None:
    """ValueError if the loop's gradient, running its body again, would repeat an
    effect (an assign...), or draw again what the loop did not record."""
    if op.type != WHILE_OPS[0]:
        return
    for attr in ("cond", "body"):
        for name, op_type in function_nodes(op.attrs[attr]):
            if draws(op_type) and records or op_type in _CONTAINERS | _REPEATABLE \
                    or not get_op_def(op_type).stateful:
                continue
            raise ValueError(
                f"Cannot differentiate through '{op.name}' (While): its gradient runs the "
                f"loop's {attr} again, which holds stateful op '{name}' ({op_type}), whose "
                f"effect would happen again. Random ops are fine (the loop records what they "
                f"draw), assigns and other stateful ops are not: keep them out of the loop, "
                f"or stop the gradient (back_prop=False).")


def _gradient_function(graph, function, op, label: str, name: str, wanted, differentiable
                       ) -> FunctionGraph:
    """The gradient function of ``function`` (a FunctionAttr of ``op``, or its replay):
    its arguments are the function's own inputs, then one gradient per ``wanted`` output
    ((index, dtype, shape)); its outputs the gradients of the ``differentiable`` inputs
    (zeros where none flows)."""
    function_graph = FunctionGraph(graph.unique_name(name), graph)
    inputs, outputs = import_function(function, function_graph, op.name,
                                      drop_control_inputs=True)
    function_graph.arguments = list(inputs)
    grad_ys = [function_graph.add_input(dtype, shape, f"grad_y_{k}")
               for k, dtype, shape in wanted]
    with function_graph.as_default():
        grads = gradients([outputs[k] for k, _, _ in wanted],
                          [inputs[k] for k in differentiable], grad_ys=grad_ys)
        function_graph.outputs = [g if g is not None else zeros_like_of(inputs[k])
                                  for k, g in zip(differentiable, grads)]
    _refuse_recomputed_state(function_graph, op, label)
    return function_graph


def _refuse_recomputed_state(function: FunctionGraph, op: Operation, label: str) -> None:
    """ValueError if computing ``function``'s outputs runs a stateful op of the
    forward function again (see the module docstring)."""
    needed, stack = set(), [t.op for t in function.outputs]
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        needed.add(node)
        op_def = get_op_def(node.type)
        for name, op_type in _unrepeatable(node):
            raise ValueError(
                f"Cannot differentiate through '{op.name}' ({op.type}): its gradient "
                f"recomputes its {label}, which would run stateful op '{name}' ({op_type}) "
                f"again. Random ops are fine where the op records them; assigns and other "
                f"stateful ops are not: compute that value outside and use it inside.")
        stack.extend(t.op for k, t in enumerate(node.inputs) if k not in op_def.ref_inputs)
        stack.extend(node.control_inputs)


def _unrepeatable(node: Operation) -> list:
    """(name, op type) of what would differ if ``node`` ran again: itself, or for a cond
    or loop what its functions hold."""
    if node.type in _CONTAINERS:
        return [(f"{node.name}/{name}", op_type)
                for value in node.attrs.values() if isinstance(value, FunctionAttr)
                for name, op_type in function_nodes(value)
                if op_type not in _CONTAINERS | _REPEATABLE and get_op_def(op_type).stateful]
    if get_op_def(node.type).stateful and node.type not in _REPEATABLE:
        return [(node.name, node.type)]
    return []


# --- replay ------------------------------------------------------------------------------

def replay_function(function, num_records: int, node_name: str):
    """``function`` (a FunctionAttr: a branch or a loop body whose last ``num_records``
    outputs are records) as its gradient replays it (see the module docstring): the
    recorded values become inputs, after its own, and are no longer outputs; nested
    recording conds and loops replay from their records, control edges are dropped,
    and nodes that no output needs are left out."""
    _, graph_def, inputs, outputs = parse(function, node_name)
    split = len(outputs) - num_records
    kept, recorded = outputs[:split], outputs[split:]
    scratch = Graph()
    specs = [(t.dtype, t.shape)
             for t in import_function(function, scratch, node_name)[1][split:]]
    nodes = {node.name: node for node in graph_def.node}
    taken = set(nodes)
    substitute: dict = {}       # tensor -> the placeholder standing for it now
    nested: dict = {}           # recording node -> the placeholders of its records
    record_inputs = []
    for name, (dtype, shape) in zip(recorded, specs):
        producer, index = _tensor(name)
        placeholder = _add_placeholder(graph_def, taken, f"{producer}/recorded_{index}",
                                       dtype, shape)
        record_inputs.append(placeholder)
        node = nodes[producer]
        if index >= _declared_outputs(node):
            nested.setdefault(producer, []).append(placeholder)
        substitute[f"{producer}:{index}"] = placeholder    # (a nested gradient's input)
    for producer, placeholders in nested.items():
        _replay_node(nodes[producer], placeholders)
    for node in graph_def.node:
        data = [substitute.get(_canonical(i), i) for i in node.input if not i.startswith("^")]
        del node.input[:]
        node.input.extend(data)
    kept = [substitute.get(_canonical(name), name) for name in kept]
    _prune(graph_def, kept, inputs + record_inputs)
    return function_attr(graph_def, inputs + record_inputs, kept)


def _tensor(name: str) -> tuple:
    producer, _, index = name.partition(":")
    return producer, int(index or 0)


def _canonical(name: str) -> str:
    producer, index = _tensor(name)
    return f"{producer}:{index}"


def _declared_outputs(node) -> int:
    """How many outputs of a GraphDef node are not records (all, for most nodes)."""
    if node.op not in IF_OPS + WHILE_OPS or "num_records" not in node.attr:
        return 1 << 30
    return len(node.attr["output_types"].list.type) - node.attr["num_records"].i


def _add_placeholder(graph_def, taken: set, base: str, dtype, shape) -> str:
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    node = graph_def.node.add(name=name, op="Placeholder")
    encode_attr(dtypes.as_dtype(dtype), node.attr["dtype"])
    encode_attr(shape, node.attr["shape"])
    return f"{name}:0"


def _replay_node(node, placeholders: list) -> None:
    """Turn a recording If or While (a GraphDef node) into its replay, which takes its
    records (``placeholders``) as extra inputs and outputs only its own values."""
    attrs = {key: decode_attr(value, node.name, key) for key, value in node.attr.items()}
    records = attrs["num_records"]
    if len(placeholders) != records:
        raise InvalidArgumentError(f"Node '{node.name}' has {records} records, but the "
                                   f"function holding it records {len(placeholders)}.",
                                   node.name)
    keep = len(attrs["output_types"]) - records
    attrs["output_types"] = attrs["output_types"][:keep]
    attrs["output_shapes"] = attrs["output_shapes"][:keep]
    if node.op in IF_OPS:
        for key in ("then_branch", "else_branch"):
            attrs[key] = replay_function(attrs[key], records, node.name)
        del attrs["num_records"]
    else:
        node.op = WHILE_REPLAY_OP
        attrs = {"body": replay_function(attrs["body"], (records - 1) // 2, node.name),
                 "num_records": records, "output_types": attrs["output_types"],
                 "output_shapes": attrs["output_shapes"]}
    node.attr.clear()
    for key, value in attrs.items():
        encode_attr(value, node.attr[key])
    node.input.extend(placeholders)


def _prune(graph_def, outputs, inputs) -> None:
    """Leave out the nodes that no output needs (the inputs stay)."""
    nodes = {node.name: node for node in graph_def.node}
    needed = {_tensor(name)[0] for name in inputs}
    stack = [_tensor(name)[0] for name in outputs]
    while stack:
        name = stack.pop()
        if name not in needed:
            needed.add(name)
            stack.extend(_tensor(i.lstrip("^"))[0] for i in nodes[name].input)
    kept = [node for node in graph_def.node if node.name in needed]
    del graph_def.node[:]
    graph_def.node.extend(kept)
