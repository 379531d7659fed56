"""ExtractGlimpse and ExtractGlimpseV2 kernels (HOST: the reference's and the CPU's; the
GPU runs them through the host): TF's ``attention_ops.cc`` over Eigen's
``eigen_attention.h``.

Per image, the offset ``(y, x)`` becomes the window's top-left corner: normalized
offsets are scaled by the image's size; centered ones halved and moved by half the
image; then half the window is taken off (version 1, ExtractGlimpse: always; V2: only
for centered, normalized offsets), and the corner is truncated toward zero.  A window
inside the image is copied.  One reaching its edge or beyond (corner < 0, or corner +
size >= image size) is first filled with the noise, then the part inside the image
copied over it: "uniform" draws ``min + u * (max - min)`` over the whole image,
"gaussian" ``mean + n * stddev`` per channel clipped to the channel's range, "zero"
zeros.  The noise attr decides when not empty (so TF1's ``uniform_noise=False`` still
gets uniform noise, its op's default ``noise`` being "uniform"); an empty one lets
``uniform_noise`` choose uniform or gaussian.  The noise is unseeded, as TF's.
Errors are ``InvalidArgumentError`` naming the node, in TF's order.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .array import on_host

__all__ = ["glimpse_corner", "build_extract_glimpse"]


def glimpse_corner(offset: float, image: int, window: int, centered: bool,
                   normalized: bool, version: int) -> int:
    """The window's first row (or column) for ``offset`` along an axis of ``image``
    pixels, in float32 as TF's kernel computes it."""
    f = np.float32
    at = f(offset)
    if normalized:
        at = at * f(image)
    if centered and (normalized or version == 1):
        at = at / f(2) + f(image) / f(2)
    elif centered:
        at = at + f(image) / f(2)
    if version == 1 or (normalized and centered):
        at = at - f(window) / f(2)
    return int(at)                                   # C's cast: toward zero


def _noise_mode(node, attrs) -> str:
    noise, uniform = attrs.get("noise", "uniform"), attrs.get("uniform_noise", True)
    if uniform and noise not in ("", "uniform"):
        raise invalid_argument(node.name, node.op, "The uniform_noise and noise could not be "
                                                   "specified at the same time")
    if not noise:
        return "uniform" if uniform else "gaussian"
    if noise not in ("uniform", "gaussian", "zero"):
        raise invalid_argument(node.name, node.op, f"The noise could only be uniform, "
                                                   f"gaussian, or zero, got{noise}")
    return noise


def _fill(image: np.ndarray, shape: tuple, mode: str, rng) -> np.ndarray:
    if mode == "zero":
        return np.zeros(shape, np.float32)
    if mode == "uniform":
        low, high = image.min(), image.max()
        return (low + rng.random(shape, np.float32) * (high - low)).astype(np.float32)
    mean, sigma = image.mean(axis=(0, 1)), image.std(axis=(0, 1))
    drawn = mean + rng.standard_normal(shape, np.float32) * sigma
    return np.clip(drawn, image.min(axis=(0, 1)), image.max(axis=(0, 1))).astype(np.float32)


def _span(corner: int, window: int, size: int):
    """(source start, length, destination start) of the window's part inside the
    image, and whether it reaches the edge (TF's partial overlap)."""
    if corner < 0:
        length = max(0, window + corner)
        return 0, min(size, length), window - length, True
    if corner + window >= size:
        return corner, min(size, max(0, size - corner)), 0, True
    return corner, window, 0, False


def _check(node, images, size, offsets):
    if images.ndim != 4:
        raise invalid_argument(node.name, node.op, "input must be 4-dimensional (batch_size, "
                                                   f"height, width, depth){fmt_shape(images.shape)}")
    if size.shape != (2,):
        raise invalid_argument(node.name, node.op, "input must be a vector of size 2 (height, "
                                                   f"width){fmt_shape(size.shape)}")
    if np.any(size < 0):
        raise invalid_argument(node.name, node.op, f"Expected a non-negative size, got "
                                                   f"{int(size.min())}")
    if offsets.ndim != 2:
        raise invalid_argument(node.name, node.op, f"input must be a matrix"
                                                   f"{fmt_shape(offsets.shape)}")
    if offsets.shape[0] != images.shape[0]:
        raise invalid_argument(node.name, node.op, f"first dimension should be batch"
                                                   f"{fmt_shape(offsets.shape)}")
    if offsets.shape[1] != 2:
        raise invalid_argument(node.name, node.op, f"second dimension should be of size 2 "
                                                   f"(y,x){fmt_shape(offsets.shape)}")


@register_kernel(("ExtractGlimpse", "ExtractGlimpseV2"), HOST)
def build_extract_glimpse(node):
    attrs = node.attrs
    version = 1 if node.op == "ExtractGlimpse" else 2
    centered, normalized = attrs.get("centered", True), attrs.get("normalized", True)

    def extract_glimpse(images, size, offsets):
        mode = _noise_mode(node, attrs)
        images, size, offsets = on_host(images), np.asarray(size), np.asarray(offsets)
        _check(node, images, size, offsets)
        batch, height, width, channels = images.shape
        rows, columns = int(size[0]), int(size[1])
        out = np.zeros((batch, rows, columns, channels), np.float32)
        if out.size == 0:
            return out
        rng = np.random.default_rng()                # unseeded, as TF's noise
        for b in range(batch):
            y = glimpse_corner(offsets[b, 0], height, rows, centered, normalized, version)
            x = glimpse_corner(offsets[b, 1], width, columns, centered, normalized, version)
            y0, h, dy, y_edge = _span(y, rows, height)
            x0, w, dx, x_edge = _span(x, columns, width)
            if y_edge or x_edge:
                out[b] = _fill(images[b], out.shape[1:], mode, rng)
            if h > 0 and w > 0:
                out[b, dy:dy + h, dx:dx + w] = images[b, y0:y0 + h, x0:x0 + w]
        return out
    return extract_glimpse
