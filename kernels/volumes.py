"""Sliding windows over volumes (NDHWC or NCDHW): the geometry of Conv3D and 3-D pooling,
and the window algorithms every device can run -- ``windows.py``'s, one spatial
dimension more.

Per spatial dimension (depth, height, width) the geometry is TF's, as in 2-D
(``windows.output_size``): VALID has no padding; SAME outputs ``ceil(n / s)`` and puts
the odd padding element at the end.  The algorithms work on NDHWC arrays; an NCDHW node
(``data_format``) has its inputs transposed to NDHWC and its output back
(``Volume3DParams.to_ndhwc`` / ``from_ndhwc``), and its attrs (``strides``, ``ksize``,
``dilations``: 5-lists in the data format's order) read at the spatial positions.  The
filter is ``[KD, KH, KW, in, out]`` in both formats, as TF's.

The array algorithms take the array module as ``xp`` (numpy or cupy) and use basic
slicing, ``reshape``, ``matmul`` and reductions only, so the CUDA kernels run them on cupy
and the tests run the very same code on numpy against the reference kernels:

* ``patches(xp, x, g, fill)``: every window of ``x`` as ``(N, OD, OH, OW, KD, KH, KW, C)``
  (im2col), one strided copy per filter tap;
* ``add_patches(xp, cols, g)``: its inverse scatter (col2im), one strided add per tap
  (positions within one tap never collide).

Conv3D is ``patches @ filter``, its input gradient ``add_patches(dy @ filter.T)``, its
filter gradient ``patches.T @ dy``; pooling reduces ``patches`` over the window axes.
MaxPool3D's gradient goes to the first maximum of each window in (kd, kh, kw) order (the
first NaN if any), as MaxPoolGrad's: a vector-Jacobian product.  (TF's CPU kernel gives
the whole gradient to *every* element tied for the maximum, and its MaxPool3D skips
NaN; neither is a derivative, so those are not copied.)
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from devsession.errors import UnimplementedError

from .checks import fmt_shape, invalid_argument
from .windows import check_shape, lowest, output_size

__all__ = ["CONV3D_BACKPROP_OPS", "Volume", "volume", "Conv3DParams", "Pool3DParams",
           "patches", "add_patches", "window_counts", "conv3d", "conv3d_input_grad",
           "conv3d_filter_grad", "max_pool3d", "avg_pool3d", "max_pool3d_grad",
           "max_pool3d_grad_grad", "avg_pool3d_grad", "pool3d_grad_kernel"]

CONV3D_BACKPROP_OPS = ("Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")
_TO_NDHWC, _TO_NCDHW = (0, 2, 3, 4, 1), (0, 4, 1, 2, 3)


@dataclasses.dataclass(frozen=True)
class Volume:
    """Where the windows of a 3-D sliding-window op fall on an NDHWC input; each tuple
    is (depth, height, width)."""

    batch: int
    channels: int
    size: tuple
    window: tuple
    stride: tuple
    dilation: tuple
    out: tuple
    pad_before: tuple
    pad_after: tuple

    @property
    def taps(self) -> int:
        return math.prod(self.window)

    @property
    def out_shape(self) -> tuple:
        return (self.batch, *self.out)

    @property
    def in_shape(self) -> tuple:
        return (self.batch, *self.size, self.channels)

    @property
    def padded_shape(self) -> tuple:
        return (self.batch, *(n + b + a for n, b, a in
                              zip(self.size, self.pad_before, self.pad_after)), self.channels)


def _check_rank5(node, shape: tuple, what: str) -> None:
    if len(shape) != 5:
        raise invalid_argument(node.name, node.op, f"{what} must be 5-dimensional, got shape "
                               f"{fmt_shape(shape)}")


def volume(node, x_shape: tuple, window: tuple, strides: tuple, dilations: tuple,
           padding: str) -> Volume:
    """The ``Volume`` of an NDHWC input shape; ``InvalidArgumentError`` naming the node
    for a window that does not fit (VALID)."""
    _check_rank5(node, x_shape, "input")
    sizes = [output_size(n, k, s, d, padding)
             for n, k, s, d in zip(x_shape[1:4], window, strides, dilations)]
    if any(out < 0 for out, _, _ in sizes):
        raise invalid_argument(
            node.name, node.op, f"a {'x'.join(map(str, window))} window (dilation "
            f"{'x'.join(map(str, dilations))}) does not fit in the input of shape "
            f"{fmt_shape(x_shape)} with VALID padding")
    out, before, after = (tuple(column) for column in zip(*sizes))
    return Volume(x_shape[0], x_shape[4], tuple(x_shape[1:4]), tuple(window), tuple(strides),
                  tuple(dilations), out, before, after)


class Volume3DParams:
    """What every 3-D node shares: its data format (NDHWC or NCDHW) and its 5-list attrs
    read at their spatial positions."""

    def __init__(self, node):
        self.node = node
        self.channels_first = node.attrs.get("data_format", "NDHWC") == "NCDHW"

    def attr(self, key: str, default=None) -> tuple[tuple, tuple]:
        """((d, h, w), (batch, channel)) of a 5-list attr."""
        values = tuple(int(v) for v in self.node.attrs.get(key, default))
        if len(values) != 5:
            raise invalid_argument(self.node.name, self.node.op,
                                   f"{key} must have 5 elements, got {list(values)}")
        if self.channels_first:
            return values[2:], (values[0], values[1])
        return values[1:4], (values[0], values[4])

    def ndhwc_shape(self, shape) -> tuple:
        shape = tuple(int(v) for v in shape)
        if self.channels_first and len(shape) == 5:
            return tuple(shape[i] for i in _TO_NDHWC)
        return shape

    def data_shape(self, ndhwc: tuple) -> tuple:
        """An NDHWC shape in the node's data format."""
        return tuple(ndhwc[i] for i in _TO_NCDHW) if self.channels_first else tuple(ndhwc)

    def to_ndhwc(self, xp, x):
        return xp.ascontiguousarray(x.transpose(_TO_NDHWC)) if self.channels_first else x

    def from_ndhwc(self, xp, y):
        return xp.ascontiguousarray(y.transpose(_TO_NCDHW)) if self.channels_first else y

    def sizes(self, value, what: str) -> tuple:
        """The NDHWC shape a host int vector (a V2 op's sizes input) names."""
        shape = tuple(int(v) for v in np.asarray(value).reshape(-1))
        _check_rank5(self.node, shape, what)
        return self.ndhwc_shape(shape)


