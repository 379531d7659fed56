"""float32 products as OpenBLAS calls on numba's threads: each thread one share of C's
columns (or rows), by one single-threaded ``cblas_sgemm``, with OpenBLAS held to one
thread meanwhile.

Why: on an Intel Xeon with AVX-512 (two FMA units a core) OpenBLAS's kernels run the
training products 1.1-1.25x faster than ``register_gemm``'s (benchmarks/README.md), but
threaded by OpenBLAS itself they leave its threads busy-waiting for ~0.1 s after each
call, on the cores numba's loops of the same step need (the Deep MNIST step took 51 ms
instead of 29 with its dense layers on OpenBLAS's threads).  Called on numba's threads,
one share each, OpenBLAS's own threads never wake, and one pool does all the work.

``gemm_into`` has ``register_gemm.gemm_into``'s contract: False, with ``out``
untouched, for what it does not take (then the caller uses BLAS's own call); which of
the two a plain product goes to is ``blas.py``'s choice.  What BLAS cannot take (an
operand with no unit stride) goes to ``register_gemm``, which reads any strides, and
so does a narrow product (a side under ``NARROW``: a classifier's 10 outputs), where
one OpenBLAS call per thread took 70-118 us and its kernels 53-71 (the MLP's last
layer), and so does a tall row-major A (``TALL`` rows: the MLP's batch) shared among
the threads, since its kernels pack B on cache lines (``_registers_win``).
Convolutions stay on ``register_gemm``'s tiles, which read the windows in place.
"""

from __future__ import annotations

import ctypes
import functools

import llvmlite.ir as ir
import numpy as np

from .. import blas_threads
from . import cblas, register_gemm
from .reduce import JIT, PAR

from numba import njit, prange, types  # noqa: E402  (after numba_setup, which reduce imports)
from numba.extending import intrinsic  # noqa: E402

__all__ = ["usable", "gemm_into", "PARALLEL_MACS", "NARROW", "TALL"]

PARALLEL_MACS = 1 << 20     # smaller products stay on the calling thread
NARROW = 32                 # products with a side this short go to register_gemm
TALL = 192                  # and so do those of a row-major A with this many rows
K_LONG_C, K_LONG = 128 * 128, 8     # and small C's summed over a long k (``_k_long``)
_ROW_MAJOR, _NO_TRANS, _TRANS = cblas.ROW_MAJOR, cblas.NO_TRANS, cblas.TRANS
_LANES = 16                 # shares of columns start on a vector's boundary


@functools.cache
def _cblas() -> tuple[int, bool] | None:
    """(the address of numpy's OpenBLAS ``cblas_sgemm``, whether its integers are 64
    bits), or None: no such BLAS, or one without a process-wide thread count to hold."""
    function = cblas.sgemm()
    if function is None or not blas_threads.has_process_wide_blas():
        return None
    wide = function.argtypes[3] is ctypes.c_int64
    return ctypes.cast(function, ctypes.c_void_p).value, wide


def usable() -> bool:
    return _cblas() is not None


