"""tf.random.experimental.stateless_shuffle: TF's permutation bit for bit, over sizes 0
to 1000, rows of several dtypes and ranks, int32 and int64 seeds (negative and large
ones), each spelling of the Philox algorithm; a scalar and a single row unchanged; the
threefry algorithm an InvalidArgumentError when it runs."""

import numpy as np


def main(tf, out):
    shuffle = tf.random.experimental.stateless_shuffle
    values = {
        "range_1000": shuffle(tf.range(1000), seed=[3, 4]),
        "floats_rows": shuffle(tf.constant(np.arange(24.0).reshape(6, 4)), seed=[8, 9]),
        "rank3": shuffle(tf.constant(np.arange(60, dtype=np.int64).reshape(5, 3, 4)),
                         seed=[0, 0]),
        "strings": shuffle(tf.constant([b"a", b"bb", b"ccc", b"d", b"ee"]), seed=[1, 2]),
        "bools": shuffle(tf.constant([True, False, False, True, True, False, True]),
                         seed=[5, 6]),
        "int64_seed": shuffle(tf.range(17), seed=tf.constant([-7, 2**40], tf.int64)),
        "negative_seed": shuffle(tf.range(9), seed=[-1, -2]),
        "philox": shuffle(tf.range(33), seed=[10, 11], alg="philox"),
        "alg_number": shuffle(tf.range(33), seed=[10, 11], alg=1),
        "auto_select": shuffle(tf.range(33), seed=[10, 11]),
        "two": shuffle(tf.constant([1.5, 2.5]), seed=[1, 1]),
        "one_row": shuffle(tf.constant([[1, 2, 3]]), seed=[4, 4]),
        "empty": shuffle(tf.zeros([0, 3]), seed=[4, 4]),
        "scalar": shuffle(tf.constant(7.0), seed=[4, 4]),
    }
    out["name"] = values["two"].name
    out["shapes"] = {k: v.shape.as_list() for k, v in values.items()}
    threefry = shuffle(tf.range(5), seed=[1, 2], alg="threefry")
    with tf.Session() as sess:
        for key, value in sess.run(values).items():
            out[key] = value
        try:
            sess.run(threefry)
            out["threefry"] = None
        except tf.errors.InvalidArgumentError:
            out["threefry"] = "InvalidArgumentError"
