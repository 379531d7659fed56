"""ds.train.SyncReplicasOptimizer: the graph TF1 builds, synchronous training in one
process (two replica threads sharing a graph and a session, the chief's queue runner
beside them) and across a real local cluster (1 ps + 2 workers, each worker a client
with its own graph and MonitoredTrainingSession), both against numpy; and resources
made with a shared name meeting across a server's sessions.

With ``num_tokens=0`` every step is a barrier: each replica's gradients of step k are
computed from the variables after k updates, so the run is deterministic.  Every run
has a deadline and every thread a join timeout: nothing here can hang."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import devsession as ds
from devsession.distributed import create_local_cluster

F32 = np.float32
W_TRUE = np.array([[1.0], [-2.0], [0.5]], F32)
LR, STEPS = 0.1, 6
OPTIONS = ds.SessionOptions(operation_timeout_s=10)


def batches(replica: int, steps: int = STEPS):
    """Each replica's own batches (x, y) of a linear model."""
    rng = np.random.default_rng(100 + replica)
    out = []
    for _ in range(steps):
        x = rng.standard_normal((8, 3)).astype(F32)
        out.append((x, (x @ W_TRUE + F32(0.3)).astype(F32)))
    return out


def numpy_sync_training(replicas: int, steps: int = STEPS):
    """The oracle: each step, every replica's MSE gradients at the same variables,
    averaged, one SGD update."""
    w, b = np.zeros((3, 1)), np.zeros(1)
    data = [batches(r, steps) for r in range(replicas)]
    for k in range(steps):
        grads_w, grads_b = [], []
        for r in range(replicas):
            x, y = (a.astype(np.float64) for a in data[r][k])
            error = 2.0 * (x @ w + b - y) / len(x)
            grads_w.append(x.T @ error)
            grads_b.append(error.sum(0))
        w = w - LR * np.mean(grads_w, axis=0)
        b = b - LR * np.mean(grads_b, axis=0)
    return w, b


def build(replicas_to_aggregate=2, total_num_replicas=None, device_fn=None, **kwargs):
    """The model under SyncReplicasOptimizer(GradientDescent); a dict of its parts."""
    g = ds.Graph()
    with g.as_default(), ds.device(device_fn):
        step = ds.train.get_or_create_global_step()
        w = ds.Variable(np.zeros((3, 1), F32), name="w")
        b = ds.Variable(np.zeros(1, F32), name="b")
        x = ds.placeholder(ds.float32, (None, 3), name="x")
        y = ds.placeholder(ds.float32, (None, 1), name="y")
        loss = ds.reduce_mean(ds.square(ds.matmul(x, w) + b - y))
        opt = ds.train.SyncReplicasOptimizer(ds.train.GradientDescentOptimizer(LR),
                                             replicas_to_aggregate, total_num_replicas,
                                             **kwargs)
        train = opt.minimize(loss, global_step=step)
    return dict(graph=g, step=step, w=w, b=b, x=x, y=y, opt=opt, train=train)


def run_threads(targets, timeout=20):
    """Run each callable on a daemon thread; re-raise the first error; fail (not hang)
    if one is still running after ``timeout`` seconds."""
    errors = []

    def guarded(fn):
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(fn,), daemon=True) for fn in targets]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(deadline - time.monotonic(), 0.01))
    assert not any(t.is_alive() for t in threads), "a replica is still blocked"
    if errors:
        raise errors[0]


# --- the graph -----------------------------------------------------------------------------

def test_builds_tf1s_graph():
    m = build()
    g, opt = m["graph"], m["opt"]
    with g.as_default():
        local = ds.local_variables()
        assert [v.op.name for v in local] == ["sync_rep_local_step"]
        assert local[0].dtype == ds.int64 and local[0] not in ds.trainable_variables()
        # colocated with a NoOp of the replica, as TF1's; so is the train op writing it
        assert local[0].op.colocation_groups() == [b"loc:@NoOp"]
        assert m["train"].op.colocation_groups() == [b"loc:@NoOp"]
        accumulators = [op for op in g.get_operations() if op.type == "ConditionalAccumulator"]
        assert sorted(op.attrs["shared_name"] for op in accumulators) == [
            "b:0/grad_accum", "w:0/grad_accum"]
        assert all(op.name.startswith("sync_replicas/") for op in accumulators)
        takes = [op for op in g.get_operations() if op.type == "AccumulatorTakeGradient"]
        assert len(takes) == 2
        queue = g.get_operation_by_name("sync_token_q")
        assert (queue.type, queue.attrs["shared_name"]) == ("FIFOQueueV2", "sync_token_q")
        assert m["train"].op.type == "Assign"        # the token into the local step
        assert opt.get_chief_queue_runner().queue.name == "sync_token_q"
        assert opt.chief_init_op.type == "NoOp"
        assert opt.get_init_tokens_op().type == "QueueEnqueueManyV2"
        assert opt.get_init_tokens_op(0).name.startswith("no_init_tokens")
        assert opt.variables() == [] and opt.get_slot_names() == []


