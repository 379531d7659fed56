"""Records TensorFlow 2.21's ``unique``, ``assert_cardinality``, ``from_list`` and
``with_options``/``options()`` (in TF1 graph mode) into tf_data_more.json, read by
tests/test_data_more.py.  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_data_more.py

The cases (tests/data/data_more_cases.py): each pipeline's elements and output_shapes,
cardinalities, the class and text of run-time errors, the class and text of build-time
errors, and each dataset's options() as the options it sets.
"""

import base64
import gzip
import json
import os
import tempfile
import zlib

import tensorflow.compat.v1 as tf
from data_more_cases import build_errors, cardinalities, described, jsonable, optionals, \
    options, pipelines, run_errors, sparse_batches, table_errors, tables, write_errors, \
    writes
from window_cases import plain, values     # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def shapes(dataset):
    return plain(tf.nest.map_structure(
        lambda s: s.as_list() if s.rank is not None else None,
        tf.data.get_output_shapes(dataset)))


def main():
    out = {"tensorflow": tf.__version__, "pipelines": {}, "cardinality": {},
           "run_errors": {}, "build_errors": {}, "options": {}, "tables": {},
           "table_errors": {}, "optionals": {}, "writes": {}, "write_errors": {},
           "sparse_batches": {}}
    for name in pipelines(tf):
        with tf.Graph().as_default():
            dataset = pipelines(tf)[name]
            out["pipelines"][name] = {
                "values": [jsonable(plain(v)) for v in values(tf, dataset)],
                "shapes": shapes(dataset),
                "types": plain(tf.nest.map_structure(lambda t: t.name,
                                                     tf.data.get_output_types(dataset)))}
    for name in cardinalities(tf):
        with tf.Graph().as_default(), tf.Session() as sess:
            dataset = cardinalities(tf)[name]
            out["cardinality"][name] = int(sess.run(tf.data.experimental.cardinality(dataset)))
    for name in run_errors(tf):
        with tf.Graph().as_default():
            dataset = run_errors(tf)[name]
            got = []
            element = tf.data.make_one_shot_iterator(dataset).get_next()
            with tf.Session() as sess:
                try:
                    while True:
                        got.append(int(sess.run(element)))
                except tf.errors.OpError as e:
                    out["run_errors"][name] = {"class": type(e).__name__,
                                               "message": e.message,
                                               "before": got}
    for name in build_errors(tf):
        with tf.Graph().as_default():
            try:
                build_errors(tf)[name]()
                raise AssertionError(f"{name} did not fail")
            except (ValueError, TypeError, AttributeError) as e:
                out["build_errors"][name] = {"class": type(e).__name__, "message": str(e)}
    for name in options(tf):
        with tf.Graph().as_default():
            out["options"][name] = described(options(tf)[name].options())
    for name in tables(tf):
        with tf.Graph().as_default():
            table, keys = tables(tf)[name]()
            found, size = table.lookup(keys), table.size()
            with tf.Session() as sess:
                try:
                    sess.run(tf.tables_initializer())
                except tf.errors.OpError as e:
                    out["tables"][name] = {"error": type(e).__name__,
                                           "message": e.message}
                    continue
                out["tables"][name] = {"lookup": jsonable(plain(sess.run(found))),
                                       "size": int(sess.run(size))}
    for name in table_errors(tf):
        with tf.Graph().as_default():
            try:
                table_errors(tf)[name]()
                raise AssertionError(f"{name} did not fail")
            except (ValueError, TypeError) as e:
                out["table_errors"][name] = {"class": type(e).__name__, "message": str(e)}
    for name in optionals(tf):
        with tf.Graph().as_default():
            optional = optionals(tf)[name]
            steps = []
            with tf.Session() as sess:
                for _ in range(3):
                    try:
                        has, value = sess.run([optional.has_value(), optional.get_value()])
                        steps.append({"has_value": bool(has),
                                      "value": jsonable(plain(value))})
                    except tf.errors.OpError as e:
                        steps.append({"error": type(e).__name__,
                                      "message": e.message})
            out["optionals"][name] = steps
    with tempfile.TemporaryDirectory() as folder, tf.Graph().as_default():
        ops = writes(tf, folder)
        with tf.Session() as sess:
            for name, (op, path) in ops.items():
                sess.run(op)
                data = open(path, "rb").read()
                plain_bytes = gzip.decompress(data) if name == "gzip" else \
                    zlib.decompress(data) if name == "zlib" else data
                out["writes"][name] = base64.b64encode(plain_bytes).decode()
    for name in sparse_batches(tf):
        with tf.Graph().as_default():
            dataset = sparse_batches(tf)[name]
            element = tf.data.make_one_shot_iterator(dataset).get_next()
            got = {"shape": tf.data.get_output_shapes(dataset).as_list(), "batches": []}
            with tf.Session() as sess:
                try:
                    while True:
                        v = sess.run(element)
                        got["batches"].append([v.indices.tolist(), v.values.tolist(),
                                               v.dense_shape.tolist()])
                except tf.errors.OutOfRangeError:
                    pass
                except tf.errors.OpError as e:
                    got["error"] = {"class": type(e).__name__, "message": e.message}
            out["sparse_batches"][name] = got
    for name in write_errors(tf):
        with tf.Graph().as_default():
            try:
                write_errors(tf)[name]()
                raise AssertionError(f"{name} did not fail")
            except TypeError as e:
                out["write_errors"][name] = str(e)
    with open(os.path.join(HERE, "tf_data_more.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("wrote tf_data_more.json")


if __name__ == "__main__":
    main()
