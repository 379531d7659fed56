"""``GRPC_SESSION``: a session whose graph runs on a cluster, driven through one task's
master service (``grpc://host:port``).

The client is thin: it keeps the master's copy of the graph in step with its own
(``CreateSession`` at ``create``, ``ExtendSession`` with the nodes added since, before the
next step), asks the master to prepare each signature once (``PrepareStep`` places,
partitions and registers; errors such as an unfed placeholder come back from there,
naming the node), and then runs steps by handle.  Per step it sends only the feed
bytes and gets back only the fetch bytes, through ``master_client.py``: directly to a
master of this process, else as raw frames on the master's direct socket path, else
over gRPC.

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

import numpy as np

from ...devices import DeviceAttributes
from ...errors import DeadlineExceededError
from ...graph_def import graph_to_graph_def
from ...options import SessionOptions
from ...proto import master_pb2 as pb
from ...session import BaseSession
from ..transport import wire
from ..transport.messages import device_from_proto, options_to_proto
from ..timeouts import (ABORT_GRACE_S, CLIENT_CONTROL_TIMEOUT_S, CLOSE_TIMEOUT_S,
                        PREPARE_TIMEOUT_S, RUN_GRACE_S)
from .master_client import master_client

__all__ = ["GrpcSession", "master_client", "CLOSE_TIMEOUT_S"]

log = logging.getLogger("devsession")
placement_log = logging.getLogger("devsession.placement")


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
            created = wire.decode(pb.CreateSessionResponse, reply)[0]
            self._handle = created.session_handle
            self._client.learn_data_port(created.data_port)
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
        self._log_placement(prepared.placements)
        positions = [unique.index(t) for t in fetches]
        repeated = len(unique) != len(fetches)
        feed_names = [t.name for t in feeds]
        handle, session, client = prepared.step_handle, self._handle, self._client

        def step(values, deadline, stats):
            timeout = rpc_timeout = None
            if deadline is not None:
                if deadline.expired():
                    raise DeadlineExceededError(
                        "The step's deadline passed before it was sent to the cluster "
                        "(raise RunOptions.timeout_s or SessionOptions.operation_timeout_s).")
                timeout = deadline.remaining()
                rpc_timeout = timeout + RUN_GRACE_S + ABORT_GRACE_S
            request = pb.RunStepRequest(session_handle=session, step_handle=handle,
                                        timeout_s=timeout or 0.0, trace=stats is not None)
            out, step_stats = client.run_step(request, feed_names,
                                              [wire.to_host(v) for v in values], timeout,
                                              rpc_timeout)
            if stats is not None:
                stats.extend(step_stats)
            if repeated:
                seen = set()
                picked = []
                for p in positions:
                    picked.append(np.array(out[p], copy=True) if p in seen else out[p])
                    seen.add(p)
                return picked
            return out

        return step

    def _log_placement(self, placements) -> None:
        for p in placements:
            if p.note:
                log.warning("devsession: node '%s' %s", p.node, p.note)
        if self._options.log_device_placement:
            if not placement_log.handlers and not logging.getLogger().handlers:
                placement_log.addHandler(logging.StreamHandler())
                placement_log.setLevel(logging.INFO)
            for p in placements:
                placement_log.info("%s: %s", p.node, p.device)

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
