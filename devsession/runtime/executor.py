"""Run a ``Plan``: the hot path of every session.

``execute`` walks the plan's steps in order, feeding each kernel the values in its input
slots and storing its result; it checks the step deadline between kernels, records
per-node timings only when tracing (one per graph node, also for the nodes a fused
kernel runs), and frees each intermediate after its last reader.
Errors leave here as ``OpError`` subclasses naming the node: a kernel's own OpError
keeps its class, numpy's complaints become ``InvalidArgumentError``, running out of
memory ``ResourceExhaustedError``, anything else ``InternalError``.

A kernel that runs plans of its own (``If``, ``While``: ``runtime/functions.py``) runs
them under the same deadline and trace: ``running_step()`` gives the calling thread's
(deadline, stats), which ``execute`` sets for the steps it runs.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time

from ..errors import (CancelledError, DeadlineExceededError, InternalError,
                      InvalidArgumentError, OpError, ResourceExhaustedError)
from ..options import NodeStats
from .deadline import Deadline, session_closed_error
from .plan import Plan

__all__ = ["execute", "running_step"]

_RUNNING = threading.local()


def running_step() -> tuple:
    """(deadline, stats) of the step this thread is executing ((None, None) outside)."""
    return getattr(_RUNNING, "step", None) or (None, None)


def execute(plan: Plan, feed_values, deadline: float | None = None,
            stats: list | None = None, pool=None, observe=None) -> list:
    """Run ``plan`` with ``feed_values`` (one per feed slot); returns the fetched values.

    ``deadline`` is a ``Deadline`` (or None); ``stats`` (a list) receives NodeStats.
    With a thread ``pool`` (concurrent.futures), independent heavy branches of the plan
    (``plan.waves``) run at the same time.  ``observe(step, slots)``, if given, is
    called after each step, in plan order on this thread (``tiered.py`` notes the
    values' types with it).
    """
    slots = [None] * plan.num_slots
    for slot, value in zip(plan.feed_slots, feed_values):
        slots[slot] = value
    outer = getattr(_RUNNING, "step", None)
    _RUNNING.step = (deadline, stats)
    try:
        if observe is None:
            _execute(plan, slots, deadline, stats, pool)
        else:
            _execute_checked(plan, slots, deadline, stats, observe)
    finally:
        _RUNNING.step = outer
    return [slots[i] for i in plan.fetch_slots]


def _execute(plan: Plan, slots: list, deadline, stats, pool) -> None:
    if pool is not None and plan.waves:
        _execute_waves(plan, slots, deadline, stats, pool)
    elif stats is None and (deadline is None or deadline.at is None):
        # the hot loop: no time limit, so only an abort (Deadline.error) to look for
        for index, (kernel, inputs, output, frees) in enumerate(plan.hot_steps):
            if deadline is not None and deadline.error is not None:
                _raise_expired(plan.steps[index])
            try:
                result = kernel(*[slots[i] for i in inputs])
            except Exception as e:
                _raise_node_error(e, plan.steps[index])
            if output >= 0:
                slots[output] = result
            for i in frees:
                slots[i] = None
        _check_finished_in_time(deadline)
    else:
        _execute_checked(plan, slots, deadline, stats)


def _execute_checked(plan: Plan, slots: list, deadline, stats, observe=None) -> None:
    for step in plan.steps:
        _run_step(step, slots, deadline, stats)
        if observe is not None:
            observe(step, slots)
        for i in step.frees:
            slots[i] = None
    _check_finished_in_time(deadline)


def _run_step(step, slots: list, deadline, stats) -> None:
    if deadline is not None and deadline.expired():
        _raise_expired(step)
    if stats is None:
        try:
            result = step.kernel(*[slots[i] for i in step.inputs])
        except Exception as e:
            _raise_node_error(e, step)
    else:
        start_wall, start = time.time(), time.perf_counter()
        try:
            result = step.kernel(*[slots[i] for i in step.inputs])
        except Exception as e:
            _raise_node_error(e, step)
        _record(stats, step, start_wall, time.perf_counter() - start, result)
    if step.output >= 0:
        slots[step.output] = result


def _raise_expired(step) -> None:
    """The error of a step stopped by its deadline; an owner that aborted the step
    raises the abort's error instead (``Deadline.error``)."""
    raise DeadlineExceededError(
        f"Timed out before running node '{step.name}': the step's deadline passed "
        f"(raise RunOptions.timeout_s or SessionOptions.operation_timeout_s).", step.name)


def _run_pooled_step(step, slots: list, deadline, stats) -> None:
    """``_run_step`` on a pool thread, which then runs under this step's deadline."""
    _RUNNING.step = (deadline, stats)
    try:
        _run_step(step, slots, deadline, stats)
    finally:
        _RUNNING.step = None


def _record(stats: list, step, start: float, duration: float, result) -> None:
    """One NodeStats for the step, or for each graph node a fused step ran: equal
    consecutive shares of its time, in member order (one extend: waves' threads append
    to the same list, and a kernel's members stay together).  The step's result gives
    the output shapes (of the last member only: the others' values stay inside)."""
    thread = threading.get_ident() % 1_000_000
    device = step.device.short_name
    shapes = _shapes_of(result)
    if not step.members:
        stats.append(NodeStats(step.name, step.op_type, device, start, duration, thread,
                               output_shapes=shapes))
        return
    share, last = duration / len(step.members), len(step.members) - 1
    stats.extend([NodeStats(node, op, device, start + k * share, share, thread, step.name,
                            shapes if k == last else ())
                  for k, (node, op) in enumerate(step.members)])


def _shapes_of(result) -> tuple:
    """The shapes of a kernel's result: one value, or a tuple of them (an op of several
    outputs); () for what has no shape (a queue handle, None)."""
    values = result if isinstance(result, tuple) else (result,)
    shapes = tuple(getattr(v, "shape", None) for v in values)
    if any(s is None or not isinstance(s, tuple) for s in shapes):
        return ()
    return tuple(tuple(int(d) for d in s) for s in shapes)


def _check_finished_in_time(deadline) -> None:
    if deadline is not None and deadline.expired():
        raise DeadlineExceededError("The step finished after its deadline passed.")


def _execute_waves(plan: Plan, slots: list, deadline, stats, pool) -> None:
    """Depth by depth; a wave's steps share the pool and this thread.  Each step writes
    its own slot, so the threads never write the same list entry."""
    steps = plan.steps
    deadline = deadline or Deadline()     # abortable, for an interrupt (below)
    for wave in plan.waves:
        if wave.overlap:
            first, *rest = wave.steps
            futures, error = [], None
            try:
                futures = [pool.submit(_run_pooled_step, steps[i], slots, deadline, stats)
                           for i in rest]
                try:
                    _run_step(steps[first], slots, deadline, stats)
                except Exception as e:
                    error = e
                for future in futures:  # all, even after an error: they use slots
                    try:
                        future.result()
                    except concurrent.futures.CancelledError:   # the session closed
                        error = error or session_closed_error()
                    except Exception as e:
                        error = error or e
            except BaseException as e:
                # Ctrl-C (or SystemExit) on this thread: the pool's steps stop before their
                # next kernel (a While's body checks between its kernels too) rather than
                # computing on for an abandoned step.
                deadline.abort(CancelledError(f"The step was interrupted "
                                              f"({type(e).__name__}).", None))
                raise
            if error is not None:
                raise error
        else:
            for i in wave.steps:
                _run_step(steps[i], slots, deadline, stats)
        for i in wave.frees:
            slots[i] = None
    _check_finished_in_time(deadline)


def _raise_node_error(e: Exception, step) -> None:
    if isinstance(e, OpError):
        if e.node_name is None:
            e.node_name = step.name
        raise e
    raise _node_error(e, step) from e


def _node_error(e: Exception, step) -> OpError:
    where = f"node '{step.name}' ({step.op_type} on {step.device.short_name})"
    if isinstance(e, MemoryError):
        return ResourceExhaustedError(f"Out of memory in {where}: {e}", step.name)
    if isinstance(e, (ValueError, TypeError, IndexError)):
        return InvalidArgumentError(f"{where} failed: {e}", step.name)
    return InternalError(f"{where} failed: {type(e).__name__}: {e}", step.name)
