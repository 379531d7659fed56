"""Data-parallel training on a parameter-server cluster, as TF1 users run it.

* In-graph replication: one client, one tower per worker, the towers' gradients
  averaged and applied on the ps; the same loss curve and parameters as the same model
  in one direct session.
* Between-graph replication: ps + 2 workers as ``devsession worker`` processes and two
  client processes, each with its own graph and session on its own worker, sharing the
  ps's variables by name (``ds.train.replica_device_setter``); the global step counts
  every client's steps.
* Checkpoints: a Saver saves and restores a cluster's variables, and a cluster
  checkpoint restores into a direct session.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import devsession as ds
from devsession.distributed import create_local_cluster
from devsession.distributed.local_processes import WorkerProcesses, free_ports

F32 = np.float32
W_TRUE = np.array([[1.5], [-2.0], [0.5], [3.0], [-1.0]], F32)
STEPS = 20


def data(seed: int, n: int = 64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 5)).astype(F32)
    return x, (x @ W_TRUE + F32(0.5) + F32(0.01) * rng.standard_normal((n, 1))).astype(F32)


@pytest.fixture(scope="module")
def ps_cluster():
    servers = create_local_cluster({"ps": 1, "worker": 2})
    yield servers
    for server in servers:
        server.stop(grace=0)


def linear(x, w, b):
    return ds.matmul(x, w) + b


def build(towers=None, ps="/job:ps/task:0"):
    """The model: MSE linear regression, SGD.  ``towers``: None (one batch), or the
    devices of the towers, each taking an equal share of the batch."""
    g = ds.Graph()
    with g.as_default():
        with ds.device(ps):
            w = ds.Variable(np.zeros((5, 1), F32), name="w")
            b = ds.Variable(np.zeros(1, F32), name="b")
            step = ds.train.get_or_create_global_step()
        opt = ds.train.GradientDescentOptimizer(0.1)
        if towers is None:
            x = ds.placeholder(ds.float32, (None, 5), name="x")
            y = ds.placeholder(ds.float32, (None, 1), name="y")
            loss = ds.reduce_mean(ds.square(linear(x, w, b) - y))
            train = opt.minimize(loss, global_step=step)
            feeds = [(x, y)]
        else:
            feeds, losses, grads = [], [], []
            for i, tower in enumerate(towers):
                with ds.device(tower):
                    x = ds.placeholder(ds.float32, (None, 5), name=f"x{i}")
                    y = ds.placeholder(ds.float32, (None, 1), name=f"y{i}")
                    tower_loss = ds.reduce_mean(ds.square(linear(x, w, b) - y))
                    grads.append(opt.compute_gradients(tower_loss, [w, b]))
                feeds.append((x, y))
                losses.append(tower_loss)
            with ds.device(ps):                  # averaged where the variables live
                averaged = [((g0 + g1) * 0.5, v) for (g0, v), (g1, _) in zip(*grads)]
                loss = (losses[0] + losses[1]) * 0.5
            train = opt.apply_gradients(averaged, global_step=step)
        init = ds.global_variables_initializer()
    return g, feeds, loss, train, init, (w, b, step)


def run_steps(sess, feeds, loss, train, x, y):
    halves = np.array_split(np.arange(len(x)), len(feeds))
    curve = []
    for _ in range(STEPS):
        feed = {}
        for (xp, yp), rows in zip(feeds, halves):
            feed[xp], feed[yp] = x[rows], y[rows]
        value, _ = sess.run([loss, train], feed)
        curve.append(value)
    return np.array(curve)


def test_in_graph_replication_matches_one_direct_session(ps_cluster):
    x, y = data(0)
    g, feeds, loss, train, init, (w, b, step) = build(ps=None)
    with ds.Session(graph=g) as direct:
        direct.run(init)
        direct_curve = run_steps(direct, feeds, loss, train, x, y)
        direct_w, direct_b = direct.run([w, b])
    towers = ["/job:worker/task:0", "/job:worker/task:1"]
    g, feeds, loss, train, init, (w, b, step) = build(towers)
    target = ps_cluster[1].target                   # the master: worker 0
    ds.reset(ds.SessionOptions(target=target))
    with ds.Session(target, graph=g) as sess:
        sess.run(init)
        cluster_curve = run_steps(sess, feeds, loss, train, x, y)
        cluster_w, cluster_b, steps = sess.run([w, b, step])
        placed = {n: str(p.device) for n, p in _placements(ps_cluster[1], sess).items()}
    # Each tower's backward pass ran on its worker, the update on the ps.
    assert placed["w"].startswith("/job:ps/replica:0/task:0")
    assert any(d.startswith("/job:worker/replica:0/task:1") and "gradients" in n
               for n, d in placed.items())
    assert direct_curve[-1] < direct_curve[0] / 10
    np.testing.assert_allclose(cluster_curve, direct_curve, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cluster_w, direct_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cluster_b, direct_b, rtol=1e-5, atol=1e-6)
    assert steps == STEPS


def _placements(server, sess) -> dict:
    """node -> Placement, over every step the session prepared (the master's record)."""
    master_session = server.master.state.session(sess._handle)
    return {name: placement for step in master_session._prepared.values()
            for name, placement in step.plan.placements.items()}


def test_a_cluster_checkpoint_restores_into_a_direct_session_and_back(ps_cluster, tmp_path):
    x, y = data(1)
    towers = ["/job:worker/task:0", "/job:worker/task:1"]
    g, feeds, loss, train, init, (w, b, step) = build(towers)
    target = ps_cluster[1].target
    ds.reset(ds.SessionOptions(target=target))
    with g.as_default():
        saver = ds.train.Saver()
    with ds.Session(target, graph=g) as sess:
        sess.run(init)
        run_steps(sess, feeds, loss, train, x, y)
        trained = dict(zip(("w", "b", "step"), sess.run([w, b, step])))
        path = saver.save(sess, str(tmp_path / "model"), global_step=step)
        assert path.endswith(f"model-{STEPS}")
        sess.run(init)                                      # forget the training
        assert sess.run(step) == 0
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), trained["w"])
        assert sess.run(step) == STEPS
    # The same model without any placement, in a direct session: matched by name.
    g2, feeds2, loss2, train2, init2, (w2, b2, step2) = build(ps=None)
    with g2.as_default():
        saver2 = ds.train.Saver()
    with ds.Session(graph=g2) as direct:
        saver2.restore(direct, ds.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(direct.run(w2), trained["w"])
        np.testing.assert_array_equal(direct.run(b2), trained["b"])
        assert direct.run(step2) == STEPS
        direct.run(train2, {feeds2[0][0]: x, feeds2[0][1]: y})   # and trains on from there
        assert direct.run(step2) == STEPS + 1


# --- between-graph replication, with processes ---------------------------------------------

CLIENT = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    import devsession as ds

    spec = ds.ClusterSpec.from_string(sys.argv[1])
    index, steps = int(sys.argv[2]), int(sys.argv[3])
    w_true = np.array([[1.5], [-2.0], [0.5], [3.0], [-1.0]], np.float32)
    with ds.device(ds.train.replica_device_setter(
            cluster=spec, worker_device=f"/job:worker/task:{index}")):
        step = ds.train.get_or_create_global_step()
        w = ds.Variable(np.zeros((5, 1), np.float32), name="w")
        b = ds.Variable(np.zeros(1, np.float32), name="b")
        x = ds.placeholder(ds.float32, (None, 5), name="x")
        y = ds.placeholder(ds.float32, (None, 1), name="y")
        loss = ds.reduce_mean(ds.square(ds.matmul(x, w) + b - y))
        train = ds.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)
    init = ds.global_variables_initializer()
    sess = ds.Session("grpc://" + spec.task_address("worker", index))
    if index == 0:                      # the chief initializes the shared variables
        sess.run(init)
    else:                               # the others wait for it, as TF1's do
        deadline = time.monotonic() + 60
        while True:
            try:
                sess.run([step, w, b])
                break
            except ds.errors.FailedPreconditionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
    rng = np.random.default_rng(index)
    losses = []
    for _ in range(steps):
        xb = rng.standard_normal((32, 5)).astype(np.float32)
        yb = xb @ w_true + np.float32(0.5)
        losses.append(float(sess.run([loss, train], {x: xb, y: yb})[0]))
    print(json.dumps({"first_loss": losses[0], "last_loss": losses[-1]}), flush=True)
