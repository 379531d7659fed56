"""``_RunTimeAttr`` (``ops/run_time_attrs.py``): the wrapped op's kernel, built for each
value of the attr input it sees (and kept, so a training loop builds it once), on the
device the node runs on.  The wrapped kernel is told the input's rank is unknown, so it
settles negative axes and checks them per input, as for a graph of unknown rank."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np

from ...ops.run_time_attrs import RUN_TIME_ATTR
from ..registry import HOST, lookup_kernel, register_kernel

__all__ = ["run_time_attr_builder"]


def run_time_attr_builder(builder_of):
    """The ``_RunTimeAttr`` kernel builder whose wrapped op's builder is
    ``builder_of(op)`` (a device's)."""
    def build(node):
        op, attr = node.attrs["op"], node.attrs["attr"]
        base = {k: v for k, v in node.attrs.items() if k not in ("op", "attr")}
        builder = builder_of(op)
        kernels, lock = {}, threading.Lock()

        def kernel_for(value):
            ints = tuple(int(v) for v in np.asarray(value).reshape(-1))
            key = tuple(sorted(set(ints))) if attr == "axis" else ints
            with lock:
                kernel = kernels.get(key)
                if kernel is None:
                    wrapped = dataclasses.replace(
                        node, op=op, attrs={**base, attr: key},
                        input_dtypes=node.input_dtypes[:1], input_shapes=(None,),
                        output_shape=None)
                    kernel = kernels[key] = builder(wrapped)
            return kernel

        def run(x, value):
            return kernel_for(value.get() if hasattr(value, "get") else value)(x)
        return run
    return build


for _device in HOST:
    register_kernel(RUN_TIME_ATTR, _device)(run_time_attr_builder(
        lambda op, device=_device: lookup_kernel(op, device)))
