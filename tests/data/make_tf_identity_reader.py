"""Writes tf_identity_reader.json: what TF 2.21's ``tf.IdentityReader`` gives reading a
closed queue of work items (a read, read_up_to calls, the counts, the end, and a reset),
which tests/test_queue_pipelines.py compares with devsession's.  Run with TensorFlow
installed (not a test):

    TF_CPP_MIN_LOG_LEVEL=3 /work/peers/bin/python tests/data/make_tf_identity_reader.py
"""

import json
import os

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
ITEMS = ["a", "b:1", "", "\u00e9t\u00e9", "e", "f"]


def plain(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


queue = tf.FIFOQueue(10, tf.string)
fill = queue.enqueue_many([ITEMS])
reader = tf.IdentityReader()
read = reader.read(queue)
read_up_to = reader.read_up_to(queue, 3)
counts = [reader.num_records_produced(), reader.num_work_units_completed()]
steps = []
with tf.Session() as sess:
    sess.run([fill, queue.close()])
    for what in [read, read, read_up_to, counts, read_up_to, read, counts,
                 reader.reset(), counts, read, read_up_to]:
        try:
            steps.append(plain(sess.run(what)))
        except tf.errors.OpError as e:
            steps.append(["error", type(e).__name__])
with open(os.path.join(HERE, "tf_identity_reader.json"), "w") as f:
    json.dump({"items": ITEMS, "op": reader.reader_ref.op.type, "steps": steps}, f, indent=1)
print(steps)
