"""Records TensorFlow 2.21's ``Dataset.window`` (consumed by ``flat_map``/``interleave``)
into tf_window.json, read by tests/test_data_window.py.  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_tf_window.py

Each case: ``Dataset.range(n).window(size, shift, stride, drop_remainder)`` flattened
with ``lambda w: w.batch(size)`` (shift smaller, equal and larger than the window,
strides, partial windows at the end, all dropped); and a few pipelines (a tuple and a
dict element, ``take`` inside a window, ``interleave``, ``repeat`` of the windows).
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
GRID = [(7, 3, None, 1, False), (7, 3, 2, 1, False), (6, 3, 2, 1, False),
        (10, 3, 4, 1, False), (10, 3, 1, 2, False), (10, 3, 2, 2, True),
        (10, 2, 5, 3, False), (4, 5, None, 1, True), (4, 5, None, 1, False),
        (10, 3, 2, 3, False), (9, 4, 3, 1, True), (0, 2, 1, 1, False)]


def pipelines():
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


def values(dataset):
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(element))
            except tf.errors.OutOfRangeError:
                return out


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return np.asarray(value).tolist()


def main():
    out = {"tensorflow": tf.__version__, "grid": [], "pipelines": {}}
    for n, size, shift, stride, drop in GRID:
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.range(n).window(size, shift, stride, drop)
            got = values(dataset.flat_map(lambda w, s=size: w.batch(s)))
        out["grid"].append({"n": n, "size": size, "shift": shift, "stride": stride,
                            "drop_remainder": drop, "windows": [plain(v) for v in got]})
    for name in pipelines():
        with tf.Graph().as_default():
            out["pipelines"][name] = [plain(v) for v in values(pipelines()[name])]
    with open(os.path.join(HERE, "tf_window.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("wrote tf_window.json")


if __name__ == "__main__":
    main()
