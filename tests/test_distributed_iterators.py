"""tf.data iterators on a cluster: an iterator's ops (its initializers, ``get_next``,
``string_handle``) are built where the iterator was made, whatever device scope they are
asked for under, as TF colocates them with the iterator's resource.  A ``get_next()``
called under a worker's scope for an iterator made on a parameter server reads that
iterator, on that server (before, it looked for an iterator of that name on the worker
and failed with "the iterator has not been initialized")."""

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
