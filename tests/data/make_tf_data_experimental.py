"""Records TensorFlow 2.21's ``tf.data.experimental`` transformations (in TF1 graph mode)
into tf_data_experimental.json, read by tests/test_data_experimental.py.  Run once, with
TensorFlow:

    /work/peers/bin/python tests/data/make_tf_data_experimental.py

The cases (tests/data/data_experimental_cases.py): each pipeline's elements, each
dataset's ``cardinality``, and ``get_single_element``'s value or error text.
"""

import json
import os

import tensorflow.compat.v1 as tf
from data_experimental_cases import cardinalities, pipelines, single_elements
from window_cases import plain, values     # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = {"tensorflow": tf.__version__, "pipelines": {}, "cardinality": {}, "single": {}}
    for name in pipelines(tf):
        with tf.Graph().as_default():
            out["pipelines"][name] = [plain(v) for v in values(tf, pipelines(tf)[name])]
    for name in cardinalities(tf):
        with tf.Graph().as_default(), tf.Session() as sess:
            dataset = cardinalities(tf)[name]
            out["cardinality"][name] = int(sess.run(tf.data.experimental.cardinality(dataset)))
    for name in single_elements(tf):
        with tf.Graph().as_default(), tf.Session() as sess:
            element = tf.data.experimental.get_single_element(single_elements(tf)[name])
            try:
                out["single"][name] = {"value": plain(sess.run(element))}
            except tf.errors.InvalidArgumentError as e:
                out["single"][name] = {"error": e.message}
    with open(os.path.join(HERE, "tf_data_experimental.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("wrote tf_data_experimental.json")


if __name__ == "__main__":
    main()
