"""A fetched variable is its value after the step, as TF1 hands it back (its buffer,
copied out at the end): ``_, step = sess.run([train, global_step])`` gives the
incremented step.  Values computed from a variable keep the value they were computed
from.  Checked against what TF 2.21's ``tf.compat.v1`` printed for the same graph:
w = 1, loss w**2, SGD 0.25 (w: 1 -> 0.5 -> 0.25), and an assign_add of 10."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from fake_gpu import fake_gpus
from sessions import SESSION_MAKERS


def _training_graph():
    graph = ds.Graph()
    with graph.as_default():
        w = ds.Variable(1.0, name="w")
        step = ds.train.get_or_create_global_step()
        train = ds.train.GradientDescentOptimizer(0.25).minimize(ds.square(w),
                                                                 global_step=step)
        fetches = [train, step, w, w.read_value(), ds.identity(w), w + 0.0]
        add_ten = ds.assign_add(w, 10.0)
        init = ds.global_variables_initializer()
    return graph, fetches, add_ten, w, init


@pytest.mark.parametrize("make", sorted(SESSION_MAKERS))
def test_a_fetched_variable_is_its_value_after_the_step(make):
    graph, fetches, add_ten, w, init = _training_graph()
    session = SESSION_MAKERS[make](graph)
    try:
        session.run(init)
        first, second = session.run(fetches)[1:], session.run(fetches)[1:]
        assert session.run([add_ten, w]) == [10.25, 10.25]
        assert session.run(w) == 10.25
    finally:
        session.close()
    # step, w, w.read_value(), identity(w) after the update; w + 0 from before it
    assert first == [1, 0.5, 0.5, 0.5, 1.0]
    assert second == [2, 0.25, 0.25, 0.25, 0.5]
    assert isinstance(first[1], np.float32) and isinstance(first[0], np.int64)


def test_a_variable_fetched_after_the_step_is_the_caller_s_own_copy():
    v = ds.Variable(np.zeros(2, np.float32))
    add_one = ds.assign_add(v, np.ones(2, np.float32))
    with ds.Session() as sess:
        sess.run(v.initializer)
        held = sess.run(v)
        value, _ = sess.run([v, add_one])
        value[...] = -1.0                         # a copy: the variable is untouched
        np.testing.assert_array_equal(held, [0.0, 0.0])     # nor was what came before
        np.testing.assert_array_equal(sess.run(v), [1.0, 1.0])


def test_a_gpu_variable_is_fetched_after_the_step_through_a_transfer():
    with fake_gpus(1):
        graph, fetches, add_ten, w, init = _training_graph()
        options = ds.SessionOptions(device="gpu:0", allow_soft_placement=False)
        with ds.Session(graph=graph, options=options) as sess:
            sess.run(init)
            assert sess.run(fetches)[1:] == [1, 0.5, 0.5, 0.5, 1.0]


def test_initialized_value_lets_one_variable_start_from_anothers():
    """TF1's idiom (a target network copied from the online one): whichever initializer
    runs first, ``initialized_value`` gives the value, or the initial value before."""
    with ds.Graph().as_default():
        v = ds.Variable(np.arange(3, dtype=np.float32), name="v")
        w = ds.Variable(v.initialized_value() * 2.0, name="w")
        u = ds.Variable(w.initialized_value() + v.initialized_value(), name="u")
        assert v.initialized_value().shape.as_list() == [3]
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            got = sess.run([v, w, u])
            sess.run(v.assign([5.0, 5.0, 5.0]))
            after = sess.run(v.initialized_value())
            sess.run(u.initializer)             # v is initialized: its value now
            again = sess.run(u)
    np.testing.assert_array_equal(got[1], [0, 2, 4])
    np.testing.assert_array_equal(got[2], [0, 3, 6])
    np.testing.assert_array_equal(after, [5, 5, 5])
    np.testing.assert_array_equal(again, [5, 7, 9])


def test_an_initial_value_that_reads_another_variable_is_guarded_as_tf1s():
    """TF1 rewrites such an initial value to read the other variable's
    ``initialized_value()`` (``_try_guard_against_uninitialized_dependencies``): the
    ops between are copied as ``<op>_<scope>`` for the Assign, ``initial_value`` stays
    as built, and the initializer runs before the other's (its initial value) or after
    (its value then).  Names as TF 2.21's."""
    with ds.Graph().as_default():
        w = ds.Variable([[2.0, 1.0], [4.0, 3.0]], name="w")
        l_var = ds.Variable(ds.linalg.lu(w)[0] * 2.0, name="l")
        s = ds.get_variable("s", initializer=ds.log(ds.abs(ds.linalg.diag_part(w))))
        c = ds.Variable(ds.ones([2]) * 3.0, name="c")
        assign_input = l_var.initializer.inputs[1]
        assert (l_var.initial_value.name, assign_input.name) == ("mul:0", "mul_l:0")
        assert [t.name for t in assign_input.op.inputs[0].op.inputs] == ["w/read_l:0"]
        assert c.initializer.inputs[1] is c.initial_value      # reads no variable: as is
        with ds.Session() as sess:
            sess.run([l_var.initializer, s.initializer])       # w not initialized yet
            first = sess.run([l_var, s])
            sess.run(w.initializer)
            sess.run(w.assign([[1.0, 0.0], [0.0, 4.0]]))
            sess.run([l_var.initializer, s.initializer])       # from w's value now
            second = sess.run([l_var, s])
            sess.run(ds.global_variables_initializer())         # in any order
            third = sess.run([l_var, s])
    np.testing.assert_allclose(first[0], [[8.0, 6.0], [1.0, -1.0]])
    np.testing.assert_allclose(first[1], np.log([2.0, 3.0]), rtol=1e-6)
    np.testing.assert_allclose(second[0], [[2.0, 0.0], [0.0, 8.0]])
    np.testing.assert_allclose(second[1], np.log([1.0, 4.0]), rtol=1e-6)
    np.testing.assert_allclose(third[0], first[0])
