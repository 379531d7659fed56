"""TF's gradient ops on the GPU (``ops/backprops.py``): the elementwise backprops come
from the expression table (``cuda/elementwise.py``); BroadcastGradientArgs and
ConcatOffset compute a few ints from shapes, on the host (``through_host``, as TF keeps
them in host memory); PreventGradient copies its input on the device."""

from __future__ import annotations

from ..reference import backprops as host
from ..registry import register_kernel
from .device import on_device
from .host_ops import through_host

_HOST_BUILDERS = {"BroadcastGradientArgs": host.build_broadcast_gradient_args,
                  "ConcatOffset": host.build_concat_offset}


@register_kernel(tuple(_HOST_BUILDERS), "GPU")
def build_on_host(node):
    return through_host(node, _HOST_BUILDERS[node.op](node))


@register_kernel("PreventGradient", "GPU")
def build_prevent_gradient(node):
    return on_device(node, host.build_prevent_gradient(node))
