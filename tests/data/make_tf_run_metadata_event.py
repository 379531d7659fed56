"""Record what TensorFlow's FileWriter.add_run_metadata writes for a traced run of a
matmul (the MNIST-with-summaries tutorial's 'Adding run metadata' step): each event's step
and tag, and the RunMetadata read back (devices, the graph's nodes among the step stats),
and the error for a tag used twice.

    /work/peers/bin/python tests/data/make_tf_run_metadata_event.py
        # writes tests/data/tf_run_metadata_event.json
"""

import glob
import json
import os
import tempfile

import tensorflow.compat.v1 as tf
from tensorflow.core.protobuf import config_pb2

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def events(logdir) -> list:
    """(step, tag, {device: graph nodes in its stats}) of each tagged_run_metadata event."""
    out = []
    for event in tf.train.summary_iterator(glob.glob(os.path.join(logdir, "*"))[0]):
        if event.HasField("tagged_run_metadata"):
            meta = config_pb2.RunMetadata.FromString(event.tagged_run_metadata.run_metadata)
            out.append([event.step, event.tagged_run_metadata.tag,
                        {d.device: sorted(n.node_name for n in d.node_stats
                                          if not n.node_name.startswith("_"))
                         for d in meta.step_stats.dev_stats}])
    return out


logdir = tempfile.mkdtemp()
x = tf.placeholder(tf.float32, [2, 2], name="x")
y = tf.matmul(x, x, name="mm")
with tf.Session() as sess:
    run_metadata = tf.RunMetadata()
    sess.run(y, {x: [[1, 2], [3, 4]]},
             options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
             run_metadata=run_metadata)
writer = tf.summary.FileWriter(logdir)
writer.add_run_metadata(run_metadata, "step001", global_step=3)
try:
    writer.add_run_metadata(run_metadata, "step001")
    twice = None
except ValueError as e:
    twice = ["ValueError", str(e)]
writer.add_run_metadata(run_metadata, "untimed")
writer.close()
with open(os.path.join(HERE, "tf_run_metadata_event.json"), "w") as f:
    json.dump({"tf_version": tf.VERSION, "events": events(logdir), "tag_twice": twice}, f,
              indent=1, sort_keys=True)
    f.write("\n")
print(events(logdir), twice)
