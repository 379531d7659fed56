"""``ds.image``: TF1's ``tf.image`` for input preprocessing and augmentation.

Resize ops of their own (``ops/image.py``: ResizeBilinear, ResizeNearestNeighbor and their
gradients, TF's op types and attrs, so GraphDefs TensorFlow wrote import); everything
else is built from ``ds`` ops as TF 2.21's ``image_ops_impl.py`` builds it, so values
match TF's and gradients come with the ops:

==========================================  ==============================================
``resize_images(images, size, method)``     TF1's (also ``resize``): BILINEAR,
                                            NEAREST_NEIGHBOR, BICUBIC or AREA, 3-D or 4-D
                                            images; no resize when the size is statically
                                            the images' own
``resize_bilinear``, ``resize_nearest_neighbor``  the ops (4-D images; ``resize_bicubic``
                                            and ``resize_area``: ``ops/image_resample.py``)
``flip_left_right``, ``flip_up_down``       ``reverse`` along the width or height
``random_flip_left_right(image, seed)``,    each image flipped with probability 1/2
``random_flip_up_down``                     (one uniform draw per image; ``where``)
``central_crop(image, central_fraction)``   the centre ``fraction`` of height and width
``crop_to_bounding_box``, ``pad_to_bounding_box``  ``slice`` / ``pad``, offsets checked
``resize_image_with_crop_or_pad``           centre crop and/or zero pad to a size
``resize_image_with_pad``                   resize keeping the aspect ratio, then pad
``random_crop(value, size, seed)``          ``tf.random_crop``: a slice at a uniform offset
``per_image_standardization``               ``(x - mean) / max(stddev, 1/sqrt(pixels))``
``convert_image_dtype(image, dtype)``       [0, 1] floats <-> an integer type's [0, max]
``adjust_brightness``, ``random_brightness``  ``+ delta`` in float, saturated back
``adjust_contrast``, ``random_contrast``    ``(x - mean) * factor + mean`` per channel
``rgb_to_grayscale``, ``grayscale_to_rgb``  TF's weights (0.2989, 0.5870, 0.1140) / tiling
==========================================  ==============================================

The rest of ``ds.image`` lives beside this module and is exposed here: colour spaces
and adjustments (``image_color.py``: ``rgb_to_hsv``, ``hsv_to_rgb``, hue, saturation,
gamma, YIQ, YUV), quarter turns and transposes (``image_rotate.py``), image measures
(``image_metrics.py``: ``image_gradients``, ``total_variation``, ``sobel_edges``,
``psnr``, ``ssim``, ``ssim_multiscale``), image patches (``extract_patches``,
``extract_image_patches``: the ExtractImagePatches op, ``ops/space_depth.py``), image
files (``decode_jpeg``, ``decode_png``, ``decode_bmp``, ``decode_gif``,
``decode_image``, ``decode_and_crop_jpeg``, ``encode_jpeg``, ``encode_png``,
``extract_jpeg_shape``, ``is_jpeg``: ``ops/image_files.py``, through Pillow),
non-max suppression (``non_max_suppression`` and its padded, scored, overlaps and
combined forms: ``ops/image_nms.py``), ``crop_and_resize`` (``ops/image_crop.py``),
``draw_bounding_boxes`` (``ops/image_draw.py``), ``extract_glimpse``
(``ops/image_glimpse.py``), ``sample_distorted_bounding_box`` (``ops/image_sample.py``),
``adjust_jpeg_quality`` and ``random_jpeg_quality`` (``image_jpeg.py``); the
shared checks and ``convert_image_dtype`` are ``image_checks.py`` and ``image_dtype.py``.

Shapes: a function taking "3-D or 4-D" images needs an image of known rank (TF1 guesses
3-D or builds a ``cond`` on the rank; devsession raises ``ValueError`` instead), and
static problems (a known dimension of 0, an offset past the image, a fraction outside
(0, 1]) are ``ValueError`` when the graph is built.  Where only the run knows (fed
sizes and offsets) an ``Assert`` raises ``InvalidArgumentError`` with TF's message.
Random functions take TF1's op ``seed`` (and ``ds.set_random_seed``): the same draws in
each new session, though not TF's stream.  Other ``tf.image`` names raise
``UnsupportedTF1Error``.

    image = ds.image.random_flip_left_right(ds.image.resize_images(raw, [224, 224]))
    image = ds.image.per_image_standardization(image)
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .graph import Tensor, constant_value, control_dependencies, convert_to_tensor, name_scope
from .image_checks import (after, assert_or_raise, image_dims, is_tensor, known_rank,
                           nonzero_inner, random_factor)
from .image_color import (adjust_gamma, adjust_hue, adjust_saturation, hsv_to_rgb,
                          random_hue, random_saturation, rgb_to_hsv, rgb_to_yiq, rgb_to_yuv,
                          yiq_to_rgb, yuv_to_rgb)
from .image_dtype import as_float, convert_image_dtype, decode_image
from .image_jpeg import adjust_jpeg_quality, random_jpeg_quality
from .image_metrics import (image_gradients, psnr, sobel_edges, ssim, ssim_multiscale,
                            total_variation)
from .image_rotate import rot90, transpose, transpose_image
from .ops import (cast, concat, constant, expand_dims, identity, matmul, maximum, minimum,
                  pad, random_uniform, reduce_mean, reduce_prod, reshape, shape, slice, sqrt,
                  square, squeeze, stack, tile, where)
from .ops.array_fill import fill, rank as rank_of
from .ops.control_flow import Assert, cond
from .ops.elementwise import (abs as abs_op, divide, equal, floor, floormod, logical_and,
                              round as round_op, rsqrt, subtract)
from .ops.image import resize_bilinear, resize_nearest_neighbor
from .ops.image_crop import crop_and_resize
from .ops.image_draw import draw_bounding_boxes
from .ops.image_glimpse import extract_glimpse
from .ops.image_sample import sample_distorted_bounding_box
from .ops.image_resample import resize_area, resize_bicubic
from .ops.image_nms import (combined_non_max_suppression, non_max_suppression,
                            non_max_suppression_overlaps, non_max_suppression_padded,
                            non_max_suppression_with_scores)
from .ops.image_files import (decode_and_crop_jpeg, decode_bmp, decode_gif, decode_jpeg,
                              decode_png, encode_jpeg, encode_png, extract_jpeg_shape,
                              is_jpeg)
from .ops.masking import reverse
from .ops.space_depth import extract_image_patches, extract_patches
from .ops.reduce import reduce_all

__all__ = ["ResizeMethod", "resize_images", "resize", "resize_bilinear",
           "resize_nearest_neighbor", "resize_bicubic", "resize_area", "flip_left_right",
           "flip_up_down", "random_flip_left_right", "random_flip_up_down", "central_crop",
           "crop_to_bounding_box", "pad_to_bounding_box", "resize_image_with_crop_or_pad",
           "resize_with_crop_or_pad", "resize_image_with_pad", "random_crop",
           "per_image_standardization", "convert_image_dtype", "adjust_brightness",
           "random_brightness", "adjust_contrast", "random_contrast", "rgb_to_grayscale",
           "grayscale_to_rgb",
           # image_color.py
           "rgb_to_hsv", "hsv_to_rgb", "adjust_saturation", "random_saturation",
           "adjust_hue", "random_hue", "adjust_gamma", "rgb_to_yiq", "yiq_to_rgb",
           "rgb_to_yuv", "yuv_to_rgb",
           # image_rotate.py
           "rot90", "transpose", "transpose_image",
           # image_metrics.py
           "image_gradients", "total_variation", "sobel_edges", "psnr", "ssim",
           "ssim_multiscale",
           # ops/space_depth.py
           "extract_patches", "extract_image_patches",
           # ops/image_files.py
           "decode_jpeg", "decode_and_crop_jpeg", "decode_png", "decode_bmp", "decode_gif",
           "decode_image", "encode_jpeg", "encode_png", "extract_jpeg_shape", "is_jpeg",
           # ops/image_crop.py, ops/image_draw.py, ops/image_glimpse.py, ops/image_sample.py
           "crop_and_resize", "draw_bounding_boxes", "extract_glimpse",
           "sample_distorted_bounding_box",
           # image_jpeg.py
           "adjust_jpeg_quality", "random_jpeg_quality",
           # ops/image_nms.py
           "non_max_suppression", "non_max_suppression_padded",
           "non_max_suppression_with_scores", "non_max_suppression_overlaps",
           "combined_non_max_suppression"]


class ResizeMethod:
    """TF1's ``tf.image.ResizeMethod``; TF2's string names are accepted as well."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


