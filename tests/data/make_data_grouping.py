"""Records TensorFlow 2.21's grouping transformations (``group_by_window``,
``bucket_by_sequence_length``, in TF1 graph mode) into tf_data_grouping.json, read by
tests/test_data_grouping.py.  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_data_grouping.py

The cases (tests/data/data_grouping_cases.py): each pipeline's elements in order and its
output_shapes, the error class and text of the pipelines that fail when read, and the
exception class of those that fail when built.
"""

import json
import os

import tensorflow.compat.v1 as tf
from data_grouping_cases import build_errors, pipelines, reducers, run_errors
from window_cases import plain, values     # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def shapes(dataset):
    return plain(tf.nest.map_structure(
        lambda s: s.as_list() if s.rank is not None else None,
        tf.data.get_output_shapes(dataset)))


def main():
    out = {"tensorflow": tf.__version__, "pipelines": {}, "reducers": {}, "run_errors": {},
           "build_errors": {}}
    for group, cases in (("pipelines", pipelines), ("reducers", reducers)):
        for name in cases(tf):
            with tf.Graph().as_default():
                dataset = cases(tf)[name]
                out[group][name] = {"values": [plain(v) for v in values(tf, dataset)],
                                    "shapes": shapes(dataset)}
    for name in run_errors(tf):
        with tf.Graph().as_default():
            try:
                values(tf, run_errors(tf)[name])
                raise AssertionError(f"{name} did not fail")
            except tf.errors.OpError as e:
                out["run_errors"][name] = {"class": type(e).__name__, "message": e.message}
    for name in build_errors(tf):
        with tf.Graph().as_default():
            try:
                build_errors(tf)[name]()
                raise AssertionError(f"{name} did not fail")
            except (ValueError, TypeError) as e:
                out["build_errors"][name] = {"class": type(e).__name__, "message": str(e)}
    with open(os.path.join(HERE, "tf_data_grouping.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("wrote tf_data_grouping.json")


if __name__ == "__main__":
    main()