def test_tf1s_building_errors():
    g = ds.Graph()
    with g.as_default():
        w = ds.Variable([1.0], name="w")
        step = ds.train.get_or_create_global_step()
        opt = ds.train.SyncReplicasOptimizer(ds.train.MomentumOptimizer(0.1, 0.9), 3,
                                             total_num_replicas=2)
        with pytest.raises(ValueError, match="after apply_gradients"):
            opt.get_chief_queue_runner()
        with pytest.raises(ValueError, match="should be called after apply_gradients"):
            opt.get_init_tokens_op()
        with pytest.raises(ValueError, match="apply_gradient should be called before"):
            opt.make_session_run_hook(True).begin()
        with pytest.raises(ValueError, match="Must supply at least one variable"):
            opt.apply_gradients([], global_step=step)
        with pytest.raises(ValueError, match="Global step is required to check staleness"):
            opt.apply_gradients([(ds.constant([1.0]), w)])
        opt.apply_gradients([(ds.constant([1.0]), w)], global_step=step)
        with pytest.raises(ValueError, match=r"Too few tokens to finish the first step: 0 "
                                             r"\(given\) vs 1 \(needed\)"):
            opt.get_init_tokens_op(0)
        assert opt.get_slot_names() == ["momentum"]      # the wrapped optimizer's slots
        assert opt.get_slot(w, "momentum").op.name == "w/Momentum"


# --- in one process ----------------------------------------------------------------------------

def start_replicas(m, sess, is_chief=True, num_tokens=0):
    """The hook's work on ``sess``: init ops, tokens, the chief's queue runner."""
    hook = m["opt"].make_session_run_hook(is_chief, num_tokens=num_tokens)
    hook.begin()
    coord = ds.train.Coordinator()
    hook.after_create_session(sess, coord)
    return coord


def test_two_replica_threads_apply_the_average_of_their_gradients():
    m = build()
    with m["graph"].as_default():
        init = [ds.global_variables_initializer(), ds.local_variables_initializer()]
    sess = ds.Session(graph=m["graph"], options=OPTIONS)
    coord = None
    try:
        sess.run(init)
        coord = start_replicas(m, sess)

        def replica(r):
            def run():
                for x, y in batches(r):
                    sess.run(m["train"], {m["x"]: x, m["y"]: y})
            return run

        run_threads([replica(0), replica(1)])
        w, b, step = sess.run([m["w"], m["b"], m["step"]])
    finally:
        if coord is not None:
            coord.request_stop()
        sess.close()                    # ends the chief's runner, waiting in a take
    want_w, want_b = numpy_sync_training(2)
    assert step == STEPS
    np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, want_b, rtol=1e-5, atol=1e-6)
    # one replica alone would have gone elsewhere: the average is what was applied
    alone_w, _ = numpy_sync_training(1)
    assert not np.allclose(w, alone_w, atol=1e-3)


def test_initial_tokens_and_the_chief_runner_after_training_stops():
    m = build(replicas_to_aggregate=2, total_num_replicas=3)
    queue = m["opt"].get_chief_queue_runner().queue
    with m["graph"].as_default():
        init = [ds.global_variables_initializer(), ds.local_variables_initializer()]
        size = queue.size()
    sess = ds.Session(graph=m["graph"], options=OPTIONS)
    try:
        sess.run(init)
        coord = start_replicas(m, sess, num_tokens=-1)    # replicas_to_aggregate tokens
        assert sess.run(size) == 2
        (x, y), = batches(0, 1)
        # with a token there, a replica's step ends without waiting for the update...
        sess.run(m["train"], {m["x"]: x, m["y"]: y})
        sess.run(m["train"], {m["x"]: x, m["y"]: y})
        # ...and the two gradients make the chief update once and hand out three tokens
        deadline = time.monotonic() + 5
        while sess.run(size) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert (sess.run(size), sess.run(m["step"])) == (3, 1)
        coord.request_stop()
    finally:
        sess.close()
    coord.join(stop_grace_period_secs=5)             # the runner ended with the session


