"""A master's state: the sessions clients hold on this task, their held tensors, and the
calls that span the cluster.  Pure logic: it talks to workers only through a
``WorkerPool`` (``worker_pool.py``), so tests drive it with in-process workers and no
sockets; ``service.py`` only decodes requests, calls this, and encodes replies.

State: ``sessions`` (handle -> ``MasterSession``, which owns a session's graph and its
prepared steps) and ``held`` (tensors between two calls of one session: feeds staged
before a RunStep, fetches too big to ride in its reply).  Held tensors belong to their
session, and are dropped when it closes or ``HOLD_TTL_S`` after they were put there
unclaimed.  Every feed is checked against the graph with the same rule a local session
applies (``feeds.validate_feed``): the master never trusts the bytes it is sent.

    state = MasterState(pool, "worker", 0)
    handle = state.create_session(options, graph_def)
    step = state.prepare(handle, ["x:0"], ["y:0"], [])
    result = state.run_step(handle, step.handle, [x_value], timeout_s=None, trace=False)
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time

from ...device_spec import DeviceSpec
from ...errors import InvalidArgumentError, NotFoundError, OpError, UnavailableError
from ...feeds import validate_feed
from ...options import SessionOptions
from ..timeouts import HOLD_TTL_S
from ..transport.messages import connect_timeout
from .placement import filters_include_task
from .session import MasterSession, PreparedStep
from .worker_pool import WorkerPool, run_parallel

__all__ = ["MasterState", "StepResult", "HeldTensors"]


@dataclasses.dataclass(frozen=True)
class StepResult:
    """One step's outcome: the fetched arrays (in the step's fetch order) and, when they
    are too big for one reply, the key ``take_results`` hands them out by."""

    names: list
    fetched: list
    stats: list
    held: str = ""


class HeldTensors:
    """Tensors waiting for their owner's next call, each set with its expiry."""

    def __init__(self, ttl_s: float = HOLD_TTL_S):
        self._ttl = ttl_s
        self._lock = threading.Lock()
        self._items: dict[str, tuple] = {}

    def put(self, owner: str, arrays: list) -> str:
        key = secrets.token_hex(8)
        now = time.monotonic()
        with self._lock:
            for k in [k for k, (_, _, t) in self._items.items() if t < now]:
                del self._items[k]
            self._items[key] = (owner, arrays, now + self._ttl)
        return key

    def take(self, owner: str, key: str) -> list:
        with self._lock:
            item = self._items.get(key)
            if item is None or item[0] != owner:
                raise NotFoundError(f"No held tensors '{key}' for session {owner} (they expire "
                                    f"after {self._ttl:g} s or when the session closes).")
            del self._items[key]
        return item[1]

    def drop_owner(self, owner: str) -> None:
        with self._lock:
            for k in [k for k, (o, _, _) in self._items.items() if o == owner]:
                del self._items[k]


