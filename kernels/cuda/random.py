"""Multinomial, RandomGamma and RandomPoissonV2 on the GPU: the host kernels
(``reference/random.py``) on the inputs copied down, the draws uploaded, so a seeded
graph draws the same values on the GPU as on the CPU (as the other random ops:
``state.py``).  TF's GPU kernels sample differently (Multinomial: Gumbel-max); the
distributions are the same."""

from __future__ import annotations

from ..reference.random import build_multinomial, build_random_gamma, build_random_poisson
from ..registry import register_kernel
from .host_ops import through_host


@register_kernel("Multinomial", "GPU")
def _multinomial(node):
    return through_host(node, build_multinomial(node))   # the host's seeded stream


@register_kernel("RandomGamma", "GPU")
def _random_gamma(node):
    return through_host(node, build_random_gamma(node))


@register_kernel("RandomPoissonV2", "GPU")
def _random_poisson(node):
    return through_host(node, build_random_poisson(node))
