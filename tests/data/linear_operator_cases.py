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
    "perm": np.array([2, 0, 3, 1], np.int32),
    "perm_batch": np.array([[1, 0, 2], [2, 1, 0]], np.int32),
    "hh": _r(4),
    "toep_col": np.array([4.0, 1.0, -0.5, 0.25]),
    "toep_row": np.array([4.0, 2.0, 0.5, -1.0]),
    "tri_super": np.array([1.0, -0.5, 0.25, 0.0]),
    "tri_diag": np.array([4.0, 5.0, 3.0, 6.0]),
    "tri_sub": np.array([0.0, 0.5, -1.0, 2.0]),
    "circ": np.array([4.0, 1.0, -0.5, 0.25, 1.0]),
    "circ_spectrum": np.abs(_r(2, 5)) + 0.5,
    "circ_complex": (_r(3) + 1j * _r(3) + 2).astype(np.complex64),
    "circ2d": _r(2, 3) + np.array([[4.0, 0, 0], [0, 0, 0]]),
    "circ3d": np.abs(_r(2, 2, 2)) + 1.0,
    "diag_c": _r(3) + 2 + 1j * _r(3),
    "bl21": _r(3, 2),
    "bl31": _r(3, 2),
    "bl32": _r(3, 3),
}
RHS = {w: _r(12, w) for w in (1, 2, 3)}
RHS32 = {w: v.astype(np.float32) for w, v in RHS.items()}
# complex dense matrices, drawn after the others (whose draws stay the same)
A.update({
    "full_c": _well(3, 3) + 1j * _r(3, 3),
    "full_c64": (_well(3, 3) + 1j * _r(3, 3)).astype(np.complex64),
    "spd_c": (lambda x: x @ x.conj().T + 3 * np.eye(3))(_r(3, 3) + 1j * _r(3, 3)),
    "tril_c": _well(3, 3) - 1j * _r(3, 3),
})


