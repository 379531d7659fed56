"""Frames: requests and replies on one socket, tensors as raw bytes read straight into
their arrays.  The format of the direct path (``socket_server``/``socket_client``).

Python's gRPC costs 0.3-0.5 ms per call on loopback and copies every tensor at least
twice on each side, which is most of a small step and half of a big transfer's
bandwidth.  TensorFlow sends its tensors beside its control RPCs too (its RDMA, MPI and
GPUDirect paths); here the bulk path is a plain TCP connection, or TLS when the cluster
uses TLS, opened with the cluster token.  A frame is::

    header   16 bytes: kind (1), 3 zero bytes, head length (4), payload length (8),
             little-endian
    head     a protobuf message: the method's request or reply; its ``tensors`` field
             (wire.proto's TensorSpec list) describes the payload
    payload  the tensors' little-endian C-order bytes, concatenated (wire.py's order)

The sender hands the arrays' own buffers to ``sendmsg`` (no copy in Python); the
receiver allocates each announced tensor and ``recv_into``s its bytes (no copy either),
so the kernel's two copies are the only ones, and no size is limited but memory.
Both calls release the GIL, so a transfer does not stall the process's other threads.
A frame of up to 64 KiB goes out in one send; on a plain socket whose answers come
soon, ``handover.send_then_watch`` sends it and watches for the answer without the GIL
(a wake-up saved on each side of a round trip).

A connection starts with ``MAGIC`` and a HELLO frame (``SocketHello``: the token and
the task the client means to reach); the server answers WELCOME (``SocketWelcome``) or
ERROR and closes.  Then the client sends one request frame at a time and reads its
reply: OK with the method's reply, or ERROR with an ``ExchangeReply`` carrying the
``ds.errors`` code, message, node and origin.  Anything malformed raises
``FrameError`` and the connection is closed: frames cannot be resynchronised.

    ends = FrameSocket(sock)
    ends.send(RUN_GRAPH, request, arrays)
    kind, reply, arrays = ends.receive({OK: RunGraphResponse, ERROR: ExchangeReply})
"""

from __future__ import annotations

import struct
import time

import numpy as np

from ...errors import OpError
from . import handover, wire
from .status import error_reply

__all__ = ["MAGIC", "HELLO", "WELCOME", "OK", "ERROR", "RUN_STEP", "RUN_GRAPH", "PUSH_TENSOR",
           "FrameError", "FrameSocket", "ConnectionClosed", "MAX_HEAD_BYTES"]

MAGIC = b"DSS1"
# Kinds.  Requests: < 0x80; replies: >= 0x80.
HELLO, RUN_STEP, RUN_GRAPH, PUSH_TENSOR = 1, 2, 3, 4
WELCOME, OK, ERROR = 0x80, 0x81, 0x82

_HEADER = struct.Struct("<B3xIQ")
MAX_HEAD_BYTES = wire.MAX_MESSAGE_BYTES
# Payloads up to this size are joined with the head into one send (one syscall); bigger
# ones go out from the arrays' own buffers.
_JOIN_BYTES = 64 << 10
_BUFFER_BYTES = 64 << 10


class FrameError(Exception):
    """The peer broke the frame format; the connection cannot go on."""


class ConnectionClosed(ConnectionError):
    """The peer closed the connection (at a frame boundary or in the middle of one)."""


