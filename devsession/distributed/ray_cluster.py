"""``RayCluster``: the tasks of a devsession cluster started as Ray actors.

    import ray, devsession as ds
    from devsession.distributed import RayCluster

    ray.init()                       # a laptop, or address="auto" on a Ray cluster
    with RayCluster({"ps": 1, "worker": 2}, resources={"worker": {"GPU": 1}}) as rc:
        with ds.device(ds.train.replica_device_setter(cluster=rc.cluster_spec)):
            ...                                        # the model
        with ds.Session(rc.target("worker", 0)) as sess:
            ...                                        # train
    # every task has stopped here

Each task is one actor that reserves its job's ``resources`` (Ray's names: ``CPU``,
``GPU``, custom ones; Ray sets ``CUDA_VISIBLE_DEVICES`` for the GPUs it grants, so a
task sees its GPUs as GPU:0, GPU:1...; a task that reserves CPUs runs its kernels on
that many threads, its server's ``intra_op_parallelism_threads``) and serves a ``ds.Server`` on its node's address
(``ray.util.get_node_ip_address()``, never a loopback one, so tasks on other nodes reach
it).  Starting is two-phase, as for servers in one process: every actor binds a free
port, then all of them learn the whole ClusterSpec and start serving.

Nothing starts half-way.  A request that exceeds what the Ray cluster has in all (more
GPUs than it owns) fails at once, naming the first task that cannot fit and what it
asks; tasks that do not start within ``start_timeout_s`` (the resources are busy) fail
the start, naming the tasks still waiting and what they ask; either way every actor
already started is killed first.  ``stop()`` (or leaving the ``with`` block) stops
every task; if the driver dies instead, Ray kills the actors it owns.

Security: unless ``security`` says otherwise, the tasks serve with a fresh random token
(their addresses are reachable by the whole network of the Ray cluster); sessions in
this process find it by address, other processes take ``rc.session_config()``
(``SessionOptions(config=...)``) or ``rc.security``.
"""

from __future__ import annotations

import math
import secrets
import time

from ..errors import ResourceExhaustedError, UnavailableError
from .cluster_spec import SCHEME, ClusterSpec, task_name
from .transport.security import Security, forget, remember

__all__ = ["RayCluster"]

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0


def _ray():
    try:
        import ray
    except ImportError:
        raise ImportError("RayCluster needs Ray: pip install 'devsession[ray]'.") from None
    return ray


class _Task:
    """The body of one task's actor (wrapped by ``ray.remote`` when first used)."""

    def __init__(self, job: str, index: int, security: Security, threads: int):
        import ray

        from ..config import ConfigProto
        from .server import Server

        host = ray.util.get_node_ip_address()
        self.server = Server(ClusterSpec({job: {index: f"{host}:0"}}), job, index,
                             config=ConfigProto(intra_op_parallelism_threads=threads),
                             start=False, security=security)

    def address(self) -> str:
        spec = self.server.cluster_spec
        return spec.task_address(self.server.job_name, self.server.task_index)

    def serve(self, cluster: str) -> str:
        self.server.adopt_cluster(ClusterSpec.from_string(cluster))
        self.server.start()
        return self.server.target

    def devices(self) -> list:
        return [d.short_name for d in self.server.worker.devices()]

    def intra_op_threads(self) -> int:
        return self.server.worker.intra_op_threads

    def pid(self) -> int:
        import os

        return os.getpid()

    def stop(self) -> None:
        self.server.stop(grace=1.0)


