"""The master's logic without sockets: a ``MasterState`` over in-process workers.

Three ``WorkerState``s stand for three tasks; a ``WorkerPool`` whose ``connect`` returns
``LocalWorker``s lets the master register, run and abort partitions exactly as over
gRPC, and the workers' sends call each other's receive directly.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import devsession as ds
from devsession.distributed.cluster_spec import ClusterSpec, task_name
from devsession.distributed.master.state import MasterState
from devsession.distributed.master.worker_pool import WorkerPool
from devsession.distributed.worker.local import LocalWorker
from devsession.distributed.worker.state import WorkerState
from devsession.runtime.deadline import Deadline

CLUSTER = ClusterSpec({"worker": ["h:1", "h:2", "h:3"]})
TASKS = [task_name("worker", i) for i in range(3)]


class InProcessCluster:
    def __init__(self):
        self.states = {t: WorkerState(t, push=self._push) for t in TASKS}
        self.pool = WorkerPool(CLUSTER, self.states[TASKS[0]],
                               lambda task, address: LocalWorker(self.states[task]))

    def _push(self, peer, step_id, key, value, deadline, what):
        self.states[peer].receive(step_id, key, np.array(value, copy=True))


@pytest.fixture
def master():
    cluster = InProcessCluster()
    state = MasterState(cluster.pool, "worker", 0)
    yield state, cluster
    state.close_all()


def two_task_graph():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 3), name="x")
        with ds.device("/job:worker/task:1"):
            h = ds.exp(x * 2.0, name="h")
        with ds.device("/job:worker/task:2"):
            s = ds.reduce_sum(h, axis=1, name="s")
        y = ds.sqrt(s, name="y")
    return g


def test_a_step_across_three_tasks_matches_numpy(master):
    state, _ = master
    handle = state.create_session(ds.SessionOptions(), two_task_graph().as_graph_def())
    step = state.prepare(handle, ["x:0"], ["y:0", "h:0"], [])
    assert {str(p.device) for p in step.plan.placements.values()} >= {
        f"{t}/device:CPU:0" for t in TASKS}
    xv = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    result = state.run_step(handle, step.handle, [xv], timeout_s=None, trace=True)
    assert result.names == ["y:0", "h:0"] and not result.held
    np.testing.assert_allclose(result.fetched[0], np.sqrt(np.exp(xv * 2).sum(1)), rtol=1e-6)
    np.testing.assert_allclose(result.fetched[1], np.exp(xv * 2), rtol=1e-6)
    assert {s.device.rsplit("/device:", 1)[0] for s in result.stats} == set(TASKS)


def test_feeds_are_checked_against_the_graph(master):
    state, _ = master
    handle = state.create_session(ds.SessionOptions(), two_task_graph().as_graph_def())
    step = state.prepare(handle, ["x:0"], ["y:0"], [])
    with pytest.raises(ds.errors.InvalidArgumentError, match="shape") as e:
        state.run_step(handle, step.handle, [np.zeros((2, 4), np.float32)], None, False)
    assert e.value.node_name == "x"
    with pytest.raises(ds.errors.InvalidArgumentError, match="without losing"):
        state.run_step(handle, step.handle, [np.full((1, 3), 2**24 + 1, np.int64)], None, False)
    exact = state.run_step(handle, step.handle, [np.full((1, 3), 7, np.int64)], None, False)
    np.testing.assert_allclose(exact.fetched[0], [np.sqrt(3 * np.exp(14.0))], rtol=1e-6)
    with pytest.raises(ds.errors.InvalidArgumentError, match="takes 1 feed"):
        state.run_step(handle, step.handle, [], None, False)


def test_big_fetches_are_held_and_staged_feeds_taken_once(master):
    state, _ = master
    state.inline_bytes = 8
    handle = state.create_session(ds.SessionOptions(), two_task_graph().as_graph_def())
    step = state.prepare(handle, ["x:0"], ["h:0"], [])
    staged = state.stage_feeds(handle, [np.ones((4, 3), np.float32)])
    result = state.run_step(handle, step.handle, None, None, False, staged=staged)
    assert result.held
    np.testing.assert_allclose(state.take_results(handle, result.held)[0],
                               np.exp(np.full((4, 3), 2.0)), rtol=1e-6)
    with pytest.raises(ds.errors.NotFoundError):
        state.take_results(handle, result.held)           # handed out once
    with pytest.raises(ds.errors.NotFoundError):
        state.run_step(handle, step.handle, None, None, False, staged=staged)


def test_closing_a_session_drops_its_held_tensors_and_handle(master):
    state, _ = master
    handle = state.create_session(ds.SessionOptions(), two_task_graph().as_graph_def())
    key = state.stage_feeds(handle, [np.ones((1, 3), np.float32)])
    state.close_session(handle)
    with pytest.raises(ds.errors.NotFoundError, match="does not exist"):
        state.prepare(handle, ["x:0"], ["y:0"], [])
    with pytest.raises(ds.errors.NotFoundError):
        state.held.take(handle, key)


def test_variables_live_on_their_task_until_reset(master):
    state, cluster = master
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:worker/task:2"):
            v = ds.Variable(np.float32(3.0), name="v")
        double = ds.identity(v * 2.0, name="double")
    handle = state.create_session(ds.SessionOptions(), g.as_graph_def())
    init = state.prepare(handle, [], [], [v.initializer.name])
    state.run_step(handle, init.handle, [], None, False)
    read = state.prepare(handle, [], ["double:0"], [])
    assert state.run_step(handle, read.handle, [], None, False).fetched[0] == 6.0
    assert cluster.states[TASKS[2]].resources.containers() == [""]
    state.reset()
    assert cluster.states[TASKS[2]].resources.containers() == []
    with pytest.raises(ds.errors.FailedPreconditionError):
        state.run_step(handle, read.handle, [], None, False)


def test_list_devices_puts_the_masters_task_first(master):
    state, _ = master
    devices, unreachable = state.list_devices()
    assert unreachable == []
    assert [d.name for d in devices] == [f"{t}/device:CPU:0" for t in TASKS]


def test_bad_options_and_unknown_sessions(master):
    state, _ = master
    with pytest.raises(ds.errors.NotFoundError, match="does not exist"):
        state.session("nope")
    handle = state.create_session(ds.SessionOptions(device="/job:worker/task:9"),
                                  two_task_graph().as_graph_def())
    with pytest.raises(ds.errors.InvalidArgumentError, match="task:9"):
        state.prepare(handle, ["x:0"], ["y:0"], [])


def test_an_aborted_deadline_expires_at_once():
    deadline = Deadline.after(None)
    assert not deadline.expired() and deadline.remaining() is None
    error = ds.errors.UnavailableError("task 1 died")
    deadline.abort(error)
    assert deadline.expired() and deadline.error is error
    assert Deadline(time.monotonic() - 1.0).expired()
    assert not Deadline.after(60.0).expired() and 0 < Deadline.after(60.0).remaining() <= 60
