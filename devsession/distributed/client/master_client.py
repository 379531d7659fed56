"""How a client reaches its master: ``MasterClient`` (over the network) and
``LocalMasterClient`` (a server of this process, called directly).

Both offer ``call(method, kind, request bytes, timeout)`` for the control methods
(CreateSession, ExtendSession, PrepareStep, CloseSession, ListDevices, Reset: always
gRPC on the network) and ``run_step(...)`` for steps, which is where the time goes:

* ``LocalMasterClient``: ``MasterState.run_step`` with the caller's arrays, nothing
  encoded or copied (TF1's sessions do the same with a server of their own process).
  The server's token is still checked; servers with TLS are never called this way.
* ``MasterClient`` on the direct path (``transport/socket_client.py``), once
  CreateSession's reply gave its port: one frame each way, feeds and fetches of any size
  as raw bytes read straight into their arrays.
* ``MasterClient`` on gRPC otherwise: RunStep inline up to ``wire.INLINE_BYTES``, else
  staged feeds (StageFeeds) and held fetches (FetchResults); steps without a deadline as
  exchanges on an open stream (``transport/exchange.py``).

Connecting: the first call waits up to ``connect_timeout`` for the master (a slow
worker start is normal), and says what it saw if it never answered: "connection
refused at 127.0.0.1:2222 (nothing listening there)", no answer, a TLS failure.
"""

from __future__ import annotations

import hmac

import grpc

from ...errors import (DeadlineExceededError, OpError, UnauthenticatedError, UnavailableError,
                       error_class_for_code)
from ...options import SessionOptions
from ...proto import master_pb2 as pb
from ..cluster_spec import SCHEME, parse_address, target_address
from ..timeouts import CLIENT_CONTROL_TIMEOUT_S
from ..transport import wire
from ..transport.channels import method_path, open_channel
from ..transport.exchange import ExchangePool
from ..transport.frames import RUN_STEP
from ..transport.messages import connect_timeout, stats_from_proto
from ..transport.security import Security, client_security
from ..transport.socket_client import SocketPool, probe
from ..transport.status import as_op_error, error_from_rpc

__all__ = ["MasterClient", "LocalMasterClient", "master_client"]


class MasterClient:
    """The MasterService at one address; every call has a deadline and maps errors."""

    def __init__(self, address: str, security: Security, connect_timeout: float,
                 direct_path: bool = True):
        self.address = address
        self.security = security
        self.connect_timeout = connect_timeout
        self.channel = open_channel(address, security)
        self._metadata = security.metadata()
        self._connected = False
        self._use_direct = direct_path
        self._direct: SocketPool | None = None
        self._steps = ExchangePool(
            self.channel, method_path("MasterService", "RunStepExchange"),
            lambda request: self.call("RunStep", "unary_unary", request, None),
            self._metadata, self.peer, "RunStep")

    @property
    def peer(self) -> str:
        return f"the master at {SCHEME}{self.address}"

    def _method(self, name: str, kind: str):
        return getattr(self.channel, kind)(method_path("MasterService", name))

    def call(self, name: str, kind: str, request, timeout: float | None):
        """Call method ``name``; the first call of a client waits for the connection (at
        most ``connect_timeout``, and at most ``timeout``)."""
        first = not self._connected
        if first:
            timeout = self.connect_timeout if timeout is None else \
                min(timeout, self.connect_timeout)
        try:
            out = self._method(name, kind)(request, timeout=timeout, metadata=self._metadata,
                                           wait_for_ready=first)
            if kind == "unary_stream":
                return out
        except grpc.RpcError as e:
            raise self.error(e, name, first, timeout) from None
        self._connected = True
        return out

    def error(self, e: grpc.RpcError, name: str, connecting: bool = False,
              waited: float | None = None):
        """The ds.errors instance for a failed call (a connection error if ``connecting``:
        UnavailableError after the connect timeout, DeadlineExceededError when the
        caller's shorter timeout ended the wait)."""
        code = e.code() if hasattr(e, "code") else None
        if connecting and code in (grpc.StatusCode.DEADLINE_EXCEEDED,
                                   grpc.StatusCode.UNAVAILABLE):
            waited = waited or self.connect_timeout
            seen = probe(self.address)
            if waited < self.connect_timeout:
                return DeadlineExceededError(
                    f"{name}: no answer from the devsession master at {SCHEME}{self.address} "
                    f"within the operation's timeout of {waited:.3g} s ({seen}). Raise "
                    f"RunOptions.timeout_s or SessionOptions.operation_timeout_s.")
            return UnavailableError(
                f"Cannot reach the devsession master at {SCHEME}{self.address} within "
                f"{waited:.3g} s: {seen}. Start a server there (devsession worker --cluster "
                f"... --job JOB --task N, or ds.Server), check the address (and TLS "
                f"settings), or wait longer with SessionOptions(config={{'connect_timeout_s': "
                f"...}}).")
        return error_from_rpc(e, self.peer, name)

    def reconnect(self) -> None:
        """The master went away: the next call waits for it again, as the first did."""
        self._connected = False

    def learn_data_port(self, port: int) -> None:
        """CreateSession's reply named the master's direct port (0: none)."""
        if self._direct is not None and self._direct.port == port:
            return
        old, self._direct = self._direct, None
        if port and self._use_direct:
            host, _ = parse_address(self.address)
            self._direct = SocketPool(host, port, self.security, self.peer,
                                      connect_timeout=self.connect_timeout)
        if old is not None:
            old.close()

    def run_step(self, request: pb.RunStepRequest, names: list, values: list,
                 timeout: float | None, rpc_timeout: float | None) -> tuple[list, list]:
        """(fetched arrays, NodeStats) of one step."""
        if self._direct is not None:
            request.tensors.extend(wire.tensor_specs(names, values))
            reply, fetched = self._direct.call(RUN_STEP, request, values, pb.RunStepResponse,
                                               rpc_timeout, "RunStep")
            return fetched, stats_from_proto(reply.stats)
        if wire.payload_size(values) <= wire.INLINE_BYTES:
            data = wire.encode_tensors(request, names, values)
        else:
            request.staged_feeds = self._stage(request.session_handle, values)
            data = request.SerializeToString()
        if timeout is None:
            answer = self._steps.call(data)
        else:
            answer = self.call("RunStep", "unary_unary", data, rpc_timeout)
        reply, payload = wire.decode(pb.RunStepResponse, answer)
        if reply.held_results:
            fetched = self._fetch_held(request.session_handle, reply.held_results, rpc_timeout)
        else:
            fetched = wire.read_tensors(reply.tensors, payload)
        return fetched, stats_from_proto(reply.stats)

    def _stage(self, handle: str, values) -> str:
        first = pb.StageFeedsRequest(session_handle=handle)
        frames = wire.encode_stream(first, [str(i) for i in range(len(values))], values)
        reply = self.call("StageFeeds", "stream_unary", frames,
                          CLIENT_CONTROL_TIMEOUT_S + wire.payload_size(values) / 20e6)
        return wire.decode(pb.StageFeedsResponse, reply)[0].staged_feeds

    def _fetch_held(self, handle: str, key: str, timeout) -> list:
        request = pb.FetchResultsRequest(session_handle=handle, held_results=key)
        stream = self.call("FetchResults", "unary_stream", request.SerializeToString(),
                           timeout or CLIENT_CONTROL_TIMEOUT_S * 10)
        try:
            return wire.decode_stream(pb.FetchResultsResponse, stream)[1]
        except grpc.RpcError as e:
            raise self.error(e, "FetchResults") from None

    def reset(self, containers, device_filters=()) -> None:
        request = pb.ResetRequest(containers=list(containers or ()), all=containers is None,
                                  device_filters=[str(f) for f in device_filters])
        self.call("Reset", "unary_unary", request.SerializeToString(), CLIENT_CONTROL_TIMEOUT_S)

    def close(self) -> None:
        self._steps.close()
        if self._direct is not None:
            self._direct.close()
        self.channel.close()