def test_variable_averages_follow_each_update():
    ema = ds.train.ExponentialMovingAverage(0.5)
    m = build(variable_averages=ema)
    with m["graph"].as_default():
        shadow = ema.average(m["w"])
        init = [ds.global_variables_initializer(), ds.local_variables_initializer()]
    assert shadow is not None
    sess = ds.Session(graph=m["graph"], options=OPTIONS)
    try:
        sess.run(init)
        coord = start_replicas(m, sess)
        (x, y), = batches(0, 1)
        run_threads([lambda: sess.run(m["train"], {m["x"]: x, m["y"]: y})] * 2)
        w = sess.run(m["w"])
        deadline = time.monotonic() + 5       # the average follows the tokens
        while not np.any(sess.run(shadow)) and time.monotonic() < deadline:
            time.sleep(0.01)
        np.testing.assert_allclose(sess.run(shadow), 0.5 * w, rtol=1e-6)
        coord.request_stop()
    finally:
        sess.close()


# --- on a cluster: 1 ps + 2 workers, one client per worker ---------------------------------

@pytest.fixture(scope="module")
def cluster():
    servers = create_local_cluster({"ps": 1, "worker": 2})
    yield servers
    for server in servers:
        server.stop(grace=0)


def test_replicas_on_a_cluster_train_as_one_synchronous_model(cluster):
    ps, workers = cluster[0], cluster[1:]
    spec = ps.cluster_spec
    models = [build(device_fn=ds.train.replica_device_setter(
        cluster=spec, worker_device=f"/job:worker/task:{task}")) for task in range(2)]
    results = {}

    def client(task):
        m = models[task]
        hook = m["opt"].make_session_run_hook(task == 0, num_tokens=0)

        def run():
            with m["graph"].as_default(), ds.train.MonitoredTrainingSession(
                    master=workers[task].target, is_chief=task == 0, hooks=[hook],
                    config=OPTIONS, stop_grace_period_secs=0.5) as sess:
                for x, y in batches(task):
                    sess.run(m["train"], {m["x"]: x, m["y"]: y})
                results[task] = sess.run([m["w"], m["b"], m["step"]])
        return run

    run_threads([client(0), client(1)], timeout=30)
    want_w, want_b = numpy_sync_training(2)
    for task in range(2):
        w, b, step = results[task]
        assert step == STEPS
        np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, want_b, rtol=1e-5, atol=1e-6)
    # the accumulators and the token queue live on the ps, shared by both clients
    shared = ps.worker.resources
    assert shared.get("_accumulators", "/w:0/grad_accum").global_step() == STEPS
    assert shared.get("_queues", "/sync_token_q") is not None
    for server in workers:
        assert server.worker.resources.get("_accumulators", "/w:0/grad_accum") is None


def test_shared_names_meet_across_a_servers_sessions(cluster):
    g = ds.Graph()
    with g.as_default(), ds.device("/job:ps/task:0"):
        shared = ds.ConditionalAccumulator(ds.float32, shape=[], shared_name="meet")
        private = ds.ConditionalAccumulator(ds.float32, shape=[], name="private")
        pushes = [acc.apply_grad(1.0) for acc in (shared, private)]
        counts = [shared.num_accumulated(), private.num_accumulated()]
        queue = ds.FIFOQueue(2, ds.int32, shapes=[[]], shared_name="meet_q")
        enqueue, dequeue = queue.enqueue(7), queue.dequeue()
    with ds.Session(cluster[1].target, graph=g, options=OPTIONS) as one, \
            ds.Session(cluster[2].target, graph=g, options=OPTIONS) as two:
        one.run(pushes + [enqueue])
        assert one.run(counts) == [1, 1]
        assert two.run(counts) == [1, 0]              # the private one is each session's
        assert two.run(dequeue) == 7
