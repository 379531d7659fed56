"""How a master (and a worker sending tensors) talks to one task's worker.

``RemoteWorker`` calls another process's WorkerService over a pooled channel: every call
has a deadline, carries the cluster token, and turns a failed status into the
``ds.errors`` class the worker raised (``status.error_from_rpc``), naming the task.
``worker/local.py``'s ``LocalWorker`` offers the same methods for a worker in this
process, called directly.

The step's calls (RunGraph, and pushes of tensors to the worker) take the direct socket
path (``transport/socket_client.py``: raw frames, no gRPC per call) whenever the
worker's status names a ``data_port``; the status is asked once (the master asks it
anyway before registering) and again after the path failed, since a restarted worker
listens on a new port.  Control calls always use gRPC.

Timeouts: control calls (status, registration, abort, reset) have fixed deadlines; a
step's RunGraph has the step's deadline plus ``RUN_GRACE_S`` so the worker's own
DeadlineExceededError (which names the node) arrives first; pushes get the step's
deadline or, without one, a deadline that grows with the tensor's size.
"""

from __future__ import annotations

import threading
import time

import grpc
import numpy as np

from ...errors import DeadlineExceededError, OpError, UnavailableError
from ...proto import worker_pb2
from ..cluster_spec import parse_address
from ..transport import wire
from ..transport.channels import ChannelPool, method_path
from ..transport.exchange import ExchangePool
from ..transport.frames import PUSH_TENSOR, RUN_GRAPH
from ..transport.socket_client import CallFuture, SocketPool, probe
from ..transport.messages import WorkerStatus, optimizer_to_proto, stats_from_proto, status_from_proto
from ..transport.status import error_from_rpc
from ..timeouts import CONTROL_TIMEOUT_S, REGISTER_TIMEOUT_S, RUN_GRACE_S, STATUS_TIMEOUT_S

__all__ = ["RemoteWorker", "push_timeout"]



def push_timeout(deadline: float | None, nbytes: int) -> float:
    """Seconds a push may take: the step's remaining time, else 60 s + 20 MB/s."""
    if deadline is not None:
        return max(deadline - time.monotonic(), 0.001)
    return 60.0 + nbytes / 20e6


# gRPC cancels a call whose future is garbage collected, so calls nobody waits for are
# kept here until they finish.
_detached: set = set()
_detached_lock = threading.Lock()


def _keep_until_done(future) -> None:
    with _detached_lock:
        _detached.add(future)

    def forget(f):
        with _detached_lock:
            _detached.discard(f)

    future.add_done_callback(forget)


def _service(channel: grpc.Channel, method: str, kind: str):
    path = method_path("WorkerService", method)
    return getattr(channel, kind)(path)


