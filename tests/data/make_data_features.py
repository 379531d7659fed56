"""Records TensorFlow 2.21's ``make_batched_features_dataset`` and
``parse_example_dataset`` (in TF1 graph mode) into tf_data_features.json, read by
tests/test_data_features.py.  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_data_features.py

The cases (tests/data/data_features_cases.py): TFRecord files of Examples written by TF,
each pipeline's elements in order and output_shapes, and the build errors.
"""

import json
import os
import tempfile

import tensorflow.compat.v1 as tf
from data_features_cases import build_errors, flat, pipelines, write_files
from window_cases import values     # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def shapes(dataset):
    return tf.nest.map_structure(lambda s: s.as_list() if s.rank is not None else None,
                                 tf.data.get_output_shapes(dataset))


def main():
    out = {"tensorflow": tf.__version__, "pipelines": {}, "build_errors": {}}
    with tempfile.TemporaryDirectory() as folder:
        pattern = write_files(tf, folder)
        for name in pipelines(tf, pattern):
            with tf.Graph().as_default():
                dataset = pipelines(tf, pattern)[name]
                out["pipelines"][name] = {
                    "values": [flat(v) for v in values(tf, dataset)],
                    "shapes": flat(shapes(dataset))}
        for name in build_errors(tf, pattern):
            with tf.Graph().as_default():
                try:
                    build_errors(tf, pattern)[name]()
                    raise AssertionError(f"{name} did not fail")
                except (ValueError, TypeError) as e:
                    out["build_errors"][name] = {"class": type(e).__name__,
                                                 "message": str(e)}
    with open(os.path.join(HERE, "tf_data_features.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("wrote tf_data_features.json")


if __name__ == "__main__":
    main()