class MasterState:
    """The master of one task (see the module docstring)."""

    def __init__(self, workers: WorkerPool, master_job: str, master_task: int,
                 inline_bytes: int | None = None):
        self.workers = workers
        self._job, self._task = master_job, master_task
        self._lock = threading.Lock()
        self._sessions: dict[str, MasterSession] = {}
        self.held = HeldTensors()
        self.inline_bytes = inline_bytes   # fetches above this are held (None: never)

    @property
    def task(self) -> str:
        return self.workers.local_task

    # --- sessions ------------------------------------------------------------------------

    def session(self, handle: str) -> MasterSession:
        session = self._sessions.get(handle)
        if session is None:
            raise NotFoundError(
                f"Session {handle!r} does not exist on {self.task} (it was closed, or this "
                f"server restarted since it was created); create a new session.")
        return session

    def create_session(self, options: SessionOptions, graph_def) -> str:
        handle = f"{self.task}/session:{secrets.token_hex(8)}"
        try:
            session = MasterSession(handle, self.workers, self._job, self._task, options)
        except ValueError as e:
            raise InvalidArgumentError(f"Bad session options: {e}") from None
        session.extend(graph_def)
        with self._lock:
            self._sessions[handle] = session
        return handle

    def extend_session(self, handle: str, graph_def) -> None:
        self.session(handle).extend(graph_def)

    def close_session(self, handle: str) -> None:
        with self._lock:
            session = self._sessions.pop(handle, None)
        if session is not None:
            self.held.drop_owner(session.handle)
            session.close()

    def close_all(self, error: OpError | None = None) -> None:
        """Close every session; their steps in flight end with ``error`` (see
        ``MasterSession.close``)."""
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            self.held.drop_owner(session.handle)
            session.close(error)

    # --- steps -------------------------------------------------------------------------------

    def prepare(self, handle: str, feeds, fetches, targets,
                timeout_s: float | None = None) -> PreparedStep:
        """Place, partition and register a signature, within ``timeout_s`` if given."""
        return self.session(handle).prepare(list(feeds), list(fetches), list(targets),
                                            timeout_s)

    def run_step(self, handle: str, step_handle: int, feeds: list | None, timeout_s,
                 trace: bool, staged: str = "", hold: bool = True) -> StepResult:
        """Run a prepared step on ``feeds`` (or on the feeds staged under ``staged``).
        With ``hold``, fetches bigger than ``inline_bytes`` are held for ``take_results``."""
        session = self.session(handle)
        step = session.prepared(step_handle)
        if staged:
            feeds = self.held.take(session.handle, staged)
        fetched, stats = session.run(step, _checked_feeds(step.feeds, feeds), timeout_s, trace)
        names = [t.name for t in step.fetches]
        if hold and self.inline_bytes is not None and \
                sum(v.nbytes for v in fetched) > self.inline_bytes:
            return StepResult(names, fetched, stats, self.held.put(session.handle, fetched))
        return StepResult(names, fetched, stats)

    def stage_feeds(self, handle: str, arrays: list) -> str:
        return self.held.put(self.session(handle).handle, arrays)

    def take_results(self, handle: str, key: str) -> list:
        return self.held.take(self.session(handle).handle, key)

    # --- the cluster ---------------------------------------------------------------------------

    def list_devices(self, handle: str = "") -> tuple[list, list]:
        """(devices of every reachable task, "task: why" for the others), this task first."""
        options = self.session(handle).options if handle else SessionOptions()
        timeout = connect_timeout(options)
        filters = options.device_filters
        tasks = self._kept_tasks(filters)
        results = run_parallel({t: (lambda t=t: self.workers.status(t, timeout, False))
                                for t in tasks})
        devices, unreachable = [], []
        for task in sorted(tasks, key=lambda t: (t != self.task, t)):
            result = results[task]
            if isinstance(result, Exception):
                unreachable.append(f"{task}: {result}")
            else:
                devices.extend(sorted((d for d in result.devices if not filters or
                                       any(f.includes(d.name) for f in filters)),
                                      key=lambda d: (d.device_type != "CPU", d.name)))
        return devices, unreachable

    def _kept_tasks(self, device_filters: tuple) -> list:
        return [t for t in self.workers.all_tasks()
                if filters_include_task(device_filters, *DeviceSpec.parse(t).task_key)]

    def reset(self, containers=None, device_filters: tuple = ()) -> None:
        """Clear resource containers on every task the device filters (none: all) keep;
        UnavailableError naming the tasks that could not be reached (the others are
        cleared)."""
        results = run_parallel({t: (lambda t=t: self.workers.worker(t).reset(containers))
                                for t in self._kept_tasks(device_filters)})
        failed = {t: r for t, r in results.items() if isinstance(r, Exception)}
        if failed:
            raise UnavailableError(
                "Reset cleared the containers of the reachable tasks but not of: " +
                "; ".join(f"{t} ({e})" for t, e in sorted(failed.items())))


def _checked_feeds(tensors, values) -> list:
    """``values`` checked against the fed tensors, as a local session checks feeds."""
    if len(values) != len(tensors):
        raise InvalidArgumentError(f"The step takes {len(tensors)} feed(s), got {len(values)}.")
    checked = []
    for t, v in zip(tensors, values):
        try:
            checked.append(validate_feed(t, v))
        except (ValueError, TypeError) as e:
            raise InvalidArgumentError(str(e), t.op.name) from None
    return checked
