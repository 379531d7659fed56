"""Tridiagonal systems, as TF1's ops TridiagonalSolve and TridiagonalMatMul and TF's
Python wrappers ``tf.linalg.tridiagonal_solve`` and ``tridiagonal_matmul``
(``python/ops/linalg/linalg_impl.py``), which accept the three diagonals in three
formats and bring them to the ops' own:

* ``compact``: one tensor ``[..., 3, M]``, rows superdiagonal, diagonal, subdiagonal (the
  superdiagonal's last and the subdiagonal's first element are ignored);
* ``sequence``: ``[superdiag, maindiag, subdiag]``, each ``[..., M]`` (or ``M - 1``: padded
  as TF does);
* ``matrix``: the full ``[..., M, M]`` matrices (only their three diagonals read).

TridiagonalSolve ``diagonals [..., 3, M]``, ``rhs [..., M, K]`` -> ``[..., M, K]``, by
Gaussian elimination with partial pivoting (LAPACK's ``gtsv``, TF's CPU kernel) or the
Thomas algorithm without.  A singular matrix is no error in TF: the result is NaN (TF
logs a warning); with ``perturb_singular`` its tiny pivots are perturbed instead (TF's
LAPACK ``xLAGTF``/``xLAGTS`` variant).  TridiagonalMatMul ``superdiag, maindiag, subdiag [..., 1, M]``, ``rhs
[..., M, N]`` -> ``[..., M, N]``.

Gradients: ``linalg_tridiagonal_grad.py`` (TF's).  Kernels:
``kernels/reference/linalg_tridiagonal.py`` (host).

    x = ds.linalg.tridiagonal_solve([sup, main, sub], b, diagonals_format="sequence")
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .common import graph_of
from .registry import InferError, OpDef, register_op

__all__ = ["tridiagonal_solve", "tridiagonal_matmul", "eigh_tridiagonal"]

_TYPES = (dtypes.float64, dtypes.float32, dtypes.complex64, dtypes.complex128)


def _check_type(spec, node, parameter):
    if spec.dtype not in _TYPES:
        raise TypeError(f"Op '{node}': Value passed to parameter '{parameter}' has DataType "
                        f"{spec.dtype.name} not in list of allowed values: float64, float32, "
                        f"complex64, complex128")


def _solve_shape(inputs, attrs, node):
    diagonals, rhs = inputs
    _check_type(diagonals, node, "diagonals")
    if rhs.dtype != diagonals.dtype:
        raise TypeError(f"Op '{node}': rhs is {rhs.dtype.name} but diagonals is "
                        f"{diagonals.dtype.name}; they must match.")
    d, r = diagonals.shape, rhs.shape
    if d.ndims is not None and d.ndims < 2:
        raise InferError(f"Op '{node}': Shape must be at least rank 2 but is rank "
                         f"{d.ndims} for 'diagonals' (shape {d}).")
    if r.ndims is not None and r.ndims < 2:
        raise InferError(f"Op '{node}': Shape must be at least rank 2 but is rank "
                         f"{r.ndims} for 'rhs' (shape {r}).")
    if d.ndims is not None and d.dims[-2] not in (None, 3):
        raise InferError(f"Op '{node}': Dimension must be 3 but is {d.dims[-2]} "
                         f"(diagonals {d}).")
    if d.ndims is not None and r.ndims is not None and d.dims[-1] is not None \
            and r.dims[-2] is not None and d.dims[-1] != r.dims[-2]:
        raise InferError(f"Op '{node}': Dimensions must be equal, but are {d.dims[-1]} and "
                         f"{r.dims[-2]} (diagonals {d}, rhs {r}).")
    return diagonals.dtype, r


def _matmul_shape(inputs, attrs, node):
    superdiag, maindiag, subdiag, rhs = inputs
    for spec, name in zip(inputs, ("superdiag", "maindiag", "subdiag", "rhs")):
        _check_type(spec, node, name)
        if spec.dtype != superdiag.dtype:
            raise TypeError(f"Op '{node}': {name} is {spec.dtype.name} but superdiag is "
                            f"{superdiag.dtype.name}; they must match.")
        if spec.shape.ndims is not None and spec.shape.ndims < 2:
            raise InferError(f"Op '{node}': Shape must be at least rank 2 but is rank "
                             f"{spec.shape.ndims} for '{name}' (shape {spec.shape}).")
    for spec, name in zip(inputs[:3], ("superdiag", "maindiag", "subdiag")):
        if spec.shape.ndims is not None and spec.shape.dims[-2] not in (None, 1):
            raise InferError(f"Op '{node}': Dimension must be 1 but is "
                             f"{spec.shape.dims[-2]} for '{name}' (shape {spec.shape}).")
    return rhs.dtype, rhs.shape


register_op(OpDef("TridiagonalSolve", _solve_shape, 2,
                  attr_defaults={"partial_pivoting": True, "perturb_singular": False}))
register_op(OpDef("TridiagonalMatMul", _matmul_shape, 4))


def _solve_op(diagonals, rhs, partial_pivoting, perturb_singular, name):
    return diagonals.graph.create_op(
        "TridiagonalSolve", [diagonals, rhs],
        {"partial_pivoting": bool(partial_pivoting),
         "perturb_singular": bool(perturb_singular)},
        name=name or "TridiagonalSolve").outputs[0]


def _from_matrix(diagonals):
    """The compact ``[..., 3, M]`` diagonals of full matrices, as TF takes them."""
    from .diagonals import matrix_diag_part

    m1, m2 = (diagonals.shape.dims[-1], diagonals.shape.dims[-2]) \
        if diagonals.shape.ndims is not None else (None, None)
    if m1 and m2 and m1 != m2:
        raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} "
                         f"and {m2}")
    return matrix_diag_part(diagonals, k=(-1, 1), padding_value=0., align="LEFT_RIGHT")


def _compact_from_sequence(diagonals, graph):
    from .array import pad, stack

    if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
        raise ValueError("Expected diagonals to be a sequence of length 3.")
    superdiag, maindiag, subdiag = (convert_to_tensor(d, graph=graph) for d in diagonals)
    if (not subdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1]) or
            not superdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1])):
        raise ValueError(f"Tensors representing the three diagonals must have the same "
                         f"shape,except for the last dimension, got {subdiag.shape}, "
                         f"{maindiag.shape}, {superdiag.shape}")
    m = maindiag.shape.dims[-1] if maindiag.shape.ndims else None

    def pad_if_necessary(t, what, last_dim_padding):
        n = t.shape.dims[-1] if t.shape.ndims else None
        if not n or n == m:
            return t
        if m is not None and n == m - 1:
            return pad(t, [[0, 0]] * (t.shape.ndims - 1) + [last_dim_padding])
        raise ValueError(f"Expected {what} to be have length {m} or "
                         f"{None if m is None else m - 1}, got {n}.")

    subdiag = pad_if_necessary(subdiag, "subdiagonal", [1, 0])
    superdiag = pad_if_necessary(superdiag, "superdiagonal", [0, 1])
    return stack([superdiag, maindiag, subdiag], axis=-2)


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False) -> Tensor:
    """``x`` with ``A @ x == rhs`` for the tridiagonal ``A`` given by ``diagonals``
    (see the module docstring for the formats); ``rhs`` ``[..., M, K]`` or ``[..., M]``
    (then ``x`` is too), transposed first with ``transpose_rhs``."""
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    graph = graph_of(*(diagonals if isinstance(diagonals, (tuple, list)) else [diagonals]),
                     rhs)
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals, graph=graph)
    elif diagonals_format == "sequence":
        diagonals = _compact_from_sequence(diagonals, graph)
    elif diagonals_format == "matrix":
        diagonals = _from_matrix(convert_to_tensor(diagonals, graph=graph))
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    rhs = convert_to_tensor(rhs, dtype_hint=diagonals.dtype, graph=graph)
    return _solve_compact(diagonals, rhs, transpose_rhs, conjugate_rhs, partial_pivoting,
                          perturb_singular, name)


def _solve_compact(diagonals, rhs, transpose_rhs, conjugate_rhs, partial_pivoting,
                   perturb_singular, name):
    """TF's ``_tridiagonal_solve_compact_format``: its static checks, then the op."""
    from .array import expand_dims, squeeze
    from .complex_math import conj
    from .matrix import matrix_transpose

    diags_rank, rhs_rank = diagonals.shape.ndims, rhs.shape.ndims
    if diags_rank:
        if diags_rank < 2:
            raise ValueError(f"Expected diagonals to have rank at least 2, got {diags_rank}")
        if rhs_rank and rhs_rank != diags_rank and rhs_rank != diags_rank - 1:
            raise ValueError(f"Expected the rank of rhs to be {diags_rank - 1} or "
                             f"{diags_rank}, got {rhs_rank}")
        if rhs_rank and not diagonals.shape[:-2].is_compatible_with(
                rhs.shape[:diags_rank - 2]):
            raise ValueError(f"Batch shapes {diagonals.shape[:-2]} and "
                             f"{rhs.shape[:diags_rank - 2]} are incompatible")
    if diags_rank and diagonals.shape.dims[-2] and diagonals.shape.dims[-2] != 3:
        raise ValueError(f"Expected 3 diagonals got {diagonals.shape.dims[-2]}")

    def check_num_lhs_matches_num_rhs():
        m, rows = diagonals.shape.dims[-1] if diags_rank else None, \
            rhs.shape.dims[-2] if rhs.shape.ndims else None
        if m and rows and m != rows:
            raise ValueError(f"Expected number of left-hand sided and right-hand sides to "
                             f"be equal, got {m} and {rows}")

    if rhs_rank and diags_rank and rhs_rank == diags_rank - 1:
        if conjugate_rhs:
            rhs = conj(rhs)
        rhs = expand_dims(rhs, -1)
        check_num_lhs_matches_num_rhs()
        x = _solve_op(diagonals, rhs, partial_pivoting, perturb_singular, name)
        return squeeze(x, [-1])
    if transpose_rhs:
        rhs = matrix_transpose(rhs)
        rhs = conj(rhs) if conjugate_rhs else rhs
    elif conjugate_rhs:
        rhs = conj(rhs)
    check_num_lhs_matches_num_rhs()
    return _solve_op(diagonals, rhs, partial_pivoting, perturb_singular, name)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None) -> Tensor:
    """``A @ rhs`` for the tridiagonal ``A`` given by ``diagonals`` (any of the three
    formats), through TF's TridiagonalMatMul."""
    from .array import expand_dims

    graph = graph_of(*(diagonals if isinstance(diagonals, (tuple, list)) else [diagonals]),
                     rhs)
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals, graph=graph)
        parts = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    elif diagonals_format == "sequence":
        parts = tuple(convert_to_tensor(d, graph=graph) for d in diagonals)
    elif diagonals_format == "matrix":
        compact = _from_matrix(convert_to_tensor(diagonals, graph=graph))
        parts = compact[..., 0, :], compact[..., 1, :], compact[..., 2, :]
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    superdiag, maindiag, subdiag = (expand_dims(p, -2) for p in parts)
    rhs = convert_to_tensor(rhs, dtype_hint=superdiag.dtype, graph=graph)
    op = graph.create_op("TridiagonalMatMul", [superdiag, maindiag, subdiag, rhs], {},
                         name=name or "TridiagonalMatMul")
    return op.outputs[0]


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None,
                     tol=None, name=None):
    """The eigenvalues (ascending; and with ``eigvals_only=False`` the eigenvectors, as
    columns) of the real symmetric tridiagonal matrix with diagonal ``alpha`` ``(n)`` and
    off-diagonal ``beta`` ``(n - 1)``, TF's ``tf.linalg.eigh_tridiagonal`` for real
    inputs.  ``select`` is TF's: ``'a'`` all, ``'i'`` the indices ``select_range[0] <= i
    <= select_range[1]``, ``'v'`` the values in ``(select_range[0], select_range[1]]``.

    TF bisects each eigenvalue to ``tol`` (default ``eps * |T|₂``) and finds the
    vectors by inverse iteration; this builds the dense matrix and calls
    SelfAdjointEigV2, so the values agree to that tolerance and each vector is TF's up
    to its sign.  ``tol`` is accepted and not needed."""
    from .array import pad
    from .array_composites import where
    from .masking import boolean_mask
    from .diagonals import matrix_diag
    from .elementwise import greater, less_equal, logical_and
    from .gather_options import gather
    from .linalg_factor import self_adjoint_eig
    from .sequence import range as range_

    with name_scope(name or "eigh_tridiagonal"):
        alpha = convert_to_tensor(alpha, name="alpha", graph=graph_of(alpha, beta))
        beta = convert_to_tensor(beta, name="beta", graph=alpha.graph)
        if alpha.dtype != beta.dtype:
            raise ValueError("'alpha' and 'beta' must have the same type.")
        if select not in ("a", "i", "v"):
            raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
        off = matrix_diag(beta)
        matrix = matrix_diag(alpha) + pad(off, [[0, 1], [1, 0]]) + pad(off, [[1, 0], [0, 1]])
        values, vectors = self_adjoint_eig(matrix)
        if select == "i":
            keep = range_(select_range[0], select_range[1] + 1)
            values, vectors = gather(values, keep), gather(vectors, keep, axis=1)
        elif select == "v":
            inside = logical_and(greater(values, select_range[0]),
                                 less_equal(values, select_range[1]))
            values = boolean_mask(values, inside)
            vectors = gather(vectors, where(inside)[:, 0], axis=1)
        return values if eigvals_only else (values, vectors)
