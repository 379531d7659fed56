"""Matrix functions TF writes in Python over other ops (``python/ops/linalg/
linalg_impl.py``), built here from the same ops so that values and gradients are TF's:

* ``pinv``: the Moore-Penrose pseudo-inverse from the thin SVD; singular values at or
  below ``rcond * max(s)`` count as zero.  TF's default ``rcond`` is ``10 * max(M, N) *
  eps`` of the dtype.
* ``matrix_rank``: the number of singular values above ``tol``, by default ``eps *
  max(M, N) * max(s)`` (NumPy's choice, as TF's).
* ``matrix_exponential`` (``tf.linalg.expm``): scaling and squaring with Pade
  approximants (Higham 2005), as TF: every approximant of the order list is built for
  the whole batch and ``where`` picks each matrix's by its 1-norm; the highest order is
  applied to the matrix divided by ``2**s``, then squared ``s`` times in a while loop
  (each matrix only while its own ``s`` lasts).  float32 uses orders 3, 5, 7, float64
  13 at most; a non-finite norm anywhere gives NaN everywhere, as TF's ``cond``.

The gradient of each comes from its parts (SVD, MatMul, MatrixSolve, while_loop).

    e = ds.linalg.expm(a)
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .common import graph_of

__all__ = ["pinv", "matrix_rank", "matrix_exponential"]


def _check_float_matrix(a: Tensor) -> None:
    """TF's ``_maybe_validate_matrix``: a float dtype and, when known, rank >= 2."""
    if not a.dtype.is_floating:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a.shape.ndims is not None and a.shape.ndims < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: "
                         f"{a.shape.ndims}).")


def _larger_side(a: Tensor, dtype):
    """``max(M, N)``: a Python float when both are known, else a tensor of ``dtype``."""
    from .array_fill import shape as shape_of
    from .elementwise import cast, maximum

    rows, columns = a.shape.dims[-2:] if a.shape.ndims is not None else (None, None)
    if rows is not None and columns is not None:
        return float(max(rows, columns))
    shape = shape_of(a)
    return cast(maximum(shape[-2], shape[-1]), dtype)


def matrix_rank(a, tol=None, validate_args=False, name=None) -> Tensor:
    """The rank of each matrix of ``a`` ``[..., M, N]`` (int32 ``[...]``): the
    singular values above ``tol`` (default ``eps * max(M, N) * max(s)``)."""
    from .elementwise import cast, greater, multiply
    from .linalg_factor import svd
    from .reduce import reduce_max, reduce_sum

    with name_scope(name or "matrix_rank"):
        a = convert_to_tensor(a, dtype_hint=dtypes.float32, name="a", graph=graph_of(a))
        _check_float_matrix(a)
        s = svd(a, compute_uv=False)
        if tol is None:
            eps = float(np.finfo(a.dtype.np).eps)
            side = _larger_side(a, a.dtype)
            scale = convert_to_tensor(eps * side, dtype=a.dtype, graph=a.graph) \
                if isinstance(side, float) else multiply(convert_to_tensor(
                    eps, dtype=a.dtype, graph=a.graph), side)
            tol = multiply(scale, reduce_max(s, axis=-1, keepdims=True))
        else:
            tol = convert_to_tensor(tol, dtype=a.dtype, name="tol", graph=a.graph)
        return reduce_sum(cast(greater(s, tol), dtypes.int32), axis=-1)


def pinv(a, rcond=None, validate_args=False, name=None) -> Tensor:
    """The pseudo-inverse ``[..., N, M]`` of each matrix of ``a`` ``[..., M, N]``:
    ``V diag(1/s) Uᵀ`` over the singular values above ``rcond * max(s)``."""
    from .array import expand_dims
    from .array_composites import where_v2
    from .elementwise import divide, greater, multiply
    from .linalg import matmul
    from .linalg_factor import svd
    from .reduce import reduce_max

    with name_scope(name or "pinv"):
        a = convert_to_tensor(a, name="a", graph=graph_of(a))
        _check_float_matrix(a)
        if rcond is None:
            side = _larger_side(a, a.dtype)
            eps = float(np.finfo(a.dtype.np).eps)
            rcond = 10.0 * side * eps if isinstance(side, float) else \
                multiply(convert_to_tensor(10.0 * eps, dtype=a.dtype, graph=a.graph), side)
        rcond = convert_to_tensor(rcond, dtype=a.dtype, name="rcond", graph=a.graph)
        s, u, v = svd(a, full_matrices=False, compute_uv=True)
        cutoff = multiply(rcond, reduce_max(s, axis=-1))
        s = where_v2(greater(s, expand_dims(cutoff, -1)), s,
                     convert_to_tensor(np.array(np.inf, a.dtype.np), graph=a.graph))
        result = matmul(divide(v, expand_dims(s, -2)), u, transpose_b=True)
        if a.shape.ndims is not None:
            dims = list(a.shape.dims)
            result.set_shape(dims[:-2] + [dims[-1], dims[-2]])
        return result


# The Pade approximants' coefficients (Higham's b), by order.
_PADE = {
    3: [120.0, 60.0, 12.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0],
    13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
         1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
         33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0],
}
# Per precision: (the largest norm for the top order, the norm bounds between orders,
# the orders).
_SCHEDULE = {
    "single": (3.925724783138660, (4.258730016922831e-001, 1.880152677804762e+000),
               (3, 5, 7)),
    "double": (5.371920351148152, (1.495585217958292e-002, 2.539398330063230e-001,
                                   9.504178996162932e-001, 2.097847961257068e+000),
               (3, 5, 7, 9, 13)),
}