class Conv3DParams(Volume3DParams):
    """A Conv3D-family node's attrs, read once (TF's run-time refusals of batch or
    channel strides and dilations included); ``geometry(x_shape, f_shape)`` checks the
    shapes of one call and places the windows."""

    def __init__(self, node):
        super().__init__(node)
        self.strides, outer = self.attr("strides")
        if outer != (1, 1):
            message = "Current implementation does not yet support strides in the batch " \
                      "and depth dimensions."
            if node.op == "Conv3D":
                raise UnimplementedError(f"{node.op} node '{node.name}': {message}",
                                         node_name=node.name)
            raise invalid_argument(node.name, node.op, message)
        self.dilations, outer = self.attr("dilations", (1, 1, 1, 1, 1))
        if outer != (1, 1):
            raise invalid_argument(node.name, node.op, "Current implementation does not yet "
                                   "support dilations rates in the batch and depth dimensions.")
        self.padding = node.attrs["padding"]

    def geometry(self, x_shape: tuple, f_shape: tuple) -> Volume:
        """``x_shape`` NDHWC, ``f_shape`` [KD, KH, KW, in, out]."""
        _check_rank5(self.node, f_shape, "filter")
        _check_rank5(self.node, x_shape, "input")
        if x_shape[4] != f_shape[3]:
            raise invalid_argument(
                self.node.name, self.node.op, f"input depth must equal the filter's "
                f"in-channels: input shape {fmt_shape(self.data_shape(x_shape))}, filter "
                f"shape {fmt_shape(f_shape)}")
        return volume(self.node, x_shape, tuple(f_shape[:3]), self.strides, self.dilations,
                      self.padding)

    @property
    def grads_input(self) -> bool:
        return self.node.op.startswith("Conv3DBackpropInput")

    def backprop(self, first, second, dy) -> tuple[Volume, tuple, object]:
        """``(geometry, gradient shape in the data format, operand)`` of a
        Conv3DBackpropInputV2(input_sizes, filter, dy) or
        Conv3DBackpropFilterV2(input, filter_sizes, dy) call, the filter gradient's input
        already NDHWC (``to_ndhwc``); the operand is what ``dy`` multiplies.  Raises
        unless ``dy`` (in the data format) has the convolution's output shape."""
        if self.grads_input:
            x_shape, f_shape = self.sizes(first, "input_sizes"), tuple(second.shape)
        else:
            x_shape = tuple(first.shape)
            f_shape = tuple(int(v) for v in np.asarray(second).reshape(-1))
            _check_rank5(self.node, f_shape, "filter_sizes")
        g = self.geometry(x_shape, f_shape)
        check_shape(self.node.name, self.node.op, "out_backprop", dy.shape,
                    self.data_shape((*g.out_shape, f_shape[4])))
        if self.grads_input:
            return g, self.data_shape(x_shape), second
        return g, f_shape, first


