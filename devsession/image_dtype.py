"""``convert_image_dtype``: TF's image dtype conversion (floats in [0, 1], integers in
[0, max]), and the float view the colour adjustments compute in.  Its own module because
every ``ds.image`` value function converts in and out through it; ``decode_image``
(TF's wrapper of the DecodeImage op, ``ops/image_files.py``) converts through it too.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .graph import Tensor, convert_to_tensor, name_scope
from .ops import cast, clip_by_value, constant, identity, multiply
from .ops.elementwise import floordiv
from .ops.image_files import decode_image_op

__all__ = ["convert_image_dtype", "saturate_cast", "as_float", "decode_image"]


def saturate_cast(value: Tensor, dtype, name=None) -> Tensor:
    """TF 2.21's ``saturate_cast``: clip to the target's range (its limits nudged toward
    0 where the source type cannot hold them exactly), then cast (named ``name``)."""
    source, target = value.dtype, dtypes.as_dtype(dtype)
    kind = source.np.type
    promoted = np.promote_types(source.np, target.np)
    with np.errstate(over="ignore"):
        low = kind(np.maximum(source.min, target.min))
        if np.array([low, target.min], promoted)[0] < np.array([low, target.min], promoted)[1]:
            low = np.nextafter(low, kind(0), dtype=source.np)
        high = kind(np.minimum(float(source.max), float(target.max)))
        if np.array([high, target.max], promoted)[0] > np.array([high, target.max], promoted)[1]:
            high = np.nextafter(high, kind(0), dtype=source.np)
    clipped = clip_by_value(value, constant(low, source), constant(high, source))
    return cast(clipped, target, name=name)


def _in_dtype(value, dtype: dtypes.DType) -> Tensor:
    """A Python number as a constant of ``dtype`` (rounded to it, as TF converts)."""
    with np.errstate(over="ignore"):
        return constant(np.asarray(value).astype(dtype.np), dtype)


def convert_image_dtype(image, dtype, saturate=False, name=None) -> Tensor:
    """``image`` in ``dtype``, rescaled as TF: floats span [0, 1), integers [0, max]
    (integer to integer by a power-of-two factor; float to integer by ``max + 0.5`` and
    truncation).  ``saturate`` clips before casting.  AttributeError (as TF) for a
    non-numeric dtype."""
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_numeric:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_numeric:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return identity(image, name=name)
    with name_scope(name or "convert_image") as scope:     # the result named as TF's
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = int(image.dtype.max), int(dtype.max)
            if scale_in > scale_out:
                scaled = floordiv(image, _in_dtype((scale_in + 1) // (scale_out + 1),
                                                   image.dtype))
                return saturate_cast(scaled, dtype, name=scope) if saturate else \
                    cast(scaled, dtype, name=scope)
            converted = saturate_cast(image, dtype) if saturate else cast(image, dtype)
            return multiply(converted, _in_dtype((scale_out + 1) // (scale_in + 1), dtype),
                            name=scope)
        if image.dtype.is_floating and dtype.is_floating:
            return cast(image, dtype, name=scope)
        if image.dtype.is_integer:
            return multiply(cast(image, dtype), _in_dtype(1.0 / float(image.dtype.max), dtype),
                            name=scope)
        scaled = image * _in_dtype(float(dtype.max) + 0.5, image.dtype)
        return saturate_cast(scaled, dtype, name=scope) if saturate else \
            cast(scaled, dtype, name=scope)


def as_float(image: Tensor) -> Tensor:
    """float16 and float32 images as they are, others converted to float32 in [0, 1]."""
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True):
    """TF1's ``tf.image.decode_image`` / ``tf.io.decode_image``: BMP, GIF, JPEG or PNG
    bytes, as TF builds it: the DecodeImage op for uint8, uint16 and float32, other
    dtypes decoded as uint16 and converted with ``convert_image_dtype``."""
    wanted = dtypes.as_dtype(dtype)
    decoded = wanted if wanted in (dtypes.uint8, dtypes.uint16, dtypes.float32) \
        else dtypes.uint16
    with name_scope(name or "decode_image"):
        image = decode_image_op(contents, channels or 0, decoded, expand_animations,
                                name="DecodeImage")
        return convert_image_dtype(image, wanted) if decoded != wanted else image
