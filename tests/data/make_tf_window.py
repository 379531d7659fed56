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

import tensorflow.compat.v1 as tf
from window_cases import pipelines, plain, values     # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
GRID = [(7, 3, None, 1, False), (7, 3, 2, 1, False), (6, 3, 2, 1, False),
        (10, 3, 4, 1, False), (10, 3, 1, 2, False), (10, 3, 2, 2, True),
        (10, 2, 5, 3, False), (4, 5, None, 1, True), (4, 5, None, 1, False),
        (10, 3, 2, 3, False), (9, 4, 3, 1, True), (0, 2, 1, 1, False)]


def main():
    out = {"tensorflow": tf.__version__, "grid": [], "pipelines": {}}
    for n, size, shift, stride, drop in GRID:
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.range(n).window(size, shift, stride, drop)
            got = values(tf, dataset.flat_map(lambda w, s=size: w.batch(s)))
        out["grid"].append({"n": n, "size": size, "shift": shift, "stride": stride,
                            "drop_remainder": drop, "windows": [plain(v) for v in got]})
    for name in pipelines(tf):
        with tf.Graph().as_default():
            out["pipelines"][name] = [plain(v) for v in values(tf, pipelines(tf)[name])]
    with open(os.path.join(HERE, "tf_window.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("wrote tf_window.json")


if __name__ == "__main__":
    main()