class Pool3DParams(Volume3DParams):
    """A 3-D pooling node's attrs, read once, with TF's run-time refusals: windows or
    strides over the batch or channels, and windows or strides below 1."""

    def __init__(self, node):
        super().__init__(node)
        self.ksize, k_outer = self.attr("ksize")
        self.strides, s_outer = self.attr("strides")
        for index, what in ((0, "batch"), (1, "depth")):
            if k_outer[index] != 1 or s_outer[index] != 1:
                raise UnimplementedError(f"{node.op} node '{node.name}': Pooling is not yet "
                                         f"supported on the {what} dimension.",
                                         node_name=node.name)
        for key, attr, values in (("ksize", "ksize", self.ksize),
                                  ("stride", "strides", self.strides)):
            if min(values) < 1:
                raise invalid_argument(node.name, node.op, f"Sliding window {key} must be "
                                       f"positive. The specified or inferred {key} is: "
                                       f"{','.join(str(int(v)) for v in node.attrs[attr])}")
        self.padding = node.attrs["padding"]

    def geometry(self, x_shape: tuple) -> Volume:
        """``x_shape`` NDHWC."""
        return volume(self.node, x_shape, self.ksize, self.strides, (1, 1, 1), self.padding)

    def grad_geometry(self, x_or_sizes, *outputs) -> Volume:
        """The geometry of MaxPool3DGrad(x, y, dy), MaxPool3DGradGrad(x, y, grad) or
        AvgPool3DGrad(sizes, dy); raises unless ``outputs`` (in the data format) have the
        pooling's output shape (MaxPool3DGradGrad's grad: the input's)."""
        op = self.node.op
        if op == "AvgPool3DGrad":
            x_shape = self.sizes(x_or_sizes, "orig_input_shape")
        else:
            x_shape = self.ndhwc_shape(x_or_sizes.shape)
        g = self.geometry(x_shape)
        for what, t in zip(("orig_output", "grad")[-len(outputs):], outputs):
            want = x_shape if (what == "grad" and op == "MaxPool3DGradGrad") else \
                (*g.out_shape, g.channels)
            check_shape(self.node.name, op, what, t.shape, self.data_shape(want))
        return g


# ------------------------------------------------------------------ xp algorithms

_ALL = slice(None)


def _tap_slices(g: Volume, tap: tuple) -> tuple:
    """The strided view, into the padded input, that filter tap (kd, kh, kw) of every
    window reads."""
    return (_ALL, *(slice(t * d, t * d + (o - 1) * s + 1, s)
                    for t, d, o, s in zip(tap, g.dilation, g.out, g.stride)), _ALL)


