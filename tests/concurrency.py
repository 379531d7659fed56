"""Running one piece of a test from many threads at once, and failing the test with what any
of them raised (an assertion error in a thread is otherwise lost)."""

from __future__ import annotations

import threading


# A hung thread fails its test after this long rather than holding up the whole run.
DEFAULT_TIMEOUT_S = 300.0


def run_in_threads(work, count: int, *, timeout: float = DEFAULT_TIMEOUT_S,
                   together: bool = False) -> None:
    """Calls ``work(i)`` for each i in range(count), each in a thread of its own, and waits
    for them (``timeout`` seconds each at most); then asserts that every thread finished
    and none raised.  ``together``: the threads wait at a barrier first, so that the calls
    overlap.  The threads are daemons: one that hangs fails the test and does not keep
    pytest from exiting."""
    errors = []
    barrier = threading.Barrier(count) if together else None

    def run(i):
        try:
            if barrier is not None:
                barrier.wait()
            work(i)
        except BaseException as exc:   # reported by the calling thread, below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads), "a thread did not finish in time"
