"""TF's ``tf.signal`` composites, built from existing ops with TF's formulas (so their
values, gradients and GraphDefs follow from those ops): ``frame`` (frames of
``frame_length`` every ``frame_step`` samples along ``axis``, a GatherV2 of a
``[num_frames, frame_length]`` index grid; ``pad_end`` pads with ``pad_value`` up to
``ceil(length / frame_step)`` frames), ``overlap_and_add`` (its inverse sum, an
UnsortedSegmentSum), ``hann_window`` / ``hamming_window`` (TF's raised cosines,
periodic by default), ``stft`` (frames, windowed, RFFT of ``fft_length``: by default the
power of two enclosing ``frame_length``), ``inverse_stft`` and
``inverse_stft_window_fn``, ``dct`` / ``idct`` (types 1-4 through a 2N RFFT, as TF),
``linear_to_mel_weight_matrix`` (HTK's mel scale, TF's triangles) and
``mfccs_from_log_mel_spectrograms`` (a type-2 DCT scaled by ``rsqrt(2 * num_mel_bins)``).

Lengths only a run knows (int32/int64 scalar tensors, as TF takes them): ``frame``'s
``frame_length`` and ``frame_step``, ``overlap_and_add``'s ``frame_step``, ``stft``'s
three lengths (the default ``fft_length`` then computed in the graph, as TF) and the
windows' ``window_length`` and ``periodic``, ``inverse_stft``'s and
``inverse_stft_window_fn``'s lengths (TF's run-time crop and pad of the frames, whose
static shape TF leaves unknown).  The signal's length may be unknown, and its rank
(``frame`` then pads the run's row for ``axis``); so may the last dimension of
``dct``'s, ``idct``'s and ``mfccs_from_log_mel_spectrograms``' input (its length then
taken from the run, as TF).  A ``frame_step`` of 0 is a ValueError when built: TF fails
the run on its integer division by zero, which devsession's kernels give as 0.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from . import complex_math, fft
from .array import concat, expand_dims, pad, reshape, split, stack, tile, transpose
from .array_composites import where_v2
from .array_fill import ones, rank, shape, zeros
from .array_index import gather, unsorted_segment_sum
from .elementwise import (cast, ceil, cos, divide, equal, exp, floordiv, floormod, maximum,
                          minimum, multiply, negative, pow as pow_op, rsqrt, sqrt, square,
                          subtract)
from .elementwise import add as add_op, log as log_op
from .masking import linspace
from .reduce import reduce_sum
from .sequence import range as range_op

__all__ = ["frame", "overlap_and_add", "hann_window", "hamming_window", "stft",
           "inverse_stft", "inverse_stft_window_fn", "dct", "idct",
           "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]


def _static_int(value, what: str) -> int:
    known = value if isinstance(value, (int, np.integer)) else constant_value(
        convert_to_tensor(value))
    if known is None:
        raise ValueError(f"{what} must be a Python int or a constant here; devsession "
                         f"does not take a {what} only a run knows.")
    known = np.asarray(known)
    if known.dtype.kind not in "iu":
        # TF converts it to int32 or meets it in an int32 FloorDiv: a TypeError either way
        raise TypeError(f"{what} must be an integer, got {known.dtype.name} "
                        f"({known.tolist()!r}).")
    if known.ndim != 0:
        raise ValueError(f"Shape {list(known.shape)} must have rank 0 ({what}).")
    return int(known)


def _int_or_tensor(value, what: str):
    """``value`` as a Python int where it is known before a run, else an int32 scalar
    tensor (TF takes a ``frame_step`` only a run knows)."""
    if isinstance(value, (int, np.integer)) or constant_value(convert_to_tensor(value)) \
            is not None:
        return _static_int(value, what)
    value = convert_to_tensor(value, name=what)
    if value.shape.ndims not in (None, 0):
        raise ValueError(f"Shape {value.shape} must have rank 0 ({what}).")
    if value.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{what} must be an integer tensor, got {value.dtype.name}.")
    return cast(value, dtypes.int32)


def _axis_length(x: Tensor, axis: int):
    dim = x.shape.dims[axis] if x.shape.ndims is not None else None
    return dim if dim is not None else shape(x)[axis]


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1,
          name=None) -> Tensor:
    """``signal``'s ``axis`` expanded into frames: ``[..., num_frames, frame_length, ...]``
    (TF's ``tf.signal.frame``)."""
    with name_scope(name or "frame"):
        x = convert_to_tensor(signal, name="signal")
        if x.shape.ndims is not None and x.shape.ndims < 1:
            raise ValueError(f"Shape {x.shape} must have rank at least 1")
        length_frame = _int_or_tensor(frame_length, "frame_length")
        step = _int_or_tensor(frame_step, "frame_step")
        if x.shape.ndims is not None:
            axis = range(x.shape.ndims)[axis]
        length = _axis_length(x, axis)
        if isinstance(step, int) and step == 0:
            # TF builds this (its static shape divides by zero in numpy) and a run fails
            # with "Integer division by zero"; devsession's integer division by zero
            # gives 0, so it refuses when the graph is built instead.
            raise ValueError("frame_step must not be 0 (TensorFlow fails the run with "
                             "'Integer division by zero').")
        static = all(isinstance(v, int) for v in (length, step, length_frame))
        if pad_end:
            num_frames = -(-length // step) if static else negative(
                floordiv(negative(length), step))
            padding = (max(0, length_frame + step * (num_frames - 1) - length) if static
                       else maximum(0, subtract(add_op(length_frame, multiply(
                           step, subtract(num_frames, 1))), length)))
            if x.shape.ndims is None:      # the padded row found from the run's rank
                rows = rank(x)
                where = equal(range_op(rows), axis if axis >= 0 else add_op(rows, axis))
                paddings = stack([zeros([rows], dtypes.int32),
                                  multiply(cast(where, dtypes.int32), padding)], axis=1)
                dims = None
            else:
                paddings = [[0, 0]] * x.shape.ndims
                paddings[axis] = [0, padding]
                dims = list(x.shape.dims)
                if not static:
                    paddings = _stack_paddings(paddings)
            x = pad(x, paddings, constant_values=convert_to_tensor(pad_value, dtype=x.dtype))
            if not static and dims is not None:
                x.set_shape(dims)      # only the framed axis grows (by a run's amount)
        elif static:
            num_frames = max(0, 1 + (length - length_frame) // step)
        else:
            num_frames = maximum(0, add_op(1, floordiv(subtract(length, length_frame), step)))
        starts = multiply(range_op(num_frames), step)
        indices = add_op(expand_dims(starts, 1), expand_dims(range_op(length_frame), 0))
        return gather(x, indices, axis=axis)


def _stack_paddings(paddings):
    return stack([stack([convert_to_tensor(v, dtype=dtypes.int32) for v in row])
                  for row in paddings])


def overlap_and_add(signal, frame_step, name=None) -> Tensor:
    """``[..., frames, frame_length]`` frames summed where they overlap, every
    ``frame_step`` samples: ``[..., frame_length + frame_step * (frames - 1)]``."""
    with name_scope(name or "overlap_and_add"):
        x = convert_to_tensor(signal, name="signal")
        if x.shape.ndims is not None and x.shape.ndims < 2:
            raise ValueError(f"Shape {x.shape} must have rank at least 2")
        step_dtype = convert_to_tensor(frame_step).dtype
        if not step_dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {step_dtype!r}")
        step = _int_or_tensor(frame_step, "frame_step")
        frames, length_frame = (_axis_length(x, axis) for axis in (-2, -1))
        if all(isinstance(v, int) for v in (frames, length_frame, step)):
            out_length = length_frame + step * (frames - 1)
        else:
            out_length = add_op(length_frame, multiply(step, subtract(frames, 1)))
        ids = add_op(expand_dims(multiply(range_op(frames), step), 1),
                     expand_dims(range_op(length_frame), 0))
        flat = reshape(x, [-1, multiply(frames, length_frame)])
        summed = transpose(unsorted_segment_sum(transpose(flat), reshape(ids, [-1]),
                                                out_length))
        if x.shape.ndims is None:
            return reshape(summed, concat([shape(x)[:-2], reshape(out_length, [1])], 0))
        outer = [d if d is not None else shape(x)[i]
                 for i, d in enumerate(x.shape.dims[:-2])]
        return reshape(summed, outer + [out_length])


def _raised_cosine(window_length, periodic, dtype, a: float, b: float, name: str):
    """``a - b cos(2 pi n / N)`` over ``range(window_length)`` (TF's formula; a length
    or ``periodic`` only a run knows gives the same values from the run's)."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype!r}")
    with name_scope(name):
        length = _int_or_tensor(window_length, "window_length")
        if isinstance(length, int) and length == 1:
            return ones([1], dtype=dtype)
        periodic = convert_to_tensor(periodic, dtype=dtypes.bool, name="periodic")
        if periodic.shape.ndims not in (None, 0):
            raise ValueError(f"Shape {periodic.shape} must have rank 0 (periodic).")
        known = constant_value(periodic)
        periodic = int(bool(known)) if known is not None else cast(periodic, dtypes.int32)
        if isinstance(length, int) and isinstance(periodic, int):
            n = cast(length + periodic * (1 - length % 2) - 1, dtype)
        else:
            even = subtract(1, floormod(length, 2))
            n = cast(subtract(add_op(length, multiply(periodic, even)), 1), dtype)
        count = cast(range_op(length), dtype)
        cos_arg = divide(multiply(convert_to_tensor(2 * np.pi, dtype=dtype), count), n)
        window = cast(subtract(a, multiply(b, cos(cos_arg))), dtype)
        if isinstance(length, int):
            return window
        # TF's cond: a run's length of 1 is [1.0] (the formula divides 0 by 0)
        return where_v2(equal(length, 1), ones([length], dtype=dtype), window)


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """TF's Hann window: ``0.5 - 0.5 cos(2 pi n / N)``, N the length (periodic) or the
    length - 1."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, name or "hann_window")


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """TF's Hamming window: ``0.54 - 0.46 cos(2 pi n / N)``."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46,
                          name or "hamming_window")


def _enclosing_power_of_two(value):
    """The smallest power of two at least ``value`` (an int, or an int32 tensor as TF's
    ``2 ** ceil(log(value) / log(2))`` in float32)."""
    if isinstance(value, int):
        return int(2 ** np.ceil(np.log(value) / np.log(2.0)))
    exponent = ceil(divide(log_op(cast(value, dtypes.float32)), np.float32(np.log(2.0))))
    return cast(pow_op(2.0, exponent), dtypes.int32)


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None) -> Tensor:
    """The short-time Fourier transform of ``[..., samples]`` signals:
    ``[..., frames, fft_length // 2 + 1]`` complex (TF's ``tf.signal.stft``)."""
    with name_scope(name or "stft"):
        x = convert_to_tensor(signals, name="signals")
        if x.shape.ndims is not None and x.shape.ndims < 1:
            raise ValueError(f"Shape {x.shape} must have rank at least 1")
        length_frame = _int_or_tensor(frame_length, "frame_length")
        n = (_enclosing_power_of_two(length_frame) if fft_length is None
             else _int_or_tensor(fft_length, "fft_length"))
        framed = frame(x, length_frame, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed = multiply(framed, window_fn(length_frame, dtype=framed.dtype))
        return fft.rfft(framed, [n])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function making ``inverse_stft`` invert ``stft`` with
    ``forward_window_fn`` (Griffin and Lim's equation 7, as TF)."""
    def window(frame_length, dtype):
        with name_scope(name or "inverse_stft_window_fn"):
            step = _int_or_tensor(frame_step, "frame_step")
            length = _int_or_tensor(frame_length, "frame_length")
            forward = forward_window_fn(length, dtype=dtype)
            if isinstance(step, int) and isinstance(length, int):
                overlaps = -(-length // step)
                padded = overlaps * step
            else:
                overlaps = negative(floordiv(negative(length), step))
                padded = multiply(overlaps, step)
            denom = pad(square(forward), [[0, subtract(padded, length)]])
            denom = reduce_sum(reshape(denom, [overlaps, step]), 0, keepdims=True)
            denom = reshape(tile(denom, [overlaps, 1]), [padded])
            return divide(forward, denom[:length])
    return window


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None) -> Tensor:
    """Signals from their ``[..., frames, fft_length // 2 + 1]`` STFTs: IRFFT of each
    frame, cropped or padded to ``frame_length``, windowed and overlap-added (TF's
    ``tf.signal.inverse_stft``; pass ``inverse_stft_window_fn`` to invert ``stft``)."""
    with name_scope(name or "inverse_stft"):
        z = convert_to_tensor(stfts, name="stfts")
        if z.shape.ndims is not None and z.shape.ndims < 2:
            raise ValueError(f"Shape {z.shape} must have rank at least 2")
        length = _int_or_tensor(frame_length, "frame_length")
        n = (_enclosing_power_of_two(length) if fft_length is None
             else _int_or_tensor(fft_length, "fft_length"))
        frames = fft.irfft(z, [n])
        if not (isinstance(length, int) and isinstance(n, int)) or frames.shape.ndims is None:
            # TF's run-time crop and pad (a Pad whose static shape is unknown)
            frames = frames[..., :length]
            grow = maximum(0, subtract(length, shape(frames)[-1]))
            paddings = concat([zeros(stack([subtract(rank(frames), 1), 2]), dtypes.int32),
                               reshape(stack([0, grow]), [1, 2])], 0)
            frames = pad(frames, paddings)
        elif n > length:
            frames = frames[..., :length]
        elif n < length:
            frames = pad(frames, [[0, 0]] * (frames.shape.ndims - 1) + [[0, length - n]])
        if window_fn is not None:
            frames = multiply(frames, window_fn(length, dtype=z.dtype.real_dtype))
        return overlap_and_add(frames, frame_step)


_DCT_TYPES = (1, 2, 3, 4)


def _validate_dct(x: Tensor, dct_type, n, axis, norm) -> None:
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError(f"n should be a positive integer or None. Got: {n}")
    if dct_type not in _DCT_TYPES:
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported. Got: {dct_type}")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if x.shape.dims is not None and x.shape.dims[-1] is not None and \
                x.shape.dims[-1] < 2:
            raise ValueError(f"Type-I DCT requires the dimension to be greater than one. "
                             f"Got: {x.shape.dims[-1]}")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _fit_last(x: Tensor, n) -> Tensor:
    """``x``'s last dimension cropped or zero-padded to ``n`` (TF's smart_cond of a crop
    and a pad; where the last dimension or ``n`` is known only at run time, a crop then a
    pad of what is missing)."""
    have = x.shape.dims[-1]
    if have is None or not isinstance(n, int):
        grow = maximum(0, subtract(n, shape(x)[-1]))
        return pad(x[..., 0:n], _stack_paddings([[0, 0]] * (x.shape.ndims - 1) + [[0, grow]]))
    if n <= have:
        return x[..., 0:n]
    return pad(x, [[0, 0]] * (x.shape.ndims - 1) + [[0, n - have]])


def _ortho_weights(first, rest, size, dtype):
    """``[first, rest, rest, ...]`` of ``size`` values (TF pads ``first`` with ``rest``)."""
    return pad(expand_dims(first, 0), [[0, subtract(size, 1)]], constant_values=rest)


def _dct(x: Tensor, dct_type: int, n, norm) -> Tensor:
    zero = convert_to_tensor(0.0, dtype=x.dtype)
    if n is not None:
        x = _fit_last(x, n)
    size = _axis_length(x, -1)            # TF's: the static length, else the run's
    size_float = cast(size, x.dtype)
    if dct_type == 1:
        return complex_math.real(fft.rfft(concat([x, x[..., -2:0:-1]], -1)))
    if dct_type == 2:
        scale = multiply(2.0, exp(complex_math.complex(zero, divide(multiply(multiply(
            negative(range_op(size_float)), math.pi), 0.5), size_float))))
        dct2 = complex_math.real(multiply(fft.rfft(x, [multiply(2, size)])[..., :size], scale))
        if norm == "ortho":
            n1 = multiply(0.5, rsqrt(size_float))
            dct2 = multiply(dct2, _ortho_weights(n1, multiply(n1, math.sqrt(2.0)), size,
                                                 x.dtype))
        return dct2
    if dct_type == 3:
        if norm == "ortho":
            n1 = sqrt(size_float)
            x = multiply(x, _ortho_weights(n1, multiply(n1, math.sqrt(0.5)), size, x.dtype))
        else:
            x = multiply(x, size_float)
        scale = multiply(2.0, exp(complex_math.complex(zero, divide(multiply(multiply(
            range_op(size_float), math.pi), 0.5), size_float))))
        return complex_math.real(fft.irfft(multiply(scale, complex_math.complex(x, zero)),
                                           [multiply(2, size)]))[..., :size]
    dct2 = _dct(x, 2, 2 * size if isinstance(size, int) else multiply(2, size), None)
    dct4 = dct2[..., 1::2]
    if norm == "ortho":
        dct4 = multiply(dct4, multiply(math.sqrt(0.5), rsqrt(size_float)))
    return dct4


def _dct_input(input, name: str) -> Tensor:  # noqa: A002
    x = convert_to_tensor(input)
    if x.shape.ndims is None:
        raise ValueError(f"{name}: devsession needs the rank of the input known.")
    return x


def dct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002
    """TF's ``tf.signal.dct``: DCT types 1-4 of the last axis, through a 2N RFFT."""
    with name_scope(name or "dct"):
        x = _dct_input(input, "dct")
        _validate_dct(x, type, n, axis, norm)
        return _dct(x, type, n, norm)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002
    """TF's ``tf.signal.idct``: the DCT of the inverse type (1, 3, 2, 4), unscaled
    unless ``norm='ortho'``, as TF."""
    with name_scope(name or "idct"):
        x = _dct_input(input, "idct")
        _validate_dct(x, type, n, axis, norm)
        return _dct(x, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)


_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies):
    with name_scope("hertz_to_mel"):
        return multiply(_MEL_HIGH_FREQUENCY_Q, log_op(add_op(
            1.0, divide(frequencies, _MEL_BREAK_FREQUENCY_HERTZ))))


def _validate_mel(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype):
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz "
                         f"{upper_edge_hertz:.1f}")
    if sample_rate is not None and sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if sample_rate is not None and upper_edge_hertz > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                         f"(sample_rate / 2). Got {upper_edge_hertz} for sample_rate: "
                         f"{sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype!r}")


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=dtypes.float32, name=None) -> Tensor:
    """A ``[num_spectrogram_bins, num_mel_bins]`` matrix taking linear-frequency
    magnitudes to mel bands: TF's triangles on HTK's mel scale, the DC bin zero."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(sample_rate, Tensor):
        known = constant_value(sample_rate)
        sample_rate = sample_rate if known is None else float(known)
    rate = sample_rate if isinstance(sample_rate, Tensor) else float(sample_rate)
    _validate_mel(num_mel_bins, None if isinstance(rate, Tensor) else rate, lower_edge_hertz,
                  upper_edge_hertz, dtype)
    with name_scope(name or "linear_to_mel_weight_matrix") as scope:
        rate = cast(rate, dtype, name="sample_rate")
        lower = convert_to_tensor(lower_edge_hertz, dtype=dtype, name="lower_edge_hertz")
        upper = convert_to_tensor(upper_edge_hertz, dtype=dtype, name="upper_edge_hertz")
        zero = convert_to_tensor(0.0, dtype=dtype)
        nyquist = divide(rate, 2.0)
        linear = linspace(zero, nyquist, num_spectrogram_bins)[1:]
        bins_mel = expand_dims(_hertz_to_mel(linear), 1)
        edges = frame(linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2),
                      frame_length=3, frame_step=1)
        lower_mel, center_mel, upper_mel = (reshape(t, [1, num_mel_bins])
                                            for t in split(edges, 3, axis=1))
        lower_slopes = divide(subtract(bins_mel, lower_mel), subtract(center_mel, lower_mel))
        upper_slopes = divide(subtract(upper_mel, bins_mel), subtract(upper_mel, center_mel))
        weights = maximum(zero, minimum(lower_slopes, upper_slopes))
        return pad(weights, [[1, 0], [0, 0]], name=scope)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None) -> Tensor:
    """MFCCs of ``[..., num_mel_bins]`` log-magnitude mel spectrograms: the orthonormal-ish
    type-2 DCT TF computes, ``dct(x) * rsqrt(2 * num_mel_bins)``."""
    with name_scope(name or "mfccs_from_log_mel_spectrograms"):
        x = convert_to_tensor(log_mel_spectrograms)
        if x.shape.ndims is None:
            raise ValueError("mfccs_from_log_mel_spectrograms: devsession needs the rank of "
                             "the log-mel spectrograms known.")
        bins = _axis_length(x, -1)
        if bins == 0:
            raise ValueError(f"num_mel_bins must be positive. Got: {x}")
        dct2 = dct(x, type=2)
        return multiply(dct2, rsqrt(multiply(cast(bins, dct2.dtype), 2.0)))
