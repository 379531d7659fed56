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

Records (``devsession/ops/control_flow.py``): a ``While`` with ``num_records`` also
collects, each iteration, the body's outputs after the loop variables (what its random
ops drew) and returns the iteration count, then per value the draws raveled and
concatenated and their shapes, one row per iteration (``_encode_records``, on the
node's device: ``xp`` is numpy here, cupy for the GPU).  ``_WhileGrad`` and
``_WhileReplay`` cut them back into each iteration's values (``_split_records``) and
run the replayed body on them, as many times as the loop ran, instead of the cond.
"""

from __future__ import annotations

import numpy as np

from devsession.errors import InvalidArgumentError

from ..registry import HOST, register_kernel
from .summarize import bracketed


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
def build_while(node, xp=np):
    ctx = node.context
    cond = ctx.instantiate(node.attrs["cond"], "cond", outputs_on_host=True)
    body = ctx.instantiate(node.attrs["body"], "body")
    records = node.attrs.get("num_records", 0)
    if records:
        return _recording_loop(node, cond, body, len(node.output_dtypes) - records, xp)
    count = len(node.output_dtypes)
    pack = _packer(node)

    def kernel(*args):
        loop_vars, captured = list(args[:count]), list(args[count:])
        while truth(cond(loop_vars + captured)[0], node, "loop condition"):
            loop_vars = body(loop_vars + captured)
        return pack(loop_vars)
    return kernel


def _recording_loop(node, cond, body, count: int, xp):
    """The loop, also returning its records (see the module docstring)."""
    recorded = (len(node.output_dtypes) - count - 1) // 2

    def kernel(*args):
        loop_vars, captured = list(args[:count]), list(args[count:])
        drawn = [[] for _ in range(recorded)]
        iterations = 0
        while truth(cond(loop_vars + captured)[0], node, "loop condition"):
            outputs = body(loop_vars + captured)
            loop_vars = outputs[:count]
            for values, value in zip(drawn, outputs[count:]):
                values.append(value)
            iterations += 1
        return tuple(loop_vars) + _encode_records(node, count, iterations, drawn, xp)
    return kernel


def _encode_records(node, count: int, iterations: int, drawn: list, xp) -> tuple:
    records = [xp.asarray(np.int64(iterations))]
    for k, values in enumerate(drawn):
        dtype = node.output_dtypes[count + 1 + 2 * k]
        rank = (node.output_shapes[count + 2 + 2 * k] or (None, None))[1]
        shapes = [tuple(v.shape) for v in values]
        if rank is None:
            rank = len(shapes[0]) if shapes else 0
        if any(len(shape) != rank for shape in shapes):
            raise InvalidArgumentError(
                f"'{node.name}' records what its random ops draw for its gradient, but the "
                f"rank of recorded value {k} changed between iterations "
                f"({sorted({len(s) for s in shapes})}).", node.name)
        flat = xp.concatenate([xp.asarray(v).reshape(-1) for v in values]) if values \
            else xp.zeros(0, dtype)
        records += [flat, xp.asarray(np.array(shapes, np.int64).reshape(iterations, rank))]
    return tuple(records)


def _split_records(node, records) -> list:
    """Per iteration, the list of the values its draws had (``_encode_records``
    undone; the values are views of the records)."""
    iterations = int(host_array(records[0]))
    per_value = []
    for flat, shapes in zip(records[1::2], records[2::2]):
        shapes = host_array(shapes)
        ends = np.cumsum(np.prod(shapes, axis=1, dtype=np.int64))
        if len(shapes) != iterations or (ends[-1] if iterations else 0) != flat.shape[0]:
            raise InvalidArgumentError(f"The records '{node.name}' got do not fit together: "
                                       f"{iterations} iterations, shapes {shapes.shape}, "
                                       f"{flat.shape[0]} values.", node.name)
        starts = ends - np.prod(shapes, axis=1, dtype=np.int64)
        per_value.append([flat[int(a):int(b)].reshape(tuple(int(d) for d in shape))
                          for a, b, shape in zip(starts, ends, shapes)])
    if not per_value:
        return [[] for _ in range(iterations)]
    return [list(values) for values in zip(*per_value)]


def _replay(body, loop_vars: list, captured: list, drawn: list, history=None) -> list:
    """Run ``body`` once per entry of ``drawn`` (each iteration's recorded values),
    appending each iteration's loop values to ``history``; returns the last ones."""
    for values in drawn:
        if history is not None:
            history.append(loop_vars)
        loop_vars = body(loop_vars + captured + values)
    return loop_vars


@register_kernel("_WhileReplay", HOST)
def build_while_replay(node):
    body = node.context.instantiate(node.attrs["body"], "body")
    count, records = len(node.output_dtypes), node.attrs["num_records"]
    pack = _packer(node)

    def kernel(*args):
        end = len(args) - records
        drawn = _split_records(node, args[end:])
        return pack(_replay(body, list(args[:count]), list(args[count:end]), drawn))
    return kernel


@register_kernel("Assert", HOST)
def build_assert(node):
    message, summarize = node.attrs.get("message", ""), node.attrs.get("summarize", 3)

    def kernel(condition, *data):
        # TF's text: "assertion failed: [1 2 3...] [x]" (the message attr, which TF's
        # Assert lacks, goes first)
        if not truth(condition, node, "condition"):
            shown = [bracketed(host_array(d), summarize) for d in data]
            raise InvalidArgumentError(
                " ".join(["assertion failed:"] + ([message] if message else []) + shown),
                node.name)
    return kernel


@register_kernel("_WhileGrad", HOST)
def build_while_grad(node):
    """The loop again, keeping each iteration's values, then the body's gradient
    function backwards over them (``devsession/ops/control_flow_grad.py``).  With
    records (its last ``num_records`` inputs), the replayed body runs once per recorded
    iteration on that iteration's draws, and its gradient gets them too."""
    ctx = node.context
    records = node.attrs.get("num_records", 0)
    cond = None if records else ctx.instantiate(node.attrs["cond"], "cond",
                                                outputs_on_host=True)
    body = ctx.instantiate(node.attrs["body"], "body")
    body_grad = ctx.instantiate(node.attrs["body_grad"], "body_grad")
    count = node.attrs["num_loop_vars"]
    var_grads, capture_grads = len(node.attrs["loop_var_grads"]), node.attrs["capture_grads"]
    pack = _packer(node)

    def kernel(*args):
        end = len(args) - records
        loop_vars, captured = list(args[:count]), list(args[count:end - var_grads])
        history = []
        if records:
            drawn = _split_records(node, args[end:])
            _replay(body, loop_vars, captured, drawn, history)
        else:
            while truth(cond(loop_vars + captured)[0], node, "loop condition"):
                history.append(loop_vars)
                loop_vars = body(loop_vars + captured)
            drawn = [[]] * len(history)
        grads = list(args[end - var_grads:end])
        summed = [np.zeros_like(captured[k]) for k in capture_grads]
        for values, draws in zip(reversed(history), reversed(drawn)):
            out = body_grad(values + captured + draws + grads)
            grads = out[:var_grads]
            summed = [a + b for a, b in zip(summed, out[var_grads:])]
        return pack(grads + summed)
    return kernel
