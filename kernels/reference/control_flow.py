"""Control-flow kernels: ``If``/``StatelessIf``, ``While``/``StatelessWhile`` and
``Assert``, the same drivers on every device (the CUDA module registers these very
builders for "GPU").

They compute nothing themselves.  ``node.context`` is the runtime's function service
(``devsession/runtime/functions.py``): ``instantiate`` plans one of the node's
functions once, when the node's plan is built, and gives a callable
``fn(list of arrays) -> list of arrays`` running on the node's device.  ``If`` reads its
predicate on the host (a host input) and runs one branch; ``While`` runs the body
while the condition (fetched to the host) holds.  Predicates must be scalars: another
shape is an ``InvalidArgumentError`` naming the node, as TF's Switch and LoopCond give.
"""

from __future__ import annotations

import numpy as np

from devsession.errors import InvalidArgumentError

from ..registry import HOST, register_kernel


def host_array(value) -> np.ndarray:
    """A numpy view of ``value``, copying a device array (cupy's ``get``) to the host."""
    if not isinstance(value, np.ndarray) and hasattr(value, "get"):
        return value.get()
    return np.asarray(value)


def truth(value, node, what: str) -> bool:
    array = host_array(value)
    if array.ndim != 0:
        raise InvalidArgumentError(f"The {what} of '{node.name}' ({node.op}) must be a "
                                   f"scalar, but has shape {list(array.shape)}.", node.name)
    return bool(array)


def _packer(node):
    """The node's result from a function's list of outputs: None, one value, or a tuple."""
    count = len(node.output_dtypes)
    if count == 0:
        return lambda outputs: None
    if count == 1:
        return lambda outputs: outputs[0]
    return tuple


@register_kernel(("If", "StatelessIf"), HOST)
def build_if(node):
    ctx = node.context
    branches = (ctx.instantiate(node.attrs["else_branch"], "else"),
                ctx.instantiate(node.attrs["then_branch"], "then"))
    pack = _packer(node)

    def kernel(pred, *args):
        return pack(branches[truth(pred, node, "predicate")](list(args)))
    return kernel


@register_kernel(("While", "StatelessWhile"), HOST)
def build_while(node):
    ctx = node.context
    cond = ctx.instantiate(node.attrs["cond"], "cond", outputs_on_host=True)
    body = ctx.instantiate(node.attrs["body"], "body")
    count = len(node.output_dtypes)
    pack = _packer(node)

    def kernel(*args):
        loop_vars, captured = list(args[:count]), list(args[count:])
        while truth(cond(loop_vars + captured)[0], node, "loop condition"):
            loop_vars = body(loop_vars + captured)
        return pack(loop_vars)
    return kernel


@register_kernel("Assert", HOST)
def build_assert(node):
    message, summarize = node.attrs.get("message", ""), node.attrs.get("summarize", 3)

    def kernel(condition, *data):
        if not truth(condition, node, "condition"):
            shown = ", ".join(np.array2string(host_array(d).reshape(-1)[:summarize],
                                              separator=" ") for d in data)
            raise InvalidArgumentError(
                f"assertion failed in '{node.name}': {message or 'condition is false'}"
                + (f" [{shown}]" if shown else ""), node.name)
    return kernel


@register_kernel("_WhileGrad", HOST)
def build_while_grad(node):
    """The loop again, keeping each iteration's values, then the body's gradient
    function backwards over them (``devsession/ops/control_flow_grad.py``)."""
    ctx = node.context
    cond = ctx.instantiate(node.attrs["cond"], "cond", outputs_on_host=True)
    body = ctx.instantiate(node.attrs["body"], "body")
    body_grad = ctx.instantiate(node.attrs["body_grad"], "body_grad")
    count = node.attrs["num_loop_vars"]
    var_grads, capture_grads = len(node.attrs["loop_var_grads"]), node.attrs["capture_grads"]
    pack = _packer(node)

    def kernel(*args):
        loop_vars, captured = list(args[:count]), list(args[count:len(args) - var_grads])
        history = []
        while truth(cond(loop_vars + captured)[0], node, "loop condition"):
            history.append(loop_vars)
            loop_vars = body(loop_vars + captured)
        grads = list(args[len(args) - var_grads:])
        summed = [np.zeros_like(captured[k]) for k in capture_grads]
        for values in reversed(history):
            out = body_grad(values + captured + grads)
            grads = out[:var_grads]
            summed = [a + b for a, b in zip(summed, out[var_grads:])]
        return pack(grads + summed)
    return kernel
