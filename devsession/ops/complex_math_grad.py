"""Gradients of the complex-number and FFT ops (TF's ``math_grad.py`` and
``fft_ops.py``), in TF's convention: a complex tensor's gradient is
``dL/d(real part) + 1j * dL/d(imaginary part)``.

Complex: the real and imaginary parts of the gradient, each summed down to its input's
shape; Real and Imag: the gradient as the real or imaginary part; Conj: its conjugate;
ComplexAbs: ``grad * x / |x|`` (0 where ``x`` is 0); Angle: ``-grad / (imag + 1j*real)``.
FFT and IFFT (1D, 2D, 3D): the inverse transform, scaled by the size (TF's formulas).
RFFT: ``irfft(grad / c) * n``, IRFFT: ``rfft(grad) * c / n`` (``c`` 1 at the zero and
Nyquist frequencies, 2 elsewhere: the bins a half spectrum stands for), each cropped or
padded back to the input's inner length.  RFFT2D and IRFFT2D compose these with the
complex FFT's adjoint along the rows (TF registers no gradient for the 3D real FFTs, nor
does devsession).  RFFT's and IRFFT's gradients take lengths only a run knows (the same
formulas built from tensors); the 2D ones need static shapes and fft lengths.  Checked
against finite differences in tests/test_signal.py.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import constant_value
from . import complex_math, fft
from .array import concat, pad, reshape, stack, transpose
from .array_composites import where_v2
from .array_fill import rank, shape, zeros, zeros_like
from .array_index import strided_slice
from .elementwise import (add, cast, div_no_nan, divide, equal, floordiv, floormod,
                          logical_and, logical_or, maximum, multiply, negative, reciprocal,
                          subtract)
from .sequence import range as range_op
from .reduce import reduce_prod
from .registry import register_gradient
from .shape_of import reduce_to_shape_of

__all__: list = []


@register_gradient("Complex")
def _complex_grad(op, grad):
    x, y = op.inputs
    return [reduce_to_shape_of(complex_math.real(grad), x, peers=(y,)),
            reduce_to_shape_of(complex_math.imag(grad), y, peers=(x,))]


@register_gradient("Real")
def _real_grad(op, grad):
    return [complex_math.complex(grad, zeros_like(grad))]


@register_gradient("Imag")
def _imag_grad(op, grad):
    return [complex_math.complex(zeros_like(grad), grad)]


@register_gradient("Conj")
def _conj_grad(op, grad):
    return [complex_math.conj(grad)]


@register_gradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    scale = div_no_nan(grad, op.outputs[0])
    return [multiply(complex_math.complex(scale, zeros_like(scale)), op.inputs[0])]


@register_gradient("Angle")
def _angle_grad(op, grad):
    x = op.inputs[0]
    z = reciprocal(complex_math.complex(complex_math.imag(x), complex_math.real(x)))
    return [negative(multiply(complex_math.complex(grad, zeros_like(grad)), z))]


def _size(grad, rank: int):
    """The number of elements the inner ``rank`` dims of ``grad`` hold, as grad's dtype."""
    dims = grad.shape.dims if grad.shape.ndims is not None else None
    if dims is not None and all(d is not None for d in dims[-rank:]):
        return float(np.prod(dims[-rank:]))
    inner = strided_slice(shape(grad), [-rank], [0], [1], end_mask=1)
    return cast(reduce_prod(inner), grad.dtype.real_dtype)


def _as_complex(value, like):
    if isinstance(value, float):
        return value
    return complex_math.complex(value, zeros_like(value))


def _complex_fft_grad(inverse_fn, rank: int, scale_by_size: bool):
    def grad_fn(op, grad):
        size = _size(grad, rank)
        if scale_by_size:
            return [multiply(inverse_fn(grad), _as_complex(size, grad))]
        rsize = 1.0 / size if isinstance(size, float) else reciprocal(size)
        return [multiply(inverse_fn(grad), _as_complex(rsize, grad))]
    return grad_fn


for _rank, (_fwd, _inv) in {1: (fft.fft, fft.ifft), 2: (fft.fft2d, fft.ifft2d),
                            3: (fft.fft3d, fft.ifft3d)}.items():
    _suffix = {1: "", 2: "2D", 3: "3D"}[_rank]
    register_gradient(f"FFT{_suffix}")(_complex_fft_grad(_inv, _rank, True))
    register_gradient(f"IFFT{_suffix}")(_complex_fft_grad(_fwd, _rank, False))


def _static_lengths(op, rank: int = 1):
    """(the fft_length, the input's inner dims), ``rank`` of each, known when built."""
    n = constant_value(op.inputs[1])
    dims = op.inputs[0].shape.dims
    inner = None if dims is None or len(dims) < rank else dims[-rank:]
    if n is None or inner is None or None in inner:
        raise NotImplementedError(
            f"The gradient of {op.type} '{op.name}' needs a constant fft_length and "
            f"static inner dimensions of its input.")
    lengths = [int(v) for v in np.asarray(n).reshape(-1)]
    return (lengths[0], inner[0]) if rank == 1 else (lengths, list(inner))


