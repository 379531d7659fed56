"""``_RunTimeAttr`` on the GPU: the wrapped op's GPU kernel per attr value
(``reference/run_time_attrs.py``); the value itself is a host input.  The wrapped
builders are this package's own (not looked up in the registry at run time, so the
cupy stand-in's kernels wrap the stand-in's)."""

from __future__ import annotations

import cupy

from ...ops.run_time_attrs import RUN_TIME_ATTR
from ..reference.array import make_builders
from ..reference.run_time_attrs import run_time_attr_builder
from ..registry import register_kernel
from .device import on_device
from .reduce import build_logical_or_product, build_reduction

_WRAPPED = {**{op: build_reduction for op in ("Sum", "Mean", "Max", "Min")},
            **{op: build_logical_or_product for op in ("Prod", "All", "Any", "EuclideanNorm")},
            "Transpose": make_builders(cupy, on_device)["Transpose"]}

register_kernel(RUN_TIME_ATTR, "GPU")(run_time_attr_builder(_WRAPPED.__getitem__))
