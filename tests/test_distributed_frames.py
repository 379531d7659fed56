"""The direct socket path without a cluster: frames over socket pairs, and a
``SocketServer`` with ``SocketPool`` clients (handshake, token, errors, deadlines,
hang-ups, cancellation)."""

from __future__ import annotations

import socket
import struct
import threading
import time

import numpy as np
import pytest

import devsession as ds
from devsession.distributed.transport.frames import (PUSH_TENSOR, RUN_GRAPH, FrameError,
                                                     FrameSocket)
from devsession.distributed.transport import socket_options
from devsession.distributed.transport.security import Security
from devsession.distributed.transport.socket_client import SocketPool
from devsession.distributed.transport.socket_server import SocketServer
from devsession.proto import wire_pb2, worker_pb2

Push = worker_pb2.PushTensorRequest


def pair():
    a, b = socket.socketpair()
    return FrameSocket(a), FrameSocket(b)


ARRAYS = [np.arange(12, dtype=np.float32).reshape(3, 4), np.array(7, np.int64),
          np.zeros((0, 5), np.float64), np.array([True, False]),
          np.arange(6, dtype=np.float16)[::2],                   # not contiguous
          np.random.default_rng(0).standard_normal(300_000)]     # bigger than the buffer


def test_tensors_round_trip_exactly_in_one_frame():
    left, right = pair()
    sender = threading.Thread(target=left.send, args=(PUSH_TENSOR, Push(step_id=9), ARRAYS))
    sender.start()
    kind, message, arrays = right.receive({PUSH_TENSOR: Push})
    sender.join()
    assert kind == PUSH_TENSOR and message.step_id == 9
    assert [t.name for t in message.tensors] == [str(i) for i in range(len(ARRAYS))]
    for got, want in zip(arrays, ARRAYS):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        assert got.flags.writeable and got.flags.c_contiguous


def test_string_tensors_round_trip_in_a_frame():
    strings = np.array([[b"a", b""], [bytes(range(256)), b"x" * 70_000]], object)
    left, right = pair()
    sender = threading.Thread(target=left.send,
                              args=(PUSH_TENSOR, Push(step_id=1), [strings, ARRAYS[0]]))
    sender.start()
    _, message, (got, floats) = right.receive({PUSH_TENSOR: Push})
    sender.join()
    assert message.tensors[0].string_bytes == 4 * 8 + 1 + 256 + 70_000
    assert got.shape == (2, 2) and got.reshape(-1).tolist() == strings.reshape(-1).tolist()
    np.testing.assert_array_equal(floats, ARRAYS[0])


def test_big_endian_arrays_arrive_with_their_values():
    """Arrays of the other byte order travel little-endian, as every payload does (their
    bytes went out as they were, and [1.5, -2.5] arrived as tiny garbage numbers)."""
    sent = [np.array([1.5, -2.5], ">f4"), np.arange(3, dtype=">i8").reshape(3, 1)]
    left, right = pair()
    sender = threading.Thread(target=left.send, args=(PUSH_TENSOR, Push(), sent))
    sender.start()
    _, _, arrays = right.receive({PUSH_TENSOR: Push})
    sender.join()
    for got, want in zip(arrays, sent):
        assert got.dtype == want.dtype.newbyteorder("=") and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_frames_follow_each_other_on_one_connection():
    left, right = pair()
    for i in range(50):                       # small frames share the reader's buffer
        left.send(PUSH_TENSOR, Push(step_id=i), [np.full(i, i, np.int32)])
    for i in range(50):
        _, message, (array,) = right.receive({PUSH_TENSOR: Push})
        assert message.step_id == i and array.tolist() == [i] * i


_STRINGS = wire_pb2.TensorSpec(name="k", dtype=7, shape=[2], string_bytes=16)
_NO_STRINGS = wire_pb2.TensorSpec(name="k", dtype=7, shape=[0, 1 << 62])


def header(kind, head, payload):
    return struct.pack("<B3xIQ", kind, head, payload)


