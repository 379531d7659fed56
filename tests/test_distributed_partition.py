"""Placement and partitioning on a cluster, and partitions run by WorkerStates wired to
each other in this process: the distributed runtime's logic without any socket."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import devsession as ds
from devsession.distributed.master.placement import ClusterPlacer, TaskDevices, colocation_root
from devsession.distributed.cluster_spec import ClusterSpec, task_name
from devsession.distributed.master.partition import partition_graph
from devsession.distributed.worker.send_recv import RECV_OP, SEND_OP
from devsession.distributed.transport.wire import to_host
from devsession.distributed.worker.state import WorkerState
from devsession.graph_def import graph_to_graph_def
from devsession.runtime.plan import needed_ops

CLUSTER = ClusterSpec({"worker": ["h:1", "h:2", "h:3"]})
T0, T1, T2 = (task_name("worker", i) for i in range(3))


class Cluster:
    """Three WorkerStates whose sends call each other's receive directly."""

    def __init__(self):
        self.states = {t: WorkerState(t, push=self._push) for t in (T0, T1, T2)}
        self.pushes = 0

    def _push(self, peer, step_id, key, value, deadline, what):
        self.pushes += 1
        self.states[peer].receive(step_id, key, np.array(to_host(value), copy=True))

    def devices(self, task) -> TaskDevices:
        state = self.states[task]
        return TaskDevices(frozenset(d.short_name for d in state.devices()), state.kernels())

    def plan(self, graph, feeds, fetches, targets=(), device="", soft=True):
        placer = ClusterPlacer(CLUSTER, "worker", 0, device, soft)
        needed = needed_ops(fetches, targets, set(feeds))
        ops = needed | {colocation_root(op) for op in needed}
        placements = {op.name: placer.place(op, self.devices(placer.task_of(op))) for op in ops}
        return partition_graph(graph.get_operations(), feeds, fetches, targets, placements, T0,
                               lambda op: graph_to_graph_def([op]).node[0])

    def run(self, graph, feeds: dict, fetches, targets=(), step_id=1, timeout_s=None):
        plan = self.plan(graph, list(feeds), fetches, targets)
        handles = {t: self.states[t].register_graph("s", p.graph_def(), p.feeds, p.fetches,
                                                    p.targets)
                   for t, p in plan.partitions.items()}
        errors = {}

        def remote(task):
            try:
                self.states[task].run_graph(handles[task], step_id, timeout_s=timeout_s)
            except ds.errors.OpError as e:
                errors[task] = e
                for other in self.states.values():   # what the master's abort does
                    other.abort_step(step_id, e)

        threads = [threading.Thread(target=remote, args=(t,)) for t in plan.remote_tasks]
        for t in threads:
            t.start()
        out = []
        try:
            if T0 in handles:
                out, _, _ = self.states[T0].run_graph(handles[T0], step_id, list(feeds.values()),
                                                   timeout_s=timeout_s)
        finally:
            for t in threads:
                t.join(timeout=60)
        assert not any(t.is_alive() for t in threads), "a partition hung"
        if errors:
            raise next(iter(errors.values()))
        return out


def nodes_of(plan, task, op_type=None):
    return [n for n in plan.partitions[task].nodes if op_type is None or n.op == op_type]


def test_three_tasks_against_numpy():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 4), name="x")
        with ds.device("/job:worker/task:1"):
            w = ds.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, name="w")
            h = ds.nn.relu(ds.matmul(x, w), name="h")
        with ds.device("/job:worker/task:2"):
            s = ds.reduce_sum(h * h, axis=1, name="s")
        y = ds.sqrt(s + 1.0, name="y")
    xv = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    cluster = Cluster()
    got, = cluster.run(g, {x: xv}, [y])
    hv = np.maximum(xv @ (np.arange(12, dtype=np.float32).reshape(4, 3) / 10), 0)
    np.testing.assert_allclose(got, np.sqrt((hv * hv).sum(1) + 1), rtol=1e-5)
    assert cluster.pushes == 3       # x -> 1, h -> 2, s -> 0


