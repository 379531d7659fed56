"""Static checks the dense linear-algebra ops share, as TF's shape functions make them
(``core/ops/linalg_ops.cc``): an operand is a batch of matrices ``[..., M, N]`` (rank at
least 2), a square one has ``M == N``, and a solver's two operands have the same batch
dimensions (merged, not broadcast: TF1's ``BatchMatrixSolveShapeFn``) and the same number
of rows.  A violation the graph can see is a ValueError when the node is built (an
``InferError``), with TF's wording; one seen only at run time is the kernels' (see
``kernels/linalg_checks.py``).  The dtype is float16, float32, float64, complex64 or
complex128, TF's ``T``."""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape
from .registry import InferError

__all__ = ["float_matrices", "matrices", "square_matrices", "merge_dim", "merge_batch",
           "batch_of"]

_FLOATS = (dtypes.float64, dtypes.float32, dtypes.float16, dtypes.complex64, dtypes.complex128)


def float_matrices(spec, node: str, parameter: str = "input") -> None:
    """TypeError unless ``spec`` is float16/32/64 or complex, as TF's allowed-types check."""
    if spec.dtype not in _FLOATS:
        raise TypeError(f"Op '{node}': Value passed to parameter '{parameter}' has DataType "
                        f"{spec.dtype.name} not in list of allowed values: float64, float32, "
                        f"float16, complex64, complex128.")


def matrices(spec, node: str) -> tuple | None:
    """``(batch, rows, columns)`` of ``spec``'s shape (None for an unknown rank); a rank
    below 2 is TF's ValueError."""
    if spec.shape.ndims is None:
        return None
    if spec.shape.ndims < 2:
        raise InferError(f"Op '{node}': Shape must be at least rank 2 but is rank "
                         f"{spec.shape.ndims}: '{spec.name}' has shape {spec.shape}.")
    dims = list(spec.shape.dims)
    return dims[:-2], dims[-2], dims[-1]


def merge_dim(a, b, node: str, what: str):
    """The known one of two sizes that must agree; TF's ValueError when both are known
    and differ."""
    if a is not None and b is not None and a != b:
        raise InferError(f"Op '{node}': Dimensions must be equal, but are {a} and {b} "
                         f"({what}).")
    return a if a is not None else b


def square_matrices(spec, node: str) -> tuple | None:
    """``(batch, n)`` of a batch of square matrices ``[..., n, n]`` (None for an unknown
    rank)."""
    parts = matrices(spec, node)
    if parts is None:
        return None
    batch, rows, columns = parts
    return batch, merge_dim(rows, columns, node,
                            f"the matrices of '{spec.name}' with shape {spec.shape} must be "
                            f"square")


def merge_batch(a: list | None, b: list | None, node: str, names: str) -> list | None:
    """Two operands' batch dimensions merged (same rank, equal known sizes), as TF1's
    solvers require; None when both ranks are unknown."""
    if a is None or b is None:
        return a if b is None else b
    if len(a) != len(b):
        raise InferError(f"Op '{node}': Shapes must be equal rank, but are {len(a)} and "
                         f"{len(b)} (the batch dimensions of {names}).")
    return [merge_dim(x, y, node, f"the batch dimensions of {names}") for x, y in zip(a, b)]


def batch_of(batch: list | None, *inner) -> TensorShape:
    """``batch + inner`` as a TensorShape; unknown rank when ``batch`` is None."""
    return TensorShape(None) if batch is None else TensorShape(list(batch) + list(inner))
