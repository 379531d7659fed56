"""The rendezvous: where tensors sent from other workers wait for their ``_Recv``.

Pure logic, no sockets.  A value is keyed by (step id, rendezvous key); the key names
the edge (``producer;consumer;tensor``), the step id the run, so any number of steps
can be in flight at once.  Producers push (``put``) as soon as a value exists and never
wait for the consumer; a consumer (``get``) blocks until its value arrives, the step is
aborted, or the step's deadline passes.  A push may arrive before the consuming worker
has even started the step, so an entry is created by whichever comes first.

State per step: its values, the error it was aborted with (if any), and a condition
variable its waiters sleep on.  ``abort`` wakes every waiter of the step with the error
(each raise gets its own copy of the error) and makes later ``get``s fail and later
``put``s be dropped; ``finish`` (the step ended here) drops leftovers.  Aborted and
finished step ids are remembered (the newest ``tombstones``) so a late push cannot
resurrect them, and entries nobody touched for ``idle_ttl_s`` (a push for a step whose
worker never ran it) are swept.

    rv = Rendezvous()
    rv.put(7, "a;b;x:0", value)          # from PushTensor
    rv.get(7, "a;b;x:0", deadline=None)  # in the _Recv kernel -> value
    rv.finish(7)
"""

from __future__ import annotations

import collections
import threading
import time

from ...errors import DeadlineExceededError, InvalidArgumentError, OpError, error_class_for_code

__all__ = ["Rendezvous", "copy_error"]


def copy_error(error: OpError) -> OpError:
    """A fresh error of the same ``ds.errors`` class (the class of its code: a transport's
    own subclasses stay where they were raised), message and node; errors are raised per
    thread."""
    return error_class_for_code(error.code)(error.message, error.node_name)


class _Step:
    __slots__ = ("values", "error", "cond", "touched", "waiters")

    def __init__(self, lock, now):
        self.values: dict = {}
        self.error: OpError | None = None
        self.cond = threading.Condition(lock)
        self.touched = now
        self.waiters = 0


class Rendezvous:
    """Values in flight between workers; thread-safe."""

    def __init__(self, clock=time.monotonic, tombstones: int = 65536,
                 idle_ttl_s: float = 600.0):
        self._clock = clock
        self._lock = threading.Lock()
        self._steps: dict[int, _Step] = {}
        self._ended: collections.OrderedDict = collections.OrderedDict()  # id -> error|None
        self._max_tombstones = tombstones
        self._idle_ttl_s = idle_ttl_s
        self._next_sweep = clock() + idle_ttl_s

    def _entry(self, step_id: int) -> _Step | None:
        """The live entry of ``step_id``, created if new; None if the step has ended.
        Call with the lock held."""
        step = self._steps.get(step_id)
        if step is None:
            if step_id in self._ended:
                return None
            now = self._clock()
            if now >= self._next_sweep:
                self._sweep(now)
            step = self._steps[step_id] = _Step(self._lock, now)
        return step

    def put(self, step_id: int, key: str, value) -> bool:
        """Deliver a value; False if the step already ended here (the value is dropped).

        Raises InvalidArgumentError if the key was delivered twice in one step.
        """
        with self._lock:
            step = self._entry(step_id)
            if step is None or step.error is not None:
                return False
            if key in step.values:
                raise InvalidArgumentError(f"Tensor '{key}' arrived twice for step {step_id}.")
            step.values[key] = value
            step.touched = self._clock()
            step.cond.notify_all()
            return True

    def get(self, step_id: int, key: str, deadline=None, what: str = ""):
        """Wait for and take the value of ``key``.

        ``deadline`` is a time.monotonic() value or None.  Raises the step's abort error,
        or DeadlineExceededError naming ``what`` (e.g. "tensor 'x:0' from task 1").
        """
        with self._lock:
            step = self._entry(step_id)
            if step is None:
                error = self._ended.get(step_id)
                raise copy_error(error) if error is not None else InvalidArgumentError(
                    f"Step {step_id} has already finished on this worker.")
            step.waiters += 1
            try:
                while key not in step.values:
                    if step.error is not None:
                        raise copy_error(step.error)
                    if deadline is None:
                        step.cond.wait()
                    else:
                        remaining = float(deadline) - self._clock()
                        if remaining <= 0:
                            raise DeadlineExceededError(
                                f"Timed out waiting for {what or repr(key)}: the step's "
                                f"deadline passed (raise RunOptions.timeout_s or "
                                f"SessionOptions.operation_timeout_s).")
                        step.cond.wait(remaining)
                step.touched = self._clock()
                return step.values.pop(key)
            finally:
                step.waiters -= 1

    def abort(self, step_id: int, error: OpError) -> None:
        """Fail the step here: waiters raise ``error``; later puts are dropped."""
        with self._lock:
            step = self._steps.pop(step_id, None)
            if step is not None:
                if step.error is None:
                    step.error = error
                step.values.clear()
                step.cond.notify_all()
            if self._ended.get(step_id) is None:
                self._remember(step_id, error)

    def finish(self, step_id: int) -> None:
        """The step is over on this worker: drop what is left of it."""
        with self._lock:
            step = self._steps.pop(step_id, None)
            if step is not None:
                step.values.clear()
                if step.waiters:
                    step.error = step.error or InvalidArgumentError(
                        f"Step {step_id} finished while a receive was still waiting.")
                    step.cond.notify_all()
            if step_id not in self._ended:
                self._remember(step_id, None)

    def error_of(self, step_id: int) -> OpError | None:
        """The error the step was aborted with here, if it was."""
        with self._lock:
            step = self._steps.get(step_id)
            return step.error if step is not None else self._ended.get(step_id)

    def active_steps(self) -> int:
        with self._lock:
            return len(self._steps)

    def pending_bytes(self) -> int:
        with self._lock:
            return sum(getattr(v, "nbytes", 0) for s in self._steps.values()
                       for v in s.values.values())

    def abort_all(self, error: OpError) -> None:
        """Abort every step in flight (the server is stopping)."""
        with self._lock:
            ids = list(self._steps)
        for step_id in ids:
            self.abort(step_id, error)

    def _remember(self, step_id: int, error) -> None:
        self._ended[step_id] = error
        self._ended.move_to_end(step_id)
        while len(self._ended) > self._max_tombstones:
            self._ended.popitem(last=False)

    def _sweep(self, now: float) -> None:
        self._next_sweep = now + self._idle_ttl_s
        stale = [i for i, s in self._steps.items()
                 if not s.waiters and now - s.touched > self._idle_ttl_s]
        for step_id in stale:
            del self._steps[step_id]
            self._remember(step_id, None)
