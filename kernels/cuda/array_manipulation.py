"""GPU kernels of TF's array-manipulation ops (``devsession/ops/array_order.py``,
``diagonals.py``, ``vectors.py``, ``array_shapes.py``, ``array_sets.py``).

* Roll, Cross, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag (V1, V2, V3): the
  reference builders over cupy, wrapped by ``on_device`` (the same checks and messages
  as on the host).
* EnsureShape: the reference's checked copy, which works on cupy arrays as it is.
* LowerBound/UpperBound, ShapeN, BroadcastArgs, UniqueWithCounts, ListDiff,
  InvertPermutation, UnravelIndex and the set ops (``set_operations.py``): the host
  kernels on downloaded inputs (``host_ops.through_host``): shapes and index lists,
  small and value-sized, as TF keeps most of them in host memory.
"""

from __future__ import annotations

import cupy

from ..reference import (array_order, array_sets, array_shapes, diagonals, set_operations,
                         vectors)
from ..registry import register_kernel
from .device import on_device
from .host_ops import through_host

_ON_DEVICE = {**array_order.make_builders(cupy, on_device),
              **diagonals.make_builders(cupy, on_device),
              **vectors.make_builders(cupy, on_device), **array_shapes.PASS_THROUGH}
_HOST_BUILDERS = {**array_order.HOST_BUILDERS, **array_shapes.HOST_BUILDERS,
                  **array_sets.HOST_BUILDERS, **set_operations.HOST_BUILDERS}

for _op, _builder in _ON_DEVICE.items():
    register_kernel(_op, "GPU")(_builder)


@register_kernel(tuple(_HOST_BUILDERS), "GPU")
def build_on_host(node):
    return through_host(node, _HOST_BUILDERS[node.op](node))
