"""``ds.image``'s image measures: finite differences, total variation, Sobel edges, PSNR,
SSIM and MS-SSIM, built from ``ds`` ops as TF's ``image_ops_impl.py`` builds them, so
values follow TF's and every one is differentiable through ``ds.gradients``.

* ``image_gradients``: forward differences down and across a 4-D batch, the last row /
  column 0.  ``total_variation``: the sum of absolute neighbour differences, one number
  per image.  ``sobel_edges``: TF's two 3x3 Sobel kernels per channel (a depthwise
  convolution) over a REFLECT-padded copy, ``[N, H, W, C, 2]`` (dy first, then dx).
* ``psnr(a, b, max_val)``: ``20 log10(max_val) - 10 log10(mse)`` per image, float32.
* ``ssim``: the local statistics under an 11x11 Gaussian window (sigma 1.5, TF's
  softmax-normalised kernel, VALID windows only), ``k1 = 0.01``, ``k2 = 0.03``, the
  luminance and contrast-structure terms averaged over height and width, then channels.
  ``ssim_multiscale`` repeats the contrast-structure term over 2x2-average-pooled scales
  (odd sizes padded SYMMETRIC first) and takes TF's weighted product; each scale needs
  the filter to fit, so the images need 176 pixels on each side with the defaults.

Images are compared in float32 (integers converted with ``convert_image_dtype``, and
``max_val`` with them, so ``max_val=255`` on uint8 images is a range of 1.0).  Shapes
that the graph knows to be incompatible, or too small for the filter, are ``ValueError``
when it is built; where only the run knows, an ``Assert`` fails it.

    loss = 1.0 - ds.reduce_mean(ds.image.ssim(predicted, target, max_val=1.0))
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .graph import Tensor, convert_to_tensor, name_scope
from .image_checks import after, assert_or_raise
from .image_dtype import convert_image_dtype
from .ops import (abs as abs_op, cast, concat, constant, identity, log, pad, reduce_mean,
                  reduce_prod, reduce_sum, relu, reshape, shape, square, stack, tile, zeros)
from .ops.array_fill import rank
from .ops.elementwise import (equal, floormod, greater_equal, logical_and, pow as pow_op,
                              subtract)
from .ops.nn_conv import avg_pool
from .ops.nn_depthwise import depthwise_conv2d
from .ops.reduce import reduce_all

__all__ = ["image_gradients", "total_variation", "sobel_edges", "psnr", "ssim",
           "ssim_multiscale"]

# TF's _MSSSIM_WEIGHTS: the five scales' exponents, from Wang et al. (2003).
MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def image_gradients(image) -> tuple:
    """``(dy, dx)``: ``image[:, i + 1, j] - image[:, i, j]`` and
    ``image[:, i, j + 1] - image[:, i, j]`` for a 4-D ``image``, 0 in the last row
    (``dy``) and column (``dx``), each shaped as ``image``.  ValueError unless 4-D."""
    image = convert_to_tensor(image, name="image")
    if image.shape.ndims != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.shape}.")
    with name_scope("image_gradients"):
        dims = shape(image)
        dy = image[:, 1:, :, :] - image[:, :-1, :, :]
        dx = image[:, :, 1:, :] - image[:, :, :-1, :]
        last_row = zeros(stack([dims[0], 1, dims[2], dims[3]]), image.dtype)
        last_column = zeros(stack([dims[0], dims[1], 1, dims[3]]), image.dtype)
        dy = concat([dy, last_row], 1)
        dx = concat([dx, last_column], 2)
        dy.set_shape(image.shape)
        dx.set_shape(image.shape)
        return dy, dx


def total_variation(images, name=None) -> Tensor:
    """The sum of absolute differences between vertical and horizontal neighbours: a
    scalar for a 3-D image, one per image for a 4-D batch.  ValueError for another
    rank."""
    with name_scope(name or "total_variation"):
        images = convert_to_tensor(images, name="images")
        rank = images.shape.ndims
        if rank == 3:
            down = images[1:, :, :] - images[:-1, :, :]
            across = images[:, 1:, :] - images[:, :-1, :]
            axes = None
        elif rank == 4:
            down = images[:, 1:, :, :] - images[:, :-1, :, :]
            across = images[:, :, 1:, :] - images[:, :, :-1, :]
            axes = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return reduce_sum(abs_op(down), axis=axes) + reduce_sum(abs_op(across), axis=axes)


# TF's Sobel kernels, [3, 3, 1, 2]: the vertical (dy) one, then the horizontal (dx) one.
_SOBEL = np.expand_dims(np.transpose(np.array(
    [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
     [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]), (1, 2, 0)), -2)


def sobel_edges(image) -> Tensor:
    """The Sobel responses of each channel of a 4-D float ``image``, ``[N, H, W, C, 2]``
    (vertical, then horizontal), the borders REFLECT-padded as TF.  ValueError unless
    4-D; a height or width below 2 (nothing to reflect) builds and is MirrorPad's
    InvalidArgumentError at run, as TF."""
    with name_scope("sobel_edges"):
        image = convert_to_tensor(image, name="image")
        if image.shape.ndims != 4:
            raise ValueError(f"sobel_edges: 'image' (shape {image.shape}) must be 4-D "
                             f"[batch_size, h, w, d].")
        dims = shape(image)
        kernels = tile(constant(_SOBEL.astype(image.dtype.np), image.dtype),
                       stack([1, 1, dims[-1], 1]), name="sobel_filters")
        padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
        edges = depthwise_conv2d(padded, kernels, [1, 1, 1, 1], "VALID")
        edges = reshape(edges, concat([dims, [2]], 0))
        edges.set_shape(list(image.shape.dims) + [2])
        return edges


def _compatible(img1: Tensor, img2: Tensor) -> list:
    """TF's ``_verify_compatible_image_shapes``: ValueError for a known rank below 3,
    inner dimensions the graph knows to differ, or batch dimensions that cannot
    broadcast; ``Assert``s where only the run knows the inner dimensions."""
    for img in (img1, img2):
        if img.shape.ndims is not None and img.shape.ndims < 3:
            raise ValueError(f"Shape {img.shape} must have a rank of at least 3.")
    if img1.shape.ndims is None or img2.shape.ndims is None:     # TF's: checked at run time
        return [*assert_or_raise(logical_and(rank(img1) >= 3, rank(img2) >= 3),
                                 "Two images are not compatible."),
                *assert_or_raise(reduce_all(equal(shape(img1)[-3:], shape(img2)[-3:])),
                                 "Two images are not compatible.")]
    inner1, inner2 = img1.shape.dims[-3:], img2.shape.dims[-3:]
    outer = zip(reversed(img1.shape.dims[:-3]), reversed(img2.shape.dims[:-3]))
    if (any(a is not None and b is not None and a != b for a, b in zip(inner1, inner2))
            or any(a not in (1, None) and b not in (1, None) and a != b for a, b in outer)):
        raise ValueError(f"Two images are not compatible: {img1.shape} and {img2.shape}")
    if None in inner1 or None in inner2:
        return assert_or_raise(reduce_all(equal(shape(img1)[-3:], shape(img2)[-3:])),
                               "Two images are not compatible.")
    return []


def _as_float_pair(img1, img2, max_val):
    """Both images and ``max_val`` in float32, converted as TF converts them."""
    img1 = convert_to_tensor(img1, name="img1")
    img2 = convert_to_tensor(img2, name="img2")
    img1 = after(_compatible(img1, img2), img1)
    max_val = convert_image_dtype(cast(convert_to_tensor(max_val), img1.dtype), dtypes.float32)
    return (convert_image_dtype(img1, dtypes.float32),
            convert_image_dtype(img2, dtypes.float32), max_val)


def psnr(a, b, max_val, name=None) -> Tensor:
    """The peak signal-to-noise ratio of ``a`` against ``b`` in dB, one per image (the
    last 3 dimensions), float32; ``max_val`` is the images' value range."""
    with name_scope(name or "PSNR"):
        a, b, max_val = _as_float_pair(a, b, max_val)
        mse = reduce_mean(square(a - b), [-3, -2, -1])
        value = subtract(20.0 * log(max_val) / np.float32(np.log(10.0)),
                         np.float32(10 / np.log(10)) * log(mse), name="psnr")
        return identity(value)                   # TF's result: PSNR/Identity...


