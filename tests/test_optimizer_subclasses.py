"""``tf.train.Optimizer`` subclassed through TF1's semi-private API, as research code does.

A user's subclass gets TF's sparse path: for a gradient TF keeps as an IndexedSlices (an
embedding lookup's) ``_apply_sparse_duplicate_indices(IndexedSlices, var)``, which sums
the values of repeated indices and calls the two-argument ``_apply_sparse(grad, var)``;
without ``_apply_sparse`` that is TF's NotImplementedError (devsession's own optimizers
keep their three-argument ``_apply_sparse`` and their dense fallback).  TF's slot and
non-slot helpers: ``_get_or_make_slot``, ``_get_or_make_slot_with_initializer``,
``_create_non_slot_variable``, ``_call_if_callable``.  Values against numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

TABLE = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
IDS = np.array([2, 0, 2], np.int32)
SCALE = np.array([[1.0], [2.0], [3.0]], np.float32)


def lookup_loss():
    """table, loss = sum(scale * table[ids]); d loss / d table[i] = sum of the scales of
    the positions looking up i (row 2: 1 + 3, row 0: 2)."""
    table = ds.Variable(TABLE, name="table")
    return table, ds.reduce_sum(ds.nn.embedding_lookup(table, IDS) * SCALE)


class RowSGD(ds.train.Optimizer):
    """TF1's two-argument ``_apply_sparse``: ``var[indices] -= lr * values``."""

    def __init__(self, lr):
        super().__init__(False, "RowSGD")
        self._lr = lr
        self.seen = []

    def _apply_dense(self, grad, var):
        return ds.assign_sub(var, self._lr * grad)

    def _apply_sparse(self, grad, var):
        self.seen.append(grad)
        return ds.scatter_sub(var, grad.indices, self._lr * grad.values)


def test_a_users_two_argument_apply_sparse_gets_deduplicated_indexed_slices():
    table, loss = lookup_loss()
    opt = RowSGD(0.5)
    train = opt.minimize(loss)
    (grad,) = opt.seen
    assert isinstance(grad, ds.IndexedSlices)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        values, indices, dense_shape = sess.run([grad.values, grad.indices, grad.dense_shape])
        sess.run(train)
        got = sess.run(table)
    np.testing.assert_array_equal(indices, [2, 0])             # unique, in first order
    np.testing.assert_allclose(values, [[4.0] * 3, [2.0] * 3])  # repeated rows summed
    np.testing.assert_array_equal(dense_shape, [4, 3])
    want = TABLE.copy()
    want[2] -= 0.5 * 4.0
    want[0] -= 0.5 * 2.0
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_users_apply_sparse_duplicate_indices_override_takes_the_repeated_ids():
    class Raw(RowSGD):
        def _apply_sparse_duplicate_indices(self, grad, var):
            self.seen.append(grad)
            return ds.scatter_sub(var, grad.indices, self._lr * grad.values)

    table, loss = lookup_loss()
    opt = Raw(1.0)
    train = opt.minimize(loss)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(opt.seen[0].indices), IDS)
        sess.run(train)
        want = TABLE.copy()
        want[2] -= 4.0
        want[0] -= 2.0
        np.testing.assert_allclose(sess.run(table), want, rtol=1e-6)


def test_a_users_subclass_without_apply_sparse_or_apply_dense_raises_as_tf():
    class DenseOnly(ds.train.Optimizer):
        def __init__(self):
            super().__init__(False, "DenseOnly")

        def _apply_dense(self, grad, var):
            return ds.assign_sub(var, grad)

    class Nothing(ds.train.Optimizer):
        def __init__(self):
            super().__init__(False, "Nothing")

    table, loss = lookup_loss()
    with pytest.raises(NotImplementedError):
        DenseOnly().minimize(loss)
    with pytest.raises(NotImplementedError):
        Nothing().minimize(ds.reduce_sum(table))                # a dense gradient
    DenseOnly().minimize(ds.reduce_sum(table))


def test_devsessions_own_sparse_updates_keep_working_in_a_users_subclass():
    class MyMomentum(ds.train.MomentumOptimizer):
        def _prepare(self):
            super()._prepare()

    table, loss = lookup_loss()
    train = MyMomentum(0.1, 0.9).minimize(loss)
    train_gd = ds.train.GradientDescentOptimizer(0.1).minimize(loss)  # dense fallback
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(train)
        sess.run(train_gd)
        want = TABLE.copy()
        want[2] -= 2 * 0.1 * 4.0
        want[0] -= 2 * 0.1 * 2.0
        np.testing.assert_allclose(sess.run(table), want, rtol=1e-6)


def test_a_users_dense_override_of_one_of_devsessions_optimizers_takes_a_sparse_gradient():
    """Subclassing GradientDescentOptimizer for its _apply_dense alone builds for an
    embedding's gradient, which takes GradientDescent's own sparse update (unclipped, as
    TF 2.21 gives it, checked by hand); a dense gradient takes the override.  It is
    Optimizer itself without _apply_sparse that is TF's NotImplementedError."""
    class ClippedGD(ds.train.GradientDescentOptimizer):
        def _apply_dense(self, grad, var):
            return super()._apply_dense(ds.clip_by_value(grad, -3.0, 3.0), var)

    table, loss = lookup_loss()
    sparse_step = ClippedGD(0.1).minimize(loss)
    dense_step = ClippedGD(0.1).minimize(ds.reduce_sum(table * 5.0))
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(sparse_step)
        want = TABLE.copy()
        want[2] -= 0.1 * 4.0
        want[0] -= 0.1 * 2.0
        np.testing.assert_allclose(sess.run(table), want, rtol=1e-6)
        sess.run(dense_step)
        np.testing.assert_allclose(sess.run(table), want - 0.1 * 3.0, rtol=1e-6)


def test_slot_and_non_slot_helpers():
    class Helpers(ds.train.Optimizer):
        def __init__(self):
            super().__init__(False, "Helpers")

        def _create_slots(self, var_list):
            for v in var_list:
                self._get_or_make_slot(v, 2.0 * v.initialized_value(), "double", "Dbl")
                self._get_or_make_slot_with_initializer(
                    v, ds.constant_initializer(0.25), v.shape, v.dtype, "quarter", "Q")
            self._create_non_slot_variable(3.0, "count", colocate_with=var_list[0])

        def _prepare(self):
            self._lr = ds.convert_to_tensor(self._call_if_callable(lambda: 0.5))
            assert self._call_if_callable(0.25) == 0.25

        def _apply_dense(self, grad, var):
            count = self._get_non_slot_variable("count", graph=ds.get_default_graph())
            double = self.get_slot(var, "double")
            return ds.group(ds.assign_sub(var, self._lr * grad * double),
                            ds.assign_add(count, 1.0))

    w = ds.Variable(np.array([1.0, -2.0], np.float32), name="w")
    opt = Helpers()
    train = opt.minimize(ds.reduce_sum(w))
    again = opt._get_or_make_slot(w, ds.zeros_like(w), "double", "Other")
    assert again is opt.get_slot(w, "double")                       # made once
    assert opt.get_slot_names() == ["double", "quarter"]
    assert [v.op.name for v in opt.variables()] == ["count", "w/Dbl", "w/Q"]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.0 - 0.5 * 2.0, -2.0 + 0.5 * 4.0])
        np.testing.assert_allclose(sess.run(opt.get_slot(w, "quarter")), [0.25, 0.25])
        count = opt._get_non_slot_variable("count", ds.get_default_graph())
        assert sess.run(count) == 4.0
    assert opt._get_non_slot_variable("count") is None      # TF's: graph=None is eager's
