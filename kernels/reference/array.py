"""Data-movement kernels for every device: Identity, Reshape, Transpose, ConcatV2,
Squeeze, ExpandDims, Pack, Unpack, Tile, Pad, PadV2, MirrorPad, MirrorPadGrad, Shape,
Size, Rank, Fill, ZerosLike, OnesLike and BroadcastTo.

These ops do no arithmetic, so the array library's own copy/view machinery is both the
reference and the fastest implementation: a numba loop would only re-implement memcpy
(Tile, for one, is a single strided copy: the input viewed with a size-1 axis before
each of its axes, broadcast to the multiples, copied once).  This module registers the
numpy builders for the reference device and the CPU (``HOST``); ``cuda/array.py``
registers ``make_builders(cupy, on_device)``, so the checks and messages are the same
on every device.  Shapes, multiples, paddings and axes given as inputs are host arrays
(``OpDef.host_inputs``) on every device.

Views: Identity, Reshape, Squeeze and ExpandDims return a view of their input when they
can (the kernel contract allows it, since inputs are never mutated; the plan copies a
fetched view, ``runtime/plan.py: ALIASING_OPS``); every other kernel returns a new array
(Transpose of a contiguous input by the identity permutation excepted).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..checks import fmt_shape, get_attr, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["make_builders", "as_ints", "on_host"]


def _as_is(node, fn):
    return fn


def on_host(values) -> np.ndarray:
    """A host input (shape, axis, paddings...) as a numpy array.  The session hands
    these over on the host (``OpDef.host_inputs``); a device array (a kernel called
    directly, as tests do) is copied down."""
    return np.asarray(values.get() if hasattr(values, "get") else values)


def as_ints(values) -> tuple:
    """A host int array (a shape, multiples...) as a tuple of Python ints."""
    return tuple(int(v) for v in on_host(values).reshape(-1))


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders for array module ``xp`` (numpy or cupy); ``wrap(node, fn)`` wraps
    every kernel that allocates (the GPU's ``on_device``: device switch, OOM mapping)."""
    def wrapped(make):
        return lambda node: wrap(node, make(node, xp))

    builders = {"Identity": build_identity, "StopGradient": build_identity,
                "PlaceholderWithDefault": build_identity,
                "Reshape": wrapped(_reshape),
                "Squeeze": wrapped(_squeeze), "ExpandDims": wrapped(_expand_dims)}
    for op, make in (("Transpose", _transpose), ("ConcatV2", _concat), ("Pack", _pack),
                     ("Unpack", _unpack), ("Split", _split), ("SplitV", _split_v),
                     ("Tile", _tile), ("Pad", _pad), ("PadV2", _pad),
                     ("MirrorPad", _mirror_pad), ("MirrorPadGrad", _mirror_pad_grad),
                     ("Shape", _shape), ("Size", _size),
                     ("Rank", _rank), ("Fill", _fill), ("ZerosLike", _zeros_like),
                     ("OnesLike", _ones_like), ("BroadcastTo", _broadcast_to)):
        builders[op] = wrapped(make)
    return builders


def build_identity(node):
    def identity(x):
        return x.view()
    return identity


# --- reshapes (views) -------------------------------------------------------------------------

def _check_target(node, target: tuple) -> tuple:
    if sum(1 for d in target if d == -1) > 1 or any(d < -1 for d in target):
        raise invalid_argument(node.name, node.op, f"invalid target shape {fmt_shape(target)}")
    return target


def _reshape(node, xp):
    # one input: the target is the 'shape' attr; two (TF's form): the second input
    fixed = _check_target(node, tuple(int(d) for d in get_attr(node, "shape"))) \
        if len(node.input_dtypes) == 1 else None

    def reshape(x, shape=None):
        target = fixed if shape is None else _check_target(node, as_ints(shape))
        try:
            return x.reshape(target)
        except ValueError:
            raise invalid_argument(
                node.name, node.op, f"cannot reshape a tensor of shape {fmt_shape(x.shape)} "
                f"({x.size} elements) into shape {fmt_shape(target)}") from None
    return reshape      # a non-contiguous input is copied (on its GPU, for cupy)


