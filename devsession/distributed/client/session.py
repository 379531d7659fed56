"""``GRPC_SESSION``: a session whose graph runs on a cluster, driven through one task's
master service (``grpc://host:port``).

The client is thin: it keeps the master's copy of the graph in step with its own
(``CreateSession`` at ``create``, ``ExtendSession`` with the nodes added since, before the
next step), asks the master to prepare each signature once (``PrepareStep`` places,
partitions and registers; errors such as an unfed placeholder come back from there,
naming the node), and then runs steps by handle.  Per step it sends only the feed
bytes and gets back only the fetch bytes: inline up to ``wire.INLINE_BYTES``, else
staged (``StageFeeds``) or streamed back (``FetchResults``) in chunks.

Deadlines: the first call waits up to ``connect_timeout_s`` (SessionOptions config,
default ``channels.CONNECT_TIMEOUT_S``) for the master to answer, then fails with an
``UnavailableError`` saying where it looked; steps carry their own deadline
(``operation_timeout_s`` / ``RunOptions.timeout_s``) to the master and the workers;
``close`` waits at most ``CLOSE_TIMEOUT_S``.  A step without a deadline is bounded by
gRPC keepalive, which fails it when a peer stops answering.

Security settings come from ``SessionOptions.config`` (``security.Security.from_config``).
"""

from __future__ import annotations

import logging
import threading
import time

import grpc
import numpy as np

from ...devices import DeviceAttributes
from ...errors import DeadlineExceededError, UnavailableError
from ...graph_def import graph_to_graph_def
from ...options import SessionOptions
from ...proto import master_pb2 as pb
from ...session import BaseSession
from ..transport import wire
from ..transport.channels import method_path, open_channel
from ..transport.exchange import ExchangePool
from ..cluster_spec import SCHEME, target_address
from ..transport.messages import (connect_timeout, device_from_proto, options_to_proto,
                                  stats_from_proto)
from ..transport.security import Security
from ..transport.status import error_from_rpc
from ..timeouts import (ABORT_GRACE_S, CLIENT_CONTROL_TIMEOUT_S, CLOSE_TIMEOUT_S,
                        PREPARE_TIMEOUT_S, RUN_GRACE_S)

__all__ = ["GrpcSession", "MasterClient", "master_client", "CLOSE_TIMEOUT_S"]

log = logging.getLogger("devsession")


class MasterClient:
    """The MasterService at one address; every call has a deadline and maps errors."""

    def __init__(self, address: str, security: Security, connect_timeout: float):
        self.address = address
        self.connect_timeout = connect_timeout
        self.channel = open_channel(address, security)
        self._metadata = security.metadata()
        self._connected = False
        self._steps = ExchangePool(
            self.channel, method_path("MasterService", "RunStepExchange"),
            lambda request: self.call("RunStep", "unary_unary", request, None),
            self._metadata, f"the master at {SCHEME}{address}", "RunStep")

    def exchange(self, request: bytes):
        """RunStep as an exchange on an open stream (steps without a deadline)."""
        return self._steps.call(request)

    def _method(self, name: str, kind: str):
        return getattr(self.channel, kind)(method_path("MasterService", name))

    def call(self, name: str, kind: str, request, timeout: float | None):
        """Call method ``name``; the first call of a client waits for the connection."""
        first = not self._connected
        try:
            out = self._method(name, kind)(
                request, timeout=self.connect_timeout if first else timeout,
                metadata=self._metadata, wait_for_ready=first)
            if kind == "unary_stream":
                return out
        except grpc.RpcError as e:
            raise self.error(e, name, first) from None
        self._connected = True
        return out

    def error(self, e: grpc.RpcError, name: str, connecting: bool = False):
        """The ds.errors instance for a failed call (a connection error if ``connecting``)."""
        code = e.code() if hasattr(e, "code") else None
        if connecting and code in (grpc.StatusCode.DEADLINE_EXCEEDED,
                                   grpc.StatusCode.UNAVAILABLE):
            return UnavailableError(
                f"Cannot reach the devsession master at {SCHEME}{self.address} within "
                f"{self.connect_timeout:g} s ({e.details() or code.name}). Start a server "
                f"there (devsession worker --cluster ... --job JOB --task N, or ds.Server), "
                f"check the address (and TLS settings, which fail the same way), or wait "
                f"longer with SessionOptions(config={{'connect_timeout_s': ...}}).")
        return error_from_rpc(e, f"the master at {SCHEME}{self.address}", name)

    def reset(self, containers) -> None:
        request = pb.ResetRequest(containers=list(containers or ()), all=containers is None)
        self.call("Reset", "unary_unary", request.SerializeToString(), CLIENT_CONTROL_TIMEOUT_S)

    def close(self) -> None:
        self._steps.close()
        self.channel.close()


def master_client(options: SessionOptions) -> MasterClient:
    """A MasterClient for the target and security settings of ``options``."""
    return MasterClient(target_address(options.target), Security.from_config(options.config),
                        connect_timeout(options))


