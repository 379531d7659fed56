"""Kernels that touch session state rather than compute: constants, placeholders,
variables (with their sparse updates, the Scatter ops, and StridedSliceAssign's writes
of a slice) and seeded random streams, for the reference device and the CPU (``HOST``).
TF1's random ops draw TF's values from the node's Philox stream (``RandomStream``) with
``stateless_random``'s draws; the CPU registers the same builders with its compiled
draws (``cpu/random.py``).

They read the session state they need from ``KernelNode.context``: the runtime's
``StateContext`` (``devsession/runtime/state.py``), which offers ``variable_resource()``
(the node's variable in the session's resource manager) and ``resources.random_stream``.
A variable is looked up on every call, not at plan time, so ``ds.reset`` (which drops
containers) never leaves a plan holding a stale variable.
"""

from __future__ import annotations

import math

import numpy as np

from devsession.errors import InvalidArgumentError

from ..registry import HOST, register_kernel
from . import stateless_random
from ..checks import fmt_shape, invalid_argument
from .array import as_ints
from .array_index import as_table, first_bad_index, nd_rows, nd_updates, strided_resolver


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


@register_kernel(("VariableV2", "_ReadVariable"), HOST)
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


@register_kernel("IsVariableInitialized", HOST)
def build_is_variable_initialized(node):
    ctx = node.context
    return lambda: np.array(ctx.variable_resource().value is not None)


@register_kernel("CountUpTo", HOST)
def build_count_up_to(node):
    ctx, name, limit = node.context, node.name, int(node.attrs["limit"])

    return lambda *_: ctx.variable_resource().count_up_to(limit, name)


@register_kernel("AssignSub", HOST)
def build_assign_sub(node):
    ctx = node.context
    name = node.name
    return lambda delta: ctx.variable_resource().assign_sub(delta, name)


def _shape_of(node):
    """``shape(*inputs)``: the drawn shape, from the ``shape`` attr or, when the graph
    gave it as a tensor, from the op's last input (read on the host)."""
    static = tuple(node.attrs.get("shape", ()))
    if len(node.input_dtypes) in (1, 3):      # RandomX(shape) / RandomUniformInt(lo, hi, shape)
        def from_input(*inputs):
            dims = np.asarray(inputs[-1]).reshape(-1)
            if np.any(dims < 0):
                raise InvalidArgumentError(f"{node.op} node '{node.name}': a shape cannot "
                                           f"have negative dimensions, got {dims.tolist()}",
                                           node.name)
            return tuple(int(d) for d in dims)
        return from_input
    return lambda *inputs: static


def _stream(node):
    a = node.attrs
    return node.context.resources.random_stream(node.name, a["seed"], a["seed2"])


def _philox_kernel(node, draw, finish):
    """A kernel returning ``finish(values)``, ``values`` drawn by ``draw(key, counter,
    count, dtype)`` (``stateless_random``'s) where the node's seeded Philox stream
    stands, which moves ``256 * count`` blocks on under its lock, as TF's
    ``ReserveRandomOutputs(count, 256)`` (room for the truncated normal's rejections):
    TF's values, run after run."""
    stream, shape_of = _stream(node), _shape_of(node)
    dtype = node.output_dtype

    def kernel(*inputs):
        shape = shape_of(*inputs)
        count = math.prod(shape)
        with stream.lock:
            key, counter = stream.reserve(256 * count)
        if count == 0:
            return np.zeros(shape, dtype)
        return finish(draw(key, counter, count, dtype).reshape(shape))
    return kernel


def _in_dtype(node, *attrs):
    """The node's float attrs ``attrs`` as scalars of its dtype: TF1 applies them with
    graph ops on tensors of that dtype (``rnd * stddev + mean``)."""
    scalar = np.dtype(node.output_dtype).type
    return [scalar(node.attrs[name]) for name in attrs]


