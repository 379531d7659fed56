"""Matrix decompositions over the last two axes, as TF1's ops: Cholesky (``cholesky``),
Qr (``qr``), Svd (``svd``), SelfAdjointEigV2 (``self_adjoint_eig``,
``self_adjoint_eigvals``, ``tf.linalg.eigh``/``eigvalsh``) and LogMatrixDeterminant
(``tf.linalg.slogdet``); ``tf.linalg.logdet`` built as TF builds it (from a Cholesky
factor).

Shapes as TF's shape functions, for an input ``[..., M, N]`` and ``P = min(M, N)``:

* Cholesky ``[..., N, N]`` -> ``[..., N, N]``, lower-triangular; only the input's lower
  triangle is read.  A matrix that is not positive definite is InvalidArgumentError at
  run time ("Cholesky decomposition was not successful. The input might not be valid.").
* Qr -> ``q [..., M, P]``, ``r [..., P, N]`` (``[..., M, M]`` and ``[..., M, N]`` with
  ``full_matrices``).
* Svd -> ``s [..., P]`` (descending), ``u [..., M, P]``, ``v [..., N, P]`` (``[..., M,
  M]`` and ``[..., N, N]`` with ``full_matrices``), ``a = u @ diag(s) @ vᵀ``; without
  ``compute_uv``, ``u`` and ``v`` are empty vectors ``[0]``.  ``svd`` returns ``(s, u,
  v)``, TF's order (numpy's is ``u, s, vh``).  A matrix with a NaN or an infinity gives
  NaN everywhere, as TF's kernel.
* SelfAdjointEigV2 ``[..., N, N]`` -> ``e [..., N]`` (ascending), ``v [..., N, N]`` (the
  eigenvectors are its columns; ``[0]`` without ``compute_v``); only the lower triangle
  is read, and a matrix with a NaN or an infinity is InvalidArgumentError.
* LogMatrixDeterminant ``[..., N, N]`` -> ``sign [...]``, ``log_abs_determinant [...]``
  (a singular matrix: sign 0, log -inf).

The signs of singular vectors, eigenvectors and of Q's columns are LAPACK's (cuSOLVER's
on the GPU), as TF's are its own library's: compare them up to sign.

Gradients: ``linalg_factor_grad.py``.  Kernels: ``kernels/reference/linalg_factor.py``
(numpy's LAPACK, the CPU's too) and ``kernels/cuda/linalg.py`` (cuSOLVER via cupy).

    s, u, v = ds.svd(a)                     # a == u @ diag(s) @ transpose(v)
"""

from __future__ import annotations

import collections

from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import graph_of
from .linalg_shapes import batch_of, float_matrices, matrices, square_matrices
from .registry import OpDef, register_op

__all__ = ["cholesky", "qr", "svd", "self_adjoint_eig", "self_adjoint_eigvals", "slogdet",
           "logdet", "Qr", "LogMatrixDeterminant"]

# What ``qr`` and ``slogdet`` return, as TF's namedtuples of the same names.
Qr = collections.namedtuple("Qr", ["q", "r"])
LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])

_EMPTY = TensorShape([0])          # u and v without compute_uv, v without compute_v


def _cholesky(inputs, attrs, node):
    (x,) = inputs
    float_matrices(x, node)
    parts = square_matrices(x, node)
    return x.dtype, (TensorShape(None) if parts is None else batch_of(parts[0], parts[1],
                                                                       parts[1]))


def _smaller(m, n):
    return None if m is None or n is None else min(m, n)


def _qr(inputs, attrs, node):
    (x,) = inputs
    float_matrices(x, node)
    parts = matrices(x, node)
    if parts is None:
        return [(x.dtype, TensorShape(None))] * 2
    batch, m, n = parts
    p = _smaller(m, n)
    if attrs["full_matrices"]:
        return [(x.dtype, batch_of(batch, m, m)), (x.dtype, batch_of(batch, m, n))]
    return [(x.dtype, batch_of(batch, m, p)), (x.dtype, batch_of(batch, p, n))]


def _svd(inputs, attrs, node):
    (x,) = inputs
    float_matrices(x, node)
    parts = matrices(x, node)
    unknown = TensorShape(None)
    if parts is None:
        return [(x.dtype, unknown)] + [(x.dtype, unknown if attrs["compute_uv"] else
                                        _EMPTY)] * 2
    batch, m, n = parts
    p = _smaller(m, n)
    s = (x.dtype, batch_of(batch, p))
    if not attrs["compute_uv"]:
        return [s, (x.dtype, _EMPTY), (x.dtype, _EMPTY)]
    if attrs["full_matrices"]:
        return [s, (x.dtype, batch_of(batch, m, m)), (x.dtype, batch_of(batch, n, n))]
    return [s, (x.dtype, batch_of(batch, m, p)), (x.dtype, batch_of(batch, n, p))]


