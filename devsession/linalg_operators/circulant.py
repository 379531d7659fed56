"""TF's circulant operators: ``LinearOperatorCirculant`` (a circulant matrix),
``LinearOperatorCirculant2D`` (block circulant with circulant blocks) and
``LinearOperatorCirculant3D`` (one more level), each given by its ``spectrum``: the
eigenvalues, the DFT of the convolution kernel over the last ``block_depth`` axes.

A product is a convolution: each column of ``x`` is reshaped to the block shape,
transformed by devsession's FFT/FFT2D/FFT3D ops, multiplied by the spectrum and
transformed back (solves divide instead); the result is cast to
``input_output_dtype`` (complex64 by default; a real dtype keeps the real part, as
TF's cast does).  Columns are put on a leading axis by a transpose rather than
TF's rotation, which gives the same numbers."""

from __future__ import annotations

import numpy as np

from . import tf_api as ds

from . import util
from .base import LinearOperator
from .hints import combined_commuting_positive_definite_hint
from .hints import combined_commuting_self_adjoint_hint, combined_non_singular_hint

_FFT = {1: "fft", 2: "fft2d", 3: "fft3d"}
_IFFT = {1: "ifft", 2: "ifft2d", 3: "ifft3d"}


def _to_complex(x):
    if x.dtype.is_complex:
        return x
    dtype = ds.complex128 if x.dtype == ds.float64 else ds.complex64
    return ds.cast(x, dtype)


