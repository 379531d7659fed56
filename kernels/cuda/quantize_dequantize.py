"""QuantizeAndDequantizeV2/V3/V4 and V4's gradient on the GPU: the reference builders
over cupy (``reference/quantize_dequantize.py``; a range computed from the input, or
given, is read back to choose the scale on the host, as TF's kernels read it), wrapped by
``on_device``."""

from __future__ import annotations

import cupy

from ..reference.quantize_dequantize import make_builders
from ..registry import register_kernel
from .device import on_device

for _op, _builder in make_builders(cupy, on_device).items():
    register_kernel(_op, "GPU")(_builder)