def gaussian_window(size: int, sigma: float) -> np.ndarray:
    """TF's ``_fspecial_gauss``: a ``[size, size, 1, 1]`` float32 Gaussian summing to 1
    (a softmax of ``-(x^2 + y^2) / (2 sigma^2)`` about the centre)."""
    coords = np.arange(size, dtype=np.float32) - np.float32(size - 1) / np.float32(2.0)
    g = np.square(coords) * np.float32(-0.5 / np.float32(sigma) ** 2)
    g = (g[None, :] + g[:, None]).astype(np.float64)
    g = np.exp(g - g.max())
    return (g / g.sum()).astype(np.float32).reshape(size, size, 1, 1)


def _window_fits(img: Tensor, filter_size: int) -> list:
    """ValueError (or an ``Assert`` for unknown sizes) unless the filter fits."""
    height, width = img.shape.dims[-3:-1] if img.shape.ndims is not None else (None, None)
    if any(d is not None and d < filter_size for d in (height, width)):
        raise ValueError(f"ssim: the images' height and width ({img.shape}) must be at least "
                         f"filter_size ({filter_size}).")
    if height is None or width is None:
        return assert_or_raise(reduce_all(greater_equal(shape(img)[-3:-1], filter_size)),
                               f"images must be at least filter_size ({filter_size}) high "
                               f"and wide.")
    return []


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                      return_index_map=False):
    """TF's ``_ssim_per_channel``: ``(ssim, cs)`` per channel, averaged over height and
    width unless ``return_index_map`` (then per VALID window)."""
    img1 = after(_window_fits(img1, filter_size) + _window_fits(img2, filter_size), img1)
    window = constant(gaussian_window(filter_size, filter_sigma), dtypes.float32)
    window = tile(window, stack([1, 1, shape(img1)[-1], 1]))

    def local_mean(x):
        dims = shape(x)
        flat = reshape(x, concat([[-1], dims[-3:]], 0))
        y = depthwise_conv2d(flat, window, [1, 1, 1, 1], "VALID")
        return reshape(y, concat([dims[:-3], shape(y)[1:]], 0))

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean1, mean2 = local_mean(img1), local_mean(img2)
    num0 = mean1 * mean2 * 2.0
    den0 = square(mean1) + square(mean2)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = local_mean(img1 * img2) * 2.0
    den1 = local_mean(square(img1) + square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)    # TF's compensation is 1.0
    if return_index_map:
        return luminance * cs, cs
    return reduce_mean(luminance * cs, [-3, -2]), reduce_mean(cs, [-3, -2])


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False) -> Tensor:
    """The structural similarity of ``img1`` and ``img2`` (``[..., H, W, C]``), one
    float32 per image (the mean over windows and channels), or per window with
    ``return_index_map``.  ValueError for incompatible shapes or images smaller than
    ``filter_size``."""
    with name_scope("SSIM"):
        img1, img2, max_val = _as_float_pair(img1, img2, max_val)
        value, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                                     return_index_map)
        return reduce_mean(value, [-1])


