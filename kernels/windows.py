"""Sliding windows over NHWC images: the geometry of Conv2D and pooling, and the
window algorithms every device can run.

Geometry (TF's, per spatial dimension of size ``n``, window ``k``, stride ``s``,
dilation ``d``; the effective window is ``e = (k - 1) * d + 1``):

* ``VALID``: no padding, ``out = (n - e) // s + 1`` (an error when ``n < e``);
* ``SAME``:  ``out = ceil(n / s)``, padded with ``max((out - 1) * s + e - n, 0)``
  elements, the odd one at the *end* (bottom/right), as TF does;
* ``EXPLICIT`` (Conv2D and DepthwiseConv2dNative): ``before`` and ``after`` zeros given
  by the node's ``explicit_paddings`` (8 ints, a [before, after] pair per NHWC
  dimension), then as VALID: ``out = (n + before + after - e) // s + 1``.

Window ``(oh, ow)`` with kernel offset ``(kh, kw)`` reads input row
``oh * s - pad_top + kh * d``; rows outside the input are padding (zero for Conv2D and
AvgPool sums; never the max of MaxPool; not counted by AvgPool, as in TF).

The array algorithms take the array module as ``xp`` (numpy or cupy) and use only
basic slicing, ``reshape``, ``matmul`` and reductions, so the CUDA kernels run them on
cupy while the tests run the very same code on numpy against the reference kernels:

* ``patches(xp, x, g, fill)``: every window of ``x`` as an array
  ``(N, OH, OW, KH, KW, C)`` (im2col), built from ``KH * KW`` strided copies;
* ``add_patches(xp, cols, g)``: the inverse scatter (col2im): each window's values
  summed back into an ``(N, H, W, C)`` array, again one strided add per offset
  (positions within one offset never collide, so no atomics are needed).

Conv2D is then ``patches @ filter``, its input gradient ``add_patches(dy @ filter.T)``
and its filter gradient ``patches.T @ dy``; pooling reduces ``patches`` over the window
axes (``conv2d``, ``max_pool``... at the end of this module, on any ``xp``).  The CPU
kernels (``cpu/nn_conv.py``) do the same with numba loops, in cache-sized chunks.

Grouped convolutions (TF's Conv2D whose input has ``G`` times the filter's
in-channels, as Keras's ``Conv2D(groups=G)`` writes it: RegNet, ConvNeXt): group ``i``
convolves input channels ``[i*C/G, (i+1)*C/G)`` with filter out-channels ``[i*O/G,
(i+1)*O/G)``.  The geometry is one group's (``channels`` = the filter's in-channels)
and every device runs its ordinary kernel once per group (``by_group``): the operands
of the forward pass and of both gradients are each sliced along their last axis, and
the results joined along theirs.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .checks import fmt_shape, invalid_argument

__all__ = ["CONV_BACKPROP_OPS", "Geometry", "output_size", "geometry", "explicit_pads",
           "spatial", "patches",
           "add_patches", "window_counts", "check_rank4", "conv_shapes", "ConvParams", "by_group",
           "group_count",
           "PoolParams", "check_shape", "shape_input", "lowest", "conv2d", "conv2d_input_grad",
           "conv2d_filter_grad", "max_pool", "avg_pool", "max_pool_grad", "max_pool_grad_grad",
           "avg_pool_grad", "max_pool_grad_grad_kernel"]

# One builder per device serves the four: the input's and the filter's gradients are the
# same products transposed.
CONV_BACKPROP_OPS = ("Conv2DBackpropInput", "Conv2DBackpropInputV2", "Conv2DBackpropFilter",
                     "Conv2DBackpropFilterV2")


def output_size(size: int, k: int, stride: int, dilation: int, padding: str,
                explicit: tuple = (0, 0)) -> tuple[int, int, int]:
    """``(out, pad_before, pad_after)`` of one spatial dimension; ``out`` is negative
    when a VALID (or EXPLICIT) window does not fit (callers report it).  ``explicit``
    is the dimension's (before, after) pair of EXPLICIT padding."""
    effective = (k - 1) * dilation + 1
    if padding == "EXPLICIT":
        before, after = explicit
        out = output_size(size + before + after, k, stride, dilation, "VALID")[0]
        return out, before, after
    if padding == "VALID":
        return (size - effective) // stride + 1 if size >= effective else size - effective, 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2, total - total // 2


