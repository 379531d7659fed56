"""``var -= lr * op(a) @ op(b)`` in one product that accumulates into the variable:
the engine ``blas.plain_products`` picks where there is one (alpha ``-lr``, added to C),
else one BLAS call, ``cblas_sgemm`` with ``alpha = -lr`` and ``beta = 1``.

Why: a dense layer's SGD update otherwise writes the weight gradient out (the product)
and then passes over the variable and the gradient again (the update); one sgemm that
accumulates into the variable does neither (the MLP step's 1024 x 1024 layer: 2.9-3.0
ms against 3.4-3.7 ms apart, benchmarks/README.md).  numpy does not expose sgemm's
``beta``, so this calls the OpenBLAS numpy loaded through ctypes (``cblas.py``).  With
another BLAS, or none found, ``available()`` is False and the optimizer
leaves the product and the update apart (``optimizer/gemm_updates.py``).
"""

from __future__ import annotations

import numpy as np

from . import blas
from .blas import in_flight, run_product
from .cblas import NO_TRANS, ROW_MAJOR, TRANS, sgemm as _sgemm

__all__ = ["available", "sgemm_update"]

def available() -> bool:
    return _sgemm() is not None


def sgemm_update(var: np.ndarray, lr: float, a: np.ndarray, transpose_a: bool,
                 b: np.ndarray, transpose_b: bool) -> None:
    """``var -= lr * op(a) @ op(b)`` in place; all float32, ``var`` C-contiguous and
    (m, n), ``op(a)`` (m, k), ``op(b)`` (k, n): the caller checked the shapes."""
    op_a, op_b = (a.T if transpose_a else a), (b.T if transpose_b else b)
    if op_a.shape[1] and (engine := blas.plain_products()):
        with in_flight() as alone:
            if engine.gemm_into(op_a, op_b, var, alpha=-float(lr), accumulate=True,
                                parallel=alone):
                return
    a = np.ascontiguousarray(a, np.float32)
    b = np.ascontiguousarray(b, np.float32)
    m, n = var.shape
    k = a.shape[0] if transpose_a else a.shape[1]
    if m == 0 or n == 0 or k == 0:
        return                      # nothing to add (BLAS rejects zero leading dimensions)
    run_product(lambda: _sgemm()(
        ROW_MAJOR, TRANS if transpose_a else NO_TRANS, TRANS if transpose_b else NO_TRANS,
        m, n, k, -float(lr), a.ctypes.data, a.shape[1], b.ctypes.data, b.shape[1], 1.0,
        var.ctypes.data, n), m * n * k)
