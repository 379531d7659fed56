"""Records TensorFlow 2.21's ``rejection_resample`` (in TF1 graph mode) into
tf_data_resampling.json, read by tests/test_data_more.py.  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_data_resampling.py

The cases (data_more_cases.resamplings): for seeds 1 to 8, the classes and first
components of each dataset's elements in order, and its output_types; and
(data_more_cases.graph_seeded_resamplings, under "graph_seeded") datasets given no op
seed in a graph whose seed is set, one of them repeated.
"""

import json
import os

import tensorflow.compat.v1 as tf
from data_more_cases import graph_seeded_resamplings, resamplings
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
    out["graph_seeded"] = graph_seeded()
    with open(os.path.join(HERE, "tf_data_resampling.json"), "w") as f:
        json.dump(out, f)
    print("wrote tf_data_resampling.json")


def graph_seeded() -> dict:
    """{name: its elements} of graph_seeded_resamplings, as run_of reads them."""
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        datasets = graph_seeded_resamplings(tf)
        return {name: run_of(values(tf, d)) for name, d in datasets.items()}


def run_of(elements: list) -> dict:
    """The classes and first components of (class, element) pairs, or plain values."""
    if all(isinstance(e, tuple) for e in elements):
        return {"classes": [int(c) for c, _ in elements],
                "first": [int(tf.nest.flatten(e)[0]) for _, e in elements]}
    return {"values": [int(e) for e in elements]}


if __name__ == "__main__":
    main()
