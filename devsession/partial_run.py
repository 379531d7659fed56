"""TF1's partial runs: ``sess.partial_run_setup(fetches, feeds)`` and
``sess.partial_run(handle, fetches, feed_dict)``, one step fed and fetched piecewise.

TF starts one executor at setup whose feeds are receives that wait: every node runs once,
as soon as the feeds it depends on have arrived, and each ``partial_run`` call hands over
some feeds and takes some fetches.  devsession keeps the same contract with the ordinary
steps of a session:

* ``PartialRunState`` (pure logic, no session) holds what setup declared, which feeds are
  still pending and which fetches have been taken, the ops that already ran (``done``) and
  the values later ops or fetches still need (fed values and computed ones).
* Each time feeds arrive (and once at setup) the *frontier* runs: every op setup needs
  that has not run and depends on no pending feed.  It runs as one session step whose
  feeds are the held values it reads and whose fetches are the values that fetches or
  not-yet-runnable ops will need; feeding those values later cuts the graph there, so no
  op runs twice and a random or stateful op's value is the same for every reader.
* A call's fetches are then taken from the held values.

A later op whose control input already ran cannot be run by an ordinary step without
running that input again, so it is refused with ``UnimplementedError`` (TF's executor
waits on the edge instead).  The checks and their messages are TF's (DirectSession::PRun
and CheckFetch): a feed not declared or fed twice, a fetch not declared or taken twice, a
fetch that depends on a pending feed: ``InvalidArgumentError``, leaving the partial run
as it was.  An error while running ends the partial run, as do the last fetches; the
handle is then unknown ("Must run 'setup' before performing partial runs!").

Example::

    h = sess.partial_run_setup([r1, r2], [a, b, c])
    sess.partial_run(h, r1, {a: 1, b: 2})       # 3.0
    sess.partial_run(h, r2, {c: 17})            # (1 + 2) * 17
"""

from __future__ import annotations

import itertools
import threading

from .errors import InvalidArgumentError, OpError, UnimplementedError
from .ops.registry import get_op_def
from .runtime.plan import needed_ops

__all__ = ["PartialRunState", "PartialRuns"]

_NO_SETUP = "Must run 'setup' before performing partial runs!"


def _data_inputs(op) -> list:
    """The tensors ``op`` reads as values (a ref input, Assign's variable, is no value)."""
    refs = get_op_def(op.type).ref_inputs
    return [t for i, t in enumerate(op.inputs) if i not in refs]


