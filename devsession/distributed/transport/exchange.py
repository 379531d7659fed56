"""Exchanges: request/reply pairs over long-lived gRPC streams, for the step hot path.

A unary gRPC call in Python sets up a call, sends headers, hops through the server's
thread pool and ends with a status: about 0.3 ms on loopback.  A message on a stream
that is already open costs about half that, so the per-step calls without a deadline
(RunStep from the client, RunGraph from the master) travel as *exchanges*: the caller
keeps a few open bidirectional streams per method, each carrying one request and then
its reply at a time; the server answers the requests of one stream in order, in the one
thread that serves the stream.  Steps with a deadline use the unary methods instead,
since gRPC deadlines are per call.

Because the stream outlives each exchange, an error must not end it: the server wraps
every reply in an ``ExchangeReply`` (wire.proto) carrying either the method's reply
(``data``) or the error's code, message, node and origin, and the caller raises the
same ``ds.errors`` class as the unary call would.  A stream that fails as a whole (the
peer died) raises the mapped transport error and is thrown away; an idle stream found
dead (the peer restarted meanwhile) is replaced before use.

Open streams hold server threads, so both ends bound them: a pool keeps at most
``MAX_IDLE_STREAMS`` idle streams and closes one idle for ``IDLE_CLOSE_S`` when it next
looks; a server serves at most ``StreamLimit.limit`` streams at once and refuses more
before reading any request (RESOURCE_EXHAUSTED, metadata ``ds-exchange: full``), and the
pool then makes that one call as a plain unary call instead.
"""

from __future__ import annotations

import queue
import threading
import time

import grpc

from ...proto import wire_pb2
from . import wire
from .idle import IdleConnections
from .status import ConnectionLost, as_op_error, carried_error, error_from_rpc, error_reply
from ..timeouts import IDLE_CLOSE_S

__all__ = ["ExchangePool", "exchange_handler", "StreamLimit", "MAX_IDLE_STREAMS",
           "IDLE_CLOSE_S"]

MAX_IDLE_STREAMS = 4
FULL_KEY = "ds-exchange"
_END = object()


class StreamLimit:
    """How many exchange streams a server serves at once (its threads are finite)."""

    def __init__(self, limit: int):
        self.limit = limit
        self._open = 0
        self._lock = threading.Lock()

    def enter(self) -> bool:
        with self._lock:
            if self._open >= self.limit:
                return False
            self._open += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self._open -= 1


def exchange_handler(handle, origin_of, limit: StreamLimit, on_stream=None):
    """A stream-stream handler answering each request with ``handle(request_bytes,
    stream_state) -> reply bytes`` wrapped in an ExchangeReply; errors are wrapped too.

    ``on_stream(context) -> stream_state`` (optional) runs once per stream, e.g. to
    register what to do when the caller goes away.
    """
    def handler(request_iterator, context):
        if not limit.enter():
            context.set_trailing_metadata([(FULL_KEY, "full")])
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"{origin_of()} serves {limit.limit} exchange streams already; "
                          f"use the unary method.")
        try:
            state = on_stream(context) if on_stream is not None else None
            for request in request_iterator:
                try:
                    data = handle(request, state)
                except Exception as e:  # noqa: BLE001 - sent back as the exchange's error
                    error = as_op_error(e, getattr(handle, "__name__", "exchange"))
                    yield error_reply(error, origin_of()).SerializeToString()
                    continue
                yield wire.encode(wire_pb2.ExchangeReply(), [data])
        finally:
            limit.leave()
    return grpc.stream_stream_rpc_method_handler(handler)


class _Stream:
    __slots__ = ("requests", "replies", "used")

    def __init__(self, callable_, metadata):
        self.requests: queue.SimpleQueue = queue.SimpleQueue()
        self.replies = callable_(iter(self.requests.get, _END), metadata=metadata)
        self.used = time.monotonic()

    def alive(self) -> bool:
        """False once the stream ended (its peer died or restarted while it was idle)."""
        return not self.replies.done()

    def exchange(self, request: bytes) -> bytes:
        self.requests.put(request)
        return next(self.replies)

    def close(self) -> None:
        self.requests.put(_END)
        self.replies.cancel()


class ExchangePool:
    """Open streams of one stream-stream method, lent out one exchange at a time.

    ``unary(request) -> reply bytes`` makes the same call without a stream; it is used
    when the server has no room for another stream.
    """

    def __init__(self, channel: grpc.Channel, path: str, unary, metadata=(), peer: str = "",
                 what: str = ""):
        self._callable = channel.stream_stream(path)
        self._unary = unary
        self._metadata = metadata
        self._peer, self._what = peer, what or path.rsplit("/", 1)[-1]
        self._idle = IdleConnections(MAX_IDLE_STREAMS)

    def call(self, request: bytes):
        """The reply to ``request`` (the method's reply bytes); raises its ds.errors."""
        stream = self._idle.take() or _Stream(self._callable, self._metadata)
        try:
            with self._idle.lent(stream):
                data = stream.exchange(request)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and \
                    dict(e.trailing_metadata() or ()).get(FULL_KEY):
                return self._unary(request)      # refused before the request was read
            raise error_from_rpc(e, self._peer, self._what) from None
        except StopIteration:
            raise ConnectionLost(f"{self._peer} closed the stream of {self._what} calls "
                                 f"without answering (it is shutting down).") from None
        reply, payload = wire.decode(wire_pb2.ExchangeReply, data)
        if reply.code:
            raise carried_error(reply)
        return payload

    def close(self) -> None:
        self._idle.close()
