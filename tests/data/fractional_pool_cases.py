"""The fractional pooling programs tests/data/make_tf_fractional_pool.py records from
TensorFlow and tests/test_fractional_pool.py runs in devsession, written once against the
TF1 module each side passes (``tf``: ``tensorflow.compat.v1`` or ``devsession``).

Each case is ``tf.nn.fractional_<kind>_pool`` of an input of ``shape`` and ``dtype`` with
``pooling_ratio`` ``[1, rows, cols, 1]``, ``pseudo_random``, ``overlapping`` and the seeds,
``deterministic`` (TF requires it of seeded pools), run twice in one session (the
second run keeps the first's sequences); the first run also fetches the gradient of ``sum(output * weights)`` for float inputs.
"""

import numpy as np

CASES = {
    "max_random": ("max", (2, 9, 11, 2), np.float32, (1.44, 1.73), False, False, 7, 3),
    "max_pseudo": ("max", (1, 10, 13, 1), np.float32, (1.5, 2.6), True, False, 5, 17),
    "max_overlap": ("max", (2, 8, 9, 3), np.float64, (1.6, 1.3), True, True, 11, 1),
    "max_random_overlap": ("max", (1, 7, 12, 2), np.float32, (2.2, 1.9), False, True, 1, 2),
    "max_int": ("max", (1, 6, 7, 1), np.int32, (1.5, 1.5), False, False, 3, 4),
    "max_whole": ("max", (1, 6, 8, 1), np.float32, (2.0, 1.0), False, False, 9, 9),
    "avg_random": ("avg", (2, 9, 11, 2), np.float32, (1.44, 1.73), False, False, 7, 3),
    "avg_pseudo_overlap": ("avg", (1, 10, 13, 2), np.float64, (1.5, 2.6), True, True, 5, 17),
    "avg_int": ("avg", (1, 6, 7, 1), np.int64, (1.5, 1.5), True, False, 3, 4),
    "avg_one": ("avg", (1, 1, 5, 1), np.float32, (1.0, 2.3), False, True, 2, 8),
    "seed_negative": ("max", (1, 9, 9, 1), np.float32, (1.7, 1.2), True, False, -5,
                      123456789),
}


def value(shape, dtype):
    n = int(np.prod(shape))
    x = np.cos(np.arange(n) * 1.37) * 10
    return (np.round(x) if np.dtype(dtype).kind == "i" else x).reshape(shape).astype(dtype)


def run(tf, name: str) -> list:
    kind, shape, dtype, (rows, cols), pseudo, overlapping, seed, seed2 = CASES[name]
    with tf.Graph().as_default():
        x = tf.constant(value(shape, dtype))
        pool = tf.nn.fractional_max_pool if kind == "max" else tf.nn.fractional_avg_pool
        y, row_seq, col_seq = pool(x, [1.0, rows, cols, 1.0], pseudo_random=pseudo,
                                   overlapping=overlapping, deterministic=True,
                                   seed=seed, seed2=seed2)
        first = [y, row_seq, col_seq]
        if np.dtype(dtype).kind == "f":
            weights = tf.constant(np.sin(np.arange(int(np.prod(y.shape.as_list())))).reshape(
                y.shape.as_list()).astype(dtype))
            first += tf.gradients(tf.reduce_sum(y * weights), [x])
        with tf.Session() as sess:
            return [sess.run(first), sess.run([y, row_seq, col_seq])]


def errors(tf) -> dict:
    """What building and running raise for ratios TF refuses."""
    out = {}
    x = np.zeros((2, 5, 7, 1), np.float32)
    for key, ratio in (("below_one", [1, 0.5, 1.5, 1]), ("short", [1, 1.5, 1.5]),
                       ("batch", [2, 1.5, 1.5, 1]), ("channels", [1, 1.5, 1.5, 2]),
                       ("too_large", [1, 6, 1.5, 1]), ("seeded", [1, 1.5, 1.5, 1, 7])):
        for kind in ("max", "avg"):
            with tf.Graph().as_default():
                pool = tf.nn.fractional_max_pool if kind == "max" else \
                    tf.nn.fractional_avg_pool
                try:
                    seeds = {"seed": ratio.pop()} if len(ratio) == 5 else {}
                    y = pool(tf.constant(x), ratio, **seeds)[0]
                    with tf.Session() as sess:
                        sess.run(y)
                    out[f"{kind}_{key}"] = ["none", ""]
                except Exception as e:           # noqa: BLE001  (the class is compared)
                    message = getattr(e, "message", str(e))
                    lines = message.splitlines()      # TF's: the line after "Node: ..."
                    at = [i + 1 for i, m in enumerate(lines) if m.startswith("Node: ")]
                    out[f"{kind}_{key}"] = [type(e).__name__,
                                            lines[at[0]] if at else lines[0]]
    return out