@pytest.mark.parametrize("raw, match", [
    (header(0x33, 0, 0), "unexpected frame kind"),
    (header(PUSH_TENSOR, 1 << 30, 0), "frame head of"),
    (header(PUSH_TENSOR, 2, 0) + b"\xff\xff", "malformed"),
    # specs for 3 float32 values, but 5 payload bytes
    (header(PUSH_TENSOR, len(Push(tensors=[wire_pb2.TensorSpec(name="k", dtype=1, shape=[3])])
                             .SerializeToString()), 5)
     + Push(tensors=[wire_pb2.TensorSpec(name="k", dtype=1, shape=[3])]).SerializeToString(),
     "announces 5 payload bytes but its tensors need 12"),
    (header(PUSH_TENSOR, len(Push(tensors=[wire_pb2.TensorSpec(name="k", dtype=77)])
                             .SerializeToString()), 0)
     + Push(tensors=[wire_pb2.TensorSpec(name="k", dtype=77)]).SerializeToString(),
     "unsupported dtype"),
    # a string tensor (enum 7) of 2 elements travels packed, its size in string_bytes:
    # without it, 16 payload bytes are more than it announces
    (header(PUSH_TENSOR, len(Push(tensors=[wire_pb2.TensorSpec(name="k", dtype=7, shape=[2])])
                             .SerializeToString()), 16)
     + Push(tensors=[wire_pb2.TensorSpec(name="k", dtype=7, shape=[2])]).SerializeToString()
     + bytes(16), "announces 16 payload bytes but its tensors need 0"),
    # ... and with it, lengths (5 and 0) that do not account for its bytes (none)
    (header(PUSH_TENSOR, len(Push(tensors=[_STRINGS]).SerializeToString()), 16)
     + Push(tensors=[_STRINGS]).SerializeToString()
     + np.array([5, 0], "<u8").tobytes(), "do not account"),
    # ... and no elements in a shape numpy cannot hold (was a ValueError out of receive)
    (header(PUSH_TENSOR, len(Push(tensors=[_NO_STRINGS]).SerializeToString()), 0)
     + Push(tensors=[_NO_STRINGS]).SerializeToString(), "Cannot allocate"),
])
def test_malformed_frames_are_frame_errors(raw, match):
    a, b = socket.socketpair()
    a.sendall(raw)
    with pytest.raises(FrameError, match=match):
        FrameSocket(b).receive({PUSH_TENSOR: Push})


# --- a server and its clients ------------------------------------------------------------

TASK = "/job:worker/replica:0/task:3"
FAIL, CRASH = 1, 2


class Echo:
    """Handlers: RUN_GRAPH doubles its tensors (or raises, or waits), PUSH_TENSOR waits
    until released, noting a hang-up."""

    def __init__(self):
        self.hung_up = threading.Event()
        self.release = threading.Event()
        self.started = threading.Event()

    def run(self, message, arrays, call):
        if message.step_id == FAIL:
            raise ds.errors.InvalidArgumentError("bad input", "the_node")
        if message.step_id == CRASH:
            raise KeyError("a bug")
        reply = worker_pb2.RunGraphResponse()
        return reply, [a * 2 for a in arrays] if arrays else [np.arange(3.0)]

    def wait(self, message, arrays, call):
        self.started.set()
        with call.on_hangup(self.hung_up.set):
            self.release.wait(10)
        return worker_pb2.PushTensorResponse(), ()


@pytest.fixture(params=["unix", "tcp"])
def served(request, monkeypatch):
    """A server, reached through its Unix socket or (as from another machine) TCP."""
    if request.param == "tcp":
        monkeypatch.setattr(socket_options, "LOCAL_SOCKETS", False)
    echo = Echo()
    server = SocketServer("127.0.0.1", 0, Security(token="t0ken"), TASK, 42, {
        RUN_GRAPH: (Push, echo.run),
        PUSH_TENSOR: (Push, echo.wait)})
    server.start()
    yield server, echo
    echo.release.set()
    server.stop()


def client(server, token="t0ken", task=TASK):
    return SocketPool("127.0.0.1", server.port, Security(token=token), "the test server", task,
                      connect_timeout=2)


def test_calls_reply_and_connections_are_reused(served):
    server, _ = served
    pool = client(server)
    for i in range(5):
        reply, (out,) = pool.call(RUN_GRAPH, Push(), [np.full(4, i)],
                                  worker_pb2.RunGraphResponse, 5)
        assert out.tolist() == [2 * i] * 4
    assert len(pool._idle) == 1 and pool.incarnation == 42
    family = pool._idle[0].sock.family
    assert family == (socket.AF_UNIX if socket_options.LOCAL_SOCKETS else socket.AF_INET)
    pool.close()