class RayCluster:
    """Tasks of ``jobs`` ({job: number of tasks}) as Ray actors; see the module
    docstring.  ``resources``: {job: {resource: amount}} each task of that job reserves
    (default: nothing, Ray's default for actors)."""

    def __init__(self, jobs: dict, resources: dict | None = None, *,
                 security: Security | None = None, start_timeout_s: float = START_TIMEOUT_S):
        ray = _ray()
        self._tasks = [(job, index) for job, count in sorted(jobs.items())
                       for index in range(count)]
        if not self._tasks:
            raise ValueError("A RayCluster needs at least one task.")
        resources = dict(resources or {})
        unknown = sorted(set(resources) - set(jobs))
        if unknown:
            raise ValueError(f"resources names job(s) {unknown} that the cluster lacks "
                             f"(jobs: {sorted(jobs)}).")
        self._asks = {job: dict(resources.get(job) or {}) for job in jobs}
        self.security = security or Security(token=secrets.token_urlsafe(24))
        self._actors: dict = {}
        self._spec: ClusterSpec | None = None
        if not ray.is_initialized():
            ray.init()
        self._check_capacity(ray)
        try:
            self._start(ray, start_timeout_s)
        except BaseException:
            self._kill_all(ray)
            raise
        remember(self._addresses(), self.security)

    # --- what users read ------------------------------------------------------------------

    @property
    def cluster_spec(self) -> ClusterSpec:
        return self._spec

    def target(self, job: str, index: int = 0) -> str:
        """``grpc://host:port`` of a task, for ``ds.Session``."""
        return SCHEME + self._spec.task_address(job, index)

    def session_config(self) -> dict:
        """What a session in another process passes as ``SessionOptions(config=...)``."""
        config = {}
        if self.security.token:
            config["token"] = self.security.token
        for key in ("root_certificates", "certificate", "private_key", "target_name_override"):
            if getattr(self.security, key) is not None:
                config[key] = getattr(self.security, key)
        return config

    def task_devices(self, job: str, index: int = 0) -> list:
        """The devices the task sees ("CPU:0", "GPU:0"...)."""
        return _ray().get(self._actors[(job, index)].devices.remote(), timeout=60)

    def task_intra_op_threads(self, job: str, index: int = 0) -> int:
        """The threads the task's kernels may use (its CPUs; 0: every core)."""
        return _ray().get(self._actors[(job, index)].intra_op_threads.remote(), timeout=60)

    def task_pid(self, job: str, index: int = 0) -> int:
        return _ray().get(self._actors[(job, index)].pid.remote(), timeout=60)

    # --- starting and stopping --------------------------------------------------------------

    def _options(self, job: str) -> dict:
        ask = dict(self._asks[job])
        options = {"num_cpus": ask.pop("CPU", 0), "num_gpus": ask.pop("GPU", 0)}
        if ask:
            options["resources"] = ask
        return options

    def _check_capacity(self, ray) -> None:
        """ResourceExhaustedError naming the first task that the Ray cluster cannot hold
        even when idle (nothing is started)."""
        total = dict(ray.cluster_resources())
        left = dict(total)
        for job, index in self._tasks:
            for resource, amount in self._asks[job].items():
                if left.get(resource, 0) + 1e-9 < amount:
                    raise ResourceExhaustedError(
                        f"Ray cannot place {task_name(job, index)}: it asks {self._asks[job]}, "
                        f"and the Ray cluster has {total.get(resource, 0):g} {resource} in "
                        f"all ({_describe_asks(self._asks, self._tasks)}). Nothing was "
                        f"started. Ask less, or add nodes with {resource}.")
                left[resource] = left.get(resource, 0) - amount

    def _start(self, ray, timeout: float) -> None:
        actor_class = ray.remote(_Task)
        deadline = time.monotonic() + timeout
        for job, index in self._tasks:
            threads = math.ceil(self._asks[job].get("CPU", 0))
            self._actors[(job, index)] = actor_class.options(**self._options(job)).remote(
                job, index, self.security, threads)
        addresses = self._wait({key: actor.address.remote()
                                for key, actor in self._actors.items()}, deadline, ray)
        spec = ClusterSpec({job: [addresses[(job, i)] for j, i in self._tasks if j == job]
                            for job in dict(self._tasks)})
        self._wait({key: actor.serve.remote(spec.to_string())
                    for key, actor in self._actors.items()}, deadline, ray)
        self._spec = spec

    def _wait(self, refs: dict, deadline: float, ray) -> dict:
        """{task: result}; on timeout, ResourceExhaustedError naming the tasks still waiting
        for their resources (the caller kills every actor)."""
        keys = {ref: key for key, ref in refs.items()}
        pending = list(keys)
        done_values = {}
        while pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                waiting = sorted(keys[ref] for ref in pending)
                raise ResourceExhaustedError(
                    f"Ray did not start {', '.join(task_name(j, i) for j, i in waiting)} "
                    f"within the start timeout (they ask "
                    f"{'; '.join(f'{task_name(j, i)}: {self._asks[j] or {}}' for j, i in waiting)}"
                    f"; available now: {dict(ray.available_resources())}). Nothing is left "
                    f"running. Free the resources, ask less, or raise start_timeout_s.")
            ready, pending = ray.wait(pending, num_returns=len(pending), timeout=remaining)
            for ref in ready:
                try:
                    done_values[keys[ref]] = ray.get(ref)
                except Exception as e:  # the actor failed to start or serve
                    job, index = keys[ref]
                    raise UnavailableError(f"{task_name(job, index)} failed to start as a Ray "
                                           f"actor: {e}") from None
        return done_values

    def stop(self) -> None:
        """Stop every task (each server first, then its actor)."""
        ray = _ray()
        if self._spec is not None:
            forget(self._addresses())
        stops = []
        for actor in self._actors.values():
            try:
                stops.append(actor.stop.remote())
            except Exception:  # noqa: BLE001 - the actor may be gone already
                pass
        if stops:
            ray.wait(stops, num_returns=len(stops), timeout=STOP_TIMEOUT_S)
        self._kill_all(ray)

    def _kill_all(self, ray) -> None:
        for actor in self._actors.values():
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - already dead
                pass
        self._actors.clear()

    def _addresses(self) -> list:
        return [self._spec.task_address(job, index) for job, index in self._tasks]

    def __enter__(self) -> "RayCluster":
        return self

    def __exit__(self, *exc) -> bool:
        self.stop()
        return False

    def __repr__(self) -> str:
        return f"RayCluster({self._spec!r})"


def _describe_asks(asks: dict, tasks: list) -> str:
    parts = []
    for job in sorted(asks):
        count = sum(1 for j, _ in tasks if j == job)
        if asks[job]:
            parts.append(f"{count} {job} task(s) ask {asks[job]} each")
    return "; ".join(parts) or "no resources asked"
