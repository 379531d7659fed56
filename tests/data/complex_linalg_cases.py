"""Complex dense linear algebra, recorded from TensorFlow by make_tf_complex_linalg.py and
run in devsession by tests/test_complex_linalg.py, written once against the TF1 module
each is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``): inverses, solves
(adjoint too), determinants, log-determinants, Cholesky, triangular solves, QR, SVD, the
Hermitian eigen decomposition and least squares of complex64/complex128 matrices
(batches, 0 x 0 and 1 x 1 ones), and the gradients TF gives them with complex output
gradients (the singular values are real, as ``tf.linalg.svd`` returns them).  Eigen- and singular vectors are unique only up to each column's phase (TF's
Eigen and devsession's LAPACK may choose differently), so they enter through
phase-free quantities: ``V diag(e) Vᴴ``, ``U diag(s) Vᴴ``, ``|U|``."""

import numpy as np

SHAPES = {"a": [3, 3], "b": [3, 2], "h": [3, 3], "batch": [2, 3, 3], "tall": [4, 2],
          "wide": [2, 4], "w": [3, 3], "wb": [3, 2], "wt": [4, 2], "ws": [], "a128": [3, 3],
          "h128": [3, 3], "w128": [3, 3], "empty": [0, 0], "one": [1, 1]}


def _complex(rng, *shape, dtype=np.complex64):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def _hermitian(rng, n, dtype):
    x = _complex(rng, n, n, dtype=np.complex128)
    return (x @ x.conj().T + n * np.eye(n)).astype(dtype)


def feeds() -> dict:
    rng = np.random.default_rng(20261209)
    dtypes = {name: np.complex128 if name.endswith("128") else np.complex64 for name in SHAPES}
    out = {name: _complex(rng, *shape, dtype=dtypes[name]) for name, shape in SHAPES.items()}
    out["a"] += 3 * np.eye(3, dtype=np.complex64)            # well conditioned
    out["a128"] += 3 * np.eye(3)
    out["batch"] += 3 * np.eye(3, dtype=np.complex64)
    out["h"], out["h128"] = _hermitian(rng, 3, np.complex64), _hermitian(rng, 3, np.complex128)
    out["one"] = out["one"] + 2
    return out


def placeholders(tf) -> dict:
    return {name: tf.placeholder(tf.complex128 if name.endswith("128") else tf.complex64,
                                 shape, name=name) for name, shape in SHAPES.items()}


def _phase_free(tf, vectors, values):
    """``V diag(values) Vᴴ`` (or ``U diag(s) Vᴴ`` with ``vectors = (U, V)``)."""
    left, right = vectors if isinstance(vectors, tuple) else (vectors, vectors)
    return tf.matmul(left * tf.expand_dims(tf.cast(values, left.dtype), -2), right,
                     adjoint_b=True)


