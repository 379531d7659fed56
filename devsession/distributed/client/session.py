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
default ``timeouts.CONNECT_TIMEOUT_S``) for the master to answer, then fails with an
``UnavailableError`` saying what it saw there; ``operation_timeout_s`` bounds every call
of the session (creating it, preparing a signature: the master bounds reaching and
registering on the workers by it too, and every step), and ``RunOptions.timeout_s`` a
run, its preparation included; ``close`` waits at most ``CLOSE_TIMEOUT_S``.  A step
without a deadline is bounded by keepalive, which fails it when a peer stops answering.

A master that restarts loses its sessions.  The client notices (its session is unknown
there, or the master's direct port is gone) and creates the session again with the
whole graph, re-preparing each signature on its next use: a step that had not reached
the master runs as if nothing happened; one in flight when the connection broke fails
with ``AbortedError`` (TF1's class for "retrying may work").  Variables that lived only
on the restarted task are uninitialized there, and read as such.

Security settings come from ``SessionOptions.config`` (``security.Security.from_config``).
"""

from __future__ import annotations

import logging
import threading

import numpy as np

from ...devices import DeviceAttributes
from ...errors import AbortedError, DeadlineExceededError, NotFoundError
from ...graph_def import graph_to_graph_def
from ...options import SessionOptions
from ...proto import master_pb2 as pb
from ...session import BaseSession
from ..transport import wire
from ..transport.messages import device_from_proto, options_to_proto
from ..transport.status import ConnectFailed, ConnectionLost
from ..timeouts import (ABORT_GRACE_S, CLIENT_CONTROL_TIMEOUT_S, CLOSE_TIMEOUT_S,
                        PREPARE_TIMEOUT_S, RUN_GRACE_S)
from .master_client import master_client

__all__ = ["GrpcSession", "master_client", "CLOSE_TIMEOUT_S"]

log = logging.getLogger("devsession")


class _RemoteStep:
    """A signature as the master knows it: names, and its handle there for one
    incarnation of the client's session on the master (``generation``)."""

    __slots__ = ("feeds", "fetches", "targets", "handle", "generation", "lock")

    def __init__(self, feeds, fetches, targets):
        self.feeds, self.fetches, self.targets = feeds, fetches, targets
        self.handle, self.generation = 0, -1
        self.lock = threading.Lock()


class GrpcSession(BaseSession):
    """A session on a cluster (see the module docstring)."""

    def __init__(self, options: SessionOptions):
        super().__init__(options)
        self._client = master_client(options)
        self._handle: str | None = None
        self._sent_version = 0
        self._sync_lock = threading.RLock()
        self._generation = 0      # how many times the session was created on the master
        self._lost = False        # the master lost it: create it again before the next call

    def _within(self, limit: float, timeout: float | None = None) -> float:
        """``limit`` seconds, bounded by ``operation_timeout_s`` and ``timeout``."""
        bounds = [limit, timeout, self._options.operation_timeout_s]
        return min(b for b in bounds if b)

    # --- the graph on the master ---------------------------------------------------------

    def create(self, graph=None) -> "GrpcSession":
        super().create(graph)
        self._create_on_master(self._within(CLIENT_CONTROL_TIMEOUT_S))
        return self

    def _create_on_master(self, timeout: float) -> None:
        """Create the session on the master with every node of the graph so far."""
        with self._sync_lock:
            ops = self._graph.get_operations()
            first = pb.CreateSessionRequest(config=options_to_proto(self._options))
            data = graph_to_graph_def(ops).SerializeToString()
            reply = self._client.call("CreateSession", "stream_unary",
                                      wire.encode_payload_stream(first, data), timeout)
            created = wire.decode(pb.CreateSessionResponse, reply)[0]
            self._handle = created.session_handle
            self._client.learn_data_port(created.data_port)
            self._sent_version = len(ops)
            self._generation += 1
            self._lost = False

    def _sync_graph(self, timeout: float) -> None:
        """Send the master the nodes added to the graph since it last heard."""
        with self._sync_lock:
            ops = self._graph.operations_since(self._sent_version)
            if not ops:
                return
            first = pb.ExtendSessionRequest(session_handle=self._handle)
            data = graph_to_graph_def(ops).SerializeToString()
            self._client.call("ExtendSession", "stream_unary",
                              wire.encode_payload_stream(first, data), timeout)
            self._sent_version += len(ops)

    # --- a master that restarted ---------------------------------------------------------------

    def _on_master(self, call, timeout: float | None):
        """``call()``, a request to the master about this session.  If the master lost
        the session (it restarted: the session is unknown there, or its direct port is
        gone) before the request reached it, the session is created there again with the
        whole graph and the call made once more; if the connection broke while the
        master had the request, the call fails with AbortedError and the session is
        created again before the next one."""
        for attempt in (0, 1):
            if self._lost:
                self._recover(timeout)
            try:
                return call()
            except ConnectionLost as e:
                self._lost = True
                self._client.reconnect()
                raise AbortedError(
                    f"The connection to {self._client.peer} broke during the call "
                    f"({e.message}). The master may have restarted: the session creates "
                    f"its graph there again before the next call, so retrying may work "
                    f"(variables that lived only on a restarted task must be initialized "
                    f"again).") from None
            except (ConnectFailed, NotFoundError) as e:
                if attempt or not self._lost_by_master(e):
                    raise
                self._lost = True
                self._client.reconnect()
        raise AssertionError("unreachable")

    def _lost_by_master(self, error) -> bool:
        if isinstance(error, ConnectFailed):
            return True
        return bool(self._handle) and self._handle in error.message

    def _recover(self, timeout: float | None) -> None:
        with self._sync_lock:
            if self._lost:
                old = self._handle
                self._create_on_master(self._within(CLIENT_CONTROL_TIMEOUT_S, timeout))
                log.warning("devsession: the master at %s lost session %s (it restarted?); "
                            "created it again as %s", self._client.address, old, self._handle)

    # --- steps ---------------------------------------------------------------------------

    def _prepare(self, feeds, fetches, targets, timeout=None):
        if self._graph.version != self._sent_version:
            self._on_master(lambda: self._sync_graph(
                self._within(CLIENT_CONTROL_TIMEOUT_S, timeout)), timeout)
        return super()._prepare(feeds, fetches, targets, timeout)

    def _prepare_on_master(self, remote: _RemoteStep, timeout: float | None) -> None:
        """Place, partition and register ``remote``'s signature for the current session
        on the master (within ``timeout``: the master bounds its own work by it)."""
        with remote.lock:
            if remote.generation == self._generation:
                return
            generation = self._generation
            request = pb.PrepareStepRequest(session_handle=self._handle, feeds=remote.feeds,
                                            fetches=remote.fetches, targets=remote.targets,
                                            timeout_s=self._within(PREPARE_TIMEOUT_S, timeout))
            reply = self._client.call("PrepareStep", "unary_unary", request.SerializeToString(),
                                      request.timeout_s + RUN_GRACE_S)
            prepared = wire.decode(pb.PrepareStepResponse, reply)[0]
            remote.handle, remote.generation = prepared.step_handle, generation
        self._log_placement((p.node, p.device, p.note) for p in prepared.placements)

    def _build_step(self, feeds, fetches, targets, timeout=None):
        unique = list(dict.fromkeys(fetches))
        remote = _RemoteStep([t.name for t in feeds], [t.name for t in unique],
                             [op.name for op in targets])
        self._on_master(lambda: self._prepare_on_master(remote, timeout), timeout)
        positions = [unique.index(t) for t in fetches]
        repeated = len(unique) != len(fetches)
        client = self._client

        def step(values, deadline, stats):
            timeout = rpc_timeout = None
            if deadline is not None:
                if deadline.expired():
                    raise DeadlineExceededError(
                        "The step's deadline passed before it was sent to the cluster "
                        "(raise RunOptions.timeout_s or SessionOptions.operation_timeout_s).")
                timeout = deadline.remaining()
                rpc_timeout = timeout + RUN_GRACE_S + ABORT_GRACE_S
            values = [wire.to_host(v) for v in values]

            def run_once():
                if remote.generation != self._generation:     # created again meanwhile
                    self._prepare_on_master(remote, timeout)
                request = pb.RunStepRequest(session_handle=self._handle,
                                            step_handle=remote.handle, timeout_s=timeout or 0.0,
                                            trace=stats is not None)
                return client.run_step(request, remote.feeds, values, timeout, rpc_timeout)

            out, step_stats = self._on_master(run_once, timeout)
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

    # --- devices and the end -------------------------------------------------------------

    def list_devices(self) -> list[DeviceAttributes]:
        """Every device of every reachable task, the master's task first."""
        self._check_open()
        request = pb.ListDevicesRequest(session_handle=self._handle or "")
        reply = wire.decode(pb.ListDevicesResponse, self._client.call(
            "ListDevices", "unary_unary", request.SerializeToString(),
            self._within(CLIENT_CONTROL_TIMEOUT_S)))[0]
        for line in reply.unreachable:
            log.warning("devsession: list_devices: cannot reach %s", line)
        return [device_from_proto(d) for d in reply.devices]

    def _close(self) -> None:
        self._forget_steps()
        if self._handle is not None:
            request = pb.CloseSessionRequest(session_handle=self._handle)
            try:
                self._client.call("CloseSession", "unary_unary", request.SerializeToString(),
                                  self._within(CLOSE_TIMEOUT_S))
            except Exception as e:  # noqa: BLE001 - closing never fails
                log.info("devsession: closing session %s: %s", self._handle, e)
        self._client.close()
