"""The client end of the direct path: pooled connections to one task's direct port.

``SocketPool.call`` lends an open connection to one request and its reply (a new one is
opened when none is idle: through the peer's Unix socket when it is on this machine,
else TCP; TLS when the cluster uses it, then ``MAGIC`` and the HELLO with the token),
and takes it back afterwards; a connection found closed while idle (its peer
restarted) is dropped before use.  ``call_future`` runs a call on a pool thread;
cancelling it closes its connection, which the server notices and aborts the work
(``socket_server.HangupWatch``).

Errors read like the gRPC path's: an ERROR frame raises the ``ds.errors`` class the
peer raised, with its node; no connection raises ``ConnectFailed`` (an
``UnavailableError``) saying what was seen ("connection refused at 127.0.0.1:2223", "no
answer within 5 s", a TLS failure); a connection lost in the middle of a call raises
``ConnectionLost`` (an ``UnavailableError`` too); a call past its
``timeout`` raises ``DeadlineExceededError``, closing the connection so that the peer
stops working for nobody.
"""

from __future__ import annotations

import concurrent.futures
import select
import socket
import ssl
import threading
import time

from ...errors import CancelledError, DeadlineExceededError
from ...proto import wire_pb2
from ..timeouts import CONNECT_TIMEOUT_S
from ...runtime.daemon_pool import DaemonThreadPool
from .frames import ERROR, HELLO, MAGIC, OK, WELCOME, ConnectionClosed, FrameError, FrameSocket
from .idle import IdleConnections
from .security import Security
from . import socket_options
from .socket_options import client_tls_context, configure, is_local_address, local_name
from .status import ConnectFailed, ConnectionLost, carried_error

__all__ = ["SocketPool", "CallFuture", "connect_error", "probe", "refused"]

MAX_IDLE = 8
_CALLS = DaemonThreadPool(256, "devsession-call")


def connect_error(error: BaseException, host: str, port: int, timeout: float) -> str:
    """What a failed connection attempt saw, in words."""
    where = f"{host}:{port}"
    if isinstance(error, ConnectionRefusedError):
        return f"connection refused at {where} (nothing listening there)"
    if isinstance(error, (socket.timeout, TimeoutError)):
        return f"no answer from {where} within {timeout:.3g} s"
    if isinstance(error, ssl.SSLError):
        return f"the TLS handshake with {where} failed ({error.reason or error})"
    if isinstance(error, socket.gaierror):
        return f"cannot resolve {host} ({error.strerror})"
    if isinstance(error, ConnectionClosed):
        return f"{where} closed the connection while it opened"
    return f"cannot connect to {where} ({type(error).__name__}: {error})"


def probe(address: str, timeout: float = 0.5) -> str:
    """What connecting to ``address`` ("host:port") sees right now, in words."""
    from ..cluster_spec import parse_address

    host, port = parse_address(address)
    host = host.strip("[]")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return f"{address} accepts connections but did not answer as a devsession server"
    except OSError as e:
        return connect_error(e, host, port, timeout)


def refused(address: str, timeout: float = 0.2) -> bool:
    """True if nothing listens at ``address`` right now (the connection is refused)."""
    from ..cluster_spec import parse_address

    host, port = parse_address(address)
    try:
        with socket.create_connection((host.strip("[]"), port), timeout=timeout):
            return False
    except ConnectionRefusedError:
        return True
    except OSError:
        return False


