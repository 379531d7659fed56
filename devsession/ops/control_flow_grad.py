"""Gradients of control flow: ``If`` and ``While`` (and their stateless twins).

The gradient of an ``If`` is another ``If`` on the same predicate, whose branches are
the gradient functions of the forward branches: each is built by importing a copy of
the forward branch into a new function graph (its inputs become the gradient
function's first arguments), adding one argument per incoming output gradient, and
differentiating the copy with ``ds.gradients``.  Its outputs are the gradients of the
forward ``If``'s floating-point inputs (zeros where a branch does not use an input), so
the gradient reaches whatever outer tensors the branches captured, and only the taken
branch's gradient runs.

The copy recomputes what the gradient needs of the forward branch (TF2 instead makes
the forward ``If`` output its intermediates).  Recomputing a stateful op (an assign, a
random op) would differ from the forward pass, so a gradient that needs one is a
ValueError at build time naming it; ops the gradient does not need (an ``assign_add``
the branch runs for its effect) are left out of the copy's run.

The gradient of a ``While`` is one ``_WhileGrad`` node: its kernel runs the loop again
from the same inputs, keeping every iteration's loop variables (TF1 keeps them on
stacks during the forward pass), then runs the body's gradient function (built as a
branch's is) once per iteration, last first, carrying the loop variables' gradients
back and summing the captured tensors'.  Loops with stateful ops cannot run again
unchanged, so their gradient is a ValueError; ``back_prop=False`` stops the gradient.
"""

from __future__ import annotations

from ..function_graph import FunctionGraph, import_function, serialize
from ..gradients import gradients
from ..graph import Operation
from .control_flow import WHILE_GRAD_OP, WHILE_OPS, create_control_flow_op, create_if
from .registry import get_op_def, not_differentiable, register_gradient
from .shape_of import zeros_like_of

__all__ = []

not_differentiable("Assert")


def _if_grad(op: Operation, *out_grads):
    pred, inputs = op.inputs[0], list(op.inputs[1:])
    wanted = [(k, t.dtype, t.shape) for k, (t, g) in enumerate(zip(op.outputs, out_grads))
              if g is not None and t.dtype.is_floating]
    differentiable = [k for k, t in enumerate(inputs) if t.dtype.is_floating]
    if not wanted or not differentiable:
        return [None] * len(op.inputs)
    graph = op.graph
    functions = [_gradient_function(graph, op, attr, f"{op.name}_{label}_grad", wanted,
                                    differentiable)
                 for attr, label in (("then_branch", "true"), ("else_branch", "false"))]
    grad_op = create_if(graph, pred, [*inputs, *[out_grads[k] for k, _, _ in wanted]],
                        *functions, "If")
    grads = [None] * len(op.inputs)
    for k, g in zip(differentiable, grad_op.outputs):
        grads[1 + k] = g
    return grads


register_gradient("If")(_if_grad)
register_gradient("StatelessIf")(_if_grad)


def _while_grad(op: Operation, *out_grads):
    """See the module docstring."""
    count = len(op.outputs)
    if not op.attrs.get("back_prop", True) or all(g is None for g in out_grads):
        return [None] * len(op.inputs)
    if op.type == WHILE_OPS[0]:
        raise ValueError(f"Cannot differentiate through '{op.name}' (While): its gradient runs "
                         f"the loop again, and its cond or body holds stateful ops (assigns, "
                         f"random ops, asserts) that would run again. Keep them out of the "
                         f"loop, or stop the gradient (back_prop=False).")
    loop_vars = [k for k, t in enumerate(op.outputs) if t.dtype.is_floating]
    captures = [k for k, t in enumerate(op.inputs[count:]) if t.dtype.is_floating]
    if not loop_vars:
        return [None] * len(op.inputs)
    graph = op.graph
    wanted = [(k, op.outputs[k].dtype, op.outputs[k].shape) for k in loop_vars]
    body_grad = _gradient_function(graph, op, "body", f"{op.name}_body_grad", wanted,
                                   loop_vars + [count + k for k in captures])
    grad_ys = [out_grads[k] if out_grads[k] is not None else zeros_like_of(op.outputs[k])
               for k in loop_vars]
    declared = [op.inputs[k] for k in loop_vars] + [op.inputs[count + k] for k in captures]
    attrs = {"cond": op.get_attr("cond"), "body": op.get_attr("body"),
             "body_grad": serialize(body_grad),
             "output_types": tuple(t.dtype for t in declared),
             "output_shapes": tuple([op.outputs[k].shape for k in loop_vars]
                                    + [t.shape for t in declared[len(loop_vars):]]),
             "loop_var_grads": tuple(loop_vars), "capture_grads": tuple(captures),
             "num_loop_vars": count}
    grad_op = create_control_flow_op(graph, WHILE_GRAD_OP, [*op.inputs, *grad_ys], attrs,
                                     "WhileGrad", [body_grad])
    grads = [None] * len(op.inputs)
    for k, g in zip(loop_vars + [count + k for k in captures], grad_op.outputs):
        grads[k] = g
    return grads


register_gradient("While")(_while_grad)
register_gradient("StatelessWhile")(_while_grad)
not_differentiable(WHILE_GRAD_OP)   # no second derivatives through a loop


def _gradient_function(graph, op, attr: str, name: str, wanted, differentiable
                       ) -> FunctionGraph:
    """The gradient function of ``op``'s function ``attr``: its arguments are the
    function's own inputs, then one gradient per ``wanted`` output ((index, dtype,
    shape)); its outputs the gradients of the ``differentiable`` inputs (zeros where
    none flows)."""
    function = FunctionGraph(graph.unique_name(name), graph)
    inputs, outputs = import_function(op.get_attr(attr), function, op.name,
                                      drop_control_inputs=True)
    function.arguments = list(inputs)
    grad_ys = [function.add_input(dtype, shape, f"grad_y_{k}") for k, dtype, shape in wanted]
    with function.as_default():
        grads = gradients([outputs[k] for k, _, _ in wanted],
                          [inputs[k] for k in differentiable], grad_ys=grad_ys)
        function.outputs = [g if g is not None else zeros_like_of(inputs[k])
                            for k, g in zip(differentiable, grads)]
    _refuse_recomputed_state(function, op, attr)
    return function


def _refuse_recomputed_state(function: FunctionGraph, op: Operation, attr: str) -> None:
    """ValueError if computing ``function``'s outputs runs a stateful op of the
    forward function again (see the module docstring)."""
    needed, stack = set(), [t.op for t in function.outputs]
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        needed.add(node)
        op_def = get_op_def(node.type)
        if op_def.stateful and node.type != "VariableV2":
            raise ValueError(
                f"Cannot differentiate through '{op.name}' ({op.type}): its gradient "
                f"recomputes its {attr}, which would run stateful op '{node.name}' "
                f"({node.type}) again. Compute that value outside and use it inside.")
        stack.extend(t.op for k, t in enumerate(node.inputs) if k not in op_def.ref_inputs)
        stack.extend(node.control_inputs)
