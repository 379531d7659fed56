"""Training driven by hooks, as TF1 Estimator-free scripts wrote it: a custom
tf.train.SessionRunHook (begin, after_create_session, before_run returning SessionRunArgs
with fetches and feeds, after_run reading run_values.results and asking run_context to
stop), FeedFnHook feeding batches, StopAtStepHook, NanTensorHook, FinalOpsHook reading a
final value, CheckpointSaverHook every 10 steps, and tf.train.SingularMonitoredSession,
then a second one restoring from the checkpoint directory."""

import tempfile

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(20, 3)).astype(np.float32)
    y_data = (x_data @ np.array([[1.0], [-1.0], [2.0]], np.float32)).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(np.zeros((3, 1), np.float32), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y), name="loss")
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)

    class Recorder(tf.train.SessionRunHook):
        def __init__(self):
            self.events, self.losses, self.steps = [], [], []

        def begin(self):
            self.events.append("begin")
            self.step = tf.train.get_global_step()

        def after_create_session(self, session, coord):
            self.events.append("after_create_session")

        def before_run(self, run_context):
            return tf.train.SessionRunArgs({"loss": loss, "step": self.step})

        def after_run(self, run_context, run_values):
            self.losses.append(run_values.results["loss"])
            self.steps.append(run_values.results["step"])
            if run_values.results["loss"] < 0.5:
                run_context.request_stop()

        def end(self, session):
            self.events.append("end")

    batches = iter(range(1000))

    def feed_fn():
        i = next(batches) % 4
        return {x: x_data[5 * i:5 * i + 5], y: y_data[5 * i:5 * i + 5]}

    recorder = Recorder()
    final = tf.train.FinalOpsHook(w)
    with tempfile.TemporaryDirectory() as tmp:
        hooks = [recorder, tf.train.FeedFnHook(feed_fn), tf.train.StopAtStepHook(last_step=30),
                 tf.train.NanTensorHook(loss), final,
                 tf.train.CheckpointSaverHook(tmp, save_steps=10)]
        with tf.train.SingularMonitoredSession(hooks=hooks, checkpoint_dir=tmp) as sess:
            while not sess.should_stop():
                sess.run(train_op)
            out["raw_session_step"] = sess.raw_session().run(global_step)
        out["events"] = recorder.events
        out["losses"] = np.array(recorder.losses)
        out["steps"] = recorder.steps
        out["final_w"] = final.final_ops_values
        out["checkpoint"] = tf.train.latest_checkpoint(tmp).rsplit("/", 1)[-1]
        with tf.train.SingularMonitoredSession(checkpoint_dir=tmp) as again:
            out["restored_step"] = again.run(global_step)
