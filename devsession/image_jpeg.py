"""JPEG-artefact augmentation: ``tf.image.adjust_jpeg_quality`` and
``random_jpeg_quality``, built as TF 2.21's ``image_ops_impl.py`` builds them.

The image goes to uint8 (``convert_image_dtype``, saturating), through a JPEG round
trip at the quality (EncodeJpegVariableQuality, then DecodeJpeg with the image's
channel count: ``ops/image_files.py``, whose codec is Pillow's libjpeg, so pixels land
within a few levels of TF's) and back to its dtype.  ``random_jpeg_quality`` draws the
quality uniformly from ``[min, max)`` (one RandomUniformInt, seeded as TF1's random
ops).  Neither is differentiable: the codec has no gradient, as in TF.

    image = ds.image.random_jpeg_quality(image, 60, 100, seed=3)
"""

from __future__ import annotations

from . import dtypes
from .graph import Tensor, convert_to_tensor, name_scope
from .image_checks import is_tensor
from .image_dtype import convert_image_dtype
from .ops import random_uniform
from .ops.image_files import decode_jpeg, encode_jpeg_variable_quality

__all__ = ["adjust_jpeg_quality", "random_jpeg_quality"]


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None) -> Tensor:
    """``image`` (3-D, 1 or 3 channels, any image dtype) after a JPEG round trip at
    ``jpeg_quality`` (0..100, a number or an int32 tensor), in its own dtype.  The
    quality is checked when the graph runs (InvalidArgumentError naming the encoder)."""
    with name_scope(name or "adjust_jpeg_quality"):
        image = convert_to_tensor(image, name="image")
        channels = image.shape.dims[-1] if image.shape.ndims else None
        original = image.dtype
        pixels = convert_image_dtype(image, dtypes.uint8, saturate=True)
        quality = (jpeg_quality if is_tensor(jpeg_quality)
                   else convert_to_tensor(jpeg_quality, dtype=dtypes.int32))
        encoded = encode_jpeg_variable_quality(pixels, quality)
        decoded = decode_jpeg(encoded, channels=channels or 0, dct_method=dct_method)
        return convert_image_dtype(decoded, original, saturate=True)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None) -> Tensor:
    """``adjust_jpeg_quality`` at a quality drawn from ``[min_jpeg_quality,
    max_jpeg_quality)`` each run.  ValueError (as TF) for bounds outside [0, 100] or
    ``min >= max``."""
    if not (0 <= min_jpeg_quality <= 100 and 0 <= max_jpeg_quality <= 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed,
                             dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)
