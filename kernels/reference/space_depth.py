"""Kernels of the space/depth ops (``devsession/ops/space_depth.py``) for every device:
SpaceToDepth, DepthToSpace, SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace
and ExtractImagePatches.

Data movement only, so, as ``array.py``'s, each kernel is the array library's own
reshapes and transposes: one copy (plus one zero-filled padded buffer for SpaceToBatch's
paddings, one strided copy per window offset for ExtractImagePatches:
``windows.patches``).  This module registers the numpy builders for the reference
device and the CPU (``HOST``); ``cuda/space_depth.py`` registers ``make_builders(cupy,
on_device)``, so the checks and TF's messages are the same on every device.

* SpaceToDepth (NHWC): ``[n, h/b, b, w/b, b, c]`` -> axes ``(0, 1, 3, 2, 4, 5)`` ->
  ``[n, h/b, w/b, b*b*c]``; DepthToSpace the same permutation of ``[n, h, w, b, b,
  c/b/b]``.  NCHW permutes its own layout the same way (one copy too), so the channels
  come out in NHWC's order: (row in the tile, column in the tile, channel).
* SpaceToBatchND: the padded input ``[n, p1/b1, b1, ..., pM/bM, bM, rest...]`` ->
  ``(b1, ..., bM, n, p1/b1, ..., pM/bM, rest...)`` -> ``[b1*...*bM*n, ...]``;
  BatchToSpaceND the inverse permutation, then the crop (a slice, copied).
* ExtractImagePatches: ``windows.patches`` (``[n, oh, ow, kh, kw, c]``, padding reads
  zero) reshaped to ``[n, oh, ow, kh*kw*c]``; a VALID window up to a stride past the
  input is TF's 0 patches (``windows.patches_output_size``), not an error.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ...errors import UnimplementedError
from ..checks import fmt_shape, get_attr, invalid_argument
from ..registry import HOST, register_kernel
from ..windows import geometry, patches, patches_output_size, spatial
from .array import _as_is, on_host

__all__ = ["make_builders"]


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders for array module ``xp`` (numpy or cupy); ``wrap(node, fn)`` wraps
    each kernel (the GPU's ``on_device``)."""
    def wrapped(make):
        return lambda node: wrap(node, make(node, xp))

    return {"SpaceToDepth": wrapped(_space_to_depth), "DepthToSpace": wrapped(_depth_to_space),
            "SpaceToBatchND": wrapped(_batch_space(_space_to_batch, "paddings", False)),
            "BatchToSpaceND": wrapped(_batch_space(_batch_to_space, "crops", False)),
            "SpaceToBatch": wrapped(_batch_space(_space_to_batch, "paddings", True)),
            "BatchToSpace": wrapped(_batch_space(_batch_to_space, "crops", True)),
            "ExtractImagePatches": wrapped(_extract_image_patches)}


# --- SpaceToDepth, DepthToSpace -----------------------------------------------------------------

def _depth_attrs(node) -> tuple[int, bool]:
    block = int(get_attr(node, "block_size"))
    fmt = node.attrs.get("data_format", "NHWC")
    if block < 2 or fmt not in ("NHWC", "NCHW"):
        raise invalid_argument(node.name, node.op, f"block_size {block} must be at least 2 "
                               f"and data_format NHWC or NCHW, got {fmt!r}")
    return block, fmt == "NCHW"


def _check_rank(node, x, rank: int = 4) -> None:
    if x.ndim != rank:
        raise invalid_argument(node.name, node.op, f"Input rank should be: {rank} instead "
                               f"of: {x.ndim}")


def _fresh(xp, view):
    """A new C-contiguous array holding ``view`` (one copy, never the input's memory,
    even where numpy could reshape without copying)."""
    out = xp.empty(view.shape, view.dtype)
    out[...] = view
    return out


