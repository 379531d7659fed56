"""TF1's queues (ds.FIFOQueue, ds.RandomShuffleQueue, ds.PaddingFIFOQueue): their ops as
TF1 builds them, their order (a RandomShuffleQueue's TF's for its seeds), their blocking
across threads, close and cancel, and every wait bounded (each blocking run here has a
deadline: no test can hang)."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest

import devsession as ds
import shuffle_queue_cases
from devsession.errors import (CancelledError, DeadlineExceededError, InvalidArgumentError,
                               OutOfRangeError)
from concurrency import in_thread, still_blocked
from tf_recorded import DATA

SHORT = ds.RunOptions(timeout_s=0.2)       # for a run that must block, then time out


@pytest.fixture
def sess(bounded_session):       # conftest.py: every run gives up after 10 s
    return bounded_session



# --- building ------------------------------------------------------------------------------

def test_ops_are_tf1s(graph):
    q = ds.FIFOQueue(3, [ds.int32, ds.float32], shapes=[[], [2]])
    assert (q.name, q.queue_ref.op.type, q.dtypes, q.shapes, q.names) == (
        "fifo_queue", "FIFOQueueV2", [ds.int32, ds.float32],
        [ds.TensorShape([]), ds.TensorShape([2])], None)
    e, em = q.enqueue([1, [1.0, 2.0]]), q.enqueue_many([[1, 2], [[1.0, 2.0], [3.0, 4.0]]])
    assert (e.name, e.type, em.name, em.type) == (
        "fifo_queue_enqueue", "QueueEnqueueV2", "fifo_queue_EnqueueMany", "QueueEnqueueManyV2")
    d, dm, du = q.dequeue(), q.dequeue_many(2), q.dequeue_up_to(2)
    assert [t.name for t in d] == ["fifo_queue_Dequeue:0", "fifo_queue_Dequeue:1"]
    assert [t.shape for t in d] == [(), (2,)]
    assert [t.shape.as_list() for t in dm] == [[2], [2, 2]]
    assert [t.shape.as_list() for t in du] == [[None], [None, 2]]
    assert (dm[0].op.type, du[0].op.type) == ("QueueDequeueManyV2", "QueueDequeueUpToV2")
    close, size, closed = q.close(cancel_pending_enqueues=True), q.size(), q.is_closed()
    assert (close.name, close.type, close.get_attr("cancel_pending_enqueues")) == (
        "fifo_queue_Close", "QueueCloseV2", True)
    assert (size.name, size.dtype, closed.name, closed.dtype) == (
        "fifo_queue_Size:0", ds.int32, "fifo_queue_Is_Closed:0", ds.bool)
    assert ds.queue.FIFOQueue is ds.FIFOQueue and ds.queue.RandomShuffleQueue is \
        ds.RandomShuffleQueue


def test_build_time_checks_as_tf1(graph):
    q = ds.FIFOQueue(3, [ds.int32, ds.float32], shapes=[[], [2]])
    with pytest.raises(ValueError, match=r"incompatible"):
        q.enqueue([1, [1.0, 2.0, 3.0]])
    with pytest.raises(TypeError):
        q.enqueue(["a", [1.0, 2.0]])
    with pytest.raises(ValueError, match="fully defined"):
        ds.FIFOQueue(3, ds.int32, shapes=[[None]])
    named = ds.FIFOQueue(3, [ds.int32, ds.float32], shapes=[[], []], names=["a", "b"])
    with pytest.raises(ValueError, match="must enqueue a dictionary"):
        named.enqueue([1, 2.0])
    with pytest.raises(ValueError, match="do not match names"):
        named.enqueue({"a": 1})
    out = named.dequeue()
    assert sorted(out) == ["a", "b"] and out["b"].dtype == ds.float32
    single = ds.FIFOQueue(3, ds.float32)
    assert single.dequeue().shape.rank is None and isinstance(single.dequeue(), ds.Tensor)


# --- order and ends ------------------------------------------------------------------------

def test_fifo_order_across_enqueue_many_and_dequeue_many(sess):
    q = ds.FIFOQueue(10, [ds.int32, ds.string], shapes=[[], []])
    sess.run(q.enqueue_many([[1, 2, 3], ["a", "b", "c"]]))
    sess.run(q.enqueue([4, "d"]))
    first = sess.run(q.dequeue())
    assert (first[0], first[1]) == (1, b"a")
    ints, strs = sess.run(q.dequeue_many(3))
    assert ints.tolist() == [2, 3, 4] and strs.tolist() == [b"b", b"c", b"d"]
    assert sess.run(q.size()) == 0


def test_closed_queue_ends_with_tf1s_errors(sess):
    q = ds.FIFOQueue(5, ds.int32, shapes=[[]])
    sess.run(q.enqueue_many([[1, 2]]))
    sess.run(q.close())
    assert sess.run(q.is_closed())
    with pytest.raises(CancelledError, match=r"FIFOQueue '_\d+_fifo_queue' is closed\."):
        sess.run(q.enqueue(3))
    with pytest.raises(OutOfRangeError, match=r"FIFOQueue '_\d+_fifo_queue' is closed and has "
                       r"insufficient elements \(requested 3, current size 2\)"):
        sess.run(q.dequeue_many(3))
    assert sess.run(q.size()) == 2                     # a failed dequeue_many takes nothing
    assert sess.run(q.dequeue_up_to(5)).tolist() == [1, 2]     # the rest, fewer
    with pytest.raises(OutOfRangeError, match=r"requested 1, current size 0"):
        sess.run(q.dequeue())


def test_run_time_shape_checks(sess):
    q = ds.FIFOQueue(5, ds.int32, shapes=[[2]])
    with pytest.raises(InvalidArgumentError, match=r"Shape mismatch in tuple component 0\. "
                       r"Expected \[2\], got \[3\]"):
        sess.run(q.enqueue(ds.placeholder_with_default([1, 2, 3], [None])))
    with pytest.raises(InvalidArgumentError, match=r"Expected \[1,2\], got \[1,3\]"):
        sess.run(q.enqueue_many(ds.placeholder_with_default([[1, 2, 3]], [None, None])))
    shapeless = ds.FIFOQueue(5, ds.int32)
    sess.run(shapeless.enqueue(1))
    with pytest.raises(InvalidArgumentError, match="require the components to have specified"):
        sess.run(shapeless.dequeue_many(1))


def test_empty_shapes_are_one_scalar_component_as_tf1_reads_them(sess):
    for empty in ((), []):
        q = ds.FIFOQueue(4, ds.float32, shapes=empty)
        assert q.shapes == [ds.TensorShape([])]
        sess.run(q.enqueue_many([[1.0, 2.0]]))
        assert sess.run(q.dequeue_many(2)).tolist() == [1.0, 2.0]
        with pytest.raises(ValueError):
            q.enqueue([[1.0, 2.0]])
    with pytest.raises(ValueError, match="same length as dtypes"):
        ds.FIFOQueue(4, [ds.float32, ds.int32], shapes=())


def test_padding_fifo_queue_pads_each_batch(sess):
    q = ds.PaddingFIFOQueue(5, [ds.int32, ds.string], shapes=[[None], []])
    sess.run(q.enqueue([[1], "x"]))
    sess.run(q.enqueue([[1, 2, 3], "y"]))
    ints, strs = sess.run(q.dequeue_many(2))
    assert ints.tolist() == [[1, 0, 0], [1, 2, 3]] and strs.tolist() == [b"x", b"y"]


# --- RandomShuffleQueue ----------------------------------------------------------------------

def _shuffled(seed, graph_seed=None, n=20):
    g = ds.Graph()
    with g.as_default():
        if graph_seed is not None:
            ds.set_random_seed(graph_seed)
        q = ds.RandomShuffleQueue(n, 0, ds.int32, shapes=[[]], seed=seed)
        fill, take = q.enqueue_many([np.arange(n, dtype=np.int32)]), q.dequeue_many(n)
        with ds.Session(graph=g, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
            sess.run(fill)
            return sess.run(take).tolist()


def test_random_shuffle_queue_is_a_repeatable_permutation():
    order = _shuffled(seed=3, graph_seed=1)
    assert sorted(order) == list(range(20)) and order != list(range(20))
    assert _shuffled(seed=3, graph_seed=1) == order            # a new session, same order
    assert _shuffled(seed=4, graph_seed=1) != order


def test_random_shuffle_queues_dequeue_in_tensorflows_order():
    """Every element enqueued first: TF's orders (tests/data/make_tf_shuffle_queues.py),
    seeded, by the graph seed alone, by dequeue_many, with min_after_dequeue and close."""
    with open(os.path.join(DATA, "tf_shuffle_queues.json")) as f:
        expected = json.load(f)
    graph = ds.Graph()
    with ds.Session(graph=graph) as sess:
        assert shuffle_queue_cases.runs(ds, graph, sess) == expected


def test_random_shuffle_queue_keeps_min_after_dequeue_back_until_closed(sess):
    q = ds.RandomShuffleQueue(10, 3, ds.int32, shapes=[[]], seed=1)
    sess.run(q.enqueue_many([np.arange(5, dtype=np.int32)]))
    got = sess.run(q.dequeue_many(2)).tolist()
    with pytest.raises(DeadlineExceededError, match="Timed out waiting for notification"):
        sess.run(q.dequeue(), options=SHORT)         # 3 left: min_after_dequeue of them
    assert sess.run(q.size()) == 3
    sess.run(q.close())
    got += sess.run(q.dequeue_up_to(10)).tolist()
    assert sorted(got) == [0, 1, 2, 3, 4]
    with pytest.raises(OutOfRangeError, match=r"RandomShuffleQueue '_\d+_random_shuffle_queue'"
                       r" is closed and has insufficient elements"):
        sess.run(q.dequeue())


# --- blocking across threads -----------------------------------------------------------------

def test_dequeue_waits_for_an_enqueue_from_another_thread(sess):
    q = ds.FIFOQueue(2, ds.float32, shapes=[[]])
    dequeue, enqueue = q.dequeue(), q.enqueue(7.0)
    waiting = in_thread(lambda: sess.run(dequeue))
    assert still_blocked(waiting)
    sess.run(enqueue)
    assert waiting() == 7.0


def test_full_queue_blocks_enqueue_until_a_dequeue(sess):
    q = ds.FIFOQueue(2, ds.int32, shapes=[[]])
    sess.run(q.enqueue_many([[1, 2]]))
    with pytest.raises(DeadlineExceededError):
        sess.run(q.enqueue(3), options=SHORT)
    more = q.enqueue_many([[3, 4, 5]])                 # more than fits
    waiting = in_thread(lambda: sess.run(more))
    assert still_blocked(waiting)
    assert sess.run(q.dequeue_many(2)).tolist() == [1, 2]
    assert sess.run(q.dequeue_many(3)).tolist() == [3, 4, 5]     # taken as they arrive
    waiting()


def test_close_wakes_waiting_dequeues_and_cancels_enqueues_when_asked(sess):
    q = ds.FIFOQueue(1, ds.int32, shapes=[[]])
    dequeue = q.dequeue_many(2)
    sess.run(q.enqueue(1))
    waiting = in_thread(lambda: sess.run(dequeue))
    assert still_blocked(waiting)
    sess.run(q.close())
    with pytest.raises(OutOfRangeError, match=r"requested 1, current size 0"):
        waiting()
    assert sess.run(q.size()) == 1                     # what it had taken is back

    q2 = ds.FIFOQueue(1, ds.int32, shapes=[[]])
    sess.run(q2.enqueue(1))
    kept = in_thread(lambda: sess.run(q2.enqueue(2)))
    assert still_blocked(kept)
    sess.run(q2.close())                               # a pending enqueue survives close()
    assert sess.run(q2.dequeue()) == 1
    kept()
    assert sess.run(q2.dequeue()) == 2

    q3 = ds.FIFOQueue(1, ds.int32, shapes=[[]])
    sess.run(q3.enqueue(1))
    cancelled = in_thread(lambda: sess.run(q3.enqueue(2)))
    assert still_blocked(cancelled)
    sess.run(q3.close(cancel_pending_enqueues=True))
    with pytest.raises(CancelledError, match="Enqueue operation was cancelled"):
        cancelled()
    assert sess.run(q3.size()) == 1


def test_timeouts_bound_a_blocked_step(graph):
    q = ds.FIFOQueue(1, ds.int32, shapes=[[]])
    dequeue = q.dequeue()
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=0.2)) as sess:
        start = time.monotonic()
        with pytest.raises(DeadlineExceededError, match="Timed out waiting for notification"):
            sess.run(dequeue)
        assert time.monotonic() - start < 3
    with ds.Session(graph=graph) as sess:
        with pytest.raises(DeadlineExceededError):
            sess.run(dequeue, options=SHORT)


def test_closing_the_session_wakes_blocked_steps(graph):
    empty, full = ds.FIFOQueue(1, ds.int32, shapes=[[]]), ds.FIFOQueue(1, ds.int32, shapes=[[]])
    dequeue, enqueue = empty.dequeue(), full.enqueue_many([[1, 2]])
    sess = ds.Session(graph=graph)
    try:
        blocked = [in_thread(lambda: sess.run(dequeue)), in_thread(lambda: sess.run(enqueue))]
        assert still_blocked(blocked[0]) and still_blocked(blocked[1])
    finally:
        sess.close()
    for result in blocked:
        with pytest.raises(CancelledError, match="session was closed"):
            result()


def test_many_producers_and_consumers_share_every_element_once(sess):
    q = ds.FIFOQueue(4, ds.int32, shapes=[[]])
    value = ds.placeholder(ds.int32, [None])
    enqueue, dequeue = q.enqueue_many([value]), q.dequeue_many(5)
    producers = [in_thread(lambda k=k: sess.run(enqueue, {value: np.arange(k * 25, k * 25 + 25)}))
                 for k in range(4)]
    consumers = [in_thread(lambda: [sess.run(dequeue).tolist() for _ in range(5)])
                 for _ in range(4)]
    for p in producers:
        p()
    got = sorted(x for c in consumers for batch in c() for x in batch)
    assert got == list(range(100))


def test_plans_that_wait_on_a_queue_keep_off_the_branch_pool():
    # a dequeue waiting on one of the session's few pool threads would starve the steps
    # (the producers') that need the pool to end its wait
    from devsession.runtime.branches import HEAVY_WORK, overlapping_waves
    from devsession.runtime.plan import Step

    def step(inputs, output, op):
        return Step(None, tuple(inputs), output, (), f"n{output}", op, "CPU:0", HEAVY_WORK)

    heavy = [step([0], 1, "Tanh"), step([0], 2, "Tanh"), step([1, 2], 3, "Add")]
    assert overlapping_waves(heavy) != ()
    waiting = [step([0], 1, "QueueDequeueManyV2"), step([0], 2, "Tanh"),
               step([1, 2], 3, "Add")]
    assert overlapping_waves(waiting) == ()


def test_a_queue_on_a_cluster_task_blocks_and_times_out(graph):
    from sessions import local_cluster

    servers = local_cluster()
    with ds.device("/job:worker/task:1"):
        q = ds.FIFOQueue(2, ds.int32, shapes=[[]])
        enqueue, dequeue = q.enqueue_many([[1, 2, 3]]), q.dequeue()
    sess = ds.Session(servers[0].target, graph=graph)
    try:
        ds.reset(ds.SessionOptions(target=servers[0].target))
        filling = in_thread(lambda: sess.run(enqueue, options=ds.RunOptions(timeout_s=10)))
        assert still_blocked(filling)                  # 3 into a queue of 2
        assert [sess.run(dequeue) for _ in range(3)] == [1, 2, 3]
        filling()
        with pytest.raises(DeadlineExceededError):
            sess.run(dequeue, options=SHORT)
    finally:
        sess.close()