class FrameSocket:
    """Frames over one connected socket (plain or TLS); one reader and one writer at a
    time (the callers take turns: a request, then its reply)."""

    def __init__(self, sock):
        self.sock = sock
        self._plain = not hasattr(sock, "cipher")           # TLS bytes go through SSL
        self._gather = self._plain and hasattr(sock, "sendmsg")
        self._buffer = bytearray(_BUFFER_BYTES)
        self._view = memoryview(self._buffer)
        self._start = self._end = 0
        self._watch = handover.WatchPolicy()
        self._sent_at = 0               # when the last small frame went out, until answered

    # --- sending ----------------------------------------------------------------------------

    def send(self, kind: int, message, arrays=()) -> None:
        """Send one frame; ``arrays`` (host numpy arrays) become its payload, described by
        specs appended to ``message.tensors`` (named "0", "1", ... unless already there)."""
        views = []
        if arrays:
            arrays = [wire.to_host(a) for a in arrays]
            if not message.tensors:
                message.tensors.extend(wire.tensor_specs([str(i) for i in range(len(arrays))],
                                                         arrays))
            views = wire.payload_views(arrays)
        head = message.SerializeToString()
        size = sum(len(v) for v in views)
        header = _HEADER.pack(kind, len(head), size)
        if size <= _JOIN_BYTES:
            self._send_small(b"".join([header, head, *views]))
            return
        self._sent_at = 0           # how soon a big frame is answered says nothing here
        if self._gather:
            _send_gathered(self.sock, [header + head, *views])
        else:
            self.sock.sendall(header + head)
            for view in views:
                self.sock.sendall(view)

    def _send_small(self, data: bytes) -> None:
        """Send, then watch for the answer without the GIL (``handover.py``) when answers
        here come soon and nothing is buffered to read first."""
        sent = 0
        self._sent_at = time.monotonic_ns()
        watch_ns = self._watch.watch_ns()
        if watch_ns and self._plain and self._start == self._end and handover.ready():
            sent = handover.send_then_watch(self.sock, data, watch_ns)
        if sent < len(data):
            self.sock.sendall(memoryview(data)[sent:])

    def _answered(self) -> None:
        """A frame began arriving: tell the watch policy how soon, after a small send."""
        if self._sent_at:
            self._watch.answered(time.monotonic_ns() - self._sent_at)
            self._sent_at = 0

    def send_error(self, error: OpError, origin: str) -> None:
        self.send(ERROR, error_reply(error, origin))

    # --- receiving --------------------------------------------------------------------------

    def receive(self, classes: dict) -> tuple[int, object, list]:
        """(kind, message, arrays) of the next frame; ``classes`` maps each kind expected
        here to its message class.  Raises FrameError for an unexpected kind or a
        malformed frame, ConnectionClosed at the end of the stream, OSError from the
        socket (a timeout included)."""
        kind, head_size, payload_size = _HEADER.unpack(self._read_bytes(_HEADER.size))
        self._answered()
        cls = classes.get(kind)
        if cls is None:
            raise FrameError(f"unexpected frame kind {kind:#x}")
        if head_size > MAX_HEAD_BYTES:
            raise FrameError(f"a frame head of {head_size} bytes (the limit is "
                             f"{MAX_HEAD_BYTES})")
        try:
            message = cls.FromString(self._read_bytes(head_size))
        except FrameError:
            raise
        except Exception as e:  # protobuf's DecodeError
            raise FrameError(f"a malformed {cls.DESCRIPTOR.name}: {e}") from None
        specs = getattr(message, "tensors", ())
        try:
            announced = sum(wire.spec_nbytes(spec) for spec in specs)
        except OpError as e:
            raise FrameError(str(e)) from None
        if announced != payload_size:
            raise FrameError(f"the frame announces {payload_size} payload bytes but its "
                             f"tensors need {announced}")
        arrays = []
        for spec in specs:
            try:
                array = wire.receive_buffer(spec)
                if array.nbytes:
                    self._read_into(memoryview(array.reshape(-1).view(np.uint8)))
                arrays.append(wire.received(spec, array))
            except OpError as e:
                raise FrameError(str(e)) from None
        return kind, message, arrays

    def _read_bytes(self, count: int) -> bytes:
        if count <= len(self._buffer):
            self._fill(count)
            start = self._start
            self._start += count
            return bytes(self._view[start:start + count])
        out = bytearray(count)
        self._read_into(memoryview(out))
        return bytes(out)

    def _fill(self, count: int) -> None:
        """At least ``count`` (<= the buffer size) bytes buffered."""
        if self._end - self._start >= count:
            return
        if self._start:
            left = self._end - self._start
            self._view[:left] = self._view[self._start:self._end]
            self._start, self._end = 0, left
        while self._end < count:
            got = self.sock.recv_into(self._view[self._end:])
            if not got:
                raise ConnectionClosed("the peer closed the connection")
            self._end += got

    def _read_into(self, view: memoryview) -> None:
        """Fill ``view``: buffered bytes first, then straight from the socket."""
        have = min(self._end - self._start, len(view))
        if have:
            view[:have] = self._view[self._start:self._start + have]
            self._start += have
        pos, size = have, len(view)
        while pos < size:
            got = self.sock.recv_into(view[pos:], size - pos)
            if not got:
                raise ConnectionClosed("the peer closed the connection in the middle of a "
                                       "frame")
            pos += got


def _send_gathered(sock, parts: list) -> None:
    """``sendmsg`` until every byte of ``parts`` is out (a send may stop part-way)."""
    parts = [memoryview(p).cast("B") for p in parts if len(p)]
    while parts:
        sent = sock.sendmsg(parts[:512])
        while sent:
            if sent >= len(parts[0]):
                sent -= len(parts[0])
                parts.pop(0)
            else:
                parts[0] = parts[0][sent:]
                sent = 0
