"""Gradients of reduce_prod recorded from TensorFlow (make_tf_prod_grad.py) and computed by
devsession (tests/test_prod_grad.py) for the same program, written against the TF1 module
each is given: every axis, some axes, negative axes, keepdims, zeros among the factors
(one and several in a reduction), an unknown batch dimension, and complex values."""

import numpy as np


def feeds() -> dict:
    rng = np.random.default_rng(20261207)
    x = rng.normal(size=(2, 3, 4))
    x[0, 1, 2] = 0.0                               # one zero in some reductions
    x[1, 2, 0] = x[1, 2, 3] = 0.0                  # two zeros in others
    return {"x": x, "batch": rng.normal(size=(5, 3)).astype(np.float32),
            "c": (rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))).astype(np.complex64)}


def placeholders(tf) -> dict:
    return {"x": tf.placeholder(tf.float64, [2, 3, 4], name="x"),
            "batch": tf.placeholder(tf.float32, [None, 3], name="batch"),
            "c": tf.placeholder(tf.complex64, [3, 2], name="c")}


def all_ops(tf, p) -> dict:
    x, batch, c = p["x"], p["batch"], p["c"]
    w = tf.constant(np.arange(1.0, 13.0).reshape(3, 4))
    cases = {
        "all": tf.reduce_prod(x),
        "axis_1": tf.reduce_prod(x, axis=1) * tf.constant(np.arange(1.0, 9.0).reshape(2, 4)),
        "axes_0_2": tf.reduce_prod(x, axis=[0, 2]),
        "negative_keep": tf.reduce_prod(x, axis=-1, keepdims=True),
        "weighted": tf.reduce_prod(x, axis=0) * w,
    }
    out = {f"grad_{name}": tf.gradients(tf.reduce_sum(y), x)[0] for name, y in cases.items()}
    out["grad_batch"] = tf.gradients(tf.reduce_sum(tf.reduce_prod(batch, axis=0)), batch)[0]
    out["grad_batch_rows"] = tf.gradients(tf.reduce_sum(tf.reduce_prod(batch, axis=1) ** 2),
                                          batch)[0]
    out["grad_complex"] = tf.gradients(tf.reduce_sum(tf.real(tf.reduce_prod(c, axis=0) *
                                                             tf.conj(c[0]))), c)[0]
    out["prod_all"] = cases["all"]
    return out
