"""Records TensorFlow 2.21's ``tf.data.experimental.make_csv_dataset`` and
``CsvDataset`` (TF1 graph mode, unshuffled) over the files in tests/data/csv/ into
tf_csv_datasets.json, read by tests/test_data_csv_datasets.py.  Run once, with
TensorFlow:

    /work/peers/bin/python tests/data/make_tf_csv_datasets.py

Per pipeline of csv_cases.py: its elements (dicts as ordered pairs, arrays with their
dtype) and its static types and shapes; per build error, TF's ValueError text (the
csv folder written as <CSV>); per run error, the elements read before it and the last
line of TF's InvalidArgumentError.
"""

import json
import os

import tensorflow.compat.v1 as tf
from csv_cases import CSV, build_errors, pipelines, plain, run_errors, static, values

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = {"tensorflow": tf.__version__, "pipelines": {}, "build_errors": {},
           "run_errors": {}}
    with tf.Graph().as_default():
        names = list(pipelines(tf))
    for name in names:
        with tf.Graph().as_default():
            dataset, count = pipelines(tf)[name]
            out["pipelines"][name] = {"static": static(dataset), "elements": [
                plain(v) for v in values(tf, dataset, count)]}
    with tf.Graph().as_default():
        for name, call in build_errors(tf).items():
            try:
                call()
            except ValueError as e:
                out["build_errors"][name] = str(e).replace(CSV, "<CSV>")
            else:
                raise AssertionError(f"{name}: no ValueError")
    with tf.Graph().as_default():
        names = list(run_errors(tf))
    for name in names:
        with tf.Graph().as_default():
            dataset, before = run_errors(tf)[name]
            element = tf.data.make_one_shot_iterator(dataset).get_next()
            with tf.Session() as sess:
                read = []
                try:
                    while True:
                        read.append(plain(sess.run(element)))
                except tf.errors.InvalidArgumentError as e:
                    message = e.message.strip().splitlines()
                    text = [line for line in message if not line.strip().startswith("[[")]
                    out["run_errors"][name] = {"read": read, "message": text[-1]}
            assert len(read) == before, (name, read)
    with open(os.path.join(HERE, "tf_csv_datasets.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("wrote tf_csv_datasets.json")


if __name__ == "__main__":
    main()
