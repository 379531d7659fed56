"""State kernels on the GPU: constants, placeholders, variables and seeded random ops.

The GPU twins of ``reference/state.py``:

* ``Const`` uploads its value once per plan, on the first run, and returns the same
  device array on every later run (kernels never mutate their inputs).
* ``VariableV2`` returns the variable's value as a cupy array on the node's GPU.  A
  value that was set on the host (by a CPU ``Assign``) or on another GPU is copied
  once and stored back, so the variable then lives on its device; ``Assign``,
  ``AssignAdd`` and ``AssignSub`` on the GPU store cupy arrays (``resources._as_array``
  keeps the backend of the value it is given).
* ``RandomUniform`` and ``RandomStandardNormal`` draw on the host from the session's
  seeded numpy stream (the very kernel the CPU runs) and upload, so a seeded graph gives
  the same sequence on the GPU as on the CPU.
"""

from __future__ import annotations

import threading

import cupy
import numpy as np

from devsession.errors import InvalidArgumentError

from ..reference import state as host_state
from ..registry import register_kernel
from .device import on_device, to_device



@register_kernel("Const", "GPU")
def _const(node):
    value = np.asarray(node.attrs["value"])
    uploaded: list = []
    lock = threading.Lock()

    def kernel():
        if not uploaded:
            with lock:
                if not uploaded:
                    uploaded.append(cupy.asarray(value))
        return uploaded[0]
    return on_device(node, kernel)


@register_kernel("NoOp", "GPU")
def _no_op(node):
    return lambda: None


@register_kernel("Placeholder", "GPU")
def _placeholder(node):
    # Plans refuse unfed placeholders before running, so this only runs on misuse.
    def kernel():
        raise InvalidArgumentError(f"You must feed a value for placeholder tensor '{node.name}'.",
                                   node.name)
    return kernel


def _on_this_device(resource, name: str, index: int):
    """The variable's value as a cupy array on GPU ``index``, moving it there once."""
    value = resource.read(name)
    if isinstance(value, cupy.ndarray) and value.device.id == index:
        return value
    moved = to_device(value, index)
    with resource.lock:
        if resource.value is value:
            resource.value = moved
    return moved


@register_kernel("VariableV2", "GPU")
def _variable(node):
    ctx, name, index = node.context, node.name, node.device.index
    return on_device(node, lambda: _on_this_device(ctx.variable_resource(), name, index))


@register_kernel("Assign", "GPU")
def _assign(node):
    ctx, name = node.context, node.name
    validate = node.attrs.get("validate_shape", True)
    return on_device(node, lambda value: ctx.variable_resource().assign(value, name, validate))


@register_kernel(("AssignAdd", "AssignSub"), "GPU")
def _assign_add(node):
    ctx, name, index = node.context, node.name, node.device.index
    subtract = node.op == "AssignSub"

    def kernel(delta):
        resource = ctx.variable_resource()
        _on_this_device(resource, name, index)
        if subtract:
            return resource.assign_sub(delta, name)
        return resource.assign_add(delta, name)
    return on_device(node, kernel)


@register_kernel(("RandomUniform", "RandomStandardNormal"), "GPU")
def _random(node):
    host = host_state.build_random_uniform if node.op == "RandomUniform" else \
        host_state.build_random_normal
    draw = host(node)     # the host kernel and its seeded stream
    return on_device(node, lambda: cupy.asarray(draw()))