def _pade(matrix: Tensor, order: int):
    """``(U, V)`` of the Pade approximant of ``order``: ``exp(A) ≈ (V - U)⁻¹ (V + U)``,
    the sums written in TF's order (so that rounding is TF's)."""
    from .array_fill import ones, shape as shape_of
    from .diagonals import matrix_diag
    from .linalg import matmul

    b = [convert_to_tensor(x, dtype=matrix.dtype, graph=matrix.graph)
         for x in _PADE[order]]
    ident = matrix_diag(ones(shape_of(matrix)[:-1], dtype=matrix.dtype))
    m2 = matmul(matrix, matrix)
    if order == 3:
        return matmul(matrix, m2 + b[1] * ident), b[2] * m2 + b[0] * ident
    m4 = matmul(m2, m2)
    if order == 5:
        return (matmul(matrix, m4 + b[3] * m2 + b[1] * ident),
                b[4] * m4 + b[2] * m2 + b[0] * ident)
    m6 = matmul(m4, m2)
    if order == 7:
        return (matmul(matrix, m6 + b[5] * m4 + b[3] * m2 + b[1] * ident),
                b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident)
    if order == 9:
        m8 = matmul(m6, m2)
        return (matmul(matrix, m8 + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * ident),
                b[8] * m8 + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident)
    tmp_u = (matmul(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + b[3] * m2
             + b[1] * ident)
    tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
    return (matmul(matrix, tmp_u),
            matmul(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident)


def matrix_exponential(input, name=None) -> Tensor:  # noqa: A002  (TF's names)
    """``exp`` of each square matrix of ``input`` ``[..., M, M]`` (TF's
    ``tf.linalg.expm``); see the module docstring for the method."""
    from .array import concat, reshape
    from .array_composites import where_v2
    from .array_fill import fill, shape as shape_of
    from .control_flow import cond, while_loop
    from .elementwise import (abs as abs_, cast, divide, floor, is_finite, less, log,
                              maximum, negative, pow as pow_)
    from .linalg_solve import matrix_solve
    from .reduce import reduce_max, reduce_sum

    with name_scope(name or "matrix_exponential"):
        matrix = convert_to_tensor(input, name="input", graph=graph_of(input))
        if matrix.shape.ndims is not None and tuple(matrix.shape.dims[-2:]) == (0, 0):
            return matrix
        if matrix.dtype in (dtypes.float16, dtypes.float32, dtypes.complex64):
            maxnorm, bounds, orders = _SCHEDULE["single"]
        elif matrix.dtype in (dtypes.float64, dtypes.complex128):
            maxnorm, bounds, orders = _SCHEDULE["double"]
        else:
            raise ValueError(f"tf.linalg.expm does not support matrices of type "
                             f"{matrix.dtype!r}")
        static_batch = matrix.shape[:-2] if matrix.shape.ndims is not None else None
        batch_shape = static_batch if static_batch is not None and \
            static_batch.is_fully_defined() else shape_of(matrix)[:-2]
        matrix = reshape(matrix, concat([[-1], shape_of(matrix)[-2:]], axis=0))
        l1_norm = reduce_max(reduce_sum(abs_(matrix), axis=1),
                             axis=-1)[..., None, None]      # TF's newaxis: no Reshape
        real = l1_norm.dtype

        def const(x):
            return convert_to_tensor(x, dtype=real, graph=matrix.graph)

        squarings = maximum(floor(divide(log(divide(l1_norm, const(maxnorm))),
                                         log(const(2.0)))), const(0.0))
        pairs = [_pade(matrix, k) for k in orders[:-1]]
        pairs.append(_pade(divide(matrix, cast(pow_(const(2.0), squarings), matrix.dtype)),
                           orders[-1]))

        def nest(cases, vals):
            if len(vals) == 1:
                return where_v2(less(l1_norm, const(vals[0])), cases[0], cases[1])
            return where_v2(less(l1_norm, const(vals[0])), cases[0],
                            nest(cases[1:], vals[1:]))

        u = nest([p[0] for p in pairs], bounds)
        v = nest([p[1] for p in pairs], bounds)
        finite = is_finite(reduce_max(l1_norm))
        nan = convert_to_tensor(np.array(np.nan, matrix.dtype.np), graph=matrix.graph)
        result = cond(finite, lambda: matrix_solve(negative(u) + v, u + v),
                      lambda: fill(shape_of(matrix), nan))
        max_squarings = reduce_max(squarings)

        def keep_going(i, _):
            return cond(finite, lambda: less(i, max_squarings),
                        lambda: convert_to_tensor(False, graph=matrix.graph))

        def square(i, r):
            from .linalg import matmul
            return i + 1, where_v2(less(i, squarings), matmul(r, r), r)

        _, result = while_loop(keep_going, square, [const(0.0), result])
        if isinstance(batch_shape, Tensor):
            return reshape(result, concat([batch_shape, shape_of(result)[-2:]], axis=0))
        return reshape(result, batch_shape.concatenate(result.shape[-2:]).as_list())
