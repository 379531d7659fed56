"""TF1's conditional accumulators (ds.ConditionalAccumulator,
ds.SparseConditionalAccumulator): their ops as TF1 builds them, averaging, stale
gradients dropped, a take waiting for its gradients across threads, and TF's errors.
Every blocking run here has a deadline and every thread a join timeout: no test can
hang."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import devsession as ds
from devsession.errors import (CancelledError, DeadlineExceededError, InvalidArgumentError,
                               NotFoundError)
from devsession.runtime.accumulators import Accumulator, SparseAccumulator
from concurrency import in_thread, still_blocked

SHORT = ds.RunOptions(timeout_s=0.2)       # for a run that must block, then time out


@pytest.fixture
def graph():
    g = ds.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def sess(graph):
    # every run of this session gives up after 10 s, so a broken wait fails, not hangs
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as s:
        yield s



class Pusher:
    """An accumulator with a fed gradient and local step: ``push(value, step)``."""

    def __init__(self, sess, acc, shape=None):
        self.sess, self.acc = sess, acc
        self.grad = ds.placeholder(acc.dtype, shape)
        self.step = ds.placeholder(ds.int64, [])
        self.apply = acc.apply_grad(self.grad, local_step=self.step)
        self.count = acc.num_accumulated()

    def push(self, value, step=0):
        self.sess.run(self.apply, {self.grad: value, self.step: step})

    def num_accumulated(self) -> int:
        return int(self.sess.run(self.count))


# --- building ------------------------------------------------------------------------------

def test_ops_are_tf1s(graph):
    acc = ds.ConditionalAccumulator(ds.float32, shape=[2, 3], shared_name="w/grad_accum")
    ref = acc.accumulator_ref
    assert (acc.name, ref.op.type, ref.dtype, ref.shape, acc.dtype) == (
        "conditional_accumulator", "ConditionalAccumulator", ds.string, (), ds.float32)
    assert (ref.op.attrs["shared_name"], ref.op.attrs["reduction_type"],
            ref.op.attrs["shape"].as_list()) == ("w/grad_accum", "MEAN", [2, 3])
    push = acc.apply_grad(np.ones((2, 3), np.float32), local_step=3)
    assert (push.type, push.name, [t.dtype for t in push.inputs]) == (
        "AccumulatorApplyGradient", "AccumulatorApplyGradient",
        [ds.string, ds.int64, ds.float32])
    assert push.inputs[1].op.type == "Cast"             # a Python int is int32, as TF1's
    take = acc.take_grad(2)
    assert (take.op.type, take.dtype, take.shape.as_list()) == (
        "AccumulatorTakeGradient", ds.float32, [2, 3])
    assert acc.num_accumulated().name == "conditional_accumulator_NumAccumulated:0"
    assert acc.set_global_step(ds.constant(4, ds.int64)).type == "AccumulatorSetGlobalStep"
    sparse = ds.sparse.SparseConditionalAccumulator(ds.float64, shape=[5, 2],
                                                    reduction_type="SUM")
    assert (sparse.name, sparse.accumulator_ref.op.type) == (
        "sparse_conditional_accumulator", "SparseConditionalAccumulator")
    apply = sparse.apply_grad([1, 3], np.ones((2, 2)), grad_shape=[5, 2])
    assert (apply.type, apply.attrs["has_known_shape"],
            [t.dtype for t in apply.inputs]) == (
        "SparseAccumulatorApplyGradient", True,
        [ds.string, ds.int64, ds.int64, ds.float64, ds.int64])
    indices, values, shape = sparse.take_grad(1)
    assert (indices.dtype, values.dtype, shape.dtype) == (ds.int64, ds.float64, ds.int64)
    assert sparse.take_grad(1)._fields == ("indices", "values", "shape")


def test_building_errors_are_tf1s(graph):
    acc = ds.ConditionalAccumulator(ds.float32, shape=[2])
    with pytest.raises(ValueError, match="incompatible"):
        acc.apply_grad(np.ones(3, np.float32))
    with pytest.raises(TypeError):
        acc.apply_grad(ds.constant([1, 2]))              # int32 is not float32
    with pytest.raises(ValueError, match="float16, float32 or float64"):
        ds.ConditionalAccumulator(ds.int32)
    with pytest.raises(ValueError, match="reduction_type"):
        ds.ConditionalAccumulator(ds.float32, reduction_type="MAX")


# --- averaging and the global step -----------------------------------------------------------

def test_take_averages_every_gradient_in_then_starts_afresh(graph, sess):
    acc = ds.ConditionalAccumulator(ds.float32, shape=[2])
    pusher = Pusher(sess, acc, [2])
    take = acc.take_grad(2)
    for value in ([1.0, 2.0], [3.0, 4.0], [5.0, 9.0]):
        pusher.push(value)
    assert pusher.num_accumulated() == 3
    np.testing.assert_allclose(sess.run(take), [3.0, 5.0])      # all three, not two
    assert pusher.num_accumulated() == 0
    pusher.push([2.0, 2.0], step=1)
    pusher.push([4.0, 0.0], step=1)
    np.testing.assert_allclose(sess.run(take), [3.0, 1.0])      # the old sum is gone


def test_sum_reduction_and_the_dtype_kept(graph, sess):
    acc = ds.ConditionalAccumulator(ds.float64, reduction_type="SUM")
    pusher = Pusher(sess, acc)
    take = acc.take_grad(1)
    pusher.push(np.array([[0.1, 0.2]]))
    pusher.push(np.array([[0.3, 0.4]]))
    got = sess.run(take)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, [[0.4, 0.6]], rtol=1e-15)


def test_stale_gradients_are_dropped_unchecked(graph, sess):
    acc = ds.ConditionalAccumulator(ds.float32, shape=[2])
    pusher = Pusher(sess, acc)
    take = acc.take_grad(1)
    pusher.push([1.0, 1.0], step=0)
    sess.run(take)                                  # the take moved the global step to 1
    pusher.push([5.0, 5.0], step=0)                 # stale
    pusher.push([9.0, 9.0, 9.0], step=0)            # stale: not even its shape is checked
    assert pusher.num_accumulated() == 0
    pusher.push([2.0, 4.0], step=1)
    pusher.push([4.0, 6.0], step=7)                 # a step ahead is fresh
    np.testing.assert_allclose(sess.run(take), [3.0, 5.0])
    sess.run(acc.set_global_step(ds.constant(5, ds.int64)))
    pusher.push([1.0, 1.0], step=4)
    assert pusher.num_accumulated() == 0
    pusher.push([1.0, 1.0], step=5)
    assert pusher.num_accumulated() == 1


def test_set_global_step_may_go_back(graph, sess, caplog):
    acc = ds.ConditionalAccumulator(ds.float32)
    pusher = Pusher(sess, acc)
    sess.run(acc.set_global_step(3))
    with caplog.at_level("WARNING", logger="devsession"):
        sess.run(acc.set_global_step(1))
    assert "smaller value" in caplog.text
    pusher.push([1.0], step=1)
    assert pusher.num_accumulated() == 1


# --- waiting -----------------------------------------------------------------------------------

def test_take_waits_for_enough_gradients_from_other_threads(graph, sess):
    acc = ds.ConditionalAccumulator(ds.float32, shape=[])
    pusher = Pusher(sess, acc)
    take = acc.take_grad(2)
    taken = in_thread(lambda: sess.run(take))
    assert still_blocked(taken)
    pusher.push(2.0)
    assert still_blocked(taken)
    pusher.push(6.0)
    assert taken() == 4.0


def test_a_blocked_take_ends_at_its_deadline_and_with_its_session(graph):
    acc = ds.ConditionalAccumulator(ds.float32, shape=[])
    take = acc.take_grad(1)
    sess = ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10))
    with pytest.raises(DeadlineExceededError) as info:
        sess.run(take, options=SHORT)
    assert info.value.node_name == take.op.name
    taken = in_thread(lambda: sess.run(take))
    assert still_blocked(taken)
    sess.close()
    with pytest.raises(CancelledError):
        taken()


def test_takers_are_served_in_arrival_order():
    acc = Accumulator("acc", np.float32, ())
    order, done = [], threading.Event()

    def take(label, needed):
        acc.take(needed, lambda: None, "take")
        order.append(label)
        if len(order) == 2:
            done.set()

    first = threading.Thread(target=take, args=("needs two", 2), daemon=True)
    first.start()
    while not acc._takers:                 # the first taker is in line
        first.join(0.01)
    second = threading.Thread(target=take, args=("needs one", 1), daemon=True)
    second.start()
    acc.apply(0, np.float32(1.0), "push")  # enough for the second, which waits its turn
    first.join(0.2)
    assert order == [] and acc.num_accumulated() == 1
    acc.apply(0, np.float32(1.0), "push")
    first.join(5)
    assert order == ["needs two"] and second.is_alive()
    acc.apply(1, np.float32(1.0), "push")
    assert done.wait(5), order
    assert order == ["needs two", "needs one"]


# --- errors --------------------------------------------------------------------------------------

def test_run_time_errors_are_tf1s(graph, sess):
    acc = ds.ConditionalAccumulator(ds.float32, shape=[2])
    pusher = Pusher(sess, acc)
    with pytest.raises(InvalidArgumentError,
                       match=r"^Shape mismatch: expected \[2\], got \[3\]") as info:
        pusher.push([1.0, 2.0, 3.0])
    assert info.value.node_name == pusher.apply.name
    with pytest.raises(InvalidArgumentError,
                       match="Argument num_required must be positive, but was 0"):
        sess.run(acc.take_grad(0))
    loose = ds.ConditionalAccumulator(ds.float32, shape=[None])
    loose_pusher = Pusher(sess, loose)
    loose_pusher.push([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match=r"Shape mismatch: expected \[2\], got \[3\]"):
        loose_pusher.push([1.0, 2.0, 3.0])        # fits [?], not the gradient already in
    partial = Pusher(sess, ds.ConditionalAccumulator(ds.float32, shape=[None, 2]))
    with pytest.raises(InvalidArgumentError, match=r"expected \[\?,2\], got \[1,3\]"):
        partial.push([[1.0, 2.0, 3.0]])
    steps = ds.placeholder(ds.int64)                        # of unknown rank
    with pytest.raises(InvalidArgumentError, match=r"Argument local_step must be scalar, "
                                                   r"but had bad shape \[2\]"):
        sess.run(acc.apply_grad([1.0, 2.0], local_step=steps), {steps: [0, 0]})


def test_shared_names_share_one_accumulator_of_one_kind(graph, sess):
    one = ds.ConditionalAccumulator(ds.float32, shape=[1], shared_name="shared")
    two = ds.ConditionalAccumulator(ds.float32, shape=[1], shared_name="shared")
    Pusher(sess, one).push([2.0])
    assert sess.run(two.num_accumulated()) == 1
    other = ds.ConditionalAccumulator(ds.float64, shape=[1], shared_name="shared")
    with pytest.raises(InvalidArgumentError, match="Shared accumulator 'shared'"):
        sess.run(other.num_accumulated())
    fresh = ds.ConditionalAccumulator(ds.float32, shape=[1])
    with ds.Session(graph=graph) as another:
        with pytest.raises(NotFoundError):                    # made by another session
            another.run(fresh.num_accumulated(), {fresh.accumulator_ref: b"/shared"})


# --- sparse ------------------------------------------------------------------------------------

def test_sparse_rows_are_averaged_over_the_gradients_that_hold_them(graph, sess):
    acc = ds.SparseConditionalAccumulator(ds.float32, shape=[6, 2])
    idx = ds.placeholder(ds.int64, [None])
    vals = ds.placeholder(ds.float32, [None, 2])
    push = acc.apply_grad(idx, vals, grad_shape=[6, 2])
    take = acc.take_grad(2)
    sess.run(push, {idx: [4, 1], vals: [[4.0, 4.0], [1.0, 2.0]]})
    sess.run(push, {idx: [1, 0, 0], vals: [[3.0, 6.0], [1.0, 1.0], [2.0, 2.0]]})
    indices, values, shape = sess.run(take)
    np.testing.assert_array_equal(indices, [0, 1, 4])
    # row 0: one gradient (its two entries add up); row 1: the mean of two; row 4: one
    np.testing.assert_allclose(values, [[3.0, 3.0], [2.0, 4.0], [4.0, 4.0]])
    np.testing.assert_array_equal(shape, [6, 2])
    assert sess.run(acc.num_accumulated()) == 0


def test_sparse_shape_of_unknown_first_dimension_and_sum():
    acc = SparseAccumulator("acc", np.float32, (None, 3), "SUM")
    acc.apply(0, ([2], np.ones((1, 3)), None), "push")
    acc.apply(0, ([2], np.ones((1, 3)), None), "push")
    indices, values, shape = acc.take(2, lambda: None, "take")
    assert (indices.tolist(), values.tolist(), shape.tolist()) == (
        [2], [[2.0, 2.0, 2.0]], [-1, 3])


@pytest.mark.parametrize("indices, values, dense_shape, pattern", [
    ([7], np.ones((1, 2)), None,
     "index of slice 0 exceeded limits of shape; index is 7 exceeded 6"),
    ([1], np.ones((1, 3)), None, "expected values dim 1 to be 2, got 3"),
    ([1], np.ones((1, 2)), [6, 3], "expected shape dim 1 to be 2, got 3"),
    ([1], np.ones((1, 2)), [6], "expected shape rank at least 2, got 1"),
    ([1], np.ones(1), None, "expected values rank at least 2, got 1"),
    ([1, 2], np.ones((1, 2)), None, "Expected 2 non-empty input values, got 1"),
    ([[1]], np.ones((1, 2)), None, r"Input indices should be vector but received shape: "
                                   r"\[1,1\]"),
])
def test_sparse_errors_are_tf1s(indices, values, dense_shape, pattern):
    acc = SparseAccumulator("acc", np.float32, (6, 2))
    with pytest.raises(InvalidArgumentError, match=pattern) as info:
        acc.apply(0, (indices, values, dense_shape), "push")
    assert info.value.node_name == "push"
    assert acc.num_accumulated() == 0


def test_sparse_values_must_match_the_rows_already_in():
    acc = SparseAccumulator("acc", np.float32, None)
    acc.apply(0, ([0], np.ones((1, 2)), None), "push")
    with pytest.raises(InvalidArgumentError, match="expected values dim 1 to be 2, got 4"):
        acc.apply(0, ([1], np.ones((1, 4)), None), "push")
    with pytest.raises(InvalidArgumentError, match="expected values rank 2, got 3"):
        acc.apply(0, ([1], np.ones((1, 2, 1)), None), "push")
