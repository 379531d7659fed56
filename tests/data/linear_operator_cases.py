"""The cases of tests/test_linear_operators.py, written once against a TF1 module:
the recorder (make_linear_operators.py) passes ``tensorflow.compat.v1`` and records
TF 2.21's values in linear_operators.npz and the static facts (shapes, hints, the
classes ``adjoint()``/``inverse()``/products return) and build-time errors in
linear_operators.json; the test passes ``devsession`` and compares.

``operators(tf)`` is ``{case: (operator, rhs width)}`` over constants of a fixed
seed's arrays; ``probe`` lists the methods each case is asked; ``ERRORS`` are
constructions and calls that raise at build time (class and message recorded).
"""

import numpy as np

rng = np.random.default_rng(20261206)


def _r(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def _spd(*shape):
    x = rng.standard_normal(shape)
    return np.einsum("...ij,...kj->...ik", x, x) + shape[-1] * np.eye(shape[-1])


def _well(*shape, dtype=np.float64):
    return (rng.standard_normal(shape) + 3 * np.eye(shape[-1])).astype(dtype)


A = {
    "full": _well(3, 3),
    "full_batch": _well(2, 3, 3),
    "full32": _well(4, 4, dtype=np.float32),
    "full_rect": _r(3, 2),
    "spd": _spd(3, 3),
    "diag": np.array([1.5, -2.0, 0.5]),
    "diag_batch": _r(2, 1, 3) + 3.0,
    "diag_pos": np.abs(_r(3)) + 0.5,
    "tril": _well(3, 3),
    "tril_batch": _well(2, 4, 4),
    "scale": np.array([2.0, -0.5]),
    "one": np.array([[2.5]]),
    "u": _r(4, 2),
    "v": _r(4, 2),
    "lr_diag": np.abs(_r(4)) + 1.0,
    "k1": _well(2, 2),
    "k2": _well(3, 3),
    "b1": _well(2, 2),
    "b2": _well(3, 3),
    "perm": np.array([2, 0, 3, 1]),
    "perm_batch": np.array([[1, 0, 2], [2, 1, 0]]),
    "hh": _r(4),
    "toep_col": np.array([4.0, 1.0, -0.5, 0.25]),
    "toep_row": np.array([4.0, 2.0, 0.5, -1.0]),
    "tri_super": np.array([1.0, -0.5, 0.25, 0.0]),
    "tri_diag": np.array([4.0, 5.0, 3.0, 6.0]),
    "tri_sub": np.array([0.0, 0.5, -1.0, 2.0]),
    "circ": np.array([4.0, 1.0, -0.5, 0.25, 1.0]),
}
RHS = {w: _r(5, w) for w in (1, 2, 3, 4, 5, 6, 9, 12)}
RHS32 = {w: v.astype(np.float32) for w, v in RHS.items()}


def operators(tf):
    """{case: (operator, its dimension)}; each case's right-hand sides are the first
    ``n`` rows of a fixed ``[5, w]`` array."""
    c = {k: tf.constant(v) for k, v in A.items()}
    la = tf.linalg
    ops = {
        "full": la.LinearOperatorFullMatrix(c["full"]),
        "full_batch": la.LinearOperatorFullMatrix(c["full_batch"], is_square=True),
        "full32": la.LinearOperatorFullMatrix(c["full32"]),
        "full_rect": la.LinearOperatorFullMatrix(c["full_rect"]),
        "spd": la.LinearOperatorFullMatrix(c["spd"], is_self_adjoint=True,
                                           is_positive_definite=True),
        "diag": la.LinearOperatorDiag(c["diag"]),
        "diag_batch": la.LinearOperatorDiag(c["diag_batch"], is_non_singular=True),
        "diag_pos": la.LinearOperatorDiag(c["diag_pos"], is_positive_definite=True),
        "tril": la.LinearOperatorLowerTriangular(c["tril"]),
        "tril_batch": la.LinearOperatorLowerTriangular(c["tril_batch"]),
        "identity": la.LinearOperatorIdentity(3, dtype=tf.float64),
        "identity_batch": la.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.float64),
        "identity_0": la.LinearOperatorIdentity(0, dtype=tf.float64),
        "scaled": la.LinearOperatorScaledIdentity(3, c["scale"]),
        "scaled_pd": la.LinearOperatorScaledIdentity(3, tf.constant(2.0, tf.float64),
                                                     is_positive_definite=True),
        "zeros": la.LinearOperatorZeros(3, dtype=tf.float64),
        "zeros_rect": la.LinearOperatorZeros(3, 2, batch_shape=[2], dtype=tf.float64,
                                             is_square=False, is_self_adjoint=False),
        "one": la.LinearOperatorFullMatrix(c["one"]),
    }
    ops["adjoint"] = la.LinearOperatorAdjoint(ops["full"])
    ops["inversion"] = la.LinearOperatorInversion(ops["tril"])
    ops["composition"] = la.LinearOperatorComposition([ops["full_batch"], ops["diag"]])
    ops["aat"] = la.LinearOperatorComposition([ops["full"], ops["full"].H])
    ops["matmul_op"] = ops["diag"] @ ops["full"]
    ops["solve_op"] = ops["tril"].solve(ops["full"])
    ops["scaled_inverse"] = ops["scaled"].inverse()
    ops["diag_inverse"] = ops["diag"].inverse()
    ops["spd_cholesky"] = ops["spd"].cholesky()
    return ops


