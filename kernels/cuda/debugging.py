"""``CheckNumerics`` on the GPU: the reference builder over cupy (two reductions on the
device, their two flags read back)."""

from __future__ import annotations

import cupy

from ..reference.debugging import make_check_numerics_builder
from ..registry import register_kernel
from .device import on_device

_build = make_check_numerics_builder(cupy)


@register_kernel("CheckNumerics", "GPU")
def build_check_numerics(node):
    return on_device(node, _build(node))