def _inside_padding(g: Volume) -> tuple:
    return (_ALL, *(slice(b, b + n) for b, n in zip(g.pad_before, g.size)), _ALL)


def _taps(g: Volume):
    return itertools.product(*(range(k) for k in g.window))


def patches(xp, x, g: Volume, fill=0):
    """Every window of ``x`` (N, D, H, W, C) as (N, OD, OH, OW, KD, KH, KW, C); padding
    reads ``fill``."""
    padded = xp.full(g.padded_shape, fill, x.dtype)
    padded[_inside_padding(g)] = x
    out = xp.empty((*g.out_shape, *g.window, g.channels), x.dtype)
    if out.size:
        for tap in _taps(g):
            out[(_ALL,) * 4 + tap] = padded[_tap_slices(g, tap)]
    return out


def add_patches(xp, cols, g: Volume):
    """The inverse of ``patches``: ``cols`` (N, OD, OH, OW, KD, KH, KW, C) summed back
    into an (N, D, H, W, C) array (what falls on padding is dropped)."""
    padded = xp.zeros(g.padded_shape, cols.dtype)
    if cols.size:
        for tap in _taps(g):
            padded[_tap_slices(g, tap)] += cols[(_ALL,) * 4 + tap]
    return xp.ascontiguousarray(padded[_inside_padding(g)])


def window_counts(g: Volume) -> np.ndarray:
    """(OD, OH, OW) float64 host array: how many input elements each window covers (what
    SAME-padded AvgPool3D divides by)."""
    counts = np.ones((), np.float64)
    for n, out, s, k, pad in zip(g.size, g.out, g.stride, g.window, g.pad_before):
        starts = np.arange(out) * s - pad
        counts = np.multiply.outer(counts, np.minimum(starts + k, n) - np.maximum(starts, 0))
    return counts


def _matrix_shapes(g: Volume, out_channels: int) -> tuple[int, int, int]:
    """(rows, depth, out_channels) of Conv3D as a matmul."""
    return math.prod(g.out_shape), g.taps * g.channels, out_channels


# The whole ops on NDHWC arrays of any array module (the CUDA kernels run them on cupy,
# the CPU's pooling on numpy); inputs in their compute dtype; ``counts`` is
# ``window_counts(g)`` on ``xp``.

def conv3d(xp, x, f, g: Volume):
    rows, depth, out_channels = _matrix_shapes(g, f.shape[4])
    cols = patches(xp, x, g).reshape(rows, depth)
    return xp.matmul(cols, f.reshape(depth, out_channels)).reshape(*g.out_shape, out_channels)


def conv3d_input_grad(xp, f, dy, g: Volume):
    rows, depth, out_channels = _matrix_shapes(g, f.shape[4])
    cols = xp.matmul(dy.reshape(rows, out_channels), f.reshape(depth, out_channels).T)
    return add_patches(xp, cols.reshape(*g.out_shape, *g.window, g.channels), g)


def conv3d_filter_grad(xp, x, dy, g: Volume):
    rows, depth, out_channels = _matrix_shapes(g, dy.shape[4])
    cols = patches(xp, x, g).reshape(rows, depth)
    return xp.matmul(cols.T, dy.reshape(rows, out_channels)).reshape(
        *g.window, g.channels, out_channels)


_WINDOW_AXES = (4, 5, 6)


def max_pool3d(xp, x, g: Volume):
    return patches(xp, x, g, lowest(x.dtype)).max(axis=_WINDOW_AXES)


def avg_pool3d(xp, x, g: Volume, counts):
    totals = patches(xp, x, g).sum(axis=_WINDOW_AXES)
    return (totals / counts[None, ..., None]).astype(x.dtype, copy=False)


def _first_maxima(xp, x, g: Volume):
    """(N, OD, OH, OW, C): the tap of each window holding its first NaN, else its first
    maximum among the elements on the input (an argmax over padded windows could pick
    the padding when the maximum equals it)."""
    flat = patches(xp, x, g, lowest(x.dtype)).reshape(*g.out_shape, g.taps, g.channels)
    top = flat.max(axis=4, keepdims=True)
    one = dataclasses.replace(g, batch=1, channels=1)
    inside = xp.asarray(patches(np, np.ones(one.in_shape, np.bool_), one)
                        .reshape(*one.out_shape, g.taps, 1))
    hit = ((flat == top) | (flat != flat)) & inside
    return hit.argmax(axis=4)