def gemm_into(a: np.ndarray, b: np.ndarray, out: np.ndarray, *, alpha: float = 1.0,
              accumulate: bool = False, parallel: bool = True,
              bias: np.ndarray | None = None, relu: bool = False,
              packed_b: register_gemm.PackedB | None = None,
              gate: np.ndarray | None = None) -> bool:
    """``out = alpha * a @ b`` (``out += ...`` when ``accumulate``) for 2-D float32
    operands, each row-major or transposed (a row or column stride of one float), or
    any strides ``register_gemm`` takes; False, with ``out`` untouched, for the rest.
    ``bias``, ``relu``, ``gate`` and ``packed_b`` as ``register_gemm.gemm_into``'s: a B packed
    already goes to its tiles (without the packing, they ran a frozen MLP's products
    1.11-1.14x faster, and a 7-row one 1.7x)."""
    found = _cblas()
    if found is None or not _fits(a, b, out) or (packed_b is not None and packed_b.holds(b)):
        return register_gemm.gemm_into(a, b, out, alpha=alpha, accumulate=accumulate,
                                       parallel=parallel, bias=bias, relu=relu,
                                       packed_b=packed_b, gate=gate)
    (m, k), n = a.shape, b.shape[1]
    if m == 0 or n == 0:
        return True
    if k == 0:
        if not accumulate:
            out[...] = 0
        register_gemm.finish_product(out, bias, relu, gate)
        return True
    if _registers_win(a, m, n, k, parallel) and register_gemm.gemm_into(
            a, b, out, alpha=alpha, accumulate=accumulate, parallel=parallel, bias=bias,
            relu=relu, gate=gate):
        return True
    (trans_a, lda), (trans_b, ldb) = _layout(a), _layout(b)
    ldc = out.strides[0] // 4 if m > 1 else n
    tasks = _threads() if parallel and m * n * k >= PARALLEL_MACS else 1
    address, wide = found
    arguments = (address, wide, trans_a, trans_b, m, n, k, np.float32(alpha), a.ctypes.data,
                 lda, b.ctypes.data, ldb, np.float32(1.0 if accumulate else 0.0),
                 out.ctypes.data, ldc)
    blas_threads.hold(1)
    try:
        if tasks == 1:
            _call(*arguments)           # no parallel loop: others may be running theirs
        else:
            _shares(*arguments, tasks, n >= m)
    finally:
        blas_threads.release(1)
    register_gemm.finish_product(out, bias, relu, gate)
    return True


def _registers_win(a: np.ndarray, m: int, n: int, k: int, parallel: bool) -> bool:
    """Whether ``register_gemm``'s tiles beat one OpenBLAS call per thread here: for a
    narrow product, for a row-major A of ``TALL`` rows or more shared among the
    threads (the MLP's batch of 256: 1.05-1.13x faster than OpenBLAS on an Intel Xeon,
    where Deep MNIST's dense layer of 64 rows ran 1.1x faster on OpenBLAS, and so did
    128 rows on one thread, as a cluster's towers run them), and for a small C summed
    over a long k (``_k_long``).  Other transposed A's (a weight gradient's ``x.T``)
    stay on OpenBLAS, which packs them: the tiles pack them too (``packs_a``) and won
    alone (219 vs 199 GFLOP/s), but lost in the MLP's step (its two weight gradients,
    folded into SGD: 2.16 and 2.57 ms against 2.12 and 2.46)."""
    return min(m, n, k) < NARROW or (parallel and m >= TALL and a.strides[1] == 4) or \
        _k_long(m, n, k)


def _k_long(m: int, n: int, k: int) -> bool:
    """A C of at most ``K_LONG_C`` elements summed over ``k`` of at least ``K_LONG``
    times its longer side: a 1x1 convolution's filter gradient (``x.T @ dy`` over every
    pixel of the batch).  One OpenBLAS call per thread splits C, so each thread reads
    all of the long operand it does not split; the tiles share out k's row blocks
    instead.  On the Intel Xeon, 64 x 64 and 32 x 64 C's over 50176 pixels took 2.2 and
    1.3 ms on the tiles against 5.5 and 3.4 on OpenBLAS shares (numpy's own threaded
    call: 3.5 and 2.6); 64 x 64 over 512-4096 rows 1.5-1.9x faster, 128 x 128 over
    2048 1.2x; 256 x 256 at parity or behind, so C's that big stay on OpenBLAS."""
    return m * n <= K_LONG_C and k >= K_LONG * max(m, n)


def _threads() -> int:
    from numba import get_num_threads

    return get_num_threads()


