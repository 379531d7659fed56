"""ds.train.Coordinator and ds.train.QueueRunner as TF1's: stop requests, the first error
re-raised by join, runners filling a queue from threads and closing it when their input
ends, and start_queue_runners over the QUEUE_RUNNERS collection.  Every wait is bounded."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import devsession as ds
from devsession.errors import OutOfRangeError


@pytest.fixture
def sess(bounded_session):       # conftest.py: every run gives up after 10 s
    return bounded_session


# --- Coordinator -----------------------------------------------------------------------------

def test_coordinator_reraises_the_first_error_and_ignores_clean_stops():
    coord = ds.train.Coordinator()
    assert not coord.should_stop()

    def fails():
        with coord.stop_on_exception():
            raise ValueError("first")

    workers = [threading.Thread(target=fails)]
    workers[0].start()
    assert coord.wait_for_stop(5)
    coord.request_stop(RuntimeError("second"))         # after the stop: not kept
    with pytest.raises(ValueError, match="first"):
        coord.join(workers, stop_grace_period_secs=5)
    assert coord.joined

    clean = ds.train.Coordinator()
    clean.request_stop(OutOfRangeError("end of data"))  # the input ended: a clean stop
    assert clean.should_stop()
    clean.join([], stop_grace_period_secs=1)
    clean.clear_stop()
    assert not clean.should_stop()


def test_coordinator_join_names_threads_that_outlive_the_grace_period():
    coord = ds.train.Coordinator()
    release = threading.Event()
    stuck = threading.Thread(target=lambda: release.wait(5), name="stuck-one", daemon=True)
    stuck.start()
    coord.register_thread(stuck)
    coord.request_stop()
    try:
        with pytest.raises(RuntimeError, match="threads still running: stuck-one"):
            coord.join(stop_grace_period_secs=0.1)
        coord.join([stuck], stop_grace_period_secs=0.1, ignore_live_threads=True)
    finally:
        release.set()


# --- QueueRunner -----------------------------------------------------------------------------

def test_queue_runner_fills_a_queue_and_cancels_on_stop(sess):
    counter = ds.Variable(0, name="counter")
    q = ds.FIFOQueue(4, ds.int32, shapes=[[]])
    runner = ds.train.QueueRunner(q, [q.enqueue(counter.assign_add(1))] * 2)
    ds.train.add_queue_runner(runner)
    assert ds.get_collection(ds.GraphKeys.QUEUE_RUNNERS) == [runner]
    assert runner.name == q.name and runner.cancel_op.get_attr("cancel_pending_enqueues")
    sess.run(counter.initializer)
    coord = ds.train.Coordinator()
    threads = ds.train.start_queue_runners(sess, coord)
    assert len(threads) == 3 and all(t.daemon for t in threads)
    assert ds.train.start_queue_runners(sess, coord) == []      # already running there
    got = sorted(sess.run(q.dequeue_many(10)).tolist())
    assert len(set(got)) == 10 and min(got) >= 1
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=5)               # the full queue's enqueues
    assert sess.run(q.is_closed())                              # were cancelled


def test_an_input_that_ends_closes_the_next_queue(sess):
    source = ds.FIFOQueue(10, ds.int32, shapes=[[]])
    sink = ds.FIFOQueue(10, ds.int32, shapes=[[]])
    runner = ds.train.QueueRunner(sink, [sink.enqueue(source.dequeue() * 10)])
    sess.run(source.enqueue_many([[1, 2, 3]]))
    sess.run(source.close())
    coord = ds.train.Coordinator()
    threads = runner.create_threads(sess, coord, daemon=True, start=True)
    assert sess.run(sink.dequeue_many(3)).tolist() == [10, 20, 30]
    with pytest.raises(OutOfRangeError, match="is closed and has insufficient elements"):
        sess.run(sink.dequeue())                       # the runner closed it when done
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=5)      # the end of data is no error


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_runner_error_reaches_join(sess):
    q = ds.FIFOQueue(10, ds.float32, shapes=[[]])
    bad = ds.check_numerics(ds.constant(np.nan, ds.float32), "bad input")
    runner = ds.train.QueueRunner(q, [q.enqueue(bad)])
    coord = ds.train.Coordinator()
    threads = runner.create_threads(sess, coord, daemon=True, start=True)
    assert coord.wait_for_stop(5)
    with pytest.raises(ds.errors.InvalidArgumentError, match="bad input"):
        coord.join(threads, stop_grace_period_secs=5)

    lonely = ds.train.QueueRunner(q, [q.enqueue(bad)])        # no coordinator: kept
    (thread,) = lonely.create_threads(sess, daemon=True, start=True)
    thread.join(5)
    assert isinstance(lonely.exceptions_raised[0], ds.errors.InvalidArgumentError)


def test_start_queue_runners_needs_a_session(graph):
    with pytest.raises(ValueError, match="No default session is registered"):
        ds.train.start_queue_runners()
