"""State kernels on the GPU: constants, placeholders, variables and seeded random ops.

The GPU twins of ``state_kernels.py`` (registered by ``devsession.kernels.cuda`` under
device type "GPU", so this module imports cupy and is only imported with it):

* ``Const`` uploads its value once per plan, on the first run, and returns the same
  device array on every later run (kernels never mutate their inputs).
* ``VariableV2`` returns the variable's value as a cupy array on the node's GPU.  A
  value that was set on the host (by a CPU ``Assign``) or on another GPU is copied
  once and stored back, so the variable then lives on its device; ``Assign`` and
  ``AssignAdd`` on the GPU store cupy arrays (``resources._as_array`` keeps the
  backend of the value it is given).
* ``RandomUniform`` and ``RandomStandardNormal`` draw on the host from the session's
  seeded numpy stream (the very kernel the CPU runs) and upload, so a seeded graph gives
  the same sequence on the GPU as on the CPU.
"""

from __future__ import annotations

import threading

import cupy
import numpy as np

from ..kernels.cuda_device import device_index, on_device, to_device
from ..kernels.registry import lookup_kernel, register_kernel
from . import state_kernels  # noqa: F401  (registers the host kernels _random draws with)

__all__ = ["register"]


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


def _no_op(node):
    return lambda: None


def _placeholder(node):
    # Plans refuse unfed placeholders before running, so this only runs on misuse.
    def kernel():
        from ..errors import InvalidArgumentError
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


def _variable(node):
    ctx, name, index = node.context, node.name, device_index(node.device)
    return on_device(node, lambda: _on_this_device(ctx.variable_resource(), name, index))


def _assign(node):
    ctx, name = node.context, node.name
    validate = node.attrs.get("validate_shape", True)
    return on_device(node, lambda value: ctx.variable_resource().assign(value, name, validate))


def _assign_add(node):
    ctx, name, index = node.context, node.name, device_index(node.device)

    def kernel(delta):
        resource = ctx.variable_resource()
        _on_this_device(resource, name, index)
        return resource.assign_add(delta, name)
    return on_device(node, kernel)


def _random(node):
    draw = lookup_kernel(node.op, "REF")(node)     # the host kernel and its seeded stream
    return on_device(node, lambda: cupy.asarray(draw()))


BUILDERS = {
    "Const": _const, "NoOp": _no_op, "Placeholder": _placeholder, "VariableV2": _variable,
    "Assign": _assign, "AssignAdd": _assign_add, "RandomUniform": _random,
    "RandomStandardNormal": _random,
}


def register(device_type: str = "GPU") -> None:
    for op, builder in BUILDERS.items():
        register_kernel(op, device_type)(builder)
