"""The special functions of ``kernels/special_math.py`` compiled by numba, for the
generated elementwise loops (``codegen/cpu.py`` calls them as ``_ds_<name>``).

special_math's functions call each other (igamma's derivative needs lgamma and
digamma) through their module's globals, and numba can only call compiled functions.
So each is compiled from a copy of the function whose globals are a copy of the
module's in which every one of them is its compiled version: the Python module stays
plain Python for the reference kernels.  ``cache=True`` keeps the machine code on disk
(numba keys it by special_math.py's source and its timestamp), and ``error_model
="numpy"`` makes a division by zero inf, as in C.  They take and return float64.
"""

from __future__ import annotations

import types

from .. import special_math
from .numba_setup import numba

__all__ = list(special_math.SCALAR_FUNCTIONS)


def _compile_all() -> dict:
    namespace = dict(vars(special_math))
    for name in special_math.SCALAR_FUNCTIONS + special_math.HELPERS:
        py = getattr(special_math, name)
        copy = types.FunctionType(py.__code__, namespace, name, py.__defaults__)
        copy.__module__, copy.__qualname__ = py.__module__, py.__qualname__
        namespace[name] = numba.njit(cache=True, nogil=True, error_model="numpy")(copy)
    return namespace


_compiled = _compile_all()
globals().update({name: _compiled[name] for name in __all__})