def _rhs(tf, op, width):
    n = op.domain_dimension.value if hasattr(op.domain_dimension, "value") else \
        op.domain_dimension
    m = op.range_dimension.value if hasattr(op.range_dimension, "value") else \
        op.range_dimension
    table = RHS32 if op.dtype == tf.float32 else RHS
    return (tf.constant(table[width][:n]), tf.constant(table[width][:m]),
            tf.constant(table[width][:n].T), tf.constant(table[width][:n, 0]),
            tf.constant(table[width][:m, 0]))


def probe(tf, name, op):
    """{fetch name: tensor} of what each operator is asked."""
    x, y, xt, xv, yv = _rhs(tf, op, 2)
    out = {"to_dense": op.to_dense(), "matmul": op.matmul(x),
           "matmul_adjoint": op.matmul(y, adjoint=True),
           "matmul_adjoint_arg": op.matmul(xt, adjoint_arg=True),
           "matvec": op.matvec(xv), "matvec_adjoint": op.matvec(yv, adjoint=True),
           "diag_part": op.diag_part(), "shape_tensor": op.shape_tensor(),
           "batch_shape_tensor": op.batch_shape_tensor(),
           "domain_dimension_tensor": op.domain_dimension_tensor(),
           "range_dimension_tensor": op.range_dimension_tensor(),
           "tensor_rank_tensor": op.tensor_rank_tensor(),
           "adjoint_dense": op.adjoint().to_dense()}
    if op.is_square:
        out["trace"] = op.trace()
        out["add_to_tensor"] = op.add_to_tensor(op.to_dense() * 0.5 + 1.0)
        out["matmul_operator"] = op.matmul(op).to_dense()
        if op.is_non_singular is not False:
            out["determinant"] = op.determinant()
            out["log_abs_determinant"] = op.log_abs_determinant()
    if op.is_square and op.is_non_singular is not False \
            and name not in ("zeros", "identity_0"):
        out["solve"] = op.solve(x)
        out["solve_adjoint"] = op.solve(x, adjoint=True)
        out["solve_adjoint_arg"] = op.solve(xt, adjoint_arg=True)
        out["solvevec"] = op.solvevec(xv)
        out["inverse_dense"] = op.inverse().to_dense()
    if op.is_self_adjoint:
        out["eigvals"] = op.eigvals()
    if op.is_self_adjoint and op.is_positive_definite:
        out["cholesky_dense"] = op.cholesky().to_dense()
    return out


def facts(tf, name, op):
    """The static facts of an operator, JSON-able."""
    def dims(shape):
        return None if shape.ndims is None else [
            d.value if hasattr(d, "value") else d for d in
            (shape.dims if hasattr(shape, "dims") else shape)]

    def value(d):
        return d.value if hasattr(d, "value") else d

    facts = {"shape": dims(op.shape), "batch_shape": dims(op.batch_shape),
             "domain_dimension": value(op.domain_dimension),
             "range_dimension": value(op.range_dimension),
             "tensor_rank": op.tensor_rank, "dtype": op.dtype.name,
             "is_square": op.is_square, "is_non_singular": op.is_non_singular,
             "is_self_adjoint": op.is_self_adjoint,
             "is_positive_definite": op.is_positive_definite,
             "name": op.name, "class": type(op).__name__,
             "adjoint_class": type(op.adjoint()).__name__}
    if op.is_square and op.is_non_singular is not False:
        facts["inverse_class"] = type(op.inverse()).__name__
    return facts


def gradient_case(tf, matrix, rhs):
    """A loss through a full operator's matmul and solve, for the gradient check."""
    op = tf.linalg.LinearOperatorFullMatrix(matrix)
    return tf.reduce_sum(op.matmul(rhs) * 0.5 + op.solve(rhs) ** 2)


