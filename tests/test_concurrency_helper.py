"""``concurrency.run_in_threads``, the helper the concurrent tests share: it reports what a
thread raised, and a thread that hangs fails the test after the timeout as a daemon, so
it cannot keep the test process from exiting."""

from __future__ import annotations

import threading
import time

import pytest

from concurrency import run_in_threads


def test_an_error_in_a_thread_fails_the_call():
    def work(i):
        if i == 2:
            raise ValueError("thread 2 broke")
    with pytest.raises(AssertionError, match="thread 2 broke"):
        run_in_threads(work, 4)


def test_a_hung_thread_fails_after_the_timeout_and_is_a_daemon():
    release = threading.Event()
    hung = []

    def work(i):
        hung.append(threading.current_thread())
        release.wait(30)
    start = time.monotonic()
    try:
        with pytest.raises(AssertionError, match="did not finish in time"):
            run_in_threads(work, 2, timeout=0.2)
        assert time.monotonic() - start < 5
        assert hung and all(t.daemon for t in hung)
    finally:
        release.set()
