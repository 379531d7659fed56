"""``tf.signal``'s MDCT and the windows made for it, as TF's Python composes them from
existing ops (no new op types, so TF's graphs of them import and gradients flow):

- ``kaiser_window(n, beta)``: ``exp(k - beta) * i0e(k) / i0e(beta)`` with
  ``k = beta * sqrt(relu(1 - (m / h)^2))``, ``m`` running over ``[-h, h]`` for
  ``h = (n - 1) / 2`` (the exponentially scaled Bessel function keeps a large ``beta``
  finite; a length of 1 is ``[1]``);
- ``kaiser_bessel_derived_window(n, beta)``: the square roots of the running sums of a
  Kaiser window of ``n // 2 + 1`` points over its total, mirrored (Princen-Bradley: its
  squares and its mirror's add to 1, what the MDCT's perfect reconstruction needs);
- ``vorbis_window(n)``: ``sin(pi/2 sin^2(pi (k + 1/2) / n))``;
- ``mdct(signals, frame_length)``: frames of ``frame_length`` (a multiple of 4) every half
  frame, windowed (``None``: scaled by ``1/sqrt 2``), folded into half a frame
  (``-reversed(c) - d, a - reversed(b)`` of the quarters ``a b c d``) and taken through
  the type-IV DCT; ``inverse_mdct`` undoes it with the type-IV DCT (scaled by
  ``0.5 / N`` unless ``norm='ortho'``), unfolds, windows again and overlap-adds.

Window lengths must be known when the graph is built (devsession's windows are sized
then); dtypes must be floating (ValueError, TF's message)."""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from .array import concat, split
from .array_fill import ones
from .elementwise import cast, exp, multiply, negative, relu, sin, sqrt, square, subtract
from .masking import reverse
from .reduce import cumsum
from .sequence import range as range_op
from .signal_ops import _static_int, dct, overlap_and_add, frame
from .special import bessel_i0e

__all__ = ["kaiser_window", "kaiser_bessel_derived_window", "vorbis_window", "mdct",
           "inverse_mdct"]


def _window_params(window_length, dtype) -> tuple[int, dtypes.DType]:
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype!r}")
    return _static_int(window_length, "window_length"), dtype


def kaiser_window(window_length, beta=12., dtype=dtypes.float32, name=None) -> Tensor:
    """TF's ``tf.signal.kaiser_window`` (numpy's ``np.kaiser``; see the module docstring)."""
    length, dtype = _window_params(window_length, dtype)
    with name_scope(name or "kaiser_window"):
        if length == 1:
            return ones([1], dtype=dtype)
        half = (length - 1) / 2.0
        # TF's float32 range from -h to h + 0.1: the points TF's window has, cast after
        arg = cast(range_op(-half, half + 0.1, dtype=dtypes.float32), dtype)
        beta = cast(beta, dtype)
        ratio = arg / cast(half, dtype)
        k = multiply(beta, sqrt(relu(subtract(cast(1.0, dtype), square(ratio)))))
        return multiply(exp(subtract(k, beta)), bessel_i0e(k) / bessel_i0e(beta))


def kaiser_bessel_derived_window(window_length, beta=12., dtype=dtypes.float32,
                                 name=None) -> Tensor:
    """TF's ``tf.signal.kaiser_bessel_derived_window`` (see the module docstring)."""
    length, dtype = _window_params(window_length, dtype)
    with name_scope(name or "kaiser_bessel_derived_window"):
        sums = cumsum(kaiser_window(length // 2 + 1, beta, dtype=dtype))
        half = sqrt(sums[:-1] / sums[-1])
        return concat([half, reverse(half, [0])], 0)


def vorbis_window(window_length, dtype=dtypes.float32, name=None) -> Tensor:
    """TF's ``tf.signal.vorbis_window``: ``sin(pi/2 sin^2(pi (k + 1/2) / n))``."""
    length, dtype = _window_params(window_length, dtype)
    with name_scope(name or "vorbis_window"):
        k = cast(range_op(length), dtype)
        inner = sin(multiply(np.pi / cast(length, dtype), k + 0.5))
        return sin(multiply(np.pi / 2.0, square(inner)))


def _frame_length(frame_length) -> int:
    length = constant_value(convert_to_tensor(frame_length))
    if length is None:
        raise ValueError("frame_length must be a Python int or a constant here; devsession "
                         "does not take a frame_length only a run knows.")
    if int(length) % 4 != 0:
        raise ValueError("The frame length must be a multiple of 4.")
    return int(length)


def _windowed(frames: Tensor, window_fn, length: int) -> Tensor:
    if window_fn is None:
        return multiply(frames, 1.0 / math.sqrt(2))
    return multiply(frames, window_fn(length, dtype=frames.dtype))


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None,
         name=None) -> Tensor:
    """TF's ``tf.signal.mdct``: ``[..., frames, frame_length / 2]`` coefficients of
    half-overlapping frames (see the module docstring)."""
    with name_scope(name or "mdct"):
        signals = convert_to_tensor(signals)
        signals.shape.with_rank_at_least(1)
        length = _frame_length(frame_length)
        frames = _windowed(frame(signals, length, length // 2, pad_end=pad_end), window_fn,
                           length)
        a, b, c, d = split(frames, 4, axis=-1)
        folded = concat([subtract(negative(reverse(c, [-1])), d),
                         subtract(a, reverse(b, [-1]))], -1)
        return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None) -> Tensor:
    """TF's ``tf.signal.inverse_mdct``: the signal whose ``mdct`` (same window and norm)
    ``mdcts`` are, overlap-added from the unfolded frames."""
    with name_scope(name or "inverse_mdct"):
        mdcts = convert_to_tensor(mdcts)
        mdcts.shape.with_rank_at_least(2)
        half = mdcts.shape.dims[-1]
        if half is None:
            raise ValueError("inverse_mdct: devsession needs the last dimension known.")
        if norm is None:
            idct4 = multiply(cast(0.5 / half, mdcts.dtype), dct(mdcts, type=4))
        elif norm == "ortho":
            idct4 = dct(mdcts, type=4, norm="ortho")
        else:
            raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
        first, second = split(idct4, 2, axis=-1)
        frames = concat([second, negative(reverse(second, [-1])),
                         negative(reverse(first, [-1])), negative(first)], -1)
        return overlap_and_add(_windowed(frames, window_fn, 2 * half), half)