ERRORS = {
    "pd_singular": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"]), is_positive_definite=True, is_non_singular=False),
    "nonsingular_not_square": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"]), is_non_singular=True, is_square=False),
    "self_adjoint_not_square": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"]), is_self_adjoint=True, is_square=False),
    "square_hint_false": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"]), is_square=False).is_square,
    "full_int": lambda tf: tf.linalg.LinearOperatorFullMatrix(tf.constant([[1, 2]])),
    "full_rank1": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant([1.0, 2.0], name="vec")),
    "diag_scalar": lambda tf: tf.linalg.LinearOperatorDiag(
        tf.constant(1.0, name="s")),
    "diag_not_self_adjoint": lambda tf: tf.linalg.LinearOperatorDiag(
        tf.constant(A["diag"]), is_self_adjoint=False),
    "diag_not_square": lambda tf: tf.linalg.LinearOperatorDiag(
        tf.constant(A["diag"]), is_square=False),
    "tril_not_square": lambda tf: tf.linalg.LinearOperatorLowerTriangular(
        tf.constant(A["tril"]), is_square=False),
    "identity_not_pd": lambda tf: tf.linalg.LinearOperatorIdentity(
        3, is_positive_definite=False),
    "identity_negative": lambda tf: tf.linalg.LinearOperatorIdentity(-1),
    "identity_float_rows": lambda tf: tf.linalg.LinearOperatorIdentity(2.5),
    "identity_matrix_rows": lambda tf: tf.linalg.LinearOperatorIdentity([2, 3]),
    "identity_batch_2d": lambda tf: tf.linalg.LinearOperatorIdentity(
        2, batch_shape=[[2]]),
    "scaled_not_square": lambda tf: tf.linalg.LinearOperatorScaledIdentity(
        2, tf.constant(1.0), is_square=False),
    "zeros_singular": lambda tf: tf.linalg.LinearOperatorZeros(2, is_non_singular=True),
    "zeros_rect_square": lambda tf: tf.linalg.LinearOperatorZeros(2, 3),
    "zeros_rect_self_adjoint": lambda tf: tf.linalg.LinearOperatorZeros(
        2, 3, is_square=False),
    "matmul_dtype": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"])).matmul(tf.constant(RHS32[2][:3])),
    "matmul_dims": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"])).matmul(tf.constant(RHS[2][:4])),
    "operator_dims": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"])).matmul(tf.linalg.LinearOperatorDiag(
            tf.constant(A["lr_diag"]))),
    "solve_rect": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full_rect"])).solve(tf.constant(RHS[2][:3])),
    "det_rect": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full_rect"])).determinant(),
    "inverse_rect": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full_rect"])).inverse(),
    "inverse_singular": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"]), is_non_singular=False).inverse(),
    "cholesky_not_pd": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"])).cholesky(),
    "eigvals_not_self_adjoint": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"])).eigvals(),
    "solve_singular": lambda tf: tf.linalg.LinearOperatorZeros(2).solve(
        tf.ones([2, 1])),
    "composition_empty": lambda tf: tf.linalg.LinearOperatorComposition([]),
    "composition_dtype": lambda tf: tf.linalg.LinearOperatorComposition([
        tf.linalg.LinearOperatorDiag(tf.constant([1.0], tf.float32)),
        tf.linalg.LinearOperatorDiag(tf.constant([1.0], tf.float64))]),
    "adjoint_contradicts": lambda tf: tf.linalg.LinearOperatorAdjoint(
        tf.linalg.LinearOperatorDiag(tf.constant(A["diag"])), is_self_adjoint=False),
    "inversion_singular": lambda tf: tf.linalg.LinearOperatorInversion(
        tf.linalg.LinearOperatorZeros(2)),
}

# Run-time checks: (case, method) whose run is TF's InvalidArgumentError.
ASSERTS = {
    "diag_singular": lambda tf: tf.linalg.LinearOperatorDiag(
        tf.constant([1.0, 0.0])).assert_non_singular(),
    "diag_not_pd": lambda tf: tf.linalg.LinearOperatorDiag(
        tf.constant([1.0, -1.0])).assert_positive_definite(),
    "full_not_self_adjoint": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["full"])).assert_self_adjoint(),
    "full_singular": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant([[1.0, 2.0], [2.0, 4.0]])).assert_non_singular(),
    "spd_not_pd": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant([[1.0, 2.0], [2.0, 1.0]]), is_self_adjoint=True,
    ).assert_positive_definite(),
    "tril_singular": lambda tf: tf.linalg.LinearOperatorLowerTriangular(
        tf.constant([[1.0, 0.0], [2.0, 0.0]])).assert_non_singular(),
    "scaled_singular": lambda tf: tf.linalg.LinearOperatorScaledIdentity(
        2, tf.constant(0.0)).assert_non_singular(),
    "full_ok": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["spd"]), is_self_adjoint=True,
        is_positive_definite=True).assert_non_singular(),
}
