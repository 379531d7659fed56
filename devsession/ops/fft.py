"""TF's FFT ops over the innermost 1, 2 or 3 dimensions: ``FFT``/``IFFT`` (and the 2D, 3D
ones) complex to complex (attr ``Tcomplex``), ``RFFT`` real to the ``fft_length // 2 + 1``
non-negative frequencies, ``IRFFT`` back (attrs ``Treal``, ``Tcomplex``), both with TF's
``fft_length`` input: each inner dimension cropped or zero-padded to it first (IRFFT's
last to ``fft_length[-1] // 2 + 1``).  Shapes as TF infers them: a constant
``fft_length`` gives the inner dimensions, any other leaves them unknown.  The real
transforms' Python names are TF's wrappers: a list converts to float32 (IRFFT:
complex64), another dtype is their ValueError, and where the ``fft_length`` or the inner
dims are known only at run time they pad in the graph as TF's do (so every static
dimension of the result is unknown, as TF's).

Python names (``tf.signal.fft``... and TF1's ``tf.fft``, ``tf.spectral.*``): ``fft``,
``ifft``, ``fft2d``, ``ifft2d``, ``fft3d``, ``ifft3d``, ``rfft``, ``irfft``, ``rfft2d``,
``irfft2d``, ``rfft3d``, ``irfft3d``.  Kernels: ``kernels/reference/fft.py`` (numpy's
pocketfft on the host); gradients: ``fft_grad.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, register_op

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "FFT_RANKS"]

_COMPLEX = (dtypes.complex64, dtypes.complex128)
_REAL = (dtypes.float32, dtypes.float64)
_SUFFIX = {1: "", 2: "2D", 3: "3D"}
# Every FFT op's type and the number of inner dimensions it transforms.
FFT_RANKS = {f"{kind}{_SUFFIX[r]}": r for r in (1, 2, 3)
             for kind in ("FFT", "IFFT", "RFFT", "IRFFT")}


def _allowed(x, node: str, allowed) -> None:
    if x.dtype not in allowed:
        raise TypeError(f"Value passed to parameter 'input' of Op '{node}' has DataType "
                        f"{x.dtype.name} not in list of allowed values: "
                        f"{', '.join(d.name for d in allowed)}.")


def _at_least(x, rank: int, node: str) -> None:
    if x.shape.ndims is not None and x.shape.ndims < rank:
        raise InferError(f"Shape must be at least rank {rank} but is rank {x.shape.ndims} "
                         f"for '{node}' with input shapes: {x.shape}.")


def _complex_fft(rank: int):
    def infer(inputs, attrs, node):
        (x,) = inputs
        _allowed(x, node, _COMPLEX)
        _at_least(x, rank, node)
        return x.dtype, x.shape
    return infer


def _fft_lengths(fft_length, rank: int, node: str):
    """The constant ``fft_length`` as a list of ints, or None when only a run knows it."""
    if fft_length.shape.ndims is not None and fft_length.shape.as_list() not in ([rank],
                                                                                   [None]):
        raise InferError(f"Shape must be [{rank}] for fft_length of '{node}', got "
                         f"{fft_length.shape}.")
    value = fft_length.value
    return None if value is None else [int(v) for v in value.reshape(-1)]


def _real_fft(rank: int, inverse: bool):
    def infer(inputs, attrs, node):
        x, fft_length = inputs
        _allowed(x, node, _COMPLEX if inverse else _REAL)
        _at_least(x, rank, node)
        out = dtypes.as_dtype(attrs["Treal"] if inverse else attrs["Tcomplex"])
        lengths = _fft_lengths(fft_length, rank, node)
        if x.shape.ndims is None:
            return out, TensorShape(None)
        dims = list(x.shape.dims)
        if lengths is None:
            inner = [None] * rank
        else:
            inner = list(lengths)
            if not inverse:
                inner[-1] = inner[-1] // 2 + 1
        return out, TensorShape(dims[:len(dims) - rank] + inner)
    return infer


for _op, _rank in FFT_RANKS.items():
    if _op.startswith(("RFFT", "IRFFT")):
        register_op(OpDef(_op, _real_fft(_rank, _op.startswith("I")), 2, host_inputs=(1,),
                          attr_defaults={"Treal": dtypes.float32,
                                         "Tcomplex": dtypes.complex64}))
    else:
        register_op(OpDef(_op, _complex_fft(_rank), 1))


def _complex_builder(op_type: str, public: str):
    def build(input, name=None):  # noqa: A002
        with name_scope(name or public) as scope:
            x = convert_to_tensor(input, name="input")
            return make_op(op_type, [x], {"Tcomplex": x.dtype}, name=scope)
    build.__name__ = build.__qualname__ = public
    build.__doc__ = f"TF's ``tf.signal.{public}``: the {op_type} of ``input``'s inner dims."
    return build


def _static_inner(x: Tensor, rank: int):
    dims = x.shape.dims if x.shape.ndims is not None else None
    if dims is None or any(d is None for d in dims[-rank:]):
        return None
    return list(dims[-rank:])


def _real_builder(op_type: str, public: str, rank: int, inverse: bool):
    def build(input_tensor, fft_length=None, name=None):
        from .array_fill import shape as shape_of
        from .array_index import strided_slice

        with name_scope(name or public) as scope:
            # TF's wrappers: a Python list is float32 (IRFFT: complex64) where it can be,
            # and another dtype is their ValueError (the raw op's is a TypeError); IRFFT
            # checks the rank first.
            x = convert_to_tensor(input_tensor, name="input_tensor",
                                  dtype_hint=dtypes.complex64 if inverse else dtypes.float32)
            if inverse:
                _at_least(x, rank, op_type)
            if x.dtype not in (_COMPLEX if inverse else _REAL):
                raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: "
                                 f"{x}" if inverse else
                                 f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}")
            _at_least(x, rank, op_type)
            if fft_length is None:   # TF's default: the inner dims (IRFFT: 2 * (n - 1))
                inner = _static_inner(x, rank)
                if inner is not None:
                    if inverse:
                        inner[-1] = 2 * (inner[-1] - 1)
                    fft_length = inner
                else:
                    fft_length = strided_slice(shape_of(x), [-rank], [0], [1], end_mask=1)
                    if inverse:
                        fft_length = _irfft_default(fft_length, rank)
            fft_length = convert_to_tensor(fft_length, dtype=dtypes.int32, name="fft_length")
            x = _pad_at_run_time(x, rank, fft_length, inverse)
            real = x.dtype.real_dtype
            attrs = {"Treal": real, "Tcomplex": (dtypes.complex64 if real == dtypes.float32
                                                 else dtypes.complex128)}
            return make_op(op_type, [x, fft_length], attrs, name=scope)
    build.__name__ = build.__qualname__ = public
    build.__doc__ = (f"TF's ``tf.signal.{public}``: the {op_type} of ``input_tensor``'s inner "
                     f"{rank} dimension(s), each cropped or padded to ``fft_length``.")
    return build


def _pad_at_run_time(x: Tensor, rank: int, fft_length: Tensor, inverse: bool) -> Tensor:
    """TF's wrappers pad the inner dims up to ``fft_length`` (IRFFT's last to
    ``fft_length // 2 + 1``) in the graph when it or they are known only at run time: a
    Pad with run-time paddings, whose static shape TF leaves unknown in every dimension,
    the outer ones too.  Where both are known the op's kernel pads, as TF's would."""
    from .array import concat, pad, stack
    from .array_fill import rank as rank_of, shape as shape_of, zeros, zeros_like
    from .array_index import strided_slice
    from .elementwise import add, floordiv, maximum, subtract

    if x.shape.ndims is not None and 0 in x.shape.as_list():
        return x                                       # TF leaves an empty tensor as it is
    if constant_value(fft_length) is not None and _static_inner(x, rank) is not None:
        return x
    inner = strided_slice(shape_of(x), [-rank], [0], [1], end_mask=1)
    outer = zeros([maximum(0, subtract(rank_of(x), rank))], dtypes.int32)
    if inverse:
        fft_length = concat([fft_length[:-1], add(floordiv(fft_length[-1:], 2), 1)], 0)
    paddings = concat([outer, maximum(0, subtract(fft_length, inner))], 0)
    return pad(x, stack([zeros_like(paddings), paddings], axis=1))


def _irfft_default(inner: Tensor, rank: int) -> Tensor:
    """TF's ``fft_length`` of an IRFFT with none given: the inner dims, the last one
    ``2 * (n - 1)``."""
    from .array import concat
    from .array_index import strided_slice
    from .elementwise import multiply, subtract

    last = strided_slice(inner, [rank - 1], [rank], [1])
    return concat([strided_slice(inner, [0], [rank - 1], [1]),
                   multiply(subtract(last, 1), 2)], 0)


fft = _complex_builder("FFT", "fft")
ifft = _complex_builder("IFFT", "ifft")
fft2d = _complex_builder("FFT2D", "fft2d")
ifft2d = _complex_builder("IFFT2D", "ifft2d")
fft3d = _complex_builder("FFT3D", "fft3d")
ifft3d = _complex_builder("IFFT3D", "ifft3d")
rfft = _real_builder("RFFT", "rfft", 1, False)
irfft = _real_builder("IRFFT", "irfft", 1, True)
rfft2d = _real_builder("RFFT2D", "rfft2d", 2, False)
irfft2d = _real_builder("IRFFT2D", "irfft2d", 2, True)
rfft3d = _real_builder("RFFT3D", "rfft3d", 3, False)
irfft3d = _real_builder("IRFFT3D", "irfft3d", 3, True)