def _squeeze(node, xp):
    axes = tuple(int(a) for a in node.attrs.get("squeeze_dims", ()))

    def squeeze(x):
        for a in axes:
            if not -x.ndim <= a < x.ndim:
                raise invalid_argument(node.name, node.op, f"tried to squeeze dim index {a} "
                                       f"for a tensor of shape {fmt_shape(x.shape)}")
            if x.shape[a] != 1:
                raise invalid_argument(node.name, node.op, f"can not squeeze dim[{a % x.ndim}],"
                                       f" expected a dimension of 1, got {x.shape[a]}")
        if not axes:
            return x.reshape(tuple(d for d in x.shape if d != 1))
        drop = {a % x.ndim for a in axes}
        return x.reshape(tuple(d for i, d in enumerate(x.shape) if i not in drop))
    return squeeze


def _expand_dims(node, xp):
    def expand_dims(x, dim):
        values = as_ints(dim)
        if len(values) != 1 or not -x.ndim - 1 <= values[0] <= x.ndim:
            raise invalid_argument(node.name, node.op, f"dim {list(values)} is not a single "
                                   f"index in [{-x.ndim - 1}, {x.ndim}] for a tensor of "
                                   f"shape {fmt_shape(x.shape)}")
        at = values[0] % (x.ndim + 1)
        return x.reshape(x.shape[:at] + (1,) + x.shape[at:])
    return expand_dims


# --- copies -----------------------------------------------------------------------------------

def _transpose(node, xp):
    perm = tuple(int(p) for p in get_attr(node, "perm"))
    if sorted(perm) != list(range(len(perm))):
        raise invalid_argument(node.name, node.op, f"perm {perm} is not a permutation")

    def transpose(x):
        if x.ndim != len(perm):
            raise invalid_argument(
                node.name, node.op, f"perm {perm} does not match an input of shape "
                f"{fmt_shape(x.shape)}")
        return x.transpose(perm).copy()     # a new array even for the identity perm
    return transpose


def _check_same_shapes(node, xs, what: str):
    first = xs[0].shape
    if any(x.shape != first for x in xs):
        raise invalid_argument(node.name, node.op, f"{what} must all have the same shape, "
                               f"got {', '.join(fmt_shape(x.shape) for x in xs)}")


def _concat(node, xp):
    axis = int(get_attr(node, "axis"))
    dtype = node.output_dtype

    def concat(*xs):
        first = xs[0].shape
        at = axis + len(first) if axis < 0 else axis    # negative: inputs of unknown rank
        ok = 0 <= at < len(first) and all(
            x.ndim == len(first)
            and all(a == b for d, (a, b) in enumerate(zip(x.shape, first)) if d != at)
            for x in xs)
        if not ok:
            raise invalid_argument(
                node.name, node.op, f"cannot concatenate along axis {axis} inputs of "
                f"shapes {', '.join(fmt_shape(x.shape) for x in xs)}")
        return xp.concatenate(xs, axis=at, dtype=dtype)
    return concat


def _pack(node, xp):
    axis = int(node.attrs.get("axis", 0))

    def pack(*xs):
        _check_same_shapes(node, xs, "the values to stack")
        rank = xs[0].ndim + 1
        if not -rank <= axis < rank:
            raise invalid_argument(node.name, node.op, f"axis {axis} is out of range for "
                                   f"stacking values of shape {fmt_shape(xs[0].shape)}")
        return xp.stack(xs, axis=axis)
    return pack


def _unpack(node, xp):
    axis = int(node.attrs.get("axis", 0))
    num = len(node.output_dtypes) or node.attrs.get("num")

    def unpack(x):
        if not -x.ndim <= axis < x.ndim or (num is not None and x.shape[axis] != num):
            raise invalid_argument(node.name, node.op, f"cannot unstack a tensor of shape "
                                   f"{fmt_shape(x.shape)} into {num} values along axis "
                                   f"{axis}")
        lead = (slice(None),) * (axis % x.ndim)
        return tuple(x[lead + (k,)].copy() for k in range(x.shape[axis]))
    return unpack


