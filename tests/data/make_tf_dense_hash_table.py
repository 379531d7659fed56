"""Writes tf_dense_hash_table.npz (every fetched value of the scripts in
tests/data/dense_hash_table_cases.py, string arrays as fixed-width bytes, and of the
GraphDef tf_dense_hash_table.pb: a table of float32 vectors, an insert and a lookup) and
tf_dense_hash_table.json (each failing step's error class and message, the build errors
of dense_hash_table_cases.build_errors, and the names, dtypes and shapes a tf.train.Saver
checkpoint holds for a DenseHashTable), and the checkpoint itself,
tf_dense_hash_table_ckpt/model, for tests/test_dense_hash_table.py.  Run with TensorFlow
installed (not a test):

    TF_CPP_MIN_LOG_LEVEL=3 /work/peers/bin/python tests/data/make_tf_dense_hash_table.py
"""

import json
import os
import shutil
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dense_hash_table_cases as cases  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def storable(array: np.ndarray) -> np.ndarray:
    return array.astype(bytes) if array.dtype == object else array


arrays, errors = {}, {}
for script, build in cases.SCRIPTS.items():
    with tf.Graph().as_default():
        steps = build(tf)
        with tf.Session() as sess:
            for step, result in cases.run_script(tf, sess, steps).items():
                if isinstance(result, tuple):
                    errors[f"{script}/{step}"] = list(result[1:])
                    continue
                for i, value in enumerate(result):
                    arrays[f"{script}/{step}/{i}"] = storable(value)

build_errors = {}
for case, build in cases.build_errors(tf).items():
    with tf.Graph().as_default():
        try:
            build()
            build_errors[case] = None
        except Exception as e:                    # noqa: BLE001 (recorded, class and all)
            build_errors[case] = [type(e).__name__, str(e)]

with tf.Graph().as_default() as graph:
    table = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, [0.0, 1.0],
                                                  empty_key=-1, deleted_key=-2,
                                                  initial_num_buckets=4)
    insert = table.insert(tf.constant([5, 6, 7], tf.int64),
                          tf.constant([[1, 2], [3, 4], [5, 6]], tf.float32), name="insert")
    found = tf.identity(table.lookup(tf.constant([5, 9, 7], tf.int64)), name="found")
    exported = table.export(name="exported")
    with tf.Session() as sess:
        sess.run(insert)
        arrays["graph/found/0"], (arrays["graph/export/0"], arrays["graph/export/1"]) = \
            sess.run([found, exported])
    with open(os.path.join(HERE, "tf_dense_hash_table.pb"), "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())

ckpt_dir = os.path.join(HERE, "tf_dense_hash_table_ckpt")
shutil.rmtree(ckpt_dir, ignore_errors=True)
with tf.Graph().as_default():
    table, fill = cases.saved_table(tf)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(fill)
        arrays["saved/export/0"], arrays["saved/export/1"] = sess.run(table.export())
        prefix = saver.save(sess, os.path.join(ckpt_dir, "model"), write_meta_graph=False,
                            write_state=False)
reader = tf.train.load_checkpoint(prefix)
checkpoint = {name: [reader.get_variable_to_dtype_map()[name].name, shape]
              for name, shape in tf.train.list_variables(prefix)}

np.savez_compressed(os.path.join(HERE, "tf_dense_hash_table.npz"), **arrays)
with open(os.path.join(HERE, "tf_dense_hash_table.json"), "w") as f:
    json.dump({"errors": errors, "build_errors": build_errors, "checkpoint": checkpoint},
              f, indent=1, sort_keys=True)
print(len(arrays), "arrays,", len(errors), "errors;", build_errors, checkpoint)
