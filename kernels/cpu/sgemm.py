"""``var -= lr * op(a) @ op(b)`` in one product that accumulates into the variable:
``register_gemm``'s kernels where they run (alpha ``-lr``, added to C), else one BLAS
call, ``cblas_sgemm`` with ``alpha = -lr`` and ``beta = 1``.

Why: a dense layer's SGD update otherwise writes the weight gradient out (the product)
and then passes over the variable and the gradient again (the update); one sgemm that
accumulates into the variable does neither (the MLP step's 1024 x 1024 layer: 2.9-3.0
ms against 3.4-3.7 ms apart, benchmarks/README.md).  numpy does not expose sgemm's
``beta``, so this calls the OpenBLAS numpy loaded through ctypes; threadpoolctl finds
the library (numpy's wheels ship OpenBLAS with 64-bit integers, its symbols suffixed
``64_``).  With another BLAS, or none found, ``available()`` is False and the optimizer
leaves the product and the update apart (``optimizer/gemm_updates.py``).
"""

from __future__ import annotations

import ctypes
import functools
import os

import numpy as np

from . import register_gemm
from .blas import in_flight, run_product

__all__ = ["available", "sgemm_update"]

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
# (symbol, integer type) in the order tried: numpy's ILP64 OpenBLAS first.
_SYMBOLS = (("scipy_cblas_sgemm64_", ctypes.c_int64), ("cblas_sgemm64_", ctypes.c_int64),
            ("scipy_cblas_sgemm", ctypes.c_int), ("cblas_sgemm", ctypes.c_int))


@functools.cache
def _sgemm():
    """The ctypes function of numpy's OpenBLAS ``cblas_sgemm``, or None."""
    try:
        from threadpoolctl import ThreadpoolController

        blas = ThreadpoolController().select(user_api="blas").lib_controllers
    except Exception:  # noqa: BLE001 - no threadpoolctl or no BLAS found: no fusion
        return None
    for library in _numpys(blas):
        for symbol, integer in _SYMBOLS:
            function = getattr(library.dynlib, symbol, None)
            if function is None:
                continue
            function.restype = None
            function.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int, integer, integer,
                                 integer, ctypes.c_float, ctypes.c_void_p, integer,
                                 ctypes.c_void_p, integer, ctypes.c_float, ctypes.c_void_p,
                                 integer)
            return function
    return None


def _numpys(blas: list) -> list:
    """The OpenBLAS numpy's own products run on, among the BLAS libraries loaded: the one
    its wheel ships (under ``numpy.libs`` or ``numpy/.dylibs``), else the only BLAS
    loaded, if it is an OpenBLAS.  Another package's (scipy ships its own) would run our
    products on a second set of BLAS threads, each set spinning between its calls while
    the other computes (an MLP step took 40-55 ms instead of 15 ms with scipy's picked)."""
    openblas = [lib for lib in blas if lib.internal_api == "openblas"]
    numpy_dir = os.path.dirname(os.path.realpath(np.__file__))
    shipped = [lib for lib in openblas
               if os.path.realpath(lib.filepath).startswith((numpy_dir + os.sep,
                                                              numpy_dir + ".libs" + os.sep))]
    return shipped or (openblas if len(blas) == 1 else [])


def available() -> bool:
    return _sgemm() is not None


def sgemm_update(var: np.ndarray, lr: float, a: np.ndarray, transpose_a: bool,
                 b: np.ndarray, transpose_b: bool) -> None:
    """``var -= lr * op(a) @ op(b)`` in place; all float32, ``var`` C-contiguous and
    (m, n), ``op(a)`` (m, k), ``op(b)`` (k, n): the caller checked the shapes."""
    op_a, op_b = (a.T if transpose_a else a), (b.T if transpose_b else b)
    if op_a.shape[1] and register_gemm.usable():
        with in_flight() as alone:
            if register_gemm.gemm_into(op_a, op_b, var, alpha=-float(lr), accumulate=True,
                                       parallel=alone):
                return
    a = np.ascontiguousarray(a, np.float32)
    b = np.ascontiguousarray(b, np.float32)
    m, n = var.shape
    k = a.shape[0] if transpose_a else a.shape[1]
    if m == 0 or n == 0 or k == 0:
        return                      # nothing to add (BLAS rejects zero leading dimensions)
    run_product(lambda: _sgemm()(
        _ROW_MAJOR, _TRANS if transpose_a else _NO_TRANS, _TRANS if transpose_b else _NO_TRANS,
        m, n, k, -float(lr), a.ctypes.data, a.shape[1], b.ctypes.data, b.shape[1], 1.0,
        var.ctypes.data, n), m * n * k)
