"""``ds.Server``: one task of a cluster, serving a master and a worker over gRPC.

    cluster = ds.ClusterSpec({"worker": ["127.0.0.1:2222", "127.0.0.1:2223"]})
    server = ds.Server(cluster, job_name="worker", task_index=0)
    server.target                  # "grpc://127.0.0.1:2222": give it to ds.Session
    server.stop(); server.join()

The server binds exactly the address the ClusterSpec gives its task (port 0 binds a
free port, which ``target`` and ``cluster_spec`` then report).  It owns:

* a ``WorkerState`` (its partitions, variables and rendezvous), served by
  ``WorkerServicer``; its ``_Send`` kernels reach peer tasks through the server's
  channel pool, at the addresses of the server's own ClusterSpec;
* a ``MasterServicer`` for the sessions clients create through this task;
* one gRPC server with deliberate message limits and keepalive (``channels``), TLS when
  ``security`` has a certificate, and a token check on every RPC when it has a token.
  A server on a non-loopback address with neither logs a warning;
* the direct path (``transport/socket_server.py``): a second port on the same host
  (``data_port``: 0 picks a free one, None serves gRPC only) where the step's calls
  (RunStep, RunGraph, tensor pushes) travel as raw frames, with the same TLS and token;
  peers learn the port from the worker's status and CreateSession's reply;
* its entry in this process's table of servers (``local_server``), through which a
  session created in the same process calls its master directly, as TF1's in-process
  master does (servers with TLS are always reached through their ports).

``config`` (a ``ds.ConfigProto``) sets, as TF1's server config does for its devices, how
many threads the task's kernels use: ``intra_op_parallelism_threads`` caps numba's and
BLAS's threads in every partition the task runs (0, the default: every core), e.g. 1 for
each of several tasks sharing a machine's cores.  Its other fields are for sessions.

``ds.train.Server(server_def)`` starts the task a TF ``ServerDef`` names, as the same
cluster, job and index would (``server_def.py``); ``server.server_def`` is the def a
server was made from, ``default_session_config`` included.

``create_local_server()`` starts a one-task cluster on 127.0.0.1; ``create_local_cluster``
starts several tasks in this process on free ports, each knowing the others' (tests and
benchmarks use it).
"""

from __future__ import annotations

import logging
import threading

import grpc

from ..errors import OpError, UnavailableError
from .transport import wire
from .transport.channels import ChannelPool, server_options
from .cluster_spec import ClusterSpec, parse_address, task_name
from .server_def import ServerDef, config_from_proto, make_server_def, server_task
from ..runtime.daemon_pool import DaemonThreadPool
from .transport.exchange import StreamLimit
from .master.service import MasterServicer, master_handler
from .master.state import MasterState
from .transport.security import Security, open_server_warning, token_interceptor
from .transport.socket_server import SocketServer
from .worker.client import RemoteWorker, push_timeout
from .master.worker_pool import WorkerPool
from .worker.service import WorkerServicer, worker_handler
from .worker.state import WorkerState

__all__ = ["Server", "create_local_cluster", "local_server"]

log = logging.getLogger("devsession.distributed")
# Threads serving RPCs.  A RunGraph holds one for the whole step while its receives wait
# for pushes that need threads of their own, so this bounds the steps in flight, not the
# throughput; threads are only made when needed.
MAX_RPC_THREADS = 512

_LOCAL_LOCK = threading.Lock()
_LOCAL: dict = {}           # "host:port" -> a started Server of this process


def _intra_op_threads(config) -> int:
    """``config.intra_op_parallelism_threads`` (0 without a config); ValueError for a
    negative count."""
    threads = int(getattr(config, "intra_op_parallelism_threads", 0) or 0) \
        if config is not None else 0
    if threads < 0:
        raise ValueError(f"intra_op_parallelism_threads must be 0 (every core) or more, "
                         f"got {threads}.")
    return threads


