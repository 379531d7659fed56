"""Record TensorFlow's outputs of the nn ops once, for tests/test_nn_ops.py.

Run with a Python that has TensorFlow (TF is never a dependency of devsession or its
tests):

    /work/peers/bin/python tests/data/nn_tf/record.py

It writes ``tf_values.npz`` next to this file: for each case, its inputs (``<case>/x``,
...) and TF's results (``<case>/out``, gradients ``<case>/dx``, ``<case>/df``).  Cases
are small (a few KB in all) but cover SAME padding with an odd total (TF puts the extra
element at the bottom/right), strides 1 and 2, kernel sizes 1/3/5, dilation 2, and
AvgPool's division by the valid elements only.
"""

import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))
CONV_CASES = [  # (name, input shape, filter shape, strides, padding, dilation)
    ("conv_same_s1_k3", (2, 7, 6, 3), (3, 3, 3, 4), 1, "SAME", 1),
    ("conv_same_s2_k3", (2, 7, 6, 3), (3, 3, 3, 4), 2, "SAME", 1),
    ("conv_same_s2_k4", (1, 8, 7, 2), (4, 4, 2, 3), 2, "SAME", 1),
    ("conv_valid_s2_k5", (3, 9, 11, 2), (5, 5, 2, 3), 2, "VALID", 1),
    ("conv_valid_s1_k1", (2, 5, 4, 3), (1, 1, 3, 2), 1, "VALID", 1),
    ("conv_same_s1_k3_d2", (1, 9, 8, 2), (3, 3, 2, 2), 1, "SAME", 2),
]
POOL_CASES = [  # (name, input shape, ksize, strides, padding)
    ("pool_same_k2_s2", (2, 7, 7, 3), 2, 2, "SAME"),
    ("pool_same_k3_s2", (1, 8, 7, 2), 3, 2, "SAME"),
    ("pool_valid_k3_s1", (2, 6, 5, 2), 3, 1, "VALID"),
    ("pool_same_k5_s1", (1, 5, 6, 2), 5, 1, "SAME"),
]


def conv_cases(rng, out):
    for name, xs, fs, s, pad, d in CONV_CASES:
        x = rng.standard_normal(xs).astype(np.float32)
        f = rng.standard_normal(fs).astype(np.float32)
        g = tf.Graph()
        with g.as_default():
            tx, tf_ = tf.constant(x), tf.constant(f)
            y = tf.nn.conv2d(tx, tf_, strides=[1, s, s, 1], padding=pad, dilations=[1, d, d, 1])
            dy = rng.standard_normal(y.shape.as_list()).astype(np.float32)
            dx, df = tf.gradients(y, [tx, tf_], grad_ys=tf.constant(dy))
            with tf.Session() as sess:
                got = sess.run({"out": y, "dx": dx, "df": df})
        out.update({f"{name}/x": x, f"{name}/f": f, f"{name}/dy": dy,
                    **{f"{name}/{k}": v for k, v in got.items()}})


def pool_cases(rng, out):
    for name, xs, k, s, pad in POOL_CASES:
        x = rng.standard_normal(xs).astype(np.float32)
        g = tf.Graph()
        with g.as_default():
            tx = tf.constant(x)
            window = dict(ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=pad)
            mx, av = tf.nn.max_pool(tx, **window), tf.nn.avg_pool(tx, **window)
            dy = rng.standard_normal(mx.shape.as_list()).astype(np.float32)
            dmax = tf.gradients(mx, tx, grad_ys=tf.constant(dy))[0]
            davg = tf.gradients(av, tx, grad_ys=tf.constant(dy))[0]
            with tf.Session() as sess:
                got = sess.run({"max": mx, "avg": av, "dmax": dmax, "davg": davg})
        out.update({f"{name}/x": x, f"{name}/dy": dy,
                    **{f"{name}/{key}": v for key, v in got.items()}})


def other_cases(rng, out):
    a = np.concatenate([np.linspace(-40, 40, 41), [-1e-4, 1e-4, 0.0]]).astype(np.float32)
    logits = (rng.standard_normal((4, 5)) * 3).astype(np.float32)
    labels = rng.dirichlet(np.ones(5), 4).astype(np.float32)
    sparse = np.array([0, 4, 2, 2], np.int32)
    g = tf.Graph()
    with g.as_default():
        ta = tf.constant(a)
        fetch = {"leaky_relu": tf.nn.leaky_relu(ta), "leaky_relu_01": tf.nn.leaky_relu(ta, 0.1),
                 "elu": tf.nn.elu(ta), "softplus": tf.nn.softplus(ta),
                 "log_softmax": tf.nn.log_softmax(tf.constant(logits)),
                 "l2_loss": tf.nn.l2_loss(tf.constant(logits))}
        xent = tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels)
        sxent = tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=sparse)
        fetch.update(xent_loss=xent[0], xent_backprop=xent[1], sparse_loss=sxent[0],
                     sparse_backprop=sxent[1])
        with tf.Session() as sess:
            got = sess.run(fetch)
    out.update({"act/x": a, "xent/logits": logits, "xent/labels": labels,
                "xent/sparse_labels": sparse, **{f"other/{k}": v for k, v in got.items()}})


def main():
    rng = np.random.default_rng(20240601)
    out = {}
    conv_cases(rng, out)
    pool_cases(rng, out)
    other_cases(rng, out)
    np.savez_compressed(os.path.join(HERE, "tf_values.npz"), **out)
    print(f"wrote {len(out)} arrays with TensorFlow {tf.__version__}")


if __name__ == "__main__":
    main()