class PartialRunState:
    """What one partial run has declared, received, run and still holds."""

    def __init__(self, graph, feeds: tuple, fetches: tuple, targets: tuple):
        self.feeds, self.fetches = feeds, fetches
        self.pending_feeds = set(feeds)
        self.pending_fetches = set(fetches)
        needed = needed_ops(fetches, targets, set(feeds))
        self.ops = [op for op in graph.get_operations() if op in needed]  # graph order
        self.done: set = set()
        self.values: dict = {}            # tensor -> array, fed or computed, still needed
        self.error: OpError | None = None  # a failure of the setup's frontier, for the next call
        self.lock = threading.Lock()

    # --- checks (TF's DirectSession::PRun) ------------------------------------------------

    def check(self, feeds, fetches) -> None:
        """Raise TF's InvalidArgumentError for a feed or fetch this call may not make."""
        declared_feeds, declared_fetches = set(self.feeds), set(self.fetches)
        for t in feeds:
            if t not in declared_feeds:
                raise InvalidArgumentError(f"The feed {t.name} was not specified in "
                                           f"partial_run_setup.")
            if t not in self.pending_feeds:
                raise InvalidArgumentError(f"The feed {t.name} has already been fed.")
        for t in fetches:
            if t not in declared_fetches:
                raise InvalidArgumentError(f"The fetch {t.name} was not specified in "
                                           f"partial_run_setup.")
            if t not in self.pending_fetches:
                raise InvalidArgumentError(f"The fetch {t.name} has already been fetched.")
        self._check_computable(fetches, self.pending_feeds - set(feeds))

    def _check_computable(self, fetches, pending: set) -> None:
        """TF's CheckFetch: walk back from the fetches (depth first, each node's inputs in
        order) and name the first pending feed met."""
        stack = [t.op for t in fetches if t not in pending]
        for t in fetches:
            if t in pending:
                raise _cannot_compute(t)
        seen = set(stack)
        while stack:
            op = stack.pop()
            for t in _data_inputs(op):
                if t in pending:
                    raise _cannot_compute(t)
                if t not in self.values and t.op not in seen:
                    seen.add(t.op)
                    stack.append(t.op)
            for control in op.control_inputs:
                if control not in seen:
                    seen.add(control)
                    stack.append(control)

    # --- the frontier --------------------------------------------------------------------

    def receive(self, feeds, values) -> None:
        for t, value in zip(feeds, values):
            self.values[t] = value
            self.pending_feeds.discard(t)

    def frontier(self) -> list:
        """The ops that have not run and depend on no pending feed, in graph order."""
        blocked: set = set()
        runnable = []
        for op in self.ops:
            if op in self.done:
                continue
            if any(t in self.pending_feeds or (t not in self.values and t.op in blocked)
                   for t in _data_inputs(op)) or any(c in blocked for c in op.control_inputs):
                blocked.add(op)
            else:
                runnable.append(op)
        return runnable

    def step_for(self, runnable: list) -> tuple[tuple, tuple, tuple]:
        """(feeds, fetches, targets) of the session step that runs ``runnable``: it reads
        the held values its ops read, and returns the values that fetches and the ops
        left for later will read."""
        for op in runnable:
            ran = [c for c in op.control_inputs if c in self.done]
            if ran:
                raise UnimplementedError(
                    f"partial_run: node '{op.name}' has a control input '{ran[0].name}' "
                    f"that ran in an earlier partial_run call of this handle; devsession "
                    f"cannot run it without running '{ran[0].name}' again.", op.name)
        running = set(runnable)
        read_later = {t for op in self.ops if op not in self.done and op not in running
                      for t in _data_inputs(op)}
        feeds, fetches = [], []
        for op in runnable:
            for t in _data_inputs(op):
                if t in self.values and t not in feeds:
                    feeds.append(t)
            fetches.extend(t for t in op.outputs
                           if t in self.pending_fetches or t in read_later)
        return tuple(feeds), tuple(fetches), tuple(runnable)

    def ran(self, runnable, fetches, values) -> None:
        self.done.update(runnable)
        self.values.update(zip(fetches, values))

    def take(self, fetches) -> list:
        """The values of this call's fetches (each the caller's own copy); values no
        fetch or later op will read are let go."""
        out = [self.values[t].copy() if hasattr(self.values[t], "copy") else self.values[t]
               for t in fetches]
        self.pending_fetches.difference_update(fetches)
        still_read = {t for op in self.ops if op not in self.done for t in _data_inputs(op)}
        for t in list(self.values):
            if t not in self.pending_fetches and t not in still_read:
                del self.values[t]
        return out

    @property
    def finished(self) -> bool:
        return not self.pending_fetches


def _cannot_compute(t) -> InvalidArgumentError:
    return InvalidArgumentError(f"Fetch {t.name} can't be computed from the feeds that have "
                                f"been fed so far.")


class PartialRuns:
    """A session's partial runs by handle; runs their frontiers with ``run_step(feeds,
    fetches, targets, values) -> arrays`` (the session's ordinary steps)."""

    def __init__(self, run_step):
        self._run_step = run_step
        self._states: dict = {}
        self._lock = threading.Lock()
        self._counter = itertools.count()

    def setup(self, graph, feeds: tuple, fetches: tuple, targets: tuple) -> str:
        if not fetches and not targets:
            raise InvalidArgumentError("Must specify at least one target to fetch or "
                                       "execute.")
        seen: set = set()
        for t in feeds:
            if t in seen:
                raise InvalidArgumentError(f'Endpoint "{t.name}" fed more than once.')
            seen.add(t)
        state = PartialRunState(graph, feeds, fetches, targets)
        handle = (f"{','.join(t.name for t in feeds)}->"
                  f"{','.join(t.name for t in fetches)}//{next(self._counter)}")
        try:   # nodes that wait for no feed run now, as TF's executor starts them at setup
            self._advance(state)
        except OpError as e:
            state.error = e
        with self._lock:
            self._states[handle] = state
        return handle

    def run(self, handle: str, feeds: tuple, values: list, fetches: tuple) -> list:
        with self._lock:
            state = self._states.get(handle) if isinstance(handle, str) else None
        if state is None:
            raise InvalidArgumentError(_NO_SETUP)
        with state.lock:
            if state.error is not None:
                self._drop(handle)
                raise state.error
            state.check(feeds, fetches)
            state.receive(feeds, values)
            try:
                if feeds:
                    self._advance(state)
            except OpError:
                self._drop(handle)
                raise
            out = state.take(fetches)
            if state.finished:
                self._drop(handle)
            return out

    def _advance(self, state: PartialRunState) -> None:
        runnable = state.frontier()
        if not runnable:
            return
        feeds, fetches, targets = state.step_for(runnable)
        out = self._run_step(feeds, fetches, targets, [state.values[t] for t in feeds])
        state.ran(runnable, fetches, out)

    def _drop(self, handle: str) -> None:
        with self._lock:
            self._states.pop(handle, None)
