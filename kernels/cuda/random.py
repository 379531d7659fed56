"""Multinomial on the GPU: the host kernel (``reference/random.py``) on the logits copied
down, its classes uploaded, so a seeded graph draws the same classes on the GPU as on the
CPU (as the other random ops: ``state.py``).  TF's GPU kernel samples differently
(Gumbel-max); the distribution is the same."""

from __future__ import annotations

from ..reference.random import build_multinomial
from ..registry import register_kernel
from .host_ops import through_host


@register_kernel("Multinomial", "GPU")
def _multinomial(node):
    return through_host(node, build_multinomial(node))   # the host's seeded stream
