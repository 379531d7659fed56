"""Big matrix products cut in row blocks, run at once on devsession's own threads, each
calling BLAS single-threaded.

OpenBLAS parallelises a call with its own threads, which busy-wait between calls (for
about 0.1 s).  That is fine on an idle machine running one product at a time, and a
disaster otherwise: on this 2-core machine under load, one (128, 1024) @ (1024, 1024)
float32 product took 29 ms with OpenBLAS's two threads, 9 ms on one, and 3 ms as two
row blocks on two threads of our own with OpenBLAS single-threaded in each; a cluster
whose tasks share a process (tests, the benchmark) or a session running branches at
once calls BLAS from several threads, and the spinning threads starve the ones that
compute (a data-parallel training step: 400 ms instead of 63 ms).  TensorFlow has the
same design: one intra-op pool per process whose threads block when idle, and BLAS-like
kernels (Eigen's) cut into blocks on it.

So a product big enough for OpenBLAS to thread it runs while BLAS is held to one thread
(``blas_threads.hold(1)``: numpy's OpenBLAS on pthreads keeps one count per process,
and ``openblas_set_num_threads_local`` there sets that same count, so it is held, not set
per thread), and OpenBLAS's own threads never wake.  A 2-D product of at least
``MIN_BLOCKED_MACS`` multiply-adds that starts while no other product runs in the
process (nor more than one cluster task's step: ``parallelism.py``) is cut in row blocks
run on ``_POOL``, the caller's thread running the first: one block per usable core, never
more than a session's ``intra_op_threads`` cap held at the time.  When work already runs
at once (towers of a cluster in one process, parallel branches), each product stays whole
in its own thread: they keep the cores busy without the blocks' hand-offs.  Where BLAS
keeps a count per thread (OpenBLAS built on OpenMP) or none was found, every product goes
to ``np.matmul`` and the BLAS's own threads, unchanged.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading

import numpy as np

from ..parallelism import task_steps_running
from .. import blas_threads

__all__ = ["matmul_into", "blocked_available", "MIN_BLOCKED_MACS"]

MIN_THREADED_MACS = 1 << 18     # below this OpenBLAS runs a product on one thread anyway
MIN_BLOCKED_MACS = 1 << 21      # below this a product takes tens of microseconds
_MIN_BLOCK_ROWS = 16


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


_CORES = _usable_cores()
_POOL = None
_POOL_LOCK = threading.Lock()
_ACTIVE = [0]                   # products in flight in this process
_ACTIVE_LOCK = threading.Lock()


def blocked_available() -> bool:
    return _CORES > 1 and blas_threads.has_process_wide_blas()


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = concurrent.futures.ThreadPoolExecutor(
                _CORES - 1, thread_name_prefix="devsession-blas")
        return _POOL


def matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``np.matmul(a, b, out=out)`` with BLAS held to one thread (its own threads never
    wake), blocked over rows on the pool when big and 2-D."""
    macs = out.size * a.shape[-1]
    if macs < MIN_THREADED_MACS or not blas_threads.has_process_wide_blas():
        np.matmul(a, b, out=out)
        return
    cap = blas_threads.held_cap()
    rows = a.shape[0] if a.ndim == 2 else 0
    futures = ()
    with _ACTIVE_LOCK:
        _ACTIVE[0] += 1
        alone = _ACTIVE[0] == 1 and task_steps_running() <= 1
    blas_threads.hold(1)
    try:
        blocks = min(_CORES, cap or _CORES, rows // _MIN_BLOCK_ROWS)
        if alone and blocks > 1 and b.ndim == 2 and macs >= MIN_BLOCKED_MACS:
            edges = [rows * i // blocks for i in range(blocks + 1)]
            futures = [_pool().submit(np.matmul, a[lo:hi], b, out=out[lo:hi])
                       for lo, hi in zip(edges[1:-1], edges[2:])]
            a, out = a[:edges[1]], out[:edges[1]]
        np.matmul(a, b, out=out)
    finally:
        for future in futures:
            future.result()
        blas_threads.release(1)
        with _ACTIVE_LOCK:
            _ACTIVE[0] -= 1
