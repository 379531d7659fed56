"""The training-loop programs tests/data/make_tf_train_loops.py records from TensorFlow
and tests/test_train_loops.py runs in devsession, written once against the TF1 module
each side passes (``tf``: ``tensorflow.compat.v1`` or ``devsession``): a train op
stepping the global step, a ProfilerHook run, a CheckpointSaverListener run, and
``basic_train_loop`` over a fake supervisor whose second step aborts."""

import os


def train_op(tf):
    return tf.assign_add(tf.train.get_or_create_global_step(), 1)


def profile(tf, directory, save_steps) -> list:
    """7 steps under a ProfilerHook writing into ``directory``; the steps it traced."""
    with tf.Graph().as_default():
        op = train_op(tf)
        hook = tf.train.ProfilerHook(save_steps=save_steps, output_dir=str(directory))
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(7):
                sess.run(op)
    return sorted(int(f[len("timeline-"):-len(".json")]) for f in os.listdir(directory)
                  if f.startswith("timeline-"))


def listener_class(tf):
    """A CheckpointSaverListener recording its calls; ``after_save`` asks to stop at
    ``stop_at``."""
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
    return Listener


def run_listener(tf, directory, save_steps, stop_at=None) -> dict:
    """Up to 7 steps under a CheckpointSaverHook with a recording listener."""
    with tf.Graph().as_default():
        op = train_op(tf)
        listener = listener_class(tf)(stop_at)
        hook = tf.train.CheckpointSaverHook(str(directory), save_steps=save_steps,
                                            listeners=[listener])
        runs = 0
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            while not sess.should_stop() and runs < 7:
                sess.run(op)
                runs += 1
    return {"calls": listener.calls, "runs": runs}


class FakeSupervisor:
    """What ``basic_train_loop`` uses of a Supervisor, recording its calls."""

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


def basic_loop(tf) -> list:
    """``basic_train_loop`` over a FakeSupervisor whose second step aborts; its calls."""
    sup = FakeSupervisor()

    def step(sess, a, b=0):
        sup.steps += 1
        sup.calls.append(["step", sess, a, b])
        if sup.steps == 2:
            raise tf.errors.AbortedError(None, None, "ps restarted")

    tf.train.basic_train_loop(sup, step, args=[1], kwargs={"b": 2}, master="grpc://x")
    return sup.calls