_RESIZERS = {ResizeMethod.BILINEAR: resize_bilinear, "bilinear": resize_bilinear,
             ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
             "nearest": resize_nearest_neighbor,
             ResizeMethod.BICUBIC: resize_bicubic, "bicubic": resize_bicubic,
             ResizeMethod.AREA: resize_area, "area": resize_area}


# --- helpers ----------------------------------------------------------------------------------

def _as_batch(image: Tensor, what: str):
    """``(image as 4-D, whether it was 4-D)``; an image of unknown rank is taken as 3-D,
    as TF's bounding-box functions take it."""
    rank = image.shape.ndims
    if rank == 4:
        return image, True
    if rank == 3:
        return expand_dims(image, 0), False
    if rank is None:
        batched = expand_dims(image, 0)
        batched.set_shape([None] * 4)
        return batched, False
    raise ValueError(f"{what}: 'image' (shape {image.shape}) must have either 3 or 4 "
                     f"dimensions.")


def _static(values) -> list:
    return [None if is_tensor(v) else v for v in values]       # for set_shape


def _max(x, y):
    return maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)


def _min(x, y):
    return minimum(x, y) if is_tensor(x) or is_tensor(y) else min(x, y)


# --- resizing ---------------------------------------------------------------------------------

def _resizer(method):
    key = method if isinstance(method, (int, str)) else None
    if key not in _RESIZERS:
        raise ValueError(f"Resize method is not implemented: {method}")
    return _RESIZERS[key]


