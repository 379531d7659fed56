"""The server end of the direct path: a listening socket beside a task's gRPC port.

Each connection gets a daemon thread that checks the opening (TLS handshake when the
cluster uses TLS, ``MAGIC``, the HELLO's token compared in constant time, the task the
client meant to reach), then reads one request frame at a time, calls the handler of
its kind and writes the reply frame (``frames.py``).  A handler is
``fn(message, arrays, call) -> (reply message, reply arrays)``; an ``OpError`` it
raises goes back as an ERROR frame with its class, message and node, and the
connection stays open; anything malformed closes the connection.

While a handler runs, the connection is quiet (the client waits for the reply), so the
client closing it means it gave up: ``call.on_hangup(fn)`` registers ``fn`` with the
server's ``HangupWatch``, which polls the connections of running calls and calls
``fn`` once when its peer hangs up (a worker aborts the step: its master died or
cancelled it).

Connections are bounded (``max_connections``); one beyond the bound gets an ERROR frame
(RESOURCE_EXHAUSTED) in answer to its HELLO.  On Linux the server also listens on an
abstract Unix socket named after its port (``socket_options.local_name``), which clients
on the same machine use.  ``stop()`` closes the listeners and every connection.
"""

from __future__ import annotations

import hmac
import logging
import select
import socket
import threading

from ...errors import (FailedPreconditionError, OpError, ResourceExhaustedError,
                       UnauthenticatedError)
from ...proto import wire_pb2
from .frames import ERROR, HELLO, MAGIC, OK, WELCOME, FrameError, FrameSocket
from .security import Security
from . import socket_options
from .socket_options import configure, local_name, server_tls_context
from .status import as_op_error

__all__ = ["SocketServer", "ServerCall", "HangupWatch"]

log = logging.getLogger("devsession.distributed")

HANDSHAKE_TIMEOUT_S = 10.0
HANGUP_POLL_S = 0.05


class HangupWatch:
    """Calls ``fn`` when the peer of a watched socket hangs up (or sends anything: a
    client waiting for its reply never does).  One thread, started on first use, polls
    the watched sockets, looking for new ones every ``HANGUP_POLL_S``."""

    def __init__(self):
        self._lock = threading.Condition()
        self._watched: dict[int, tuple] = {}
        self._next = 0
        self._thread: threading.Thread | None = None
        self._stopped = False

    def watch(self, sock, fn) -> int:
        # No wake-up here: a step's registration must cost next to nothing, and the
        # thread looks again within HANGUP_POLL_S anyway.
        with self._lock:
            self._next += 1
            self._watched[self._next] = (sock, fn)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="devsession-hangup-watch")
                self._thread.start()
            return self._next

    def unwatch(self, token: int) -> None:
        with self._lock:
            self._watched.pop(token, None)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._lock.notify()

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._stopped:
                    return
                watched = dict(self._watched)
                if not watched:
                    self._lock.wait(HANGUP_POLL_S)
                    continue
            gone = _hung_up([sock for sock, _ in watched.values()], HANGUP_POLL_S)
            for token, (sock, fn) in watched.items():
                if id(sock) in gone:
                    with self._lock:
                        if self._watched.pop(token, None) is None:
                            continue
                    try:
                        fn()
                    except Exception:  # noqa: BLE001 - a watcher must go on
                        log.exception("devsession: hang-up callback failed")


def _hung_up(socks: list, timeout: float) -> set:
    """ids of the sockets in ``socks`` that became readable (or broke) within ``timeout``."""
    if hasattr(select, "poll"):
        poller = select.poll()
        by_fd = {}
        for sock in socks:
            fd = sock.fileno()
            if fd < 0:
                return {id(sock)}
            by_fd[fd] = sock
            poller.register(fd, select.POLLIN | select.POLLPRI)
        return {id(by_fd[fd]) for fd, _ in poller.poll(timeout * 1000)}
    try:
        readable, _, broken = select.select(socks, [], socks, timeout)
    except (OSError, ValueError):      # a socket closed meanwhile
        return {id(s) for s in socks if s.fileno() < 0}
    return set(map(id, readable)) | set(map(id, broken))


class ServerCall:
    """What a handler knows of the call it serves."""

    __slots__ = ("sock", "peer", "_watch")

    def __init__(self, sock, peer: str, watch: HangupWatch):
        self.sock, self.peer, self._watch = sock, peer, watch

    def on_hangup(self, fn) -> "_Watching":
        """``with call.on_hangup(fn):`` calls ``fn`` if the client hangs up meanwhile."""
        return _Watching(self._watch, self.sock, fn)


class _Watching:
    __slots__ = ("watch", "sock", "fn", "token")

    def __init__(self, watch, sock, fn):
        self.watch, self.sock, self.fn = watch, sock, fn

    def __enter__(self):
        self.token = self.watch.watch(self.sock, self.fn)
        return self

    def __exit__(self, *exc):
        self.watch.unwatch(self.token)
        return False


