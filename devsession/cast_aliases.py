"""TF1's casts by name: ``tf.to_complex64`` and ``tf.to_complex128`` (``tf.cast`` under
the node names TF gives them, "ToComplex64"/"ToComplex128"), and ``tf.saturate_cast``
with TF's signature: any value, converted; a complex value cast to a real type loses its
imaginary part, complex to complex clips the parts separately; each real value clipped
to the target's range (``image_dtype.saturate_cast``, TF 2.21's nudged limits) before
the cast, so 300.0 becomes 255 in uint8 where a plain cast wraps."""

from __future__ import annotations

from . import dtypes
from .graph import Tensor, convert_to_tensor, name_scope
from .image_dtype import saturate_cast as _clipped_cast
from .ops import cast
from .ops.complex_math import complex as _complex, imag, real

__all__ = ["to_complex64", "to_complex128", "saturate_cast"]


def to_complex64(x, name="ToComplex64") -> Tensor:
    """``x`` cast to complex64 (deprecated in TF1 for ``tf.cast``)."""
    return cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128") -> Tensor:
    """``x`` cast to complex128 (deprecated in TF1 for ``tf.cast``)."""
    return cast(x, dtypes.complex128, name=name)


def saturate_cast(value, dtype, name=None) -> Tensor:
    """``value`` cast to ``dtype``, clipped to its range first (TF's TypeError for a string
    type, which has none)."""
    with name_scope(name or "saturate_cast"):
        value = convert_to_tensor(value, name="value")
        target = dtypes.as_dtype(dtype)
        for each in (value.dtype, target):
            if each == dtypes.string:
                raise TypeError("Cannot find minimum value of <dtype: 'string'> with type "
                                "<dtype: 'string'>.")
        if value.dtype.is_complex:
            if target.is_complex:
                part = target.real_dtype
                return _complex(_clipped_cast(real(value), part),
                                _clipped_cast(imag(value), part))
            value = real(value)       # TF: "Casting complex to real discards imaginary part."
        if target.is_complex:
            return cast(_clipped_cast(value, target.real_dtype), target)
        return _clipped_cast(value, target)