def patches_output_size(size: int, k: int, stride: int, rate: int, padding: str) -> int:
    """ExtractImagePatches' output size of one dimension, TF's ``GetWindowedOutputSize``:
    VALID is ``(size - effective + stride) / stride`` in C's division (toward zero), so a
    window up to ``stride`` pixels past the input gives 0 patches, not an error (Conv2D's
    and MaxPool's shape functions refuse it); negative (the caller's error) beyond."""
    if padding != "VALID":
        return -(-size // stride)
    ahead = size - ((k - 1) * rate + 1) + stride
    return ahead // stride if ahead >= 0 else -(-ahead // stride)


@dataclasses.dataclass(frozen=True)
class Geometry:
    """Where the windows of a 2-D sliding-window op fall on an NHWC input."""

    batch: int
    in_h: int
    in_w: int
    channels: int
    k_h: int
    k_w: int
    stride_h: int
    stride_w: int
    dil_h: int
    dil_w: int
    out_h: int
    out_w: int
    pad_top: int
    pad_left: int
    pad_bottom: int
    pad_right: int

    @property
    def window(self) -> int:
        return self.k_h * self.k_w

    @property
    def out_shape(self) -> tuple:
        return (self.batch, self.out_h, self.out_w)

    def numba_args(self) -> tuple:
        """The ints the numba loops take: (H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW)."""
        return (self.in_h, self.in_w, self.channels, self.k_h, self.k_w, self.stride_h,
                self.stride_w, self.dil_h, self.dil_w, self.pad_top, self.pad_left,
                self.out_h, self.out_w)


def spatial(values, node_name: str, op: str, what: str) -> tuple[int, int]:
    """(h, w) of an NHWC 4-tuple attr (strides, ksize, dilations)."""
    values = tuple(int(v) for v in values)
    if len(values) != 4:
        raise invalid_argument(node_name, op, f"{what} must have 4 elements, got {list(values)}")
    return values[1], values[2]


def check_rank4(node_name: str, op: str, shape: tuple, what: str) -> None:
    if len(shape) != 4:
        raise invalid_argument(node_name, op, f"{what} must be 4-dimensional (NHWC), got "
                               f"shape {fmt_shape(shape)}")


def geometry(node_name: str, op: str, x_shape: tuple, k_hw: tuple, strides: tuple,
             dilations: tuple, padding: str, explicit: tuple = ((0, 0), (0, 0))) -> Geometry:
    """The ``Geometry`` of an NHWC input (``explicit``: the (before, after) pairs of the
    height and width, for EXPLICIT padding); ``InvalidArgumentError`` naming the node
    for a window that does not fit (VALID, EXPLICIT) or a bad rank."""
    check_rank4(node_name, op, x_shape, "input")
    n, h, w, c = x_shape
    (kh, kw), (sh, sw), (dh, dw) = k_hw, strides, dilations
    oh, pt, pb = output_size(h, kh, sh, dh, padding, explicit[0])
    ow, pl, pr = output_size(w, kw, sw, dw, padding, explicit[1])
    if oh < 0 or ow < 0:
        pads = f" {[list(p) for p in explicit]}" if padding == "EXPLICIT" else ""
        raise invalid_argument(
            node_name, op, f"a {kh}x{kw} window (dilation {dh}x{dw}) does not fit in the "
            f"{h}x{w} input of shape {fmt_shape(x_shape)} with {padding} padding{pads}")
    return Geometry(n, h, w, c, kh, kw, sh, sw, dh, dw, oh, ow, pt, pl, pb, pr)


def explicit_pads(node) -> tuple:
    """The (before, after) pairs of the height and width of a node whose ``padding`` is
    EXPLICIT, from its 8 NHWC ``explicit_paddings``; ``InvalidArgumentError`` as TF's for
    another count, a negative value or a batch or channel padding."""
    values = tuple(int(v) for v in node.attrs.get("explicit_paddings", ()))
    if node.attrs.get("padding") != "EXPLICIT":
        if values:
            raise invalid_argument(node.name, node.op, "explicit_paddings attribute must be "
                                   "empty if the padding attribute is not EXPLICIT")
        return ((0, 0), (0, 0))
    if len(values) != 8:
        raise invalid_argument(node.name, node.op, f"explicit_paddings attribute must "
                               f"contain 8 values, but got: {len(values)}")
    if min(values) < 0:
        raise invalid_argument(node.name, node.op, "All elements of explicit_paddings "
                               "must be nonnegative")
    if any(values[i] for i in (0, 1, 6, 7)):
        raise invalid_argument(node.name, node.op, "Nonzero explicit padding in the batch "
                               "or depth dimensions is not supported")
    return (values[2:4], values[4:6])


def check_shape(node_name: str, op: str, what: str, got: tuple, want: tuple) -> None:
    """``InvalidArgumentError`` unless ``got == want``."""
    if tuple(got) != tuple(want):
        raise invalid_argument(node_name, op, f"{what} has shape {fmt_shape(got)}, expected "
                               f"{fmt_shape(want)}")


def shape_input(node, value, sized: bool) -> tuple:
    """The shape a gradient op's shape input names: the values of a V1 sizes input (an
    int vector in host memory), or a V2 tensor input's own shape."""
    if not sized:
        return tuple(value.shape)
    shape = tuple(int(v) for v in np.asarray(value).reshape(-1))
    check_rank4(node.name, node.op, shape, "the sizes input")
    return shape


def lowest(dtype):
    """What MaxPool's padding reads: below every value of ``dtype``."""
    dtype = np.dtype(dtype)
    return np.array(-np.inf if dtype.kind == "f" else np.iinfo(dtype).min, dtype)[()]


class ConvParams:
    """A Conv2D-family node's attrs, read once; ``geometry(x_shape, f_shape)`` checks
    the shapes of one call (4-D; with ``grouped``, the input's channels a multiple of
    the filter's in-channels, else equal to them) and places one group's windows."""

    grouped = True      # Conv2D takes groups; DepthwiseConv2dNative does not

    def __init__(self, node):
        self.node = node
        attrs = node.attrs
        self.strides = spatial(attrs["strides"], node.name, node.op, "strides")
        self.dilations = spatial(attrs.get("dilations", (1, 1, 1, 1)), node.name, node.op,
                                 "dilations")
        self.padding = attrs["padding"]
        self.explicit = explicit_pads(node)

    def geometry(self, x_shape: tuple, f_shape: tuple) -> Geometry:
        name, op = self.node.name, self.node.op
        check_rank4(name, op, f_shape, "filter")
        check_rank4(name, op, x_shape, "input")
        self._check_groups(x_shape, f_shape)
        return geometry(name, op, tuple(x_shape[:3]) + (f_shape[2],), f_shape[:2],
                        self.strides, self.dilations, self.padding, self.explicit)

    def _check_groups(self, x_shape: tuple, f_shape: tuple) -> None:
        """TF's run-time checks of the channels: equal, or (``grouped``) the input's a
        multiple of the filter's in-channels and the out-channels a multiple of the
        number of groups, in TF's words."""
        name, op = self.node.name, self.node.op
        depth, in_depth, out_depth = x_shape[3], f_shape[2], f_shape[3]
        if depth == in_depth:
            return
        if not self.grouped or in_depth == 0:
            raise invalid_argument(
                name, op, f"input depth must equal the filter's in-channels: input shape "
                f"{fmt_shape(x_shape)}, filter shape {fmt_shape(f_shape)}")
        if depth % in_depth:
            raise invalid_argument(name, op, f"input depth must be evenly divisible by "
                                   f"filter depth: {depth} vs {in_depth}")
        if out_depth % (depth // in_depth):
            raise invalid_argument(name, op, f"output depth must be evenly divisible by "
                                   f"number of groups: {out_depth} vs {depth // in_depth}")

    def output_shape(self, g: Geometry, f_shape: tuple) -> tuple:
        return (g.batch, g.out_h, g.out_w, f_shape[3])

    @property
    def grads_input(self) -> bool:
        """Whether the node is a Conv2DBackpropInput(V2) (else a ...Filter(V2))."""
        return self.node.op.startswith("Conv2DBackpropInput")

    def backprop(self, first, second, dy) -> tuple[Geometry, tuple, object]:
        """``(geometry, gradient shape, operand)`` of a Conv2DBackpropInput/Filter(V2)
        call, whose first two inputs are the input (or its sizes) and the filter (or its
        sizes); the operand is what ``dy`` multiplies: the filter for the input's
        gradient, the input for the filter's.  Raises unless ``dy`` has the
        convolution's output shape."""
        op = self.node.op
        x_shape = shape_input(self.node, first, op == "Conv2DBackpropInput")
        f_shape = shape_input(self.node, second, op == "Conv2DBackpropFilter")
        g = self.geometry(x_shape, f_shape)
        check_shape(self.node.name, op, "out_backprop", dy.shape, self.output_shape(g, f_shape))
        return (g, x_shape, second) if self.grads_input else (g, f_shape, first)


def group_count(channels: int, g: Geometry) -> int:
    """How many groups of ``g.channels`` (one group's in-channels) an input of
    ``channels`` channels makes: 1 for an ordinary convolution."""
    return channels // g.channels if g.channels else 1


def by_group(xp, run, groups: int, *operands):
    """``run(*operands)`` of a grouped convolution, one group at a time: group ``i`` of
    each operand is the ``i``-th of ``groups`` equal slices of its last axis (made
    contiguous), and the results are joined along their last axis.  The forward pass
    (input, filter, bias), the input's gradient (filter, dy) and the filter's (input,
    dy) all split this way.  With one group ``run`` gets the operands themselves."""
    if groups == 1:
        return run(*operands)

    def part(a, i):
        width = a.shape[-1] // groups
        return xp.ascontiguousarray(a[..., i * width:(i + 1) * width])
    return xp.concatenate([run(*(part(a, i) for a in operands)) for i in range(groups)],
                          axis=-1)


class PoolParams:
    """A pooling node's attrs, read once; ``geometry(x_shape)`` places the windows."""

    def __init__(self, node):
        self.node = node
        self.ksize = spatial(node.attrs["ksize"], node.name, node.op, "ksize")
        self.strides = spatial(node.attrs["strides"], node.name, node.op, "strides")
        self.padding = node.attrs["padding"]

    def geometry(self, x_shape: tuple) -> Geometry:
        return geometry(self.node.name, self.node.op, x_shape, self.ksize, self.strides,
                        (1, 1), self.padding)

    def output_shape(self, g: Geometry) -> tuple:
        return (g.batch, g.out_h, g.out_w, g.channels)

    def grad_geometry(self, x_or_sizes, *outputs) -> Geometry:
        """The geometry of MaxPoolGrad(x, y, dy), MaxPoolGradGrad(x, y, grad) or
        AvgPoolGrad(sizes, dy); raises unless ``outputs`` (y and dy, or dy) have the
        pooling's output shape (MaxPoolGradGrad: y that, grad the input's)."""
        sized = self.node.op == "AvgPoolGrad"
        x_shape = shape_input(self.node, x_or_sizes, sized)
        g = self.geometry(x_shape)
        for what, t in zip(("orig_output", "grad")[-len(outputs):], outputs):
            want = x_shape if (what == "grad" and self.node.op == "MaxPoolGradGrad") else \
                self.output_shape(g)
            check_shape(self.node.name, self.node.op, what, t.shape, want)
        return g


# ------------------------------------------------------------------ xp algorithms

def _offset_slices(g: Geometry, kh: int, kw: int) -> tuple[slice, slice]:
    """Rows and columns of the padded input that offset (kh, kw) of every window reads."""
    top, left = kh * g.dil_h, kw * g.dil_w
    return (slice(top, top + (g.out_h - 1) * g.stride_h + 1, g.stride_h),
            slice(left, left + (g.out_w - 1) * g.stride_w + 1, g.stride_w))


def _padded_shape(g: Geometry) -> tuple:
    return (g.batch, g.in_h + g.pad_top + g.pad_bottom, g.in_w + g.pad_left + g.pad_right,
            g.channels)


def patches(xp, x, g: Geometry, fill=0):
    """Every window of ``x`` (N, H, W, C) as an array (N, OH, OW, KH, KW, C); padding
    reads ``fill``."""
    padded = xp.full(_padded_shape(g), fill, x.dtype)
    padded[:, g.pad_top:g.pad_top + g.in_h, g.pad_left:g.pad_left + g.in_w, :] = x
    out = xp.empty((g.batch, g.out_h, g.out_w, g.k_h, g.k_w, g.channels), x.dtype)
    if out.size:
        for kh in range(g.k_h):
            for kw in range(g.k_w):
                rows, cols = _offset_slices(g, kh, kw)
                out[:, :, :, kh, kw, :] = padded[:, rows, cols, :]
    return out


def add_patches(xp, cols, g: Geometry):
    """The inverse of ``patches``: ``cols`` (N, OH, OW, KH, KW, C) summed back into an
    (N, H, W, C) array (what falls on padding is dropped)."""
    padded = xp.zeros(_padded_shape(g), cols.dtype)
    if cols.size:
        for kh in range(g.k_h):
            for kw in range(g.k_w):
                rows, columns = _offset_slices(g, kh, kw)
                padded[:, rows, columns, :] += cols[:, :, :, kh, kw, :]
    return padded[:, g.pad_top:g.pad_top + g.in_h, g.pad_left:g.pad_left + g.in_w, :]


def window_counts(g: Geometry) -> np.ndarray:
    """(OH, OW) float64 host array: how many input elements each window covers (what
    SAME-padded AvgPool divides by)."""
    def per_dim(size, out, stride, k, pad):
        starts = np.arange(out) * stride - pad
        return np.minimum(starts + k, size) - np.maximum(starts, 0)
    rows = per_dim(g.in_h, g.out_h, g.stride_h, g.k_h, g.pad_top)
    cols = per_dim(g.in_w, g.out_w, g.stride_w, g.k_w, g.pad_left)
    return np.outer(rows, cols).astype(np.float64)


def conv_shapes(g: Geometry, out_channels: int) -> tuple[int, int, int]:
    """(rows, depth, out_channels) of Conv2D as a matmul: rows = N*OH*OW windows,
    depth = KH*KW*C values per window."""
    return math.prod(g.out_shape), g.window * g.channels, out_channels



# The whole ops, on any array module (the CUDA kernels run them on cupy; tests on numpy).
# Inputs are in their compute dtype; ``counts`` is ``window_counts(g)`` on ``xp``.

def conv2d(xp, x, f, g: Geometry):
    """Conv2D: the windows times the filter as a (KH*KW*C, O) matrix."""
    rows, depth, out_channels = conv_shapes(g, f.shape[3])
    cols = patches(xp, x, g).reshape(rows, depth)
    return xp.matmul(cols, f.reshape(depth, out_channels)).reshape(g.out_shape + (out_channels,))


def conv2d_input_grad(xp, f, dy, g: Geometry):
    rows, depth, out_channels = conv_shapes(g, f.shape[3])
    cols = xp.matmul(dy.reshape(rows, out_channels), f.reshape(depth, out_channels).T)
    return add_patches(xp, cols.reshape(g.out_shape + (g.k_h, g.k_w, g.channels)), g)


def conv2d_filter_grad(xp, x, dy, g: Geometry):
    rows, depth, out_channels = conv_shapes(g, dy.shape[3])
    cols = patches(xp, x, g).reshape(rows, depth)
    df = xp.matmul(cols.T, dy.reshape(rows, out_channels))
    return df.reshape(g.k_h, g.k_w, g.channels, out_channels)


def max_pool(xp, x, g: Geometry, floor):
    return patches(xp, x, g, floor).max(axis=(3, 4))


def avg_pool(xp, x, g: Geometry, counts):
    totals = patches(xp, x, g).sum(axis=(3, 4))
    return (totals / counts[None, :, :, None]).astype(x.dtype, copy=False)


def _inside(xp, g: Geometry):
    """(1, OH, OW, window, 1) bool: which element of each window lies on the input, not
    on the padding."""
    one = dataclasses.replace(g, batch=1, channels=1)
    ones = np.ones((1, g.in_h, g.in_w, 1), np.bool_)
    return xp.asarray(patches(np, ones, one).reshape(one.out_shape + (g.window, 1)))


def _first_maxima(xp, x, g: Geometry, floor):
    """(N, OH, OW, C): the offset in each window of its first NaN, else of its first
    maximum among the elements on the input.  (An argmax over the padded windows would
    pick the padding when the maximum equals the padding's value, -inf or INT_MIN.)"""
    flat = patches(xp, x, g, floor).reshape(g.out_shape + (g.window, g.channels))
    top = flat.max(axis=3, keepdims=True)                 # NaN where a window has one
    hit = ((flat == top) | (flat != flat)) & _inside(xp, g)
    return hit.argmax(axis=3)


def max_pool_grad(xp, x, dy, g: Geometry, floor):
    """Each gradient to its window's first maximum (the first NaN, if any)."""
    first_max = _first_maxima(xp, x, g, floor)
    hit = xp.arange(g.window).reshape(g.window, 1) == first_max[:, :, :, None, :]
    cols = xp.where(hit, dy[:, :, :, None, :], xp.zeros((), dy.dtype))
    return add_patches(xp, cols.reshape(g.out_shape + (g.k_h, g.k_w, g.channels)), g)


def max_pool_grad_grad(xp, x, grad, g: Geometry, floor):
    """Per window, ``grad`` at the window's first maximum (the adjoint of
    ``max_pool_grad``)."""
    shape = g.out_shape + (g.window, g.channels)
    first_max = _first_maxima(xp, x, g, floor)
    picked = xp.take_along_axis(patches(xp, grad, g).reshape(shape), first_max[:, :, :, None, :],
                                axis=3)
    return picked[:, :, :, 0, :]


def avg_pool_grad(xp, dy, g: Geometry, counts):
    share = (dy / counts[None, :, :, None]).astype(dy.dtype, copy=False)
    cols = xp.broadcast_to(share[:, :, :, None, None, :],
                           g.out_shape + (g.k_h, g.k_w, g.channels))
    return add_patches(xp, cols, g)


def max_pool_grad_grad_kernel(xp, node):
    """MaxPoolGradGrad's kernel on ``xp`` (numpy for the CPU, cupy for the GPU): second
    derivatives only, so no device has a faster loop for it."""
    params, out_dtype = PoolParams(node), node.output_dtype

    def kernel(x, y, grad):
        g = params.grad_geometry(x, y, grad)
        if 0 in params.output_shape(g):
            return xp.zeros(params.output_shape(g), out_dtype)
        out = max_pool_grad_grad(xp, x, grad, g, lowest(x.dtype))
        return xp.ascontiguousarray(out.astype(out_dtype, copy=False))
    return kernel
