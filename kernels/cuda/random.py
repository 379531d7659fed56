"""Multinomial, RandomGamma and RandomPoissonV2 on the GPU: the host kernels
(``reference/random.py``; the CPU's compiled samplers for Gamma and Poisson) on the
inputs copied down, the draws uploaded, so a seeded graph draws the same values on the
GPU as on the CPU (as the other random ops: ``state.py``).  TF's GPU kernels sample
differently (Multinomial: Gumbel-max); the distributions are the same."""

from __future__ import annotations

from ..reference.random import build_multinomial
from ..registry import register_kernel
from .host_ops import through_host


@register_kernel("Multinomial", "GPU")
def _multinomial(node):
    return through_host(node, build_multinomial(node))   # the host's seeded stream


@register_kernel(("RandomGamma", "RandomPoissonV2"), "GPU")
def _random_rates(node):
    from ..cpu.random import build_sampler      # the CPU's kernel: compiled samplers
    return through_host(node, build_sampler(node))
