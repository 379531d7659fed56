"""Audit fixes in ``ds.losses``, ``ds.metrics``, ``ds.confusion_matrix``, the
learning-rate schedules and a few op names, each checked against TF 2.21's behaviour
(values computed here with numpy and equal to what TF 2.21 gave on the same programs;
names and static shapes as TF 2.21 printed them).  TF is not a test dependency.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

LOGITS = np.array([[1., 2., 0.], [0., 1., 3.]], np.float32)


def xentropy(logits, labels):
    """Per-example softmax cross entropy, in numpy."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_softmax[np.arange(len(labels)), labels]


# --- 1. sparse_softmax_cross_entropy squeezes [batch, 1] labels and weights -----------------

def test_sparse_softmax_cross_entropy_squeezes_batch_by_1_weights(make_session):
    weights = ds.constant([[1.], [.5]])
    per_example = ds.losses.sparse_softmax_cross_entropy(
        ds.constant([1, 2]), LOGITS, weights=weights, reduction=ds.losses.Reduction.NONE)
    mean = ds.losses.sparse_softmax_cross_entropy(ds.constant([1, 2]), LOGITS, weights=weights)
    assert per_example.shape.as_list() == [2] and mean.shape.as_list() == []
    expected = xentropy(LOGITS, [1, 2]) * [1., .5]      # TF: [0.40760595, 0.08492302]
    got, got_mean = make_session().run([per_example, mean])
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(got, [0.40760595, 0.08492302], rtol=1e-6)
    np.testing.assert_allclose(got_mean, expected.sum() / 2, rtol=1e-6)   # TF: 0.24626449


def test_sparse_softmax_cross_entropy_squeezes_batch_by_1_labels(make_session):
    loss = ds.losses.sparse_softmax_cross_entropy(ds.constant([[1], [2]]), LOGITS)
    got = make_session().run(loss)
    np.testing.assert_allclose(got, xentropy(LOGITS, [1, 2]).mean(), rtol=1e-6)  # TF: 0.288726


# --- 2. compute_weighted_loss asserts the weights broadcast as TF's assert_broadcastable ----

def test_weights_of_another_rank_are_a_value_error_at_build():
    p = ds.placeholder(ds.float32, [None, 3])
    with pytest.raises(ValueError, match=r"weights can not be broadcast to values\. "
                                         r"values\.rank=2\. weights\.rank=1\. "
                                         r"values\.shape=\(\?, 3\)\. weights\.shape=\(3,\)"):
        ds.losses.absolute_difference(p, p * 2., weights=ds.constant([0., 1., 2.]))


def test_static_weights_mismatching_a_dimension_are_a_value_error_at_build():
    c = ds.constant(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"Mismatch at dim 1\. values\.shape=\[2 3\], "
                                         r"weights\.shape=\[1 2\]"):
        ds.losses.absolute_difference(c, c * 2., weights=ds.constant([[1., 2.]]))


def test_fed_weights_are_checked_at_run_time(make_session):
    p = ds.placeholder(ds.float32, [None, 3])
    w = ds.placeholder(ds.float32, [None, None])
    loss = ds.losses.absolute_difference(p, p * 2., weights=w,
                                         reduction=ds.losses.Reduction.NONE)
    sess = make_session()
    ones = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(sess.run(loss, {p: ones, w: [[1.], [2.]]}),
                                  [[1.] * 3, [2.] * 3])
    np.testing.assert_array_equal(sess.run(loss, {p: ones, w: [[1., 2., 3.]]}), [[1., 2., 3.]] * 2)
    with pytest.raises(ds.errors.InvalidArgumentError,
                       match=r"weights can not be broadcast to values\..*\[4 3\]"):
        sess.run(loss, {p: ones, w: [[1., 2., 3.]] * 4})


def test_fed_weights_wider_than_the_losses_are_refused_though_they_broadcast(make_session):
    p = ds.placeholder(ds.float32, [None, None])
    w = ds.placeholder(ds.float32, [None, None])
    loss = ds.losses.absolute_difference(p, p * 2., weights=w)
    with pytest.raises(ds.errors.InvalidArgumentError, match="can not be broadcast"):
        make_session().run(loss, {p: np.ones((2, 1)), w: np.ones((2, 3))})


# --- 3. confusion_matrix is TF's ScatterNd with a static (n, n) shape ------------------------

def test_confusion_matrix_has_tfs_name_and_static_shape(make_session):
    matrix = ds.confusion_matrix([0, 1, 2, 2], [0, 2, 2, 1], num_classes=3)
    of_constant = ds.confusion_matrix([0, 1, 2, 2], [0, 2, 2, 1], num_classes=ds.constant(3))
    found = ds.confusion_matrix([0, 1, 2, 2], [0, 2, 2, 1])
    fed = ds.confusion_matrix([0, 1], [0, 1], num_classes=ds.placeholder(ds.int32, []))
    assert (matrix.name, matrix.shape.as_list()) == ("confusion_matrix/ScatterNd:0", [3, 3])
    assert (of_constant.name, of_constant.shape.as_list()) == \
        ("confusion_matrix_1/ScatterNd:0", [3, 3])
    assert found.shape.as_list() == [3, 3] and fed.shape.as_list() == [None, None]
    want = np.zeros((3, 3), np.int32)
    np.add.at(want, ([0, 1, 2, 2], [0, 2, 2, 1]), 1)
    got, got_found = make_session().run([matrix, found])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_found, want)


def test_confusion_matrix_squeezes_batch_by_1_ids_and_checks_weights_shape(make_session):
    matrix = ds.confusion_matrix([[0], [1]], [0, 1], num_classes=2)
    assert matrix.shape.as_list() == [2, 2]
    np.testing.assert_array_equal(make_session().run(matrix), np.eye(2))
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(2, 1\) are incompatible"):
        ds.confusion_matrix([0, 1], [0, 1], num_classes=2, weights=[[1.], [2.]])