def local_server(address: str) -> "Server | None":
    """The started, running Server of this process at ``address``, if any."""
    with _LOCAL_LOCK:
        return _LOCAL.get(address)


class Server:
    """One task of a cluster (see the module docstring)."""

    def __init__(self, server_or_cluster_def, job_name: str | None = None,
                 task_index: int | None = None, protocol: str | None = None, config=None,
                 start: bool = True, *, security: Security | None = None,
                 data_port: int | None = 0):
        if protocol not in (None, "grpc"):
            raise ValueError(f"Protocol {protocol!r} is not supported; devsession serves grpc.")
        self._server_def = make_server_def(server_or_cluster_def, job_name, task_index,
                                           protocol, config)
        cluster, job_name, task_index, address = server_task(self._server_def)
        if config is None and self._server_def.HasField("default_session_config"):
            config = config_from_proto(self._server_def.default_session_config)
        host, port = parse_address(address)
        self.job_name, self.task_index = job_name, task_index
        self.task = task_name(job_name, task_index)
        self.security = security or Security()
        self._started = False
        self._stopped = threading.Event()

        self._channels = ChannelPool(self.security)
        self.worker = WorkerState(self.task, push=self._push,
                                  intra_op_threads=_intra_op_threads(config))
        interceptors = [token_interceptor(self.security.token, self.task)] \
            if self.security.token else []
        self._grpc = grpc.server(DaemonThreadPool(MAX_RPC_THREADS, "devsession-rpc"),
                                 options=server_options(), interceptors=interceptors)
        try:
            if self.security.uses_tls:
                bound = self._grpc.add_secure_port(address, self.security.server_credentials())
            else:
                bound = self._grpc.add_insecure_port(address)
        except RuntimeError as e:
            bound, reason = 0, str(e).rstrip(". ")
        else:
            reason = "gRPC could not bind it"
        if not bound:
            raise UnavailableError(
                f"Cannot serve {self.task} at {address}: {reason}. Is another server using "
                f"the port, or is {host} not an address of this machine?")
        if port == 0:
            cluster = cluster.with_address(job_name, task_index, f"{host}:{bound}")
        self._cluster = cluster
        # One cache of connections to the other tasks, for the master and for _Send.
        self.pool = WorkerPool(cluster, self.worker, self._connect)
        self.master = MasterServicer(MasterState(self.pool, job_name, task_index))
        self._worker_servicer = WorkerServicer(self.worker)
        streams = StreamLimit(MAX_RPC_THREADS // 2)   # leave threads for unary calls
        self._grpc.add_generic_rpc_handlers((
            worker_handler(self._worker_servicer, streams),
            master_handler(self.master, streams)))
        self._sockets = None
        if data_port is not None:
            self._sockets = self._serve_sockets(host, data_port)
        warning = open_server_warning(self.task, address, self.security)
        if warning:
            log.warning(warning)
        if start:
            self.start()

    # --- TF1's Server surface -----------------------------------------------------------

    @property
    def target(self) -> str:
        return f"grpc://{self._cluster.task_address(self.job_name, self.task_index)}"

    @property
    def cluster_spec(self) -> ClusterSpec:
        return self._cluster

    @property
    def server_def(self) -> ServerDef:
        """The ``ServerDef`` this server was made from (TF's: the cluster as given, so a
        port 0 stays 0 here while ``cluster_spec`` and ``target`` report the bound one)."""
        return self._server_def

    @staticmethod
    def create_local_server(config=None, start: bool = True, *,
                            security: Security | None = None) -> "Server":
        """A one-task cluster (job "localhost", as TF's) on a free port of 127.0.0.1."""
        return Server({"localhost": ["127.0.0.1:0"]}, "localhost", 0, config=config,
                      start=start, security=security)

    @property
    def data_port(self) -> int:
        """The port of the direct path (0 when this server has none)."""
        return self._sockets.port if self._sockets is not None else 0

    def start(self) -> None:
        if not self._started:
            self._started = True
            self._grpc.start()
            if self._sockets is not None:
                self._sockets.start()
            with _LOCAL_LOCK:
                _LOCAL[self._cluster.task_address(self.job_name, self.task_index)] = self
            log.info("devsession: %s serving at %s", self.task, self.target)

    def stop(self, grace: float | None = 1.0) -> None:
        """Stop serving: steps in flight here fail with UnavailableError, connections close.
        Returns once the gRPC server has shut down (at most ``grace`` seconds later)."""
        if self._stopped.is_set():
            return
        with _LOCAL_LOCK:
            address = self._cluster.task_address(self.job_name, self.task_index)
            if _LOCAL.get(address) is self:
                del _LOCAL[address]
        shutting_down = UnavailableError(f"{self.task} is shutting down.")
        self.worker.abort_all(shutting_down)
        self.master.close_all(shutting_down)
        if self._sockets is not None:
            self._sockets.stop()
        self._grpc.stop(grace).wait()
        self._channels.close()
        self._stopped.set()

    def join(self, timeout: float | None = None) -> bool:
        """Block until ``stop`` (from another thread); False if ``timeout`` passed first."""
        return self._stopped.wait(timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    # --- internals -------------------------------------------------------------------------

    def adopt_cluster(self, cluster: ClusterSpec) -> None:
        """Learn the other tasks' real addresses (they bound port 0); before any step."""
        own = cluster.task_address(self.job_name, self.task_index)
        if own != self._cluster.task_address(self.job_name, self.task_index):
            raise ValueError(f"The new cluster gives {self.task} another address ({own}).")
        self._cluster = cluster
        self.pool.set_cluster(cluster)

    def _serve_sockets(self, host: str, port: int) -> SocketServer:
        handlers = {**self._worker_servicer.socket_handlers(), **self.master.socket_handlers()}
        try:
            sockets = SocketServer(host, port, self.security, self.task,
                                   self.worker.incarnation, handlers)
        except OSError as e:
            self._grpc.stop(0)
            raise UnavailableError(f"Cannot serve the direct path of {self.task} at "
                                   f"{host}:{port}: {e.strerror or e}. Give another data "
                                   f"port, or none (gRPC only).") from None
        self._worker_servicer.data_port = self.master.data_port = sockets.port
        return sockets

    def _connect(self, task: str, address: str) -> RemoteWorker:
        return RemoteWorker(task, address, self._channels)

    def _push(self, peer: str, step_id: int, key: str, value, deadline, what: str) -> None:
        """How this worker's _Send kernels reach another task."""
        array = wire.to_host(value)
        try:
            self.pool.worker(peer).push(step_id, key, array, push_timeout(deadline, array.nbytes))
        except OpError as e:
            if e.node_name is None:
                e.node_name = what.lstrip("^").split(":")[0]
            raise


def create_local_cluster(num_workers, job: str = "worker", *,
                         security: Security | None = None, host: str = "127.0.0.1",
                         data_port: int | None = 0) -> list:
    """Servers in this process on free ports of ``host``, each knowing the others'
    addresses, started; stop them with ``server.stop()``.

    ``num_workers`` tasks of ``job``, or a dict of tasks per job (``{"ps": 1, "worker":
    2}``); the servers come in the ClusterSpec's order (jobs by name, then task index).
    """
    jobs = dict(num_workers) if isinstance(num_workers, dict) else {job: num_workers}
    servers = []
    try:
        for name, count in sorted(jobs.items()):
            for index in range(count):
                # Each server binds its own free port first; port-0 entries may repeat.
                own = ClusterSpec({name: {index: f"{host}:0"}})
                servers.append(Server(own, name, index, start=False, security=security,
                                      data_port=data_port))
        spec = ClusterSpec({name: [s.cluster_spec.task_address(name, s.task_index)
                                   for s in servers if s.job_name == name]
                            for name in jobs})
        for server in servers:
            server.adopt_cluster(spec)
            server.start()
    except BaseException:
        for server in servers:
            server.stop(0)
        raise
    return servers
