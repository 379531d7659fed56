"""``ds.PriorityQueue``: TF1's PriorityQueueV2, whose elements start with an int64 scalar
priority its ``types`` leave out; the lowest priority comes out first, equal priorities
in the order they came, across threads and through ``dequeue_many``/``dequeue_up_to``."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError, OutOfRangeError


def test_lowest_priority_first_equal_ones_in_arrival_order(bounded_session):
    q = ds.PriorityQueue(10, [ds.string, ds.float32], shapes=[[], [2]])
    assert q.dtypes == [ds.int64, ds.string, ds.float32]
    assert [s.as_list() for s in q.shapes] == [[], [], [2]]
    fill = q.enqueue_many([[5, 1, 3, 1], [b"e", b"a", b"c", b"a2"],
                           np.arange(8, dtype=np.float32).reshape(4, 2)])
    one, many = q.dequeue(), q.dequeue_many(2)
    assert (one[0].shape, many[2].shape) == ((), (2, 2))
    bounded_session.run(fill)
    priority, name, pair = bounded_session.run(one)
    assert (priority, name) == (1, b"a") and pair.tolist() == [2.0, 3.0]
    priorities, names, pairs = bounded_session.run(many)
    assert priorities.tolist() == [1, 3] and names.tolist() == [b"a2", b"c"]
    assert pairs.tolist() == [[6.0, 7.0], [4.0, 5.0]]
    bounded_session.run(q.enqueue([np.int64(-2), b"z", [9.0, 9.0]]))
    bounded_session.run(q.close())
    priorities, names, _ = bounded_session.run(q.dequeue_up_to(5))
    assert priorities.tolist() == [-2, 5] and names.tolist() == [b"z", b"e"]
    with pytest.raises(OutOfRangeError, match="PriorityQueue .* is closed"):
        bounded_session.run(one)


def test_a_dequeue_many_a_closed_queue_cannot_fill_leaves_it_as_it_was(bounded_session):
    q = ds.PriorityQueue(10, [ds.int32], shapes=[[]])
    bounded_session.run(q.enqueue_many([[4, 2, 2], [40, 20, 21]]))
    bounded_session.run(q.close())
    with pytest.raises(OutOfRangeError, match="requested 5, current size 3"):
        bounded_session.run(q.dequeue_many(5))
    assert bounded_session.run(q.dequeue_many(3))[1].tolist() == [20, 21, 40]


def test_threads_waiting_on_an_empty_queue_get_the_lowest_priority(bounded_session):
    q = ds.PriorityQueue(10, [ds.int32], shapes=[[]])
    got = []
    reader = threading.Thread(target=lambda: got.append(bounded_session.run(q.dequeue())))
    reader.start()
    bounded_session.run(q.enqueue_many([[7], [70]]))
    reader.join(timeout=10)
    assert [int(v) for v in got[0]] == [7, 70]


def test_priorities_are_int64_scalars_and_batches_need_shapes(bounded_session):
    q = ds.PriorityQueue(4, [ds.float32], shapes=[[2]])
    with pytest.raises(ValueError):
        q.enqueue([np.array([1, 2], np.int64), [1.0, 2.0]])       # a priority vector
    unshaped = ds.PriorityQueue(4, [ds.float32])
    bounded_session.run(unshaped.enqueue([np.int64(1), [1.0, 2.0, 3.0]]))
    assert bounded_session.run(unshaped.dequeue())[1].tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(InvalidArgumentError, match="require the components to have specified"):
        bounded_session.run(unshaped.dequeue_many(1))
    vector = np.array([[1, 2]], np.int64)           # an unshaped queue's priority: a scalar
    with pytest.raises(InvalidArgumentError, match=r"component 0. Expected \[\], got \[2\]"):
        bounded_session.run(unshaped.enqueue([vector[0], [1.0]]))
    with pytest.raises(InvalidArgumentError, match=r"component 0. Expected \[1\], got \[1,2"):
        bounded_session.run(unshaped.enqueue_many([vector, [[1.0]]]))
    with pytest.raises(ValueError, match="fully defined shapes"):
        ds.PriorityQueue(4, [ds.float32], shapes=[[None]])


def test_a_dequeue_many_cut_short_by_close_puts_back_what_it_took(bounded_session):
    q = ds.PriorityQueue(10, [ds.int32], shapes=[[]])
    bounded_session.run(q.enqueue_many([[2, 2], [20, 21]]))
    errors = []

    def take_three():
        try:
            bounded_session.run(q.dequeue_many(3))
        except OutOfRangeError as e:
            errors.append(e)
    reader = threading.Thread(target=take_three)
    reader.start()
    size = q.size()
    deadline = time.monotonic() + 10
    while bounded_session.run(size) and time.monotonic() < deadline:   # both taken
        time.sleep(0.01)
    bounded_session.run(q.close())
    reader.join(timeout=10)
    assert len(errors) == 1
    assert bounded_session.run(q.dequeue_up_to(5))[1].tolist() == [20, 21]   # in order