def test_partition_shape_sends_receives_and_order():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (3,), name="x")
        with ds.device("/job:worker/task:1"):
            a = ds.exp(x, name="a")
        b = ds.add(a, a, name="b")              # a is read twice on task 0: one pair
        c = ds.multiply(a, b, name="c")
    plan = Cluster().plan(g, [x], [c])
    assert set(plan.partitions) == {T0, T1}
    assert [n.op for n in nodes_of(plan, T0)] == ["Placeholder", SEND_OP, RECV_OP, "Add", "Mul"]
    assert [n.op for n in nodes_of(plan, T1)] == [RECV_OP, "Exp", SEND_OP]
    p0, p1 = plan.partitions[T0], plan.partitions[T1]
    assert p0.fetches == ["c:0"] and p1.fetches == [] and p1.feeds == []
    assert p1.targets == [nodes_of(plan, T1, SEND_OP)[0].name]
    send, = nodes_of(plan, T1, SEND_OP)
    recv, = nodes_of(plan, T0, RECV_OP)
    assert send.attr["key"].s == recv.attr["key"].s
    assert send.attr["peer_task"].s.decode() == T0 and recv.attr["peer_task"].s.decode() == T1
    assert all(n.name.startswith(".ds/") for n in nodes_of(plan, T0, RECV_OP))
    assert str(plan.placements["a"].device) == f"{T1}/device:CPU:0"


