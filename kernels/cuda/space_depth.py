"""The space/depth ops on the GPU (SpaceToDepth, DepthToSpace, SpaceToBatchND,
BatchToSpaceND, SpaceToBatch, BatchToSpace, ExtractImagePatches): the reference's
reshapes, transposes and strided copies (``reference/space_depth.py``) over cupy, each
kernel wrapped by ``on_device``, so the checks and TF's messages are the host's.  Block
shapes, paddings and crops arrive as host arrays (``OpDef.host_inputs``).  Nothing is
compiled: cupy's copies do the moving, so importing this module needs no GPU.
"""

from __future__ import annotations

import cupy

from ..reference.space_depth import make_builders
from ..registry import register_kernel
from .device import on_device

for _op, _builder in make_builders(cupy, on_device).items():
    register_kernel(_op, "GPU")(_builder)
