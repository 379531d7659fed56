"""The trainer program of TF1's "Distributed TensorFlow" guide, with only its import
changed (and a linear model on generated data instead of MNIST): each task is a process
of its own, started with ``--job_name``/``--task_index`` flags; the ps serves until it is
killed (``server.join()``), each worker trains through ``MonitoredTrainingSession`` on
its own in-process server under ``replica_device_setter`` until the shared global step
reaches ``last_step``; the chief initialises and writes the checkpoint.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np

import devsession as ds
from devsession.distributed.local_processes import first_line, free_ports

LAST_STEP = 150
W_TRUE = [[1.5], [-2.0], [0.5], [3.0], [-1.0]]

TRAINER = textwrap.dedent('''
    import numpy as np
    import devsession as tf

    flags = tf.app.flags
    flags.DEFINE_string("ps_hosts", "", "Comma-separated list of hostname:port pairs")
    flags.DEFINE_string("worker_hosts", "", "Comma-separated list of hostname:port pairs")
    flags.DEFINE_string("job_name", "", "One of 'ps', 'worker'")
    flags.DEFINE_integer("task_index", 0, "Index of task within the job")
    flags.DEFINE_string("train_dir", "/tmp/train_logs", "Where the chief writes checkpoints")
    flags.DEFINE_integer("last_step", 1000, "The global step to stop at")
    FLAGS = flags.FLAGS
    W_TRUE = np.array(%r, np.float32)


    def main(_):
        ps_hosts = FLAGS.ps_hosts.split(",")
        worker_hosts = FLAGS.worker_hosts.split(",")
        cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
        server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
        if FLAGS.job_name == "ps":
            print("ps serving", flush=True)
            server.join()
        elif FLAGS.job_name == "worker":
            with tf.device(tf.train.replica_device_setter(
                    worker_device="/job:worker/task:%%d" %% FLAGS.task_index, cluster=cluster)):
                x = tf.placeholder(tf.float32, [None, 5])
                y = tf.placeholder(tf.float32, [None, 1])
                w = tf.get_variable("w", [5, 1], initializer=tf.zeros_initializer())
                b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
                global_step = tf.train.get_or_create_global_step()
                train_op = tf.train.AdagradOptimizer(0.5).minimize(loss, global_step=global_step)
            hooks = [tf.train.StopAtStepHook(last_step=FLAGS.last_step)]
            rng = np.random.RandomState(FLAGS.task_index)
            steps = 0
            with tf.train.MonitoredTrainingSession(master=server.target,
                                                   is_chief=(FLAGS.task_index == 0),
                                                   checkpoint_dir=FLAGS.train_dir,
                                                   hooks=hooks) as mon_sess:
                while not mon_sess.should_stop():
                    xs = rng.randn(32, 5).astype(np.float32)
                    mon_sess.run(train_op, feed_dict={x: xs, y: xs @ W_TRUE + 0.5})
                    steps += 1
            print("worker %%d ran %%d steps" %% (FLAGS.task_index, steps), flush=True)


    if __name__ == "__main__":
        tf.app.run(main=main)
''') % (W_TRUE,)


def test_tf1_guides_trainer_runs_on_ps_and_worker_processes(tmp_path):
    script = tmp_path / "trainer.py"
    script.write_text(TRAINER)
    ports = free_ports(3)
    hosts = [f"127.0.0.1:{p}" for p in ports]
    common = [sys.executable, str(script), f"--ps_hosts={hosts[0]}",
              f"--worker_hosts={hosts[1]},{hosts[2]}", f"--train_dir={tmp_path / 'logs'}",
              f"--last_step={LAST_STEP}"]
    ps = subprocess.Popen(common + ["--job_name=ps", "--task_index=0"], text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    workers = []
    try:
        assert first_line(ps, timeout=60) == "ps serving\n"
        workers = [subprocess.Popen(common + ["--job_name=worker", f"--task_index={i}"],
                                    text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                   for i in range(2)]
        outputs = [w.communicate(timeout=120) for w in workers]
    finally:
        for proc in [ps, *workers]:
            proc.kill()
            proc.communicate(timeout=30)
    ran = []
    for i, (worker, (out, err)) in enumerate(zip(workers, outputs)):
        assert worker.returncode == 0, err[-3000:]
        assert out.startswith(f"worker {i} ran "), out
        ran.append(int(out.split()[3]))
    # both trained, every step of each counted once on the shared global step (a worker
    # may run one step past last_step: the hook sees the step its run returned)
    assert min(ran) > 0 and LAST_STEP <= sum(ran) <= LAST_STEP + 2, ran

    checkpoint = ds.train.latest_checkpoint(str(tmp_path / "logs"))
    assert checkpoint is not None
    values = {name: ds.train.load_variable(checkpoint, name) for name in ("w", "b")}
    assert ds.train.load_variable(checkpoint, "global_step") >= LAST_STEP
    np.testing.assert_allclose(values["w"], np.array(W_TRUE, np.float32), atol=0.05)
    np.testing.assert_allclose(values["b"], [0.5], atol=0.05)
