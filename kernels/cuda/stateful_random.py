"""TF's stateful random ops on the GPU: the host kernels (``reference/stateful_random.py``),
which read and move on the variable's state on the host (three int64s), their inputs
copied down and their draws (the CPU's compiled ones) uploaded, so a GPU graph draws the CPU's values: TF's."""

from __future__ import annotations

from ..reference import stateful_random as host
from ..registry import register_kernel
from .host_ops import through_host


def _compiled_draw(node):
    from ..cpu.random import build_draw     # the CPU's kernel: compiled Philox draws
    return build_draw(node)


def _compiled_binomial(node):
    from ..cpu import philox_rates          # the CPU's compiled Binomial sampler
    return host.build_stateful_binomial(node, samplers=philox_rates)


_BUILDERS = {**{op: _compiled_draw for op in host.DRAW_OPS},
             "RngReadAndSkip": host.build_rng_read_and_skip,
             "RngSkip": host.build_rng_skip,
             "StatefulRandomBinomial": _compiled_binomial,
             "NonDeterministicInts": host.build_non_deterministic_ints}


@register_kernel(tuple(_BUILDERS), "GPU")
def build_stateful_random(node):
    return through_host(node, _BUILDERS[node.op](node))
