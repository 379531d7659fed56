"""The CPU's seeded random ops (TF1's RandomUniform, RandomStandardNormal,
TruncatedNormal, RandomUniformInt and RandomShuffle): the reference's kernels
(``reference/state.py``) drawing with the compiled Philox draws (``philox.py``), so
TF's values at about a hundred times the reference's speed (a million normals: 5 ms
against 0.5 s)."""

from __future__ import annotations

from ..reference.state import DRAW_BUILDERS
from ..registry import register_kernel
from . import philox

__all__ = ["build_draw"]


@register_kernel(tuple(DRAW_BUILDERS), "CPU")
def build_draw(node):
    return DRAW_BUILDERS[node.op](node, draws=philox)
