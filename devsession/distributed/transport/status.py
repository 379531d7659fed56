"""``ds.errors`` <-> gRPC status, in both directions.

A servicer that fails with an ``OpError`` answers with the error's gRPC code, its
message as the status details, and trailing metadata: ``ds-origin`` (the task that
raised it, which also marks the error as devsession's own) and ``ds-node`` (the node
at fault, when there is one).  The caller turns that back into the same ``ds.errors``
class with the same ``node_name`` (``error_from_rpc``), so a remote error reads like a
local one.  A status without ``ds-origin`` comes from gRPC itself (no connection, a
deadline, a message too large): it becomes the matching class with a message that
names the peer task and says what to check.

Servicers never let an exception escape as gRPC's generic UNKNOWN: ``guard`` maps
``OpError`` to its code and anything else to INTERNAL, logging the traceback.  Where a
reply cannot be a gRPC status (an exchange on a stream that goes on, a socket ERROR
frame) the error travels as an ``ExchangeReply`` (``error_reply``) with the same fields,
and ``carried_error`` raises it again on the other side.

When the transport itself fails (no answer from the peer at all) the error is one of two
``UnavailableError`` subclasses, so a caller that can recover knows what happened:
``ConnectFailed`` (no connection: the request was never sent) or ``ConnectionLost``
(the connection broke during the call: the peer may have acted on it).  Errors a peer
sent are always the plain class of their code.
"""

from __future__ import annotations

import functools
import logging

import grpc

from ...errors import (CancelledError, DeadlineExceededError, InternalError, OpError,
                      ResourceExhaustedError, UnauthenticatedError, UnavailableError,
                      error_class_for_code)
from ...proto import wire_pb2

__all__ = ["NODE_KEY", "ORIGIN_KEY", "status_code", "abort", "guard", "guard_stream",
           "error_from_rpc", "as_op_error", "error_reply", "carried_error", "ConnectFailed",
           "ConnectionLost"]

log = logging.getLogger("devsession.distributed")



class ConnectFailed(UnavailableError):
    """No connection to the peer could be made: the request was not sent."""


class ConnectionLost(UnavailableError):
    """The connection to the peer broke during the call: it may have acted on it."""


NODE_KEY = "ds-node"
ORIGIN_KEY = "ds-origin"
_CODES = {code.value[0]: code for code in grpc.StatusCode}


def status_code(error: OpError) -> grpc.StatusCode:
    return _CODES.get(error.code, grpc.StatusCode.UNKNOWN)


def abort(context, error: OpError, origin: str):
    """End the RPC with ``error`` (raises, as ``context.abort`` does)."""
    metadata = [(ORIGIN_KEY, _ascii(origin))]
    if error.node_name:
        metadata.append((NODE_KEY, _ascii(error.node_name)))
    context.set_trailing_metadata(metadata)
    context.abort(status_code(error), error.message)


def _ascii(text: str) -> str:
    return text.encode("ascii", "backslashreplace").decode("ascii")


def as_op_error(e: Exception, what: str) -> OpError:
    """``e`` if it is an OpError, else an InternalError saying what failed (logged)."""
    if isinstance(e, OpError):
        return e
    log.exception("devsession: %s failed", what)
    return InternalError(f"{what} failed: {type(e).__name__}: {e}")


def error_reply(error: OpError, origin: str) -> wire_pb2.ExchangeReply:
    """The ``ExchangeReply`` carrying ``error``, raised by ``origin`` (a task name)."""
    return wire_pb2.ExchangeReply(code=error.code, message=error.message,
                                  node_name=error.node_name or "", origin=origin)


def carried_error(message) -> OpError:
    """The ``ds.errors`` instance a message carries in its ``code``, ``message`` and
    ``node_name`` fields (an ``ExchangeReply``, an ``AbortStepRequest``)."""
    return error_class_for_code(message.code)(message.message, message.node_name or None)


def guard(origin_of):
    """Decorator for unary servicer methods ``fn(self, request, context)``: OpErrors
    become their status codes, other exceptions INTERNAL.  ``origin_of(self)`` names the
    task for the metadata."""
    def wrap(fn):
        @functools.wraps(fn)
        def handler(self, request, context):
            try:
                return fn(self, request, context)
            except Exception as e:  # noqa: BLE001 - mapped to a status below
                error = as_op_error(e, fn.__name__)
            abort(context, error, origin_of(self))
        return handler
    return wrap


def guard_stream(origin_of):
    """``guard`` for servicer methods that yield their responses."""
    def wrap(fn):
        @functools.wraps(fn)
        def handler(self, request, context):
            try:
                yield from fn(self, request, context)
                return
            except Exception as e:  # noqa: BLE001 - mapped to a status below
                error = as_op_error(e, fn.__name__)
            abort(context, error, origin_of(self))
        return handler
    return wrap


def error_from_rpc(e: grpc.RpcError, peer: str, what: str) -> OpError:
    """The ``ds.errors`` instance for a failed call to ``peer`` (a task name or target)."""
    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    details = (e.details() if hasattr(e, "details") else str(e)) or code.name
    metadata = {}
    try:
        metadata = dict(e.trailing_metadata() or ())
    except Exception:  # a future cancelled before it started has no metadata
        pass
    if ORIGIN_KEY in metadata:
        cls = error_class_for_code(code.value[0])
        return cls(details, metadata.get(NODE_KEY))
    if code == grpc.StatusCode.UNAVAILABLE:
        return ConnectionLost(f"{peer} is unavailable ({what}): {details}. Check that its "
                              f"server is running and reachable.")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return DeadlineExceededError(f"{what} on {peer} did not finish before its deadline "
                                     f"(raise RunOptions.timeout_s or "
                                     f"SessionOptions.operation_timeout_s).")
    if code == grpc.StatusCode.CANCELLED:
        return CancelledError(f"{what} on {peer} was cancelled: {details}")
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return UnauthenticatedError(f"{peer} refused {what}: {details}. Give the cluster's "
                                    f"token (SessionOptions(config={{'token': ...}})).")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ResourceExhaustedError(f"{what} on {peer}: {details}")
    cls = error_class_for_code(code.value[0])
    return cls(f"{what} on {peer} failed: {details}")
