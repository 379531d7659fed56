"""A worker's state: its registered partitions, its variables and its steps in flight.

Pure logic behind the worker service (``worker_service.py`` only decodes, calls this,
encodes), tested without sockets by wiring two WorkerStates' ``push`` to each other.

* ``register_graph`` imports a partition's GraphDef and builds its plan once, with the
  same ``LocalExecutorFactory`` (kernels, device transfers, optimizer) and executor as a
  direct session (and, as a direct session does, first on the reference kernels while
  the compiled plan is built in the background: ``runtime/tiered.py``); the plan is then
  run by ``run_graph`` under any number of step ids, from any number of threads at once.
* Variables live in the worker's own ``ResourceMgr`` and outlive the sessions that made
  them, until ``reset`` clears their containers; seeded random streams belong to the
  session (each session sees the same sequence again, as with a direct session).
* ``_Send`` kernels call ``push`` (the server's gRPC client to the peer task); pushes
  from peers arrive through ``receive`` into the ``Rendezvous`` where ``_Recv`` waits.
  A step run with ``return_to=task`` keeps small sends to that task and returns them
  instead (the master then delivers them to its own worker: one message fewer).
* The ``incarnation`` is random per process: a master that registered graphs with an
  earlier incarnation gets ``AbortedError`` instead of a run, and re-registers.
* ``abort_step`` fails a step here with the master's error: waiting receives raise it
  at once, and the executor stops before its next kernel (``runtime.deadline``).
"""

from __future__ import annotations

import dataclasses
import itertools
import secrets
import threading
from typing import Callable

import numpy as np

from ...device_spec import Device
from ...devices import DeviceAttributes, list_local_devices
from ...errors import AbortedError, DeadlineExceededError, InvalidArgumentError, NotFoundError, \
    OpError
from ...graph import Graph
from ...graph_def import import_graph_def
from ...kernels.parallelism import task_step
from ...options import OptimizerOptions, SessionOptions
from ...runtime import tiered
from ...runtime.deadline import Deadline
from ...runtime.local_executor import LocalExecutorFactory, make_step
from ...runtime.placement import Placement
from ...runtime.resources import ResourceMgr
from . import send_recv as transfer_ops
from .rendezvous import Rendezvous, copy_error
from ..transport.wire import INLINE_BYTES, to_host

__all__ = ["WorkerState", "SessionResources", "RegisteredGraph"]


class SessionResources:
    """The resources a partition's kernels see: the worker's variables (shared by every
    session) and the session's own random streams and dataset iterators.  A resource
    made under a shared name (a queue's or accumulator's ``shared_name``) is the
    worker's too, as TF's device resources are: replicas' sessions meet there."""

    def __init__(self, shared: ResourceMgr):
        self.shared = shared
        self.own = ResourceMgr()

    def variable(self, container, name, dtype, shape):
        return self.shared.variable(container, name, dtype, shape)

    def random_stream(self, name, seed, seed2):
        return self.own.random_stream(name, seed, seed2)

    def get(self, container, name):
        found = self.own.get(container, name)
        return found if found is not None else self.shared.get(container, name)

    def put(self, container, name, resource) -> None:
        self.own.put(container, name, resource)

    def get_or_put(self, container, name, make, shared: bool = False):
        return (self.shared if shared else self.own).get_or_put(container, name, make)

    def clear(self, containers=None) -> None:
        self.own.clear(containers)


@dataclasses.dataclass
class RegisteredGraph:
    handle: str
    session: str
    step: Callable                 # make_step(plan), or a TieredStep
    num_feeds: int


class _StepContext:
    """What the _Send/_Recv kernels of one step on this worker use."""

    __slots__ = ("worker", "step_id", "deadline", "return_to", "returned")

    def __init__(self, worker: "WorkerState", step_id: int, deadline: Deadline,
                 return_to: str | None):
        self.worker, self.step_id, self.deadline = worker, step_id, deadline
        self.return_to = return_to
        self.returned: list = []

    def send(self, peer: str, key: str, value, what: str) -> None:
        if peer == self.return_to:
            array = to_host(value)
            if array.nbytes <= INLINE_BYTES:   # rides back in the RunGraph response
                self.returned.append((key, np.array(array, copy=True)))
                return
        self.worker.push(peer, self.step_id, key, value, self.deadline.at,
                         what)

    def recv(self, peer: str, key: str, what: str):
        try:
            return self.worker.rendezvous.get(
                self.step_id, key, self.deadline.at,
                f"tensor '{what}' from {peer}")
        except DeadlineExceededError as e:
            e.node_name = what.lstrip("^").split(":")[0]
            raise


