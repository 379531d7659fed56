"""The ``tf.extract_volume_patches`` programs tests/data/make_tf_volume_patches.py
records from TensorFlow and tests/test_volume_patches.py runs in devsession, written once
against the TF1 module each side passes (``tf``: ``tensorflow.compat.v1`` or
``devsession``): each case ``(shape, dtype, ksizes, strides, padding, fed)`` fetches the
patches and, for float inputs of known shape, the gradient of ``sum(patches * weights)``; ``fed``
feeds the input through a placeholder of unknown shape."""

import numpy as np

CASES = {
    "valid": ((2, 4, 5, 3, 2), np.float32, [1, 2, 3, 2, 1], [1, 1, 1, 1, 1], "VALID", False),
    "same_strided": ((2, 4, 5, 3, 2), np.float64, [1, 2, 3, 2, 1], [1, 2, 1, 2, 1], "SAME",
                     False),
    "same_large": ((1, 3, 3, 3, 1), np.float32, [1, 4, 2, 3, 1], [1, 3, 2, 1, 1], "SAME",
                   False),
    "too_large": ((1, 2, 4, 4, 1), np.float32, [1, 3, 2, 2, 1], [1, 1, 1, 1, 1], "VALID",
                  False),
    "ints": ((1, 3, 4, 2, 3), np.int32, [1, 1, 2, 2, 1], [1, 1, 2, 1, 1], "SAME", False),
    "fed": ((1, 5, 3, 4, 2), np.float32, [1, 3, 1, 2, 1], [1, 2, 1, 3, 1], "SAME", True),
    "one": ((1, 1, 1, 1, 1), np.float32, [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], "VALID", False),
}


def value(shape, dtype):
    x = np.cos(np.arange(int(np.prod(shape))) * 0.61) * 5
    return (np.round(x) if np.dtype(dtype).kind == "i" else x).reshape(shape).astype(dtype)


def run(tf, name: str) -> list:
    shape, dtype, ksizes, strides, padding, fed = CASES[name]
    x0 = value(shape, dtype)
    with tf.Graph().as_default():
        x = tf.placeholder(x0.dtype, None) if fed else tf.constant(x0)
        y = tf.extract_volume_patches(x, ksizes, strides, padding)
        fetches = [y]
        if x0.dtype.kind == "f" and not fed:      # TF's gradient needs the static shape
            weights = tf.sin(tf.cast(tf.range(tf.size(y)), x0.dtype))
            fetches += tf.gradients(tf.reduce_sum(y * tf.reshape(weights, tf.shape(y))), [x])
        with tf.Session() as sess:
            return sess.run(fetches, {x: x0} if fed else None)


def errors(tf) -> dict:
    out = {}
    x = np.zeros((1, 3, 3, 3, 1), np.float32)
    for key, (ksizes, strides) in {"short": ([1, 2, 2, 1], [1, 1, 1, 1, 1]),
                                   "batch": ([2, 1, 1, 1, 1], [1, 1, 1, 1, 1]),
                                   "depth_stride": ([1, 1, 1, 1, 1], [1, 1, 1, 1, 2])}.items():
        with tf.Graph().as_default():
            try:
                y = tf.extract_volume_patches(tf.constant(x), ksizes, strides, "VALID")
                with tf.Session() as sess:
                    sess.run(y)
                out[key] = ["none", ""]
            except Exception as e:           # noqa: BLE001  (the class is compared)
                lines = getattr(e, "message", str(e)).splitlines()
                at = [i + 1 for i, m in enumerate(lines) if m.startswith("Node: ")]
                out[key] = [type(e).__name__, lines[at[0]] if at else lines[0]]
    return out
