"""Writes tf_string_joins.json (TF's values of string_joins_cases.py: n-grams, segment
joins, Hash64 buckets, fingerprints) and tf_string_joins.pb (TF's GraphDef of them),
which tests/test_string_joins.py compares with and imports.  Run with TensorFlow
installed (not a test):

    /work/peers/bin/python tests/data/make_tf_string_joins.py
"""

import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import string_joins_cases  # noqa: E402


def plain(value):
    value = np.asarray(value)
    if value.dtype == object:
        return {"strings": [bytes(s).decode("utf-8") for s in value.reshape(-1)],
                "shape": list(value.shape)}
    return {"values": value.reshape(-1).tolist(), "shape": list(value.shape),
            "dtype": value.dtype.name}


graph = tf.Graph()
with graph.as_default():
    outs = string_joins_cases.all_cases(tf)
with tf.Session(graph=graph) as sess:
    values = sess.run(outs)
with open(os.path.join(HERE, "tf_string_joins.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
record = {key: {**plain(values[key]), "tensor": outs[key].name,
                "static": None if outs[key].shape.rank is None else
                [-1 if d is None else d for d in outs[key].shape.as_list()]}
          for key in outs}
with open(os.path.join(HERE, "tf_string_joins.json"), "w") as f:
    json.dump(record, f, indent=1, sort_keys=True, ensure_ascii=False)
    f.write("\n")
print(len(record), "cases;", sorted({n.op for n in graph.as_graph_def().node}))