def _eig(inputs, attrs, node):
    (x,) = inputs
    float_matrices(x, node)
    parts = square_matrices(x, node)
    if parts is None:
        return [(x.dtype, TensorShape(None)),
                (x.dtype, TensorShape(None) if attrs["compute_v"] else _EMPTY)]
    batch, n = parts
    return [(x.dtype, batch_of(batch, n)),
            (x.dtype, batch_of(batch, n, n) if attrs["compute_v"] else _EMPTY)]


def _slogdet(inputs, attrs, node):
    (x,) = inputs
    float_matrices(x, node)
    parts = square_matrices(x, node)
    shape = TensorShape(None) if parts is None else batch_of(parts[0])
    return [(x.dtype, shape), (x.dtype, shape)]


register_op(OpDef("Cholesky", _cholesky, 1))
register_op(OpDef("Qr", _qr, 1, attr_defaults={"full_matrices": False}))
register_op(OpDef("Svd", _svd, 1, attr_defaults={"compute_uv": True, "full_matrices": False}))
register_op(OpDef("SelfAdjointEigV2", _eig, 1, attr_defaults={"compute_v": True}))
register_op(OpDef("LogMatrixDeterminant", _slogdet, 1))


def _op(op_type: str, input, attrs: dict, name, default: str):  # noqa: A002
    x = convert_to_tensor(input, name="input", graph=graph_of(input))
    return x.graph.create_op(op_type, [x], attrs, name=name or default)


def cholesky(input, name=None) -> Tensor:  # noqa: A002  (TF1's argument names)
    """The lower-triangular ``L`` with ``L @ Lᵀ == input`` for each symmetric positive
    definite matrix (only the lower triangle of ``input`` is read)."""
    return _op("Cholesky", input, {}, name, "Cholesky").outputs[0]


def qr(input, full_matrices=False, name=None) -> Qr:  # noqa: A002
    """``Qr(q, r)``: orthonormal columns ``q`` and upper-triangular ``r`` with ``q @ r ==
    input``."""
    op = _op("Qr", input, {"full_matrices": bool(full_matrices)}, name, "Qr")
    return Qr(*op.outputs)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``(s, u, v)`` with ``tensor == u @ diag(s) @ vᴴ``, or only ``s`` without
    ``compute_uv`` (TF's order and defaults; of a complex matrix, ``s`` is the real part
    of the op's complex output, as TF's)."""
    op = _op("Svd", tensor, {"compute_uv": bool(compute_uv),
                             "full_matrices": bool(full_matrices)}, name, "Svd")
    s = op.outputs[0]
    if s.dtype.is_complex:
        from .complex_math import real

        s = real(s)
    return (s, op.outputs[1], op.outputs[2]) if compute_uv else s


def self_adjoint_eig(tensor, name=None) -> tuple:
    """``(e, v)``: the eigenvalues (ascending) and eigenvectors (columns) of each
    symmetric matrix (its lower triangle read)."""
    op = _op("SelfAdjointEigV2", tensor, {"compute_v": True}, name, "SelfAdjointEigV2")
    return op.outputs[0], op.outputs[1]


def self_adjoint_eigvals(tensor, name=None) -> Tensor:
    """The eigenvalues (ascending) of each symmetric matrix (its lower triangle read)."""
    op = _op("SelfAdjointEigV2", tensor, {"compute_v": False}, name, "SelfAdjointEigV2")
    return op.outputs[0]


def slogdet(input, name=None) -> LogMatrixDeterminant:  # noqa: A002
    """``(sign, log_abs_determinant)`` of each square matrix: the determinant is
    ``sign * exp(log_abs_determinant)``, without its overflow."""
    op = _op("LogMatrixDeterminant", input, {}, name, "LogMatrixDeterminant")
    return LogMatrixDeterminant(*op.outputs)


def logdet(matrix, name=None) -> Tensor:
    """The log-determinant of each Hermitian positive definite matrix: twice the sum of
    the logs of its Cholesky factor's diagonal, as TF builds it."""
    from .elementwise import log, multiply
    from .linalg_parts import diag_part
    from .reduce import reduce_sum

    with name_scope(name or "logdet"):
        chol = cholesky(matrix)
        diagonal = diag_part(chol)
        if diagonal.dtype.is_complex:            # TF's: the logs of the real parts
            from .complex_math import real

            diagonal = real(diagonal)
        total = reduce_sum(log(diagonal), axis=[-1])
        return multiply(convert_to_tensor(2.0, dtype=total.dtype), total, name="mul")
