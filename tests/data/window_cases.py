"""The ``Dataset.window`` pipelines tests/data/make_tf_window.py records from TensorFlow
and tests/test_data_window.py runs in devsession, written once against the TF1 module
each is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``), and how both read a
dataset out."""

import numpy as np


def pipelines(tf) -> dict:
    """{name: a dataset whose windows flat_map or interleave consume}."""
    Dataset = tf.data.Dataset
    pairs = Dataset.from_tensor_slices((np.arange(6), np.arange(6) * 10.0))
    table = Dataset.from_tensor_slices({"a": np.arange(5), "b": np.arange(10).reshape(5, 2)})
    return {
        "tuple": pairs.window(3, 2).flat_map(
            lambda x, y: Dataset.zip((x.batch(3), y.batch(3)))),
        "dict": table.window(2, 1, drop_remainder=True).flat_map(
            lambda w: Dataset.zip({"a": w["a"].batch(2), "b": w["b"].batch(2)})),
        "take_in_window": Dataset.range(8).window(4, 2).flat_map(lambda w: w.take(2)),
        "interleave": Dataset.range(9).window(3).interleave(
            lambda w: w.batch(2), cycle_length=2, block_length=1),
        "repeat_windows": Dataset.range(5).window(2).repeat(2).flat_map(
            lambda w: w.batch(2)),
    }


def values(tf, dataset) -> list:
    """Every element of ``dataset``, run in a session until OutOfRangeError."""
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(element))
            except tf.errors.OutOfRangeError:
                return out


def plain(value):
    """An element as JSON holds it: lists for arrays and tuples, dicts kept."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return np.asarray(value).tolist()
