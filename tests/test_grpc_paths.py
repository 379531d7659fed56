"""The three ways a client reaches its master, each against the same cluster tests:

* ``in_process``: a server of the test's own process, called directly;
* ``direct``: over the network, steps as raw frames on the direct socket path (through
  the tasks' Unix sockets, since they share this machine);
* ``direct_tcp``: the same on TCP, as between machines (the Unix sockets switched off);
* ``grpc_only``: servers without a direct path (``data_port=None``) and a client told
  not to use one: steps as gRPC exchanges, big feeds staged, big fetches streamed back.

Workers talk to each other the way their servers offer (the direct path, or gRPC).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import devsession as ds
from devsession.distributed import create_local_cluster
from devsession.distributed.client.master_client import LocalMasterClient, MasterClient
from devsession.distributed.transport import socket_options
from concurrency import run_in_threads
from test_grpc_session import three_task_graph, three_task_reference as reference

W = "/job:worker/task:{}"
PATHS = {
    "in_process": (0, {}),
    "direct": (0, {"local_master": False}),
    "direct_tcp": (0, {"local_master": False}),
    "grpc_only": (None, {"local_master": False, "direct_path": False}),
}


class Path:
    def __init__(self, name):
        self.name = name
        data_port, self.config = PATHS[name]
        self.servers = create_local_cluster(3, data_port=data_port)

    def session(self, graph, task: int = 0, **config):
        options = ds.SessionOptions(target=self.servers[task].target, device="cpu",
                                    config={**self.config, **config})
        return ds.Session(options=options, graph=graph)


@pytest.fixture(scope="module", params=sorted(PATHS))
def path(request):
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "direct_tcp":
            patch.setattr(socket_options, "LOCAL_SOCKETS", False)
        p = Path(request.param)
        yield p
        for server in p.servers:
            server.stop(grace=0)


def test_the_client_takes_the_path_it_was_given(path):
    with path.session(ds.Graph()) as sess:
        client = sess._client
    if path.name == "in_process":
        assert isinstance(client, LocalMasterClient)
    else:
        assert isinstance(client, MasterClient)
        assert (client._direct is not None) == path.name.startswith("direct")
    if path.name.startswith("direct"):
        assert client._direct._local == (path.name == "direct")


def test_three_tasks_against_numpy_with_a_trace(path):
    g, x, y = three_task_graph()
    xv = np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32)
    with path.session(g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: xv}), reference(xv), rtol=1e-5)
        meta = ds.RunMetadata()
        sess.run(y, {x: xv}, options=ds.RunOptions(trace=True), run_metadata=meta)
    stat = next(s for s in meta.step_stats if s.node == "h")
    assert stat.device == "/job:worker/replica:0/task:1/device:CPU:0" and stat.op == "Relu"
    assert {d.split("/device:")[0] for d in meta.devices()} == {
        f"/job:worker/replica:0/task:{i}" for i in range(3)}


def test_big_feeds_and_fetches_both_ways(path):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float64, (None,), name="big_x")
        with ds.device(W.format(1)):
            y = ds.multiply(x, 2.0, name="big_y")
        with ds.device(W.format(2)):
            z = ds.identity(y, name="big_z")             # worker -> worker, 24 MB
    xv = np.random.default_rng(1).standard_normal(3_000_001)       # 24 MB each way
    with path.session(g) as sess:
        out = sess.run([z, x, y], {x: xv})
    np.testing.assert_array_equal(out[0], xv * 2)
    np.testing.assert_array_equal(out[1], xv)
    np.testing.assert_array_equal(out[2], xv * 2)


def test_remote_errors_keep_class_and_node(path):
    g = ds.Graph()
    with g.as_default():
        a = ds.placeholder(ds.float32, (None,), name="a")
        b = ds.placeholder(ds.float32, (None,), name="b")
        with ds.device(W.format(2)):
            bad = ds.add(a, b, name="bad_add")
        out = bad * 2.0
    with path.session(g) as sess:
        with pytest.raises(ds.errors.InvalidArgumentError) as info:
            sess.run(out, {a: np.ones(2, np.float32), b: np.ones(3, np.float32)})
        assert info.value.node_name == "bad_add"
        np.testing.assert_array_equal(sess.run(out, {a: [1.0], b: [2.0]}), [6.0])
    assert all(s.worker.wait_idle(5) for s in path.servers)


def test_a_timed_out_step_is_cancelled_on_the_workers(path):
    g = ds.Graph()
    with g.as_default():
        with ds.device(W.format(1)):
            x = ds.random_normal((512, 512), seed=1)
            for _ in range(400):                 # a few seconds of work uninterrupted
                x = ds.tanh(ds.matmul(x, x) * 1e-2)
        y = ds.reduce_sum(x)
    with path.session(g) as sess:
        start = time.monotonic()
        with pytest.raises(ds.errors.DeadlineExceededError):
            sess.run(y, options=ds.RunOptions(timeout_s=0.3))
        assert time.monotonic() - start < 5
        assert path.servers[1].worker.wait_idle(2.0), "the remote partition kept running"


def test_many_threads_step_at_once(path):
    g, x, y = three_task_graph()
    with path.session(g) as sess:
        fn = sess.make_callable(y, [x])

        def work(seed):
            rng = np.random.default_rng(seed)
            for _ in range(15):
                xv = rng.standard_normal((4, 8)).astype(np.float32)
                np.testing.assert_allclose(fn(xv), reference(xv), rtol=1e-5)

        run_in_threads(work, 8, timeout=120)
    assert all(s.worker.active_steps() == 0 for s in path.servers)