def test_errors_keep_their_class_and_node_and_the_connection(served):
    server, _ = served
    pool = client(server)
    with pytest.raises(ds.errors.InvalidArgumentError, match="bad input") as info:
        pool.call(RUN_GRAPH, Push(step_id=FAIL), (),
                  worker_pb2.RunGraphResponse)
    assert info.value.node_name == "the_node"
    with pytest.raises(ds.errors.InternalError, match="KeyError"):
        pool.call(RUN_GRAPH, Push(step_id=CRASH), (),
                  worker_pb2.RunGraphResponse)
    _, (out,) = pool.call(RUN_GRAPH, Push(), (),
                          worker_pb2.RunGraphResponse)
    assert out.tolist() == [0, 1, 2] and len(pool._idle) == 1
    pool.close()


def test_token_and_task_are_checked_at_the_handshake(served):
    server, _ = served
    for token in ("wrong", None):
        with pytest.raises(ds.errors.UnauthenticatedError, match="token"):
            client(server, token=token).call(RUN_GRAPH, Push(), (),
                                             worker_pb2.RunGraphResponse)
    with pytest.raises(ds.errors.FailedPreconditionError, match="serves .*task:3, not"):
        client(server, task="/job:worker/replica:0/task:1").call(
            RUN_GRAPH, Push(), (), worker_pb2.RunGraphResponse)
    raw = socket.create_connection(("127.0.0.1", server.port))   # not devsession at all
    raw.sendall(b"GET / HTTP/1.1\r\n\r\n")
    raw.settimeout(5)
    assert raw.recv(100) == b""                                   # closed, nothing said
    raw.close()


def test_refused_and_unanswered_connections_say_what_was_seen():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pool = SocketPool("127.0.0.1", port, Security(), "task 9", connect_timeout=1)
    with pytest.raises(ds.errors.UnavailableError,
                       match=f"connection refused at 127.0.0.1:{port}"):
        pool.call(RUN_GRAPH, Push(), (), worker_pb2.RunGraphResponse)
    with socket.socket() as mute:                 # listens, never answers the handshake
        mute.bind(("127.0.0.1", 0))
        mute.listen()
        silent = SocketPool("127.0.0.1", mute.getsockname()[1], Security(), "task 8",
                            connect_timeout=0.3)
        start = time.monotonic()
        with pytest.raises(ds.errors.UnavailableError, match="no answer .* within 0.3 s"):
            silent.call(RUN_GRAPH, Push(), (),
                        worker_pb2.RunGraphResponse)
        assert time.monotonic() - start < 3


def test_a_deadline_closes_the_connection_and_the_server_sees_the_hang_up(served):
    server, echo = served
    pool = client(server)
    start = time.monotonic()
    with pytest.raises(ds.errors.DeadlineExceededError, match="deadline"):
        pool.call(PUSH_TENSOR, Push(), (), worker_pb2.PushTensorResponse, timeout=0.2)
    assert time.monotonic() - start < 2
    assert echo.hung_up.wait(2), "the server did not notice its caller left"


def test_cancelling_a_call_future_hangs_up(served):
    server, echo = served
    pool = client(server)
    future = pool.call_future(PUSH_TENSOR, Push(), (), worker_pb2.PushTensorResponse)
    assert echo.started.wait(5)
    done = threading.Event()
    future.add_done_callback(lambda f: done.set())
    future.cancel()
    assert done.wait(2) and echo.hung_up.wait(2)
    with pytest.raises(ds.errors.CancelledError):
        future.result()


def test_an_idle_connection_closed_by_a_restart_is_not_used(served):
    server, _ = served
    pool = client(server)
    pool.call(RUN_GRAPH, Push(), (), worker_pb2.RunGraphResponse)
    for sock in list(server._connections):     # the server side goes away, as in a restart
        sock.shutdown(socket.SHUT_RDWR)
    time.sleep(0.05)
    _, (out,) = pool.call(RUN_GRAPH, Push(), (),
                          worker_pb2.RunGraphResponse, 5)
    assert out.tolist() == [0, 1, 2]


def test_stop_closes_every_connection(served):
    server, echo = served
    pool = client(server)
    future = pool.call_future(PUSH_TENSOR, Push(), (), worker_pb2.PushTensorResponse)
    assert echo.started.wait(5)
    server.stop()
    with pytest.raises(ds.errors.UnavailableError, match="connection was lost"):
        future.result(5)
    with pytest.raises(ds.errors.UnavailableError, match="refused"):
        pool.call(RUN_GRAPH, Push(), (), worker_pb2.RunGraphResponse)
