"""In-process distributed TF1: tf.train.Server.create_local_server and sessions on its
target. Variables live in the server, not in a session: a second session on the same
target sees the values the first one trained (and is_variable_initialized is True there
without running the initializer), a Saver works through it, the device of the variables
names the server's job, and tf.train.replica_device_setter places variables on the ps job
of a ClusterSpec by round robin (the placement a ps/worker script builds)."""

import os
import tempfile

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(8, 2)).astype(np.float32)
    y_data = (x_data @ np.array([[2.0], [-1.0]], np.float32)).astype(np.float32)

    server = tf.train.Server.create_local_server()
    out["target_scheme"] = server.target.split("://")[0]

    w = tf.Variable(np.zeros((2, 1), np.float32), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x_data), w) - y_data))
    train_op = tf.train.GradientDescentOptimizer(0.2).minimize(loss)
    initialized = tf.is_variable_initialized(w)
    with tf.Session(server.target) as first:
        out["initialized_before"] = first.run(initialized)
        first.run(tf.global_variables_initializer())
        out["losses"] = np.array([first.run([train_op, loss])[1] for _ in range(4)])
        trained = first.run(w)
    with tf.Session(server.target) as second:
        out["initialized_in_second_session"] = second.run(initialized)
        out["same_values_in_second_session"] = bool(np.array_equal(second.run(w), trained))
        with tempfile.TemporaryDirectory() as tmp:
            saver = tf.train.Saver([w])
            path = saver.save(second, os.path.join(tmp, "w"))
            second.run(w.assign(tf.zeros([2, 1])))
            saver.restore(second, path)
            out["restored"] = second.run(w)

    cluster = tf.train.ClusterSpec({"ps": ["ps0:2222", "ps1:2222"],
                                    "worker": ["worker0:2222", "worker1:2222"]})
    out["cluster_jobs"] = sorted(cluster.jobs)
    out["num_workers"] = cluster.num_tasks("worker")
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device=
                                                      "/job:worker/task:1")):
            a = tf.Variable(1.0, name="a")
            b = tf.Variable(2.0, name="b")
            c = tf.Variable(3.0, name="c")
            total = tf.add_n([a, b, c], name="total")
        out["placement"] = {v.op.name: v.device for v in (a, b, c)}
        out["compute_device"] = total.device
