"""Resuming training from a meta graph, as TF1 scripts do without the model's Python code:
train a little, Saver.save (which writes model.ckpt.meta too), then in a fresh graph
tf.train.import_meta_graph + restore, look the tensors and the train op up by name and from
collections (tf.add_to_collection('train_op', ...)), train on, and freeze the result with
graph_util.convert_variables_to_constants + extract_sub_graph, re-imported with
tf.import_graph_def(input_map=..., return_elements=...)."""

import os
import tempfile

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(16, 3)).astype(np.float32)
    y_data = (x_data @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.ckpt")
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 3], name="x")
            y = tf.placeholder(tf.float32, [None, 1], name="y")
            w = tf.Variable(rng.normal(size=(3, 1)).astype(np.float32), name="w")
            b = tf.Variable(np.zeros(1, np.float32), name="b")
            prediction = tf.nn.bias_add(tf.matmul(x, w), b, name="prediction")
            loss = tf.reduce_mean(tf.square(prediction - y), name="loss")
            global_step = tf.train.get_or_create_global_step()
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=global_step, name="train")
            tf.add_to_collection("train_op", train_op)
            tf.add_to_collection("inputs", x)
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                first = [sess.run([train_op, loss], {x: x_data, y: y_data})[1]
                         for _ in range(3)]
                saver.save(sess, path, global_step=global_step)
        out["first_losses"] = np.array(first)
        out["files"] = sorted(f for f in os.listdir(tmp) if f.startswith("model.ckpt-3.meta")
                              or f == "checkpoint")
        latest = tf.train.latest_checkpoint(tmp)
        out["latest"] = os.path.basename(latest)

        with tf.Graph().as_default() as graph:
            restorer = tf.train.import_meta_graph(latest + ".meta")
            train_op = tf.get_collection("train_op")[0]
            x = tf.get_collection("inputs")[0]
            y = graph.get_tensor_by_name("y:0")
            loss = graph.get_tensor_by_name("loss:0")
            step = tf.train.get_global_step()
            out["restored_trainables"] = sorted(v.op.name for v in tf.trainable_variables())
            out["train_op_type"] = train_op.type
            with tf.Session() as sess:
                restorer.restore(sess, latest)
                out["step_after_restore"] = sess.run(step)
                resumed = [sess.run([train_op, loss], {x: x_data, y: y_data})[1]
                           for _ in range(3)]
                out["step_after_training"] = sess.run(step)
                frozen = tf.graph_util.convert_variables_to_constants(
                    sess, graph.as_graph_def(), ["prediction"])
        out["resumed_losses"] = np.array(resumed)
        frozen = tf.graph_util.extract_sub_graph(frozen, ["prediction"])
        out["frozen_ops"] = sorted({node.op for node in frozen.node})

    with tf.Graph().as_default():
        batch = tf.constant(x_data[:4])
        (prediction,) = tf.import_graph_def(frozen, input_map={"x:0": batch},
                                            return_elements=["prediction:0"], name="frozen")
        out["imported_name"] = prediction.name
        with tf.Session() as sess:
            out["frozen_prediction"] = sess.run(prediction)