def _scaled(scale, shift):
    """``values * scale + shift`` in the draw's own (fresh) array: two roundings, as TF1's
    two graph ops."""
    def finish(values):
        values *= scale
        values += shift
        return values
    return finish


def build_random_uniform(node, draws=stateless_random):
    low, high = _in_dtype(node, "minval", "maxval")
    return _philox_kernel(node, draws.uniform, _scaled(high - low, low))


def build_random_normal(node, draws=stateless_random):
    mean, stddev = _in_dtype(node, "mean", "stddev")
    return _philox_kernel(node, draws.normal, _scaled(stddev, mean))


def build_truncated_normal(node, draws=stateless_random):
    """Standard normals within two standard deviations (TF's draw, rejections and all),
    then scaled by the ``stddev`` and ``mean`` attrs."""
    mean, stddev = _in_dtype(node, "mean", "stddev")
    return _philox_kernel(node, draws.truncated_normal, _scaled(stddev, mean))


def build_random_uniform_int(node, draws=stateless_random):
    """``lo + bits % (hi - lo)`` as TF's; an empty output checks no bounds' order."""
    stream, shape_of = _stream(node), _shape_of(node)
    dtype = node.output_dtype

    def kernel(low, high, *shape_input):
        shape = shape_of(low, high, *shape_input)
        count = math.prod(shape)
        bounds = stateless_random.int_bounds(node, np.asarray(low), np.asarray(high), count)
        if count == 0:
            return np.zeros(shape, dtype)
        with stream.lock:
            key, counter = stream.reserve(256 * count)
        return draws.uniform_int(key, counter, count, dtype, *bounds).reshape(shape)
    return kernel


