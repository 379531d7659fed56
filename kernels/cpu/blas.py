"""Big matrix products cut in row blocks, run at once on devsession's own threads, each
calling OpenBLAS single-threaded.

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

So every product runs with OpenBLAS single-threaded in its thread
(``openblas_set_num_threads_local``: thread-local, found in the OpenBLAS that numpy
loaded, as threadpoolctl finds it), and OpenBLAS's own threads never wake.  A 2-D product
of at least ``MIN_BLOCKED_MACS`` multiply-adds that starts while no other product runs in
the process (nor more than one cluster task's step: ``parallelism.py``) is cut in row
blocks (one per usable core) run on ``_POOL`` (threads with the same setting), the
caller's thread running the first; when work already runs at once (towers of a cluster
in one process, parallel branches), each product stays whole in its own thread: they
keep the cores busy without the blocks' hand-offs.  Where
that function is missing (MKL, Accelerate, an older OpenBLAS) every product goes to
``np.matmul`` and the BLAS's own threads, unchanged.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import os
import threading

import numpy as np

from ..parallelism import task_steps_running

__all__ = ["matmul_into", "blocked_available", "MIN_BLOCKED_MACS"]

MIN_BLOCKED_MACS = 1 << 21      # below this a product takes tens of microseconds
_MIN_BLOCK_ROWS = 16


def _openblas_local_threads():
    """OpenBLAS's ``openblas_set_num_threads_local`` in this process, or None."""
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps
                            if "openblas" in line.lower() and ".so" in line})
    except OSError:
        return None
    for path in paths:
        try:
            fn = ctypes.CDLL(path).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_int]
        return fn
    return None


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


_SET_LOCAL = _openblas_local_threads()
_CORES = _usable_cores()
_POOL = None
_POOL_LOCK = threading.Lock()
_ACTIVE = [0]                   # products in flight in this process
_ACTIVE_LOCK = threading.Lock()


def blocked_available() -> bool:
    return _SET_LOCAL is not None and _CORES > 1


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = concurrent.futures.ThreadPoolExecutor(
                _CORES - 1, thread_name_prefix="devsession-blas",
                initializer=lambda: _SET_LOCAL(1))
        return _POOL


def matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``np.matmul(a, b, out=out)``: OpenBLAS single-threaded in the calling thread (its
    own threads never wake), and blocked over rows on the pool when big and 2-D."""
    if _SET_LOCAL is None:
        np.matmul(a, b, out=out)
        return
    rows = a.shape[0] if a.ndim == 2 else 0
    futures = ()
    with _ACTIVE_LOCK:
        _ACTIVE[0] += 1
        alone = _ACTIVE[0] == 1 and task_steps_running() <= 1
    try:
        if (alone and _CORES > 1 and a.ndim == 2 and b.ndim == 2 and
                rows >= 2 * _MIN_BLOCK_ROWS and
                rows * a.shape[1] * b.shape[1] >= MIN_BLOCKED_MACS):
            blocks = min(_CORES, rows // _MIN_BLOCK_ROWS)
            edges = [rows * i // blocks for i in range(blocks + 1)]
            futures = [_pool().submit(np.matmul, a[lo:hi], b, out=out[lo:hi])
                       for lo, hi in zip(edges[1:-1], edges[2:])]
            a, out = a[:edges[1]], out[:edges[1]]
        previous = _SET_LOCAL(1)
        try:
            np.matmul(a, b, out=out)
        finally:
            _SET_LOCAL(previous)
            for future in futures:
                future.result()
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE[0] -= 1
