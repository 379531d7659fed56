"""Kernels that touch session state rather than compute: constants, placeholders,
variables and seeded random streams.

They are registered like any other kernel, under (op, "CPU") and (op, "REF"), and read
the session state they need from ``KernelNode.context`` (a ``StateContext``), so the
executor treats them like every other kernel.  A variable is looked up in the resource
manager on every call, not at plan time, so ``ds.reset`` (which drops containers) never
leaves a plan holding a stale variable.
"""

from __future__ import annotations

import dataclasses

from ..kernels.registry import register_kernel
from .resources import ResourceMgr

__all__ = ["StateContext"]

HOST_DEVICE_TYPES = ("CPU", "REF")


@dataclasses.dataclass(frozen=True)
class StateContext:
    """Session state a kernel may use: the resource manager, and for ops on a variable
    (VariableV2 itself, Assign, AssignAdd) the variable's key."""

    resources: ResourceMgr
    variable: tuple | None = None    # (container, name, np.dtype, shape)

    def variable_resource(self):
        container, name, dtype, shape = self.variable
        return self.resources.variable(container, name, dtype, shape)


def _register(op_type: str):
    def wrap(builder):
        for device_type in HOST_DEVICE_TYPES:
            register_kernel(op_type, device_type)(builder)
        return builder
    return wrap


@_register("Const")
def _const(node):
    value = node.attrs["value"]
    return lambda: value


@_register("NoOp")
def _no_op(node):
    return lambda: None


@_register("Placeholder")
def _placeholder(node):
    # Plans refuse unfed placeholders before running, so this only runs on misuse.
    def kernel():
        from ..errors import InvalidArgumentError
        raise InvalidArgumentError(f"You must feed a value for placeholder tensor '{node.name}'.",
                                   node.name)
    return kernel


@_register("VariableV2")
def _variable(node):
    ctx: StateContext = node.context
    name = node.name
    return lambda: ctx.variable_resource().read(name)


@_register("Assign")
def _assign(node):
    ctx: StateContext = node.context
    name, validate = node.name, node.attrs.get("validate_shape", True)
    return lambda value: ctx.variable_resource().assign(value, name, validate)


@_register("AssignAdd")
def _assign_add(node):
    ctx: StateContext = node.context
    name = node.name
    return lambda delta: ctx.variable_resource().assign_add(delta, name)


@_register("RandomUniform")
def _random_uniform(node):
    ctx: StateContext = node.context
    a = node.attrs
    stream = ctx.resources.random_stream(node.name, a["seed"], a["seed2"])
    shape, dtype, low, high = tuple(a["shape"]), node.output_dtype, a["minval"], a["maxval"]

    def kernel():
        with stream.lock:
            return stream.generator.uniform(low, high, shape).astype(dtype)
    return kernel


@_register("RandomStandardNormal")
def _random_normal(node):
    ctx: StateContext = node.context
    a = node.attrs
    stream = ctx.resources.random_stream(node.name, a["seed"], a["seed2"])
    shape, dtype, mean, stddev = tuple(a["shape"]), node.output_dtype, a["mean"], a["stddev"]

    def kernel():
        with stream.lock:
            return (stream.generator.standard_normal(shape) * stddev + mean).astype(dtype)
    return kernel


def variable_key(op) -> tuple:
    """(container, name, dtype, shape) of a VariableV2 op."""
    attrs = op.attrs
    return (attrs.get("container", ""), attrs.get("shared_name") or op.name,
            attrs["dtype"].np, attrs["shape"].dims)


__all__ += ["variable_key"]