def _space_to_depth(node, xp):
    block, nchw = _depth_attrs(node)

    def space_to_depth(x):
        _check_rank(node, x)
        n, h, w, c = (x.shape[0], *x.shape[2:], x.shape[1]) if nchw else x.shape
        if h % block or w % block:
            raise invalid_argument(node.name, node.op, f"Image width {w} and height {h} "
                                   f"should be divisible by block_size: {block}")
        oh, ow, depth = h // block, w // block, block * block * c
        if nchw:   # [n, c, oh, bi, ow, bj] -> [n, bi, bj, c, oh, ow]
            tiles = x.reshape(n, c, oh, block, ow, block).transpose(0, 3, 5, 1, 2, 4)
            return _fresh(xp, tiles).reshape(n, depth, oh, ow)
        tiles = x.reshape(n, oh, block, ow, block, c).transpose(0, 1, 3, 2, 4, 5)
        return _fresh(xp, tiles).reshape(n, oh, ow, depth)
    return space_to_depth


def _depth_to_space(node, xp):
    block, nchw = _depth_attrs(node)

    def depth_to_space(x):
        _check_rank(node, x)
        n, h, w, c = (x.shape[0], *x.shape[2:], x.shape[1]) if nchw else x.shape
        if c % (block * block):
            raise invalid_argument(node.name, node.op, f"Input depth dimension {c} should be "
                                   f"divisible by: {block * block}")
        depth = c // (block * block)
        if nchw:   # [n, bi, bj, d, h, w] -> [n, d, h, bi, w, bj]
            tiles = x.reshape(n, block, block, depth, h, w).transpose(0, 3, 4, 1, 5, 2)
            return _fresh(xp, tiles).reshape(n, depth, h * block, w * block)
        tiles = x.reshape(n, h, w, block, block, depth).transpose(0, 1, 3, 2, 4, 5)
        return _fresh(xp, tiles).reshape(n, h * block, w * block, depth)
    return depth_to_space


# --- SpaceToBatchND, BatchToSpaceND -------------------------------------------------------------

def _block_and_pairs(node, x, block_shape, amounts, what: str) -> tuple[list, list]:
    """The host values of ``block_shape`` and ``paddings``/``crops``, checked as TF's
    kernels check them (with their messages)."""
    block = on_host(block_shape)
    if block.ndim != 1:
        raise invalid_argument(node.name, node.op, f"block_shape rank should be 1 instead "
                               f"of {block.ndim}")
    m = block.shape[0]
    if x.ndim < 1 + m:
        raise invalid_argument(node.name, node.op, f"input rank should be >= {1 + m} "
                               f"instead of {x.ndim}")
    pairs = on_host(amounts)
    if pairs.shape != (m, 2):
        raise invalid_argument(node.name, node.op, f"{what} should have shape [{m}, 2] "
                               f"instead of {fmt_shape(pairs.shape)}")
    for i, b in enumerate(block.tolist()):
        if b < 1:
            raise invalid_argument(node.name, node.op, f"All values in block_shape must be "
                                   f"positive, got value, {b} at index {i}.")
    if pairs.size and pairs.min() < 0:
        raise invalid_argument(node.name, node.op, f"{what.capitalize()} must be "
                               f"non-negative")
    return [int(b) for b in block], [(int(a), int(b)) for a, b in pairs.tolist()]


