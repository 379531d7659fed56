"""The CPU's seeded random ops: the reference's kernels drawing with the compiled Philox
draws (``philox.py``), so TF's values at about a hundred times the reference's speed (a
million normals: 5 ms against 0.5 s).  TF1's RandomUniform, RandomStandardNormal,
TruncatedNormal, RandomUniformInt and RandomShuffle (``reference/state.py``), the
stateless ops (``reference/stateless_random.py``) and the stateful ones that read their
state from a variable (``reference/stateful_random.py``); the Gamma, Poisson and
Binomial samplers (``reference/random_rates.py``, ``reference/stateless_random_rates.py``,
the stateful Binomial too) with the compiled ``philox_rates.py``, and the parameterized
truncated normal with ``philox_truncated.py``: 20-80 us a sample in Python, well under
1 us here."""

from __future__ import annotations

from ..reference import random_rates, stateful_random, stateless_random
from ..reference import stateless_random_rates
from ..reference.state import DRAW_BUILDERS
from ..registry import register_kernel
from . import philox, philox_rates, philox_truncated

__all__ = ["build_draw", "build_sampler", "build_truncated_normal"]

_BUILDERS = {**DRAW_BUILDERS,
             **dict.fromkeys(stateless_random.V1_OPS, stateless_random.build_stateless_v1),
             **dict.fromkeys(stateless_random.V2_OPS, stateless_random.build_stateless_v2),
             **dict.fromkeys(stateful_random.DRAW_OPS, stateful_random.build_stateful_draw)}


_SAMPLER_BUILDERS = {**random_rates.BUILDERS,
                     "StatelessRandomGammaV3": stateless_random_rates.build_stateless_gamma,
                     "StatelessRandomPoisson": stateless_random_rates.build_stateless_poisson,
                     "StatelessRandomBinomial": stateless_random_rates.build_stateless_binomial,
                     "StatefulRandomBinomial": stateful_random.build_stateful_binomial}


@register_kernel(tuple(_BUILDERS), "CPU")
def build_draw(node):
    return _BUILDERS[node.op](node, draws=philox)


@register_kernel(tuple(_SAMPLER_BUILDERS), "CPU")
def build_sampler(node):
    return _SAMPLER_BUILDERS[node.op](node, samplers=philox_rates)


@register_kernel("StatelessParameterizedTruncatedNormal", "CPU")
def build_truncated_normal(node):
    return stateless_random_rates.build_stateless_parameterized_truncated_normal(
        node, samplers=philox_truncated)