def _half_weights(n: int) -> np.ndarray:
    """How many bins of a length-n spectrum each of the n // 2 + 1 kept bins stands for."""
    c = np.full(n // 2 + 1, 2.0)
    c[0] = 1.0
    if n % 2 == 0:
        c[-1] = 1.0
    return c


def _fit_last(x, length: int):
    """``x``'s last dimension cropped or zero-padded to ``length``."""
    have = x.shape.dims[-1]
    if have > length:
        return x[..., :length]
    if have < length:
        return pad(x, [[0, 0]] * (x.shape.ndims - 1) + [[0, length - have]])
    return x


def _known_lengths(op):
    """``_static_lengths(op)``, or None where only a run knows them (rank 1)."""
    try:
        return _static_lengths(op)
    except NotImplementedError:
        return None


def _run_time_half_weights(n, dtype):
    """``_half_weights`` of an int32 scalar ``n`` only a run knows, as ``dtype``."""
    bins = range_op(add(floordiv(n, 2), 1))
    edge = logical_or(equal(bins, 0), logical_and(
        equal(bins, floordiv(n, 2)), equal(floormod(n, 2), 0)))
    return cast(where_v2(edge, 1.0, 2.0), dtype)


def _fit_last_at_run_time(x, length):
    """``x``'s last dimension zero-padded or cropped to ``length``, a scalar tensor."""
    grow = maximum(0, subtract(length, shape(x)[-1]))
    outer = zeros(stack([subtract(rank(x), 1), 2]), dtypes.int32)
    padded = pad(x, concat([outer, reshape(stack([0, grow]), [1, 2])], 0))
    return padded[..., :length]


@register_gradient("RFFT")
def _rfft_grad(op, grad):
    known = _known_lengths(op)
    if known is None:            # a run's lengths: the same formula with tensors
        n = reshape(op.inputs[1], [])
        weights = reciprocal(_run_time_half_weights(n, grad.dtype))
        full = multiply(fft.irfft(multiply(grad, weights), op.inputs[1]),
                        cast(n, grad.dtype.real_dtype))
        return [_fit_last_at_run_time(full, shape(op.inputs[0])[-1]), None]
    n, length = known
    weights = (1.0 / _half_weights(n)).astype(grad.dtype.np)
    full = multiply(fft.irfft(multiply(grad, weights), [n]), float(n))
    return [_fit_last(full, length), None]


@register_gradient("IRFFT")
def _irfft_grad(op, grad):
    known = _known_lengths(op)
    complex_dtype = op.inputs[0].dtype
    if known is None:
        n = reshape(op.inputs[1], [])
        weights = divide(_run_time_half_weights(n, complex_dtype), cast(n, complex_dtype))
        half = multiply(fft.rfft(grad, op.inputs[1]), weights)
        return [_fit_last_at_run_time(half, shape(op.inputs[0])[-1]), None]
    n, length = known
    weights = (_half_weights(n) / n).astype(complex_dtype.np)
    return [_fit_last(multiply(fft.rfft(grad, [n]), weights), length), None]


def _along_rows(fn, x):
    """``fn`` (a transform of the last axis) applied along the second-to-last axis."""
    perm = list(range(x.shape.ndims))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(fn(transpose(x, perm)), perm)


def _fit_rows(x, length: int):
    """``x``'s second-to-last dimension cropped or zero-padded to ``length``."""
    return _along_rows(lambda t: _fit_last(t, length), x)


@register_gradient("RFFT2D")
def _rfft2d_grad(op, grad):
    """RFFT2D is the FFT of the rows of the last axis' RFFT: its adjoint is the rows'
    inverse FFT (times their count), then RFFT's adjoint along the last axis."""
    (rows, n), (in_rows, length) = _static_lengths(op, 2)
    over_rows = multiply(_along_rows(fft.ifft, grad), _as_complex(float(rows), grad))
    weights = (1.0 / _half_weights(n)).astype(grad.dtype.np)
    full = multiply(fft.irfft(multiply(over_rows, weights), [n]), float(n))
    return [_fit_rows(_fit_last(full, length), in_rows), None]


@register_gradient("IRFFT2D")
def _irfft2d_grad(op, grad):
    """IRFFT2D is the last axis' IRFFT of the rows' inverse FFT: its adjoint is IRFFT's
    adjoint along the last axis, then the rows' FFT divided by their count."""
    (rows, n), (in_rows, length) = _static_lengths(op, 2)
    weights = (_half_weights(n) / n).astype(op.inputs[0].dtype.np)
    half = multiply(fft.rfft(grad, [n]), weights)
    over_rows = multiply(_along_rows(fft.fft, half), _as_complex(1.0 / rows, half))
    return [_fit_rows(_fit_last(over_rows, length), in_rows), None]
