"""A step's deadline: a time, and an abort from outside, checked between kernels.

The executor asks ``deadline.expired()`` before each kernel, so a step stops at its
time limit, or as soon as someone else ends it (a cluster worker whose step the master
aborted because another task failed), without the executor knowing which.  Whoever
aborts says with which error (``abort(error)``); ``error`` then tells the step's owner
what to raise instead of the executor's ``DeadlineExceededError``.
"""

from __future__ import annotations

import threading
import time

__all__ = ["Deadline", "StepsInFlight", "session_closed_error"]


class Deadline:
    """When a step must stop (``at`` is a ``time.monotonic()`` value, None: never)."""

    __slots__ = ("at", "error")

    def __init__(self, at: float | None = None):
        self.at = at
        self.error = None          # the OpError the step was aborted with, if it was

    @classmethod
    def after(cls, timeout_s: float | None) -> "Deadline":
        return cls(time.monotonic() + timeout_s if timeout_s else None)

    def abort(self, error) -> None:
        """End the step at its next check; its owner raises ``error``."""
        self.error = error

    def expired(self) -> bool:
        return self.error is not None or (self.at is not None and time.monotonic() > self.at)

    def remaining(self) -> float | None:
        """Seconds left (never below a microsecond), None without a time limit."""
        return None if self.at is None else max(self.at - time.monotonic(), 1e-6)


def session_closed_error():
    """What a step that its session's close() ended raises (TF1's class for it)."""
    from ..errors import CancelledError

    return CancelledError("The session was closed while this step ran: Session.close() "
                          "cancels the steps in flight, as TF1's does.", None)


class StepsInFlight:
    """The deadlines of a session's running steps, so that closing the session ends them
    (TF1's ``Session.close()`` cancels the steps in flight): each stops before its next
    kernel, or its loop's next iteration, and raises ``error``."""

    def __init__(self):
        self._lock = threading.Lock()
        self._running: set = set()
        self.error = None

    def start(self, deadline: Deadline) -> None:
        with self._lock:
            self._running.add(deadline)
            if self.error is not None:
                deadline.abort(self.error)

    def finish(self, deadline: Deadline) -> None:
        with self._lock:
            self._running.discard(deadline)

    def cancel_all(self, error) -> None:
        with self._lock:
            self.error = error
            running = list(self._running)
        for deadline in running:
            deadline.abort(error)