class SocketServer:
    """Serves ``handlers`` ({kind: (request class, fn)}) on ``host``:``port`` (0: any
    free port) for task ``task``; see the module docstring."""

    def __init__(self, host: str, port: int, security: Security, task: str, incarnation: int,
                 handlers: dict, max_connections: int = 1024):
        self.task = task
        self.incarnation = incarnation
        self.security = security
        self._handlers = handlers
        self._requests = {kind: cls for kind, (cls, _) in handlers.items()}
        self._max = max_connections
        self._tls = server_tls_context(security) if security.uses_tls else None
        self._token = security.token.encode() if security.token else None
        self.watch = HangupWatch()
        self._lock = threading.Lock()
        self._connections: set = set()
        self._stopped = False
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        try:
            self._listener.bind((host.strip("[]"), port))
            self._listener.listen(128)
        except OSError:
            self._listener.close()
            raise
        self.port = self._listener.getsockname()[1]
        self._listeners = [self._listener]
        if socket_options.LOCAL_SOCKETS:     # the same service for tasks on this machine
            local = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                local.bind(local_name(self.port))
                local.listen(128)
                self._listeners.append(local)
            except OSError:             # the name is taken: TCP only
                local.close()

    def start(self) -> None:
        for listener in self._listeners:
            threading.Thread(target=self._accept, args=(listener,), daemon=True,
                             name=f"devsession-accept-{self.port}").start()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            connections = list(self._connections)
        for listener in self._listeners:
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        for sock in connections:
            _close(sock)
        self.watch.stop()

    # --- connections --------------------------------------------------------------------------

    def _accept(self, listener) -> None:
        while True:
            try:
                sock, address = listener.accept()
            except OSError:
                return                        # the listener was closed: stop()
            with self._lock:
                if self._stopped:
                    _close(sock)
                    return
                self._connections.add(sock)
            threading.Thread(target=self._serve, args=(sock, address), daemon=True,
                             name="devsession-socket").start()

    def _serve(self, sock, address) -> None:
        peer = f"{address[0]}:{address[1]}" if isinstance(address, tuple) else "this machine"
        try:
            frames = self._open(sock)
            if frames is not None:
                self._loop(frames, ServerCall(frames.sock, peer, self.watch))
        except (OSError, FrameError) as e:
            log.debug("devsession: direct connection from %s ended: %s", peer, e)
        finally:
            with self._lock:
                self._connections.discard(sock)
            _close(sock)

    def _open(self, sock) -> FrameSocket | None:
        """Check the opening of a connection; its FrameSocket, or None if refused."""
        configure(sock)
        sock.settimeout(HANDSHAKE_TIMEOUT_S)
        if self._tls is not None:
            tls = self._tls.wrap_socket(sock, server_side=True)
            with self._lock:                    # stop() must close the TLS socket
                self._connections.discard(sock)
                self._connections.add(tls)
            sock = tls
        frames = FrameSocket(sock)
        if frames._read_bytes(len(MAGIC)) != MAGIC:
            return None
        _, hello, _ = frames.receive({HELLO: wire_pb2.SocketHello})
        refusal = self._refusal(hello)
        if refusal is not None:
            frames.send_error(refusal, self.task)
            return None
        frames.send(WELCOME, wire_pb2.SocketWelcome(task=self.task,
                                                    incarnation=self.incarnation))
        sock.settimeout(None)
        return frames

    def _refusal(self, hello) -> OpError | None:
        if self._token is not None and not hmac.compare_digest(hello.token.encode(),
                                                               self._token):
            return UnauthenticatedError(
                f"{self.task} requires the cluster's token: the connection had none or a "
                f"wrong one (give it with SessionOptions(config={{'token': ...}}) or the "
                f"worker's --token-file).")
        if hello.task and hello.task != self.task:
            return FailedPreconditionError(
                f"This port serves {self.task}, not {hello.task}: the cluster specs of the "
                f"two tasks disagree.")
        with self._lock:
            if len(self._connections) > self._max:
                return ResourceExhaustedError(
                    f"{self.task} serves {self._max} direct connections already.")
        return None

    def _loop(self, frames: FrameSocket, call: ServerCall) -> None:
        while True:
            kind, message, arrays = frames.receive(self._requests)
            _, handle = self._handlers[kind]
            try:
                reply, reply_arrays = handle(message, arrays, call)
            except Exception as e:  # noqa: BLE001 - sent back as the call's error
                frames.send_error(as_op_error(e, getattr(handle, "__name__", "call")),
                                  self.task)
                continue
            frames.send(OK, reply, reply_arrays)


def _close(sock) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


__all__ += ["OK", "ERROR"]