class _Connection:
    __slots__ = ("sock", "frames", "used", "incarnation")

    def __init__(self, sock, frames: FrameSocket, incarnation: int):
        self.sock, self.frames, self.incarnation = sock, frames, incarnation
        self.used = time.monotonic()

    def alive(self) -> bool:
        """False if the idle connection has something to read: its peer closed it."""
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class SocketPool:
    """Connections to ``host``:``port``, the direct port of ``peer`` (a name for messages;
    ``task``, when given, is checked by the server)."""

    def __init__(self, host: str, port: int, security: Security, peer: str, task: str = "",
                 connect_timeout: float = CONNECT_TIMEOUT_S):
        self.host, self.port = host.strip("[]"), port
        self.peer, self.task = peer, task
        self.security = security
        self.connect_timeout = connect_timeout
        self._tls = client_tls_context(security) if security.uses_tls else None
        self._local = socket_options.LOCAL_SOCKETS and is_local_address(self.host)
        self._idle = IdleConnections(MAX_IDLE)
        self.incarnation: int | None = None     # of the peer, from its last welcome

    def __repr__(self) -> str:
        return f"<SocketPool {self.peer} at {self.host}:{self.port}>"

    # --- calls ---------------------------------------------------------------------------

    def call(self, kind: int, message, arrays, reply_cls, timeout: float | None = None,
             what: str = "call", _started=None):
        """(reply message, reply arrays) of one request; raises as the module says."""
        deadline = None if timeout is None else time.monotonic() + timeout
        conn = self._take(timeout, what)
        if _started is not None:
            _started(conn)
        try:
            with self._idle.lent(conn):
                conn.sock.settimeout(None if deadline is None else
                                     max(deadline - time.monotonic(), 1e-3))
                conn.frames.send(kind, message, arrays)
                reply_kind, reply, reply_arrays = conn.frames.receive(
                    {OK: reply_cls, ERROR: wire_pb2.ExchangeReply})
        except (socket.timeout, TimeoutError):
            raise DeadlineExceededError(
                f"{what} on {self.peer} did not finish before its deadline (raise "
                f"RunOptions.timeout_s or SessionOptions.operation_timeout_s).") from None
        except (OSError, FrameError) as e:
            raise ConnectionLost(f"{self.peer} is unavailable ({what}): the connection was "
                                 f"lost ({_reason(e)}).") from None
        if reply_kind == ERROR:
            raise carried_error(reply)
        return reply, reply_arrays

    def call_future(self, kind: int, message, arrays, reply_cls, timeout: float | None = None,
                    what: str = "call") -> "CallFuture":
        return CallFuture(self, kind, message, arrays, reply_cls, timeout, what)

    # --- connections ------------------------------------------------------------------------

    def _take(self, timeout: float | None, what: str) -> _Connection:
        if self._idle.closed:
            raise CancelledError(f"The connection to {self.peer} was closed.")
        return self._idle.take() or self._open(
            self.connect_timeout if timeout is None else min(timeout, self.connect_timeout), what)

    def _open(self, timeout: float, what: str) -> _Connection:
        sock = self._connect_locally(timeout) if self._local else None
        try:
            if sock is None:
                sock = socket.create_connection((self.host, self.port),
                                                timeout=max(timeout, 1e-3))
            configure(sock)
            if self._tls is not None:
                sock = self._tls.wrap_socket(
                    sock, server_hostname=self.security.target_name_override or self.host)
            frames = FrameSocket(sock)
            sock.sendall(MAGIC)
            frames.send(HELLO, wire_pb2.SocketHello(token=self.security.token or "",
                                                    task=self.task))
            kind, welcome, _ = frames.receive({WELCOME: wire_pb2.SocketWelcome,
                                               ERROR: wire_pb2.ExchangeReply})
        except (OSError, FrameError) as e:
            if sock is not None:
                sock.close()
            raise ConnectFailed(f"{self.peer} is unavailable ({what}): "
                                f"{connect_error(e, self.host, self.port, timeout)}.") from None
        if kind == ERROR:
            sock.close()
            raise carried_error(welcome)
        self.incarnation = welcome.incarnation
        return _Connection(sock, frames, welcome.incarnation)

    def _connect_locally(self, timeout: float):
        """A connection to the peer's Unix socket (it is on this machine), or None."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(max(timeout, 1e-3))
        try:
            sock.connect(local_name(self.port))
        except OSError:
            sock.close()
            return None
        return sock

    def close(self) -> None:
        self._idle.close()


def _reason(error: BaseException) -> str:
    if isinstance(error, ConnectionClosed):
        return "it closed"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


class CallFuture:
    """A ``SocketPool.call`` running on a pool thread; ``cancel()`` closes its connection
    (the server sees the hang-up and stops the work)."""

    def __init__(self, pool: SocketPool, kind, message, arrays, reply_cls, timeout, what):
        self._lock = threading.Lock()
        self._conn: _Connection | None = None
        self._cancelled = False
        self._future = _CALLS.submit(pool.call, kind, message, arrays, reply_cls, timeout,
                                     what, self._started)

    def _started(self, conn: _Connection) -> None:
        with self._lock:
            self._conn = conn
            cancelled = self._cancelled
        if cancelled:
            conn.close()

    def cancel(self) -> bool:
        with self._lock:
            self._cancelled = True
            conn = self._conn
        if not self._future.cancel() and conn is not None:
            conn.close()
        return True

    def cancelled(self) -> bool:
        return self._future.cancelled()

    def add_done_callback(self, fn) -> None:
        self._future.add_done_callback(lambda _: fn(self))

    def result(self, timeout: float | None = None):
        try:
            return self._future.result(timeout)
        except concurrent.futures.CancelledError:
            raise CancelledError("The call was cancelled before it started.") from None
        except ConnectionLost:
            if self._cancelled:
                raise CancelledError("The call was cancelled.") from None
            raise