""")


@pytest.mark.slow
def test_between_graph_replication_with_worker_and_client_processes(tmp_path):
    ports = free_ports(3)
    spec = ds.ClusterSpec({"ps": [f"127.0.0.1:{ports[0]}"],
                           "worker": [f"127.0.0.1:{p}" for p in ports[1:]]})
    ps, workers = WorkerProcesses(spec, job="ps"), WorkerProcesses(spec, job="worker")
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    steps = 60
    try:
        ps.start(0)
        for task in range(2):
            workers.start(task)
        clients = [subprocess.Popen([sys.executable, str(script), spec.to_string(), str(i),
                                     str(steps)], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for i in range(2)]
        outputs = [c.communicate(timeout=300) for c in clients]
        for client, (out, err) in zip(clients, outputs):
            assert client.returncode == 0, err[-3000:]
        results = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
        # Both trained the one shared model: each client's loss fell.
        assert all(r["last_loss"] < r["first_loss"] / 10 for r in results), results
        # Read the shared state from a third client: the global step counts every step of
        # both clients, and the weights learned what both saw.
        g = ds.Graph()
        with g.as_default(), ds.device("/job:ps/task:0"):
            step = ds.train.get_or_create_global_step()
            w = ds.Variable(np.zeros((5, 1), F32), name="w")
        with ds.Session("grpc://" + spec.task_address("worker", 1), graph=g) as sess:
            assert sess.run(step) == 2 * steps
            np.testing.assert_allclose(sess.run(w), W_TRUE, atol=0.05)
    finally:
        workers.stop()
        ps.stop()
