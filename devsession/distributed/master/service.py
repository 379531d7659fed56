"""The MasterService servicer: the sessions clients hold on this task, and their steps.

Thin: each handler decodes its request (``wire``), calls a ``MasterSession`` (or the
worker pool, for Reset and ListDevices) and encodes the reply; ``status.guard`` maps
errors to gRPC codes with the node name.

Feeds and fetches up to ``wire.INLINE_BYTES`` ride inside RunStep.  Bigger feeds are
uploaded first (StageFeeds, a stream) and named by RunStep; bigger fetches are kept
(``held_results``) and streamed back by FetchResults.  Staged and held tensors belong to
their session and are dropped when it closes or after ``HOLD_TTL_S`` unclaimed.
"""

from __future__ import annotations

import secrets
import threading
import time

import grpc

from ...errors import InvalidArgumentError, NotFoundError, UnavailableError
from ...graph_def import graph_def_from_bytes
from ...proto import master_pb2 as pb
from ..transport import wire
from ..transport.exchange import StreamLimit, exchange_handler
from .session import MasterSession, SessionSettings
from ..transport.messages import device_to_proto, optimizer_from_proto, stats_to_proto
from ..transport.status import guard, guard_stream
from .worker_pool import WorkerPool, run_parallel
from ..timeouts import HOLD_TTL_S

__all__ = ["MasterServicer", "master_handler", "SERVICE"]

SERVICE = "devsession.MasterService"


class _Held:
    """Tensors waiting for their next call (staged feeds, held results), with expiry."""

    def __init__(self):
        self._lock = threading.Lock()
        self._items: dict[str, tuple] = {}

    def put(self, owner: str, arrays: list) -> str:
        key = secrets.token_hex(8)
        now = time.monotonic()
        with self._lock:
            for k in [k for k, (_, _, t) in self._items.items() if t < now]:
                del self._items[k]
            self._items[key] = (owner, arrays, now + HOLD_TTL_S)
        return key

    def take(self, owner: str, key: str) -> list:
        with self._lock:
            item = self._items.get(key)
            if item is None or item[0] != owner:
                raise NotFoundError(f"No held tensors '{key}' for session {owner} (they expire "
                                    f"after {HOLD_TTL_S:g} s or when the session closes).")
            del self._items[key]
        return item[1]

    def drop_owner(self, owner: str) -> None:
        with self._lock:
            for k in [k for k, (o, _, _) in self._items.items() if o == owner]:
                del self._items[k]


def _origin(servicer) -> str:
    return servicer.workers.local_task


