"""Data-movement GPU kernels: Identity, Reshape, Transpose, ConcatV2.

``movement.py``'s builders over cupy, each allocating kernel wrapped by ``on_device``:
the same view rules (Identity and Reshape return a view of their input when they can,
kernels never mutate inputs; Transpose and ConcatV2 return a new C-contiguous array)
and the same checks and messages, so a bad shape reads the same on every device.
"""

from __future__ import annotations

from typing import Callable

import cupy

from .cuda_device import on_device
from .movement import make_builders
from .registry import register_kernel

__all__ = ["BUILDERS", "register"]

BUILDERS: dict[str, Callable] = make_builders(cupy, on_device)


def register(device_type: str = "GPU") -> None:
    for op, builder in BUILDERS.items():
        register_kernel(op, device_type)(builder)
