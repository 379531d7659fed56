"""MaxPoolWithArgmax and Dilation2D on every device: the attrs read once, the run-time
shape checks, and the whole ops as array algorithms on any array module (the CUDA
kernels run them on cupy; the tests on numpy, against the reference's loops).

The rule the algorithms keep is TF's CPU loop, per window in row-major order over the
taps inside the input:

* MaxPoolWithArgmax takes the first tap, then any strictly larger one: the first
  maximum wins, and a NaN only where it is the first tap (``first tap NaN`` -> that
  tap; otherwise NaNs are passed over);
* Dilation2D starts from the dtype's lowest and takes any strictly larger
  ``input + filter``: NaNs never win; where nothing beats the lowest, the output is the
  lowest and the gradients go to TF's defaults (the input position
  ``(max(top, 0), max(left, 0))`` and filter tap (0, 0)).

Argmax indices are flat NHWC positions, ``(y * W + x) * C + c`` (plus ``b * H * W * C``
with ``include_batch_in_index``).  Scatters (the gradients) use ``bincount`` with
weights, so no device needs atomics or ``ufunc.at``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .checks import fmt_shape, invalid_argument
from .windows import (Geometry, PoolParams, check_rank4, check_shape, geometry, lowest,
                      patches, spatial)

__all__ = ["argmax_dtype", "ArgmaxPoolParams", "DilationParams", "argmax_pool", "argmax_scatter",
           "argmax_gather", "dilation", "dilation_input_grad", "dilation_filter_grad"]


def argmax_dtype(node) -> np.dtype:
    """MaxPoolWithArgmax's index dtype: its second output's (``Targmax``)."""
    if len(node.output_dtypes) > 1:
        return np.dtype(node.output_dtypes[1])
    dtype = node.attrs.get("Targmax", np.int64)
    return np.dtype(getattr(dtype, "np", dtype))


class ArgmaxPoolParams(PoolParams):
    """A MaxPoolWithArgmax-family node's attrs, read once: a max pool's, and
    ``include_batch_in_index``."""

    def __init__(self, node):
        super().__init__(node)
        self.include_batch = bool(node.attrs.get("include_batch_in_index", False))

    def grad_geometry(self, x, grad, argmax) -> Geometry:
        """MaxPoolGradWithArgmax's (grad pooled-shaped) or MaxPoolGradGradWithArgmax's
        (grad input-shaped) geometry; raises for shapes that do not fit or an argmax
        outside the input."""
        g = self.geometry(tuple(x.shape))
        name, op = self.node.name, self.node.op
        pooled = self.output_shape(g)
        check_shape(name, op, "argmax", argmax.shape, pooled)
        check_shape(name, op, "grad", grad.shape,
                    pooled if op == "MaxPoolGradWithArgmax" else tuple(x.shape))
        return g

    def check_indices(self, index, size: int) -> None:
        """``InvalidArgumentError`` unless every flat index lies in [0, size) (``index``
        an array on the host or the device; one reduction)."""
        if index.size and (int(index.min()) < 0 or int(index.max()) >= size):
            raise invalid_argument(self.node.name, self.node.op,
                                   f"Invalid input argmax: an index lies outside [0, {size})")


class DilationParams:
    """A Dilation2D-family node's attrs, read once."""

    def __init__(self, node):
        self.node = node
        self.strides = spatial(node.attrs["strides"], node.name, node.op, "strides")
        self.rates = spatial(node.attrs["rates"], node.name, node.op, "rates")
        self.padding = node.attrs["padding"]

    def geometry(self, x_shape: tuple, f_shape: tuple) -> Geometry:
        name, op = self.node.name, self.node.op
        check_rank4(name, op, x_shape, "input")
        if len(f_shape) != 3:
            raise invalid_argument(name, op, f"filter must be 3-dimensional: "
                                   f"{fmt_shape(f_shape)}")
        if x_shape[3] != f_shape[2]:
            raise invalid_argument(name, op, f"input and filter must have the same depth: "
                                   f"{x_shape[3]} vs {f_shape[2]}")
        return geometry(name, op, x_shape, f_shape[:2], self.strides, self.rates,
                        self.padding)

    def output_shape(self, g: Geometry) -> tuple:
        return (g.batch, g.out_h, g.out_w, g.channels)

    def backprop_geometry(self, x, f, dy) -> Geometry:
        g = self.geometry(tuple(x.shape), tuple(f.shape))
        check_shape(self.node.name, self.node.op, "out_backprop", dy.shape,
                    self.output_shape(g))
        return g


# ------------------------------------------------------------------ xp algorithms

def _inside(xp, g: Geometry):
    """(1, OH, OW, KH*KW, 1) bool: which taps of each window lie on the input."""
    one = dataclasses.replace(g, batch=1, channels=1)
    ones = np.ones((1, g.in_h, g.in_w, 1), np.bool_)
    return xp.asarray(patches(np, ones, one).reshape(one.out_shape + (g.window, 1)))


def _window_starts(xp, g: Geometry):
    """(OH, 1) rows and (1, OW) columns where each window's first tap falls."""
    rows = xp.arange(g.out_h).reshape(-1, 1) * g.stride_h - g.pad_top
    cols = xp.arange(g.out_w).reshape(1, -1) * g.stride_w - g.pad_left
    return rows, cols


