"""The gRPC session against servers in this process, on 127.0.0.1: results, state,
errors, deadlines, failures, security and malformed input.  (test_grpc_paths.py runs
results, errors and deadlines over each way of reaching the master.)

Servers bind free ports and are always stopped by their fixtures.  The slower
multi-process tests (CLI workers, SIGKILL, big tensors) are in test_grpc_processes.py.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time

import grpc
import numpy as np
import pytest

import devsession as ds
from devsession.distributed import create_local_cluster
from devsession.distributed.transport.security import Security, open_server_warning
from concurrency import ended_by
from sessions import assert_heals_within_one_abort

W = "/job:worker/task:{}"


@pytest.fixture(scope="module")
def cluster():
    servers = create_local_cluster(3)
    yield servers
    for server in servers:
        server.stop(grace=0)


def new_session(target, graph, **config):
    options = ds.SessionOptions(target=target, device="cpu", config=config)
    session = ds.new_session(options)
    session.create(graph)
    return session


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def three_task_graph():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 8), name="x")
        with ds.device(W.format(1)):
            w1 = ds.constant(np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8), name="w1")
            h = ds.nn.relu(ds.matmul(x, w1), name="h")
        with ds.device(W.format(2)):
            s = ds.reduce_sum(ds.square(h), axis=1, keepdims=True, name="s")
        y = ds.nn.softmax(h / (s + 1.0), name="y")
    return g, x, y


def three_task_reference(xv):
    w1 = np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8)
    h = np.maximum(xv @ w1, 0)
    z = h / ((h * h).sum(1, keepdims=True) + 1)
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


# --- results and state -------------------------------------------------------------------

def test_session_target_is_any_task_and_list_devices_covers_the_cluster(cluster):
    g, x, y = three_task_graph()
    with new_session(cluster[2].target, g) as sess:   # the master may be any task
        xv = np.ones((2, 8), np.float32)
        np.testing.assert_allclose(sess.run(y, {x: xv}), three_task_reference(xv), rtol=1e-5)
        names = [d.name for d in sess.list_devices()]
    assert names[0] == "/job:worker/replica:0/task:2/device:CPU:0"   # the master's task first
    assert sorted(names) == [f"/job:worker/replica:0/task:{i}/device:CPU:0" for i in range(3)]


def test_variables_live_on_their_worker_until_reset(cluster):
    g = ds.Graph()
    with g.as_default():
        with ds.device(W.format(1)):
            v = ds.Variable(np.zeros(3, np.float32), name="shared_v")
        step = v.assign_add(np.ones(3, np.float32))
    target = cluster[0].target
    options = ds.SessionOptions(target=target)
    ds.reset(options)
    with new_session(target, g) as s1:
        s1.run(v.initializer)
        s1.run(step)
    with new_session(target, g) as s2:                      # a later client sees it
        np.testing.assert_array_equal(s2.run(v), [1, 1, 1])
        ds.reset(options, containers=["elsewhere"])
        np.testing.assert_array_equal(s2.run(v), [1, 1, 1])
        ds.reset(options)
        with pytest.raises(ds.errors.FailedPreconditionError, match="shared_v") as info:
            s2.run(v)
        assert info.value.node_name == "shared_v"


def test_local_server_and_factory_choice(capsys):
    server = ds.Server.create_local_server()
    try:
        assert server.target.startswith("grpc://127.0.0.1:")
        assert ds.SessionFactory.get_factory(ds.SessionOptions(target=server.target)) is \
            ds.SessionFactory._factories["GRPC_SESSION"]
        with ds.Session(server.target, graph=ds.Graph()) as sess:
            with sess.graph.as_default():
                c = ds.constant([1.0, 2.0]) * 3.0
            np.testing.assert_array_equal(sess.run(c), [3.0, 6.0])
        from devsession.cli import main

        assert main(["factories", "--target", server.target]) == 0
        assert "picked: GRPC_SESSION" in capsys.readouterr().out
    finally:
        server.stop()


# --- errors and deadlines ---------------------------------------------------------------

def test_close_never_hangs(cluster):
    server = ds.Server.create_local_server()
    g = ds.Graph()
    with g.as_default():
        c = ds.constant(1.0)
    sess = new_session(server.target, g)
    assert sess.run(c) == 1.0
    server.stop(grace=0)
    start = time.monotonic()
    sess.close()                          # the master is gone
    assert time.monotonic() - start < 6
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(c)


@pytest.mark.parametrize("local_master", [True, False], ids=["in-process master",
                                                              "master over the network"])
def test_close_cancels_a_step_in_flight(cluster, local_master):
    """As TF1's: a step running when its session closes ends with CancelledError, on
    every task, at its loop's next iteration (it ran on to its end and returned)."""
    g = ds.Graph()
    with g.as_default():
        with ds.device(W.format(1)):
            x = ds.placeholder(ds.float32, (100,), name="x")
            n = ds.placeholder(ds.int32, (), name="n")
            s, _ = ds.while_loop(lambda s, i: i < n, lambda s, i: (s + 1.0, i + 1),
                                 [x, ds.constant(0)])
        with ds.device(W.format(0)):
            total = ds.reduce_sum(s)
    sess = new_session(cluster[0].target, g, local_master=local_master)
    feed = {x: np.ones(100, np.float32)}
    assert sess.run(total, {**feed, n: 3}) == 400.0
    error, seconds = ended_by(lambda: sess.run(total, {**feed, n: 10_000_000}), sess.close,
                              started=lambda: cluster[1].worker.active_steps())
    assert isinstance(error, ds.errors.CancelledError), error
    assert "closed" in str(error) and seconds < 10
    assert not cluster[1].worker.active_steps()


