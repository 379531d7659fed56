"""Resources on a cluster: an op on an iterator, a queue, an accumulator or a reader is
placed where that resource was made, whatever device scope it is asked for under, as TF
places every user of a resource with it.  A ``get_next()`` or ``enqueue`` called under a
worker's scope for an iterator or queue made on a parameter server reads or fills that
one, on that server.  Before, a ``get_next()`` looked for an iterator of that name on the
worker ("the iterator has not been initialized"), and an enqueue failed sending the
queue's handle ("a string tensor holds bytes, not str")."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from sessions import local_cluster

HERE, THERE = "/job:worker/task:0", "/job:worker/task:1"


def cluster_session(graph):
    target = local_cluster()[0].target
    ds.reset(ds.SessionOptions(target=target))
    return ds.Session(target, graph=graph)


def batches_until_the_end(sess, fetch, feed=None) -> list:
    out = []
    while True:
        try:
            out.append(sess.run(fetch, feed).tolist())
        except ds.errors.OutOfRangeError:
            return out


def test_get_next_asked_on_another_task_reads_the_iterator_where_it_was_made():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            it = ds.data.make_initializable_iterator(
                ds.data.Dataset.range(7).map(lambda i: i * 2).batch(3))
        with ds.device(HERE):
            element = it.get_next()
            total = ds.reduce_sum(element + 1)
    assert element.op.device.startswith(THERE)
    assert total.op.device.startswith(HERE)
    with cluster_session(g) as sess:
        for _ in range(2):                       # the initializer starts it over
            sess.run(it.initializer)
            assert batches_until_the_end(sess, element) == [[0, 2, 4], [6, 8, 10], [12]]
        sess.run(it.initializer)
        assert sess.run(total) == 9


def test_a_reinitializable_iterators_initializers_run_where_it_was_made():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            it = ds.data.Iterator.from_structure(ds.int64, [])
        with ds.device(HERE):
            train = it.make_initializer(ds.data.Dataset.range(3))
            valid = it.make_initializer(ds.data.Dataset.range(10, 12))
            element = it.get_next()
    assert {train.device, valid.device, element.op.device} == {it.make_initializer(
        ds.data.Dataset.range(1)).device}
    assert train.device.startswith(THERE)
    with cluster_session(g) as sess:
        sess.run(train)
        assert batches_until_the_end(sess, element) == [0, 1, 2]
        sess.run(valid)
        assert batches_until_the_end(sess, element) == [10, 11]


def test_a_one_shot_iterator_made_on_another_task():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            it = ds.data.make_one_shot_iterator(ds.data.Dataset.from_tensor_slices(
                np.arange(6.0, dtype=np.float32).reshape(3, 2)))
        with ds.device(HERE):
            element = it.get_next()
            optional = it.get_next_as_optional()
    assert element.op.device.startswith(THERE)
    assert optional.has_value().op.device.startswith(THERE)
    with cluster_session(g) as sess:
        assert batches_until_the_end(sess, element) == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
        assert not sess.run(optional.has_value())


def test_a_feedable_iterator_reads_handles_of_iterators_on_another_task():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            training = ds.data.make_one_shot_iterator(ds.data.Dataset.range(100))
            handle = ds.placeholder(ds.string, [])
            feedable = ds.data.Iterator.from_string_handle(handle, ds.int64, [])
        with ds.device(HERE):
            training_handle = training.string_handle()
            element = feedable.get_next()
    assert training_handle.op.device.startswith(THERE)
    assert element.op.device.startswith(THERE)
    with cluster_session(g) as sess:
        name = sess.run(training_handle)
        assert [sess.run(element, {handle: name}) for _ in range(3)] == [0, 1, 2]


def test_an_iterator_made_under_a_replica_device_setter_stays_on_the_worker():
    """TF's replica_device_setter puts only variables (and tables) on the ps tasks: the
    iterator and every op on it go to the worker device, whatever scope asks for them."""
    g = ds.Graph()
    setter = ds.train.replica_device_setter(ps_tasks=1, worker_device=THERE,
                                            ps_device="/job:ps")
    with g.as_default():
        with ds.device(setter):
            it = ds.data.make_initializable_iterator(ds.data.Dataset.range(2))
            v = ds.Variable(0.0)
        with ds.device(HERE):
            element = it.get_next()
    assert v.op.device.startswith("/job:ps")
    assert it.initializer.device.startswith(THERE)
    assert element.op.device.startswith(THERE)


@pytest.mark.parametrize("scope", [None, "/device:CPU:0"])
def test_in_process_the_ops_follow_the_iterator_too(scope):
    g = ds.Graph()
    with g.as_default():
        with ds.device(scope):
            it = ds.data.make_initializable_iterator(ds.data.Dataset.range(3))
        with ds.device("/device:GPU:0"):
            element = it.get_next()
    assert element.op.device == it.initializer.device
    with ds.Session(graph=g) as sess:
        sess.run(it.initializer)
        assert batches_until_the_end(sess, element) == [0, 1, 2]


def test_a_queue_made_on_another_task_is_filled_and_drained_there():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            queue = ds.FIFOQueue(10, [ds.float32, ds.int32], shapes=[[2], []])
        with ds.device(HERE):
            value = ds.constant([1.0, 2.0]) * 3.0
            enqueue = queue.enqueue([value, 7])
            enqueue_many = queue.enqueue_many([[[0.5, 0.5], [4.0, 4.0]], [8, 9]])
            dequeue = queue.dequeue()
            size, close = queue.size(), queue.close()
    assert {enqueue.device, dequeue[0].op.device, close.device} == {queue.queue_ref.op.device}
    assert value.op.device.startswith(HERE)     # its inputs are computed where asked
    with cluster_session(g) as sess:
        sess.run([enqueue])
        sess.run(enqueue_many)
        assert sess.run(size) == 3
        got = [sess.run(dequeue) for _ in range(3)]
        assert [(v.tolist(), int(i)) for v, i in got] == [
            ([3.0, 6.0], 7), ([0.5, 0.5], 8), ([4.0, 4.0], 9)]
        sess.run(close)
        with pytest.raises(ds.errors.OutOfRangeError):
            sess.run(dequeue)


def test_an_accumulator_made_on_another_task_averages_gradients_there():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            accumulator = ds.ConditionalAccumulator(ds.float32, shape=[2])
        with ds.device(HERE):
            applies = [accumulator.apply_grad([1.0, 2.0], local_step=0),
                       accumulator.apply_grad([3.0, 6.0], local_step=0)]
            average = accumulator.take_grad(2)
    assert all(op.device == accumulator.accumulator_ref.op.device for op in applies)
    with cluster_session(g) as sess:
        sess.run(applies)
        assert sess.run(average).tolist() == [2.0, 4.0]


def test_a_reader_made_on_another_task_reads_its_files_there(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("first\nsecond\n")
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            filenames = ds.FIFOQueue(2, ds.string, shapes=[])
            reader = ds.TextLineReader()
        with ds.device(HERE):
            fill = filenames.enqueue_many([[str(path)]])
            key, line = reader.read(filenames)
    assert line.op.device == reader.reader_ref.op.device
    with cluster_session(g) as sess:
        sess.run(fill)
        assert [sess.run(line) for _ in range(2)] == [b"first", b"second"]
