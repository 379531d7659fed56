"""TF1's queue-based input pipelines end to end: the producers (string_input_producer,
range/slice_input_producer, limit_epochs), batch and shuffle_batch, fed by queue runners
under a Coordinator, and (below) the readers on files written here.  Every session has an
operation timeout, so a broken pipeline fails instead of hanging."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import devsession as ds
from devsession.errors import FailedPreconditionError, OutOfRangeError


@pytest.fixture
def graph():
    g = ds.Graph()
    with g.as_default():
        yield g


@contextlib.contextmanager
def running(graph, init_locals=True):
    """A session with the graph's queue runners started; stops and joins them after."""
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
        sess.run(ds.global_variables_initializer())
        if init_locals:
            sess.run(ds.local_variables_initializer())
        coord = ds.train.Coordinator()
        threads = ds.train.start_queue_runners(sess, coord)
        try:
            yield sess
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)


def drain(sess, tensor, limit=1000) -> list:
    """Every value ``tensor`` gives until ``OutOfRangeError`` (at most ``limit``)."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(tensor))
        except OutOfRangeError:
            return out
    raise AssertionError(f"no OutOfRangeError after {limit} values")


# --- producers -------------------------------------------------------------------------------

def test_string_input_producer_ends_after_exactly_its_epochs(graph):
    queue = ds.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    assert (queue.name, queue.queue_ref.op.type) == ("input_producer", "FIFOQueueV2")
    assert len(ds.get_collection(ds.GraphKeys.QUEUE_RUNNERS)) == 1
    assert [v.op.name for v in ds.local_variables()] == ["input_producer/limit_epochs/epochs"]
    name = queue.dequeue()
    with running(graph) as sess:
        assert drain(sess, name) == [b"a", b"b", b"c"] * 2


def test_each_epoch_is_a_permutation_repeatable_with_a_seed():
    def epochs(seed):
        g = ds.Graph()
        with g.as_default():
            ds.set_random_seed(5)
            index = ds.train.range_input_producer(6, num_epochs=3, seed=seed).dequeue()
            with running(g) as sess:
                return drain(sess, index)

    got = epochs(seed=1)
    assert len(got) == 18
    assert all(sorted(got[k:k + 6]) == list(range(6)) for k in (0, 6, 12))
    assert got[:6] != list(range(6)) or got[6:12] != list(range(6))
    assert epochs(seed=1) == got


def test_slice_input_producer_keeps_rows_together(graph):
    images = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.arange(6, dtype=np.int64) * 10
    image, label = ds.train.slice_input_producer([images, labels], num_epochs=1, seed=3)
    with running(graph) as sess:
        pairs = drain(sess, [image, label])
    assert sorted(int(lab) for _, lab in pairs) == list(labels)
    for img, lab in pairs:
        np.testing.assert_array_equal(img, images[int(lab) // 10])


def test_epochs_need_the_local_variables_initialized(graph):
    index = ds.train.range_input_producer(3, num_epochs=1).dequeue()
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
        coord = ds.train.Coordinator()
        threads = ds.train.start_queue_runners(sess, coord)
        with pytest.raises(OutOfRangeError):           # the runner failed: nothing came
            sess.run(index)
        with pytest.raises(FailedPreconditionError, match="uninitialized value"):
            coord.join(threads, stop_grace_period_secs=5)


def test_limit_epochs_counts_with_count_up_to(graph):
    limited = ds.train.limit_epochs(ds.constant([1, 2]), num_epochs=2)
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        ds.train.limit_epochs(ds.constant(1), num_epochs=0)
    with ds.Session(graph=graph) as sess:
        sess.run(ds.local_variables_initializer())
        assert [sess.run(limited).tolist() for _ in range(2)] == [[1, 2], [1, 2]]
        with pytest.raises(OutOfRangeError, match="Reached limit of 2"):
            sess.run(limited)


# --- batching --------------------------------------------------------------------------------

def test_batch_in_order_and_the_smaller_final_batch(graph):
    index = ds.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
    square = index * index
    full = ds.train.batch([index, square], batch_size=4)
    assert [t.name for t in full] == ["batch:0", "batch:1"]
    assert [t.shape.as_list() for t in full] == [[4], [4]]
    with running(graph) as sess:
        batches = drain(sess, full)
    assert [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert batches[1][1].tolist() == [16, 25, 36, 49]

    g = ds.Graph()
    with g.as_default():
        index = ds.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
        single = ds.train.batch([index], batch_size=4, allow_smaller_final_batch=True)
        assert isinstance(single, ds.Tensor) and single.shape.as_list() == [None]
        with running(g) as sess:
            assert [b.tolist() for b in drain(sess, single)] == [[0, 1, 2, 3], [4, 5, 6, 7],
                                                                  [8, 9]]


def test_shuffle_batch_mixes_and_keeps_every_element_once(graph):
    ds.set_random_seed(1)
    index = ds.train.range_input_producer(40, num_epochs=1, shuffle=False).dequeue()
    batched = ds.train.shuffle_batch({"i": index, "twice": index * 2}, batch_size=8,
                                     capacity=30, min_after_dequeue=10, num_threads=3,
                                     seed=2, allow_smaller_final_batch=True)
    assert sorted(batched) == ["i", "twice"] and batched["i"].op.name == "shuffle_batch"
    with running(graph) as sess:
        batches = drain(sess, batched)
    seen = [int(i) for b in batches for i in b["i"]]
    assert sorted(seen) == list(range(40)) and seen != list(range(40))
    for b in batches:
        np.testing.assert_array_equal(b["twice"], b["i"] * 2)
    queue_op = graph.get_operation_by_name("shuffle_batch/random_shuffle_queue")
    assert (queue_op.type, queue_op.get_attr("min_after_dequeue"),
            queue_op.get_attr("capacity")) == ("RandomShuffleQueueV2", 10, 30)
    assert len(ds.get_collection(ds.GraphKeys.QUEUE_RUNNERS)[-1].enqueue_ops) == 3


def test_shuffle_batch_checks_its_capacity(graph):
    with pytest.raises(ValueError, match="capacity 5 must be bigger than min_after_dequeue 5"):
        ds.train.shuffle_batch([ds.constant(1)], 2, capacity=5, min_after_dequeue=5)


def test_enqueue_many_and_join_variants(graph):
    rows = ds.constant(np.arange(6, dtype=np.int32).reshape(3, 2))
    many = ds.train.batch([rows], batch_size=6, enqueue_many=True)
    assert many.shape.as_list() == [6, 2]
    joined = ds.train.batch_join([[ds.constant(1)], [ds.constant(2)]], batch_size=4)
    mixed = ds.train.shuffle_batch_join([[ds.constant(7)], [ds.constant(8)]], batch_size=4,
                                        capacity=10, min_after_dequeue=2)
    with running(graph) as sess:
        assert sess.run(many).tolist() == [[0, 1], [2, 3], [4, 5]] * 2
        assert set(sess.run(joined).tolist()) <= {1, 2}
        assert set(sess.run(mixed).tolist()) <= {7, 8}