def test_a_receive_waits_just_before_its_first_reader():
    """Work that does not need a received value runs before the receive blocks."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (3,), name="x")
        with ds.device("/job:worker/task:1"):
            a = ds.exp(x, name="a")
        local = ds.multiply(x, 2.0, name="local")       # made after a, needs nothing of it
        later = ds.negative(local, name="later")
        c = ds.add(a, later, name="c")
    plan = Cluster().plan(g, [x], [c])
    ops = [n.op for n in nodes_of(plan, T0) if n.op != "Const"]
    assert ops == ["Placeholder", SEND_OP, "Mul", "Neg", RECV_OP, "Add"]
    got, = Cluster().run(g, {x: np.ones(3, np.float32)}, [c])
    np.testing.assert_allclose(got, np.exp(1.0) - 2.0, rtol=1e-6)


def test_constants_are_copied_to_the_tasks_that_read_them_not_sent():
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:worker/task:1"):
            rate = ds.constant(0.5, name="rate")          # made here, read elsewhere only
            here = ds.constant(2.0, name="here")
            used_here = ds.exp(here, name="used_here")
        with ds.device("/job:worker/task:2"):
            scaled = ds.multiply(used_here, rate, name="scaled")
        out = ds.add(scaled, rate, name="out")             # and on task 0
    cluster = Cluster()
    plan = cluster.plan(g, [], [out])
    ops = {task: [n.op for n in nodes_of(plan, task)] for task in plan.partitions}
    assert ops[T0].count(RECV_OP) == 1                      # only 'scaled'
    assert ops[T0].count("Const") == 1 and ops[T2].count("Const") == 1
    assert "rate" not in [n.name for n in nodes_of(plan, T1)]     # task 1 never runs it
    assert [n.name for n in nodes_of(plan, T1) if n.op == "Const"] == ["here"]
    assert cluster.run(g, {}, [out])[0] == np.float32(np.exp(2.0) * 0.5 + 0.5)
    assert cluster.pushes == 2                             # used_here -> 2, scaled -> 0


def test_ping_pong_across_tasks_never_deadlocks():
    g = ds.Graph()
    with g.as_default():
        v = start = ds.placeholder(ds.float64, (2,), name="v")
        side = v
        for i in range(12):
            with ds.device(f"/job:worker/task:{i % 2}"):
                v = ds.add(v, 1.0, name=f"hop{i}")
            with ds.device(f"/job:worker/task:{1 - i % 2}"):
                side = ds.multiply(side, 1.0, name=f"side{i}")  # independent work, other task
        out = v + side
    got, = Cluster().run(g, {start: np.zeros(2)}, [out])
    np.testing.assert_array_equal(got, [12.0, 12.0])


def test_control_edges_cross_tasks_and_assign_runs_with_its_variable():
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:worker/task:1"):
            var = ds.Variable(np.zeros(2, np.float32), name="var")
        with ds.device("/job:worker/task:2"):
            bump = var.assign_add(np.ones(2, np.float32))   # asks for task 2, runs on 1
        marker = ds.constant(1.0, name="marker")
        with ds.control_dependencies([bump]):
            done = ds.identity(marker, name="done")
        read = ds.identity(var, name="read")
    cluster = Cluster()
    plan = cluster.plan(g, [], [done])
    assert plan.placements[bump.op.name].device.task_name == T1
    assert any(n.attr["tensor_name"].s.startswith(b"^") for n in nodes_of(plan, T1, SEND_OP))
    cluster.run(g, {}, [], [var.initializer])
    cluster.run(g, {}, [done], step_id=2)
    got, = cluster.run(g, {}, [read], step_id=3)
    np.testing.assert_array_equal(got, [1.0, 1.0])


def test_control_edges_from_one_task_cross_as_one_token_that_waits_for_them_all():
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:worker/task:1"):
            variables = [ds.Variable(np.zeros(2, np.float32), name=f"v{i}") for i in range(3)]
            bumps = [v.assign_add(np.full(2, i + 1, np.float32)) for i, v in enumerate(variables)]
        with ds.device("/job:worker/task:2"):
            other = ds.Variable(np.zeros(2, np.float32), name="other")
            bump_other = other.assign_add(np.ones(2, np.float32))
        with ds.control_dependencies([*bumps, bump_other]):
            done = ds.identity(ds.constant(1.0), name="done")
    cluster = Cluster()
    plan = cluster.plan(g, [], [done])
    tokens = [n for n in nodes_of(plan, T1, SEND_OP) if n.attr["tensor_name"].s.startswith(b"^")]
    assert len(tokens) == 1                 # one message for the three updates, not three
    assert len(nodes_of(plan, T0, RECV_OP)) == 2      # one per task
    cluster.run(g, {}, [], [v.initializer for v in variables] + [other.initializer])
    cluster.run(g, {}, [done], step_id=2)
    got = cluster.run(g, {}, [*variables, other], step_id=3)
    for value, want in zip(got, [1.0, 2.0, 3.0, 1.0]):   # every update ran
        np.testing.assert_array_equal(value, [want, want])


def test_fetching_a_fed_tensor_and_feeding_any_tensor():
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:worker/task:1"):
            a = ds.constant([1.0, 2.0], name="a")
            b = ds.multiply(a, 10.0, name="b")
        c = ds.add(b, 1.0, name="c")
    cluster = Cluster()
    fed = np.array([5.0, 6.0], np.float32)
    got_b, got_c = cluster.run(g, {b: fed}, [b, c])
    np.testing.assert_array_equal(got_b, fed)
    np.testing.assert_array_equal(got_c, fed + 1)
    plan = cluster.plan(g, [b], [c])
    assert set(plan.partitions) == {T0}     # task 1's ops are not needed any more


def test_errors_keep_their_class_and_node_and_abort_the_other_partitions():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        y = ds.placeholder(ds.float32, (None,), name="y")
        with ds.device("/job:worker/task:1"):
            z = ds.add(x, y, name="z")
        out = z * 2.0
    cluster = Cluster()
    with pytest.raises(ds.errors.InvalidArgumentError) as info:
        cluster.run(g, {x: np.ones(3, np.float32), y: np.ones(4, np.float32)}, [out])
    assert info.value.node_name == "z"
    assert all(s.active_steps() == 0 and s.rendezvous.active_steps() == 0
               for s in cluster.states.values())


def test_unfed_placeholder_and_unknown_task_name_the_node():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (), name="x")
        with ds.device("/job:worker/task:7"):
            y = ds.identity(x, name="y")
        with ds.device("/job:ps/task:0"):
            z = ds.identity(x, name="z")
    cluster = Cluster()
    with pytest.raises(ds.errors.InvalidArgumentError, match="placeholder tensor 'x'"):
        cluster.plan(g, [], [ds.identity(x)])
    with pytest.raises(ds.errors.InvalidArgumentError, match="'y'.*task:7.*tasks: /job:worker"):
        cluster.plan(g, [x], [y])
    with pytest.raises(ds.errors.InvalidArgumentError, match="'z'"):
        cluster.plan(g, [x], [z])


def test_soft_placement_moves_a_missing_gpu_to_the_tasks_cpu_and_says_so():
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:worker/task:1/device:GPU:3"):
            a = ds.constant(1.0, name="a")
    cluster = Cluster()
    placement = cluster.plan(g, [], [a]).placements["a"]
    assert str(placement.device) == f"{T1}/device:CPU:0" and "GPU:3" in placement.note
    with pytest.raises(ds.errors.InvalidArgumentError, match="allow_soft_placement"):
        cluster.plan(g, [], [a], soft=False)


def test_session_device_and_localhost_job():
    g = ds.Graph()
    with g.as_default():
        a = ds.constant(1.0, name="a")
        with ds.device("/job:localhost/device:CPU:0"):
            b = ds.identity(a, name="b")
    placer = ClusterPlacer(CLUSTER, "worker", 0, "/job:worker/task:2")
    assert placer.task_of(a.op) == T2        # the session's default device
    assert placer.task_of(b.op) == T0        # /job:localhost is the master's task


def test_timeout_bounds_a_partition_waiting_for_a_value():
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:worker/task:1"):
            a = ds.exp(ds.constant(0.0), name="a")
        b = ds.identity(a, name="b")
    cluster = Cluster()
    plan = cluster.plan(g, [], [b])
    part = plan.partitions[T0]
    handle = cluster.states[T0].register_graph("s", part.graph_def(), part.feeds, part.fetches,
                                               part.targets)
    with pytest.raises(ds.errors.DeadlineExceededError, match="tensor 'a:0'") as info:
        cluster.states[T0].run_graph(handle, 99, timeout_s=0.05)   # task 1 never runs
    assert info.value.node_name == "a"


def test_abort_stops_a_running_partition_before_its_next_kernel():
    g = ds.Graph()
    with g.as_default():
        x = ds.random_normal((200, 200), seed=1)
        for _ in range(400):
            x = ds.tanh(ds.matmul(x, x) * 1e-3)
    state = Cluster().states[T0]
    handle = state.register_graph("s", g.as_graph_def(), [], [x.name], [])
    errors = []
    started = threading.Event()

    def run():
        started.set()
        try:
            state.run_graph(handle, 5)
        except ds.errors.OpError as e:
            errors.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    started.wait()
    state.abort_step(5, ds.errors.UnavailableError("task 1 died"))
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert errors and isinstance(errors[0], ds.errors.UnavailableError)   # not a timeout
    assert state.wait_idle(5)


def test_restarted_worker_refuses_old_registrations():
    state = WorkerState(T0)
    g = ds.Graph()
    with g.as_default():
        ds.constant(1.0, name="a")
    handle = state.register_graph("s", g.as_graph_def(), [], ["a:0"], [])
    with pytest.raises(ds.errors.AbortedError, match="restarted"):
        state.run_graph(handle, 1, incarnation=state.incarnation + 1)
    with pytest.raises(ds.errors.AbortedError):
        state.run_graph("nope", 2)
    assert state.run_graph(handle, 3, incarnation=state.incarnation)[0] == [1.0]


OPS = [("add", lambda a, b: a + b), ("mul", lambda a, b: a * b), ("sub", lambda a, b: a - b),
       ("max", ds.maximum)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True, database=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 100), st.integers(0, 100),
                          st.integers(0, 2)), min_size=1, max_size=12))
def test_random_graphs_match_a_direct_session(spec):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float64, (3,), name="x")
        values = [x, ds.constant(np.array([1.0, -2.0, 0.5]), name="k")]
        for op_index, i, j, task in spec:
            with ds.device(f"/job:worker/task:{task}"):
                values.append(OPS[op_index][1](values[i % len(values)], values[j % len(values)]))
    fetches = values[-3:]
    xv = np.array([0.25, 1.5, -3.0])
    with ds.Session(graph=g) as direct:
        want = direct.run(fetches, {x: xv})
    got = Cluster().run(g, {x: xv}, fetches)
    for w, v in zip(want, got):
        np.testing.assert_allclose(v, w, rtol=1e-12)