def _aspect_size(images: Tensor, size: Tensor) -> Tensor:
    """The largest size within ``size`` with ``images``' aspect ratio, rounded as TF
    rounds it (float32, half to even); a constant when the graph knows everything."""
    _, height, width, _ = image_dims(images)
    wanted = constant_value(size)
    if wanted is not None and not is_tensor(height) and not is_tensor(width):
        f32 = np.float32
        scale = min(f32(wanted[0]) / f32(height), f32(wanted[1]) / f32(width))
        return constant([int(np.round(scale * f32(height))), int(np.round(scale * f32(width)))],
                        dtypes.int32, name="size")
    height_f = cast(convert_to_tensor(height), dtypes.float32)
    width_f = cast(convert_to_tensor(width), dtypes.float32)
    scale = minimum(cast(size[0], dtypes.float32) / height_f,
                    cast(size[1], dtypes.float32) / width_f)
    return stack([cast(round_op(scale * height_f), dtypes.int32),
                  cast(round_op(scale * width_f), dtypes.int32)], name="size")


def _python_floats(values) -> bool:
    """Whether a list or tuple ``values`` holds floats: TF's int32 conversion refuses
    them, whole or not (a numpy float array it converts), where devsession's converts
    whole floats."""
    return isinstance(values, (list, tuple)) and any(
        isinstance(v, (float, np.floating)) for v in values)


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None) -> Tensor:
    """``images`` (4-D, or 3-D ``[height, width, channels]``) resized to ``size``
    (``[new_height, new_width]``) as TF1's ``tf.image.resize_images``: BILINEAR, BICUBIC
    and AREA give float32, NEAREST_NEIGHBOR keeps the dtype; a size the graph knows to be
    the images' own skips the resize (TF1's shortcut, dtype kept).
    ``preserve_aspect_ratio`` shrinks the size to the images' aspect ratio.  ValueError:
    unknown rank, a rank other than 3 or 4, a ``size`` not of 2 ints, an unknown
    method."""
    resize = _resizer(method)
    with name_scope(name or "resize"):
        images = convert_to_tensor(images, name="images")
        if images.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        if images.shape.ndims not in (3, 4):
            raise ValueError(f"'images' must have either 3 or 4 dimensions, got shape "
                             f"{images.shape}.")
        batched = images.shape.ndims == 4
        if not batched:
            images = expand_dims(images, 0)
        _, height, width, _ = images.shape.dims
        try:
            if not is_tensor(size) and _python_floats(size):
                raise TypeError(size)     # TF's conversion refuses floats, even 2.0
            size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, "
                             "new_width")
        if preserve_aspect_ratio:
            size = _aspect_size(images, size)
        wanted = constant_value(size)
        if wanted is not None and [int(v) for v in wanted] == [height, width]:
            return images if batched else squeeze(images, [0])
        resized = resize(images, size, align_corners=align_corners)
        return resized if batched else squeeze(resized, [0])


