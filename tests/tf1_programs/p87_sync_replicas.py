"""Synchronous data-parallel training as TF1's distributed scripts (mnist_replica.py)
wrote it, in one process: a cluster of 1 ps and 2 workers started in-process with
tf.train.ClusterSpec + tf.train.Server on free localhost ports, one graph per worker
(between-graph replication) with its variables placed on the ps by
tf.train.replica_device_setter, tf.train.SyncReplicasOptimizer(replicas_to_aggregate=2,
total_num_replicas=2) and its make_session_run_hook, and each worker stepping in its own
thread through tf.train.MonitoredTrainingSession (the chief initialises, starts the
chief's queue runner; the other waits for it) with a StopAtStepHook, on fixed batches of
its own.  Recorded: the placement, each worker's losses and the tokens (the global step
after each aggregated update), the trained variables read back through a plain session
on the cluster, and that they equal single-process SGD on the averaged gradient; stale
gradients dropped by a shared ConditionalAccumulator on the ps (the mechanism the
optimizer uses), and the optimizer's building errors.

Determinism: with num_tokens=0 no worker holds a token to run ahead with: each step
both push their gradients and wait in the token queue's dequeue until the chief's update
puts one token per worker in, so each aggregated step averages one gradient of each
worker, computed at the same variables (a worker could take the other's token only by
running a whole step between the other's push and its dequeue).  The workers' threads
are tf.train.LooperThreads (the programs import no threading), each under a Coordinator
of its own; the chief starts the other worker once its session is initialised.  Every
run has an operation timeout, so a lost worker fails instead of hanging.  The ports are
picked at random among those /proc/net/tcp shows unused; nothing recorded depends on
them.  TF's servers cannot be stopped; they end with the process."""

import os

import numpy as np

FEATURES, HIDDEN, CLASSES, BATCH, STEPS, LR = 6, 5, 3, 8, 4, 0.5


def free_ports(count):
    """Ports no socket of this machine listens on or uses (from /proc/net/tcp*)."""
    used = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        if os.path.exists(name):
            with open(name) as f:
                for line in f.readlines()[1:]:
                    used.add(int(line.split()[1].rsplit(":", 1)[1], 16))
    rng = np.random.RandomState(int.from_bytes(os.urandom(4), "little"))
    ports = []
    while len(ports) < count:
        port = int(rng.randint(20000, 32000))
        if port not in used and port not in ports:
            ports.append(port)
    return ports


