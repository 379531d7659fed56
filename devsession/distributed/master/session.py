"""A client's session on the master: its graph, its prepared signatures, its steps.

``prepare(feeds, fetches, targets, timeout_s)`` does all the per-signature work once and
caches it (as a direct session caches its plans): prune to the needed nodes, find their
tasks, reach those tasks (``WorkerPool.statuses``: one error naming every unreachable
task), place every node on a device of its task, partition (``partition.py``) and
register each partition on its task, all within the client's timeout when it gave one.
Tasks the signature does not touch are never contacted.

``run(step, feeds)`` runs one step under a fresh random step id.  Remote partitions
start first, as RunGraph calls in flight at once; the master's own partition (the one
that takes the feeds and yields the fetches) then runs in the calling thread.  When the
master's partition sends nothing (only receives), no remote partition can wait for it:
the remote ones then run to completion first and return their small sends to the
master's task inside their replies, which spares a message and a thread switch per
step (a remote partition alone is even called from the calling thread).  Tensors
move worker to worker by ``_Send``/``_Recv``, never through the master.  The first error
from any partition is the step's error (``_StepRun``): every other participant gets
``AbortStep`` with it, so a partition waiting for a tensor that will never come fails at
once with that same error (a dead worker's ``UnavailableError`` naming the task, a
node's ``InvalidArgumentError``...), and calls still running ``ABORT_GRACE_S`` after the
abort are cancelled.  Nothing waits without a bound except a step that is still making
progress and has no deadline.

A registration remembers the incarnation of the worker it was made on; before a step a
suspect task (see ``WorkerPool``) is asked for its incarnation, and a partition made on
an earlier one is registered again, so a restarted worker costs at most one step
(``AbortedError``) and usually none.  A suspect task that is still down fails the step
at once (``WorkerPool.recheck``: "connection refused", in milliseconds), not after a
wait.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import sys
import threading
import time

from ...errors import (AbortedError, DeadlineExceededError, InvalidArgumentError, NotFoundError,
                      OpError, UnavailableError)
from ...graph import Graph
from ...graph_codec import node_def_of
from ...graph_def import import_graph_def
from ...options import SessionOptions
from ...runtime.deadline import session_closed_error
from ...runtime.placement import moved_node_warnings
from ...runtime.plan import check_feeds_cover_placeholders, needed_ops
from ..timeouts import ABORT_GRACE_S, RECONNECT_WAIT_S, REGISTER_TIMEOUT_S, RUN_GRACE_S
from ..transport.messages import connect_timeout
from ..worker.rendezvous import copy_error
from .partition import PartitionPlan, partition_graph
from .placement import ClusterPlacer, colocation_root, referenced_variables
from .worker_pool import WorkerPool, run_parallel

__all__ = ["MasterSession", "PreparedStep"]

log = logging.getLogger("devsession.distributed")


@dataclasses.dataclass
class PreparedStep:
    """One signature, placed, partitioned and registered."""

    handle: int
    plan: PartitionPlan
    feeds: tuple                   # fed Tensors, in request order
    fetches: tuple                 # fetched Tensors, in request order
    registrations: dict            # task -> (graph handle, worker incarnation)
    local_sends: bool = True       # the master's own partition sends to other tasks
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)


class MasterSession:
    """See the module docstring."""

    def __init__(self, handle: str, workers: WorkerPool, master_job: str, master_task: int,
                 options: SessionOptions):
        self.handle = handle
        self.workers = workers
        self.options = options
        self.connect_timeout = connect_timeout(options)
        self.graph = Graph()
        self.placer = ClusterPlacer(workers.cluster, master_job, master_task, options.device,
                                    options.allow_soft_placement, options.device_filters)
        self._lock = threading.Lock()
        self._prepared: dict = {}
        self._by_handle: dict[int, PreparedStep] = {}
        self._closed = False
        self._running: set = set()      # the _StepRuns in flight: close() cancels them
        self._running_lock = threading.Lock()   # after _lock when both are taken
        self.last_used = time.monotonic()

    # --- the graph -------------------------------------------------------------------------

    def extend(self, graph_def) -> None:
        """Add the nodes of ``graph_def`` (validated as any import); they may read nodes
        the session already has.  Prepared steps stay: new nodes change no old node."""
        with self._lock:
            self._check_open()
            import_graph_def(graph_def, graph=self.graph)

    def _check_open(self) -> None:
        if self._closed:
            raise AbortedError(f"Session {self.handle} is closed.")

    # --- signatures --------------------------------------------------------------------------

    def prepare(self, feeds, fetches, targets, timeout_s: float | None = None) -> PreparedStep:
        """The PreparedStep of a signature (names), made once, within ``timeout_s``."""
        key = (tuple(feeds), tuple(fetches), tuple(targets))
        step = self._prepared.get(key)
        if step is not None:
            return step
        deadline = time.monotonic() + timeout_s if timeout_s else None
        with self._lock:
            self._check_open()
            step = self._prepared.get(key)
            if step is not None:
                return step
            step = self._build(*key, deadline)
            self._prepared[key] = step
            self._by_handle[step.handle] = step
            return step

    def prepared(self, handle: int) -> PreparedStep:
        step = self._by_handle.get(handle)
        if step is None:
            raise NotFoundError(f"Session {self.handle} has no prepared step {handle}.")
        return step

    def _lookup(self, feeds, fetches, targets):
        graph = self.graph
        try:
            feed_t = tuple(graph.get_tensor_by_name(n) for n in feeds)
            fetch_t = tuple(graph.get_tensor_by_name(n) for n in fetches)
            target_o = tuple(graph.get_operation_by_name(n) for n in targets)
        except (KeyError, ValueError) as e:
            raise InvalidArgumentError(f"The session's graph has no such node: "
                                       f"{e.args[0] if e.args else e}") from None
        return feed_t, fetch_t, target_o

    def _build(self, feeds, fetches, targets, deadline: float | None = None) -> PreparedStep:
        feed_t, fetch_t, target_o = self._lookup(feeds, fetches, targets)
        ops = self.graph.get_operations()
        needed = needed_ops(fetch_t, target_o, set(feed_t))
        position = {op: i for i, op in enumerate(ops)}
        check_feeds_cover_placeholders(sorted(needed, key=position.__getitem__))
        to_place = needed | {colocation_root(op) for op in needed} | {
            var for op in needed for var in referenced_variables(op)}
        task_of = {op: self.placer.task_of(op) for op in to_place}
        nodes_on: dict = {}
        for op, task in task_of.items():
            nodes_on.setdefault(task, []).append(op.name)
        tasks = set(task_of.values()) | {self.workers.local_task}
        statuses = self.workers.statuses(tasks, _within(self.connect_timeout, deadline),
                                         nodes_on)
        placements = {op.name: self.placer.place(op, statuses[task_of[op]].task_devices())
                      for op in to_place}
        plan = partition_graph(ops, feed_t, fetch_t, target_o, placements,
                               self.workers.local_task, node_def_of)
        self._log_placement(plan)
        local = plan.partitions.get(self.workers.local_task)
        step = PreparedStep(len(self._by_handle) + 1, plan, feed_t, fetch_t, {},
                            local is not None and bool(local.sends_to()))
        results = run_parallel({task: (lambda task=task: self._register(
            step, task, _within(REGISTER_TIMEOUT_S, deadline))) for task in plan.partitions})
        for result in results.values():
            if isinstance(result, Exception):
                raise result
        return step

    def _register(self, step: PreparedStep, task: str,
                  timeout: float = REGISTER_TIMEOUT_S) -> tuple[str, int]:
        part = step.plan.partitions[task]
        handle, incarnation = self.workers.worker(task).register_graph(
            self.handle, part.graph_def(), part.feeds, part.fetches, part.targets,
            self.options.optimizer, timeout)
        step.registrations[task] = (handle, incarnation)
        return handle, incarnation

    def _registration(self, step: PreparedStep, task: str) -> tuple[str, int]:
        """The task's registration of ``step``, made again if the task restarted."""
        handle, incarnation = step.registrations[task]
        if self.workers.is_suspect(task):
            # A worker that is back may be reachable only after the channel's reconnect
            # backoff, so wait a little for it; one still down fails at once.
            status = self.workers.recheck(task, min(self.connect_timeout, RECONNECT_WAIT_S))
            if status.incarnation != incarnation:
                with step.lock:
                    handle, incarnation = step.registrations[task]
                    if status.incarnation != incarnation:
                        log.warning("devsession: %s restarted; registering session %s's "
                                    "partition again", task, self.handle)
                        handle, incarnation = self._register(step, task)
        return handle, incarnation

    def _log_placement(self, plan: PartitionPlan) -> None:
        placements = sorted(plan.placements.items())
        for line in moved_node_warnings((name, p.note) for name, p in placements):
            log.warning("%s", line)
        if self.options.log_device_placement:
            for name, placement in placements:
                if not placement.note:
                    log.info("%s: %s", name, placement.device)

    # --- steps --------------------------------------------------------------------------------

    def run(self, step: PreparedStep, feeds: list, timeout_s: float | None,
            trace: bool) -> tuple[list, list]:
        """Run one step; (fetched arrays, NodeStats).  Raises the step's first error."""
        self._check_open()
        self.last_used = time.monotonic()
        deadline = time.monotonic() + timeout_s if timeout_s else None
        remote = [(task, self.workers.worker(task), *self._registration(step, task))
                  for task in step.plan.remote_tasks]
        run = _StepRun(secrets.randbits(63) + 1, self.workers, [t for t, *_ in remote])
        with self._running_lock:     # not _lock: prepare() holds it across network calls
            self._check_open()
            self._running.add(run)
        try:
            return self._run(step, run, remote, feeds, deadline, trace)
        finally:
            with self._running_lock:
                self._running.discard(run)

    def _run(self, step: PreparedStep, run: "_StepRun", remote: list, feeds: list,
             deadline: float | None, trace: bool) -> tuple[list, list]:
        plan, local = step.plan, self.workers.local_task
        if remote:
            self._start_remote(run, remote, deadline, trace, sequential=not step.local_sends)
        fetched, stats = [], []
        if local in plan.partitions and run.error is None:
            handle, incarnation = step.registrations[local]
            try:
                fetched, local_stats, _ = self.workers.worker(local).state.run_graph(
                    handle, run.step_id, feeds, _remaining(deadline), trace, incarnation)
                stats.extend(dataclasses.replace(s, device=f"{local}/device:{s.device}")
                             for s in local_stats)
            except OpError as e:
                run.fail(local, e)
        stats.extend(run.wait(deadline))
        if run.error is not None:
            raise copy_error(run.error)
        return fetched, stats

    def _start_remote(self, run: "_StepRun", remote: list, deadline, trace: bool,
                      sequential: bool) -> None:
        """Start the remote partitions.  ``sequential`` (the master's partition sends
        nothing, so no remote partition waits for it): they finish before the master's
        partition starts, and their small sends to it come back with their replies; a
        single one is then called from this thread, which saves a thread switch."""
        return_to = self.workers.local_task if sequential else None
        if sequential and len(remote) == 1:
            task, worker, handle, incarnation = remote[0]
            try:
                stats, returned = worker.run_graph(handle, run.step_id, incarnation,
                                                   _remaining(deadline), trace, return_to)
            except OpError as e:
                run.fail(task, e)
            else:
                run.finished(stats, returned)
            return
        for task, worker, handle, incarnation in remote:
            future = worker.run_graph_future(handle, run.step_id, incarnation,
                                             _remaining(deadline), trace, return_to)
            run.started(task, worker, future)
        if sequential:
            run.wait(deadline)

    # --- the end ------------------------------------------------------------------------------

    def close(self, error: OpError | None = None) -> None:
        """Forget the graph and deregister every partition (best effort, in the
        background).  Steps in flight end with ``error``: by default CancelledError, as
        TF1's close cancels them; a stopping server says it is shutting down."""
        with self._lock:
            if self._closed:
                return
            with self._running_lock:
                self._closed = True
                running = list(self._running)
            tasks = {task for step in self._by_handle.values() for task in step.registrations}
            self._prepared.clear()
            self._by_handle.clear()
        for run in running:
            run.fail(None, error or session_closed_error())
        workers, handle = self.workers, self.handle

        def deregister():
            for task in sorted(tasks):
                try:
                    workers.worker(task).deregister(handle)
                except Exception as e:  # noqa: BLE001 - the session is gone either way
                    log.info("devsession: could not deregister session %s on %s: %s",
                             handle, task, e)

        # An unclosed session meets its end in the interpreter's finalization, where a
        # new thread never starts (and Thread.start would wait for it forever): its tasks
        # end with this process, or keep the registration as after a killed client.
        if tasks and not sys.is_finalizing():
            threading.Thread(target=deregister, name="devsession-deregister",
                             daemon=True).start()