def _space_to_batch(xp, node, x, block: list, pads: list):
    m, n = len(block), x.shape[0]
    padded_dims = [d + a + b for d, (a, b) in zip(x.shape[1:m + 1], pads)]
    for i, (size, b) in enumerate(zip(padded_dims, block)):
        if size % b:
            raise invalid_argument(node.name, node.op, f"padded_shape[{i}]={size} is not "
                                   f"divisible by block_shape[{i}]={b}")
    rest = tuple(x.shape[m + 1:])
    if any(a or b for a, b in pads):
        padded = xp.zeros((n, *padded_dims, *rest), x.dtype)
        padded[(slice(None), *(slice(a, a + d) for d, (a, _) in
                               zip(x.shape[1:m + 1], pads)))] = x
    else:
        padded = x
    tiled = padded.reshape(n, *(v for size, b in zip(padded_dims, block)
                                for v in (size // b, b)), *rest)
    perm = ([2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
            + list(range(1 + 2 * m, tiled.ndim)))
    out_shape = (n * math.prod(block), *(size // b for size, b in zip(padded_dims, block)),
                 *rest)
    return _fresh(xp, tiled.transpose(perm)).reshape(out_shape)


def _batch_to_space(xp, node, x, block: list, crops: list):
    m, product = len(block), math.prod(block)
    if x.shape[0] % product:
        raise invalid_argument(node.name, node.op, f"Input batch dimension ({x.shape[0]}) is "
                               f"not divisible by product of block sizes ({product})")
    for i, (d, b, (start, end)) in enumerate(zip(x.shape[1:m + 1], block, crops)):
        if d * b - start - end < 0:
            raise invalid_argument(node.name, node.op, f"cropped_shape[{i}]="
                                   f"{d * b - start - end} must be non-negative")
    n, spatial, rest = x.shape[0] // product, tuple(x.shape[1:m + 1]), tuple(x.shape[m + 1:])
    tiled = x.reshape(*block, n, *spatial, *rest)
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1,
                                                                              tiled.ndim))
    whole = _fresh(xp, tiled.transpose(perm)).reshape(
        n, *(d * b for d, b in zip(spatial, block)), *rest)
    if not any(start or end for start, end in crops):
        return whole
    return _fresh(xp, whole[(slice(None), *(slice(start, d * b - end) for d, b, (start, end)
                                            in zip(spatial, block, crops)))])


def _square(node) -> list:
    block = int(get_attr(node, "block_size"))
    if block < 2:
        raise invalid_argument(node.name, node.op, f"Block size should be > 1: {block}")
    return [block, block]


def _batch_space(move, what: str, four_d: bool):
    """The kernel maker of SpaceToBatch(ND) (``move`` ``_space_to_batch``, ``what``
    "paddings") or BatchToSpace(ND) (``_batch_to_space``, "crops"): the ND op reads
    ``block_shape`` as its second input, the 4-D one has ``block_size``'s square
    block and a rank-4 input."""
    def make(node, xp):
        square = _square(node) if four_d else None

        def kernel(x, *inputs):
            if four_d:
                _check_rank(node, x)
            block_shape, amounts = (square, *inputs) if four_d else inputs
            block, pairs = _block_and_pairs(node, x, block_shape, amounts, what)
            return move(xp, node, x, block, pairs)
        return kernel
    return make


def _extract_image_patches(node, xp):
    # the attrs were checked when the graph was built (ops/space_depth.py), except TF's
    # kernel's: nothing but 1 in the batch and depth dimensions
    for key in ("ksizes", "strides", "rates"):
        values = [int(v) for v in get_attr(node, key)]
        if values[0] != 1 or values[3] != 1:
            raise UnimplementedError(f"{node.op} node '{node.name}': Only support {key} "
                                     f"across space.", node_name=node.name)
    ksize, strides, rates = (spatial(get_attr(node, key), node.name, node.op, key)
                             for key in ("ksizes", "strides", "rates"))
    padding = get_attr(node, "padding")

    def extract_image_patches(x):
        if len(x.shape) == 4:
            sizes = [patches_output_size(size, k, s, r, padding) for size, k, s, r
                     in zip(x.shape[1:3], ksize, strides, rates)]
            if 0 in sizes and min(sizes) == 0:  # a window just past the input: TF's none
                depth = ksize[0] * ksize[1] * x.shape[3]
                return xp.zeros((x.shape[0], *sizes, depth), x.dtype)
        g = geometry(node.name, node.op, x.shape, ksize, strides, rates, padding)
        return patches(xp, x, g).reshape(g.out_shape + (g.window * g.channels,))
    return extract_image_patches


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