def test_stopping_the_master_fails_a_step_in_flight_as_unavailable():
    """``Server.stop()`` ends the steps of its sessions with UnavailableError (retrying
    may work elsewhere), not with the CancelledError of a user's close()."""
    servers = create_local_cluster(2)
    try:
        g = ds.Graph()
        with g.as_default():
            with ds.device(W.format(1)):
                x = ds.placeholder(ds.float32, (100,), name="x")
                s, _ = ds.while_loop(lambda s, i: i < 10_000_000,
                                     lambda s, i: (s + 1.0, i + 1), [x, ds.constant(0)])
            with ds.device(W.format(0)):
                total = ds.reduce_sum(s)
        sess = new_session(servers[0].target, g)
        error, _ = ended_by(lambda: sess.run(total, {x: np.ones(100, np.float32)}),
                            lambda: servers[0].stop(grace=0),
                            started=lambda: servers[1].worker.active_steps())
        assert isinstance(error, ds.errors.UnavailableError), error
        assert "shutting down" in str(error)
    finally:
        for server in servers:
            server.stop(grace=0)


UNCLOSED_SESSION_SCRIPT = """
import devsession as ds
from devsession.distributed import create_local_cluster
servers = create_local_cluster(2)
with ds.device("/job:worker/task:1"):
    there = ds.identity(ds.constant(2.0))
with ds.device("/job:worker/task:0"):
    total = there + 1.0
sess = ds.Session(servers[0].target)
print(sess.run(total))
"""


