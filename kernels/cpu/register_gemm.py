"""float32 products on AVX-512 CPUs: register-blocked kernels generated with llvmlite,
run on numba's threads.

Why, measured on a 2-core AVX-512 machine (benchmarks/README.md): OpenBLAS (what
numpy's wheels ship) runs a convolution's narrow products well below the machine's
peak (the Deep MNIST layer 2, 12544 x 800 by 800 x 64: 135 GFLOP/s, these kernels
195), and its threads busy-wait after each call, so the numba loops of the same step
(im2col, pooling, the optimizers) ran on cores they were spinning on.  With every
float32 product on numba's threads one pool does all the work, as oneDNN's does in TF1.

The kernels (``gemm_ir.py``) keep a 6 x (16 * nv) tile of C in registers (nv <= 4: 24
of the 32 zmm registers), multiplying a broadcast element of each of A's six rows by nv
vectors of B's row k, k after k; the last vector is masked to the columns C has.  So A
may have any strides.  B is read in one of four ways (``gemm_into`` picks):

* in place, when a block of ``KC`` rows of it fits in L2 (``B_CACHED_BYTES``): a row
  block of A meets every panel of 64 columns while it is in L1;
* packed: a task copies a panel into consecutive 256-byte rows and runs every row block
  against it (rows ``ldb`` apart would hit the same cache sets when ``ldb`` is a
  multiple of 1024: the MLP's 1024 x 1024 layer).  A constant B is packed whole once
  (``pack_b``) and never copied again;
* a transposed B (a layer's input gradient, ``dy @ w.T``) is packed the same way by
  16 x 16 block transposes, or transposed whole when it is small;
* or, for a short A (at most ``DOT_MAX_M`` rows) and long rows of B.T, as sums along k
  (``dot`` tiles), which needs no copy at all.

A transposed A is copied into row blocks first (``packs_a``).  A C of at most 32
columns takes tiles of up to 12 rows (the same 24 registers), so each of B's vectors
serves twice the rows.  ``multiply_runs`` (for ``conv_fused``) sums
products whose k runs over a grid, a convolution's windows read where they lie:
``tiles`` keeps the tile in registers across the runs.  A dense layer's bias and ReLU
(``_MatMulBias``) are added to each tile right after it is stored (``bias_relu``), and
so is a ReLU's gradient to the product before it (``relu_gate``: ``_MatMulReluGrad``).
Packed panels start on a cache line, so no vector a tile loads straddles two.

llvmlite (numba's own code generator) compiles the kernels for the host CPU once (1.8
s, on the background compile thread when a plan warms) and keeps the object code in the
kernel cache, so later processes load it (0.3 s).  ``gemm_into`` returns False for what
it does not take (another dtype, batches, overlapping memory, a CPU without AVX-512,
``DEVSESSION_REGISTER_GEMM=0``), and the caller uses BLAS: ``blas.matmul_into`` and
``sgemm.sgemm_update`` do.  The IR is portable, so tests run it on any x86-64 CPU
(``FORCE``).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import threading
from pathlib import Path

import numpy as np

from ..buffer_pool import aligned_empty
from .reduce import JIT, PAR

import llvmlite.ir as ir  # noqa: E402
from numba import njit, prange, types  # noqa: E402  (after numba_setup, which reduce imports)
from numba.core import cgutils  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

__all__ = ["usable", "gemm_into", "finish_product", "pack_b", "PackedB", "packs_a",
           "float32_product", "tile_address", "multiply", "tiles_address", "multiply_runs",
           "MR", "KC", "LANES"]

MR = 6            # rows of a tile
MAX_NV = 4        # vectors of 16 floats across a tile
LANES = 16        # floats in a vector
PANEL = LANES * MAX_NV
KC = 1024         # k per pass over C: the B block a pass reads stays in cache
DOT_MIN_K = 128   # a transposed B: with rows this long and at most DOT_MAX_M rows of A,
DOT_MAX_M = 128   # sums along k (``dot``); else B is packed, transposed, into panels
B_CACHED_BYTES = 1 << 19    # a block of B this small stays in L2 while every tile reads it
PARALLEL_MACS = 1 << 20     # smaller ones stay on the calling thread: a wake-up costs
                            # ~35 us, but in a step the workers are mostly spinning
PREFETCH_ROWS = 16          # packing B, rows asked for ahead of their copy (rows a page
                            # apart: the hardware's prefetchers stop at page boundaries)
FORCE = False     # tests: run the kernels on any CPU (they are slower without AVX-512)

_F32 = np.dtype(np.float32)
_ENABLED = os.environ.get("DEVSESSION_REGISTER_GEMM", "1") != "0"
_compiled: list = []          # [(engine, the kernels' addresses)] once compiled
_compile_lock = threading.Lock()
_scratches = threading.local()
_log = logging.getLogger("devsession")


def usable() -> bool:
    """Whether float32 products go through these kernels on this machine (the first
    call compiles them; if that fails, BLAS keeps every product)."""
    return _ENABLED and (FORCE or _host_has_avx512()) and _addresses() is not None


@functools.cache
def host_cpu_name() -> str:
    """LLVM's name for this CPU ("znver4", "sapphirerapids", ...)."""
    import llvmlite.binding as llvm

    return llvm.get_host_cpu_name()