def _split_parts(node, x, dim, sizes):
    """Copies of ``x``'s consecutive parts of ``sizes`` along axis ``dim``."""
    axis = as_ints(dim)
    if len(axis) != 1 or not -x.ndim <= axis[0] < x.ndim:
        raise invalid_argument(node.name, node.op, f"split_dim {list(axis)} must be a scalar "
                               f"in [{-x.ndim}, {x.ndim}) for a tensor of shape "
                               f"{fmt_shape(x.shape)}")
    axis = axis[0] % x.ndim
    lead, start, parts = (slice(None),) * axis, 0, []
    for size in sizes:
        parts.append(x[lead + (slice(start, start + size),)].copy())
        start += size
    return tuple(parts)


def _split(node, xp):
    num = int(node.attrs["num_split"])

    def split(dim, x):
        axis = as_ints(dim)
        size = x.shape[axis[0]] if len(axis) == 1 and -x.ndim <= axis[0] < x.ndim else 0
        if size % num:
            raise invalid_argument(node.name, node.op, f"Number of ways to split should "
                                   f"evenly divide the split dimension, but got split_dim "
                                   f"{axis[0]} (size = {size}) and num_split {num}")
        return _split_parts(node, x, dim, [size // num] * num)
    return split


def _split_v(node, xp):
    num = int(node.attrs["num_split"])

    def split_v(x, size_splits, dim):
        sizes = list(as_ints(size_splits))
        axis = as_ints(dim)
        size = x.shape[axis[0]] if len(axis) == 1 and -x.ndim <= axis[0] < x.ndim else 0
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = size - sum(s for s in sizes if s != -1)
        if len(sizes) != num or any(s < 0 for s in sizes) or sum(sizes) != size:
            raise invalid_argument(node.name, node.op, f"Determined shape must either match "
                                   f"input shape along split_dim exactly if fully "
                                   f"specified, or be less than the size of the input "
                                   f"along split_dim if not fully specified.  Got: "
                                   f"{list(as_ints(size_splits))} for {num} parts of "
                                   f"{fmt_shape(x.shape)} along {list(axis)}")
        return _split_parts(node, x, dim, sizes)
    return split_v


def _tile(node, xp):
    def tile(x, multiples):
        m = as_ints(multiples)
        if len(m) != x.ndim or any(k < 0 for k in m):
            raise invalid_argument(node.name, node.op, f"multiples {list(m)} must be "
                                   f"{x.ndim} non-negative ints for an input of shape "
                                   f"{fmt_shape(x.shape)}")
        spread = x.reshape(tuple(v for d in x.shape for v in (1, d)))
        repeated = xp.broadcast_to(spread, tuple(v for k, d in zip(m, x.shape)
                                                 for v in (k, d)))
        return repeated.copy().reshape(tuple(k * d for k, d in zip(m, x.shape)))
    return tile


def _paddings(node, x, paddings) -> list:
    p = on_host(paddings)
    if p.shape != (x.ndim, 2) or (p.size and p.min() < 0):
        raise invalid_argument(node.name, node.op, f"paddings must be a non-negative "
                               f"[{x.ndim}, 2] matrix for an input of shape "
                               f"{fmt_shape(x.shape)}, got {p.tolist()}")
    return [(int(a), int(b)) for a, b in p]


def _pad(node, xp):
    def pad(x, paddings, value=0):       # value: PadV2's constant_values (a 0-d array)
        pairs = _paddings(node, x, paddings)
        shape = tuple(d + a + b for d, (a, b) in zip(x.shape, pairs))
        if getattr(value, "ndim", 0):
            raise invalid_argument(node.name, node.op, f"constant_values must be a scalar, "
                                   f"got shape {fmt_shape(value.shape)}")
        out = xp.empty(shape, x.dtype)
        out[...] = value
        out[tuple(slice(a, a + d) for d, (a, _) in zip(x.shape, pairs))] = x
        return out
    return pad


def _mirror_checks(node):
    """(REFLECT's offset 1 or SYMMETRIC's 0, a paddings check for an input shape)."""
    mode = get_attr(node, "mode")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise invalid_argument(node.name, node.op, f"mode must be REFLECT or SYMMETRIC, "
                               f"got {mode!r}")
    offset = 1 if mode == "REFLECT" else 0

    def check(shape, pairs):
        for i, (d, pair) in enumerate(zip(shape, pairs)):
            if max(pair) > d - offset:
                raise invalid_argument(node.name, node.op, f"{mode} paddings {list(pair)} "
                                       f"of dimension {i} must be at most {d - offset} for "
                                       f"an input of shape {fmt_shape(shape)}")
    return offset, check


def _along(axis: int, lo, hi) -> tuple:
    return (slice(None),) * axis + (slice(lo, hi),)


def _mirror_pad(node, xp):
    # Axis by axis: [mirror of the first a | x | mirror of the last b], where REFLECT
    # leaves out the edge element (offset 1) and SYMMETRIC repeats it.
    offset, check = _mirror_checks(node)

    def mirror_pad(x, paddings):
        pairs = _paddings(node, x, paddings)
        check(x.shape, pairs)
        out = x
        for axis, (a, b) in enumerate(pairs):
            if a or b:
                d = out.shape[axis]
                out = xp.concatenate([
                    xp.flip(out[_along(axis, offset, offset + a)], axis), out,
                    xp.flip(out[_along(axis, d - offset - b, d - offset)], axis)], axis=axis)
        return out.copy() if out is x else out
    return mirror_pad


def _mirror_pad_grad(node, xp):
    # The adjoint of mirror_pad, axis by axis in reverse: the middle block, plus each
    # mirrored block flipped back onto the elements it copied.
    offset, check = _mirror_checks(node)

    def mirror_pad_grad(dy, paddings):
        p = on_host(paddings)
        if p.shape != (dy.ndim, 2) or (p.size and p.min() < 0) or any(
                a + b > d for d, (a, b) in zip(dy.shape, p.tolist())):
            raise invalid_argument(node.name, node.op, f"paddings {p.tolist()} do not fit "
                                   f"a gradient of shape {fmt_shape(dy.shape)}")
        pairs = [(int(a), int(b)) for a, b in p]
        check(tuple(d - a - b for d, (a, b) in zip(dy.shape, pairs)), pairs)
        dx = dy
        for axis in reversed(range(dy.ndim)):
            a, b = pairs[axis]
            if not (a or b):
                continue
            d = dx.shape[axis] - a - b
            middle = dx[_along(axis, a, a + d)].copy()
            middle[_along(axis, offset, offset + a)] += xp.flip(dx[_along(axis, 0, a)], axis)
            middle[_along(axis, d - offset - b, d - offset)] += xp.flip(
                dx[_along(axis, a + d, a + d + b)], axis)
            dx = middle
        return dx.copy() if dx is dy else dx
    return mirror_pad_grad


# --- shapes and filled tensors ---------------------------------------------------------------

def _shape(node, xp):
    dtype = node.output_dtype
    return lambda x: xp.asarray(np.array(x.shape, dtype))


def _size(node, xp):
    dtype = node.output_dtype
    return lambda x: xp.asarray(np.array(math.prod(x.shape), dtype))


def _rank(node, xp):
    return lambda x: xp.asarray(np.array(x.ndim, np.int32))


def _fill(node, xp):
    def fill(dims, value):
        shape = as_ints(dims)
        if on_host(dims).ndim != 1 or any(d < 0 for d in shape) or getattr(value, "ndim", 0):
            raise invalid_argument(node.name, node.op, f"dims must be a vector of "
                                   f"non-negative ints and value a scalar, got dims "
                                   f"{on_host(dims).tolist()} and a value of shape "
                                   f"{fmt_shape(getattr(value, 'shape', ()))}")
        out = xp.empty(shape, value.dtype)
        out[...] = value
        return out
    return fill


def _zeros_like(node, xp):
    def zeros_like(x):
        if x.dtype == object:                  # strings: TF's zero is b""
            return np.full(x.shape, b"", dtype=object)
        return xp.zeros(x.shape, x.dtype)
    return zeros_like


def _ones_like(node, xp):
    return lambda x: xp.ones(x.shape, x.dtype)


def _broadcast_to(node, xp):
    def broadcast_to(x, shape):
        target = as_ints(shape)
        fits = x.ndim <= len(target) and all(
            d in (1, t) for d, t in zip(reversed(x.shape), reversed(target)))
        if not fits or any(t < 0 for t in target):
            raise invalid_argument(node.name, node.op, f"unable to broadcast tensor of shape "
                                   f"{fmt_shape(x.shape)} to tensor of shape "
                                   f"{fmt_shape(target)}")
        return xp.broadcast_to(x, target).copy()
    return broadcast_to


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)

