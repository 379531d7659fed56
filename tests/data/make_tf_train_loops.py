"""Records how TensorFlow 2.21's TF1 ``ProfilerHook``, ``CheckpointSaverListener`` (through
``CheckpointSaverHook``), ``basic_train_loop`` and ``assert_global_step`` behave into
tf_train_loops.json, read by tests/test_train_loops.py.  Run once, with TensorFlow (never
a test dependency):

    /work/peers/bin/python tests/data/make_tf_train_loops.py

``profiler``: save_steps -> the steps of the timeline-<step>.json files after 7 runs of a
train op incrementing the global step.  ``listener``: the listener's calls (name, step)
for save_steps -> a run of 7 steps; ``stop_after_save``: the same when ``after_save``
returns True at step 4 (how many runs the loop made).  ``basic_loop``: the calls a fake
supervisor saw.  ``assert_global_step``: case -> the error's class and message or None.
"""

import json
import os
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def train_op():
    step = tf.train.get_or_create_global_step()
    return tf.assign_add(step, 1)


def profiler(save_steps):
    with tf.Graph().as_default(), tempfile.TemporaryDirectory() as d:
        op = train_op()
        hook = tf.train.ProfilerHook(save_steps=save_steps, output_dir=d)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(7):
                sess.run(op)
        return sorted(int(f[len("timeline-"):-len(".json")]) for f in os.listdir(d)
                      if f.startswith("timeline-"))


class Listener(tf.train.CheckpointSaverListener):
    def __init__(self, stop_at=None):
        self.calls, self.stop_at = [], stop_at

    def begin(self):
        self.calls.append(["begin", None])

    def before_save(self, session, global_step_value):
        self.calls.append(["before_save", int(global_step_value)])

    def after_save(self, session, global_step_value):
        self.calls.append(["after_save", int(global_step_value)])
        return self.stop_at is not None and global_step_value >= self.stop_at

    def end(self, session, global_step_value):
        self.calls.append(["end", int(global_step_value)])


def listener(save_steps, stop_at=None):
    with tf.Graph().as_default(), tempfile.TemporaryDirectory() as d:
        op = train_op()
        lis = Listener(stop_at)
        hook = tf.train.CheckpointSaverHook(d, save_steps=save_steps, listeners=[lis])
        runs = 0
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            while not sess.should_stop() and runs < 7:
                sess.run(op)
                runs += 1
        return {"calls": lis.calls, "runs": runs}


class FakeSupervisor:
    def __init__(self):
        self.calls, self.sessions, self.steps = [], 0, 0

    def managed_session(self, master):
        sup = self

        class Ctx:
            def __enter__(self):
                sup.sessions += 1
                sup.calls.append(["open", master])
                return "sess%d" % sup.sessions

            def __exit__(self, *exc):
                sup.calls.append(["close", exc[0].__name__ if exc[0] else None])
                return False
        return Ctx()

    def should_stop(self):
        return self.steps >= 4


def basic_loop():
    sup = FakeSupervisor()

    def step(sess, a, b=0):
        sup.steps += 1
        sup.calls.append(["step", sess, a, b])
        if sup.steps == 2:
            raise tf.errors.AbortedError(None, None, "ps restarted")

    tf.train.basic_train_loop(sup, step, args=[1], kwargs={"b": 2}, master="grpc://x")
    return sup.calls


def assert_cases():
    with tf.Graph().as_default():
        cases = {
            "int64_variable": tf.Variable(0, dtype=tf.int64),
            "int32_tensor": tf.constant(3),
            "float_variable": tf.Variable(0.0),
            "vector": tf.Variable([1, 2]),
            "unknown_shape": tf.placeholder(tf.int64, None),
            "partly_known": tf.placeholder(tf.int64, [None, 2]),
            "python_int": 3,
        }
        out = {}
        for name, value in cases.items():
            try:
                tf.train.assert_global_step(value)
                out[name] = None
            except Exception as e:  # noqa: BLE001  (recording what TF raises)
                out[name] = [type(e).__name__, str(e)]
        return out


def main():
    record = {"profiler": {str(n): profiler(n) for n in (1, 2, 3)},
              "listener": {str(n): listener(n) for n in (2, 3)},
              "stop_after_save": listener(1, stop_at=4),
              "basic_loop": basic_loop(),
              "assert_global_step": assert_cases()}
    with open(os.path.join(HERE, "tf_train_loops.json"), "w") as f:
        json.dump(record, f, indent=1)
    print(json.dumps(record))


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()