@functools.cache
def _host_has_avx512() -> bool:
    import llvmlite.binding as llvm

    return bool(llvm.get_host_cpu_features().get("avx512f", False))


def gemm_into(a: np.ndarray, b: np.ndarray, out: np.ndarray, *, alpha: float = 1.0,
              accumulate: bool = False, parallel: bool = True,
              bias: np.ndarray | None = None, relu: bool = False,
              packed_b: PackedB | None = None, gate: np.ndarray | None = None) -> bool:
    """``out = alpha * a @ b`` (``out += ...`` when ``accumulate``) for 2-D float32
    operands; False, with ``out`` untouched, when these kernels do not take them.
    With a ``bias`` (n floats), ``out += bias`` after the product, then with ``relu``
    negatives become 0; with a ``gate`` (a ReLU's output, C's shape), ``out *= gate >
    0``: in each tile while it is in L1 where B is read in rows (``finish_product``
    after the product otherwise).  ``packed_b`` (``pack_b(b)``, for a B that has not
    changed since) spares the packing."""
    if not _fits(a, b, out) or not usable() or (gate is not None and gate.dtype != _F32):
        return False
    (m, k), n = a.shape, b.shape[1]
    _check_epilogue(bias, gate, out.shape)
    if m == 0 or n == 0 or k == 0:
        if not accumulate:
            out[...] = 0
        finish_product(out, bias, relu, gate)
        return True
    parallel = parallel and m * n * k >= PARALLEL_MACS
    ldc = out.strides[0] // 4 if m > 1 else n
    transposed = b.strides[1] != 4 and n > 1 and k > 1
    tile, dot, transpose, _, epilogues = _addresses()
    prepacked = packed_b is not None and packed_b.holds(b)
    if transposed and k >= DOT_MIN_K and m <= DOT_MAX_M and a.strides[1] == 4 and not prepacked:
        drive = _dot_parallel if parallel else _dot_serial
        drive(dot, a.ctypes.data, a.strides[0] // 4, b.ctypes.data, b.strides[1] // 4,
              out.ctypes.data, ldc, m, n, k, KC, np.float32(alpha), 1 if accumulate else 0)
        finish_product(out, bias, relu, gate)
        return True
    b_address, ldb = b.ctypes.data, (b.strides[1] if transposed else b.strides[0]) // 4
    packed = 0
    if prepacked:                                 # every panel packed already
        packed = packed_b.buffer.ctypes.data
    elif _packs(k, n):                            # B panel by panel, packed as it goes
        packed = _scratch(min(k, KC) * -(-n // PANEL) * PANEL).ctypes.data
    elif transposed:                              # a small B.T: transposed once, whole
        b_address = _scratch(k * n).ctypes.data
        _pack_transposed(transpose, b.ctypes.data, ldb, b_address, n, k, n)
        ldb, transposed = n, False
    packed_a = 0
    if packs_a(a, n):
        most = _block_rows(n)                     # the driver's rows per block
        packed_a = _scratch(-(-m // most) * most * min(k, KC), "a").ctypes.data
    finish, operand, ldx = _epilogue(epilogues, bias, relu, gate)
    drive = _drive_parallel if parallel else _drive_serial
    drive(tile, a.ctypes.data, a.strides[0] // 4, a.strides[1] // 4, packed_a, b_address,
          ldb if k > 1 else n, out.ctypes.data, ldc, m, n, k, KC, np.float32(alpha),
          1 if accumulate else 0, packed, int(prepacked), transpose if transposed else 0,
          finish, 0 if operand is None else operand.ctypes.data, ldx)
    return True


def _epilogue(epilogues: dict, bias, relu: bool, gate) -> tuple:
    """(the address of the epilogue function, its operand, the operand's row stride in
    floats) for ``_drive``; (0, None, 0) for none.  A bias is an operand of one row."""
    if gate is not None:
        if gate.strides[1] != 4 or gate.strides[0] % 4 or gate.strides[0] < 0:
            gate = np.ascontiguousarray(gate)
        return epilogues["relu_gate"], gate, gate.strides[0] // 4
    if bias is not None:
        return epilogues["bias_relu" if relu else "bias"], np.ascontiguousarray(bias, _F32), 0
    return 0, None, 0


def packs_a(a: np.ndarray, n: int) -> bool:
    """Whether ``gemm_into`` copies a transposed A (a weight gradient's ``x.T``) into
    row blocks whose k-th six values lie together: read in place, each six values of a
    tile's step along k sit in a line of their own, rows ``lda`` apart, and each line
    serves three row blocks at different times.  Packed, the MLP's weight gradients ran
    217-226 GFLOP/s on two threads where they ran 190-191, and its training step on these
    kernels alone took 13.9 ms instead of 15.0 (Intel Xeon; ``blas_shares`` still hands
    such products to OpenBLAS there, faster in a step).  Not for a C of one panel: each
    value of A is read once then."""
    (m, k), (row_stride, column_stride) = a.shape, a.strides
    return row_stride == 4 and column_stride != 4 and m > 1 and k > 1 and n > PANEL


class PackedB:
    """B's panels as ``gemm_into``'s tiles read them, packed once (``pack_b``): a
    constant B, such as a frozen model's weights, is then never packed again.
    ``holds`` checks that a B is the same memory read the same way (address, shape,
    strides), not that it is the same array: that the memory still holds the same
    values is the caller's to know (``linalg.py`` keeps the graph constant it packed
    alive, and its values never change)."""

    __slots__ = ("address", "shape", "strides", "buffer")

    def __init__(self, b: np.ndarray, buffer: np.ndarray):
        self.address, self.shape, self.strides, self.buffer = \
            b.ctypes.data, b.shape, b.strides, buffer

    def holds(self, b: np.ndarray) -> bool:
        return (b.ctypes.data, b.shape, b.strides) == (self.address, self.shape, self.strides)


def pack_b(b: np.ndarray) -> PackedB | None:
    """``b``'s panels packed for every product that will read it, or None where
    ``gemm_into`` reads such a B in place (a block of it fits in L2) or does not take
    it.  Costs a copy of B (padded to whole panels of 64 columns), kept as long as the
    PackedB is."""
    if not usable() or b.ndim != 2 or b.dtype != _F32 or b.shape[0] < 2 or not _packs(*b.shape):
        return None
    (k, n), (row_stride, column_stride) = b.shape, b.strides
    transposed = column_stride != 4
    if row_stride % 4 or column_stride % 4 or (transposed and row_stride != 4):
        return None
    panels = -(-n // PANEL)
    buffer = aligned_empty(k * panels * PANEL, _F32)
    _pack_all(_addresses()[2] if transposed else 0, b.ctypes.data,
              (column_stride if transposed else row_stride) // 4, buffer.ctypes.data, n, k, KC)
    return PackedB(b, buffer)


def _packs(k: int, n: int) -> bool:
    """Whether ``gemm_into`` packs a B of ``k`` x ``n``: a block of ``KC`` rows of it
    would not stay in L2 while the tiles read it."""
    return 4 * min(k, KC) * n > B_CACHED_BYTES


def finish_product(out: np.ndarray, bias: np.ndarray | None = None, relu: bool = False,
                   gate: np.ndarray | None = None) -> None:
    """A fused product's epilogue where its tiles could not apply it: ``out += bias``
    (along its last axis) and, with ``relu``, negatives made 0 (NaN stays, as
    ``Relu``'s kernel keeps it); or ``out *= gate > 0`` (a ReLU's gradient, as its ops
    compute it).  One pass over ``out``, panel by panel where these kernels run.
    Nothing without a bias or a gate."""
    if (bias is None and gate is None) or out.size == 0:
        return
    _check_epilogue(bias, gate, out.shape)
    if out.ndim == 2 and out.dtype == _F32 and out.strides[1] == 4 and \
            out.strides[0] % 4 == 0 and (gate is None or gate.dtype == _F32) and usable():
        (m, n) = out.shape
        finish, operand, ldx = _epilogue(_addresses()[4], bias, relu, gate)
        _epilogue_panels(finish, out.ctypes.data, out.strides[0] // 4 if m > 1 else n, m, n,
                         operand.ctypes.data, ldx)
        return
    if gate is not None:
        with np.errstate(invalid="ignore"):                 # 0 * inf is NaN, as apart
            np.multiply(out, (gate > 0).astype(out.dtype), out=out)
        return
    np.add(out, bias, out=out)
    if relu:
        np.copyto(out, 0, where=out < 0)


def _check_epilogue(bias, gate, shape: tuple) -> None:
    """A bias has one value per column of C (the kernels read ``n`` of them), a gate
    C's shape; a product takes one or the other."""
    if bias is not None and gate is not None:
        raise ValueError("a product takes a bias or a gate, not both")
    if bias is not None and bias.shape != shape[-1:]:
        raise ValueError(f"a bias of shape {bias.shape} for a product of {shape[-1]} "
                         f"columns: it must have shape ({shape[-1]},)")
    if gate is not None and gate.shape != shape:
        raise ValueError(f"a gate of shape {gate.shape} for a product of shape {shape}: "
                         f"it must have the product's shape")


def _scratch(floats: int, which: str = "b") -> np.ndarray:
    """This thread's buffer for packed panels of B (or, ``which="a"``, blocks of A),
    grown as needed (a fresh one per call would cost page faults on every product).  It
    starts on a cache line: on numpy's 16 bytes into one, every vector a tile loaded
    straddled two (the 6 x 64 tile ran at 142 GFLOP/s a core on such a B, 170 on an
    aligned one)."""
    buffer = getattr(_scratches, which, None)
    if buffer is None or buffer.size < floats:
        buffer = aligned_empty(floats, _F32)
        setattr(_scratches, which, buffer)
    return buffer


def float32_product(a, b, out) -> bool:
    """Whether ``out = a @ b`` is a product of 2-D float32 matrices into a writeable
    ``out`` of the right shape (what both engines of plain products ask first)."""
    if a.ndim != 2 or b.ndim != 2 or out.ndim != 2:
        return False
    if not (a.dtype == b.dtype == out.dtype == _F32):
        return False
    (m, k), (k2, n) = a.shape, b.shape
    return k2 == k and out.shape == (m, n) and out.flags.writeable


def _fits(a, b, out) -> bool:
    if not float32_product(a, b, out):
        return False
    (m, k), n = a.shape, b.shape[1]
    if any(s % 4 or s < 0 for s in out.strides) or (n > 1 and out.strides[1] != 4):
        return False
    if m > 1 and out.strides[0] < 4 * n:
        return False            # C's rows overlap each other
    if k == 0:
        return True
    if any(s % 4 or s < 0 for s in a.strides + b.strides):
        return False
    if n > 1 and b.strides[1] != 4 and (k == 1 or b.strides[0] != 4):
        return False            # B's rows nor B.T's contiguous: BLAS copies it anyway
    return not (np.may_share_memory(out, a) or np.may_share_memory(out, b))


def _tile_call(runs: bool):
    """(signature, codegen) of a call to ``tile`` (or with ``runs``, ``tiles``) at an
    address (an integer: numba caches the compiled driver, and the address changes with
    every process)."""
    after_alpha = 5 if runs else 2
    signature = types.void(types.int64, *[types.int64] * 10, types.float32,
                           *[types.int64] * after_alpha)

    def codegen(context, builder, sig, args):
        i64, f32 = ir.IntType(64), ir.FloatType()
        function = ir.FunctionType(ir.VoidType(), [i64] * 10 + [f32] + [i64] * after_alpha)
        pointer = builder.inttoptr(args[0], function.as_pointer())
        builder.call(pointer, list(args[1:]))
        return context.get_dummy_value()
    return signature, codegen


@intrinsic
def _call_tile(typingctx, address, mr, nv, a, a_rows, a_cols, b, ldb, c, ldc, k, alpha,
               accumulate, tail):
    """Call the ``tile`` function at ``address``."""
    return _tile_call(runs=False)


@intrinsic
def _call_tiles(typingctx, address, mr, nv, a, a_rows, a_cols, b, ldb, c, ldc, k, alpha,
                accumulate, tail, runs, a_outer, b_outer):
    """Call the ``tiles`` function at ``address``."""
    return _tile_call(runs=True)


def _integer_call(arguments: int):
    """(signature, codegen) of a call to a void function of ``arguments`` integers at an
    address (the intrinsic's first argument)."""
    def codegen(context, builder, sig, args):
        function = ir.FunctionType(ir.VoidType(), [ir.IntType(64)] * arguments)
        builder.call(builder.inttoptr(args[0], function.as_pointer()), list(args[1:]))
        return context.get_dummy_value()
    return types.void(*[types.int64] * (arguments + 1)), codegen


@intrinsic
def _call_transpose(typingctx, address, source, source_stride, target, target_stride):
    """Call the ``transpose`` function at ``address`` (a LANES x LANES block)."""
    return _integer_call(4)


@intrinsic
def _prefetch(typingctx, address):
    """Ask for the cache line at ``address`` (an integer) ahead of its use."""
    def codegen(context, builder, sig, args):
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(fn, [builder.inttoptr(args[0], i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(types.int64), codegen


@intrinsic
def _call_epilogue(typingctx, address, c, ldc, rows, columns, x, ldx):
    """Call the epilogue function (``bias``, ``relu_gate``, ...) at ``address``."""
    return _integer_call(6)


@njit(**JIT)
def _prefetch_row(address, count):
    """Ask for the ``count`` bytes from ``address``, a cache line at a time."""
    for line in range(0, count, 64):
        _prefetch(address + line)


@intrinsic
def _copy_floats(typingctx, target, source, count):
    """memcpy of ``count`` floats between two addresses."""
    def codegen(context, builder, sig, args):
        i8p = ir.IntType(8).as_pointer()
        target_, source_ = (builder.inttoptr(v, i8p) for v in args[:2])
        cgutils.raw_memcpy(builder, target_, source_, args[2], 4)
        return context.get_dummy_value()
    return types.void(types.int64, types.int64, types.int64), codegen


def _drive(tile, a, rsa, csa, packed_a, b, ldb, c, ldc, m, n, k, kc, alpha, accumulate,
           packed, prepacked, transpose, finish, x, ldx):
    """Every (row block, column panel) tile of C, a pass per block of ``kc`` k; tiles of
    one pass are independent, so ``prange`` shares them out.

    A block of B small enough to stay in cache is read where it is, and each row block
    of A meets every panel of B while it is in L1.  With a bigger one, a task is a
    panel: it copies the panel's rows into its part of ``packed`` (an address, ``min(kc,
    k) * PANEL`` floats per panel) and runs every row block against it while it is in L2;
    with ``prepacked``, ``packed`` holds every panel of every pass already (``_pack_all``).
    Packed, a tile reads consecutive rows of 256 bytes, not rows ``ldb`` apart (the same
    cache sets again and again when ``ldb`` is a multiple of 1024).  With ``transpose``
    (the address of the block transpose), ``b`` is B.T, row-major, and the copy
    transposes it 16 x 16 floats at a time.  With ``finish`` (the address of an
    epilogue: ``bias``, ``relu_gate``, ...), the last pass applies it to each tile
    right after storing it, with its operand ``x`` (rows ``ldx`` apart; 0: a bias).
    With ``packed_a`` (an address), each pass first copies A's row blocks there, a
    block's values for one k together (A transposed: ``rsa`` is 1), and the tiles read
    them from there."""
    most = _block_rows(n)
    blocks = (m + most - 1) // most
    panels = (n + PANEL - 1) // PANEL
    k0 = 0
    while True:
        kk = min(kc, k - k0)
        adds = accumulate if k0 == 0 else 1
        last = finish if k0 + kc >= k else 0
        if packed_a != 0:
            for block in prange(blocks):
                first = block * most
                target = packed_a + 4 * first * kk
                for q in range(kk):
                    _copy_floats(target + 4 * q * most, a + 4 * (first + (k0 + q) * csa),
                                 min(most, m - first))
            a_pass, rows_apart, k_apart, block_apart = packed_a, 1, most, most * kk
        else:
            a_pass, rows_apart, k_apart, block_apart = a + 4 * k0 * csa, rsa, csa, most * rsa
        if packed == 0:
            for t in prange(blocks * panels):
                block, p = t // panels, t % panels
                _panel_tile(tile, block * most, most, p, a_pass + 4 * block * block_apart,
                            rows_apart, k_apart, b + 4 * (k0 * ldb + p * PANEL), ldb, c, ldc,
                            m, n, kk, alpha, adds, last, x, ldx)
        else:
            for p in prange(panels):
                if prepacked:
                    panel = packed + 4 * (k0 * panels + p * kk) * PANEL
                else:
                    panel = packed + 4 * p * min(kc, k) * PANEL
                    _pack_panel(transpose, b, ldb, n, k0, kk, p, panel)
                for block in range(blocks):
                    _panel_tile(tile, block * most, most, p, a_pass + 4 * block * block_apart,
                                rows_apart, k_apart, panel, PANEL, c, ldc, m, n, kk, alpha,
                                adds, last, x, ldx)
        k0 += kc
        if k0 >= k:
            break


@njit(**JIT)
def _pack_panel(transpose, b, ldb, n, k0, kk, p, panel):
    """Copy rows ``k0`` to ``k0 + kk`` of B's panel ``p`` into consecutive rows of
    ``PANEL`` floats at ``panel``; with ``transpose``, ``b`` is B.T (as ``_drive``'s)."""
    width = min(PANEL, n - p * PANEL)
    if transpose != 0:
        _pack_transposed(transpose, b + 4 * (p * PANEL * ldb + k0), ldb, panel, PANEL, kk, width)
        return
    for q in range(kk):
        if q + PREFETCH_ROWS < kk:
            _prefetch_row(b + 4 * ((k0 + q + PREFETCH_ROWS) * ldb + p * PANEL), 4 * width)
        _copy_floats(panel + 4 * q * PANEL, b + 4 * ((k0 + q) * ldb + p * PANEL), width)


@njit(**JIT)
def _pack_all(transpose, b, ldb, packed, n, k, kc):
    """Every panel of every pass of ``kc`` rows, where ``_drive`` with ``prepacked``
    reads them: pass ``k0``'s panels start ``k0 * panels * PANEL`` floats in."""
    panels = (n + PANEL - 1) // PANEL
    for k0 in range(0, k, kc):
        kk = min(kc, k - k0)
        for p in range(panels):
            panel = packed + 4 * (k0 * panels + p * kk) * PANEL
            _pack_panel(transpose, b, ldb, n, k0, kk, p, panel)


@njit(**JIT)
def _epilogue_panels(finish, c, ldc, m, n, x, ldx):
    """The epilogue at ``finish`` over all of C, a panel of columns at a time."""
    for p in range((n + PANEL - 1) // PANEL):
        _call_epilogue(finish, c + 4 * p * PANEL, ldc, m, min(PANEL, n - p * PANEL),
                       x + 4 * p * PANEL, ldx)


@njit(**JIT)
def _block_rows(n):
    """Rows of a tile for a C of ``n`` columns: 12 when it has at most 32 (the registers
    of a 6 x 64 tile), so that each of B's vectors serves twice the rows and twice the
    sums are in flight (a classifier's 10 outputs, 256 x 1024 by 1024 x 10: 92 -> 72 us on
    one core)."""
    return 2 * MR if 2 * n <= PANEL else MR


@njit(**JIT)
def _pack_transposed(transpose, source, stride, target, target_stride, rows, columns):
    """target[q * target_stride + c] = source[c * stride + q] for q < rows, c < columns:
    whole LANES x LANES blocks by the transpose function, the edges a float at a time."""
    for q0 in range(0, rows, LANES):
        for c0 in range(0, columns, LANES):
            if q0 + LANES <= rows and c0 + LANES <= columns:
                _call_transpose(transpose, source + 4 * (c0 * stride + q0), stride,
                                target + 4 * (q0 * target_stride + c0), target_stride)
                continue
            for q in range(q0, min(q0 + LANES, rows)):
                for c in range(c0, min(c0 + LANES, columns)):
                    _copy_floats(target + 4 * (q * target_stride + c),
                                 source + 4 * (c * stride + q), 1)


@njit(**JIT)
def _panel_tile(tile, i, most, p, a_rows, rsa, csa, panel, ldb, c, ldc, m, n, k, alpha, adds,
                finish, x, ldx):
    """The tile of C at row ``i`` (of at most ``most`` rows) and panel ``p``, from
    ``a_rows`` (A's rows from ``i``) and ``panel`` (B's columns there); then, with
    ``finish``, its epilogue."""
    width = min(PANEL, n - p * PANEL)
    nv = (width + LANES - 1) // LANES
    rows, corner = min(most, m - i), c + 4 * (i * ldc + p * PANEL)
    _call_tile(tile, rows, nv, a_rows, rsa, csa, panel, ldb, corner, ldc, k, alpha,
               adds, width - LANES * (nv - 1))
    if finish != 0:
        _call_epilogue(finish, corner, ldc, rows, width, x + 4 * (i * ldx + p * PANEL), ldx)


def _dot(dot, a, lda, bt, ldbt, c, ldc, m, n, k, kc, alpha, accumulate):
    """``_drive`` for a transposed B (``dot`` tiles): a task is one row block of A
    against a group of ``PANEL`` rows of B.T, so that group stays in cache while the
    row blocks pass."""
    blocks = (m + MR - 1) // MR
    groups = (n + PANEL - 1) // PANEL
    k0 = 0
    while True:
        kk = min(kc, k - k0)
        adds = accumulate if k0 == 0 else 1
        for t in prange(blocks * groups):
            i, first = (t % blocks) * MR, (t // blocks) * PANEL
            for j in range(first, min(first + PANEL, n), MAX_NV):
                _call_tile(dot, min(MR, m - i), min(MAX_NV, n - j), a + 4 * (i * lda + k0),
                           lda, 1, bt + 4 * (j * ldbt + k0), ldbt, c + 4 * (i * ldc + j),
                           ldc, kk, alpha, adds, 0)
        k0 += kc
        if k0 >= k:
            break


def _dot_here(dot, a, lda, bt, ldbt, c, ldc, m, n, k, kc, alpha, accumulate):
    _dot_inline(dot, a, lda, bt, ldbt, c, ldc, m, n, k, kc, alpha, accumulate)


def _serial(tile, a, rsa, csa, packed_a, b, ldb, c, ldc, m, n, k, kc, alpha, accumulate,
            packed, prepacked, transpose, finish, x, ldx):
    """``_drive`` on the calling thread (a function of its own: numba's cache would
    hand one compiled body to both)."""
    _drive_inline(tile, a, rsa, csa, packed_a, b, ldb, c, ldc, m, n, k, kc, alpha, accumulate,
                  packed, prepacked, transpose, finish, x, ldx)


_drive_parallel = njit(**PAR)(_drive)
_drive_inline = njit(**JIT, inline="always")(_drive)
_drive_serial = njit(**JIT)(_serial)
_dot_parallel = njit(**PAR)(_dot)
_dot_inline = njit(**JIT, inline="always")(_dot)
_dot_serial = njit(**JIT)(_dot_here)


def _multiply(tile, a, rsa, csa, b, ldb, c, ldc, m, n, k, alpha, accumulate):
    """``C = alpha * A @ B`` (``+=`` when ``accumulate``) on the calling thread, B read
    in place (addresses and strides as ``_drive``'s): for numba loops of other kernels
    that pack a block of A themselves and multiply it while it is in cache."""
    _drive_inline(tile, a, rsa, csa, 0, b, ldb, c, ldc, m, n, k, KC, alpha, accumulate, 0, 0, 0,
                  0, 0, 0)


multiply = njit(**JIT)(_multiply)


def tile_address() -> int:
    """The address of the compiled ``tile`` function, for ``multiply``."""
    return _addresses()[0]


@njit(**JIT)
def multiply_runs(tiles, a, rsa, csa, a_outer, b, ldb, b_outer, c, ldc, m, n, k, runs, alpha,
                  accumulate):
    """``C = alpha * sum over j < runs of A_j @ B_j`` (``+=`` when ``accumulate``) on the
    calling thread, B read in place, where A_j and B_j (m x k, k x n) start ``a_outer``
    and ``b_outer`` floats after A_{j-1} and B_{j-1} (addresses and strides as
    ``_drive``'s): a product whose k is a grid, as a convolution's windows read where
    they lie, with each tile of C in registers throughout.  ``tiles`` is
    ``tiles_address()``.  A C of at most 32 columns takes tiles of up to 12 rows (the
    registers of a 6 x 64 tile), so each of B's vectors serves twice the rows; the rows
    are shared evenly among the row blocks (14: 7, 7, not 12, 2): a tile of two rows and
    few columns has too few sums to hide the latency of its multiply-adds."""
    most = _block_rows(n)
    blocks = (m + most - 1) // most
    for block in range(blocks):
        i, rows = block * m // blocks, (block + 1) * m // blocks - block * m // blocks
        for p in range((n + PANEL - 1) // PANEL):
            width = min(PANEL, n - p * PANEL)
            nv = (width + LANES - 1) // LANES
            _call_tiles(tiles, rows, nv, a + 4 * i * rsa, rsa, csa, b + 4 * p * PANEL,
                        ldb, c + 4 * (i * ldc + p * PANEL), ldc, k, alpha, accumulate,
                        width - LANES * (nv - 1), runs, a_outer, b_outer)


def tiles_address() -> int:
    """The address of the compiled ``tiles`` function, for ``multiply_runs``."""
    return _addresses()[3]


def _addresses() -> tuple | None:
    """The addresses of the compiled ``tile``, ``dot``, ``transpose`` and ``tiles``
    functions and {name: address} of the epilogues (compiled on first use, once per
    process), or None if they
    failed to compile (an llvmlite without the pass builder this needs, say: logged
    once)."""
    if not _compiled:
        with _compile_lock:
            if not _compiled:
                try:
                    _compiled.append(_compile())
                except Exception as e:                  # noqa: BLE001 - BLAS takes over
                    _log.warning("devsession: the float32 product kernels did not "
                                 "compile (%s: %s); products go to BLAS", type(e).__name__, e)
                    _compiled.append(None)
    return _compiled[0][1:] if _compiled[0] is not None else None


def _compile():
    """Compile the kernels for this CPU, or load the object code an earlier process
    compiled (``$DEVSESSION_CACHE_DIR/register_gemm``): compiling takes 1.8 s, loading a
    few milliseconds.  The cache is keyed by what the code is made from (``gemm_ir``'s
    source and parameters, the CPU, llvmlite), so a process that loads never builds the
    1.3 MB of IR text, which alone takes 0.2 s."""
    import llvmlite
    import llvmlite.binding as llvm

    from ..codegen.module_cache import cache_dir
    from . import gemm_ir

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    made_from = (Path(gemm_ir.__file__).read_text(), repr((MR, MAX_NV, LANES)), cpu,
                 features, llvmlite.__version__)
    key = hashlib.sha256("\n".join(made_from).encode())
    cached = cache_dir() / "register_gemm" / f"{key.hexdigest()[:32]}.o"
    machine = llvm.Target.from_default_triple().create_target_machine(cpu=cpu, features=features,
                                                                      opt=3)
    code = _read(cached)
    if code is None:
        module = llvm.parse_assembly(str(gemm_ir.module(MR, MAX_NV, LANES)))
        module.verify()
        passes = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(3))
        passes.getModulePassManager().run(module, passes)
        engine = llvm.create_mcjit_compiler(module, machine)
        engine.set_object_cache(notify_func=lambda _, compiled: _write(cached, compiled))
    else:
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
        engine.add_object_file(llvm.ObjectFileRef.from_data(code))
    engine.finalize_object()
    epilogues = {name: engine.get_function_address(name) for name in gemm_ir.EPILOGUES}
    return (engine, *(engine.get_function_address(name)
                      for name in ("tile", "dot", "transpose", "tiles")), epilogues)


def _read(path) -> bytes | None:
    """The object code stored at ``path``, or None if there is none or it does not match
    its checksum (a damaged file is compiled again, never loaded)."""
    try:
        stored = path.read_bytes()
    except OSError:
        return None
    code, checksum = stored[:-32], stored[-32:]
    return code if len(stored) > 32 and hashlib.sha256(code).digest() == checksum else None


def _write(path, code: bytes) -> None:
    """Best effort, atomic: a reader sees the whole file or none."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(code + hashlib.sha256(code).digest())
        os.replace(partial, path)
    except OSError:
        pass
