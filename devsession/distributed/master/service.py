"""The MasterService servicer: decode the request, call ``MasterState``, encode the reply.

Nothing else happens here (``state.py`` holds the sessions, the held tensors and every
decision; ``transport/servicer.py`` decodes, encodes and maps errors to gRPC codes with
the node name, as for the worker).  Feeds and fetches up to ``wire.INLINE_BYTES`` ride
inside RunStep; bigger feeds are uploaded first (StageFeeds, a stream) and named by
RunStep, bigger fetches are held by the state and streamed back by FetchResults.  On the
direct socket path (``socket_handlers``, which clients use when CreateSession's reply
names a ``data_port``) a RunStep frame carries feeds and fetches of any size as raw
bytes, so nothing is staged or held.
"""

from __future__ import annotations

import grpc

from ...errors import InvalidArgumentError
from ...graph_def import graph_def_from_bytes
from ...options import SessionOptions
from ...proto import master_pb2 as pb
from ..transport import wire
from ..transport.exchange import StreamLimit
from ..transport.messages import device_to_proto, options_from_proto, stats_to_proto
from ..transport.servicer import STREAM_IN, STREAM_OUT, generic_handler, raw_rpc, rpc
from .state import MasterState

__all__ = ["MasterServicer", "master_handler", "SERVICE"]

SERVICE = "devsession.MasterService"


class MasterServicer:
    """The master of one server, over gRPC."""

    def __init__(self, state: MasterState, data_port: int = 0):
        state.inline_bytes = wire.INLINE_BYTES
        self.state = state
        self.data_port = data_port

    def close_all(self, error=None) -> None:
        self.state.close_all(error)

    # --- sessions -------------------------------------------------------------------------

    @rpc(pb.CreateSessionRequest, wire.decode_payload_stream, STREAM_IN)
    def CreateSession(self, first, payload):
        try:
            options = options_from_proto(first.config)
        except (ValueError, TypeError) as e:
            raise InvalidArgumentError(f"Bad session options: {e}") from None
        handle = self.state.create_session(options, graph_def_from_bytes(payload))
        return pb.CreateSessionResponse(session_handle=handle, data_port=self.data_port)

    @rpc(pb.ExtendSessionRequest, wire.decode_payload_stream, STREAM_IN)
    def ExtendSession(self, first, payload):
        self.state.extend_session(first.session_handle, graph_def_from_bytes(payload))

    @rpc(pb.CloseSessionRequest)
    def CloseSession(self, message, _):
        self.state.close_session(message.session_handle)

    # --- steps ----------------------------------------------------------------------------

    @rpc(pb.PrepareStepRequest)
    def PrepareStep(self, message, _):
        step = self.state.prepare(message.session_handle, message.feeds, message.fetches,
                                  message.targets, message.timeout_s or None)
        reply = pb.PrepareStepResponse(step_handle=step.handle)
        for name, placement in sorted(step.plan.placements.items()):
            reply.placements.add(node=name, device=str(placement.device), note=placement.note)
        return reply

    @raw_rpc()
    def RunStep(self, request: bytes, context) -> bytes:
        return self._run_step(request)

    def _run_step(self, request: bytes, _stream=None) -> bytes:
        message, feeds = wire.decode_tensors(pb.RunStepRequest, request)
        result = self.state.run_step(message.session_handle, message.step_handle, feeds,
                                     message.timeout_s or None, message.trace,
                                     message.staged_feeds)
        reply = pb.RunStepResponse()
        stats_to_proto(result.stats, reply.stats)
        fetched = [wire.to_host(v) for v in result.fetched]
        if result.held:      # too big to ride along: FetchResults streams them
            reply.held_results = result.held
            reply.tensors.extend(wire.tensor_specs(result.names, fetched))
            return reply.SerializeToString()
        return wire.encode_tensors(reply, result.names, fetched)

    def socket_run_step(self, message, feeds, call):
        result = self.state.run_step(message.session_handle, message.step_handle, feeds,
                                     message.timeout_s or None, message.trace, hold=False)
        reply = pb.RunStepResponse()
        stats_to_proto(result.stats, reply.stats)
        fetched = [wire.to_host(v) for v in result.fetched]
        reply.tensors.extend(wire.tensor_specs(result.names, fetched))
        return reply, fetched

    def socket_handlers(self) -> dict:
        """{frame kind: (request class, handler)} for ``SocketServer``."""
        from ..transport.frames import RUN_STEP

        return {RUN_STEP: (pb.RunStepRequest, self.socket_run_step)}

    @rpc(pb.StageFeedsRequest, wire.decode_stream, STREAM_IN)
    def StageFeeds(self, first, arrays):
        key = self.state.stage_feeds(first.session_handle, arrays)
        return pb.StageFeedsResponse(staged_feeds=key)

    @raw_rpc(STREAM_OUT)
    def FetchResults(self, request: bytes, context):
        message, _ = wire.decode(pb.FetchResultsRequest, request)
        arrays = self.state.take_results(message.session_handle, message.held_results)
        yield from wire.encode_stream(pb.FetchResultsResponse(),
                                      [f"{i}" for i in range(len(arrays))], arrays)

    # --- the cluster ------------------------------------------------------------------------

    @rpc(pb.ListDevicesRequest)
    def ListDevices(self, message, _):
        devices, unreachable = self.state.list_devices(message.session_handle)
        reply = pb.ListDevicesResponse(unreachable=unreachable)
        for device in devices:
            device_to_proto(device, reply.devices.add())
        return reply

    @rpc(pb.ResetRequest)
    def Reset(self, message, _):
        try:
            filters = SessionOptions(device_filters=list(message.device_filters)).device_filters
        except (ValueError, TypeError) as e:
            raise InvalidArgumentError(f"Bad device filters: {e}") from None
        self.state.reset(None if message.all else list(message.containers), filters)


def master_handler(servicer: MasterServicer, streams: StreamLimit) -> grpc.GenericRpcHandler:
    """The generic handler serving ``servicer`` under /devsession.MasterService/."""
    return generic_handler(SERVICE, servicer, streams,
                           {"RunStepExchange": (servicer._run_step, None)})
