"""Sending a small frame and watching for its answer without the GIL (``handover.py``):
the bytes arrive exactly, the watch ends when the answer comes or its time is up, a send
that would block or fails falls back to ``sendall``, and the policy that decides which
connections watch."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from devsession.distributed.transport import handover
from devsession.distributed.transport.frames import PUSH_TENSOR, FrameSocket
from devsession.proto import worker_pb2

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or handover.SPIN_NS <= 0,
                                reason="watching runs on Linux, unless turned off")
Push = worker_pb2.PushTensorRequest
MS = 1_000_000


@pytest.fixture(scope="module", autouse=True)
def loaded():
    """The compiled function, loaded on the background compile thread."""
    deadline = time.monotonic() + 300
    while not handover.ready():
        assert time.monotonic() < deadline, "send_then_watch did not load in 300 s"
        time.sleep(0.01)


def read_exactly(sock, count: int) -> bytes:
    out = bytearray()
    while len(out) < count:
        chunk = sock.recv(count - len(out))
        assert chunk, "the peer closed early"
        out += chunk
    return bytes(out)


@pytest.mark.parametrize("size", [1, 1000, 64 << 10])
def test_the_bytes_arrive_exactly(size):
    a, b = socket.socketpair()
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    got = []
    reader = threading.Thread(target=lambda: got.append(read_exactly(b, size)))
    reader.start()
    assert handover.send_then_watch(a, data, 0) == size
    reader.join()
    assert got == [data]
    a.close(), b.close()


def test_a_send_stopped_part_way_goes_on_from_where_it_stopped():
    """send(2) on a blocking socket with a send timeout returns what it sent when the
    reader stalls; the next send(2) must start after those bytes."""
    a, b = socket.socketpair()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 30_000))
    data = np.random.default_rng(5).integers(0, 256, 256 << 10, dtype=np.uint8).tobytes()
    received = bytearray()

    def slow_reader():              # 32 KiB every 40 ms: the sender stalls in between
        while len(received) < len(data):
            time.sleep(0.04)
            chunk = b.recv(32 << 10)
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=slow_reader)
    reader.start()
    sent = handover.send_then_watch(a, data, 0)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 0))
    a.sendall(memoryview(data)[sent:])
    reader.join(30)
    assert sent > 0 and bytes(received) == data
    a.close(), b.close()


def test_the_watch_lasts_its_time_when_nothing_comes():
    a, b = socket.socketpair()
    start = time.monotonic_ns()
    assert handover.send_then_watch(a, b"ping", 20 * MS) == 4
    waited = time.monotonic_ns() - start
    assert 20 * MS <= waited < 2_000 * MS
    a.close(), b.close()


def test_the_watch_ends_when_the_answer_is_there():
    a, b = socket.socketpair()
    b.sendall(b"answer")
    start = time.monotonic_ns()
    assert handover.send_then_watch(a, b"ping", 5_000 * MS) == 4
    assert time.monotonic_ns() - start < 1_000 * MS
    assert a.recv(16) == b"answer" and b.recv(16) == b"ping"
    a.close(), b.close()


def test_a_closed_peer_sends_nothing_and_sendall_says_why():
    a, b = socket.socketpair()
    b.close()
    assert handover.send_then_watch(a, b"ping", MS) == 0          # EPIPE, no SIGPIPE
    with pytest.raises(OSError):
        FrameSocket(a).send(PUSH_TENSOR, Push(step_id=1))
    a.close()


def test_a_send_that_would_block_is_finished_by_sendall(monkeypatch):
    """A socket with a timeout is non-blocking underneath: send(2) stops when its buffer
    is full, and the frame's rest goes out through Python's sendall."""
    a, b = socket.socketpair()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    a.settimeout(10)
    sent = handover.send_then_watch(a, bytes(1 << 20), 0)
    assert 0 <= sent < 1 << 20
    read_exactly(b, sent)

    returned = []
    real = handover.send_then_watch
    monkeypatch.setattr(handover, "send_then_watch",
                        lambda *args: returned.append(real(*args)) or returned[-1])
    payload = [np.arange(15_000, dtype=np.float32)]              # 60 KB: one joined send
    received = []

    def read_later():               # after the first send(2) has filled the buffer
        time.sleep(0.2)
        received.append(FrameSocket(b).receive({PUSH_TENSOR: Push}))

    reader = threading.Thread(target=read_later)
    reader.start()
    FrameSocket(a).send(PUSH_TENSOR, Push(step_id=3), payload)
    reader.join(10)
    assert len(returned) == 1 and 0 <= returned[0] < 60_000     # sendall sent the rest
    (kind, message, arrays), = received
    assert kind == PUSH_TENSOR and message.step_id == 3
    np.testing.assert_array_equal(arrays[0], payload[0])
    a.close(), b.close()


def test_the_policy_watches_while_answers_come_soon():
    policy = handover.WatchPolicy()
    soon, late = handover.SOON_NS // 2, handover.SOON_NS * 2
    seen = []
    for wait in [soon, late, soon, soon, late, late, soon]:
        seen.append(policy.watch_ns() > 0)
        policy.answered(wait)
    assert seen == [True, True, False, True, True, False, False]
    for _ in range(10):
        policy.answered(soon)
    assert policy.watch_ns() == handover.SPIN_NS
    policy.answered(late)                   # one late answer after many soon ones
    assert policy.watch_ns() == handover.SPIN_NS


def test_frames_watch_only_on_plain_sockets_answered_soon(monkeypatch):
    watched = []
    real = handover.send_then_watch
    monkeypatch.setattr(handover, "send_then_watch",
                        lambda sock, data, ns: watched.append(ns) or real(sock, data, ns))
    a, b = socket.socketpair()
    left, right = FrameSocket(a), FrameSocket(b)

    def exchange(delay_s: float):
        left.send(PUSH_TENSOR, Push(step_id=1))
        right.receive({PUSH_TENSOR: Push})
        time.sleep(delay_s)
        right.send(PUSH_TENSOR, Push(step_id=2))
        left.receive({PUSH_TENSOR: Push})

    exchange(0)
    assert watched == [handover.SPIN_NS] * 2                # both ends watched
    exchange(0.05)                                            # answered late: 50 ms
    exchange(0.05)
    watched.clear()
    exchange(0)
    assert len(watched) == 1       # the left end stopped (its answers came late), not the right
    a.close(), b.close()

    class Tls:                      # what FrameSocket takes a TLS socket for
        cipher = None

        def __init__(self, sock):
            self.sock = sock

        def sendall(self, data):
            self.sock.sendall(data)

    c, d = socket.socketpair()
    watched.clear()
    FrameSocket(Tls(c)).send(PUSH_TENSOR, Push(step_id=4))
    assert watched == [] and FrameSocket(d).receive({PUSH_TENSOR: Push})[1].step_id == 4
    c.close(), d.close()


def test_watching_is_off_when_its_time_is_zero():
    code = ("from devsession.distributed.transport import handover;"
            "print(handover.ready(), handover._libc())")
    env = dict(os.environ, DEVSESSION_SOCKET_SPIN_US="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.split() == ["False", "None"], out.stderr
