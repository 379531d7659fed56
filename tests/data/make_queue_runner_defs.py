"""Record TensorFlow's QueueRunnerDefs for queue_runner_def_cases.build, the MetaGraphDef
it exports (base64), and what a run dequeues before and after import_meta_graph.

    /work/peers/bin/python tests/data/make_queue_runner_defs.py
        # writes tests/data/queue_runner_defs.json
"""

import base64
import json
import os

import tensorflow.compat.v1 as tf
from tensorflow.core.protobuf import queue_runner_pb2

import queue_runner_def_cases as cases

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))

with tf.Graph().as_default() as graph:
    fetches = cases.build(tf)
    meta = tf.train.export_meta_graph(clear_devices=True)
    with tf.Session() as sess:
        built = cases.plain(cases.run_steps(tf, sess, fetches))
runners = [cases.runner_fields(queue_runner_pb2.QueueRunnerDef.FromString(b))
           for b in meta.collection_def["queue_runners"].bytes_list.value]

with tf.Graph().as_default() as graph:
    tf.train.import_meta_graph(meta)
    imported_runners = len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS))
    with tf.Session() as sess:
        imported = cases.plain(cases.run_steps(
            tf, sess, {k: graph.get_tensor_by_name(n) for k, n in cases.FETCHES.items()}))

with open(os.path.join(HERE, "queue_runner_defs.json"), "w") as f:
    json.dump({"tf_version": tf.VERSION, "runners": runners, "built": built,
               "imported": imported, "imported_runners": imported_runners,
               "meta_graph": base64.b64encode(meta.SerializeToString()).decode()},
              f, indent=1, sort_keys=True)
    f.write("\n")
print(len(runners), "runners", built[:2])
