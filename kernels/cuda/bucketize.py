"""``Bucketize`` on the GPU: the reference builder over cupy (``cupy.searchsorted``),
wrapped by ``on_device``."""

from __future__ import annotations

import cupy

from ..reference.bucketize import make_builders
from ..registry import register_kernel
from .device import on_device

for _op, _builder in make_builders(cupy, on_device).items():
    register_kernel(_op, "GPU")(_builder)
