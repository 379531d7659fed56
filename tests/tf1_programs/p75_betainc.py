"""The regularized incomplete beta function: tf.math.betainc over arrays, scalars mixed
with arrays, its edges (x at 0 and 1, a or b not positive, x outside [0, 1]), its
gradient in x, and the cdfs it gives: Beta's and StudentT's."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    a = rng.uniform(0.2, 8.0, 12)
    b = rng.uniform(0.2, 8.0, 12)
    x = rng.uniform(0.0, 1.0, 12)
    big = np.array([50.0, 200.0, 1000.0])
    values = {
        "float64": tf.math.betainc(a, b, x),
        "float32": tf.math.betainc(a.astype(np.float32), b.astype(np.float32),
                                   x.astype(np.float32)),
        "scalar_a": tf.math.betainc(np.float32(2.5), b.astype(np.float32),
                                    x.astype(np.float32)),
        "scalar_x": tf.betainc(a, b, 0.3),
        "large": tf.math.betainc(big, big * 1.5, np.array([0.3, 0.4, 0.41])),
        "edges": tf.math.betainc(np.array([2.0, 2.0, 0.0, -1.0, 2.0, 2.0, 3.0, 1.0]),
                                 np.array([3.0, 3.0, 2.0, 2.0, 0.0, 3.0, 3.0, 1.0]),
                                 np.array([0.0, 1.0, 0.5, 0.5, 0.5, -0.1, 1.2, 0.25])),
    }
    xt = tf.constant(x)
    fx = tf.math.betainc(tf.constant(a), tf.constant(b), xt)
    grads = tf.gradients(tf.reduce_sum(fx * fx), [xt])
    dist = tf.distributions
    beta = dist.Beta(concentration1=[2.0, 0.5], concentration0=[3.0, 0.7])
    student = dist.StudentT(df=[3.0, 10.0], loc=[0.5, -1.0], scale=[2.0, 0.5])
    # TF's Betainc takes equal shapes (or scalars): points of the batch's shape
    cdfs = {"beta_cdf": beta.cdf(tf.constant([0.2, 0.65])),
            "beta_log_cdf": beta.log_cdf(tf.constant([0.9, 0.05])),
            "student_cdf": student.cdf(tf.constant([-1.0, -1.2])),
            "student_cdf_right": student.cdf(tf.constant([2.5, 0.0])),
            "student_survival": student.survival_function(tf.constant([1.0, -0.5]))}
    out["dtypes"] = {k: v.dtype.name for k, v in values.items()}
    out["shapes"] = {k: v.shape.as_list() for k, v in values.items()}
    with tf.Session() as sess:
        for key, value in sess.run(values).items():
            out[key] = value
        out["edges"] = [np.isnan(out["edges"]).tolist(),          # NaN, and the rest
                        np.nan_to_num(out["edges"]).tolist()]
        out["grad_x"] = sess.run(grads)[0]
        for key, value in sess.run(cdfs).items():
            out[key] = value
    try:
        tf.math.betainc(np.ones(2), np.ones(3), np.ones(2))
        out["shape_error"] = None
    except ValueError:
        out["shape_error"] = "ValueError"
    out["_tol"] = {"float32": {"rtol": 1e-5, "atol": 1e-6},
                   "scalar_a": {"rtol": 1e-5, "atol": 1e-6},
                   "beta_cdf": {"rtol": 1e-5, "atol": 1e-6},
                   "beta_log_cdf": {"rtol": 1e-5, "atol": 1e-6},
                   "student_cdf": {"rtol": 1e-5, "atol": 1e-6},
                   "student_cdf_right": {"rtol": 1e-5, "atol": 1e-6},
                   "student_survival": {"rtol": 1e-5, "atol": 1e-6},
                   "float64": {"rtol": 1e-10, "atol": 1e-12},
                   "large": {"rtol": 1e-9, "atol": 1e-12}}
