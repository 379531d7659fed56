"""``ClusterSpec``: which tasks form a cluster and where each one listens.

A cluster is a set of jobs ("worker", "ps", ...), each a set of tasks numbered from 0,
each task a ``host:port``.  The spec is an immutable value: parsed and checked once
(job names, task indices, addresses, no address used twice), compared by value, and
written back in the forms it was read from:

    ClusterSpec({"worker": ["127.0.0.1:2222", "127.0.0.1:2223"]})
    ClusterSpec({"worker": {0: "a:2222", 3: "b:2222"}})          # sparse task indices
    ClusterSpec.from_string("worker=127.0.0.1:2222,127.0.0.1:2223;ps=127.0.0.1:2224")
    ClusterSpec.from_tf_config('{"cluster": {...}, "task": {"type": "worker", "index": 1}}')
    ClusterSpec(cluster_def)                  # a ds.train.ClusterDef (TF's ClusterDef bytes)
    spec.as_cluster_def()                     # back to one: jobs sorted by name, as TF's

A task's full name is ``/job:worker/replica:0/task:1`` (``task_name``); devices of a task
append ``/device:CPU:0``.  Port 0 means "any free port" and is only meaningful for a
server that binds it and then reports the port it got (``with_address``).
"""

from __future__ import annotations

import json
import re
from typing import Mapping

from ..device_spec import DeviceSpec, task_name
from ..proto.cluster_pb2 import ClusterDef

__all__ = ["ClusterSpec", "task_name", "parse_address", "target_address", "SCHEME"]

_JOB = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(?P<port>\d{1,5})$")


SCHEME = "grpc://"


def target_address(target: str) -> str:
    """``host:port`` of a ``grpc://host:port`` target; ValueError otherwise."""
    if not target.startswith(SCHEME):
        raise ValueError(f"Target {target!r} is not a cluster address (grpc://host:port).")
    address = target[len(SCHEME):].rstrip("/")
    parse_address(address)
    return address


def parse_address(address: str) -> tuple[str, int]:
    """(host, port) of ``host:port`` (IPv6 hosts in brackets); ValueError otherwise."""
    match = _HOST_PORT.match(address.strip()) if isinstance(address, str) else None
    if not match or int(match["port"]) > 65535:
        raise ValueError(f"{address!r} is not a host:port address (e.g. 127.0.0.1:2222 or "
                         f"[::1]:2222).")
    return match["host"], int(match["port"])