def main(tf, out):
    rng = np.random.RandomState(0)
    init = {"hid_w": rng.normal(0, 0.5, (FEATURES, HIDDEN)), "hid_b": np.full(HIDDEN, 0.1),
            "sm_w": rng.normal(0, 0.5, (HIDDEN, CLASSES)), "sm_b": np.zeros(CLASSES)}
    init = {k: v.astype(np.float32) for k, v in init.items()}
    images = rng.normal(size=(2, STEPS, BATCH, FEATURES)).astype(np.float32)
    labels = rng.randint(0, CLASSES, (2, STEPS, BATCH)).astype(np.int32)

    hosts = ["127.0.0.1:%d" % p for p in free_ports(3)]
    cluster = tf.train.ClusterSpec({"ps": hosts[:1], "worker": hosts[1:]})
    out["cluster"] = [sorted(cluster.jobs), cluster.num_tasks("ps"), cluster.num_tasks("worker")]
    ps = tf.train.Server(cluster, job_name="ps", task_index=0)
    workers = [tf.train.Server(cluster, job_name="worker", task_index=i) for i in range(2)]
    config = tf.ConfigProto(operation_timeout_in_ms=20000)   # a lost replica fails, not hangs

    def model(x, y, params):
        hidden = tf.nn.relu(tf.nn.xw_plus_b(x, params["hid_w"], params["hid_b"]))
        logits = tf.nn.xw_plus_b(hidden, params["sm_w"], params["sm_b"])
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits))

    def build_worker(task):
        graph = tf.Graph()
        with graph.as_default(), tf.device(tf.train.replica_device_setter(
                worker_device="/job:worker/task:%d" % task, cluster=cluster)):
            global_step = tf.train.get_or_create_global_step()
            params = {k: tf.Variable(v, name=k) for k, v in init.items()}
            x = tf.placeholder(tf.float32, [None, FEATURES], name="x")
            y = tf.placeholder(tf.int32, [None], name="y")
            loss = model(x, y, params)
            opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                                 replicas_to_aggregate=2,
                                                 total_num_replicas=2)
            train_op = opt.minimize(loss, global_step=global_step)
        return dict(graph=graph, step=global_step, params=params, x=x, y=y, loss=loss,
                    opt=opt, train=train_op)

    models = [build_worker(task) for task in range(2)]
    with models[1]["graph"].as_default():   # the local step and the train op stay on the worker
        out["global_variables"] = {v.op.name: v.device for v in tf.global_variables()}
        out["local_variables"] = {v.op.name: [v.device, v.op.colocation_groups()]
                                  for v in tf.local_variables()}
    train = models[1]["train"].op
    out["train_op"] = [train.type, train.device, train.colocation_groups()]
    runs = {0: [], 1: []}
    coords = [tf.train.Coordinator(), tf.train.Coordinator()]
    started = []

    def train(task):
        m = models[task]
        hooks = [m["opt"].make_session_run_hook(is_chief=(task == 0), num_tokens=0),
                 tf.train.StopAtStepHook(last_step=STEPS)]
        with m["graph"].as_default():
            with tf.train.MonitoredTrainingSession(master=workers[task].target,
                                                   is_chief=(task == 0), hooks=hooks,
                                                   config=config,
                                                   stop_grace_period_secs=0.5) as sess:
                if task == 0:   # the chief has initialised: the other worker may start
                    started.append(tf.train.LooperThread.loop(coords[1], None, train, (1,)))
                k = 0
                while not sess.should_stop():
                    feed = {m["x"]: images[task, k], m["y"]: labels[task, k]}
                    token, loss = sess.run([m["train"], m["loss"]], feed)
                    runs[task].append((token, loss))
                    k += 1
        coords[task].request_stop()

    tf.train.LooperThread.loop(coords[0], None, train, (0,))
    coords[0].join(stop_grace_period_secs=60)
    if started:
        coords[1].join(stop_grace_period_secs=60)
    out["tokens"] = [[int(t) for t, _ in runs[task]] for task in range(2)]
    out["losses"] = np.array([[l for _, l in runs[task]] for task in range(2)])

    m = models[1]
    with tf.Session(workers[1].target, graph=m["graph"], config=config) as sess:
        out["global_step"] = sess.run(m["step"])
        trained = sess.run(m["params"])
    out["trained"] = trained

    # the same model in one process: SGD on the average of the two workers' gradients
    with tf.Graph().as_default():
        params = {k: tf.Variable(v, name=k) for k, v in init.items()}
        x = tf.placeholder(tf.float32, [2, None, FEATURES])
        y = tf.placeholder(tf.int32, [2, None])
        losses = [model(x[i], y[i], params) for i in range(2)]
        step = tf.train.GradientDescentOptimizer(LR).minimize(tf.add_n(losses) / 2.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            single = [sess.run([step] + losses, {x: images[:, k], y: labels[:, k]})[1:]
                      for k in range(STEPS)]
            reference = sess.run(params)
    out["single_process_losses"] = np.array(single).T
    out["single_process"] = reference
    out["max_difference"] = max(float(np.abs(trained[k] - reference[k]).max()) for k in init)
    out["_tol"] = {"max_difference": {"rtol": 0, "atol": 1e-5}}
    out["matches_single_process"] = out["max_difference"] < 1e-5

    # stale gradients: what the optimizer's accumulators drop, on a shared one on the ps
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            accum = tf.ConditionalAccumulator(tf.float32, shape=[2], shared_name="grad_accum")
        grad = tf.placeholder(tf.float32, [2])
        local_step = tf.placeholder(tf.int64, [])
        push = accum.apply_grad(grad, local_step=local_step)
        set_step = accum.set_global_step(3)
        count = accum.num_accumulated()
        take = accum.take_grad(2)
        with tf.Session(workers[0].target, config=config) as first, \
                tf.Session(workers[1].target, config=config) as second:
            first.run(set_step)
            first.run(push, {grad: [1.0, 2.0], local_step: 3})
            second.run(push, {grad: [9.0, 9.0], local_step: 2})      # stale: dropped
            counts = [first.run(count)]
            second.run(push, {grad: [3.0, 6.0], local_step: 4})
            counts.append(second.run(count))
            out["stale_take"] = first.run(take)
            counts.append(first.run(count))
            first.run(push, {grad: [5.0, 5.0], local_step: 3})       # stale after the take
            counts.append(second.run(count))
        out["stale_counts"] = counts

    # what a script gets wrong
    errors = {}
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                             replicas_to_aggregate=3, total_num_replicas=2)
        for key, fn in [
                ("runner_first", opt.get_chief_queue_runner),
                ("hook_first", lambda: opt.make_session_run_hook(True).begin()),
                ("no_global_step", lambda: opt.apply_gradients([(tf.constant([1.0]), w)])),
                ("no_pairs", lambda: opt.apply_gradients(
                    [], global_step=tf.train.get_or_create_global_step())),
                ("too_few_tokens", lambda: (opt.apply_gradients(
                    [(tf.constant([1.0]), w)], global_step=tf.train.get_global_step()),
                    opt.get_init_tokens_op(0)))]:
            try:
                fn()
                errors[key] = None
            except ValueError as e:
                errors[key] = ["ValueError", str(e)]
    out["errors"] = errors
