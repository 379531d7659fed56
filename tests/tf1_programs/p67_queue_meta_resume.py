"""Resuming a queue-fed training run from its meta graph, as the CIFAR-10 tutorial's train
and eval scripts do: examples flow through tf.train.slice_input_producer and tf.train.batch
(queue runners started with a Coordinator), Saver.save writes model.ckpt-N.meta with the
graph's queue runners in it, and a fresh graph built only by tf.train.import_meta_graph gets
them back: tf.train.start_queue_runners starts them and training goes on from the restored
step, reading the batches from the start of the data again."""

import os
import tempfile

import numpy as np


def _train(tf, sess, train_op, loss, steps):
    """``steps`` training steps with the graph's queue runners running; the losses."""
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        return [sess.run([train_op, loss])[1] for _ in range(steps)]
    finally:
        coord.request_stop()
        coord.join(threads)


def main(tf, out):
    rng = np.random.RandomState(0)
    features = rng.normal(size=(12, 3)).astype(np.float32)
    targets = (features @ np.array([[0.5], [-1.0], [2.0]], np.float32)).astype(np.float32)

    # a dequeue with no runner feeding its queue fails after 20 s instead of waiting forever
    config = tf.ConfigProto(operation_timeout_in_ms=20000)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "model.ckpt")
        with tf.Graph().as_default():
            with tf.name_scope("input"):
                x, y = tf.train.slice_input_producer([features, targets], shuffle=False)
                x_batch, y_batch = tf.train.batch([x, y], batch_size=4, num_threads=1)
            w = tf.get_variable("w", initializer=np.zeros((3, 1), np.float32))
            loss = tf.reduce_mean(tf.square(tf.matmul(x_batch, w) - y_batch), name="loss")
            global_step = tf.train.get_or_create_global_step()
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=global_step)
            tf.add_to_collection("train_op", train_op)
            out["runners_built"] = [r.name for r in tf.get_collection(
                tf.GraphKeys.QUEUE_RUNNERS)]
            saver = tf.train.Saver()
            with tf.Session(config=config) as sess:
                sess.run(tf.global_variables_initializer())
                out["first_losses"] = np.array(_train(tf, sess, train_op, loss, 4))
                saver.save(sess, prefix, global_step=global_step)

        with tf.Graph().as_default() as graph:
            restorer = tf.train.import_meta_graph(prefix + "-4.meta")
            runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
            out["runners_imported"] = [r.name for r in runners]
            out["runner_enqueue_ops"] = [[op.name for op in r.enqueue_ops] for r in runners]
            train_op = tf.get_collection("train_op")[0]
            loss = graph.get_tensor_by_name("loss:0")
            with tf.Session(config=config) as sess:
                restorer.restore(sess, prefix + "-4")
                out["resumed_losses"] = np.array(_train(tf, sess, train_op, loss, 3))
                out["step_after_resume"] = sess.run(tf.train.get_global_step())
                out["w_after_resume"] = sess.run(graph.get_tensor_by_name("w:0"))
