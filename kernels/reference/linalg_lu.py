"""The kernel of Lu (``devsession/ops/linalg_lu.py``): LU with partial pivoting, as
Eigen's ``PartialPivLU`` that TF's kernel calls, on the host (numpy has no LU; the
elimination is written here, vectorised over the batch).

Column ``k`` at a time, for every matrix of the batch together: the pivot is the first
row at or below the diagonal whose entry has the largest magnitude (``argmax`` of the
absolute values: the first maximum, as Eigen's visitor keeps; it starts from the
diagonal entry and takes a later one only when it is greater, so a NaN below the
diagonal is never the pivot and a NaN on it always is); it is swapped into row ``k``
(in the matrix and in the permutation ``p``), the column below it is divided by it and
the trailing block updated.  A zero pivot leaves its column as it is (Eigen's choice).

TF then refuses the factor unless the smallest pivot magnitude is ``> 0``, by Eigen's
``minCoeff`` (a running ``x < min``): a zero pivot fails, a NaN fails only as the first
pivot (a later NaN never compares less) - ``pivots_fail``, which MatrixInverse and
MatrixSolve share for their non-finite inputs (``linalg_solve.py``).

The result is packed as TF's: ``L``'s multipliers below the diagonal, ``U`` on and above
it, ``p`` with ``input[p] == L @ U``.  Empty batches and 0 x 0 matrices give empty
results; float16 has no kernel in TF (an InvalidArgumentError naming the node's attrs).
"""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..linalg_checks import check_square
from ..registry import HOST, register_kernel

__all__ = ["lu_kernel", "lu_factor", "pivots_fail"]

NOT_INVERTIBLE = "Input is not invertible."


def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lu, p)`` of a batch ``a`` ``[B, N, N]`` (copied, not changed)."""
    lu = np.array(a, copy=True)
    batch, n = lu.shape[0], lu.shape[-1]
    perm = np.tile(np.arange(n), (batch, 1))
    rows = np.arange(batch)
    for k in range(n):
        magnitude = np.abs(lu[:, k:, k])
        pivot = k + np.argmax(np.where(np.isnan(magnitude), -np.inf, magnitude), axis=1)
        pivot[np.isnan(magnitude[:, 0])] = k
        swap = pivot != k
        if swap.any():
            which = rows[swap]
            lu[which, k], lu[which, pivot[swap]] = lu[which, pivot[swap]], lu[which, k].copy()
            perm[which, k], perm[which, pivot[swap]] = (perm[which, pivot[swap]],
                                                        perm[which, k].copy())
        head = lu[:, k, k]
        nonzero = head != 0
        if k + 1 < n and nonzero.any():
            use = rows[nonzero]
            lu[use, k + 1:, k] /= head[nonzero][:, None]
            lu[use, k + 1:, k + 1:] -= lu[use, k + 1:, k][:, :, None] * lu[use, k, k + 1:][:, None, :]
    return lu, perm


def pivots_fail(factors: np.ndarray) -> bool:
    """Whether TF refuses LU ``factors`` ``[B, N, N]`` (N > 0) as not invertible: the
    smallest pivot magnitude by Eigen's ``minCoeff`` is not ``> 0`` (a zero pivot, or a
    NaN as the first one)."""
    diagonal = np.abs(np.diagonal(factors, axis1=-2, axis2=-1))
    return bool(np.isnan(diagonal[:, 0]).any() or (diagonal == 0).any())


def lu_kernel(node):
    out_dtype, index_dtype = node.output_dtypes

    def lu(x):
        check_square(node, x.shape)
        if x.dtype == np.float16:
            raise invalid_argument(node.name, node.op, (
                f"No OpKernel was registered to support Op 'Lu' used by {{{{node "
                f"{node.name}}}}} with these attrs: [T=DT_HALF, output_idx_type="
                f"DT_{np.dtype(index_dtype).name.upper()}]"))
        n = x.shape[-1]
        if x.size == 0:
            return (np.zeros(x.shape, out_dtype),
                    np.broadcast_to(np.arange(n, dtype=index_dtype), x.shape[:-1]).copy())
        with np.errstate(invalid="ignore"):         # NaN and inf as Eigen computes them
            factors, perm = lu_factor(x.reshape((-1, n, n)))
        if pivots_fail(factors):
            raise invalid_argument(node.name, node.op, NOT_INVERTIBLE)
        return (factors.reshape(x.shape).astype(out_dtype, copy=False),
                perm.reshape(x.shape[:-1]).astype(index_dtype))
    return lu


register_kernel("Lu", HOST)(lu_kernel)
