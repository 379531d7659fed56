"""TensorArray GPU kernels: ``reference/tensor_array.py``'s builders over cupy, so the
checks and TF1's messages are the same on every device (the bookkeeping runs on the
host, the elements stay on the GPU)."""

from __future__ import annotations

import cupy

from ..reference.tensor_array import make_builders
from ..registry import register_kernel
from .device import on_device

for _op, _builder in make_builders(cupy, on_device).items():
    register_kernel(_op, "GPU")(_builder)