def _tap_position(xp, g: Geometry, tap):
    """(row, column) on the input of window tap ``tap`` (N, OH, OW, C)."""
    rows, cols = _window_starts(xp, g)
    row = rows[None, :, :, None] + (tap // g.k_w) * g.dil_h
    col = cols[None, :, :, None] + (tap % g.k_w) * g.dil_w
    return row, col


def _flat_index(xp, g: Geometry, row, col, with_batch: bool):
    """Flat NHWC positions of (row, col) per (N, OH, OW, C)."""
    index = (row * g.in_w + col) * g.channels + xp.arange(g.channels).reshape(1, 1, 1, -1)
    if with_batch:
        index = index + (xp.arange(g.batch) * (g.in_h * g.in_w * g.channels)
                         ).reshape(-1, 1, 1, 1)
    return index.astype(np.int64)


def argmax_pool(xp, x, g: Geometry, include_batch: bool):
    """MaxPoolWithArgmax: ``(output, argmax int64)`` by TF's CPU rule (module docstring)."""
    floor = lowest(x.dtype)
    flat = patches(xp, x, g, floor).reshape(g.out_shape + (g.window, g.channels))
    inside = _inside(xp, g)
    first = inside.argmax(axis=3)[..., None, :]                  # (1, OH, OW, 1, 1)
    first_value = xp.take_along_axis(flat, xp.broadcast_to(
        first, g.out_shape + (1, g.channels)), axis=3)[:, :, :, 0, :]
    masked = xp.where(inside & (flat == flat), flat, floor)
    top = masked.max(axis=3)
    tap = ((masked == top[:, :, :, None, :]) & inside).argmax(axis=3)
    nan_first = first_value != first_value
    tap = xp.where(nan_first, first[:, :, :, 0, :], tap)
    out = xp.where(nan_first, first_value, top)
    row, col = _tap_position(xp, g, tap)
    return out, _flat_index(xp, g, row, col, include_batch)


def _global_index(xp, g: Geometry, argmax, include_batch: bool):
    """``argmax`` as positions in the whole input (the batch added where it is not in)."""
    index = argmax.astype(np.int64)
    if not include_batch:
        index = index + (xp.arange(g.batch, dtype=np.int64) * (g.in_h * g.in_w * g.channels)
                         ).reshape(-1, 1, 1, 1)
    return index


def argmax_scatter(xp, g: Geometry, dy, argmax, include_batch: bool, params=None):
    """MaxPoolGradWithArgmax: each ``dy`` added at its argmax, an input-shaped array."""
    size = g.batch * g.in_h * g.in_w * g.channels
    index = _global_index(xp, g, argmax, include_batch)
    if params is not None:
        params.check_indices(index, size)
    sums = xp.bincount(index.reshape(-1), weights=dy.reshape(-1).astype(np.float64),
                       minlength=size)
    return sums.astype(dy.dtype).reshape(g.batch, g.in_h, g.in_w, g.channels)


def argmax_gather(xp, g: Geometry, grad, argmax, include_batch: bool, params=None):
    """MaxPoolGradGradWithArgmax: ``grad`` (input-shaped) read back at each argmax."""
    index = _global_index(xp, g, argmax, include_batch)
    if params is not None:
        params.check_indices(index, grad.size)
    return grad.reshape(-1)[index]


def _dilation_taps(xp, x, f, g: Geometry):
    """(output, found, tap): the maximum of ``x + f`` over each window's taps inside the
    input (NaN passed over), whether any beat the dtype's lowest, and the first tap
    that did."""
    floor = lowest(x.dtype)
    values = patches(xp, x, g, floor).reshape(g.out_shape + (g.window, g.channels))
    values = values + f.reshape(1, 1, 1, g.window, g.channels)
    masked = xp.where(_inside(xp, g) & (values == values), values, floor)
    top = masked.max(axis=3)
    tap = (masked == top[:, :, :, None, :]).argmax(axis=3)
    return top, top > floor, tap


def dilation(xp, x, f, g: Geometry):
    return _dilation_taps(xp, x, f, g)[0]


def dilation_input_grad(xp, x, f, dy, g: Geometry):
    """Each gradient to the input position its window's maximum read (TF's default
    position where nothing beat the lowest)."""
    _, found, tap = _dilation_taps(xp, x, f, g)
    row, col = _tap_position(xp, g, tap)
    rows, cols = _window_starts(xp, g)
    row = xp.where(found, row, xp.maximum(rows, 0)[None, :, :, None])
    col = xp.where(found, col, xp.maximum(cols, 0)[None, :, :, None])
    index = _flat_index(xp, g, row, col, True)
    size = g.batch * g.in_h * g.in_w * g.channels
    sums = xp.bincount(index.reshape(-1), weights=dy.reshape(-1).astype(np.float64),
                       minlength=size)
    return sums.astype(dy.dtype).reshape(x.shape)


def dilation_filter_grad(xp, x, f, dy, g: Geometry):
    """Each gradient to the filter tap its window's maximum used (tap 0 where nothing
    beat the lowest)."""
    _, found, tap = _dilation_taps(xp, x, f, g)
    tap = xp.where(found, tap, 0)
    index = tap * g.channels + xp.arange(g.channels).reshape(1, 1, 1, -1)
    sums = xp.bincount(index.reshape(-1).astype(np.int64),
                       weights=dy.reshape(-1).astype(np.float64), minlength=g.window * g.channels)
    return sums.astype(dy.dtype).reshape(f.shape)
