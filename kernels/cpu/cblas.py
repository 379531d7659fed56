"""numpy's own OpenBLAS ``cblas_sgemm``, found through threadpoolctl and called with
ctypes: the SGD fold (``sgemm.py``) needs its ``beta``, which numpy does not expose,
and ``blas_shares.py`` calls it once per thread.  numpy's wheels ship OpenBLAS with
64-bit integers, its symbols suffixed ``64_``.
"""

from __future__ import annotations

import ctypes
import functools
import os

import numpy as np

__all__ = ["sgemm", "numpys", "ROW_MAJOR", "NO_TRANS", "TRANS"]

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112
# (symbol, integer type) in the order tried: numpy's ILP64 OpenBLAS first.
_SYMBOLS = (("scipy_cblas_sgemm64_", ctypes.c_int64), ("cblas_sgemm64_", ctypes.c_int64),
            ("scipy_cblas_sgemm", ctypes.c_int), ("cblas_sgemm", ctypes.c_int))


@functools.cache
def sgemm():
    """The ctypes function of numpy's OpenBLAS ``cblas_sgemm``, or None."""
    try:
        from threadpoolctl import ThreadpoolController

        blas = ThreadpoolController().select(user_api="blas").lib_controllers
    except Exception:  # noqa: BLE001 - no threadpoolctl or no BLAS found
        return None
    for library in numpys(blas):
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


def numpys(blas: list) -> list:
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
