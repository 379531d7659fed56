"""Record the bytes TensorFlow writes for the messages in top_level_proto_cases.

    /work/peers/bin/python tests/data/make_tf_top_level_protos.py
        # writes tests/data/tf_top_level_protos.json
"""

import json
import os

import tensorflow.compat.v1 as tf

import top_level_proto_cases

HERE = os.path.dirname(os.path.abspath(__file__))
recorded = {name: make(tf).SerializeToString(deterministic=True).hex()
            for name, make in top_level_proto_cases.CASES.items()}
with open(os.path.join(HERE, "tf_top_level_protos.json"), "w") as f:
    json.dump({"tf_version": tf.VERSION, "bytes": recorded}, f, indent=1, sort_keys=True)
    f.write("\n")
print(len(recorded), "messages")
