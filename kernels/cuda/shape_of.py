"""Shape-of GPU kernels (``_ReduceToShapeOf``, ``_ReshapeToShapeOf``, ``_ReducedSize``):
``reference/shape_of.py``'s builders over cupy, so the checks and messages are the same
on every device.  ``_BroadcastToShapeOf`` is an elementwise op: its kernel is the
generated ``cupy.ElementwiseKernel`` (``elementwise.py``)."""

from __future__ import annotations

import cupy

from ..reference.shape_of import make_builders
from ..registry import register_kernel
from .device import on_device

for _op, _builder in make_builders(cupy, on_device).items():
    register_kernel(_op, "GPU")(_builder)
