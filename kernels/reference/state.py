"""Kernels that touch session state rather than compute: constants, placeholders,
variables and seeded random streams, for the reference device and the CPU (``HOST``).

They read the session state they need from ``KernelNode.context``: the runtime's
``StateContext`` (``devsession/runtime/state.py``), which offers ``variable_resource()``
(the node's variable in the session's resource manager) and ``resources.random_stream``.
A variable is looked up on every call, not at plan time, so ``ds.reset`` (which drops
containers) never leaves a plan holding a stale variable.
"""

from __future__ import annotations

from devsession.errors import InvalidArgumentError

from ..registry import HOST, register_kernel


@register_kernel("Const", HOST)
def build_const(node):
    value = node.attrs["value"]
    return lambda: value


@register_kernel("NoOp", HOST)
def build_no_op(node):
    return lambda: None


@register_kernel("Placeholder", HOST)
def build_placeholder(node):
    # Plans refuse unfed placeholders before running, so this only runs on misuse.
    def kernel():
        raise InvalidArgumentError(f"You must feed a value for placeholder tensor "
                                   f"'{node.name}'.", node.name)
    return kernel


@register_kernel("VariableV2", HOST)
def build_variable(node):
    ctx = node.context
    name = node.name
    return lambda: ctx.variable_resource().read(name)


@register_kernel("Assign", HOST)
def build_assign(node):
    ctx = node.context
    name, validate = node.name, node.attrs.get("validate_shape", True)
    return lambda value: ctx.variable_resource().assign(value, name, validate)


@register_kernel("AssignAdd", HOST)
def build_assign_add(node):
    ctx = node.context
    name = node.name
    return lambda delta: ctx.variable_resource().assign_add(delta, name)


@register_kernel("AssignSub", HOST)
def build_assign_sub(node):
    ctx = node.context
    name = node.name
    return lambda delta: ctx.variable_resource().assign_sub(delta, name)


@register_kernel("RandomUniform", HOST)
def build_random_uniform(node):
    ctx = node.context
    a = node.attrs
    stream = ctx.resources.random_stream(node.name, a["seed"], a["seed2"])
    shape, dtype, low, high = tuple(a["shape"]), node.output_dtype, a["minval"], a["maxval"]

    def kernel():
        with stream.lock:
            return stream.generator.uniform(low, high, shape).astype(dtype)
    return kernel


@register_kernel("RandomStandardNormal", HOST)
def build_random_normal(node):
    ctx = node.context
    a = node.attrs
    stream = ctx.resources.random_stream(node.name, a["seed"], a["seed2"])
    shape, dtype, mean, stddev = tuple(a["shape"]), node.output_dtype, a["mean"], a["stddev"]

    def kernel():
        with stream.lock:
            return (stream.generator.standard_normal(shape) * stddev + mean).astype(dtype)
    return kernel
