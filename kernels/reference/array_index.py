"""Slicing and gathering kernels: Slice, StridedSlice, StridedSliceGrad, GatherV2 and
GatherNd for every device (``make_index_builders(xp, wrap)``: numpy for the reference
and the CPU here, cupy in ``cuda/array.py``), TensorScatterUpdate for the host, and the
numpy references of the ops that compute: UnsortedSegmentSum, OneHot, AddN, ScatterNd
and TensorScatterAdd/Sub (their CPU kernels are numba and a generated loop,
``cpu/array.py``).

The ``*Nd`` ops see their tensor as a table of ``prod(shape[:K])`` rows of
``prod(shape[K:])`` elements: ``nd_rows`` turns the coordinates into row numbers
(checked, on every device, against the shape), after which GatherNd is a ``take`` of
rows and the scatters write or add rows (``np.add.at`` here: repeated rows add up).

Slices resolve their spec with ``kernels/slicing.py`` (TF's rules; a spec is remembered
per input shape and begin/end/strides values, so a step pays for it once) and copy
``x[spec.index]``, so the result never aliases the input.  Index checks are TF's CPU
checks, on every device: a gather index outside ``[0, n)`` or a segment id
``>= num_segments`` is ``InvalidArgumentError`` naming the node and the first bad
position (``indices[1,0] = 7 is not in [0, 5)``); negative segment ids are dropped; a
one-hot index outside ``[0, depth)`` makes an all-off row.  float16 sums (AddN,
UnsortedSegmentSum) accumulate in float32 and round once, as the generated loops do.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import fmt_shape, invalid_argument, to_float16
from ..plan_cache import remember
from ..registry import HOST, register_kernel
from ..slicing import MASKS, SliceError, slice_spec, strided_slice_spec
from .array import as_ints, on_host

__all__ = ["make_index_builders", "check_gather", "first_bad_index", "check_segment_ids",
           "segment_range_error",
           "one_hot_axis", "check_add_n", "make_add_n_builder", "nd_rows", "nd_updates",
           "scatter_shape", "as_table", "strided_resolver"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _as_is(node, fn):
    return fn


def make_index_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """Slice, StridedSlice, StridedSliceGrad, GatherV2 and GatherNd over array module
    ``xp``."""
    def wrapped(make):
        return lambda node: wrap(node, make(node, xp))

    return {"Slice": wrapped(_slice), "StridedSlice": wrapped(_strided_slice),
            "StridedSliceGrad": wrapped(_strided_slice_grad), "GatherV2": wrapped(_gather),
            "GatherNd": wrapped(_gather_nd)}


def _remembered(node, resolve):
    """``resolve(*key)`` remembered per key, its SliceError an InvalidArgumentError."""
    specs: dict = {}

    def spec_for(*key):
        spec = specs.get(key)
        if spec is None:
            try:
                spec = resolve(*key)
            except SliceError as e:
                raise invalid_argument(node.name, node.op, str(e)) from None
            remember(specs, key, spec)
        return spec
    return spec_for


def _slice(node, xp):
    spec_for = _remembered(node, slice_spec)

    def slice_(x, begin, size):
        spec = spec_for(x.shape, as_ints(begin), as_ints(size))
        return x[spec.index].copy()
    return slice_


def strided_resolver(node):
    """``spec_for(shape, begin, end, strides)``: the node's strided-slice spec (its masks),
    remembered per key; a bad spec is the node's InvalidArgumentError."""
    masks = {m: int(node.attrs.get(m, 0)) for m in MASKS}
    return _remembered(node, lambda shape, b, e, s: strided_slice_spec(shape, b, e, s, **masks))


def _strided_slice(node, xp):
    spec_for = strided_resolver(node)

    def strided_slice(x, begin, end, strides):
        spec = spec_for(x.shape, as_ints(begin), as_ints(end), as_ints(strides))
        return x[spec.index + (Ellipsis,)].copy().reshape(spec.final_shape)
    return strided_slice