class LocalMasterClient:
    """The master of ``server``, a Server of this process, called directly."""

    def __init__(self, server, security: Security):
        expected = server.security.token
        if expected and not hmac.compare_digest((security.token or "").encode(),
                                                expected.encode()):
            raise UnauthenticatedError(
                f"{server.task} requires the cluster's token: the session had none or a "
                f"wrong one (give it with SessionOptions(config={{'token': ...}})).")
        self.servicer = server.master
        self.state = server.master.state
        self.address = server.target[len(SCHEME):]
        self.peer = f"the master at {server.target}"

    def call(self, name: str, kind: str, request, timeout: float | None):
        method = getattr(type(self.servicer), name).__wrapped__
        try:
            return method(self.servicer, request, None)
        except Exception as e:  # noqa: BLE001 - as the servicer's guard would map it
            raise _as_reply(as_op_error(e, name)) from None

    def learn_data_port(self, port: int) -> None:
        pass

    def reconnect(self) -> None:
        pass

    def run_step(self, request: pb.RunStepRequest, names: list, values: list,
                 timeout: float | None, rpc_timeout: float | None) -> tuple[list, list]:
        try:
            result = self.state.run_step(request.session_handle, request.step_handle, values,
                                         timeout, request.trace, hold=False)
        except OpError as e:
            raise _as_reply(e) from None
        return [wire.to_host(v) for v in result.fetched], result.stats

    def reset(self, containers, device_filters=()) -> None:
        self.state.reset(containers, device_filters)

    def close(self) -> None:
        pass


def _as_reply(error: OpError) -> OpError:
    """``error`` as a remote master's reply would raise it: the plain class of its code
    (the transport's own subclasses describe the master's connections to its workers,
    not the client's to its master)."""
    return error_class_for_code(error.code)(error.message, error.node_name)


def master_client(options: SessionOptions):
    """The client for the target of ``options``: a server of this process directly
    (unless it uses TLS, or ``config['local_master']`` is False), else over the network
    (the direct path unless ``config['direct_path']`` is False)."""
    from ..server import local_server

    address = target_address(options.target)
    security = client_security(options.config, address)
    config = dict(options.config or ())
    server = local_server(address) if config.get("local_master", True) else None
    if server is not None and not server.security.uses_tls:
        return LocalMasterClient(server, security)
    return MasterClient(address, security, connect_timeout(options),
                        config.get("direct_path", True))
