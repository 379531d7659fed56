"""Fold a ReLU's gradient into the product that makes the gradient it gates.

Backpropagating through ``Relu(h @ w + b)``, the next layer's input gradient ``dy @
w2.T`` is written out, then read back with the ReLU's output to make ``dy * (y > 0)``
and written again.  Folded (``_MatMulReluGrad``), the CPU kernel multiplies each tile of
the product by its gate right after storing it, while it is in L1 (XLA fuses the same
way): one full-size array written instead of two, the same float32 multiplications, so
the same bits.

Matched (before fusion, on the CPU, float32 or float64, nothing in between fetched):

    g = MatMul(a, w) of two matrices                    read only by the Mul
    r = Mul(g, Cast(Greater(y, 0)))                     the ReLU's gradient (``Relu``'s)

with ``y`` of the product's dtype and static dims (unknown ones allowed: a gate that
turns out to broadcast is applied after the product, as the Mul would).  The fold
produces ``r``, keeps the Mul's name, and names every node it replaces in traces.  A
constant ``w`` is packed once (``constant_weights.py``), as a plain product's is.  A Greater or Cast that
something else still reads stays as it was (``ir.mask_ops``).
"""

from __future__ import annotations

from ..dtypes import float32, float64
from ..ops.linalg import MATMUL_RELU_GRAD
from .ir import PlanOp, fold_each, folded_op, mask_ops, on_cpu, relu_gradients

__all__ = ["fold_relu_gates"]


def fold_relu_gates(ops: list[PlanOp], fetched: set, placements: dict) -> list[PlanOp]:
    def fold(mul, producer, readers):
        match = _match(mul, producer, readers, fetched, placements)
        if match is None:
            return None
        product, y, masks = match
        members = [product, *masks, mul]
        return members, folded_op(
            members, mul, MATMUL_RELU_GRAD, (*product.inputs, y), mul.outputs,
            {k: bool(product.attrs.get(k)) for k in ("transpose_a", "transpose_b")})
    return fold_each(ops, fold)


def _match(mul, producer, readers, fetched, placements):
    """(the MatMul, the ReLU's output, the mask ops only this Mul reads) when ``mul``
    gates a product that can fold, else None."""
    if not on_cpu(mul, placements):
        return None
    for gradient, cast, greater in relu_gradients(mul, producer):
        product, y = producer.get(gradient), greater.inputs[0]
        if product is None or product.type != "MatMul" or not on_cpu(product, placements) or \
                gradient in fetched or readers[gradient] != [mul]:
            continue
        if _matrices(product, y, mul) and _one_dtype(product, y, cast, mul):
            return product, y, mask_ops(mul, cast, greater, readers, fetched)
    return None


def _matrices(product, y, mul) -> bool:
    """A product of two matrices, gated by a ``y`` of its (static) shape."""
    dims = product.outputs[0].shape.dims
    return dims is not None and len(dims) == 2 and y.shape.dims == dims and \
        mul.outputs[0].shape.dims == dims and \
        all(t.shape.dims is not None and len(t.shape.dims) == 2 for t in product.inputs)


def _one_dtype(product, y, cast, mul) -> bool:
    """float32 or float64 throughout: the product, the gate, the mask and the result."""
    dtype = product.outputs[0].dtype
    return dtype in (float32, float64) and \
        all(t.dtype == dtype for t in (y, cast.outputs[0], mul.outputs[0]))