class MasterServicer:
    """The master of one server: every session created through it."""

    def __init__(self, workers: WorkerPool, master_job: str, master_task: int):
        self.workers = workers
        self._job, self._task = master_job, master_task
        self._lock = threading.Lock()
        self._sessions: dict[str, MasterSession] = {}
        self._held = _Held()

    def session(self, handle: str) -> MasterSession:
        session = self._sessions.get(handle)
        if session is None:
            raise NotFoundError(
                f"Session {handle!r} does not exist on {self.workers.local_task} (it was "
                f"closed, or this server restarted since it was created); create a new "
                f"session.")
        return session

    def close_all(self) -> None:
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            session.close()

    # --- sessions -------------------------------------------------------------------------

    @guard(_origin)
    def CreateSession(self, request_iterator, context) -> bytes:
        first, payload = wire.decode_payload_stream(pb.CreateSessionRequest, request_iterator)
        config = first.config
        settings = SessionSettings(
            device=config.device, allow_soft_placement=config.allow_soft_placement,
            log_device_placement=config.log_device_placement,
            optimizer=optimizer_from_proto(config.optimizer),
            connect_timeout_s=config.connect_timeout_s or SessionSettings.connect_timeout_s)
        handle = f"{self.workers.local_task}/session:{secrets.token_hex(8)}"
        try:
            session = MasterSession(handle, self.workers, self._job, self._task, settings)
        except ValueError as e:
            raise InvalidArgumentError(f"Bad session options: {e}") from None
        session.extend(graph_def_from_bytes(payload))
        with self._lock:
            self._sessions[handle] = session
        return pb.CreateSessionResponse(session_handle=handle).SerializeToString()

    @guard(_origin)
    def ExtendSession(self, request_iterator, context) -> bytes:
        first, payload = wire.decode_payload_stream(pb.ExtendSessionRequest, request_iterator)
        self.session(first.session_handle).extend(graph_def_from_bytes(payload))
        return b""

    @guard(_origin)
    def CloseSession(self, request: bytes, context) -> bytes:
        message, _ = wire.decode(pb.CloseSessionRequest, request)
        with self._lock:
            session = self._sessions.pop(message.session_handle, None)
        if session is not None:
            self._held.drop_owner(session.handle)
            session.close()
        return b""

    # --- steps ----------------------------------------------------------------------------

    @guard(_origin)
    def PrepareStep(self, request: bytes, context) -> bytes:
        message, _ = wire.decode(pb.PrepareStepRequest, request)
        step = self.session(message.session_handle).prepare(
            list(message.feeds), list(message.fetches), list(message.targets))
        reply = pb.PrepareStepResponse(step_handle=step.handle)
        for name, device in sorted(step.plan.placements.items()):
            reply.placements.add(node=name, device=device.name, note=device.placement.note)
        return reply.SerializeToString()

    @guard(_origin)
    def RunStep(self, request: bytes, context) -> bytes:
        return self._run_step(request)

    def _run_step(self, request: bytes, _stream=None) -> bytes:
        message, feeds = wire.decode_tensors(pb.RunStepRequest, request)
        session = self.session(message.session_handle)
        step = session.prepared(message.step_handle)
        if message.staged_feeds:
            feeds = self._held.take(session.handle, message.staged_feeds)
        _check_feeds(step.feeds, feeds)
        fetched, stats = session.run(step, feeds, message.timeout_s or None, message.trace)
        reply = pb.RunStepResponse()
        stats_to_proto(stats, reply.stats)
        names = [t.name for t in step.fetches]
        fetched = [wire.to_host(v) for v in fetched]
        if wire.payload_size(fetched) <= wire.INLINE_BYTES:
            return wire.encode_tensors(reply, names, fetched)
        reply.held_results = self._held.put(session.handle, fetched)
        reply.tensors.extend(wire.tensor_specs(names, fetched))
        return reply.SerializeToString()

    @guard(_origin)
    def StageFeeds(self, request_iterator, context) -> bytes:
        first, arrays = wire.decode_stream(pb.StageFeedsRequest, request_iterator)
        session = self.session(first.session_handle)
        key = self._held.put(session.handle, arrays)
        return pb.StageFeedsResponse(staged_feeds=key).SerializeToString()

    @guard_stream(_origin)
    def FetchResults(self, request: bytes, context):
        message, _ = wire.decode(pb.FetchResultsRequest, request)
        session = self.session(message.session_handle)
        arrays = self._held.take(session.handle, message.held_results)
        yield from wire.encode_stream(pb.FetchResultsResponse(),
                                      [f"{i}" for i in range(len(arrays))], arrays)

    # --- the cluster ------------------------------------------------------------------------

    @guard(_origin)
    def ListDevices(self, request: bytes, context) -> bytes:
        message, _ = wire.decode(pb.ListDevicesRequest, request)
        timeout = SessionSettings.connect_timeout_s
        if message.session_handle:
            timeout = self.session(message.session_handle).settings.connect_timeout_s
        tasks = self.workers.all_tasks()
        results = run_parallel({t: (lambda t=t: self.workers.status(t, timeout, False))
                                for t in tasks})
        reply = pb.ListDevicesResponse()
        order = sorted(tasks, key=lambda t: (t != self.workers.local_task, t))
        for task in order:
            result = results[task]
            if isinstance(result, Exception):
                reply.unreachable.append(f"{task}: {result}")
                continue
            for device in sorted(result.devices, key=lambda d: (d.device_type != "CPU", d.name)):
                device_to_proto(device, reply.devices.add())
        return reply.SerializeToString()

    @guard(_origin)
    def Reset(self, request: bytes, context) -> bytes:
        message, _ = wire.decode(pb.ResetRequest, request)
        containers = None if message.all else list(message.containers)
        results = run_parallel({t: (lambda t=t: self.workers.worker(t).reset(containers))
                                for t in self.workers.all_tasks()})
        failed = {t: r for t, r in results.items() if isinstance(r, Exception)}
        if failed:
            raise UnavailableError(
                "Reset cleared the containers of the reachable tasks but not of: " +
                "; ".join(f"{t} ({e})" for t, e in sorted(failed.items())))
        return b""


def _check_feeds(tensors, values) -> None:
    """The master does not trust the bytes it got: dtypes and shapes must fit the graph."""
    if len(values) != len(tensors):
        raise InvalidArgumentError(f"The step takes {len(tensors)} feed(s), got {len(values)}.")
    for t, v in zip(tensors, values):
        dims = t.shape.dims
        if v.dtype != t.dtype.np or (dims is not None and (len(dims) != v.ndim or any(
                d is not None and d != s for d, s in zip(dims, v.shape)))):
            raise InvalidArgumentError(
                f"Cannot feed a {v.dtype.name} tensor of shape {list(v.shape)} to '{t.name}' "
                f"({t.dtype.name}, shape {t.shape}).", t.op.name)


_KINDS = {
    "CreateSession": grpc.stream_unary_rpc_method_handler,
    "ExtendSession": grpc.stream_unary_rpc_method_handler,
    "PrepareStep": grpc.unary_unary_rpc_method_handler,
    "RunStep": grpc.unary_unary_rpc_method_handler,
    "StageFeeds": grpc.stream_unary_rpc_method_handler,
    "FetchResults": grpc.unary_stream_rpc_method_handler,
    "CloseSession": grpc.unary_unary_rpc_method_handler,
    "ListDevices": grpc.unary_unary_rpc_method_handler,
    "Reset": grpc.unary_unary_rpc_method_handler,
}


def master_handler(servicer: MasterServicer, streams: StreamLimit) -> grpc.GenericRpcHandler:
    """The generic handler serving ``servicer`` under /devsession.MasterService/."""
    methods = {name: make(getattr(servicer, name)) for name, make in _KINDS.items()}
    methods["RunStepExchange"] = exchange_handler(servicer._run_step,
                                                  lambda: servicer.workers.local_task, streams)
    return grpc.method_handlers_generic_handler(SERVICE, methods)
