"""Control flow on the GPU: the reference module's drivers (``If``, ``While``,
``Assert``), registered for "GPU".  Their functions run on the node's GPU through the
runtime's function service; predicates and conditions come to the host, the only values
these kernels read themselves."""

from __future__ import annotations

from ..reference.control_flow import build_assert, build_if, build_while, build_while_grad
from ..registry import register_kernel

register_kernel(("If", "StatelessIf"), "GPU")(build_if)
register_kernel(("While", "StatelessWhile"), "GPU")(build_while)
register_kernel("Assert", "GPU")(build_assert)
register_kernel("_WhileGrad", "GPU")(build_while_grad)
