"""State kernels on the GPU: constants, placeholders, variables and seeded random ops.

The GPU twins of ``reference/state.py``:

* ``Const`` uploads its value once per plan, on the first run, and returns the same
  device array on every later run (kernels never mutate their inputs).
* ``VariableV2`` returns the variable's value as a cupy array on the node's GPU.  A
  value that was set on the host (by a CPU ``Assign``) or on another GPU is copied
  once and stored back, so the variable then lives on its device; ``Assign``,
  ``AssignAdd`` and ``AssignSub`` on the GPU store cupy arrays (``resources._as_array``
  keeps the backend of the value it is given); the Scatter ops and StridedSliceAssign
  write into it in place there (``reference/state.py``'s kernels over cupy).
* The random ops draw on the host from the session's seeded numpy stream (the very
  kernel the CPU runs; their shape and bounds inputs are host inputs) and upload, so a
  seeded graph gives the same sequence on the GPU as on the CPU.
"""

from __future__ import annotations

import threading

import cupy
import numpy as np

from devsession.errors import InvalidArgumentError

from ..reference import state as host_state
from ..registry import register_kernel
from .array import add_rows
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


@register_kernel(("VariableV2", "_ReadVariable"), "GPU")
def _variable(node):
    ctx, name, index = node.context, node.name, node.device.index
    return on_device(node, lambda: _on_this_device(ctx.variable_resource(), name, index))


@register_kernel("IsVariableInitialized", "GPU")
def _is_variable_initialized(node):
    ctx = node.context
    return on_device(node, lambda: cupy.asarray(ctx.variable_resource().value is not None))


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


@register_kernel(("RandomUniform", "RandomStandardNormal", "TruncatedNormal",
                  "RandomUniformInt"), "GPU")
def _random(node):
    from ..cpu.random import build_draw     # the CPU's kernel and the node's seeded stream
    draw = build_draw(node)
    return on_device(node, lambda *shape_and_bounds: cupy.asarray(draw(*shape_and_bounds)))


@register_kernel("RandomShuffle", "GPU")
def _random_shuffle(node):
    from ..cpu.random import build_draw     # the CPU's permutation, uploaded
    shuffle = build_draw(node)
    return on_device(node, lambda x: cupy.asarray(shuffle(cupy.asnumpy(x))))


# --- the variable scatters: the host's frame, the rows changed on the device -------------------

def _device_rows(table, rows, values, op: str) -> None:
    """The rows of ``table`` (a view of the variable) written, or added to by the
    segment-sum kernel (repeated rows accumulate; float16 through float32)."""
    if op == "ScatterUpdate":
        table[rows] = values
        return
    if op not in ("ScatterAdd", "ScatterSub"):
        _combine_on_host(table, rows, values, op)
        return
    total = add_rows(table, rows, -values if op == "ScatterSub" else values)
    if total is not table:
        table[...] = total


def _combine_on_host(table, rows, values, op: str) -> None:
    """ScatterMul/Div/Min/Max: the rows they touch, combined in order by the host's
    kernel and written back (cupy has no in-order multiply or divide of repeated rows;
    these ops are rare enough that one round trip of the touched rows is the clear way)."""
    rows = cupy.asnumpy(rows)
    touched, where = np.unique(rows, return_inverse=True)
    block = cupy.asnumpy(table[touched])
    host_state.combine_rows(block, where.reshape(-1), cupy.asnumpy(values), op)
    table[touched] = cupy.asarray(block)


@register_kernel(host_state.ROW_SCATTERS + host_state.ND_SCATTERS, "GPU")
def _scatter(node):
    name, index = node.name, node.device.index
    return on_device(node, host_state.scatter_kernel(
        node, cupy, _device_rows, prepare=lambda resource: _on_this_device(resource, name,
                                                                           index)))


@register_kernel("StridedSliceAssign", "GPU")
def _strided_slice_assign(node):
    name, index = node.name, node.device.index
    return on_device(node, host_state.strided_slice_assign_kernel(
        node, cupy, prepare=lambda resource: _on_this_device(resource, name, index)))
