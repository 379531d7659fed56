"""The daemon thread pool (``runtime/daemon_pool.py``): the branch pool of direct
sessions and the servers' handler pool."""

from __future__ import annotations

import threading

import pytest

from devsession.runtime.daemon_pool import DaemonThreadPool


def test_runs_work_on_daemon_threads_after_the_initializer():
    seen = threading.local()
    pool = DaemonThreadPool(2, "test-pool", initializer=lambda: setattr(seen, "ready", True))
    try:
        results = [pool.submit(lambda k: (k * k, getattr(seen, "ready", False),
                                          threading.current_thread().daemon), k)
                   for k in range(5)]
        assert [f.result(timeout=10) for f in results] == [(k * k, True, True)
                                                           for k in range(5)]
        with pytest.raises(ZeroDivisionError):
            pool.submit(lambda: 1 / 0).result(timeout=10)
    finally:
        pool.shutdown()


def test_shutdown_cancels_queued_work_and_waits_for_running_work():
    pool = DaemonThreadPool(1)
    release, started = threading.Event(), threading.Event()

    def blocker():
        started.set()
        release.wait(10)
        return "ran"

    running = pool.submit(blocker)
    assert started.wait(10)
    queued = pool.submit(lambda: "queued ran")
    threading.Timer(0.2, release.set).start()
    pool.shutdown(wait=True, cancel_futures=True)
    assert queued.cancelled()
    assert running.done() and running.result() == "ran"
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(lambda: None)


def test_a_failing_initializer_breaks_the_pool_instead_of_stranding_its_work():
    from devsession.runtime.daemon_pool import BrokenThreadPool

    pool = DaemonThreadPool(1, initializer=lambda: 1 / 0)
    waiting = pool.submit(lambda: "ran")
    with pytest.raises(BrokenThreadPool, match="ZeroDivisionError"):
        waiting.result(timeout=10)
    with pytest.raises(BrokenThreadPool):
        pool.submit(lambda: None)
