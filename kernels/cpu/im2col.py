"""Packing a convolution's windows as matrix rows or columns (im2col), and adding them
back (col2im): the numba loops ``nn_conv``'s chunked path and ``conv_fused``'s per-image
one share.  ``g`` is ``Geometry.numba_args()``: (H, W, C, KH, KW, SH, SW, DH, DW, PT,
PL, OH, OW); ``x`` and ``dx`` are (N, H, W*C).
"""

from __future__ import annotations

from .reduce import JIT, PAR

import llvmlite.ir as ir  # noqa: E402
from numba import njit, prange, types  # noqa: E402  (after numba_setup, which reduce imports)
from numba.core import cgutils  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

__all__ = ["copy_bytes", "pack_window", "im2col", "im2col_transposed", "pack_tap", "col2im",
           "col2im_row"]


@intrinsic
def copy_bytes(typingctx, target, source, count):
    """memcpy between two addresses (integers)."""
    def codegen(context, builder, sig, args):
        bytes_ = ir.IntType(8).as_pointer()
        cgutils.raw_memcpy(builder, builder.inttoptr(args[0], bytes_),
                           builder.inttoptr(args[1], bytes_), args[2], 1)
        return context.get_dummy_value()
    return types.void(types.int64, types.int64, types.int64), codegen


@intrinsic
def _zero_bytes(typingctx, target, count):
    """memset to 0 at an address (an integer)."""
    def codegen(context, builder, sig, args):
        cgutils.memset(builder, builder.inttoptr(args[0], ir.IntType(8).as_pointer()),
                       args[1], 0)
        return context.get_dummy_value()
    return types.void(types.int64, types.int64), codegen


@njit(**JIT)
def pack_window(x, g, n, oh, ow, out):
    """out[(kh*KW + kw)*C + c] = x[n, ih, iw, c] for window (oh, ow), 0 on padding.
    ``x`` is (N, H, W*C) and ``out`` a row, both contiguous along their last axis: a
    row of the window with dilation 1 is one run, copied by memcpy.  Addresses, not
    slice assignments: numba's cost ~15 ns each, and at five rows of up to three runs
    a window they took most of the packing (Deep MNIST layer 2, 64 images on one thread:
    3.3 ms with slices, 7.9 ms with loops of single values, 1.06 ms so)."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    size = x.itemsize
    left = ow * SW - PL
    row = KW * C
    target = out.ctypes.data
    for kh in range(KH):
        ih = oh * SH - PT + kh * DH
        at = target + kh * row * size
        if ih < 0 or ih >= H:
            _zero_bytes(at, row * size)
            continue
        source = x.ctypes.data + n * x.strides[0] + ih * x.strides[1]
        if DW == 1:
            first = min(max(-left, 0), KW) * C              # the run inside the input
            last = max(min(W - left, KW) * C, first)
            _zero_bytes(at, first * size)
            copy_bytes(at + first * size, source + (left * C + first) * size,
                       (last - first) * size)
            _zero_bytes(at + last * size, (row - last) * size)
        else:
            for kw in range(KW):
                iw = left + kw * DW
                if 0 <= iw < W:
                    copy_bytes(at + kw * C * size, source + iw * C * size, C * size)
                else:
                    _zero_bytes(at + kw * C * size, C * size)


@njit(**PAR)
def im2col(x, g, n0, n1, cols):
    """cols[w] = the packed window w of images n0..n1-1 (windows in NHW order)."""
    per_image = g[11] * g[12]
    for w in prange((n1 - n0) * per_image):
        rest = w % per_image
        pack_window(x, g, n0 + w // per_image, rest // g[12], rest % g[12], cols[w])


@njit(**PAR)
def im2col_transposed(x, g, n0, n1, cols_t):
    """cols_t[(kh*KW + kw)*C + c, w] = the same values as ``im2col``'s cols[w, ...], one
    (image, filter tap) a task: each writes runs of OW values, where ``im2col`` would
    copy runs of only KW*C values per window (few channels)."""
    taps = g[3] * g[4]
    for t in prange((n1 - n0) * taps):
        pack_tap(x, g, t % taps, n0 + t // taps, cols_t, (t // taps) * g[11])


@njit(**JIT)
def pack_tap(x, g, tap, n, cols_t, r0):
    """Filter tap ``tap``'s values for every output row of image ``n``: output row oh
    goes to row block ``r0 + oh`` (OW values) of each of the tap's C rows of ``cols_t``.
    The columns inside the input are found once per tap, not tested per value."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    kh, kw = tap // KW, tap % KW
    shift = kw * DW - PL                      # iw = ow * SW + shift
    first = min(-(shift // SW) if shift < 0 else 0, OW)   # the first ow inside the row
    last = max(min((W - 1 - shift) // SW + 1 if W - 1 - shift >= 0 else 0, OW), first)
    size = x.itemsize
    for oh in range(OH):
        ih = oh * SH - PT + kh * DH
        at = (r0 + oh) * OW
        for c in range(C):
            target = cols_t.ctypes.data + (tap * C + c) * cols_t.strides[0] + at * size
            if ih < 0 or ih >= H:
                _zero_bytes(target, OW * size)
                continue
            _zero_bytes(target, first * size)
            _zero_bytes(target + last * size, (OW - last) * size)
            if SW == 1 and C == 1:                  # one run: memcpy (as pack_window)
                source = x.ctypes.data + n * x.strides[0] + ih * x.strides[1]
                copy_bytes(target + first * size, source + (first + shift) * size,
                           (last - first) * size)
            else:
                for ow in range(first, last):
                    cols_t[tap * C + c, at + ow] = x[n, ih, (ow * SW + shift) * C + c]


@njit(**PAR)
def col2im(cols, g, n0, n1, dx):
    """dx[n0:n1] = the sum, per input element, of the packed window values that read it
    (a gather: each (image, input row) is written by one iteration)."""
    for t in prange((n1 - n0) * g[0]):
        col2im_row(cols, g, t // g[0], t % g[0], dx[n0 + t // g[0], t % g[0]])


@njit(**JIT)
def col2im_row(cols, g, i, ih, row):
    """Input row ``ih`` of the ``i``-th image in ``cols``: the sum of what reads it."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    row[:] = 0
    for kh in range(KH):
        reach = ih + PT - kh * DH
        if reach < 0 or reach % SH != 0 or reach // SH >= OH:
            continue
        first = (i * OH + reach // SH) * OW
        for kw in range(KW):
            at = (kh * KW + kw) * C
            for iw in range(W):
                across = iw + PL - kw * DW
                if across < 0 or across % SW != 0 or across // SW >= OW:
                    continue
                src = cols[first + across // SW]
                for c in range(C):
                    row[iw * C + c] += src[at + c]