def operators(tf):
    """{case: (operator, its dimension)}; each case's right-hand sides are the first
    ``n`` rows of a fixed ``[12, w]`` array."""
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
    ops.update({
        "kronecker": la.LinearOperatorKronecker([
            la.LinearOperatorFullMatrix(c["k1"]), la.LinearOperatorFullMatrix(c["k2"])]),
        "kronecker_pd": la.LinearOperatorKronecker([ops["diag_pos"], ops["spd"]]),
        "block_diag": la.LinearOperatorBlockDiag([
            la.LinearOperatorFullMatrix(c["b1"]), la.LinearOperatorFullMatrix(c["b2"])]),
        "block_diag_batch": la.LinearOperatorBlockDiag([ops["diag_batch"], ops["tril"]]),
        "low_rank": la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(c["lr_diag"]),
                                                   c["u"], v=c["v"]),
        "low_rank_pd": la.LinearOperatorLowRankUpdate(
            la.LinearOperatorDiag(c["lr_diag"], is_positive_definite=True), c["u"],
            diag_update=c["lr_diag"][:2], is_diag_update_positive=True),
        "low_rank_identity": la.LinearOperatorLowRankUpdate(
            la.LinearOperatorIdentity(4, dtype=tf.float64), c["u"]),
        "permutation": la.LinearOperatorPermutation(c["perm"], dtype=tf.float64),
        "permutation_batch": la.LinearOperatorPermutation(c["perm_batch"],
                                                          dtype=tf.float64),
        "householder": la.LinearOperatorHouseholder(c["hh"]),
        "toeplitz": la.LinearOperatorToeplitz(c["toep_col"], c["toep_row"]),
        "toeplitz_sym": la.LinearOperatorToeplitz(c["toep_col"], c["toep_col"],
                                                  is_self_adjoint=True),
        "tridiag": la.LinearOperatorTridiag(
            tf.stack([c["tri_super"], c["tri_diag"], c["tri_sub"]])),
        "tridiag_sequence": la.LinearOperatorTridiag(
            [c["tri_super"], c["tri_diag"], c["tri_sub"]], diagonals_format="sequence"),
        "tridiag_matrix": la.LinearOperatorTridiag(
            tf.linalg.diag(c["tri_diag"]) + tf.linalg.diag(c["tri_sub"][1:], k=-1)
            + tf.linalg.diag(c["tri_super"][:-1], k=1), diagonals_format="matrix"),
    })
    kernel = tf.constant(A["circ"])
    ops.update({
        "circulant": la.LinearOperatorCirculant(
            tf.signal.fft(tf.cast(kernel, tf.complex128)), input_output_dtype=tf.float64),
        "circulant_real": la.LinearOperatorCirculant(
            tf.constant(A["circ_spectrum"]), input_output_dtype=tf.float64,
            is_positive_definite=True),
        "circulant_complex": la.LinearOperatorCirculant(
            tf.constant(A["circ_complex"])),
        "circulant_2d": la.LinearOperatorCirculant2D(
            tf.signal.fft2d(tf.cast(tf.constant(A["circ2d"]), tf.complex128)),
            input_output_dtype=tf.float64),
        "circulant_3d": la.LinearOperatorCirculant3D(
            tf.constant(A["circ3d"]), input_output_dtype=tf.float64,
            is_positive_definite=True),
    })
    ops["block_lower"] = la.LinearOperatorBlockLowerTriangular([
        [la.LinearOperatorFullMatrix(c["b1"])],
        [la.LinearOperatorFullMatrix(c["bl21"]), la.LinearOperatorFullMatrix(c["b2"])],
        [la.LinearOperatorFullMatrix(c["bl31"]), la.LinearOperatorFullMatrix(c["bl32"]),
         ops["diag_batch"]]])
    ops["block_lower_pd"] = la.LinearOperatorBlockLowerTriangular([
        [ops["diag_pos"]], [la.LinearOperatorFullMatrix(c["full"]), ops["spd"]]])
    # complex operators: diagonals, scaled identities, dense ones (solves, determinants,
    # adjoints, Cholesky and eigenvalues of a Hermitian one, compositions with .H)
    ops["diag_complex"] = la.LinearOperatorDiag(c["diag_c"])
    ops["scaled_complex"] = la.LinearOperatorScaledIdentity(3, c["diag_c"][:2])
    ops["full_complex"] = la.LinearOperatorFullMatrix(c["full_c"])
    ops["full_complex64"] = la.LinearOperatorFullMatrix(c["full_c64"])
    ops["hermitian_complex"] = la.LinearOperatorFullMatrix(
        c["spd_c"], is_self_adjoint=True, is_positive_definite=True)
    ops["tril_complex"] = la.LinearOperatorLowerTriangular(c["tril_c"])
    ops["aah_complex"] = la.LinearOperatorComposition([ops["full_complex"],
                                                       ops["full_complex"].H])
    ops["adjoint_complex"] = la.LinearOperatorAdjoint(ops["full_complex"])
    # batch slices (op[...]): parameters broadcast along an axis keep index 0
    ops["slice_full"] = ops["full_batch"][1]
    ops["slice_diag"] = ops["diag_batch"][:, 0]
    ops["slice_composition"] = la.LinearOperatorComposition(
        [ops["full_batch"], ops["diag_batch"]])[1:, 1]
    ops["slice_identity"] = ops["identity_batch"][:1]
    ops["slice_scaled"] = ops["scaled"][::-1]
    ops["slice_circulant"] = ops["circulant_real"][1]
    ops["slice_low_rank"] = la.LinearOperatorLowRankUpdate(
        ops["diag_batch"], c["u"][:3], v=c["v"][:3])[1, ...]
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
    if op.dtype == tf.complex128:
        table = {w: v + 0.5j * v[::-1] for w, v in RHS.items()}
    if op.dtype == tf.complex64:
        table = {w: (v + 0.5j * v[::-1]).astype(np.complex64) for w, v in RHS.items()}
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
        out["cond"] = op.cond()
    if op.is_self_adjoint:
        out["eigvals"] = op.eigvals()
    if name in ("block_diag", "block_lower"):
        out.update(_blockwise_calls(tf, op))
    if op.is_self_adjoint and op.is_positive_definite:
        out["cholesky_dense"] = op.cholesky().to_dense()
    return out