def build_random_shuffle(node, draws=stateless_random):
    """TF's shuffle of the first dimension, from ``size - 1`` 32-bit samples of the
    stream (four to a block)."""
    stream = _stream(node)

    def kernel(x):
        if x.ndim == 0 or x.size <= 1 or x.shape[0] <= 1:
            return x.copy()
        with stream.lock:
            key, counter = stream.reserve(-(-(x.shape[0] - 1) // 4))
        return stateless_random.shuffle(x, key, counter, draws.blocks)
    return kernel


DRAW_BUILDERS = {"RandomUniform": build_random_uniform,
                 "RandomStandardNormal": build_random_normal,
                 "TruncatedNormal": build_truncated_normal,
                 "RandomUniformInt": build_random_uniform_int,
                 "RandomShuffle": build_random_shuffle}
register_kernel(tuple(DRAW_BUILDERS), "REF")(lambda node: DRAW_BUILDERS[node.op](node))


# --- ScatterUpdate/Add/Sub and their Nd forms: sparse updates in place ---------------------------

ROW_SCATTERS = ("ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv",
                "ScatterMin", "ScatterMax")
ND_SCATTERS = ("ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub")


def scatter_kernel(node, xp, scatter_rows, prepare=None):
    """The kernel of a variable scatter op over array module ``xp``: under the
    variable's lock, its indices checked (nothing changes when one is bad), then
    ``scatter_rows(table, rows, values, op)`` changes the rows of the variable's table
    view in place (copy-on-write, as the optimizers' updates: ``updatable``).
    ``prepare(resource)`` runs first (the GPU moves the variable to its device)."""
    ctx, name, nd = node.context, node.name, node.op in ND_SCATTERS
    op = node.op.replace("Nd", "")

    def kernel(indices, updates):
        resource = ctx.variable_resource()
        if prepare is not None:
            prepare(resource)
        with resource.lock:
            value = resource.updatable(name)
            if nd:
                rows = nd_rows(node, xp, indices, value.shape)
                values = nd_updates(node, updates, indices, value.shape)
                table = as_table(value, indices.shape[-1])
            else:
                rows, values, table = _row_targets(node, xp, value, indices, updates)
            scatter_rows(table, rows, values, op)
            return value
    return kernel


def _row_targets(node, xp, value, indices, updates):
    if value.ndim == 0:
        raise InvalidArgumentError(f"{node.op} node '{node.name}': the variable is a "
                                   f"scalar; it has no rows.", node.name)
    rows = indices.reshape(-1)
    n = value.shape[0]
    if rows.size:
        bad = (rows < 0) | (rows >= n)
        if bad.any():
            raise first_bad_index(node, indices, int(xp.argmax(bad)), n)
    expected = indices.shape + value.shape[1:]
    if updates.shape != expected:
        raise InvalidArgumentError(
            f"{node.op} node '{node.name}': updates must have shape {list(expected)} "
            f"(indices.shape + the variable's shape[1:]), got {list(updates.shape)}.",
            node.name)
    if node.op == "ScatterDiv" and updates.dtype.kind in "iu" and bool((updates == 0).any()):
        # TF's resource ScatterDiv (its ref one dies of SIGFPE), before any row changes
        raise InvalidArgumentError(f"{node.op} node '{node.name}': updates must not contain 0",
                                   node.name)
    inner = int(np.prod(value.shape[1:], dtype=np.int64))
    return rows, updates.reshape(rows.size, inner), value.reshape(n, inner)


def _numpy_rows(table, rows, values, op: str) -> None:
    if op == "ScatterUpdate":
        table[rows] = values
    elif op in ("ScatterAdd", "ScatterSub"):
        np.add.at(table, rows, values if op == "ScatterAdd" else -values)
    else:
        combine_rows(table, rows, values, op)


def combine_rows(table, rows, values, op: str) -> None:
    """ScatterMul/Div/Min/Max on numpy rows: each update combined in turn with its row
    (``ufunc.at``: repeated rows take every update); integer division truncated toward
    zero, as TF's C++."""
    if op == "ScatterDiv" and table.dtype.kind in "iu":
        for row, value in zip(rows.tolist(), values):
            table[row] = truncated_divide(table[row], value)
        return
    ufunc = {"ScatterMul": np.multiply, "ScatterDiv": np.divide, "ScatterMin": np.minimum,
             "ScatterMax": np.maximum}[op]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # inf/nan, as TF's
        ufunc.at(table, rows, values)


def truncated_divide(a, b):
    """``a / b`` for integers, rounded toward zero (C++'s, not Python's floor)."""
    quotient = np.floor_divide(a, b)
    inexact = (quotient * b != a) & ((a < 0) != (b < 0))
    return quotient + inexact.astype(quotient.dtype)


@register_kernel(ROW_SCATTERS + ND_SCATTERS, HOST)
def build_scatter(node):
    return scatter_kernel(node, np, _numpy_rows)


# --- StridedSliceAssign: a strided slice of a variable written in place ------------------------

def strided_slice_assign_kernel(node, xp, prepare=None):
    """The kernel of StridedSliceAssign over array module ``xp``: under the variable's
    lock, ``value`` broadcast to the slice's shape (else TF's InvalidArgumentError, the
    variable unchanged) is written into the slice of its updatable array, which the op
    returns.  ``prepare(resource)`` runs first (the GPU moves the variable there)."""
    ctx, name, spec_for = node.context, node.name, strided_resolver(node)

    def kernel(begin, end, strides, value):
        resource = ctx.variable_resource()
        if prepare is not None:
            prepare(resource)
        with resource.lock:
            table = resource.updatable(name)
            spec = spec_for(table.shape, as_ints(begin), as_ints(end), as_ints(strides))
            try:
                value = xp.broadcast_to(value, spec.final_shape)
            except ValueError:
                raise invalid_argument(name, node.op, f"Cannot broadcast input shape "
                                       f"{fmt_shape(value.shape)} into final shape "
                                       f"{fmt_shape(spec.final_shape)}") from None
            table[spec.index + (Ellipsis,)] = value.reshape(spec.sliced_shape)
            return table
    return kernel


@register_kernel("StridedSliceAssign", HOST)
def build_strided_slice_assign(node):
    return strided_slice_assign_kernel(node, np)
