"""The C library's ``log``, ``sin``, ``cos``, ``exp`` and ``lgamma`` (float and double) over
numpy arrays.

Why: TF's CPU kernels call them one value at a time (``logf``, ``sincosf``...), and the
C library's results are not always the correctly rounded ones, nor numpy's (numpy's own
SIMD float32 ``log``/``sin``/``cos`` differ from glibc's in about one value in five; even
float64 computation rounded to float32 differs in about one in a hundred).  Where a
result must equal TF's bit for bit (the stateless normals' Box-Muller transform), the
same functions are called, through ``ctypes`` per element (about 0.3 us each).  glibc's
``sincosf`` gives what its ``sinf`` and ``cosf`` give.  Without a loadable C math
library (not glibc) numpy's functions stand in.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

import numpy as np

__all__ = ["log", "sin", "cos", "exp", "lgamma"]


@functools.cache
def _library():
    name = ctypes.util.find_library("m")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


@functools.cache
def _ufunc(name: str, dtype: np.dtype):
    """The C function ``name`` (``logf``...) as a numpy ufunc over ``dtype``, or None."""
    library = _library()
    if library is None or not hasattr(library, name):
        return None
    c_type = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    function = getattr(library, name)
    function.restype, function.argtypes = c_type, [c_type]
    return np.frompyfunc(function, 1, 1)


def _apply(name: str, fallback, x: np.ndarray) -> np.ndarray:
    dtype = np.dtype(x.dtype)
    ufunc = _ufunc(name + ("f" if dtype == np.float32 else ""), dtype)
    if ufunc is None or x.size == 0:
        return fallback(x)
    return ufunc(x).astype(dtype)


def log(x: np.ndarray) -> np.ndarray:
    """``logf``/``log`` of each element of a float32/float64 array."""
    return _apply("log", np.log, x)


def sin(x: np.ndarray) -> np.ndarray:
    return _apply("sin", np.sin, x)


def cos(x: np.ndarray) -> np.ndarray:
    return _apply("cos", np.cos, x)


def exp(x: np.ndarray) -> np.ndarray:
    """``expf``/``exp`` of each element (TF's Poisson sampler's ``exp(-rate)``)."""
    return _apply("exp", np.exp, x)


def lgamma(x: np.ndarray) -> np.ndarray:
    """``lgammaf``/``lgamma`` of each element (TF's Poisson rejection test); without a C
    library, ``math.lgamma`` stands in."""
    import math
    return _apply("lgamma", np.vectorize(math.lgamma, otypes=[np.float64]), x)