def max_pool3d_grad(xp, x, dy, g: Volume):
    """Each gradient to its window's first maximum."""
    first = _first_maxima(xp, x, g)
    hit = xp.arange(g.taps).reshape(g.taps, 1) == first[:, :, :, :, None, :]
    cols = xp.where(hit, dy[:, :, :, :, None, :], xp.zeros((), dy.dtype))
    return add_patches(xp, cols.reshape(*g.out_shape, *g.window, g.channels), g)


def max_pool3d_grad_grad(xp, x, grad, g: Volume):
    """Per window, ``grad`` at its first maximum (the adjoint of ``max_pool3d_grad``)."""
    first = _first_maxima(xp, x, g)
    windows = patches(xp, grad, g).reshape(*g.out_shape, g.taps, g.channels)
    return xp.take_along_axis(windows, first[:, :, :, :, None, :], axis=4)[:, :, :, :, 0, :]


def avg_pool3d_grad(xp, dy, g: Volume, counts):
    share = (dy / counts[None, ..., None]).astype(dy.dtype, copy=False)
    cols = xp.broadcast_to(share[:, :, :, :, None, None, None, :],
                           (*g.out_shape, *g.window, g.channels))
    return add_patches(xp, cols, g)


_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def pool3d_kernel(xp, node):
    """MaxPool3D's or AvgPool3D's kernel on ``xp`` (numpy for the CPU, cupy for the GPU);
    a float16 average sums in float32."""
    params, out_dtype = Pool3DParams(node), np.dtype(node.output_dtype)
    is_max = node.op == "MaxPool3D"

    def kernel(x):
        x = params.to_ndhwc(xp, x)
        g = params.geometry(x.shape)
        shape = (*g.out_shape, g.channels)
        if 0 in shape:
            return xp.zeros(params.data_shape(shape), out_dtype)
        if is_max:
            out = max_pool3d(xp, x, g)
        else:
            x = xp.ascontiguousarray(x.astype(_F32, copy=False) if x.dtype == _F16 else x)
            out = avg_pool3d(xp, x, g, xp.asarray(window_counts(g).astype(x.dtype)))
        out = params.from_ndhwc(xp, xp.ascontiguousarray(out))
        return out.astype(out_dtype, copy=False)
    return kernel


def pool3d_grad_kernel(xp, node):
    """MaxPool3DGrad's, MaxPool3DGradGrad's or AvgPool3DGrad's kernel on ``xp`` (numpy
    for the CPU, cupy for the GPU)."""
    params, out_dtype = Pool3DParams(node), np.dtype(node.output_dtype)
    op = node.op

    def compute(t):
        t = params.to_ndhwc(xp, t)
        return t.astype(_F32, copy=False) if t.dtype == _F16 else t

    def kernel(first, *rest):
        g = params.grad_geometry(first, *rest)
        in_shape, out_shape = g.in_shape, (*g.out_shape, g.channels)
        result_shape = out_shape if op == "MaxPool3DGradGrad" else in_shape
        if 0 in result_shape or 0 in out_shape:
            return xp.zeros(params.data_shape(result_shape), out_dtype)
        grad = compute(rest[-1])
        if op == "AvgPool3DGrad":
            counts = xp.asarray(window_counts(g).astype(grad.dtype))
            out = avg_pool3d_grad(xp, grad, g, counts)
        elif op == "MaxPool3DGrad":
            out = max_pool3d_grad(xp, params.to_ndhwc(xp, first), grad, g)
        else:
            out = max_pool3d_grad_grad(xp, params.to_ndhwc(xp, first), grad, g)
        out = params.from_ndhwc(xp, xp.ascontiguousarray(out))
        return out.astype(out_dtype, copy=False)
    return kernel
