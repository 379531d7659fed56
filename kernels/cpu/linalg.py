"""MatMul on the CPU: ``blas.matmul_into`` with a preallocated ``out``.

A plain numba loop would be an order of magnitude slower than a tuned BLAS (blocking,
packing, SIMD, threads), so the products go to ``register_gemm``'s register-blocked
kernels (2-D float32 on an AVX-512 CPU) or to BLAS through ``np.matmul`` (the rest).
``transpose_a``/``transpose_b`` swap the last two axes as views: both take
transposed-contiguous operands without copying.  Batch
dimensions broadcast like ``np.matmul``.  float16 is computed in float32 (numpy has no
half-precision BLAS; TF's CPU kernel does the same) and rounded once; integer matmul
uses numpy's own loops and wraps like TF's.  Outputs are reused across runs once free
(``buffer_pool.py``): a fresh 4 MB output costs page faults on every step.  Products
that run at once hold BLAS to one thread each (``blas.py``: OpenBLAS's spinning threads
starve concurrent work); one that runs alone uses BLAS's own threads.  float16's
float32 product takes the same path.  A B that is a graph constant (the optimizer
marks it: ``optimizer/constant_weights.py``) is packed for ``register_gemm``'s tiles on
the first run and kept.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ...ops.linalg import CONSTANT_B, MATMUL_BIAS, MATMUL_RELU_GRAD
from ..buffer_pool import BufferPool
from ..checks import fmt_shape, invalid_argument, matmul_planner, to_float16
from ..registry import register_kernel
from . import register_gemm
from .blas import matmul_into, packs_constant_b

__all__ = ["build_matmul", "build_matmul_bias", "build_matmul_relu_grad"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


@register_kernel(("MatMul", "SparseMatMul"), "CPU")   # SparseMatMul: sparsity hints only
def build_matmul(node):
    out_dtype = node.output_dtype
    plan = matmul_planner(node, np)
    pool = BufferPool()
    constant = _ConstantB() if node.attrs.get(CONSTANT_B) else None

    def matmul(a, b):
        source = b
        out_shape, _, a, b = plan(a, b)
        if out_dtype == _F16:                  # a and b are float32
            wide = np.empty(out_shape, _F32)
            matmul_into(a, b, wide)
            return to_float16(wide)
        out = pool.take(out_shape, out_dtype)
        matmul_into(a, b, out, packed_b=constant and constant.packed(source, b))
        pool.give(out)
        return out
    return matmul


@register_kernel(MATMUL_BIAS, "CPU")
def build_matmul_bias(node):
    """MatMul plus a bias, then a ReLU when ``relu``: added to each tile of the product
    while it is in cache (``optimizer/bias_folds.py``)."""
    plan = matmul_planner(node, np)
    relu = node.attrs["relu"]
    pool = BufferPool()
    constant = _ConstantB() if node.attrs.get(CONSTANT_B) else None

    def kernel(a, b, bias):
        source = b
        out_shape, _, a, b = plan(a, b)
        if bias.shape != out_shape[-1:]:
            raise invalid_argument(node.name, node.op, f"bias must have shape "
                                   f"{fmt_shape(out_shape[-1:])} (the product's columns), "
                                   f"got {fmt_shape(bias.shape)}")
        out = pool.take(out_shape, node.output_dtype)
        matmul_into(a, b, out, bias, relu, constant and constant.packed(source, b))
        pool.give(out)
        return out
    return kernel


@register_kernel(MATMUL_RELU_GRAD, "CPU")
def build_matmul_relu_grad(node):
    """MatMul times ``y > 0`` (a ReLU's gradient, ``y`` its output): applied to each
    tile of the product while it is in cache (``optimizer/relu_gate_folds.py``)."""
    plan = matmul_planner(node, np)
    pool = BufferPool()
    constant = _ConstantB() if node.attrs.get(CONSTANT_B) else None

    def kernel(a, b, y):
        source = b
        out_shape, _, a, b = plan(a, b)
        packed = constant and constant.packed(source, b)
        if y.shape != out_shape:            # broadcast, as by the Mul it replaces
            product = np.empty(out_shape, node.output_dtype)
            matmul_into(a, b, product, packed_b=packed)
            with np.errstate(invalid="ignore"):                     # 0 * inf
                return product * (y > 0).astype(product.dtype)
        out = pool.take(out_shape, node.output_dtype)
        matmul_into(a, b, out, packed_b=packed, gate=y)
        pool.give(out)
        return out
    return kernel


class _ConstantB:
    """A product's constant B, packed on the first run (``register_gemm.pack_b``; None
    where its engine reads B in place) and used while the kernel is handed the same
    array: the Const kernel hands back its read-only value every run.  Any other B is
    packed as it goes, as any product's is."""

    def __init__(self):
        self._source = self._packed = None

    def packed(self, source: np.ndarray, b: np.ndarray):
        """The packing for ``b``, the product's view of ``source`` (the kernel's input)."""
        if self._source is None:
            self._packed, self._source = _shared_packing(source, b), source
        return self._packed if source is self._source else None


# One packing per constant and view of it, shared by every plan and session that reads
# it (each fetch signature builds its own kernels): (id of the Const's value, address,
# shape, strides of the view) -> PackedB or None, dropped when the value is.
_PACKINGS: dict = {}
_PACKINGS_LOCK = threading.Lock()


def _shared_packing(source: np.ndarray, b: np.ndarray):
    if not packs_constant_b():
        return None
    key = (id(source), b.ctypes.data, b.shape, b.strides)
    with _PACKINGS_LOCK:
        if key not in _PACKINGS:
            _PACKINGS[key] = register_gemm.pack_b(b)
            weakref.finalize(source, _PACKINGS.pop, key, None)
        return _PACKINGS[key]