class RemoteWorker:
    """The WorkerService of task ``task`` at ``address``."""

    def __init__(self, task: str, address: str, pool: ChannelPool):
        self.task = task
        self.address = address
        channel = pool.get(address)
        self.channel = channel
        self.security = pool.security
        self._metadata = pool.security.metadata()
        self._sockets_lock = threading.Lock()
        self._sockets: SocketPool | None = None
        self._data_port: int | None = None      # None: not asked yet; 0: gRPC only
        self._get_status = _service(channel, "GetStatus", "unary_unary")
        self._register = _service(channel, "RegisterGraph", "stream_unary")
        self._deregister = _service(channel, "DeregisterGraphs", "unary_unary")
        self._run_graph = _service(channel, "RunGraph", "unary_unary")
        self._run_graph_exchange = ExchangePool(
            channel, method_path("WorkerService", "RunGraphExchange"),
            lambda request: self._call(self._run_graph, request, None, "RunGraph"),
            self._metadata, f"{task} at {address}", "RunGraph")
        self._abort = _service(channel, "AbortStep", "unary_unary")
        self._push = _service(channel, "PushTensor", "unary_unary")
        self._push_stream = _service(channel, "PushTensorStream", "stream_unary")
        self._reset = _service(channel, "ResetContainers", "unary_unary")

    def __repr__(self) -> str:
        return f"<RemoteWorker {self.task} at {self.address}>"

    def watch(self, lost) -> None:
        """Call ``lost()`` whenever the connection leaves READY (the peer died, restarted
        or became unreachable)."""
        def on_change(state):
            if state in (grpc.ChannelConnectivity.TRANSIENT_FAILURE,
                         grpc.ChannelConnectivity.IDLE, grpc.ChannelConnectivity.SHUTDOWN):
                lost()
        self.channel.subscribe(on_change)

    def _call(self, callable_, request, timeout: float, what: str, wait_for_ready=False):
        try:
            return callable_(request, timeout=timeout, metadata=self._metadata,
                             wait_for_ready=wait_for_ready)
        except grpc.RpcError as e:
            raise error_from_rpc(e, f"{self.task} at {self.address}", what) from None

    def get_status(self, timeout: float = STATUS_TIMEOUT_S,
                   wait_for_ready: bool = False) -> WorkerStatus:
        try:
            data = self._call(self._get_status, b"", timeout, "GetStatus", wait_for_ready)
        except DeadlineExceededError:   # waiting for a connection that never came
            raise UnavailableError(f"{self.task} at {self.address} did not answer within "
                                   f"{timeout:.2g} s: {probe(self.address)}.") from None
        message, _ = wire.decode(worker_pb2.GetStatusResponse, data)
        status = status_from_proto(message)
        self._learn_data_port(status.data_port)
        return status

    # --- the direct path -------------------------------------------------------------------

    def _learn_data_port(self, port: int) -> None:
        with self._sockets_lock:
            if port == self._data_port:
                return
            old, self._sockets, self._data_port = self._sockets, None, port
            if port:
                host, _ = parse_address(self.address)
                self._sockets = SocketPool(host, port, self.security,
                                           f"{self.task} at {self.address}", self.task)
        if old is not None:
            old.close()

    def _direct(self, timeout: float | None) -> SocketPool | None:
        """The direct path's connections (asking the worker's status first if need be),
        or None when the worker offers none."""
        if self._data_port is None:
            self.get_status(min(timeout or STATUS_TIMEOUT_S, STATUS_TIMEOUT_S))
        return self._sockets

    def _direct_failed(self) -> None:
        """Ask the status again before the next direct call (the worker may listen on
        another port now)."""
        with self._sockets_lock:
            old, self._sockets, self._data_port = self._sockets, None, None
        if old is not None:
            old.close()

    def _direct_call(self, sockets: SocketPool, kind, message, arrays, reply_cls, timeout,
                     what):
        try:
            return sockets.call(kind, message, arrays, reply_cls, timeout, what)
        except UnavailableError:
            self._direct_failed()
            raise

    def register_graph(self, session: str, graph_def, feeds, fetches, targets, optimizer,
                       timeout: float = REGISTER_TIMEOUT_S) -> tuple[str, int]:
        first = worker_pb2.RegisterGraphRequest(session_handle=session, feeds=feeds,
                                                fetches=fetches, targets=targets)
        optimizer_to_proto(optimizer, first.optimizer)
        frames = wire.encode_payload_stream(first, graph_def.SerializeToString())
        data = self._call(self._register, frames, timeout, "RegisterGraph")
        reply, _ = wire.decode(worker_pb2.RegisterGraphResponse, data)
        return reply.graph_handle, reply.incarnation

    @staticmethod
    def _run_graph_request(handle, step_id, incarnation, timeout_s, trace, return_to):
        return worker_pb2.RunGraphRequest(
            graph_handle=handle, step_id=step_id, incarnation=incarnation, trace=trace,
            timeout_s=timeout_s or 0.0, return_sends_to=return_to or "")

    def run_graph_future(self, handle: str, step_id: int, incarnation: int,
                         timeout_s: float | None, trace: bool, return_to: str | None = None):
        """Start RunGraph; ``run_graph_result(future)`` gives its outcome or raises."""
        request = self._run_graph_request(handle, step_id, incarnation, timeout_s, trace,
                                          return_to)
        timeout = timeout_s + RUN_GRACE_S if timeout_s else None
        sockets = self._direct(timeout)
        if sockets is not None:
            return sockets.call_future(RUN_GRAPH, request, (), worker_pb2.RunGraphResponse,
                                       timeout, "RunGraph")
        return self._run_graph.future(request.SerializeToString(), timeout=timeout,
                                      metadata=self._metadata)

    def run_graph_result(self, future) -> tuple[list, list]:
        """(NodeStats, returned sends as (key, array)) of a finished RunGraph future."""
        if isinstance(future, CallFuture):
            try:
                return self._run_graph_outcome(*future.result())
            except UnavailableError:
                self._direct_failed()
                raise
        try:
            data = future.result()
        except grpc.RpcError as e:
            raise error_from_rpc(e, f"{self.task} at {self.address}", "RunGraph") from None
        return self._run_graph_outcome(*wire.decode_tensors(worker_pb2.RunGraphResponse, data))

    def run_graph(self, handle: str, step_id: int, incarnation: int, timeout_s: float | None,
                  trace: bool, return_to: str | None = None) -> tuple[list, list]:
        """RunGraph, waiting in this thread: (NodeStats, returned sends).  On gRPC, a step
        without a deadline travels as an exchange on an open stream (``exchange.py``)."""
        request = self._run_graph_request(handle, step_id, incarnation, timeout_s, trace,
                                          return_to)
        timeout = timeout_s + RUN_GRACE_S if timeout_s else None
        sockets = self._direct(timeout)
        if sockets is not None:
            return self._run_graph_outcome(*self._direct_call(
                sockets, RUN_GRAPH, request, (), worker_pb2.RunGraphResponse, timeout,
                "RunGraph"))
        request = request.SerializeToString()
        if timeout is None:
            data = self._run_graph_exchange.call(request)
        else:
            data = self._call(self._run_graph, request, timeout, "RunGraph")
        return self._run_graph_outcome(*wire.decode_tensors(worker_pb2.RunGraphResponse, data))

    @staticmethod
    def _run_graph_outcome(message, arrays) -> tuple[list, list]:
        returned = [(spec.name, array) for spec, array in zip(message.tensors, arrays)]
        return stats_from_proto(message.stats), returned

    def abort_step(self, step_id: int, error: OpError):
        """Tell the worker the step failed (fire and forget; returns the future)."""
        request = worker_pb2.AbortStepRequest(step_id=step_id, code=error.code,
                                              message=error.message,
                                              node_name=error.node_name or "")
        future = self._abort.future(request.SerializeToString(), timeout=CONTROL_TIMEOUT_S,
                                    metadata=self._metadata)
        _keep_until_done(future)
        return future

    def push(self, step_id: int, key: str, array: np.ndarray, timeout: float) -> None:
        """Deliver one tensor to the worker's rendezvous (a frame on the direct path;
        else inline or as a stream)."""
        first = worker_pb2.PushTensorRequest(step_id=step_id)
        sockets = self._direct(timeout)
        if sockets is not None:
            first.tensors.extend(wire.tensor_specs([key], [array]))
            self._direct_call(sockets, PUSH_TENSOR, first, (array,),
                              worker_pb2.PushTensorResponse, timeout, f"sending tensor {key}")
            return
        if array.nbytes <= wire.INLINE_BYTES:
            self._call(self._push, wire.encode_tensors(first, [key], [array]), timeout,
                       f"sending tensor {key}")
        else:
            self._call(self._push_stream, wire.encode_stream(first, [key], [array]), timeout,
                       f"sending tensor {key}")

    def deregister(self, session: str, handles=()) -> None:
        request = worker_pb2.DeregisterGraphsRequest(session_handle=session,
                                                     graph_handles=list(handles))
        self._call(self._deregister, request.SerializeToString(), CONTROL_TIMEOUT_S,
                   "DeregisterGraphs")

    def reset(self, containers=None) -> None:
        request = worker_pb2.ResetContainersRequest(containers=list(containers or ()),
                                                    all=containers is None)
        self._call(self._reset, request.SerializeToString(), CONTROL_TIMEOUT_S,
                   "ResetContainers")
