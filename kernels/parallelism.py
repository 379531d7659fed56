"""How much parallelism a process already has from running cluster tasks' steps.

A process can host several tasks of a cluster (tests, benchmarks, a client beside a ps
and its workers); their steps then run at once on their own threads and fill the cores
between them.  A kernel that would use several threads of its own (``cpu/blas.py``'s
products) asks ``task_steps_running()`` first and keeps to one when more than one runs:
more would only add threads competing for the same cores.

The cluster's worker wraps each partition it runs in ``task_step()``.  Nothing here
imports numba or devsession's runtime.
"""

from __future__ import annotations

import threading

__all__ = ["task_step", "task_steps_running"]

_lock = threading.Lock()
_running = 0


class task_step:
    """``with task_step():`` counts a task's step as running in this process."""

    __slots__ = ()

    def __enter__(self):
        global _running
        with _lock:
            _running += 1
        return self

    def __exit__(self, *exc):
        global _running
        with _lock:
            _running -= 1
        return False


def task_steps_running() -> int:
    return _running