def test_a_script_that_never_closes_its_session_exits():
    """TF1 scripts often end without ``sess.close()``: the session, its master in this
    process and registered on another task, is closed during the interpreter's
    finalization, which once waited forever for a thread that never starts."""
    done = subprocess.run([sys.executable, "-c", UNCLOSED_SESSION_SCRIPT], timeout=60,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["3.0"]


def test_closed_port_fails_fast_and_says_where(cluster):
    port = free_port()
    options = ds.SessionOptions(target=f"grpc://127.0.0.1:{port}",
                                config={"connect_timeout_s": 0.5})
    start = time.monotonic()
    with pytest.raises(ds.errors.UnavailableError, match=f"127.0.0.1:{port}.*devsession worker"):
        ds.Session(options=options, graph=ds.Graph())
    assert time.monotonic() - start < 5


def test_unreachable_tasks_are_all_named_and_other_graphs_still_run():
    dead = [f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]
    spec = ds.ClusterSpec({"worker": ["127.0.0.1:0"] + dead})
    server = ds.Server(spec, "worker", 0)
    try:
        g = ds.Graph()
        with g.as_default():
            a = ds.constant(2.0, name="local_a")
            with ds.device(W.format(1)):
                b = ds.identity(a, name="on_one")
            with ds.device(W.format(2)):
                c = ds.identity(a, name="on_two")
        sess = new_session(server.target, g, connect_timeout_s=0.5)
        assert sess.run(a) == 2.0                           # task 0 only: fine
        start = time.monotonic()
        with pytest.raises(ds.errors.UnavailableError) as info:
            sess.run([b, c])
        message = str(info.value)
        assert "task:1" in message and "task:2" in message and "'on_one'" in message
        assert dead[0] in message and dead[1] in message
        assert time.monotonic() - start < 5
        assert sess.run(a) == 2.0
        sess.close()
    finally:
        server.stop(grace=0)


def test_a_restarted_worker_is_used_again():
    servers = create_local_cluster(2)
    restarted = None
    try:
        g = ds.Graph()
        with g.as_default():
            x = ds.placeholder(ds.float32, (2,), name="x")
            with ds.device(W.format(1)):
                y = ds.multiply(x, 3.0, name="y")
        sess = new_session(servers[0].target, g)
        xv = np.array([1.0, 2.0], np.float32)
        np.testing.assert_array_equal(sess.run(y, {x: xv}), [3, 6])
        spec = servers[0].cluster_spec
        servers[1].stop(grace=0)
        with pytest.raises(ds.errors.UnavailableError, match="task:1"):
            sess.run(y, {x: xv})
        restarted = ds.Server(spec, "worker", 1)
        assert_heals_within_one_abort(lambda: sess.run(y, {x: xv}).tolist(), [3, 6])
        with new_session(servers[0].target, g) as fresh:
            np.testing.assert_array_equal(fresh.run(y, {x: xv}), [3, 6])
        sess.close()
    finally:
        for server in servers + [restarted]:
            if server is not None:
                server.stop(grace=0)


# --- malformed input -----------------------------------------------------------------

METHODS = {
    "WorkerService": {"GetStatus": "uu", "RegisterGraph": "su", "DeregisterGraphs": "uu",
                      "RunGraph": "uu", "AbortStep": "uu", "PushTensor": "uu",
                      "PushTensorStream": "su", "ResetContainers": "uu"},
    "MasterService": {"CreateSession": "su", "ExtendSession": "su", "PrepareStep": "uu",
                      "RunStep": "uu", "StageFeeds": "su", "FetchResults": "us",
                      "CloseSession": "uu", "ListDevices": "uu", "Reset": "uu"},
}
KINDS = {"uu": "unary_unary", "su": "stream_unary", "us": "unary_stream"}


@pytest.mark.parametrize("service,method", [(s, m) for s in METHODS for m in METHODS[s]])
def test_bad_bytes_to_any_rpc_are_invalid_argument(cluster, service, method):
    kind = METHODS[service][method]
    with grpc.insecure_channel(cluster[1].target[len("grpc://"):]) as channel:
        call = getattr(channel, KINDS[kind])(f"/devsession.{service}/{method}")
        garbage = b"\xff\xff\xff\xff\x0f"
        request = iter([garbage]) if kind == "su" else garbage
        with pytest.raises(grpc.RpcError) as info:
            result = call(request, timeout=10)
            if kind == "us":
                list(result)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
    g, x, y = three_task_graph()                     # and the cluster still serves
    with new_session(cluster[1].target, g) as sess:
        assert sess.run(y, {x: np.ones((1, 8), np.float32)}).shape == (1, 8)


def test_wrong_push_cannot_disturb_a_step(cluster):
    from devsession.distributed.worker.client import RemoteWorker

    peer = RemoteWorker("/job:worker/replica:0/task:1", cluster[1].target[7:],
                        cluster[0]._channels)
    peer.push(12345, "no;such;key:0", np.ones(3), timeout=5)   # accepted, never read
    peer.push(12345, "other", np.ones(3), timeout=5)
    with pytest.raises(ds.errors.InvalidArgumentError, match="twice"):
        peer.push(12345, "other", np.ones(3), timeout=5)
    cluster[1].worker.rendezvous.abort(12345, ds.errors.CancelledError("test over"))


# --- security ------------------------------------------------------------------------

def test_token_is_checked_on_every_rpc():
    server = ds.Server.create_local_server(security=Security(token="s3cret"))
    try:
        g = ds.Graph()
        with g.as_default():
            c = ds.constant(5.0)
        with pytest.raises(ds.errors.UnauthenticatedError, match="token"):
            new_session(server.target, g)
        with pytest.raises(ds.errors.UnauthenticatedError):
            new_session(server.target, g, token="wrong")
        with new_session(server.target, g, token="s3cret") as sess:
            assert sess.run(c) == 5.0
        with grpc.insecure_channel(server.target[7:]) as channel:    # raw, no token
            with pytest.raises(grpc.RpcError) as info:
                channel.unary_unary("/devsession.WorkerService/GetStatus")(b"", timeout=5)
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        server.stop(grace=0)


def make_certificate(folder, name: str):
    """A self-signed certificate for 127.0.0.1 (and its key), made with openssl."""
    cert, key = os.path.join(folder, f"{name}.pem"), os.path.join(folder, f"{name}.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", f"/CN={name}",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None,
                                   reason="openssl is needed to make a test certificate")


@needs_openssl
def test_tls_with_a_self_signed_certificate(tmp_path):
    cert, key = make_certificate(tmp_path, "server")
    servers = create_local_cluster(2, security=Security(certificate=cert, private_key=key,
                                                        root_certificates=cert))
    try:
        g = ds.Graph()
        with g.as_default():
            with ds.device(W.format(1)):
                c = ds.constant([1.0, 2.0]) * 2.0       # crosses tasks over TLS too
            d = c + 1.0
        with new_session(servers[0].target, g, root_certificates=cert) as sess:
            np.testing.assert_array_equal(sess.run(d), [3.0, 5.0])
        with pytest.raises(ds.errors.UnavailableError):     # plaintext client, TLS server
            new_session(servers[0].target, g, connect_timeout_s=0.5)
    finally:
        for server in servers:
            server.stop(grace=0)


@needs_openssl
def test_mutual_tls_requires_a_client_certificate(tmp_path):
    cert, key = make_certificate(tmp_path, "server")
    client_cert, client_key = make_certificate(tmp_path, "client")
    roots = open(cert, "rb").read() + open(client_cert, "rb").read()
    server = ds.Server({"local": ["127.0.0.1:0"]}, security=Security(
        certificate=cert, private_key=key, root_certificates=roots, require_client_auth=True))
    try:
        g = ds.Graph()
        with g.as_default():
            c = ds.constant(7.0)
        with pytest.raises(ds.errors.UnavailableError):
            new_session(server.target, g, root_certificates=cert, connect_timeout_s=0.5)
        with new_session(server.target, g, root_certificates=cert, certificate=client_cert,
                         private_key=client_key) as sess:
            assert sess.run(c) == 7.0
    finally:
        server.stop(grace=0)


def test_open_servers_beyond_loopback_are_warned_about(caplog):
    open_ = Security()
    assert open_server_warning("t", "127.0.0.1:1", open_) is None
    assert open_server_warning("t", "[::1]:1", open_) is None
    assert "without TLS or a token" in open_server_warning("t", "10.1.2.3:1", open_)
    assert "without TLS or a token" in open_server_warning("t", "0.0.0.0:1", open_)
    assert open_server_warning("t", "10.1.2.3:1", Security(token="x")) is None


def test_servers_bind_where_the_spec_says_and_refuse_a_taken_port():
    server = ds.Server.create_local_server()
    try:
        address = server.target[len("grpc://"):]
        with pytest.raises(ds.errors.UnavailableError, match="Cannot serve"):
            ds.Server({"local": [address]}, "local", 0)
    finally:
        server.stop(grace=0)


def test_streams_beyond_the_servers_limit_fall_back_to_unary_calls(monkeypatch):
    import devsession.distributed.server as server_module

    monkeypatch.setattr(server_module, "MAX_RPC_THREADS", 8)      # 4 exchange streams
    server = ds.Server.create_local_server()
    sessions = []
    try:
        g = ds.Graph()
        with g.as_default():
            c = ds.constant(3.0) * 2.0
        for _ in range(6):               # each keeps an idle stream: the last ones are refused
            sessions.append(new_session(server.target, g))
            assert sessions[-1].run(c) == 6.0
        assert all(s.run(c) == 6.0 for s in sessions)
    finally:
        for s in sessions:
            s.close()
        server.stop(grace=0)


def test_a_graph_bigger_than_one_message_is_sent_in_chunks(cluster):
    from devsession.distributed.transport.wire import MAX_MESSAGE_BYTES

    big = np.arange(MAX_MESSAGE_BYTES // 8 + 1000, dtype=np.float64)   # > one message
    g = ds.Graph()
    with g.as_default():
        with ds.device(W.format(1)):
            total = ds.reduce_sum(ds.constant(big, name="big_constant"))
    with new_session(cluster[0].target, g) as sess:
        assert sess.run(total) == big.sum()


@pytest.mark.parametrize("service,method", [("WorkerService", "RunGraphExchange"),
                                            ("MasterService", "RunStepExchange")])
def test_bad_bytes_on_an_exchange_stream_are_invalid_argument_and_the_stream_goes_on(
        cluster, service, method):
    from devsession.proto import wire_pb2

    with grpc.insecure_channel(cluster[1].target[len("grpc://"):]) as channel:
        call = channel.stream_stream(f"/devsession.{service}/{method}")
        replies = list(call(iter([b"\xff\xff\xff\xff\x0f", b"\x80"]), timeout=10))
        assert len(replies) == 2           # one reply per request: the stream survives both
        for reply in replies:
            message = wire_pb2.ExchangeReply.FromString(reply)
            assert message.code == ds.errors.InvalidArgumentError.code
            assert message.origin == "/job:worker/replica:0/task:1"


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or
                    __import__("numba").config.NUMBA_NUM_THREADS < 2,
                    reason="one core: a cap of one thread is every core's count")
def test_a_servers_config_caps_the_threads_of_its_partitions_kernels(monkeypatch):
    """``ConfigProto(intra_op_parallelism_threads=1)`` in a server's config (as TF1's,
    for tasks sharing a machine's cores): its partitions' steps run with numba held to
    one thread and BLAS capped at one; a server without it leaves both at their own."""
    from devsession.kernels import blas_threads
    from devsession.kernels.cpu.numba_setup import numba
    from devsession.runtime import local_executor

    seen = []
    execute = local_executor.execute

    def recording(*args, **kwargs):
        seen.append((numba.get_num_threads(), blas_threads.held_cap()))
        return execute(*args, **kwargs)

    monkeypatch.setattr(local_executor, "execute", recording)
    configs = {1: ds.ConfigProto(intra_op_parallelism_threads=1), 0: None}
    for threads, config in configs.items():
        server = ds.Server({"local": ["127.0.0.1:0"]}, config=config)
        try:
            g = ds.Graph()
            with g.as_default():
                x = ds.placeholder(ds.float32, [None])
                y = ds.reduce_sum(x * 2.0)
            seen.clear()
            with new_session(server.target, g) as sess:
                assert sess.run(y, {x: np.arange(4, dtype=np.float32)}) == 12.0
        finally:
            server.stop(grace=0)
        assert seen, "the partition's step never ran through the executor"
        if threads:
            assert set(seen) == {(1, 1)}, seen
        else:
            assert all(n == numba.config.NUMBA_NUM_THREADS and cap is None
                       for n, cap in seen), seen
    with pytest.raises(ValueError, match="intra_op_parallelism_threads"):
        ds.Server({"local": ["127.0.0.1:0"]},
                  config=ds.ConfigProto(intra_op_parallelism_threads=-1))
