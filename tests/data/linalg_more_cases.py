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
}


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