def _halve(images: Tensor) -> Tensor:
    """``[..., H, W, C]`` images 2x2-average-pooled, an odd height or width first padded
    by one SYMMETRIC row or column (a pad of 0 where even, so no branch is needed)."""
    dims = shape(images)
    flat = reshape(images, concat([[-1], dims[-3:]], 0))
    odd = floormod(dims[-3:-1], 2)
    paddings = stack([[0, 0], stack([0, odd[0]]), stack([0, odd[1]]), [0, 0]])
    padded = pad(flat, paddings, mode="SYMMETRIC")
    pooled = avg_pool(padded, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    return reshape(pooled, concat([dims[:-3], shape(pooled)[1:]], 0))


def ssim_multiscale(img1, img2, max_val, power_factors=MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03) -> Tensor:
    """TF's MS-SSIM: one scale per ``power_factors`` entry, each half the last's size;
    ``prod(relu(cs_i) ** w_i) * relu(ssim_last) ** w_last`` per channel, averaged over
    channels, one float32 per image.  ValueError for incompatible shapes or images too
    small for the filter at the coarsest scale."""
    with name_scope("MS-SSIM"):
        img1, img2, max_val = _as_float_pair(img1, img2, max_val)
        scales = len(power_factors)
        coarsest = filter_size * 2 ** (scales - 1)
        known = [d for d in img1.shape.dims[-3:-1] if d is not None]
        if any(d < coarsest for d in known):
            raise ValueError(f"ssim_multiscale: with {scales} scales and filter_size "
                             f"{filter_size} the images ({img1.shape}) need a height and "
                             f"width of at least {coarsest}.")
        imgs = [img1, img2]
        terms = []
        for scale in range(scales):
            with name_scope(f"Scale{scale}"):
                if scale:
                    imgs = [_halve(x) for x in imgs]
                value, cs = _ssim_per_channel(imgs[0], imgs[1], max_val, filter_size,
                                              filter_sigma, k1, k2)
                terms.append(relu(cs))
        terms[-1] = relu(value)
        weights = constant(np.asarray(power_factors, np.float32), dtypes.float32)
        per_channel = reduce_prod(pow_op(stack(terms, axis=-1), weights), [-1])
        return reduce_mean(per_channel, [-1])       # over channels
