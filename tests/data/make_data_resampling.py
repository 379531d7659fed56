"""Records TensorFlow 2.21's ``rejection_resample`` (in TF1 graph mode) into
tf_data_resampling.json, read by tests/test_data_more.py.  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_data_resampling.py

The cases (data_more_cases.resamplings): for seeds 1 to 8, each dataset's length and
the classes of its elements in order (TF's draws are its own: the tests compare the
deterministic ones exactly and the random ones by their statistics), and its
output_types.
"""

import json
import os

import tensorflow.compat.v1 as tf
from data_more_cases import resamplings
from window_cases import values     # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = range(1, 9)


def main():
    out = {"tensorflow": tf.__version__, "seeds": list(SEEDS), "runs": {}, "types": {}}
    for seed in SEEDS:
        for name in resamplings(tf, seed):
            with tf.Graph().as_default():
                dataset = resamplings(tf, seed)[name]
                got = values(tf, dataset)
                out["runs"].setdefault(name, []).append({
                    "classes": [int(c) for c, _ in got],
                    "first": [int(tf.nest.flatten(e)[0]) for _, e in got]})
                out["types"][name] = [t.name for t in tf.nest.flatten(
                    tf.data.get_output_types(dataset))]
    with open(os.path.join(HERE, "tf_data_resampling.json"), "w") as f:
        json.dump(out, f)
    print("wrote tf_data_resampling.json")


if __name__ == "__main__":
    main()