class ClusterSpec:
    """job name -> {task index: "host:port"}; see the module docstring."""

    def __init__(self, cluster=None):
        if isinstance(cluster, ClusterSpec):
            self._jobs = dict(cluster._jobs)
            return
        if cluster is None:
            cluster = {}
        if isinstance(cluster, ClusterDef):
            cluster = {job.name: dict(job.tasks) for job in cluster.job}
        if not isinstance(cluster, Mapping):
            raise TypeError(f"`cluster` must be a dictionary mapping one or more job names to "
                            f"lists of network addresses, or a `ClusterDef` protocol buffer "
                            f"(got {type(cluster).__name__}).")
        jobs: dict[str, dict[int, str]] = {}
        for job, tasks in cluster.items():
            if not isinstance(job, str) or not _JOB.match(job):
                raise ValueError(f"Job name {job!r} is not valid: use letters, digits and '_', "
                                 f"starting with a letter.")
            if isinstance(tasks, str):
                tasks = [tasks]
            if isinstance(tasks, Mapping):
                items = [(int(i), a) for i, a in tasks.items()]
            elif isinstance(tasks, (list, tuple)):
                items = list(enumerate(tasks))
            else:
                raise TypeError(f"The tasks of job '{job}' must be a list or a dict of "
                                f"addresses, not {type(tasks).__name__}.")
            job_tasks = {}
            for index, address in items:
                if index < 0:
                    raise ValueError(f"Task index {index} of job '{job}' is negative.")
                parse_address(address)
                job_tasks[index] = address.strip()
            jobs[job] = dict(sorted(job_tasks.items()))
        seen: dict[str, str] = {}
        for job, tasks in jobs.items():
            for index, address in tasks.items():
                if parse_address(address)[1] == 0:
                    continue
                other = seen.setdefault(address, task_name(job, index))
                if other != task_name(job, index):
                    raise ValueError(f"Address {address} is given to both {other} and "
                                     f"{task_name(job, index)}.")
        self._jobs = dict(sorted(jobs.items()))

    # --- parsing other forms -----------------------------------------------------------

    @classmethod
    def from_string(cls, text: str) -> "ClusterSpec":
        """``job=host:port,host:port;job2=host:port``, or the same as JSON."""
        text = text.strip()
        if text.startswith("{"):
            return cls(json.loads(text))
        cluster = {}
        for part in filter(None, (p.strip() for p in text.split(";"))):
            job, sep, addresses = part.partition("=")
            if not sep:
                raise ValueError(f"Cannot read cluster {text!r} at {part!r}: expected "
                                 f"job=host:port,host:port;job2=host:port.")
            cluster[job.strip()] = [a.strip() for a in addresses.split(",") if a.strip()]
        return cls(cluster)

    @classmethod
    def from_tf_config(cls, text: str) -> tuple["ClusterSpec", str | None, int | None]:
        """(spec, job, task index) from TF_CONFIG-shaped JSON:
        ``{"cluster": {...}, "task": {"type": "worker", "index": 0}}``."""
        try:
            config = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"The cluster configuration is not valid JSON: {e}") from None
        if not isinstance(config, dict) or "cluster" not in config:
            raise ValueError('The cluster configuration must be a JSON object with a "cluster" '
                             'key (and optionally "task": {"type": ..., "index": ...}).')
        task = config.get("task") or {}
        index = task.get("index")
        return cls(config["cluster"]), task.get("type"), None if index is None else int(index)

    # --- queries -------------------------------------------------------------------------

    @property
    def jobs(self) -> list[str]:
        return list(self._jobs)

    def task_indices(self, job: str) -> list[int]:
        return list(self._tasks(job))

    def num_tasks(self, job: str) -> int:
        return len(self._tasks(job))

    def job_tasks(self, job: str) -> list:
        """Addresses of the job's tasks by index (None where a sparse index is missing)."""
        tasks = self._tasks(job)
        return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []

    def task_address(self, job: str, task: int) -> str:
        tasks = self._tasks(job)
        if task not in tasks:
            raise ValueError(f"No task {task} in job '{job}' (tasks: {sorted(tasks)}).")
        return tasks[task]

    def has_task(self, job: str, task: int) -> bool:
        return task in self._jobs.get(job, {})

    def tasks(self) -> list[tuple[str, int]]:
        """Every (job, task index), sorted."""
        return [(job, index) for job, tasks in self._jobs.items() for index in tasks]

    def task_names(self) -> list[str]:
        return [task_name(job, index) for job, index in self.tasks()]

    def _tasks(self, job: str) -> dict:
        try:
            return self._jobs[job]
        except KeyError:
            raise ValueError(f"No job '{job}' in the cluster (jobs: {self.jobs}).") from None

    # --- derived values --------------------------------------------------------------------

    def with_address(self, job: str, task: int, address: str) -> "ClusterSpec":
        """A copy with one task's address replaced (a server that bound port 0)."""
        self._tasks(job)
        jobs = {j: dict(t) for j, t in self._jobs.items()}
        jobs[job][task] = address
        return ClusterSpec(jobs)

    def as_dict(self) -> dict:
        """job -> list of addresses (dense jobs) or {index: address} (sparse ones)."""
        out = {}
        for job, tasks in self._jobs.items():
            dense = list(tasks) == list(range(len(tasks)))
            out[job] = list(tasks.values()) if dense else dict(tasks)
        return out

    def as_cluster_def(self) -> ClusterDef:
        """TF's ``ClusterDef`` of this spec: jobs sorted by name, tasks by index (so the
        serialized bytes are TF's for the same cluster)."""
        cluster_def = ClusterDef()
        for job, tasks in self._jobs.items():
            job_def = cluster_def.job.add(name=job)
            for index, address in tasks.items():
                job_def.tasks[index] = address
        return cluster_def

    def to_string(self) -> str:
        """The ``from_string`` form (JSON when a job has sparse task indices)."""
        as_dict = self.as_dict()
        if any(isinstance(t, dict) for t in as_dict.values()):
            return json.dumps({j: {str(i): a for i, a in t.items()} if isinstance(t, dict) else t
                               for j, t in as_dict.items()})
        return ";".join(f"{job}={','.join(tasks)}" for job, tasks in as_dict.items())

    def __eq__(self, other) -> bool:
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __hash__(self) -> int:
        return hash(tuple((j, tuple(t.items())) for j, t in self._jobs.items()))

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __repr__(self) -> str:
        return f"ClusterSpec({self.as_dict()!r})"


def parse_task_name(name: str) -> tuple[str, int]:
    """(job, task index) of a full task name such as ``/job:worker/replica:0/task:1``."""
    spec = DeviceSpec.parse(name)
    if spec.job is None or spec.task is None:
        raise ValueError(f"{name!r} does not name a task (/job:NAME/task:N).")
    return spec.job, spec.task


__all__ += ["parse_task_name"]