resize = resize_images      # TF1's tf.image.resize is resize_images


# --- flips ------------------------------------------------------------------------------------

def _flip(image, axis: int, what: str) -> Tensor:
    with name_scope(what):
        image = convert_to_tensor(image, name="image")
        if image.shape.ndims is None:      # TF's: checked, then a cond on the rank fed
            image = after(nonzero_inner(image, what), image)
            return cond(equal(rank_of(image), 3), lambda: reverse(image, [axis]),
                        lambda: reverse(image, [axis + 1]))
        rank = known_rank(image, (3, 4), what)
        nonzero_inner(image, what)
        return reverse(image, [axis + rank - 3])


def flip_left_right(image) -> Tensor:
    """``image`` (3-D or 4-D) reversed along its width."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image) -> Tensor:
    """``image`` (3-D or 4-D) reversed along its height."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis: int, seed, what: str) -> Tensor:
    with name_scope(what):
        image = convert_to_tensor(image, name="image")
        if image.shape.ndims is None:      # TF's: checked, then a cond on the rank fed
            image = after(nonzero_inner(image, what), image)
            return cond(equal(rank_of(image), 3),
                        lambda: _random_flip_of_rank(image, axis, 3, seed),
                        lambda: _random_flip_of_rank(image, axis, 4, seed))
        rank = known_rank(image, (3, 4), what)
        nonzero_inner(image, what)
        return _random_flip_of_rank(image, axis, rank, seed)


def _random_flip_of_rank(image: Tensor, axis: int, rank: int, seed) -> Tensor:
    """A single image (rank 3) or each image of a batch (rank 4) flipped with p = 1/2."""
    flipped = reverse(image, [axis + rank - 3])
    if rank == 3:
        draw = random_uniform([], 0, 1.0, seed=seed)
        return where(draw < 0.5, flipped, image)
    batch = shape(image)[0] if image.shape.ndims is None else image_dims(image)[0]
    draw = random_uniform([batch], 0, 1.0, seed=seed)
    # TF flips an image of a batch where round(draw) is 1 (draw > 0.5, half to even),
    # a single image where draw < 0.5
    return where(reshape(draw > 0.5, [-1, 1, 1, 1]), flipped, image)


def random_flip_left_right(image, seed=None) -> Tensor:
    """``image`` (3-D), or each image of a batch, flipped left to right with p = 1/2."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None) -> Tensor:
    """``image`` (3-D), or each image of a batch, flipped upside down with p = 1/2."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


# --- crops and pads ---------------------------------------------------------------------------