def _strided_slice_grad(node, xp):
    spec_for = strided_resolver(node)

    def strided_slice_grad(shape, begin, end, strides, dy):
        dims = as_ints(shape)
        spec = spec_for(dims, as_ints(begin), as_ints(end), as_ints(strides))
        if dy.shape != spec.final_shape:
            raise invalid_argument(node.name, node.op, f"the gradient has shape "
                                   f"{fmt_shape(dy.shape)}, but the slice of a tensor of "
                                   f"shape {fmt_shape(dims)} has shape "
                                   f"{fmt_shape(spec.final_shape)}")
        out = xp.zeros(dims, dy.dtype)
        out[spec.index + (Ellipsis,)] = dy.reshape(spec.sliced_shape)
        return out
    return strided_slice_grad


# --- GatherV2 ---------------------------------------------------------------------------------

def first_bad_index(node, indices, bad_flat: int, n: int):
    """The InvalidArgumentError for the bad index at flat position ``bad_flat``."""
    where = np.unravel_index(bad_flat, indices.shape) if indices.ndim else ()
    value = int(indices.reshape(-1)[bad_flat])
    return invalid_argument(node.name, node.op, f"indices[{','.join(map(str, where))}] = "
                            f"{value} is not in [0, {n})")


def check_gather(node, params, axis) -> int:
    """The non-negative gather axis; InvalidArgumentError when out of range."""
    if node.attrs.get("batch_dims", 0):
        raise invalid_argument(node.name, node.op, "batch_dims != 0 is not supported yet")
    a = as_ints(axis)
    if len(a) != 1 or not -params.ndim <= a[0] < params.ndim:
        raise invalid_argument(node.name, node.op, f"Expected axis in the range "
                               f"[{-params.ndim}, {params.ndim}), but got {list(a)}")
    return a[0] % params.ndim


def _gather(node, xp):
    def gather(params, indices, axis):
        a = check_gather(node, params, axis)
        n = params.shape[a]
        if indices.size:
            bad = ((indices < 0) | (indices >= n)).reshape(-1)
            if bad.any():
                raise first_bad_index(node, indices, int(xp.argmax(bad)), n)
        return xp.take(params, indices, axis=a)
    return gather


# --- UnsortedSegmentSum, OneHot, AddN (references) ------------------------------------------

def check_segment_ids(node, data, ids, num_segments) -> int:
    """``num_segments`` as an int; InvalidArgumentError for a bad shape or count (the
    range of the ids is checked by the caller)."""
    count = on_host(num_segments)
    if count.ndim != 0:
        raise invalid_argument(node.name, node.op, f"num_segments should be a scalar, not "
                               f"shape {fmt_shape(count.shape)}")
    n = as_ints(count)
    if n[0] < 0:
        raise invalid_argument(node.name, node.op, f"Input num_segments == {n[0]} must not "
                               f"be negative.")
    if data.shape[:ids.ndim] != ids.shape:
        raise invalid_argument(node.name, node.op, f"data.shape = {fmt_shape(data.shape)} "
                               f"does not start with segment_ids.shape = "
                               f"{fmt_shape(ids.shape)}")
    return n[0]


def segment_range_error(node, ids, n):
    """TF's error for the first of ``ids`` (host values) at or above ``n``, at its index
    as TF prints it (``segment_ids[1,0]`` in a matrix of ids)."""
    flat = ids.reshape(-1)
    k = int(np.argmax(flat >= n))
    at = ",".join(str(int(i)) for i in np.unravel_index(k, ids.shape))
    return invalid_argument(node.name, node.op, f"segment_ids{f'[{at}]' if ids.ndim else ''} "
                            f"= {int(flat[k])} is out of range [0, {n})")


def build_segment_sum_ref(node):
    def segment_sum(data, ids, num_segments):
        n = check_segment_ids(node, data, ids, num_segments)
        if ids.size and ids.max() >= n:
            raise segment_range_error(node, ids, n)
        acc = _F32 if data.dtype == _F16 else data.dtype
        out = np.zeros((n,) + data.shape[ids.ndim:], acc)
        rows = data.reshape((ids.size,) + data.shape[ids.ndim:]).astype(acc)
        flat = ids.reshape(-1)
        keep = flat >= 0          # negative ids drop their row, as TF
        np.add.at(out, flat[keep], rows[keep])
        return to_float16(out) if data.dtype == _F16 else out
    return segment_sum