class _BaseLinearOperatorCirculant(LinearOperator):
    """The shared body of the 1, 2 and 3-level circulant operators."""

    def __init__(self, spectrum, block_depth, input_output_dtype=ds.complex64,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name="LinearOperatorCirculant"):
        """Raises ValueError for a bad ``block_depth``, a spectrum of too few axes,
        a real spectrum hinted not self-adjoint or ``is_square=False``."""
        parameters = dict(spectrum=spectrum, block_depth=block_depth,
                          input_output_dtype=input_output_dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        allowed = [1, 2, 3]
        if block_depth not in allowed:
            raise ValueError(f"Argument `block_depth` must be one of {allowed}. "
                             f"Received: {block_depth}.")
        self._block_depth = block_depth
        with ds.name_scope(name):
            self._spectrum = ds.convert_to_tensor(spectrum, name="spectrum")
            ndims = self._spectrum.shape.ndims
            if ndims is not None and ndims < block_depth:
                raise ValueError(f"Argument `spectrum` must have at least {block_depth} "
                                 f"dimensions. Received: {self._spectrum}.")
            if not self._spectrum.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError(
                        f"A real spectrum always corresponds to a self-adjoint operator. "
                        f"Expected argument `is_self_adjoint` to be True when "
                        f"`spectrum.dtype.is_complex` = True. "
                        f"Received: {is_self_adjoint}.")
                is_self_adjoint = True
            if is_square is False:
                raise ValueError(
                    f"A [[nested] block] circulant operator is always square. "
                    f"Expected argument `is_square` to be True. Received: {is_square}.")
            super().__init__(dtype=ds.as_dtype(input_output_dtype),
                             is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"spectrum": self._block_depth}

    def _same_kind(self, spectrum, dtype=ds.complex64, **hints):
        return _BaseLinearOperatorCirculant(spectrum, block_depth=self._block_depth,
                                            input_output_dtype=dtype, is_square=True,
                                            **hints)

    @property
    def block_depth(self):
        return self._block_depth

    @property
    def spectrum(self):
        return self._spectrum

    @property
    def block_shape(self):
        return self._spectrum.shape[-self._block_depth:]

    def block_shape_tensor(self):
        return ds.shape(self._spectrum)[-self._block_depth:]

    def _shape(self):
        shape = self._spectrum.shape
        trailing = shape[-self._block_depth:]
        n = int(np.prod(trailing.as_list())) if trailing.is_fully_defined() else None
        return shape[:-self._block_depth].concatenate([n, n])

    def _shape_tensor(self):
        shape = ds.shape(self._spectrum)
        n = ds.reduce_prod(shape[-self._block_depth:])
        return ds.concat([shape[:-self._block_depth], ds.stack([n, n])], 0)

    def _linop_adjoint(self):
        # TF's adjoint does not pass input_output_dtype on: it is complex64.
        return self._same_kind(util.conj(self._spectrum),
                               is_non_singular=self.is_non_singular,
                               is_self_adjoint=self.is_self_adjoint,
                               is_positive_definite=self.is_positive_definite)

    def _linop_inverse(self):
        return self._same_kind(1. / self._spectrum, dtype=self.dtype,
                               is_non_singular=self.is_non_singular,
                               is_self_adjoint=self.is_self_adjoint,
                               is_positive_definite=self.is_positive_definite)

    def _combined(self, left, right, spectrum):
        return self._same_kind(
            spectrum, is_non_singular=combined_non_singular_hint(left, right),
            is_self_adjoint=combined_commuting_self_adjoint_hint(left, right),
            is_positive_definite=combined_commuting_positive_definite_hint(left, right))

    def _linop_matmul(self, left, right):
        if (isinstance(right, _BaseLinearOperatorCirculant)
                and isinstance(left, type(right))):
            return self._combined(left, right, left.spectrum * right.spectrum)
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if (isinstance(right, _BaseLinearOperatorCirculant)
                and isinstance(left, type(right))):
            return self._combined(left, right, right.spectrum / left.spectrum)
        return super()._linop_solve(left, right)

    def _fft(self, x, inverse=False):
        op = getattr(ds.signal, (_IFFT if inverse else _FFT)[self._block_depth])
        return op(_to_complex(x))

    def _convolve(self, x, spectrum_fn):
        """``spectrum_fn`` applied to the spectrum of each column of ``x``."""
        spectrum = _to_complex(self._spectrum)
        x = ds.cast(ds.matrix_transpose(x), spectrum.dtype)        # [..., R, N]
        x_shape = ds.shape(x)
        blocks = ds.reshape(x, ds.concat([x_shape[:-1], self.block_shape_tensor()], 0))
        spectrum = ds.expand_dims(spectrum, -self._block_depth - 1)  # [..., 1, block]
        result = self._fft(spectrum_fn(self._fft(blocks), spectrum), inverse=True)
        result_shape = ds.shape(result)
        flat = ds.reshape(result, ds.concat(
            [result_shape[:-self._block_depth],
             ds.reshape(ds.reduce_prod(result_shape[-self._block_depth:]), [1])], 0))
        return ds.cast(ds.matrix_transpose(flat), self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = util.adjoint(x) if adjoint_arg else x
        if adjoint:
            return self._convolve(x, lambda fx, s: util.conj(s) * fx)
        return self._convolve(x, lambda fx, s: s * fx)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = util.adjoint(rhs) if adjoint_arg else rhs
        if adjoint:
            return self._convolve(rhs, lambda fx, s: fx / util.conj(s))
        return self._convolve(rhs, lambda fx, s: fx / s)

    def convolution_kernel(self, name="convolution_kernel"):
        """The kernel ``h`` whose DFT is the spectrum, in this operator's dtype."""
        with self._name_scope(name):
            return ds.cast(self._fft(self._spectrum, inverse=True), self.dtype)

    def _axes(self):
        return [-(i + 1) for i in range(self._block_depth)]

    def _determinant(self):
        return ds.cast(ds.reduce_prod(self._spectrum, axis=self._axes()), self.dtype)

    def _log_abs_determinant(self):
        return ds.cast(ds.reduce_sum(ds.log(ds.abs(self._spectrum)), axis=self._axes()),
                       self.dtype)

    def _trace(self):
        real = ds.reduce_sum(ds.real(self._spectrum), axis=self._axes())
        if not self.dtype.is_complex:
            return ds.cast(real, self.dtype)
        if self.is_self_adjoint:
            imag = ds.zeros_like(real)
        else:
            imag = ds.reduce_sum(ds.imag(self._spectrum), axis=self._axes())
        return ds.cast(ds.complex(real, imag), self.dtype)

    def _diag_part(self):
        if self.shape.is_fully_defined():
            diag_shape = self.shape[:-1].as_list()
            size = ds.dimension_value(self.domain_dimension)
        else:
            diag_shape, size = self.shape_tensor()[:-1], self.domain_dimension_tensor()
        value = self.trace() / ds.cast(size, self.dtype)
        return ds.expand_dims(value, -1) * ds.ones(diag_shape, self.dtype)

    def _unblockified_spectrum(self):
        shape = ds.shape(self._spectrum)
        return ds.reshape(self._spectrum, ds.concat(
            [shape[:-self._block_depth],
             ds.reshape(ds.reduce_prod(shape[-self._block_depth:]), [1])], 0))

    def _eigvals(self):
        return self._unblockified_spectrum()

    def _cond(self):
        values = ds.abs(self._unblockified_spectrum())
        return ds.reduce_max(values, axis=-1) / ds.reduce_min(values, axis=-1)

    def _assert_non_singular(self):
        return util.assert_no_entries_with_modulus_zero(
            self._spectrum, message="Singular operator:  Spectrum contained zero values.")

    def _assert_positive_definite(self):
        return ds.debugging.assert_positive(
            ds.real(self._spectrum),
            message="Not positive definite:  Real part of spectrum was not all positive.")

    def _assert_self_adjoint(self):
        return util.assert_zero_imag_part(
            self._spectrum,
            message="Not self-adjoint:  The spectrum contained non-zero imaginary part.")

    def assert_hermitian_spectrum(self, name="assert_hermitian_spectrum"):
        """An op failing when the spectrum is not Hermitian (a real kernel's)."""
        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        with self._name_scope(name):
            max_err = eps * ds.cast(self.domain_dimension_tensor(), self.dtype.real_dtype)
            imag = ds.imag(_to_complex(self.convolution_kernel()))
            return ds.debugging.assert_less(ds.abs(imag), max_err,
                                            message="Spectrum was not Hermitian")


class _CirculantOfDepth(_BaseLinearOperatorCirculant):
    """The public circulants: ``_DEPTH`` nested levels of circulant blocks, named after
    their class by default, as TF's."""

    _DEPTH = 1

    def __init__(self, spectrum, input_output_dtype=ds.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name=None):
        super().__init__(spectrum, block_depth=self._DEPTH,
                         input_output_dtype=input_output_dtype,
                         is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or type(self).__name__)
        del self._parameters["block_depth"]     # not an argument of these classes

    def _same_kind(self, spectrum, dtype=ds.complex64, **hints):
        return type(self)(spectrum, input_output_dtype=dtype, is_square=True, **hints)


class LinearOperatorCirculant(_CirculantOfDepth):
    """A circulant ``N x N`` matrix from its ``[..., N]`` spectrum."""


class LinearOperatorCirculant2D(_CirculantOfDepth):
    """Block circulant with circulant blocks, from a ``[..., N0, N1]`` spectrum."""

    _DEPTH = 2


class LinearOperatorCirculant3D(_CirculantOfDepth):
    """Three nested levels of circulant blocks, from a ``[..., N0, N1, N2]``
    spectrum."""

    _DEPTH = 3
