"""``ds.image``'s colour spaces and colour adjustments, built from elementwise ops.

TensorFlow has kernels for RGBToHSV, HSVToRGB, AdjustHue and AdjustSaturation; devsession
builds the same formulas (TF's ``colorspace_op.h``) from ``maximum``, ``minimum``,
``where``, ``floormod`` and arithmetic, so the values match TF's to float rounding and
gradients come with the ops (TF has one only for RGBToHSV, and ``rgb_to_hsv`` gives that
one, ``custom_gradient``: on ties and 0 channels it is not the composite's derivative):

* ``rgb_to_hsv``: ``V = max(R, G, B)``, ``S = (V - min) / V`` (0 where V is 0), ``H`` in
  [0, 1) from whichever channel is the maximum (R first, then G), 0 for grays.
* ``hsv_to_rgb``: TF's branch-free form, each channel ``(1 - S + S * d) * V`` with ``d``
  a clipped tent of ``6 H``.
* ``adjust_hue`` adds ``delta`` to H and wraps it into [0, 1); ``adjust_saturation``
  scales S and clips it to [0, 1].  Both compute in float32 (integer images converted
  with ``convert_image_dtype``, float16 and float32 kept) and convert back unsaturated,
  as TF; ``random_hue`` and ``random_saturation`` draw the delta or factor uniformly with
  TF1's op ``seed``.
* ``adjust_gamma``: ``gain * x ** gamma`` in float, converted back saturated.
* ``rgb_to_yiq``, ``yiq_to_rgb``, ``rgb_to_yuv``, ``yuv_to_rgb``: a 3x3 matrix on the
  channel axis with TF's coefficients (float images only, as TF).

Images are ``[..., 3]`` of known rank (a single HWC image or an NHWC batch); another
channel count is a ``ValueError`` when the graph is built, except for ``adjust_hue`` and
``adjust_saturation``, which build (rank at least 3, as TF's shape functions) and fail
the run with ``InvalidArgumentError``, as TF's kernels.

    image = ds.image.random_hue(ds.image.random_saturation(image, 0.5, 1.5), 0.2)
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .custom_gradient import custom_gradient
from .graph import Tensor, convert_to_tensor, name_scope
from .image_checks import after, assert_or_raise, is_tensor, random_factor
from .image_dtype import as_float, convert_image_dtype
from .ops import (cast, concat, constant, div_no_nan, equal, logical_and, matmul, maximum,
                  minimum, ones_like, random_uniform, reshape, shape, square, stack, unstack,
                  where, zeros_like)
from .ops.elementwise import abs as abs_op, floormod, pow as pow_op

__all__ = ["rgb_to_hsv", "hsv_to_rgb", "adjust_saturation", "random_saturation",
           "adjust_hue", "random_hue", "adjust_gamma", "rgb_to_yiq", "yiq_to_rgb",
           "rgb_to_yuv", "yuv_to_rgb"]


def _three_channels(images, what: str) -> Tensor:
    """``images`` as a tensor with 3 channels (or an unknown count or rank, which the run
    must supply: else Unpack's ``InvalidArgumentError``, where TF's kernels raise theirs);
    TypeError for a non-float image (TF's kernels take floats)."""
    images = convert_to_tensor(images, name="images")
    if not images.dtype.is_floating:
        raise TypeError(f"{what}: 'images' must be float16, float32 or float64, got "
                        f"{images.dtype.name}.")
    if images.shape.ndims is None:
        return images
    if images.shape.ndims < 1:
        raise ValueError(f"{what}: 'images' (shape {images.shape}) must have a rank of at "
                         f"least 1.")
    if images.shape.dims[-1] not in (None, 3):
        raise ValueError(f"{what}: 'images' must have 3 channels in the last dimension, "
                         f"got shape {images.shape}.")
    return images


def _channels(images: Tensor) -> list:
    return unstack(images, 3, axis=-1)


def _safe(denominator: Tensor, usable: Tensor) -> Tensor:
    """``denominator`` where ``usable``, else 1: a division whose result ``where``
    discards then stays finite, and so does its gradient."""
    return where(usable, denominator, ones_like(denominator))


def _rgb_to_hsv(images: Tensor) -> Tensor:
    red, green, blue = _channels(images)
    value = maximum(maximum(red, green), blue)
    chroma = value - minimum(minimum(red, green), blue)
    zero = zeros_like(value)
    saturation = where(value > 0, chroma / _safe(value, value > 0), zero)
    has_hue = chroma > 0
    norm = (1.0 / _safe(chroma, has_hue)) * (1.0 / 6.0)
    hue = where(equal(red, value), norm * (green - blue),
                where(equal(green, value), norm * (blue - red) + 2.0 / 6.0,
                      norm * (red - green) + 4.0 / 6.0))
    hue = where(has_hue, hue, zero)
    hue = where(hue < 0, hue + 1.0, hue)
    return stack([hue, saturation, value], axis=-1)


def _hsv_to_rgb(images: Tensor) -> Tensor:
    hue, saturation, value = _channels(images)
    sixths = hue * 6.0

    def tent(x):
        return minimum(maximum(x, 0.0), 1.0)

    d_red = tent(abs_op(sixths - 3.0) - 1.0)
    d_green = tent(2.0 - abs_op(sixths - 2.0))
    d_blue = tent(2.0 - abs_op(sixths - 4.0))
    grey = 1.0 - saturation
    return stack([(grey + saturation * d) * value for d in (d_red, d_green, d_blue)],
                 axis=-1)


def _rgb_to_hsv_grad(images: Tensor, hsv: Tensor, grad: Tensor) -> Tensor:
    """TF's gradient of RGBToHSV (``image_grad.py``), term by term: ties go to R, then
    G, then B as the maximum (B, then G, then R as the minimum), every term of a channel
    that is 0 is dropped (so a 0 channel gets no saturation gradient), and reciprocals
    of 0 are 0 (``div_no_nan``), its quirks kept so that gradients match TF's."""
    r, g, b = _channels(images)
    _, saturation, value = _channels(hsv)
    dtype = images.dtype

    def mask(condition):
        return cast(condition, dtype)

    def recip(x):
        return div_no_nan(ones_like(x), x)

    big = {"r": mask(logical_and(r >= b, r >= g)), "g": mask(logical_and(g > r, g >= b)),
           "b": mask(logical_and(b > r, b > g))}
    small = {"r": mask(logical_and(r < b, r < g)), "g": mask(logical_and(g <= r, g < b)),
             "b": mask(logical_and(b <= r, b <= g))}
    x = {"r": r, "g": g, "b": b}
    pos = {c: mask(x[c] > 0) for c in x}
    spread = recip(square(saturation)) * recip(square(value))
    d_value = [big[c] for c in "rgb"]
    d_saturation = [pos[c] * (big[c] * (small[o] * x[o] + small[p] * x[p]) *
                              recip(square(x[c])) -
                              small[c] * recip(big[o] * x[o] + big[p] * x[p]))
                    for c, o, p in (("r", "g", "b"), ("g", "r", "b"), ("b", "g", "r"))]
    d_hue = [  # TF's five terms for each channel, as it writes them
        (pos["r"] * big["r"] * -(g - b) * spread
         + pos["g"] * big["g"] * small["r"] * (b - g) * recip(square(r - g))
         - pos["g"] * big["g"] * small["b"] * recip(g - b)
         + pos["b"] * big["b"] * small["r"] * (b - g) * recip(square(b - r))
         + pos["b"] * big["b"] * small["g"] * recip(b - g)),
        (pos["g"] * big["g"] * -(b - r) * spread
         + pos["r"] * big["r"] * small["g"] * (r - b) * recip(square(r - g))
         + pos["r"] * big["r"] * small["b"] * recip(r - b)
         + pos["b"] * big["b"] * small["g"] * (r - b) * recip(square(b - g))
         - pos["b"] * big["b"] * small["r"] * recip(b - r)),
        (pos["b"] * big["b"] * -(r - g) * spread
         + pos["r"] * big["r"] * small["b"] * (g - r) * recip(square(r - b))
         - pos["r"] * big["r"] * small["g"] * recip(r - g)
         + pos["g"] * big["g"] * small["b"] * (g - r) * recip(square(g - b))
         + pos["g"] * big["g"] * small["r"] * recip(g - r))]
    d_hue_in, d_saturation_in, d_value_in = _channels(grad)
    return stack([d_value_in * dv + d_saturation_in * ds_ + d_hue_in * (dh / 6.0)
                  for dv, ds_, dh in zip(d_value, d_saturation, d_hue)], axis=-1)


@custom_gradient
def _rgb_to_hsv_with_tfs_gradient(images):
    hsv = _rgb_to_hsv(images)
    return hsv, lambda grad: _rgb_to_hsv_grad(images, hsv, grad)


def rgb_to_hsv(images, name=None) -> Tensor:
    """``images`` (``[..., 3]`` RGB floats in [0, 1]) as HSV, each in [0, 1], as TF's
    RGBToHSV, with TF's gradient (``_rgb_to_hsv_grad``).  ValueError for another channel
    count; TypeError for integer images."""
    with name_scope(name or "rgb_to_hsv"):
        return _rgb_to_hsv_with_tfs_gradient(_three_channels(images, "rgb_to_hsv"))


def hsv_to_rgb(images, name=None) -> Tensor:
    """``images`` (``[..., 3]`` HSV floats in [0, 1]) as RGB, as TF's HSVToRGB.
    ValueError for another channel count; TypeError for integer images."""
    with name_scope(name or "hsv_to_rgb"):
        return _hsv_to_rgb(_three_channels(images, "hsv_to_rgb"))


def _in_float32(image, what: str):
    """``(image, its float view, its dtype)``: TF's adjustments compute in float32, and
    keep float16 and float32 images as they are."""
    image = convert_to_tensor(image, name="image")
    flt = image if image.dtype in (dtypes.float16, dtypes.float32) \
        else convert_image_dtype(image, dtypes.float32)
    return image, _three_channels(flt, what), image.dtype


def _not_three_channels(image, what: str):
    """TF's AdjustHue and AdjustSaturation shape functions: rank at least 3 (ValueError);
    their kernels refuse another channel count than 3 at run.  A tensor that fails the
    run so (``InvalidArgumentError``, TF's message) for a known other count, else
    None."""
    image = convert_to_tensor(image, name="image")
    rank = image.shape.ndims
    if rank is not None and rank < 3:
        raise ValueError(f"{what}: Shape must be at least rank 3 but is rank {rank} "
                         f"(shape {image.shape}).")
    channels = image.shape.dims[-1] if rank is not None else None
    if channels is None or channels == 3:
        return None
    message = f"input must have 3 channels but instead has {channels} channels."
    return after(assert_or_raise(constant(False), message), image)


def adjust_saturation(image, saturation_factor, name=None) -> Tensor:
    """``image`` (RGB ``[..., 3]``) with its HSV saturation multiplied by
    ``saturation_factor`` and clipped to [0, 1], in ``image``'s dtype."""
    with name_scope(name or "adjust_saturation"):
        refused = _not_three_channels(image, "adjust_saturation")
        if refused is not None:
            return refused
        image, flt, dtype = _in_float32(image, "adjust_saturation")
        factor = cast(convert_to_tensor(saturation_factor, dtype_hint=flt.dtype), flt.dtype)
        hue, saturation, value = _channels(_rgb_to_hsv(flt))
        saturation = minimum(maximum(saturation * factor, 0.0), 1.0)
        adjusted = _hsv_to_rgb(stack([hue, saturation, value], axis=-1))
        return convert_image_dtype(adjusted, dtype)


def random_saturation(image, lower, upper, seed=None) -> Tensor:
    """``adjust_saturation`` by a factor drawn uniformly from [lower, upper); ValueError
    unless ``0 <= lower < upper``."""
    return adjust_saturation(image, random_factor(lower, upper, seed))


def adjust_hue(image, delta, name=None) -> Tensor:
    """``image`` (RGB ``[..., 3]``) with ``delta`` added to its HSV hue, wrapped into
    [0, 1) (a delta of 1 is no change), in ``image``'s dtype."""
    with name_scope(name or "adjust_hue"):
        refused = _not_three_channels(image, "adjust_hue")
        if refused is not None:
            return refused
        image, flt, dtype = _in_float32(image, "adjust_hue")
        delta = cast(convert_to_tensor(delta, dtype_hint=flt.dtype), flt.dtype)
        hue, saturation, value = _channels(_rgb_to_hsv(flt))
        hue = floormod(hue + delta, 1.0)
        adjusted = _hsv_to_rgb(stack([hue, saturation, value], axis=-1))
        return convert_image_dtype(adjusted, dtype)


def random_hue(image, max_delta, seed=None) -> Tensor:
    """``adjust_hue`` by a delta drawn uniformly from [-max_delta, max_delta);
    ValueError unless ``0 <= max_delta <= 0.5``."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


_NEGATIVE_GAMMA = "Gamma should be a non-negative real number."


def adjust_gamma(image, gamma=1, gain=1) -> Tensor:
    """``gain * image ** gamma`` in float (integer images scaled to [0, 1]), converted
    back to ``image``'s dtype saturated.  ValueError for a negative Python ``gamma``; a
    tensor ``gamma`` is checked when the graph runs."""
    with name_scope("adjust_gamma"):
        image = convert_to_tensor(image, name="image")
        flt = as_float(image)
        if is_tensor(gamma):
            gamma = convert_to_tensor(gamma)
            gamma = after(assert_or_raise(gamma >= 0, _NEGATIVE_GAMMA), gamma)
        elif gamma < 0:
            raise ValueError(_NEGATIVE_GAMMA)
        exponent = cast(convert_to_tensor(gamma, dtype_hint=flt.dtype), flt.dtype)
        scale = cast(convert_to_tensor(gain, dtype_hint=flt.dtype), flt.dtype)
        adjusted = scale * pow_op(flt, exponent)
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


# TF's ``_rgb_to_yiq_kernel`` ... ``_yuv_to_rgb_kernel``: input channel -> output channel.
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _mix_channels(images, kernel, what: str) -> Tensor:
    """``images @ kernel`` over the channel axis (TF's ``tensordot``)."""
    with name_scope(what):
        images = _three_channels(images, what)
        weights = constant(np.asarray(kernel, images.dtype.np), images.dtype, name="kernel")
        mixed = matmul(reshape(images, [-1, 3]), weights)
        dims = images.shape.dims
        if None in dims[:-1]:
            mixed = reshape(mixed, concat([shape(images)[:-1], [3]], 0))
        else:
            mixed = reshape(mixed, list(dims[:-1]) + [3])
        mixed.set_shape(list(dims[:-1]) + [3])
        return mixed


def rgb_to_yiq(images) -> Tensor:
    """RGB ``[..., 3]`` floats as YIQ (TF's coefficients)."""
    return _mix_channels(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images) -> Tensor:
    """YIQ ``[..., 3]`` floats as RGB (TF's coefficients)."""
    return _mix_channels(images, _YIQ_TO_RGB, "yiq_to_rgb")


def rgb_to_yuv(images) -> Tensor:
    """RGB ``[..., 3]`` floats as YUV (TF's coefficients)."""
    return _mix_channels(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images) -> Tensor:
    """YUV ``[..., 3]`` floats as RGB (TF's coefficients)."""
    return _mix_channels(images, _YUV_TO_RGB, "yuv_to_rgb")