def _layout(x: np.ndarray) -> tuple[int, int] | None:
    """(CBLAS transpose flag, leading dimension) of a row-major or transposed matrix, or
    None if it is neither (BLAS needs one of its strides to be one float)."""
    rows, columns = x.shape
    row_stride, column_stride = x.strides
    if (column_stride == 4 or columns == 1) and row_stride % 4 == 0:
        lead = row_stride // 4 if rows > 1 else columns
        if lead >= max(columns, 1):
            return _NO_TRANS, lead
    if (row_stride == 4 or rows == 1) and column_stride % 4 == 0:
        lead = column_stride // 4 if columns > 1 else rows
        if lead >= max(rows, 1):
            return _TRANS, lead
    return None


def _fits(a, b, out) -> bool:
    if not register_gemm.float32_product(a, b, out):
        return False
    (m, k), n = a.shape, b.shape[1]
    if m == 0 or n == 0:
        return True                 # nothing to write (numpy gives such arrays any strides)
    if (n > 1 and out.strides[1] != 4) or out.strides[0] % 4 or (m > 1 and out.strides[0] < 4 * n):
        return False
    if m and n and k and (_layout(a) is None or _layout(b) is None):
        return False
    return not (np.may_share_memory(out, a) or np.may_share_memory(out, b))


def _cblas_call(wide: bool):
    """(signature, codegen) of a ``cblas_sgemm`` call, row-major, at an address."""
    signature = types.void(types.int64, *[types.int64] * 5, types.float32, types.int64,
                           types.int64, types.int64, types.int64, types.float32, types.int64,
                           types.int64)

    def codegen(context, builder, sig, args):
        i32, f32, i8p = ir.IntType(32), ir.FloatType(), ir.IntType(8).as_pointer()
        size = ir.IntType(64) if wide else i32
        function = ir.FunctionType(ir.VoidType(), [i32] * 3 + [size] * 3 + [f32, i8p, size,
                                                                            i8p, size, f32, i8p, size])
        (address, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) = args
        integer = (lambda v: v) if wide else (lambda v: builder.trunc(v, i32))
        builder.call(builder.inttoptr(address, function.as_pointer()), [
            ir.Constant(i32, _ROW_MAJOR), builder.trunc(trans_a, i32), builder.trunc(trans_b, i32),
            integer(m), integer(n), integer(k), alpha, builder.inttoptr(a, i8p), integer(lda),
            builder.inttoptr(b, i8p), integer(ldb), beta, builder.inttoptr(c, i8p), integer(ldc)])
        return context.get_dummy_value()
    return signature, codegen


@intrinsic
def _sgemm64(typingctx, address, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    """``cblas_sgemm`` with 64-bit integers (numpy's ILP64 OpenBLAS) at ``address``."""
    return _cblas_call(wide=True)


@intrinsic
def _sgemm32(typingctx, address, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    """``cblas_sgemm`` with 32-bit integers at ``address``."""
    return _cblas_call(wide=False)


@njit(**JIT)
def _call(address, wide, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    if wide:
        _sgemm64(address, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
    else:
        _sgemm32(address, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)


@njit(**PAR)
def _shares(address, wide, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
            tasks, by_columns):
    """One ``cblas_sgemm`` per task, on C's columns (each task reads all of A and its
    share of B) or rows (all of B, its share of A): the bigger operand is shared out.
    Addresses as integers, strides in floats."""
    for task in prange(tasks):
        if by_columns:
            first = task * n // tasks // _LANES * _LANES if task else 0
            last = (task + 1) * n // tasks // _LANES * _LANES if task + 1 < tasks else n
            if last > first:
                offset = first * ldb if trans_b == _TRANS else first
                _call(address, wide, trans_a, trans_b, m, last - first, k, alpha, a, lda,
                      b + 4 * offset, ldb, beta, c + 4 * first, ldc)
        else:
            first, last = task * m // tasks, (task + 1) * m // tasks
            if last > first:
                offset = first if trans_a == _TRANS else first * lda
                _call(address, wide, trans_a, trans_b, last - first, n, k, alpha, a + 4 * offset,
                      lda, b, ldb, beta, c + 4 * first * ldc, ldc)
