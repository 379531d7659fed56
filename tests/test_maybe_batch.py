"""TF1's ``maybe_batch``, ``maybe_shuffle_batch`` (and ``_join``): batches of only the
examples ``keep_input`` keeps, a scalar per element or a vector per example with
``enqueue_many``; TF1's errors for a keep_input of the wrong rank."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


def run_pipeline(sess, out, batches):
    coord = ds.train.Coordinator()
    threads = ds.train.start_queue_runners(sess, coord=coord)
    try:
        return [sess.run(out) for _ in range(batches)]
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5, ignore_live_threads=True)


def test_a_scalar_keep_input_drops_whole_elements(bounded_session):
    numbers = ds.train.range_input_producer(12, shuffle=False).dequeue()
    batch = ds.train.maybe_batch([numbers], keep_input=ds.equal(numbers % 3, 0),
                                 batch_size=2)
    got = run_pipeline(bounded_session, batch, 2)
    assert [b.tolist() for b in got] == [[0, 3], [6, 9]]


def test_a_vector_keep_input_drops_examples_of_enqueue_many(bounded_session):
    rows = ds.constant(np.arange(12, dtype=np.int32).reshape(6, 2))
    labels = ds.constant(np.arange(6, dtype=np.int64))
    keep = ds.constant([True, False, True, True, False, True])
    x, y = ds.train.maybe_batch([rows, labels], keep, batch_size=4, enqueue_many=True)
    got_x, got_y = run_pipeline(bounded_session, [x, y], 1)[0]
    assert got_y.tolist() == [0, 2, 3, 5]
    assert got_x.tolist() == [[0, 1], [4, 5], [6, 7], [10, 11]]


def test_maybe_shuffle_batch_and_joins_keep_only_what_is_kept(bounded_session):
    values = ds.constant(np.arange(20, dtype=np.float32))
    shuffled = ds.train.maybe_shuffle_batch([values], batch_size=10, capacity=40,
                                            min_after_dequeue=5, keep_input=values > 9.5,
                                            enqueue_many=True, seed=3)
    joined = ds.train.maybe_batch_join([[values], [values + 100.0]], keep_input=values < 2.0,
                                       batch_size=8, enqueue_many=True)
    nothing = ds.train.maybe_shuffle_batch_join(
        [[values]], batch_size=5, capacity=30, min_after_dequeue=0,
        keep_input=ds.constant(False), enqueue_many=True)
    assert nothing.shape.as_list() == [5]
    for got_shuffled, got_joined in run_pipeline(bounded_session, [shuffled, joined], 3):
        assert len(got_shuffled) == 10 and set(got_shuffled.tolist()) <= set(range(10, 20))
        assert set(got_joined.tolist()) <= {0.0, 1.0, 100.0, 101.0}
    size = [op for op in ds.get_default_graph().get_operations()
            if op.type == "QueueSizeV2" and op.name.startswith("shuffle_batch_join")][0]
    assert bounded_session.run(size.outputs[0]) == 0        # nothing was ever kept


def test_keep_input_of_the_wrong_rank_is_tf1s_value_error():
    x = ds.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="cannot be a vector when `enqueue_many=False`"):
        ds.train.maybe_batch([x], keep_input=[True, False], batch_size=2)
    with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
        ds.train.maybe_batch([x], keep_input=[[True]], batch_size=2, enqueue_many=True)
