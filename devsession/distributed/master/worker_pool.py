"""The master's view of the cluster's workers: how to call each task, what each said
about itself, and which ones need checking again.

``status(task)`` asks a task for its devices, kernels and incarnation once and caches
the answer.  A task becomes *suspect* when a call to it failed as unavailable or
aborted, or when its channel's connectivity left READY (its process died or
restarted); the next use of a suspect task asks it again (``recheck``), so a restarted
worker's new incarnation is noticed before a step is sent to it and its partitions are
registered again, and a worker still down fails the step at once: when the quick
question fails and nothing listens at the task's address, there is nothing to wait
for.  ``statuses(tasks)`` asks several tasks at once and, if some cannot be reached
within the connect timeout, raises one ``UnavailableError`` naming every one of them.

The pool opens no connection itself: ``connect(task, address)`` makes the worker object
for another task (a ``RemoteWorker`` over gRPC in a server; a ``LocalWorker`` over an
in-process ``WorkerState`` in tests), so the master's logic runs without sockets too.
"""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Callable

from ...errors import OpError, UnavailableError
from ..cluster_spec import ClusterSpec, parse_task_name, task_name
from ..transport.messages import WorkerStatus
from ..transport.socket_client import refused
from ..worker.local import LocalWorker
from ..worker.state import WorkerState

__all__ = ["WorkerPool", "run_parallel"]


def run_parallel(calls: dict, max_workers: int = 16) -> dict:
    """{key: result or raised exception} of ``calls`` ({key: zero-argument callable}),
    run on threads when there is more than one."""
    if len(calls) <= 1:
        out = {}
        for key, fn in calls.items():
            try:
                out[key] = fn()
            except Exception as e:  # noqa: BLE001 - handed back to the caller
                out[key] = e
        return out
    with concurrent.futures.ThreadPoolExecutor(min(max_workers, len(calls))) as pool:
        futures = {key: pool.submit(fn) for key, fn in calls.items()}
    return {key: f.exception() or f.result() for key, f in futures.items()}


class WorkerPool:
    """Every task of ``cluster``; the master's own task is ``local``."""

    def __init__(self, cluster: ClusterSpec, local: WorkerState,
                 connect: Callable[[str, str], object]):
        self.cluster = cluster
        self.local_task = local.task
        self._local = LocalWorker(local)
        self._connect = connect
        self._lock = threading.Lock()
        self._remote: dict = {}
        self._status: dict[str, WorkerStatus] = {}
        self._suspect: set = set()

    def set_cluster(self, cluster: ClusterSpec) -> None:
        with self._lock:
            self.cluster = cluster
            self._remote.clear()

    def worker(self, task: str):
        if task == self.local_task:
            return self._local
        with self._lock:
            worker = self._remote.get(task)
            if worker is None:
                worker = self._remote[task] = self._connect(task, self.address(task))
                worker.watch(lambda t=task: self.suspect(t))
            return worker

    def suspect(self, task: str) -> None:
        """Ask ``task`` for its status again before using it next."""
        if task != self.local_task:
            with self._lock:
                self._suspect.add(task)

    def is_suspect(self, task: str) -> bool:
        with self._lock:
            return task in self._suspect

    def status(self, task: str, connect_timeout: float, wait_for_ready: bool = True) -> WorkerStatus:
        with self._lock:
            cached = self._status.get(task)
            fresh = task not in self._suspect
        if cached is not None and fresh:
            return cached
        status = self.worker(task).get_status(timeout=connect_timeout,
                                              wait_for_ready=wait_for_ready)
        if status.task != task:
            raise UnavailableError(
                f"The server at {self.worker(task).address} is {status.task}, not {task}: "
                f"the cluster specs of the master and that worker disagree.")
        with self._lock:
            self._status[task] = status
            self._suspect.discard(task)
        return status

    def recheck(self, task: str, wait: float) -> WorkerStatus:
        """The status of a (suspect) task: asked without waiting for a connection; if
        that fails and the connection is refused, UnavailableError at once; else asked
        again, waiting up to ``wait`` (a restarted worker is reachable again only after
        the channel's reconnect backoff)."""
        try:
            return self.status(task, wait, wait_for_ready=False)
        except UnavailableError:
            address = self.address(task)
            if refused(address):
                raise UnavailableError(
                    f"{task} at {address} is down: connection refused at {address} (nothing "
                    f"listening there). Start it again (devsession worker --cluster ... "
                    f"--task N); the session uses it again as soon as it serves.") from None
        return self.status(task, wait, wait_for_ready=True)

    def statuses(self, tasks, connect_timeout: float, nodes_on: dict | None = None,
                 wait_for_ready: bool = True) -> dict:
        """{task: WorkerStatus}; UnavailableError naming every task that did not answer
        (and, from ``nodes_on``, some nodes placed there)."""
        results = run_parallel({t: (lambda t=t: self.status(t, connect_timeout, wait_for_ready))
                                for t in sorted(tasks)})
        failed = {t: r for t, r in results.items() if isinstance(r, Exception)}
        if not failed:
            return results
        for error in failed.values():
            if not isinstance(error, OpError):
                raise error
        lines = []
        for task, error in failed.items():
            nodes = sorted((nodes_on or {}).get(task, ()))
            where = f" (needed by {', '.join(repr(n) for n in nodes[:5])}" + \
                (f" and {len(nodes) - 5} more" if len(nodes) > 5 else "") + ")" if nodes else ""
            lines.append(f"  {task} at {self.address(task)}{where}: {_reason(error)}")
        raise UnavailableError(
            f"Cannot reach {len(failed)} task(s) of the cluster within {connect_timeout:.2g} s:\n"
            + "\n".join(lines) + "\nStart the missing workers (devsession worker --cluster ... "
            "--job JOB --task N), check their addresses, or place those nodes elsewhere.")

    def address(self, task: str) -> str:
        job, index = parse_task_name(task)
        return self.cluster.task_address(job, index)

    def all_tasks(self) -> list[str]:
        return [task_name(job, index) for job, index in self.cluster.tasks()]


def _reason(error: OpError) -> str:
    text = error.message.split(" is unavailable ", 1)[-1]
    return type(error).__name__ + ": " + text
