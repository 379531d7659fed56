"""The fake quantization ops and their gradients on the GPU: the reference builders over
cupy (``reference/fake_quant.py``; the ranges, scalars or per-channel vectors, are read
back to nudge them on the host, as TF's kernels read them), wrapped by ``on_device``."""

from __future__ import annotations

import cupy

from ..reference.fake_quant import make_builders
from ..registry import register_kernel
from .device import on_device

for _op, _builder in make_builders(cupy, on_device).items():
    register_kernel(_op, "GPU")(_builder)
