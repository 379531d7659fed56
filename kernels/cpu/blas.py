"""Matrix products: with every thread when a product runs alone, on one thread each when
several run at once.  On a CPU with AVX-512 a 2-D float32 product runs on numba's
threads, by the engine ``plain_products`` picks: devsession's own kernels
(``register_gemm``), or OpenBLAS's called once per thread (``blas_shares``).  The rest
go to BLAS, as below.

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
import functools
import logging
import os
import threading

import numpy as np

from ..parallelism import task_steps_running
from .. import blas_threads
from . import blas_shares, register_gemm

__all__ = ["matmul_into", "run_product", "in_flight", "plain_products", "MIN_THREADED_MACS"]

MIN_THREADED_MACS = 1 << 18     # below this OpenBLAS runs a product on one thread anyway
REGISTER_GEMM_MACS = 1 << 16    # below this numpy's call costs less than register_gemm's
_F32 = np.dtype(np.float32)
_ACTIVE = [0]                   # products in flight in this process
_ACTIVE_LOCK = threading.Lock()


def matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray, bias: np.ndarray | None = None,
                relu: bool = False, packed_b: register_gemm.PackedB | None = None,
                gate: np.ndarray | None = None) -> None:
    """``np.matmul(a, b, out=out)``; with BLAS held to one thread while other products
    (or other cluster tasks' steps) run in this process.  A float32 product goes to the
    engine ``plain_products`` picks instead where it can, on numba's threads when it runs
    alone.  With a ``bias`` (``_MatMulBias``), ``out += bias`` and, with ``relu``,
    negatives become 0; with a ``gate`` (``_MatMulReluGrad``: a ReLU's output),
    ``out *= gate > 0``: in the product's tiles where its engine can.  ``packed_b``
    (``register_gemm.pack_b(b)``) spares packing a constant B."""
    macs = out.size * a.shape[-1]
    if macs >= REGISTER_GEMM_MACS and out.dtype == _F32 and (engine := plain_products()):
        with in_flight() as alone:
            if engine.gemm_into(a, b, out, parallel=alone, bias=bias, relu=relu,
                                packed_b=packed_b, gate=gate):
                return
    run_product(lambda: _quiet_matmul(a, b, out), macs)
    register_gemm.finish_product(out, bias, relu, gate)


def _quiet_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``np.matmul`` giving inf and NaN as TF's MatMul does, without numpy's
    RuntimeWarning (its own loop, for strided operands, checks the FPU flags)."""
    with np.errstate(invalid="ignore", over="ignore"):
        np.matmul(a, b, out=out)


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


def packs_constant_b() -> bool:
    """Whether a product's constant B is packed once for ``register_gemm``'s tiles
    (``linalg.py``): wherever they run, unless ``DEVSESSION_PRODUCTS=blas`` sends every
    product to BLAS.  Packed, the tiles beat one OpenBLAS call per thread at every batch
    measured (1 to 192 rows by 1024 x 1024: 1.25-2.4x, on one thread or two)."""
    return plain_products() is not None and \
        os.environ.get("DEVSESSION_PRODUCTS", "auto") != "blas"


def plain_products():
    """The module (``register_gemm`` or ``blas_shares``) whose ``gemm_into`` takes 2-D
    float32 products on this CPU, or None where ``register_gemm`` does not run (no
    AVX-512, ``DEVSESSION_REGISTER_GEMM=0``): BLAS then, threaded by itself.

    Measured on two machines (benchmarks/README.md): on AMD Zen 4, whose cores split a
    512-bit multiply-add in two, ``register_gemm``'s kernels beat OpenBLAS's by
    1.2-1.4x; on an Intel Xeon with two 512-bit FMA units a core, OpenBLAS's beat them
    by 1.1-1.25x on most training products (the MLP step 12.6 -> 11.7 ms, Deep MNIST
    28.6 -> 27.4 ms).  So AMD CPUs keep ``register_gemm`` and the others get
    ``blas_shares``, OpenBLAS called on numba's threads, which still hands the shapes
    the tiles win (narrow products, tall row-major ones) to ``register_gemm``;
    ``DEVSESSION_PRODUCTS=register`` or ``=blas`` chooses."""
    return _chosen_engine() if register_gemm.usable() else None


@functools.cache
def _chosen_engine():
    wanted = os.environ.get("DEVSESSION_PRODUCTS", "auto")
    if wanted not in ("auto", "register", "blas"):
        logging.getLogger("devsession").warning(
            "devsession: DEVSESSION_PRODUCTS=%r is not auto, register or blas; using auto",
            wanted)
        wanted = "auto"
    if wanted == "auto":
        wanted = "register" if register_gemm.host_cpu_name().startswith("znver") else "blas"
    if wanted == "blas" and blas_shares.usable():
        return blas_shares
    return register_gemm