def _within(limit: float, deadline: float | None) -> float:
    """``limit`` seconds, or what is left until ``deadline`` if that is less."""
    if deadline is None:
        return limit
    return max(min(limit, deadline - time.monotonic()), 1e-3)


def _remaining(deadline: float | None) -> float | None:
    if deadline is None:
        return None
    return max(deadline - time.monotonic(), 1e-6)


class _StepRun:
    """The remote half of one step: its RunGraph calls, its first error, its abort."""

    def __init__(self, step_id: int, workers: WorkerPool, tasks: list):
        self.step_id = step_id
        self.workers = workers
        self.error: OpError | None = None
        self._participants = [workers.local_task] + tasks
        self._cond = threading.Condition()
        self._pending: dict = {}     # task -> (worker, future)
        self._stats: list = []
        self._failed_at: float | None = None

    def started(self, task: str, worker, future) -> None:
        with self._cond:
            self._pending[task] = (worker, future)
        future.add_done_callback(lambda f, t=task, w=worker: self._done(t, w, f))

    def _done(self, task: str, worker, future) -> None:
        error, stats, returned = None, [], []
        if not future.cancelled():
            try:
                stats, returned = worker.run_graph_result(future)
            except OpError as e:
                error = e
        self.finished(stats, returned)
        with self._cond:
            self._pending.pop(task, None)
            self._cond.notify_all()
        if error is not None:
            self.fail(task, error)

    def finished(self, stats: list, returned: list) -> None:
        """A remote partition's stats, and its sends to the master's task, delivered."""
        local = self.workers.worker(self.workers.local_task).state
        for key, value in returned:
            local.receive(self.step_id, key, value)
        with self._cond:
            self._stats.extend(stats)

    def fail(self, origin: str, error: OpError) -> None:
        """Record the step's error (the first wins) and abort every other participant."""
        if isinstance(error, (UnavailableError, AbortedError)):
            self.workers.suspect(origin)
        with self._cond:
            if self.error is not None:
                return
            self.error = error
            self._failed_at = time.monotonic()
            self._cond.notify_all()
        for task in self._participants:
            if task != origin:
                try:
                    self.workers.worker(task).abort_step(self.step_id, error)
                except Exception as e:  # noqa: BLE001 - aborting is best effort
                    log.debug("devsession: could not abort step on %s: %s", task, e)

    def wait(self, deadline: float | None) -> list:
        """Wait for every RunGraph; cancel what still runs ABORT_GRACE_S after a failure
        (or after the deadline plus grace). Returns the remote step stats."""
        with self._cond:
            while self._pending:
                now = time.monotonic()
                limits = []
                if self._failed_at is not None:
                    limits.append(self._failed_at + ABORT_GRACE_S)
                if deadline is not None:
                    limits.append(deadline + RUN_GRACE_S + ABORT_GRACE_S)
                if limits and now >= min(limits):
                    break
                self._cond.wait(min(limits) - now if limits else None)
            stragglers = list(self._pending.items())
        if stragglers:
            if self.error is None:
                self.fail(stragglers[0][0], DeadlineExceededError(
                    f"{stragglers[0][0]} did not finish its part of the step before the "
                    f"deadline.", None))
            for _, (_, future) in stragglers:
                future.cancel()
        return self._stats
