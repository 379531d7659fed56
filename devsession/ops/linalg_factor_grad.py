"""Gradients of the decompositions (``linalg_factor.py``), TF's formulas
(``python/ops/linalg_grad.py``, after Giles 2008, Murray 2016 and Ionescu et al. 2015), with
adjoints (conjugate transposes; ``ᵀ`` below for real matrices), and TF's complex terms
(Qr's correction of the diagonal's imaginary part, Svd's ``term3``):

* LogMatrixDeterminant: ``dA = d(log|det|) · A⁻ᵀ``; the sign contributes nothing.
* Cholesky ``A = LLᵀ``: ``L⁻ᵀ Φ(Lᵀ dL) L⁻¹`` symmetrised, ``Φ`` the lower triangle with
  the diagonal halved (a gradient for the symmetric matrix, spread over both triangles).
* Qr: TF's formula for ``M >= N`` (``full_matrices`` only when square) and, for ``M <
  N``, its reduction to the square case (``A = [X, Y]``); other shapes are TF's
  NotImplementedError, as is a matrix size the graph does not know.
* SelfAdjointEigV2 ``A = V diag(e) Vᵀ``: ``V (diag(de) + F ∘ VᵀdV) Vᵀ``,
  ``F_ij = 1/(e_j - e_i)`` (TF's safe reciprocal: 0 for equal eigenvalues), symmetrised
  and folded onto the lower triangle the op reads (diagonal halved).
* Svd: TF's formula (``compute_uv=False`` through a second Svd with the vectors;
  ``full_matrices`` only when ``|M - N| <= 1``), NotImplementedError as TF otherwise.

An output no gradient reached counts as zeros (TF fills them in for the function).
Checked against finite differences in tests/test_linalg_ops.py.
"""

from __future__ import annotations

from .array import concat, expand_dims
from .elementwise import add, multiply, square, subtract
from .linalg import matmul
from .linalg_factor import self_adjoint_eig, svd
from .complex_math import real
from .elementwise import cast, divide
from .linalg_parts import (adjointed, diag_part, identity_like, safe_reciprocal, scaled_by_batch,
                           set_diag)
from .linalg_solve import matrix_inverse, matrix_triangular_solve
from .matrix import matrix_band_part, matrix_diag
from .registry import register_gradient
from .shape_of import zeros_like_of

__all__: list = []


def _or_zeros(grad, like):
    return zeros_like_of(like) if grad is None else grad


@register_gradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op, _, grad_log):
    if grad_log is None:            # only the sign reached: zeros, as TF's (it fills them)
        return [zeros_like_of(op.inputs[0])]
    return [scaled_by_batch(grad_log, matrix_inverse(op.inputs[0], adjoint=True))]


@register_gradient("Cholesky")
def _cholesky_grad(op, grad):
    lower = op.outputs[0]
    lower_inverse = matrix_triangular_solve(lower, identity_like(lower))
    middle = matmul(lower, grad, adjoint_a=True)
    middle = set_diag(middle, multiply(0.5, diag_part(middle)))
    middle = matrix_band_part(middle, -1, 0)
    grad_a = matmul(matmul(lower_inverse, middle, adjoint_a=True), lower_inverse)
    return [multiply(add(grad_a, adjointed(grad_a)), 0.5)]


def _static_matrix_size(op, what: str) -> tuple:
    x = op.inputs[0]
    m, n = x.shape.dims[-2:] if x.shape.ndims is not None else (None, None)
    if m is None or n is None:
        raise NotImplementedError(f"{what} not implemented with dynamic shapes "
                                  f"('{op.name}': the matrix size is unknown when the "
                                  f"graph is built).")
    return m, n


def _solve_upper_from_right(x, r):
    """``x @ r⁻ᵀ`` for upper-triangular ``r`` (TF's ``_TriangularSolve``)."""
    return adjointed(matrix_triangular_solve(r, adjointed(x), lower=False, adjoint=False))


def _qr_square_and_deep(q, r, dq, dr):
    """The gradient for ``M >= N`` and reduced matrices."""
    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = subtract(qdq, adjointed(qdq))
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = subtract(rdr, adjointed(rdr))
    tril = matrix_band_part(add(qdq_, rdr_), -1, 0)
    grad_a = matmul(q, add(dr, _solve_upper_from_right(tril, r)))
    grad_b = _solve_upper_from_right(subtract(dq, matmul(q, qdq)), r)
    grad = add(grad_a, grad_b)
    if q.dtype.is_complex:        # TF's correction: the imaginary part of diag(rdr - qdqᴴ)
        m = subtract(rdr, adjointed(qdq))
        diagonal = diag_part(m)
        correction = matrix_diag(subtract(diagonal, cast(real(diagonal), q.dtype)))
        grad = add(grad, _solve_upper_from_right(matmul(q, adjointed(correction)), r))
    return grad


