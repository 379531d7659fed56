"""The WorkerService servicer: decode the request, call ``WorkerState``, encode the reply.

Handlers receive and return raw bytes (``channels``), so a malformed request fails in
``wire.decode`` with ``InvalidArgumentError`` and leaves the server serving;
``transport/servicer.py`` decodes and encodes, and turns every error into its gRPC status
with the node name in the trailing metadata, as for the master.

A RunGraph whose caller goes away (the master cancelled the step, died, or its deadline
passed) aborts the step here at once, so nothing keeps running for nobody.  RunGraph is
also served as exchanges on long-lived streams (``exchange.py``) for steps without a
deadline, and RunGraph and PushTensor on the direct socket path (``socket_handlers``:
tensors as raw frames, ``transport/frames.py``), which callers use whenever the worker's
status names a ``data_port``.
"""

from __future__ import annotations

import grpc

from ...errors import CancelledError, InvalidArgumentError
from ...graph_def import graph_def_from_bytes
from ...proto import worker_pb2 as pb
from ..transport import wire
from ..transport.exchange import StreamLimit
from ..transport.messages import WorkerStatus, optimizer_from_proto, stats_to_proto, status_to_proto
from ..transport.servicer import STREAM_IN, generic_handler, raw_rpc, rpc
from ..transport.status import carried_error
from .state import WorkerState

__all__ = ["WorkerServicer", "worker_handler", "SERVICE"]

SERVICE = "devsession.WorkerService"


class WorkerServicer:
    """Serves one ``WorkerState``; ``data_port`` is the direct path's port it advertises."""

    def __init__(self, state: WorkerState, data_port: int = 0):
        self.state = state
        self.data_port = data_port

    @rpc(pb.GetStatusRequest)
    def GetStatus(self, message, _):
        state = self.state
        status = WorkerStatus(state.task, state.incarnation, tuple(state.devices()),
                              state.kernels(), self.data_port)
        return status_to_proto(status)

    @rpc(pb.RegisterGraphRequest, wire.decode_payload_stream, STREAM_IN)
    def RegisterGraph(self, first, payload):
        graph_def = graph_def_from_bytes(payload)
        handle = self.state.register_graph(
            first.session_handle, graph_def, list(first.feeds), list(first.fetches),
            list(first.targets), optimizer_from_proto(first.optimizer))
        return pb.RegisterGraphResponse(graph_handle=handle, incarnation=self.state.incarnation)

    @rpc(pb.DeregisterGraphsRequest)
    def DeregisterGraphs(self, message, _):
        self.state.deregister(message.session_handle, list(message.graph_handles))

    def _run_graph(self, request: bytes, watch: "_CallerWatch") -> bytes:
        message, _ = wire.decode(pb.RunGraphRequest, request)
        watch.step = message.step_id
        try:
            response, returned = self._run_registered(message)
        finally:
            watch.step = None
        return wire.encode_tensors(response, [k for k, _ in returned], [v for _, v in returned])

    def _run_registered(self, message) -> tuple:
        """(RunGraphResponse without tensors, returned sends) of one RunGraphRequest."""
        _, stats, returned = self.state.run_graph(
            message.graph_handle, message.step_id, (), message.timeout_s or None,
            message.trace, message.incarnation or None, message.return_sends_to or None)
        response = pb.RunGraphResponse()
        stats_to_proto(stats, response.stats, self.state.task)
        return response, returned

    # --- the direct socket path ---------------------------------------------------------------

    def socket_run_graph(self, message, arrays, call):
        step = message.step_id
        with call.on_hangup(lambda: self.state.abort_step(step, _cancelled(self.state, step))):
            response, returned = self._run_registered(message)
        values = [wire.to_host(v) for _, v in returned]
        response.tensors.extend(wire.tensor_specs([k for k, _ in returned], values))
        return response, values

    def socket_push(self, message, arrays, call):
        self._receive(message, arrays)
        return pb.PushTensorResponse(), ()

    def socket_handlers(self) -> dict:
        """{frame kind: (request class, handler)} for ``SocketServer``."""
        from ..transport.frames import PUSH_TENSOR, RUN_GRAPH

        return {RUN_GRAPH: (pb.RunGraphRequest, self.socket_run_graph),
                PUSH_TENSOR: (pb.PushTensorRequest, self.socket_push)}

    @raw_rpc()
    def RunGraph(self, request: bytes, context) -> bytes:
        return self._run_graph(request, self._watch(context))

    def _watch(self, context) -> "_CallerWatch":
        return _CallerWatch(self.state, context)

    @rpc(pb.AbortStepRequest)
    def AbortStep(self, message, _):
        self.state.abort_step(message.step_id, carried_error(message))

    @rpc(pb.PushTensorRequest, wire.decode_tensors)
    def PushTensor(self, message, arrays):
        self._receive(message, arrays)

    @rpc(pb.PushTensorRequest, wire.decode_stream, STREAM_IN)
    def PushTensorStream(self, message, arrays):
        self._receive(message, arrays)

    def _receive(self, message, arrays) -> None:
        if len(arrays) != 1:
            raise InvalidArgumentError(f"A push carries exactly one tensor, not {len(arrays)}.")
        self.state.receive(message.step_id, message.tensors[0].name, arrays[0])

    @rpc(pb.ResetContainersRequest)
    def ResetContainers(self, message, _):
        self.state.reset(None if message.all else list(message.containers))


class _CallerWatch:
    """Aborts the step a call (or an exchange stream) is running when its caller goes
    away: the master cancelled the step, died, or its deadline passed."""

    def __init__(self, state: WorkerState, context):
        self.state = state
        self.step: int | None = None
        context.add_callback(self._gone)

    def _gone(self) -> None:
        step = self.step
        if step is not None:
            self.state.abort_step(step, _cancelled(self.state, step))


def _cancelled(state: WorkerState, step: int) -> CancelledError:
    return CancelledError(f"Step {step} on {state.task} was cancelled: its master went away "
                          f"or gave up on it.")


def worker_handler(servicer: WorkerServicer, streams: StreamLimit) -> grpc.GenericRpcHandler:
    """The generic handler serving ``servicer`` under /devsession.WorkerService/."""
    return generic_handler(SERVICE, servicer, streams,
                           {"RunGraphExchange": (servicer._run_graph, servicer._watch)})
