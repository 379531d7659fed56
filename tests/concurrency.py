"""Running one piece of a test from many threads at once, and failing the test with what any
of them raised (an assertion error in a thread is otherwise lost)."""

from __future__ import annotations

import threading
import time


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


def ended_by(step, end, started, timeout: float = 30.0):
    """Runs ``step()`` in a daemon thread, waits until ``started()`` is true, calls
    ``end()`` (a close, a server's stop) and waits for the step; returns (what the step
    raised or None, seconds the step ran).  Fails the test when it never started or ran on
    ``timeout`` seconds after ``end()``."""
    outcome = {}

    def run():
        begun = time.monotonic()
        try:
            step()
        except Exception as exc:    # noqa: BLE001 - returned to the test
            outcome["error"] = exc
        outcome["seconds"] = time.monotonic() - begun

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    give_up = time.monotonic() + timeout
    while not started():
        assert time.monotonic() < give_up, "the step did not start"
        time.sleep(0.01)
    end()
    thread.join(timeout=timeout)
    assert not thread.is_alive(), "the step ran on after it was ended"
    return outcome.get("error"), outcome["seconds"]


def in_thread(fn):
    """Start ``fn`` on a daemon thread; ``result()`` waits (5 s at most) for its value or
    re-raises its error."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def result():
        thread.join(5)
        assert not thread.is_alive(), "the thread is still blocked"
        if "error" in box:
            raise box["error"]
        return box.get("value")
    result.thread = thread
    return result


def still_blocked(result, seconds=0.2) -> bool:
    result.thread.join(seconds)
    return result.thread.is_alive()