class WorkerState:
    """One task's worker (see the module docstring)."""

    def __init__(self, task: str, push: Callable | None = None, incarnation: int | None = None,
                 devices: list[DeviceAttributes] | None = None, intra_op_threads: int = 0):
        self.task = task
        self.intra_op_threads = intra_op_threads    # 0: numba's and BLAS's own counts
        self.incarnation = incarnation if incarnation is not None else secrets.randbits(63) + 1
        self.push_fn = push
        self.resources = ResourceMgr()
        self.rendezvous = Rendezvous()
        self._devices = devices if devices is not None else list_local_devices()
        self._device_names = frozenset(d.short_name for d in self._devices)
        self._lock = threading.Lock()
        self._graphs: dict[str, RegisteredGraph] = {}
        self._sessions: dict[str, SessionResources] = {}
        self._active: dict[int, Deadline] = {}
        self._idle = threading.Condition(self._lock)   # a step started or ended
        self._handles = itertools.count(1)

    # --- what the worker offers -----------------------------------------------------------

    def devices(self) -> list[DeviceAttributes]:
        """This task's devices, with full names (``/job:worker/replica:0/task:1/device:CPU:0``)."""
        return [dataclasses.replace(d, name=f"{self.task}/device:{d.short_name}")
                for d in self._devices]

    def kernels(self) -> dict[str, frozenset]:
        """device type -> op types with a kernel there."""
        from ...kernels.registry import registered_ops

        out = {}
        for device_type in sorted({d.device_type for d in self._devices}):
            try:
                out[device_type] = registered_ops(device_type)
            except NotFoundError:
                out[device_type] = frozenset()
        return out

    # --- partitions ---------------------------------------------------------------------------

    def register_graph(self, session: str, graph_def, feeds=(), fetches=(), targets=(),
                       optimizer: OptimizerOptions | None = None) -> str:
        """Import and plan one partition; returns its handle.

        Raises InvalidArgumentError (naming the node) for a partition that does not import
        or plan, NotFoundError for an op without a kernel here.
        """
        graph = Graph()
        import_graph_def(graph_def, graph=graph)
        try:
            feed_tensors = [graph.get_tensor_by_name(n) for n in feeds]
            fetch_tensors = [graph.get_tensor_by_name(n) for n in fetches]
            target_ops = [graph.get_operation_by_name(n) for n in targets]
        except (KeyError, ValueError) as e:
            raise InvalidArgumentError(f"A partition names a node it does not have: {e}") \
                from None
        with self._lock:
            resources = self._sessions.get(session)
            if resources is None:
                resources = self._sessions[session] = SessionResources(self.resources)
        optimizer = optimizer or OptimizerOptions()
        factory = LocalExecutorFactory(resources, optimizer)
        ops = graph.get_operations()
        with self._lock:
            handle = f"{self.incarnation:x}.{next(self._handles)}"

        def compiled_step():
            return self._make_step(factory.build_plan(ops, feed_tensors, fetch_tensors,
                                                      target_ops, self._place))

        step = None
        if SessionOptions().kernel_compile == "background":   # checks the variable too
            step = self._tiered_step(graph, resources, optimizer, feed_tensors, fetch_tensors,
                                     target_ops, compiled_step,
                                     still_wanted=lambda: handle in self._graphs)
        step = step or compiled_step()
        with self._lock:
            self._graphs[handle] = RegisteredGraph(handle, session, step, len(feed_tensors))
        return handle

    def _tiered_step(self, graph, resources, optimizer, feeds, fetches, targets, compiled_step,
                     still_wanted) -> tiered.TieredStep | None:
        """A partition never compiled on this machine runs on the reference kernels while
        its numba kernels compile in the background, as in a direct session
        (``runtime/tiered.py``): a fresh worker's first step took 20 s compiling on the
        thread serving it.  None (build it compiled) when it was compiled here before,
        some node is on a GPU, or the reference plan cannot be built."""
        ops = graph.get_operations()
        fingerprint = tiered.plan_fingerprint(ops, feeds, fetches, targets)
        if tiered.is_compiled(fingerprint):
            return None
        try:
            plan = tiered.reference_factory(resources, optimizer).build_plan(
                ops, feeds, fetches, targets, self._place)
        except OpError:
            return None                # the compiled plan says what is wrong
        if any(p.device.device_type != "CPU" for p in plan.placements.values()):
            return None

        def build_compiled():
            return compiled_step() if still_wanted() else None

        return tiered.TieredStep(
            self._make_step(plan), lambda observe: self._make_step(plan, observe=observe),
            tuple(feeds),
            build_compiled, lambda compiled: tiered.mark_compiled(fingerprint),
            tiered.scratch_kernels(graph, optimizer, self._place))

    def _make_step(self, plan, observe=None):
        """The partition's step, its kernels held to ``intra_op_threads`` (the server's
        ``ConfigProto.intra_op_parallelism_threads``, as TF1's server config sets its
        devices' thread pools)."""
        return make_step(plan, threads=self.intra_op_threads, observe=observe)

    def _place(self, op) -> Placement:
        """The device the master placed ``op`` on (its NodeDef's device, on this task)."""
        spec = op.device_spec
        device = Device(spec.device_type or "CPU", spec.device_index or 0)
        if device.short_name not in self._device_names:
            raise InvalidArgumentError(
                f"Node '{op.name}' was placed on {device.short_name}, which {self.task} "
                f"does not have (devices: {', '.join(sorted(self._device_names))}).", op.name)
        return Placement(device)

    def deregister(self, session: str, handles=()) -> None:
        """Drop some graphs of a session, or (no handles) the session and all its graphs."""
        with self._lock:
            if handles:
                for handle in handles:
                    graph = self._graphs.get(handle)
                    if graph is not None and graph.session == session:
                        del self._graphs[handle]
                return
            for handle in [h for h, g in self._graphs.items() if g.session == session]:
                del self._graphs[handle]
            self._sessions.pop(session, None)

    # --- steps ----------------------------------------------------------------------------------

    def run_graph(self, handle: str, step_id: int, feeds=(), timeout_s: float | None = None,
                  trace: bool = False, incarnation: int | None = None,
                  return_to: str | None = None) -> tuple[list, list, list]:
        """Run a registered partition as part of step ``step_id``; (fetches, stats,
        returned sends).

        With ``return_to`` (a task), small tensors sent to that task are not pushed but
        returned as (rendezvous key, array) pairs, for the caller to deliver.  Raises
        AbortedError when the graph is unknown here (this worker restarted since it was
        registered), else the step's error (the master's abort error if aborted).
        """
        graph = self._graph_for(handle, incarnation)
        if len(feeds) != graph.num_feeds:
            raise InvalidArgumentError(f"Partition {handle} takes {graph.num_feeds} feed(s), "
                                       f"got {len(feeds)}.")
        deadline = Deadline.after(timeout_s)
        with self._lock:
            if step_id in self._active:
                raise InvalidArgumentError(f"Step {step_id} is already running on {self.task}.")
            self._active[step_id] = deadline
            self._idle.notify_all()
        earlier = self.rendezvous.error_of(step_id)
        if earlier is not None:         # aborted before it started here
            deadline.abort(earlier)
        stats = [] if trace else None
        context = _StepContext(self, step_id, deadline, return_to)
        try:
            with transfer_ops.step_scope(context), task_step():
                out = graph.step(list(feeds), deadline, stats)
        except OpError as e:
            error = copy_error(deadline.error) if deadline.error is not None else e
            self.rendezvous.abort(step_id, error)
            raise error from None
        else:
            self.rendezvous.finish(step_id)
        finally:
            with self._lock:
                del self._active[step_id]
                if not self._active:
                    self._idle.notify_all()
        return out, stats or [], context.returned

    def _graph_for(self, handle: str, incarnation: int | None) -> RegisteredGraph:
        if incarnation and incarnation != self.incarnation:
            raise AbortedError(
                f"{self.task} restarted since its partitions were registered (incarnation "
                f"{incarnation:x}, now {self.incarnation:x}); the session registers them "
                f"again, so retrying the step works.")
        with self._lock:
            graph = self._graphs.get(handle)
        if graph is None:
            raise AbortedError(f"{self.task} has no partition {handle} (it restarted, or the "
                               f"session was closed); retry the step to register it again.")
        return graph

    def abort_step(self, step_id: int, error: OpError) -> None:
        """Fail step ``step_id`` here with ``error`` (it may not have started yet)."""
        self.rendezvous.abort(step_id, error)
        with self._lock:
            deadline = self._active.get(step_id)
        if deadline is not None:
            deadline.abort(error)

    def abort_all(self, error: OpError) -> None:
        with self._lock:
            active = list(self._active.items())
        for step_id, deadline in active:
            deadline.abort(error)
        self.rendezvous.abort_all(error)

    def active_steps(self) -> int:
        with self._lock:
            return len(self._active)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no step runs here; False on timeout."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._active, timeout)

    def wait_busy(self, timeout: float) -> bool:
        """Wait until some step runs here; False on timeout (tests use it)."""
        with self._lock:
            return self._idle.wait_for(lambda: bool(self._active), timeout)

    # --- transfers ----------------------------------------------------------------------------

    def push(self, peer: str, step_id: int, key: str, value, deadline, what: str) -> None:
        if self.push_fn is None:
            raise InvalidArgumentError(f"{self.task} cannot send tensor '{what}' to {peer}: "
                                       f"it has no connection to other tasks.")
        self.push_fn(peer, step_id, key, value, deadline, what)

    def receive(self, step_id: int, key: str, value) -> None:
        """A value pushed by a peer for one of this worker's receives."""
        self.rendezvous.put(step_id, key, value)

    # --- containers -------------------------------------------------------------------------

    def reset(self, containers=None) -> None:
        """Clear resource containers (variables; every container when None)."""
        self.resources.clear(containers)
        with self._lock:
            sessions = list(self._sessions.values())
        for resources in sessions:
            resources.clear(containers)
