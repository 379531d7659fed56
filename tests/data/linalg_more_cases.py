"""The cases of tests/test_linalg_more.py, written once against a TF1 module: the
recorder (make_linalg_more.py) passes ``tensorflow.compat.v1`` and records TF 2.21's
values in linalg_more.npz; the test passes ``devsession`` and compares.

``INPUTS`` are numpy arrays from a fixed seed; ``build(tf)`` returns ``{name: fetch}``
over constants of them (each fetch a tensor or a tuple of tensors); ``ERRORS`` are
cases whose run is TF's InvalidArgumentError, with the message's words.
"""

import numpy as np

rng = np.random.default_rng(7)


def _square(*shape):
    x = rng.standard_normal(shape)
    return x + 0.5 * np.eye(shape[-1])


INPUTS = {
    "a3": np.array([[1., 2, 3], [4, 5, 6], [7, 8, 9]]),
    "ties": np.array([[1., 2, 0], [-1, 3, 1], [1, 1, 1]]),     # equal magnitudes: first
    "batch": _square(2, 3, 4, 4),
    "one": np.array([[-2.5]]),
    "empty": np.zeros((2, 0, 0)),
    "big": _square(20, 20),                                     # past Eigen's block size
    "complex": _square(3, 3) + 1j * _square(3, 3),
    "rhs": rng.standard_normal((2, 3, 4, 2)),
    "rhs2": rng.standard_normal((4, 3)),
    "rhs_b": rng.standard_normal((5, 4, 2)),
    "perm_rhs": rng.standard_normal((3, 2)),
    # expm: one matrix per Pade order of float64 (1-norms about 0.01 to 40, the last
    # squared several times) and of float32
    "expm": np.stack([rng.standard_normal((3, 3)) * s / 3 for s in
                      (0.01, 0.2, 0.8, 1.8, 40.0)]),
    "expm32": np.stack([rng.standard_normal((3, 3)) * s / 3 for s in
                        (0.3, 1.5, 12.0)]).astype(np.float32),
    "tall": rng.standard_normal((2, 5, 3)),
    "rank_deficient": np.array([[1., 2, 3], [2, 4, 6], [1, 0, 1]]),
    "spd": np.einsum("bij,bkj->bik", *[rng.standard_normal((2, 3, 3))] * 2) + np.eye(3),
    "rotation": np.array([[0., -1], [1, 0]]),
    "weights": rng.standard_normal((5, 3, 3)),
}
INPUTS["tri"] = rng.standard_normal((2, 3, 6))                     # compact [..., 3, M]
INPUTS["tri"][1, 1, :2] = 0.0                       # zero pivots: the pivoting matters
INPUTS["tri_rhs"] = rng.standard_normal((2, 6, 2))
INPUTS["tri_dominant"] = INPUTS["tri"] + np.array([0., 8, 0])[:, None]
INPUTS["logm"] = INPUTS["spd"] + 1j * 0.3 * rng.standard_normal((2, 3, 3))


def build(tf):
    c = {k: tf.constant(v) for k, v in INPUTS.items()}
    f32 = tf.constant(INPUTS["batch"].astype(np.float32))
    out = {}
    for key in ("a3", "ties", "batch", "one", "empty", "big", "complex"):
        out[f"lu_{key}"] = tuple(tf.linalg.lu(c[key]))
    out["lu_f32"] = tuple(tf.linalg.lu(f32))
    out["lu_int64"] = tuple(tf.linalg.lu(c["batch"], output_idx_type=tf.int64))
    lu, p = tf.linalg.lu(c["batch"])
    out["lu_solve"] = tf.linalg.lu_solve(lu, p, c["rhs"])
    out["lu_reconstruct"] = tf.linalg.lu_reconstruct(lu, p)
    out["lu_matrix_inverse"] = tf.linalg.lu_matrix_inverse(lu, p)
    lu32, p32 = tf.linalg.lu(f32)
    out["lu_solve_f32"] = tf.linalg.lu_solve(lu32, p32, tf.constant(
        INPUTS["rhs"].astype(np.float32)))
    single_lu, single_p = tf.linalg.lu(c["batch"][0, 0])
    out["lu_solve_2d"] = tf.linalg.lu_solve(single_lu, single_p, c["rhs2"])
    out["lu_solve_broadcast"] = tf.linalg.lu_solve(single_lu, single_p, c["rhs_b"])
    out["lu_reconstruct_2d"] = tf.linalg.lu_reconstruct(single_lu, single_p)
    out["lu_matrix_inverse_2d"] = tf.linalg.lu_matrix_inverse(single_lu, single_p)
    one_lu, one_p = tf.linalg.lu(c["one"])
    out["lu_inverse_one"] = tf.linalg.lu_matrix_inverse(one_lu, one_p)
    three_lu, three_p = tf.linalg.lu(c["ties"])
    out["lu_solve_ties"] = tf.linalg.lu_solve(three_lu, three_p, c["perm_rhs"])
    out["lu_reconstruct_ties"] = tf.linalg.lu_reconstruct(three_lu, three_p)
    out.update(_functions(tf, c))
    out.update(_tridiagonal(tf, c))
    out.update(_eigh_tridiagonal(tf))
    return out