class GrpcSession(BaseSession):
    """A session on a cluster (see the module docstring)."""

    def __init__(self, options: SessionOptions):
        super().__init__(options)
        self._client = master_client(options)
        self._handle: str | None = None
        self._sent_version = 0
        self._sync_lock = threading.Lock()

    # --- the graph on the master ---------------------------------------------------------

    def create(self, graph=None) -> "GrpcSession":
        super().create(graph)
        with self._sync_lock:
            ops = self._graph.get_operations()
            first = pb.CreateSessionRequest(config=options_to_proto(self._options))
            data = graph_to_graph_def(ops).SerializeToString()
            reply = self._client.call("CreateSession", "stream_unary",
                                      wire.encode_payload_stream(first, data),
                                      CLIENT_CONTROL_TIMEOUT_S)
            self._handle = wire.decode(pb.CreateSessionResponse, reply)[0].session_handle
            self._sent_version = len(ops)
        return self

    def _sync_graph(self) -> None:
        """Send the master the nodes added to the graph since it last heard."""
        with self._sync_lock:
            ops = self._graph.operations_since(self._sent_version)
            if not ops:
                return
            first = pb.ExtendSessionRequest(session_handle=self._handle)
            data = graph_to_graph_def(ops).SerializeToString()
            self._client.call("ExtendSession", "stream_unary",
                              wire.encode_payload_stream(first, data), CLIENT_CONTROL_TIMEOUT_S)
            self._sent_version += len(ops)

    # --- steps ---------------------------------------------------------------------------

    def _prepare(self, feeds, fetches, targets):
        if self._graph.version != self._sent_version:
            self._sync_graph()
        return super()._prepare(feeds, fetches, targets)

    def _build_step(self, feeds, fetches, targets):
        unique = list(dict.fromkeys(fetches))
        request = pb.PrepareStepRequest(session_handle=self._handle,
                                        feeds=[t.name for t in feeds],
                                        fetches=[t.name for t in unique],
                                        targets=[op.name for op in targets])
        reply = self._client.call("PrepareStep", "unary_unary", request.SerializeToString(),
                                  PREPARE_TIMEOUT_S)
        prepared = wire.decode(pb.PrepareStepResponse, reply)[0]
        self._log_placement((p.node, p.device, p.note) for p in prepared.placements)
        positions = [unique.index(t) for t in fetches]
        repeated = len(unique) != len(fetches)
        feed_names = [t.name for t in feeds]
        handle, session, client = prepared.step_handle, self._handle, self._client

        def step(values, deadline, stats):
            timeout = None
            if deadline is not None:
                if deadline.expired():
                    raise DeadlineExceededError(
                        "The step's deadline passed before it was sent to the cluster "
                        "(raise RunOptions.timeout_s or SessionOptions.operation_timeout_s).")
                timeout = deadline.remaining()
            request = pb.RunStepRequest(session_handle=session, step_handle=handle,
                                        timeout_s=timeout or 0.0, trace=stats is not None)
            values = [wire.to_host(v) for v in values]
            if wire.payload_size(values) <= wire.INLINE_BYTES:
                data = wire.encode_tensors(request, feed_names, values)
            else:
                request.staged_feeds = self._stage(values)
                data = request.SerializeToString()
            if timeout is None:
                rpc_timeout, answer = None, client.exchange(data)
            else:
                rpc_timeout = timeout + RUN_GRACE_S + ABORT_GRACE_S
                answer = client.call("RunStep", "unary_unary", data, rpc_timeout)
            reply, payload = wire.decode(pb.RunStepResponse, answer)
            if reply.held_results:
                out = self._fetch_held(reply.held_results, rpc_timeout)
            else:
                out = wire.read_tensors(reply.tensors, payload)
            if stats is not None:
                stats.extend(stats_from_proto(reply.stats))
            if repeated:
                seen = set()
                picked = []
                for p in positions:
                    picked.append(np.array(out[p], copy=True) if p in seen else out[p])
                    seen.add(p)
                return picked
            return out

        return step

    def _stage(self, values) -> str:
        first = pb.StageFeedsRequest(session_handle=self._handle)
        frames = wire.encode_stream(first, [str(i) for i in range(len(values))], values)
        reply = self._client.call("StageFeeds", "stream_unary", frames,
                                  CLIENT_CONTROL_TIMEOUT_S + wire.payload_size(values) / 20e6)
        return wire.decode(pb.StageFeedsResponse, reply)[0].staged_feeds

    def _fetch_held(self, key: str, timeout) -> list:
        request = pb.FetchResultsRequest(session_handle=self._handle, held_results=key)
        stream = self._client.call("FetchResults", "unary_stream", request.SerializeToString(),
                                   timeout or CLIENT_CONTROL_TIMEOUT_S * 10)
        try:
            return wire.decode_stream(pb.FetchResultsResponse, stream)[1]
        except grpc.RpcError as e:
            raise self._client.error(e, "FetchResults") from None

    # --- devices and the end -------------------------------------------------------------

    def list_devices(self) -> list[DeviceAttributes]:
        """Every device of every reachable task, the master's task first."""
        self._check_open()
        request = pb.ListDevicesRequest(session_handle=self._handle or "")
        reply = wire.decode(pb.ListDevicesResponse, self._client.call(
            "ListDevices", "unary_unary", request.SerializeToString(), CLIENT_CONTROL_TIMEOUT_S))[0]
        for line in reply.unreachable:
            log.warning("devsession: list_devices: cannot reach %s", line)
        return [device_from_proto(d) for d in reply.devices]

    def _close(self) -> None:
        self._forget_steps()
        if self._handle is not None:
            request = pb.CloseSessionRequest(session_handle=self._handle)
            try:
                self._client.call("CloseSession", "unary_unary", request.SerializeToString(),
                                  CLOSE_TIMEOUT_S)
            except Exception as e:  # noqa: BLE001 - closing never fails
                log.info("devsession: closing session %s: %s", self._handle, e)
        self._client.close()