@register_gradient("Qr")
def _qr_grad(op, dq, dr):
    q, r = op.outputs
    m, n = _static_matrix_size(op, "QrGrad")
    if m > n and op.attrs["full_matrices"]:
        raise NotImplementedError("QrGrad not implemented when nrows > ncols and "
                                  "full_matrices is true.")
    dq, dr = _or_zeros(dq, q), _or_zeros(dr, r)
    if m >= n:
        return [_qr_square_and_deep(q, r, dq, dr)]
    # A = [X, Y] with X square, R = [U, V]: the square case for X, Y's part through Q
    a = op.inputs[0]
    y = a[..., :, m:]
    u = r[..., :, :m]
    dv = dr[..., :, m:]
    du = dr[..., :, :m]
    dy = matmul(q, dv)
    dx = _qr_square_and_deep(q, u, add(dq, matmul(y, dv, adjoint_b=True)), du)
    return [concat([dx, dy], axis=-1)]


@register_gradient("SelfAdjointEigV2")
def _self_adjoint_eig_grad(op, grad_e, grad_v):
    e = op.outputs[0]
    grad_e = _or_zeros(grad_e, e)
    if op.attrs["compute_v"]:
        v = op.outputs[1]
        grad_v = _or_zeros(grad_v, v)
        # f[i, j] = 1 / (e_j - e_i) off the diagonal, 0 on it
        f = set_diag(safe_reciprocal(subtract(expand_dims(e, -2), expand_dims(e, -1))),
                     zeros_like_of(e))
        inner = add(matrix_diag(grad_e), multiply(f, matmul(v, grad_v, adjoint_a=True)))
        grad_a = matmul(v, matmul(inner, v, adjoint_b=True))
    else:
        _, v = self_adjoint_eig(op.inputs[0])
        grad_a = matmul(v, matmul(matrix_diag(grad_e), v, adjoint_b=True))
    # the op reads the lower triangle: symmetrise, fold onto it, halve the diagonal
    grad_a = matrix_band_part(add(grad_a, adjointed(grad_a)), -1, 0)
    return [set_diag(grad_a, multiply(0.5, diag_part(grad_a)))]


@register_gradient("Svd")
def _svd_grad(op, grad_s, grad_u, grad_v):
    a = op.inputs[0]
    s = op.outputs[0]
    grad_s = _or_zeros(grad_s, s)
    grad_s_mat = matrix_diag(grad_s)
    if not op.attrs["compute_uv"]:
        _, u, v = svd(a, compute_uv=True)
        return [matmul(u, matmul(grad_s_mat, v, adjoint_b=True))]
    m, n = _static_matrix_size(op, "SVD gradient")
    full_matrices = op.attrs["full_matrices"]
    u, v = op.outputs[1], op.outputs[2]
    grad_u, grad_v = _or_zeros(grad_u, u), _or_zeros(grad_v, v)
    use_adjoint = m > n
    if use_adjoint:        # the gradient of Aᵀ = V Sᵀ Uᵀ, transposed at the end
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError("svd gradient is not implemented for abs(m - n) > 1 when "
                                  "full_matrices is True")
    s_mat = matrix_diag(s)
    s2 = square(s)
    # f[i, j] = 1 / (s_j² - s_i²) off the diagonal, 0 on it
    f = set_diag(safe_reciprocal(subtract(expand_dims(s2, -2), expand_dims(s2, -1))),
                 zeros_like_of(s))
    s_inv_mat = matrix_diag(safe_reciprocal(s))
    v1 = v[..., :, :m]
    grad_v1 = grad_v[..., :, :m]
    u_gu = matmul(u, grad_u, adjoint_a=True)
    v_gv = matmul(v1, grad_v1, adjoint_a=True)
    f_u = multiply(f, u_gu)
    f_v = multiply(f, v_gv)
    term1_nouv = add(add(grad_s_mat, matmul(add(f_u, adjointed(f_u)), s_mat)),
                     matmul(s_mat, add(f_v, adjointed(f_v))))
    grad_a = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = adjointed(grad_v1)
        term2_nous = subtract(gv1t, matmul(matmul(gv1t, v1), v1, adjoint_b=True))
        if full_matrices:
            v2 = v[..., :, m:n]
            grad_v2 = grad_v[..., :, m:n]
            v1t_gv2 = matmul(v1, grad_v2, adjoint_a=True)
            term2_nous = subtract(term2_nous, matmul(v1t_gv2, v2, adjoint_b=True))
        grad_a = add(grad_a, matmul(matmul(u, s_inv_mat), term2_nous))
    if a.dtype.is_complex:        # TF's term3: the phase of the singular vectors
        phases = matrix_diag(diag_part(v_gv))
        term3_nouv = matmul(s_inv_mat, subtract(adjointed(phases), phases))
        grad_a = add(grad_a, divide(matmul(u, matmul(term3_nouv, v1, adjoint_b=True)), 2.0))
    return [adjointed(grad_a) if use_adjoint else grad_a]
