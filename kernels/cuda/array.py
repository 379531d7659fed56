"""Data-movement GPU kernels: Identity, Reshape, Transpose, ConcatV2.

``reference/array.py``'s builders over cupy, each allocating kernel wrapped by
``on_device``: the same view rules (Identity and Reshape return a view of their input
when they can, kernels never mutate inputs; Transpose and ConcatV2 return a new
C-contiguous array) and the same checks and messages, so a bad shape reads the same on
every device.
"""

from __future__ import annotations

import cupy

from ..reference.array import make_builders
from ..registry import register_kernel
from .device import on_device

for _op, _builder in make_builders(cupy, on_device).items():
    register_kernel(_op, "GPU")(_builder)