def central_crop(image, central_fraction) -> Tensor:
    """The central ``central_fraction`` (in (0, 1]) of ``image``'s height and width, as
    TF: the crop starts at ``int((size - size * fraction) / 2)`` and is symmetric.
    ValueError for a fraction outside (0, 1] or a rank other than 3 or 4."""
    with name_scope("central_crop"):
        image = convert_to_tensor(image, name="image")
        fraction = constant_value(central_fraction) if is_tensor(central_fraction) \
            else central_fraction
        checks = []
        if fraction is not None:
            fraction = float(fraction)
            if fraction <= 0.0 or fraction > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if fraction == 1.0:
                return image
        else:
            f = convert_to_tensor(central_fraction, dtype_hint=dtypes.float32)
            checks = assert_or_raise(logical_and(f > 0.0, f <= 1.0),
                             "central_fraction must be within (0, 1]")
        rank = known_rank(image, (3, 4), "central_crop")
        nonzero_inner(image, "central_crop")
        image = after(checks, image)
        dims = image_dims(image)
        first = rank - 3                      # the height's axis
        starts, sizes = [], []
        for axis in (first, first + 1):
            size = dims[axis]
            if fraction is not None and not is_tensor(size):
                start = int((float(size) - float(size) * fraction) / 2)
            else:
                size_f = cast(convert_to_tensor(size), dtypes.float64)
                share = cast(convert_to_tensor(central_fraction), dtypes.float64)
                start = cast((size_f - size_f * share) / 2.0, dtypes.int32)
            starts.append(start)
            sizes.append(size - start * 2)
        begin = [0] * first + starts + [0]
        extent = [-1] * first + sizes + [-1]
        cropped = slice(image, begin, extent)
        cropped.set_shape(list(image.shape.dims[:first]) + _static(sizes)
                          + [image.shape.dims[-1]])
        return cropped


def pad_to_bounding_box(image, offset_height, offset_width, target_height,
                        target_width) -> Tensor:
    """``image`` (3-D or 4-D) zero-padded to ``target_height`` x ``target_width`` with
    its top-left corner at (``offset_height``, ``offset_width``).  ValueError (or, for
    tensors, an ``InvalidArgumentError`` at run time) for a negative offset or an image
    that does not fit."""
    with name_scope("pad_to_bounding_box"):
        image = convert_to_tensor(image, name="image")
        image, batched = _as_batch(image, "pad_to_bounding_box")
        batch, height, width, depth = image_dims(image)
        after_width = target_width - offset_width - width
        after_height = target_height - offset_height - height
        checks = nonzero_inner(image, "pad_to_bounding_box")
        checks += assert_or_raise(offset_height >= 0, "offset_height must be >= 0")
        checks += assert_or_raise(offset_width >= 0, "offset_width must be >= 0")
        checks += assert_or_raise(after_width >= 0, "width must be <= target - offset")
        checks += assert_or_raise(after_height >= 0, "height must be <= target - offset")
        image = after(checks, image)
        paddings = [0, 0, offset_height, after_height, offset_width, after_width, 0, 0]
        if any(is_tensor(p) for p in paddings):
            paddings = reshape(stack([convert_to_tensor(p, dtype=dtypes.int32)
                                      for p in paddings]), [4, 2])
        else:
            paddings = np.array(paddings, np.int32).reshape(4, 2)
        padded = pad(image, paddings)
        padded.set_shape(_static([batch, target_height, target_width, depth]))
        return padded if batched else squeeze(padded, [0])