def one_hot_axis(node, indices, depth) -> tuple[int, int]:
    """(depth, the output axis of the one-hot dimension); InvalidArgumentError."""
    d = as_ints(depth)
    axis = int(node.attrs.get("axis", -1))
    if len(d) != 1 or d[0] < 0 or not -1 <= axis <= indices.ndim:
        raise invalid_argument(node.name, node.op, f"depth must be one non-negative int "
                               f"(got {list(d)}) and axis in [-1, {indices.ndim}] "
                               f"(got {axis})")
    return d[0], indices.ndim if axis == -1 else axis


def build_one_hot_ref(node):
    dtype = node.output_dtype

    def one_hot(indices, depth, on_value, off_value):
        d, axis = one_hot_axis(node, indices, depth)
        hot = indices[..., None] == np.arange(d)
        out = np.where(hot, on_value, off_value).astype(dtype)
        return np.ascontiguousarray(np.moveaxis(out, -1, axis))
    return one_hot


def check_add_n(node, xs) -> None:
    first = xs[0].shape
    if any(x.shape != first for x in xs):
        raise invalid_argument(node.name, node.op, f"inputs must all have the same shape, "
                               f"got {', '.join(fmt_shape(x.shape) for x in xs)}")


def make_add_n_builder(elementwise_kernel, wrap: Callable = _as_is) -> Callable:
    """The AddN builder of a device whose ``elementwise_kernel`` class (the CPU's or the
    GPU's ``ElementwiseKernel``) compiles ``x0 + x1 + ...``: one pass over the inputs
    (complex values: the array library's sums)."""
    def build_add_n(node):
        if np.dtype(node.output_dtype).kind == "c":
            return wrap(node, build_add_n_ref(node))
        names = tuple(f"x{k}" for k in range(len(node.input_dtypes)))
        kernel = elementwise_kernel(" + ".join(names), zip(names, node.input_dtypes),
                                    node.output_dtype, name=node.name, op=node.op)

        def add_n(*xs):
            check_add_n(node, xs)
            return kernel(*xs)
        return wrap(node, add_n)
    return build_add_n


def build_add_n_ref(node):
    dtype = node.output_dtype

    def add_n(*xs):
        check_add_n(node, xs)
        acc = _F32 if dtype == _F16 else dtype
        total = xs[0].astype(acc)        # a copy, also for one input
        for x in xs[1:]:
            total += x
        return to_float16(total) if dtype == _F16 else total
    return add_n




# --- GatherNd, ScatterNd, TensorScatterUpdate/Add/Sub ------------------------------------------

def nd_rows(node, xp, indices, shape: tuple, what: str = "shape"):
    """The coordinates in the last axis of ``indices`` as flat row numbers into ``shape``
    viewed as ``(prod(shape[:K]), prod(shape[K:]))``, checked: InvalidArgumentError
    naming the first coordinate outside ``shape`` (read back to the host only then), which
    the message calls ``what`` (TF's scatters say "shape", GatherNd "param shape")."""
    k = indices.shape[-1] if indices.ndim else 0
    if indices.ndim == 0 or k > len(shape):
        raise invalid_argument(node.name, node.op, f"indices must have rank >= 1 and "
                               f"coordinates of length <= {len(shape)} (the rank of "
                               f"{fmt_shape(shape)}), got indices of shape "
                               f"{fmt_shape(indices.shape)}")
    coords = indices.reshape(_count(indices.shape[:-1]), k)
    bounds = xp.asarray(np.asarray(shape[:k], np.int64))
    if coords.size:
        bad = ((coords < 0) | (coords >= bounds)).any(axis=1)
        if bad.any():
            row = int(xp.argmax(bad))
            where = np.unravel_index(row, indices.shape[:-1]) if indices.ndim > 1 else ()
            value = [int(v) for v in np.asarray(coords[row].tolist())]
            raise invalid_argument(node.name, node.op, f"indices[{','.join(map(str, where))}]"
                                   f" = {value} does not index into {what} "
                                   f"{fmt_shape(shape)}")
    strides = np.cumprod((shape[1:k] + (1,))[::-1], dtype=np.int64)[::-1].copy()
    return (coords.astype(np.int64) * xp.asarray(strides)).sum(axis=1)


