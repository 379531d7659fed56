"""What the MasterService and WorkerService servicers share: every RPC decodes its
request, calls the servicer's ``state`` and encodes the reply, so that is written once.

``rpc`` marks a servicer method as served and does the work around it: the request
decoded by a ``wire`` decoder, the reply (a message, bytes, or None for an empty reply)
encoded, and every error mapped by ``status.guard`` with ``servicer.state.task`` as its
origin.  ``raw_rpc`` marks a method that takes the request as gRPC gives it (the step
methods, which their exchanges call with the same bytes, and methods that stream their
reply).  ``generic_handler`` serves every method so marked, and the exchanges.
"""

from __future__ import annotations

import functools

import grpc

from . import wire
from .exchange import StreamLimit, exchange_handler
from .status import guard, guard_stream

__all__ = ["UNARY", "STREAM_IN", "STREAM_OUT", "origin", "rpc", "raw_rpc",
           "generic_handler"]

UNARY = grpc.unary_unary_rpc_method_handler
STREAM_IN = grpc.stream_unary_rpc_method_handler      # the request is a stream
STREAM_OUT = grpc.unary_stream_rpc_method_handler     # the reply is a stream


def origin(servicer) -> str:
    """The task a servicer's errors come from."""
    return servicer.state.task


def raw_rpc(kind=UNARY):
    """Serve ``fn(self, request, context)`` as an RPC of ``kind``, under ``guard``."""
    def mark(fn):
        served = (guard_stream if kind is STREAM_OUT else guard)(origin)(fn)
        served.rpc_kind = kind
        return served
    return mark


def rpc(request_cls, decode=wire.decode, kind=UNARY):
    """Serve ``fn(self, message, rest) -> reply``, where ``decode(request_cls, request)``
    gives ``(message, rest)`` (``rest``: the payload or the tensors) and the reply is a
    message, bytes, or None for an empty one."""
    def mark(fn):
        @functools.wraps(fn)
        def call(self, request, context) -> bytes:
            return _encode(fn(self, *decode(request_cls, request)))
        return raw_rpc(kind)(call)
    return mark


def _encode(reply) -> bytes:
    if reply is None:
        return b""
    if isinstance(reply, bytes):
        return reply
    return reply.SerializeToString()


def generic_handler(service: str, servicer, streams: StreamLimit,
                    exchanges: dict) -> grpc.GenericRpcHandler:
    """The handler serving, under /``service``/, every method of ``servicer`` marked by
    ``rpc`` or ``raw_rpc``, and ``exchanges`` ({name: (handle, on_stream)}, see
    ``exchange_handler``) on at most ``streams`` streams."""
    cls = type(servicer)
    methods = {name: getattr(cls, name).rpc_kind(getattr(servicer, name))
               for name in dir(cls) if hasattr(getattr(cls, name), "rpc_kind")}
    for name, (handle, on_stream) in exchanges.items():
        methods[name] = exchange_handler(handle, lambda: origin(servicer), streams, on_stream)
    return grpc.method_handlers_generic_handler(service, methods)