def _blockwise_calls(tf, op):
    """The list-of-blocks forms of a block operator's products and solves."""
    diagonal = [row[-1] if isinstance(row, list) else row for row in op.operators]
    sizes = [d.domain_dimension for d in diagonal]
    sizes = [s.value if hasattr(s, "value") else s for s in sizes]
    blocks = [tf.constant(RHS[2][:s] * (k + 1)) for k, s in enumerate(sizes)]
    vectors = [tf.constant(RHS[1][:s, 0] - k) for k, s in enumerate(sizes)]
    transposed = [tf.constant(RHS[2][:s].T.copy()) for s in sizes]
    calls = {"matmul_blocks": op.matmul(blocks), "solve_blocks": op.solve(blocks),
             "solve_adjoint_blocks": op.solve(blocks, adjoint=True),
             "matmul_adjoint_arg_blocks": op.matmul(transposed, adjoint_arg=True),
             "matvec_blocks": op.matvec(vectors), "solvevec_blocks": op.solvevec(vectors)}
    return {f"{key}_{k}": part for key, parts in calls.items()
            for k, part in enumerate(parts)}


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
    if op.is_square:
        facts["matmul_class"] = type(op.matmul(op)).__name__
    if op.is_self_adjoint and op.is_positive_definite:
        facts["cholesky_class"] = type(op.cholesky()).__name__
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
    "kronecker_empty": lambda tf: tf.linalg.LinearOperatorKronecker([]),
    "kronecker_hint": lambda tf: tf.linalg.LinearOperatorKronecker(
        [tf.linalg.LinearOperatorDiag(tf.constant(A["diag"]))], is_self_adjoint=False),
    "block_diag_empty": lambda tf: tf.linalg.LinearOperatorBlockDiag([]),
    "block_diag_dtype": lambda tf: tf.linalg.LinearOperatorBlockDiag([
        tf.linalg.LinearOperatorDiag(tf.constant([1.0], tf.float32)),
        tf.linalg.LinearOperatorDiag(tf.constant([1.0], tf.float64))]),
    "low_rank_not_positive": lambda tf: tf.linalg.LinearOperatorLowRankUpdate(
        tf.linalg.LinearOperatorDiag(tf.constant(A["lr_diag"])), tf.constant(A["u"]),
        is_diag_update_positive=False),
    "low_rank_not_self_adjoint": lambda tf: tf.linalg.LinearOperatorLowRankUpdate(
        tf.linalg.LinearOperatorDiag(tf.constant(A["lr_diag"])), tf.constant(A["u"]),
        is_self_adjoint=False),
    "low_rank_not_pd": lambda tf: tf.linalg.LinearOperatorLowRankUpdate(
        tf.linalg.LinearOperatorDiag(tf.constant(A["lr_diag"]), is_positive_definite=True),
        tf.constant(A["u"]), is_positive_definite=False),
    "low_rank_dims": lambda tf: tf.linalg.LinearOperatorLowRankUpdate(
        tf.linalg.LinearOperatorDiag(tf.constant(A["diag"])), tf.constant(A["u"])),
    "permutation_float": lambda tf: tf.linalg.LinearOperatorPermutation(
        tf.constant([0.0, 1.0])),
    "permutation_repeated": lambda tf: tf.linalg.LinearOperatorPermutation(
        tf.constant([0, 0, 2])),
    "permutation_singular": lambda tf: tf.linalg.LinearOperatorPermutation(
        tf.constant([1, 0]), is_non_singular=False),
    "householder_pd": lambda tf: tf.linalg.LinearOperatorHouseholder(
        tf.constant(A["hh"]), is_positive_definite=True),
    "householder_not_self_adjoint": lambda tf: tf.linalg.LinearOperatorHouseholder(
        tf.constant(A["hh"]), is_self_adjoint=False),
    "toeplitz_mismatch": lambda tf: tf.linalg.LinearOperatorToeplitz(
        tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])),
    "toeplitz_not_square": lambda tf: tf.linalg.LinearOperatorToeplitz(
        tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]), is_square=False),
    "tridiag_format": lambda tf: tf.linalg.LinearOperatorTridiag(
        tf.constant(A["full"]), diagonals_format="banded"),
    "circulant_not_square": lambda tf: tf.linalg.LinearOperatorCirculant(
        tf.constant(A["circ_spectrum"][0]), is_square=False),
    "circulant_real_not_self_adjoint": lambda tf: tf.linalg.LinearOperatorCirculant(
        tf.constant(A["circ_spectrum"][0]), is_self_adjoint=False),
    "circulant_2d_rank": lambda tf: tf.linalg.LinearOperatorCirculant2D(
        tf.constant(A["circ_spectrum"][0], name="spec")),
    "block_lower_row_length": lambda tf: tf.linalg.LinearOperatorBlockLowerTriangular([
        [tf.linalg.LinearOperatorDiag(tf.constant(A["diag"]))],
        [tf.linalg.LinearOperatorDiag(tf.constant(A["diag"]))]]),
    "block_lower_dims": lambda tf: tf.linalg.LinearOperatorBlockLowerTriangular([
        [tf.linalg.LinearOperatorDiag(tf.constant(A["diag"]))],
        [tf.linalg.LinearOperatorFullMatrix(tf.constant(A["bl21"])),
         tf.linalg.LinearOperatorDiag(tf.constant(A["diag"]))]]),
    "block_lower_not_square": lambda tf: tf.linalg.LinearOperatorBlockLowerTriangular(
        [[tf.linalg.LinearOperatorDiag(tf.constant(A["diag"]))]], is_square=False),
    "blockwise_ambiguous": lambda tf: tf.linalg.LinearOperatorBlockDiag([
        tf.linalg.LinearOperatorDiag(tf.constant(A["diag"])),
        tf.linalg.LinearOperatorDiag(tf.constant(A["diag"]))]).matmul(
            [[[1.0], [2.0]], [[1.0], [2.0]]]),
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
    "toeplitz_not_self_adjoint": lambda tf: tf.linalg.LinearOperatorToeplitz(
        tf.constant(A["toep_col"]), tf.constant(A["toep_row"])).assert_self_adjoint(),
    "full_ok": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        tf.constant(A["spd"]), is_self_adjoint=True,
        is_positive_definite=True).assert_non_singular(),
}