def _eigh_tridiagonal(tf):
    """eigh_tridiagonal's eigenvalues by each ``select``, and its eigenvectors' absolute
    values (their signs are each algorithm's own)."""
    alpha = tf.constant(np.array([2.0, -1.0, 0.5, 3.0, 1.0]))
    beta = tf.constant(np.array([1.0, 0.3, -2.0, 0.7]))
    eig = tf.linalg.eigh_tridiagonal
    values, vectors = eig(alpha, beta, eigvals_only=False)
    return {"eigh_tri": eig(alpha, beta),
            "eigh_tri_f32": eig(tf.cast(alpha, tf.float32), tf.cast(beta, tf.float32)),
            "eigh_tri_index": eig(alpha, beta, select="i", select_range=[1, 3]),
            "eigh_tri_value": eig(alpha, beta, select="v", select_range=[-1.0, 2.5]),
            "eigh_tri_one": eig(tf.constant([4.0]), tf.zeros([0])),
            "eigh_tri_vectors": (values, tf.abs(vectors))}


def _tridiagonal(tf, c):
    """tridiagonal_solve and tridiagonal_matmul in their formats, and their gradients."""
    out = {}
    tri, rhs, dominant = c["tri"], c["tri_rhs"], c["tri_dominant"]
    solve, matmul = tf.linalg.tridiagonal_solve, tf.linalg.tridiagonal_matmul
    out["tri_solve"] = solve(tri, rhs)
    out["tri_solve_no_pivoting"] = solve(dominant, rhs, partial_pivoting=False)
    out["tri_solve_vector"] = solve(tri, rhs[..., 0])
    out["tri_solve_transpose"] = solve(tri, tf.linalg.matrix_transpose(rhs),
                                       transpose_rhs=True)
    sequence = [tri[..., 0, :], tri[..., 1, :], tri[..., 2, :]]
    out["tri_solve_sequence"] = solve(sequence, rhs, diagonals_format="sequence")
    out["tri_solve_short"] = solve([tri[..., 0, :-1], tri[..., 1, :], tri[..., 2, 1:]], rhs,
                                   diagonals_format="sequence")
    full = tf.constant(INPUTS["batch"][0])
    out["tri_solve_matrix"] = solve(full, c["rhs"][0], diagonals_format="matrix")
    out["tri_solve_singular"] = solve(tf.zeros([3, 3], tf.float64),
                                      tf.ones([3, 1], tf.float64))
    out["tri_solve_one"] = solve(tf.constant([[5.0], [2.0], [7.0]]), tf.ones([1, 2]))
    out["tri_solve_f32"] = solve(tf.cast(dominant, tf.float32), tf.cast(rhs, tf.float32))
    singular = tf.constant(np.array([[[1., 0], [1, 1], [0, 1]], [[2., 0], [1, 4], [0, 2]],
                                     [[0., 0], [0, 3], [0, 0]], [[0., 0], [0, 0], [0, 0]]]))
    perturbed = {"tri_perturb": (tri, rhs), "tri_perturb_singular": (singular, tf.ones([4, 2, 2], tf.float64)),
                 "tri_perturb_one": (tf.zeros([3, 1], tf.float64), rhs[0, :1])}
    for key, (d, r) in perturbed.items():
        out[key] = solve(d, r, perturb_singular=True)
        out[key + "_f32"] = solve(tf.cast(d, tf.float32), tf.cast(r, tf.float32),
                                  perturb_singular=True)
    # pivoting by scaled magnitudes swaps here where plain magnitudes would not
    scaled = np.array([[100., -0.499, 0], [1, 0.1, 1], [0, 0.5, 100]])
    out["tri_perturb_scaled"] = solve(tf.constant(scaled), tf.constant(np.ones((3, 1))),
                                      perturb_singular=True)
    out["tri_perturb_three"] = solve(tf.constant([[1., 1, 0], [1, 1, 1], [0, 1, 1]]),
                                     tf.ones([3, 2]), perturb_singular=True)
    out["tri_solve_empty"] = solve(tf.zeros([2, 3, 0], tf.float64), tf.zeros([2, 0, 3],
                                                                            tf.float64))
    out["tri_matmul_empty"] = matmul(tf.zeros([3, 0], tf.float64), tf.zeros([0, 2], tf.float64))
    out["tri_matmul_one"] = matmul(tf.constant([[5.0], [2.0], [7.0]]), tf.ones([1, 2]))
    out["tri_matmul"] = matmul(tri, rhs)
    out["tri_matmul_sequence"] = matmul(sequence, rhs, diagonals_format="sequence")
    out["tri_matmul_matrix"] = matmul(full, c["rhs"][0], diagonals_format="matrix")
    w = c["tri_rhs"][::-1]
    out["grad_tri_solve"] = tuple(tf.gradients(tf.reduce_sum(w * solve(dominant, rhs)),
                                               [dominant, rhs]))
    out["grad_tri_matmul"] = tuple(tf.gradients(tf.reduce_sum(w * matmul(tri, rhs)),
                                                [tri, rhs]))
    return out


