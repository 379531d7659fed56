"""Matrix products: with every thread when a product runs alone, on one thread each when
several run at once.  A 2-D float32 product goes to ``register_gemm`` (devsession's own
kernels, on numba's threads) where that runs; the rest go to BLAS, as below.

OpenBLAS parallelises a call with its own threads, which busy-wait between calls (for
about 0.1 s).  For one product at a time that is what numpy does, and the fastest: a
user's numpy and devsession then share one set of OpenBLAS threads (a product on
devsession's own threads, with numpy's OpenBLAS threads still spinning from the call
before, took 18 ms where 10 ms was due: the MLP forward benchmark, measured right after
numpy's batch).  But products that run at once -- the towers of a cluster whose tasks
share a process (tests, the benchmark), a session's parallel branches -- would each
wake every OpenBLAS thread, and the spinning threads starve the ones that compute (a
data-parallel training step: 400 ms instead of 63 ms).  TensorFlow avoids both with one
intra-op pool per process whose threads block when idle.

So a product big enough for OpenBLAS to thread (``MIN_THREADED_MACS``) that starts while
another is in flight in this process, or while more than one cluster task's step runs
(``parallelism.py``), runs with BLAS held to one thread (``blas_threads.hold(1)``: numpy's
OpenBLAS on pthreads keeps one count per process, so it is held, not set per thread);
one that starts alone calls ``np.matmul`` with whatever count holds then (BLAS's own, or
a session's ``intra_op_threads`` cap).  Where BLAS keeps a count per thread (OpenBLAS
built on OpenMP) or none was found, every product goes to ``np.matmul`` unchanged.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from ..parallelism import task_steps_running
from .. import blas_threads
from . import register_gemm

__all__ = ["matmul_into", "run_product", "in_flight", "MIN_THREADED_MACS"]

MIN_THREADED_MACS = 1 << 18     # below this OpenBLAS runs a product on one thread anyway
REGISTER_GEMM_MACS = 1 << 16    # below this numpy's call costs less than register_gemm's
_F32 = np.dtype(np.float32)
_ACTIVE = [0]                   # products in flight in this process
_ACTIVE_LOCK = threading.Lock()


def matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``np.matmul(a, b, out=out)``; with BLAS held to one thread while other products
    (or other cluster tasks' steps) run in this process.  A float32 product goes to
    ``register_gemm`` instead where it can, on numba's threads when it runs alone."""
    macs = out.size * a.shape[-1]
    if macs >= REGISTER_GEMM_MACS and out.dtype == _F32 and register_gemm.usable():
        with in_flight() as alone:
            if register_gemm.gemm_into(a, b, out, parallel=alone):
                return
    if macs < MIN_THREADED_MACS or not blas_threads.has_process_wide_blas():
        np.matmul(a, b, out=out)
        return
    run_product(lambda: np.matmul(a, b, out=out), macs)


def run_product(product, macs: int):
    """``product()``, a BLAS call of ``macs`` multiply-adds, under the policy above."""
    if macs < MIN_THREADED_MACS or not blas_threads.has_process_wide_blas():
        return product()
    with in_flight() as alone:
        if alone:
            return product()
        blas_threads.hold(1)
        try:
            return product()
        finally:
            blas_threads.release(1)


@contextlib.contextmanager
def in_flight():
    """Count a product in flight for as long as it runs; yields whether it runs alone
    (no other product in this process, at most one cluster task's step)."""
    with _ACTIVE_LOCK:
        _ACTIVE[0] += 1
        alone = _ACTIVE[0] == 1 and task_steps_running() <= 1
    try:
        yield alone
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE[0] -= 1