def crop_to_bounding_box(image, offset_height, offset_width, target_height,
                         target_width) -> Tensor:
    """The ``target_height`` x ``target_width`` block of ``image`` (3-D or 4-D) whose
    top-left corner is (``offset_height``, ``offset_width``).  ValueError (or, for
    tensors, an ``InvalidArgumentError`` at run time) for negative offsets, empty
    targets or a block past the image."""
    with name_scope("crop_to_bounding_box"):
        image = convert_to_tensor(image, name="image")
        image, batched = _as_batch(image, "crop_to_bounding_box")
        checks = nonzero_inner(image, "crop_to_bounding_box")
        batch, height, width, depth = image_dims(image)
        checks += assert_or_raise(offset_width >= 0, "offset_width must be >= 0.")
        checks += assert_or_raise(offset_height >= 0, "offset_height must be >= 0.")
        checks += assert_or_raise(target_width > 0, "target_width must be > 0.")
        checks += assert_or_raise(target_height > 0, "target_height must be > 0.")
        checks += assert_or_raise(width >= target_width + offset_width,
                          "width must be >= target + offset.")
        checks += assert_or_raise(height >= target_height + offset_height,
                          "height must be >= target + offset.")
        image = after(checks, image)
        cropped = slice(image, [0, offset_height, offset_width, 0],
                        [-1, target_height, target_width, -1])
        cropped.set_shape(_static([batch, target_height, target_width, depth]))
        return cropped if batched else squeeze(cropped, [0])


def _batch_for_target(image, target_height, target_width, what: str):
    """``(image as 4-D, whether it was 4-D, height, width)``, the image checked non-empty
    and the target size positive: what TF's resize-to-target functions check first."""
    image, batched = _as_batch(convert_to_tensor(image, name="image"), what)
    checks = nonzero_inner(image, what)
    checks += assert_or_raise(target_width > 0, "target_width must be > 0.")
    checks += assert_or_raise(target_height > 0, "target_height must be > 0.")
    image = after(checks, image)
    _, height, width, _ = image_dims(image)
    return image, batched, height, width