def _functions(tf, c):
    """pinv, matrix_rank, expm, sqrtm, logm and the gradients TF gives them."""
    out = {}
    out["pinv"] = tf.linalg.pinv(c["tall"])
    out["pinv_wide"] = tf.linalg.pinv(tf.linalg.matrix_transpose(c["tall"]))
    out["pinv_deficient"] = tf.linalg.pinv(c["rank_deficient"])
    out["pinv_one"] = tf.linalg.pinv(c["one"])
    out["matrix_rank_one"] = tf.linalg.matrix_rank(c["one"])
    out["pinv_rcond"] = tf.linalg.pinv(c["tall"], rcond=0.5)
    out["pinv_f32"] = tf.linalg.pinv(tf.constant(INPUTS["tall"].astype(np.float32)))
    out["matrix_rank"] = tf.linalg.matrix_rank(c["tall"])
    out["matrix_rank_deficient"] = tf.linalg.matrix_rank(c["rank_deficient"])
    out["matrix_rank_tol"] = tf.linalg.matrix_rank(c["tall"], tol=1.0)
    out["expm"] = tf.linalg.expm(c["expm"])
    out["expm32"] = tf.linalg.expm(tf.constant(INPUTS["expm32"]))
    out["expm_one"] = tf.linalg.expm(c["one"])
    out["expm_empty"] = tf.linalg.expm(c["empty"])
    out["expm_batch"] = tf.linalg.expm(tf.reshape(c["expm"][:4], [2, 2, 3, 3]))
    out["expm_inf"] = tf.linalg.expm(tf.constant([[[np.inf, 0.], [0, 1]], [[1, 0], [0, 1]]]))
    out["sqrtm"] = tf.linalg.sqrtm(c["spd"])
    out["sqrtm_rotation"] = tf.linalg.sqrtm(c["rotation"])
    out["sqrtm_negative"] = tf.linalg.sqrtm(tf.constant([[-4., 0], [0, 9]]))
    out["sqrtm_zero"] = tf.linalg.sqrtm(tf.zeros([2, 2], tf.float64))
    out["sqrtm_f32"] = tf.linalg.sqrtm(tf.constant(INPUTS["spd"].astype(np.float32)))
    out["sqrtm_complex"] = tf.linalg.sqrtm(c["logm"])
    out["sqrtm_one"] = tf.linalg.sqrtm(tf.constant([[9.0]]))
    out["sqrtm_empty"] = tf.linalg.sqrtm(c["empty"])
    jordan = np.array([[4., 1, 0], [0, 4, 1], [0, 0, 4]])          # defective matrices
    out["sqrtm_jordan"] = tf.linalg.sqrtm(tf.constant(np.stack([jordan, jordan.T])))
    out["sqrtm_jordan_f32"] = tf.linalg.sqrtm(tf.constant(jordan.astype(np.float32)))
    out["logm_jordan"] = tf.linalg.logm(tf.constant(jordan / 2 + 0j))
    out["logm_jordan_c64"] = tf.linalg.logm(tf.constant((jordan / 2).astype(np.complex64)))
    out["matrix_square_root"] = tf.matrix_square_root(c["spd"])
    out["logm"] = tf.linalg.logm(c["logm"])
    out["logm_negative"] = tf.linalg.logm(tf.constant([[-4. + 0j, 0], [0, 9]]))
    out["logm_empty"] = tf.linalg.logm(tf.zeros([0, 2, 2], tf.complex64))
    w = c["weights"]
    x = c["expm"]
    out["grad_expm"] = tf.gradients(tf.reduce_sum(w * tf.linalg.expm(x)), x)[0]
    spd = c["spd"]
    out["grad_sqrtm"] = tf.gradients(tf.reduce_sum(w[:2] * tf.linalg.sqrtm(spd)), spd)[0]
    tall = c["tall"]
    out["grad_pinv"] = tf.gradients(tf.reduce_sum(w[:2, :, :3] * tf.linalg.pinv(
        tall)[..., :3]), tall)[0]
    return out


# name: (input, the words of TF's InvalidArgumentError)
ERRORS = {
    "singular": (np.array([[1., 2], [2, 4]]), "Input is not invertible."),
    "zero": (np.zeros((3, 3)), "Input is not invertible."),
    "nan": (np.array([[np.nan, 0.], [0, 2]]), "Input is not invertible."),
    "one_singular_of_batch": (np.array([[[1., 2], [3, 4]], [[1, 2], [2, 4]]]),
                              "Input is not invertible."),
    "not_square": (np.zeros((2, 3)), "Input matrix must be square."),
}


def build_error(tf, name):
    """The Lu of an error case, through a placeholder of unknown shape (so that a
    non-square matrix reaches the kernel) and the feed."""
    value = ERRORS[name][0]
    x = tf.placeholder(tf.float64)
    return tf.linalg.lu(x), {x: value}
