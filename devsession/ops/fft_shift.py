"""``tf.signal.fftshift`` / ``ifftshift``: the zero-frequency term moved to the centre of
each given axis and back, TF's ``Roll`` of ``x`` by ``+-(dim // 2)`` along the axes (all
of them when ``axes`` is None; negative axes count from the end).  Compositions of
existing ops, so their gradient is Roll's."""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from .array_fill import rank, shape
from .array_index import gather
from .array_order import roll
from .elementwise import add, floordiv, less, negative, where

__all__ = ["fftshift", "ifftshift"]


def _half_shift(x: Tensor, axes):
    """(``dim // 2`` for each axis, the axes) as TF computes them."""
    if axes is None:
        return floordiv(shape(x), 2), tuple(range(x.shape.ndims))
    if isinstance(axes, int):
        return floordiv(shape(x)[axes], 2), axes
    axes = convert_to_tensor(axes, graph=x.graph)
    axes = where(less(axes, 0), add(axes, rank(x)), axes)
    return floordiv(gather(shape(x), axes), 2), axes


def fftshift(x, axes=None, name=None) -> Tensor:
    """numpy's ``fftshift`` along ``axes`` (all when None): ``roll`` by ``dim // 2``."""
    with name_scope(name or "fftshift"):
        x = convert_to_tensor(x)
        shift, axes = _half_shift(x, axes)
        return roll(x, shift, axes)


def ifftshift(x, axes=None, name=None) -> Tensor:
    """The inverse of ``fftshift`` (they differ for odd lengths): ``roll`` by
    ``-(dim // 2)``."""
    with name_scope(name or "ifftshift"):
        x = convert_to_tensor(x)
        shift, axes = _half_shift(x, axes)
        return roll(x, negative(shift), axes)
