"""A cond or while_loop whose bodies assign to variables, on a cluster: it runs on the
task of its variables (as an assignment does), whatever device it asked for, so its
updates reach the variables the rest of the graph reads; bodies that assign to variables
on two tasks are an InvalidArgumentError naming them, before anything runs.

Before, such a loop ran on the task it asked for, looked its variable up there by name,
and failed with "uninitialized value" although the variable was initialized on its own
task (or, had the name existed there too, updated the wrong variable)."""

from __future__ import annotations

import pytest

import devsession as ds
from sessions import local_cluster

HERE, THERE = "/job:worker/task:0", "/job:worker/task:1"


def cluster_session(graph):
    """A session of ``graph`` on the shared cluster, its variables reset (they outlive
    sessions on a cluster) and initialized."""
    target = local_cluster()[0].target
    ds.reset(ds.SessionOptions(target=target))
    with graph.as_default():
        init = ds.global_variables_initializer()
    sess = ds.Session(target, graph=graph)
    sess.run(init)
    return sess


def counting_loop(v, times: int, extra=None):
    """A while_loop adding 1 to ``v`` ``times`` times (``v`` None: not at all) and 10 to
    ``extra`` when the counter passes 2, from a cond nested in the body."""
    def body(i):
        updates = [v.assign_add(1.0)] if v is not None else []
        if extra is not None:
            updates.append(ds.cond(i > 2, lambda: extra.assign_add(10.0),
                                   lambda: ds.identity(ds.constant(0.0))))
        with ds.control_dependencies(updates):
            return i + 1
    return ds.while_loop(lambda i: i < times, body, [ds.constant(0)])


def test_a_while_loop_updates_its_variable_on_another_task():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            v = ds.Variable(0.0, name="counter")
            w = ds.Variable(0.0, name="nested")
        with ds.device(HERE):
            loop = counting_loop(v, 5, extra=w)
    with cluster_session(g) as sess:
        assert sess.run(loop) == 5
        assert sess.run([v, w]) == [5.0, 20.0]      # i = 3 and 4 pass the nested cond
        sess.run(loop)
        assert sess.run([v, w]) == [10.0, 40.0]


def test_a_variable_assigned_only_in_a_nested_cond_places_the_loop():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            w = ds.Variable(0.0, name="nested_only")
        with ds.device(HERE):
            loop = counting_loop(None, 4, extra=w)
    with cluster_session(g) as sess:
        sess.run(loop)
        assert sess.run(w) == 10.0                  # only i = 3 passes


def test_a_cond_updates_its_variable_on_another_task():
    g = ds.Graph()
    with g.as_default():
        with ds.device(THERE):
            v = ds.Variable(1.0, name="v")
        take = ds.placeholder(ds.bool, (), name="take")
        with ds.device(HERE):
            branch = ds.cond(take, lambda: v.assign_add(10.0), lambda: v.assign_sub(1.0))
    with cluster_session(g) as sess:
        assert sess.run(branch, {take: True}) == 11.0
        assert sess.run(branch, {take: False}) == 10.0
        assert sess.run(v) == 10.0


def test_the_replica_device_setters_loop_runs_beside_its_ps_variable():
    g = ds.Graph()
    setter = ds.train.replica_device_setter(ps_tasks=2, ps_device="/job:worker",
                                            worker_device=HERE, ps_strategy=lambda op: 1)
    with g.as_default(), ds.device(setter):
        v = ds.Variable(0.0, name="steps")
        loop = counting_loop(v, 3)
    assert v.op.device == THERE and loop.op.device == HERE     # as the setter asked
    with cluster_session(g) as sess:
        sess.run(loop)
        assert sess.run(v) == 3.0


def test_a_body_assigning_variables_on_two_tasks_is_an_error_naming_them():
    g = ds.Graph()
    with g.as_default():
        with ds.device(HERE):
            a = ds.Variable(0.0, name="on_here")
        with ds.device(THERE):
            b = ds.Variable(0.0, name="on_there")

        def body(i):
            with ds.control_dependencies([a.assign_add(1.0), b.assign_add(1.0)]):
                return i + 1
        loop = ds.while_loop(lambda i: i < 2, body, [ds.constant(0)], name="both")
    with cluster_session(g) as sess:
        with pytest.raises(ds.errors.InvalidArgumentError) as caught:
            sess.run(loop)
        message = str(caught.value)
        assert "'both" in message and "'on_here' on" in message and "'on_there' on" in message
        assert sess.run([a, b]) == [0.0, 0.0]       # nothing ran
