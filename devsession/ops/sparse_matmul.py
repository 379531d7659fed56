"""TF1's ``tf.sparse_matmul``: TF's ``SparseMatMul(a, b)`` op, a float32 matrix product
whose ``a_is_sparse`` / ``b_is_sparse`` attrs only hint that an operand is mostly zeros
(TF picks another kernel; the product is the same).  So the op keeps TF's type and attrs,
for GraphDefs both ways, and its kernels are MatMul's (``kernels/*/linalg.py`` register
them for it), ``transpose_a`` / ``transpose_b`` as MatMul's.

Operands must be float32 matrices (TF's other type, bfloat16, devsession lacks): another
dtype is a TypeError, another rank a ValueError when built, as TF's.  The gradient is
TF's ``_SparseMatMulGrad``: the two products MatMul's gradient forms, built as MatMuls
(TF builds SparseMatMuls where an operand was hinted sparse: the same values)."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, get_default_graph
from ..tensor_shape import TensorShape
from .linalg import matmul
from .registry import InferError, OpDef, register_gradient, register_op

__all__ = ["sparse_matmul", "SPARSE_MATMUL"]

SPARSE_MATMUL = "SparseMatMul"


def _infer_sparse_matmul(inputs, attrs, node):
    a, b = inputs
    for operand, attr in ((a, "Ta"), (b, "Tb")):
        if operand.dtype != dtypes.float32:
            raise TypeError(f"Value passed to parameter '{'a' if attr == 'Ta' else 'b'}' "
                            f"has DataType {operand.dtype.name} not in list of allowed "
                            f"values: float32, bfloat16 (node '{node}').")
        if operand.shape.ndims not in (None, 2):
            raise InferError(f"Op '{node}': Shape must be rank 2 but is rank "
                             f"{operand.shape.ndims} for '{operand.name}' {operand.shape}.")
    a_dims = a.shape.dims if a.shape.ndims == 2 else [None, None]
    b_dims = b.shape.dims if b.shape.ndims == 2 else [None, None]
    m, ka = reversed(a_dims) if attrs.get("transpose_a") else a_dims
    kb, n = reversed(b_dims) if attrs.get("transpose_b") else b_dims
    if ka is not None and kb is not None and ka != kb:
        raise InferError(f"Op '{node}': Dimensions must be equal, but are {ka} and {kb} "
                         f"for '{a.name}' {a.shape} and '{b.name}' {b.shape} "
                         f"(transpose_a={attrs.get('transpose_a')}, "
                         f"transpose_b={attrs.get('transpose_b')}).")
    return dtypes.float32, TensorShape([m, n])


register_op(OpDef(SPARSE_MATMUL, _infer_sparse_matmul, 2,
                  attr_defaults={"transpose_a": False, "transpose_b": False,
                                 "a_is_sparse": False, "b_is_sparse": False}))


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False,
                  b_is_sparse=False, name=None) -> Tensor:
    """``a @ b`` (each transposed when asked), float32, as TF1's ``tf.sparse_matmul``."""
    graph = get_default_graph()
    a = convert_to_tensor(a, dtype_hint=dtypes.float32, graph=graph, name="a")
    b = convert_to_tensor(b, dtype_hint=dtypes.float32, graph=graph, name="b")
    attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b),
             "a_is_sparse": bool(a_is_sparse), "b_is_sparse": bool(b_is_sparse),
             "Ta": a.dtype, "Tb": b.dtype}
    return graph.create_op(SPARSE_MATMUL, [a, b], attrs,
                           name=name or "SparseMatMul").outputs[0]


@register_gradient(SPARSE_MATMUL)
def _sparse_matmul_grad(op, dy):
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if not ta and not tb:
        return [matmul(dy, b, transpose_b=True), matmul(a, dy, transpose_a=True)]
    if not ta and tb:
        return [matmul(dy, b), matmul(dy, a, transpose_a=True)]
    if ta and not tb:
        return [matmul(b, dy, transpose_b=True), matmul(a, dy)]
    return [matmul(b, dy, transpose_a=True, transpose_b=True),
            matmul(dy, a, transpose_a=True, transpose_b=True)]
