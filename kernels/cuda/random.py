"""Multinomial on the GPU: the host kernel (``reference/random.py``) on the logits copied
down, its classes uploaded, so a seeded graph draws the same classes on the GPU as on the
CPU (as the other random ops: ``state.py``).  TF's GPU kernel samples differently
(Gumbel-max); the distribution is the same."""

from __future__ import annotations

import cupy

from ..reference.random import build_multinomial
from ..registry import register_kernel
from .device import on_device


@register_kernel("Multinomial", "GPU")
def _multinomial(node):
    draw = build_multinomial(node)      # the host kernel and its seeded stream
    return on_device(node, lambda logits, num_samples: cupy.asarray(
        draw(cupy.asnumpy(logits), num_samples)))
