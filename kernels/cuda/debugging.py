"""``CheckNumerics`` on the GPU: the reference builder over cupy (two reductions on the
device, their two flags read back); ``Print``: the reference kernel (its data read back
to be written; its input passed through on the device)."""

from __future__ import annotations

import cupy

from ..reference.debugging import build_print, make_check_numerics_builder
from ..registry import register_kernel
from .device import on_device

_build = make_check_numerics_builder(cupy)


@register_kernel("CheckNumerics", "GPU")
def build_check_numerics(node):
    return on_device(node, _build(node))


@register_kernel("Print", "GPU")
def build_print_on_gpu(node):
    return on_device(node, build_print(node))