def all_ops(tf, p) -> dict:
    la = tf.linalg
    a, b, h, w, wb = p["a"], p["b"], p["h"], p["w"], p["wb"]
    out = {"inv": la.inv(a), "inv_adjoint": la.inv(a, adjoint=True),
           "inv_batch": la.inv(p["batch"]), "inv_128": la.inv(p["a128"]),
           "inv_empty": la.inv(p["empty"]), "inv_one": la.inv(p["one"]),
           "solve": la.solve(a, b), "solve_adjoint": la.solve(a, b, adjoint=True),
           "det": la.det(a), "det_batch": la.det(p["batch"]), "det_128": la.det(p["a128"]),
           "det_empty": la.det(p["empty"]), "det_one": la.det(p["one"])}
    out["slogdet_sign"], out["slogdet_log"] = la.slogdet(a)
    out["slogdet_sign_128"], out["slogdet_log_128"] = la.slogdet(p["a128"])
    chol = la.cholesky(h)
    out.update({"cholesky": chol, "cholesky_128": la.cholesky(p["h128"]),
                "cholesky_one": la.cholesky(p["one"] * tf.conj(p["one"])),
                "triangular_lower": la.triangular_solve(a, b),
                "triangular_upper_adjoint": la.triangular_solve(a, b, lower=False,
                                                                adjoint=True)})
    out["qr_q"], out["qr_r"] = la.qr(p["tall"])
    out["qr_wide_q"], out["qr_wide_r"] = la.qr(p["wide"])
    out["qr_full_q"], out["qr_full_r"] = la.qr(a, full_matrices=True)
    s, u, v = la.svd(p["tall"])
    out.update({"svd_s": s, "svd_usv": _phase_free(tf, (u, v), s), "svd_abs_u": tf.abs(u),
                "svd_s_only": la.svd(p["wide"], compute_uv=False),
                "svd_s_128": la.svd(p["a128"], compute_uv=False)})
    e, vectors = la.eigh(h)
    out.update({"eigh_e": e, "eigh_vev": _phase_free(tf, vectors, e),
                "eigh_abs_v": tf.abs(vectors), "eigvalsh_128": la.eigvalsh(p["h128"])})
    out["lstsq"] = la.lstsq(p["tall"], p["wt"])
    out["lstsq_regularized"] = la.lstsq(p["tall"], p["wt"], l2_regularizer=0.5)
    # gradients with complex output gradients
    out["grad_inv"] = tf.gradients(la.inv(a), a, grad_ys=w)[0]
    out["grad_inv_adjoint"] = tf.gradients(la.inv(a, adjoint=True), a, grad_ys=w)[0]
    out["grad_solve_a"], out["grad_solve_b"] = tf.gradients(la.solve(a, b), [a, b], grad_ys=wb)
    out["grad_solve_adjoint_a"], out["grad_solve_adjoint_b"] = tf.gradients(
        la.solve(a, b, adjoint=True), [a, b], grad_ys=wb)
    out["grad_det"] = tf.gradients(la.det(a), a, grad_ys=p["ws"])[0]
    out["grad_slogdet"] = tf.gradients(la.slogdet(a)[1], a, grad_ys=p["ws"])[0]
    out["grad_cholesky"] = tf.gradients(la.cholesky(h), h, grad_ys=w)[0]
    out["grad_triangular"] = tf.gradients(la.triangular_solve(a, b), [a, b], grad_ys=wb)[0]
    out["grad_triangular_upper"] = tf.gradients(
        la.triangular_solve(a, b, lower=False, adjoint=True), a, grad_ys=wb)[0]
    q, r = la.qr(p["tall"])
    out["grad_qr"] = tf.gradients([q, r], p["tall"], grad_ys=[p["wt"], w[:2, :2]])[0]
    out["grad_qr_square"] = tf.gradients(list(la.qr(a)), a, grad_ys=[w, tf.conj(w)])[0]
    out["grad_svd_s"] = tf.gradients(la.svd(a, compute_uv=False), a,
                                     grad_ys=tf.cast(tf.range(1, 4), tf.float32))[0]
    out["grad_svd_usv"] = tf.gradients(_phase_free(tf, (u, v), s), p["tall"], grad_ys=p["wt"])[0]
    s3, u3, v3 = la.svd(a)
    out["grad_svd_square"] = tf.gradients(
        tf.reduce_sum(tf.abs(u3) * tf.real(w)) + tf.reduce_sum(s3 * s3), a)[0]
    out["grad_eigh"] = tf.gradients(_phase_free(tf, vectors, e * e), h, grad_ys=w)[0]
    out["grad_eigh_e"] = tf.gradients(la.eigvalsh(h), h,
                                      grad_ys=tf.cast(tf.range(1, 4), tf.complex64))[0]
    out["grad_lstsq"] = tf.gradients(la.lstsq(p["tall"], p["wt"]), [p["tall"], p["wt"]],
                                     grad_ys=w[:2, :2])[0]
    out["grad_inv_128"] = tf.gradients(la.inv(p["a128"]), p["a128"], grad_ys=p["w128"])[0]
    return out
