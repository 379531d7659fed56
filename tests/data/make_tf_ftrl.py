"""Records TensorFlow's FtrlOptimizer and its proximal optimizers on
tests/test_optimizers.py's quadratic: five steps of each configuration, the variable and
its slots after them (tf_ftrl.json).  Run once, in a virtualenv with tensorflow (never a
test dependency):

    /work/peers/bin/python tests/data/make_tf_ftrl.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

A = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 3.0]])
TARGET = np.array([1.0, -2.0, 0.5])
CONFIGS = {
    "ftrl": dict(learning_rate=0.2, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.05, l2_regularization_strength=0.02),
    "ftrl_v2_power": dict(learning_rate=0.2, learning_rate_power=-0.7,
                          initial_accumulator_value=0.3, l1_regularization_strength=0.01,
                          l2_regularization_strength=0.02,
                          l2_shrinkage_regularization_strength=0.05, beta=0.3),
    "ftrl_fixed_rate": dict(learning_rate=0.1, learning_rate_power=0.0,
                            initial_accumulator_value=0.1, l1_regularization_strength=0.5),
}


PROXIMAL = {
    "proximal_gd_l1": ("ProximalGradientDescentOptimizer",
                       dict(learning_rate=0.2, l1_regularization_strength=0.3,
                            l2_regularization_strength=0.05)),
    "proximal_gd_l2": ("ProximalGradientDescentOptimizer",
                       dict(learning_rate=0.2, l2_regularization_strength=0.1)),
    "proximal_adagrad_l1": ("ProximalAdagradOptimizer",
                            dict(learning_rate=0.3, initial_accumulator_value=0.2,
                                 l1_regularization_strength=0.2,
                                 l2_regularization_strength=0.05)),
    "proximal_adagrad_l2": ("ProximalAdagradOptimizer",
                            dict(learning_rate=0.3, l2_regularization_strength=0.1)),
}


def run(config: dict, optimizer: str = "FtrlOptimizer", slots=("accum", "linear")) -> dict:
    with tf.Graph().as_default():
        w = tf.Variable(np.array([0.3, -0.7, 1.1], np.float32), name="w")
        wc = tf.reshape(w, (3, 1))
        loss = 0.5 * tf.reduce_sum(wc * tf.matmul(tf.constant(A.astype(np.float32)), wc)) \
            - tf.reduce_sum(w * TARGET.astype(np.float32))
        opt = getattr(tf.train, optimizer)(**config)
        train = opt.minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                sess.run(train)
            values = sess.run([w] + [opt.get_slot(w, k) for k in slots])
            names = [opt.get_slot(w, k).op.name for k in slots]
    out = {"config": config, "optimizer": optimizer, "w": values[0].tolist(),
           "slot_names": names}
    out.update({k: v.tolist() for k, v in zip(slots, values[1:])})
    return out


if __name__ == "__main__":
    tf.disable_eager_execution()
    out = {name: run(config) for name, config in CONFIGS.items()}
    for name, (optimizer, config) in PROXIMAL.items():
        slots = ("accumulator",) if optimizer == "ProximalAdagradOptimizer" else ()
        out[name] = run(config, optimizer, slots)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_ftrl.json")
    with open(path, "w") as f:
        json.dump({"tensorflow": tf.__version__, "runs": out}, f, indent=1)
    print("wrote", path)
