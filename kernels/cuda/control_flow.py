"""Control flow on the GPU: the reference module's drivers (``If``, ``While``,
``_WhileGrad``, ``_WhileReplay``, ``Assert``), registered for "GPU".  Their functions run
on the node's GPU through the runtime's function service; predicates and loop conditions
come to the host, the only values the drivers read themselves.  Each driver runs with the node's GPU
current (``on_device``), so what it makes itself (a loop gradient's zeros, a loop's
records: cupy is its array module) lands there."""

from __future__ import annotations

import functools

import cupy

from ..reference.control_flow import (build_assert, build_if, build_while, build_while_grad,
                                      build_while_replay)
from ..registry import register_kernel
from .device import on_device


def _on_node_gpu(builder):
    return lambda node: on_device(node, builder(node))


register_kernel(("If", "StatelessIf"), "GPU")(_on_node_gpu(build_if))
register_kernel(("While", "StatelessWhile"), "GPU")(
    _on_node_gpu(functools.partial(build_while, xp=cupy)))
register_kernel("_WhileGrad", "GPU")(_on_node_gpu(build_while_grad))
register_kernel("_WhileReplay", "GPU")(_on_node_gpu(build_while_replay))
register_kernel("Assert", "GPU")(_on_node_gpu(build_assert))