def nd_updates(node, updates, indices, shape: tuple):
    """``updates`` as ``(rows, prod(shape[K:]))``; InvalidArgumentError unless their shape
    is ``indices.shape[:-1] + shape[K:]``."""
    k = indices.shape[-1]
    expected = indices.shape[:-1] + tuple(shape[k:])
    if updates.shape != expected:
        raise invalid_argument(node.name, node.op, f"updates must have shape "
                               f"{fmt_shape(expected)} for indices of shape "
                               f"{fmt_shape(indices.shape)} into shape {fmt_shape(shape)}, "
                               f"got {fmt_shape(updates.shape)}")
    return updates.reshape(_count(indices.shape[:-1]), _count(shape[k:]))


def as_table(x, k: int):
    """``x`` viewed as ``(prod(shape[:k]), prod(shape[k:]))`` (empty shapes too)."""
    return x.reshape(_count(x.shape[:k]), _count(x.shape[k:]))


def _count(dims) -> int:
    return int(np.prod(dims, dtype=np.int64))


def scatter_shape(node, shape) -> tuple:
    """ScatterNd's ``shape`` input as a tuple of non-negative ints."""
    dims = as_ints(shape)
    if any(d < 0 for d in dims):
        raise invalid_argument(node.name, node.op, f"shape must be non-negative, got "
                               f"{list(dims)}")
    return tuple(dims)


def _gather_nd(node, xp):
    def gather_nd(params, indices):
        rows = nd_rows(node, xp, indices, params.shape, "param shape")
        k = indices.shape[-1]
        inner = params.shape[k:]
        return xp.take(as_table(params, k), rows, axis=0).reshape(indices.shape[:-1] + inner)
    return gather_nd


# TensorScatterMin/Max: each update combined with its slice in turn (``ufunc.at``)
EXTREME_UFUNCS = {"TensorScatterMin": np.minimum, "TensorScatterMax": np.maximum}


def _scatter_into(out, rows, values, op_type: str):
    """numpy: ``values`` written into (or added to, subtracted from) the rows of the 2-D
    ``out``, repeated rows accumulating (``np.add.at``: the plain, slow formulation)."""
    if op_type == "TensorScatterUpdate":
        out[rows] = values
    elif op_type in EXTREME_UFUNCS:
        EXTREME_UFUNCS[op_type].at(out, rows, values)
    else:
        np.add.at(out, rows, values if op_type != "TensorScatterSub" else -values)


def build_scatter_nd_ref(node):
    def scatter_nd(indices, updates, shape):
        dims = scatter_shape(node, shape)
        rows = nd_rows(node, np, indices, dims)
        values = nd_updates(node, updates, indices, dims)
        acc = _F32 if updates.dtype == _F16 else updates.dtype
        out = as_table(np.zeros(dims, acc), indices.shape[-1])
        _scatter_into(out, rows, values.astype(acc), "ScatterNd")
        out = out.astype(updates.dtype, copy=False)
        return out.reshape(dims)
    return scatter_nd


def build_tensor_scatter_ref(node):
    def tensor_scatter(tensor, indices, updates):
        rows = nd_rows(node, np, indices, tensor.shape)
        values = nd_updates(node, updates, indices, tensor.shape)
        out = as_table(tensor.copy(), indices.shape[-1])
        _scatter_into(out, rows, values, node.op)
        return out.reshape(tensor.shape)
    return tensor_scatter


for _op, _builder in make_index_builders(np).items():
    register_kernel(_op, HOST)(_builder)
register_kernel("UnsortedSegmentSum", "REF")(build_segment_sum_ref)
register_kernel("OneHot", "REF")(build_one_hot_ref)
register_kernel("AddN", "REF")(build_add_n_ref)
register_kernel("ScatterNd", "REF")(build_scatter_nd_ref)
register_kernel(("TensorScatterAdd", "TensorScatterSub"), "REF")(build_tensor_scatter_ref)
register_kernel(("TensorScatterUpdate", *EXTREME_UFUNCS), HOST)(build_tensor_scatter_ref)