def resize_image_with_crop_or_pad(image, target_height, target_width) -> Tensor:
    """``image`` (3-D or 4-D) cropped about its centre and/or zero-padded evenly to
    ``target_height`` x ``target_width``, as TF."""
    with name_scope("resize_image_with_crop_or_pad"):
        image, batched, height, width = _batch_for_target(image, target_height, target_width,
                                                          "resize_image_with_crop_or_pad")
        width_diff = target_width - width
        crop_width = _max(-width_diff // 2, 0)
        pad_width = _max(width_diff // 2, 0)
        height_diff = target_height - height
        crop_height = _max(-height_diff // 2, 0)
        pad_height = _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(image, crop_height, crop_width,
                                       _min(target_height, height), _min(target_width, width))
        resized = pad_to_bounding_box(cropped, pad_height, pad_width, target_height,
                                      target_width)
        return resized if batched else squeeze(resized, [0])


resize_with_crop_or_pad = resize_image_with_crop_or_pad


def _over(size: Tensor, target) -> Tensor:
    """``size / target`` in float32 as a TF session computes it: a target the graph knows
    is a constant, and Grappler's constant folding turns the division into a product by
    its float32 reciprocal (5 * (1/6) is 0.8333334, not 5/6's 0.8333333; a 5x5 image
    fitted to 6x6 is then padded, not resized)."""
    known = constant_value(target) if is_tensor(target) else target
    if known is None:
        return size / cast(convert_to_tensor(target), dtypes.float32)
    return size * (np.float32(1) / np.float32(known))


def _fit_and_offsets(height, width, target_height, target_width) -> list:
    """TF's arithmetic of ``resize_image_with_pad``, in float32: the size that keeps the
    aspect ratio inside the target (floored) and the top and left padding; Python ints
    where everything is known, else int32 tensors."""
    sides = (height, width, target_height, target_width)
    if not any(is_tensor(v) for v in sides):
        h, w, th, tw = (np.float32(v) for v in sides)
        ratio = max(w / tw, h / th)
        fit_h, fit_w = h / ratio, w / ratio
        return [int(np.floor(fit_h)), int(np.floor(fit_w)),
                max(0, int(np.floor((th - fit_h) / np.float32(2)))),
                max(0, int(np.floor((tw - fit_w) / np.float32(2))))]
    h, w, th, tw = (cast(convert_to_tensor(v), dtypes.float32) for v in sides)
    ratio = maximum(_over(w, target_width), _over(h, target_height))
    fit_h, fit_w = h / ratio, w / ratio
    return [cast(floor(fit_h), dtypes.int32), cast(floor(fit_w), dtypes.int32),
            maximum(0, cast(floor((th - fit_h) / 2), dtypes.int32)),
            maximum(0, cast(floor((tw - fit_w) / 2), dtypes.int32))]


def resize_image_with_pad(image, target_height, target_width,
                          method=ResizeMethod.BILINEAR, align_corners=False) -> Tensor:
    """``image`` (3-D or 4-D) resized to fit ``target_height`` x ``target_width`` with its
    aspect ratio kept, then zero-padded (centred) to that size: TF1's
    ``tf.image.resize_image_with_pad``, TF's float32 arithmetic (the resize always runs,
    as TF's, so BILINEAR, BICUBIC and AREA give float32).  ValueError for a target size
    that is not positive or a known empty image."""
    resize = _resizer(method)
    with name_scope("resize_image_with_pad"):
        image, batched, height, width = _batch_for_target(image, target_height, target_width,
                                                          "resize_image_with_pad")
        fit_h, fit_w, top, left = _fit_and_offsets(height, width, target_height,
                                                   target_width)
        if is_tensor(fit_h):
            size = stack([fit_h, fit_w])
        else:
            size = constant([fit_h, fit_w], dtypes.int32)
        resized = resize(image, size, align_corners=align_corners)
        padded = pad_to_bounding_box(resized, top, left, target_height, target_width)
        return padded if batched else squeeze(padded, [0])


def random_crop(value, size, seed=None, name=None) -> Tensor:
    """A ``size`` block of ``value`` (any rank) at a uniformly drawn offset: TF1's
    ``tf.random_crop``.  ValueError when a known dimension is smaller than its size; at
    run time the same check is an ``Assert``."""
    with name_scope(name or "random_crop"):
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        wanted = constant_value(size)
        if wanted is not None and value.shape.ndims is not None:
            if len(wanted) != value.shape.ndims:
                raise ValueError(f"random_crop: size {list(wanted)} must have one entry per "
                                 f"dimension of 'value' ({value.shape}).")
            if any(d is not None and d < s for d, s in zip(value.shape.dims, wanted)):
                raise ValueError(f"random_crop: need value.shape >= size, got "
                                 f"{value.shape} and {list(wanted)}.")
        dims = shape(value)
        check = Assert(reduce_all(dims >= size), ["Need value.shape >= size, got ", dims, size],
                       summarize=1000)
        with control_dependencies([check]):
            dims = identity(dims)
        limit = dims - size + 1
        rank = value.shape.ndims if value.shape.ndims is not None else shape(dims)
        draw = random_uniform([rank] if value.shape.ndims is not None else rank,
                              dtype=dtypes.int32, maxval=dtypes.int32.max, seed=seed)
        return slice(value, floormod(draw, limit), size)


# --- values -----------------------------------------------------------------------------------

def adjust_brightness(image, delta) -> Tensor:
    """``image + delta`` in float (integers scaled to [0, 1]), converted back saturated."""
    with name_scope("adjust_brightness"):
        image = convert_to_tensor(image, name="image")
        flt = as_float(image)
        adjusted = flt + cast(convert_to_tensor(delta, dtype_hint=flt.dtype), flt.dtype)
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


def random_brightness(image, max_delta, seed=None) -> Tensor:
    """``adjust_brightness`` by a delta drawn uniformly from [-max_delta, max_delta);
    ValueError for a negative ``max_delta``."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def adjust_contrast(images, contrast_factor) -> Tensor:
    """``(x - mean) * contrast_factor + mean``, the mean over height and width per
    channel, in float (TF's AdjustContrastv2), converted back saturated.  ``images``
    need a rank of at least 3 (of unknown rank: the reduction's ``InvalidArgumentError``
    at run time, where TF's kernel raises its own)."""
    with name_scope("adjust_contrast"):
        images = convert_to_tensor(images, name="images")
        if images.shape.ndims is not None and images.shape.ndims < 3:
            raise ValueError(f"adjust_contrast: 'images' (shape {images.shape}) must be at "
                             f"least 3-D.")
        flt = as_float(images)
        factor = cast(convert_to_tensor(contrast_factor, dtype_hint=dtypes.float32),
                      flt.dtype)
        mean = reduce_mean(flt, axis=[-3, -2], keepdims=True)
        adjusted = (flt - mean) * factor + mean
        return convert_image_dtype(adjusted, images.dtype, saturate=True)


def random_contrast(image, lower, upper, seed=None) -> Tensor:
    """``adjust_contrast`` by a factor drawn uniformly from [lower, upper); ValueError
    unless ``0 <= lower < upper``."""
    return adjust_contrast(image, random_factor(lower, upper, seed))


def per_image_standardization(image) -> Tensor:
    """Each image (the last 3 dimensions) scaled to mean 0 and variance 1, float32:
    ``(x - mean) / max(stddev, 1 / sqrt(num_pixels))`` as TF."""
    with name_scope("per_image_standardization") as scope:
        image = convert_to_tensor(image, name="image")
        if image.shape.ndims is not None and image.shape.ndims < 3:
            raise ValueError(f"per_image_standardization: 'image' (shape {image.shape}) "
                             f"must be at least three-dimensional.")
        image = after(nonzero_inner(image, "per_image_standardization"), image)
        image = cast(image, dtypes.float32)
        inner = image.shape.dims[-3:] if image.shape.ndims is not None else [None]
        pixels = int(np.prod(inner)) if None not in inner else reduce_prod(shape(image)[-3:])
        axes = [-1, -2, -3]
        mean = reduce_mean(image, axis=axes, keepdims=True)
        variance = reduce_mean(square(abs_op(image - mean)), axis=axes, keepdims=True)
        min_stddev = rsqrt(cast(convert_to_tensor(pixels), dtypes.float32))
        return divide(image - mean, maximum(sqrt(variance), min_stddev), name=scope)


def rgb_to_grayscale(images, name=None) -> Tensor:
    """The luma ``0.2989 R + 0.5870 G + 0.1140 B`` of ``images`` (``[..., 3]``) as
    ``[..., 1]``, computed in float32 and converted back to ``images``' dtype."""
    with name_scope(name or "rgb_to_grayscale") as scope:
        images = convert_to_tensor(images, name="images")
        if images.shape.ndims is not None and images.shape.dims[-1] not in (None, 3):
            raise ValueError(f"rgb_to_grayscale: 'images' (shape {images.shape}) must have "
                             f"3 channels.")
        flt = convert_image_dtype(images, dtypes.float32)
        weights = constant([[0.2989], [0.5870], [0.1140]], dtypes.float32, name="rgb_weights")
        gray = matmul(reshape(flt, [-1, 3]), weights)        # TF's tensordot
        dims = images.shape.dims
        if dims is None or None in dims[:-1]:               # the run's shape
            gray = reshape(gray, concat([shape(flt)[:-1], [1]], 0))
        else:
            gray = reshape(gray, list(dims[:-1]) + [1])
        if dims is not None:
            gray.set_shape(list(dims[:-1]) + [1])
        return convert_image_dtype(gray, images.dtype, name=scope)


def grayscale_to_rgb(images, name=None) -> Tensor:
    """``images`` (``[..., 1]``) with the channel repeated 3 times."""
    with name_scope(name or "grayscale_to_rgb") as scope:
        images = convert_to_tensor(images, name="images")
        rank = images.shape.ndims
        if rank is None:              # TF's: multiples of ones but the last, at run time
            ones = fill(expand_dims(subtract(rank_of(images), 1), 0), 1)
            return tile(images, concat([ones, [3]], 0), name=scope)
        if rank < 2:
            raise ValueError(f"A grayscale image (shape {images.shape}) must be at least "
                             f"two-dimensional.")
        if images.shape.dims[-1] not in (None, 1):
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return tile(images, [1] * (rank - 1) + [3], name=scope)


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("image", name)
