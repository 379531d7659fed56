"""The CPU's seeded random ops: the reference's kernels drawing with the compiled Philox
draws (``philox.py``), so TF's values at about a hundred times the reference's speed (a
million normals: 5 ms against 0.5 s).  TF1's RandomUniform, RandomStandardNormal,
TruncatedNormal, RandomUniformInt and RandomShuffle (``reference/state.py``), the
stateless ops (``reference/stateless_random.py``) and the stateful ones that read their
state from a variable (``reference/stateful_random.py``)."""

from __future__ import annotations

from ..reference import stateful_random, stateless_random
from ..reference.state import DRAW_BUILDERS
from ..registry import register_kernel
from . import philox

__all__ = ["build_draw"]

_BUILDERS = {**DRAW_BUILDERS,
             **dict.fromkeys(stateless_random.V1_OPS, stateless_random.build_stateless_v1),
             **dict.fromkeys(stateless_random.V2_OPS, stateless_random.build_stateless_v2),
             **dict.fromkeys(stateful_random.DRAW_OPS, stateful_random.build_stateful_draw)}


@register_kernel(tuple(_BUILDERS), "CPU")
def build_draw(node):
    return _BUILDERS[node.op](node, draws=philox)
