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


def test_fed_weights_of_unknown_rank_are_checked_at_run_time(make_session):
    # TF's: with the weights' rank unknown the run checks it, so [3] weights fed for
    # [2, 3] losses are refused though they would multiply row by row
    w = ds.placeholder(ds.float32, None)
    losses = ds.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    loss = ds.losses.compute_weighted_loss(losses, weights=w, reduction=ds.losses.Reduction.SUM)
    sess = make_session()
    assert sess.run(loss, {w: 2.0}) == 30.0
    assert sess.run(loss, {w: [[1.], [0.]]}) == 3.0
    for fed in ([1., 1., 1.], [[[1., 1., 1.]]], np.ones((3, 3))):
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match=r"weights can not be broadcast to values\..*is_scalar=\] \[0\]"):
            sess.run(loss, {w: fed})


def test_losses_of_any_dtype_are_reduced_in_float32_and_cast_back(make_session):
    # TF1's casts (TF 2.21 printed these dtypes and values): the pairwise-style losses
    # cast predictions and labels to float32; compute_weighted_loss reduces in float32
    # and casts the result back to the losses' dtype
    z = np.array([[1, 0], [0, 1]], np.int32)
    log = ds.losses.log_loss(z, ds.constant(z))                       # integer predictions
    wide = ds.losses.mean_squared_error(z.astype(np.float64), ds.constant([[.5, 0], [0, 1]],
                                                                          ds.float64))
    counts = ds.losses.compute_weighted_loss(ds.constant([1, 2, 4]))
    half = ds.losses.compute_weighted_loss(ds.constant([60000., 60000.], ds.float16))
    assert [t.dtype for t in (log, wide, counts, half)] == \
        [ds.float32, ds.float32, ds.int32, ds.float16]
    got = make_session().run([log, wide, counts, half])
    np.testing.assert_allclose(got[0], -np.log(1 + 1e-7), atol=1e-7)   # TF: -1.1920929e-07
    assert got[1] == 0.0625 and got[2] == 2 and got[3] == 60000.0   # no float16 overflow


def test_one_hot_float_labels_to_sparse_cross_entropy_are_tfs_rank_error():
    # TF checks the labels' rank before their dtype: the usual mistake (one-hot labels
    # to the sparse loss) is its ValueError, not a TypeError
    logits = ds.placeholder(ds.float32, [None, 3])
    onehot = ds.placeholder(ds.float32, [None, 3])
    with pytest.raises(ValueError, match="Rank mismatch: Rank of labels"):
        ds.losses.sparse_softmax_cross_entropy(onehot, logits)
    with pytest.raises(TypeError, match="must be int32 or int64 class indices"):
        ds.nn.sparse_softmax_cross_entropy_with_logits(labels=ds.placeholder(ds.float32, [None]),
                                                       logits=logits)


def test_label_smoothing_counts_classes_the_run_knows(make_session):
    # TF1's: num_classes is the labels' shape at run time, so placeholders of unknown
    # classes build; a negative smoothing is no smoothing (TF1's `label_smoothing > 0`)
    labels, logits = ds.placeholder(ds.float32, [None, None]), ds.placeholder(ds.float32)
    smoothed = ds.losses.softmax_cross_entropy(labels, logits, label_smoothing=0.3)
    negative = ds.losses.sigmoid_cross_entropy(labels, logits, label_smoothing=-0.5)
    onehot = np.eye(3, dtype=np.float32)[[1, 2]]
    soft = onehot * 0.7 + 0.1
    log_softmax = LOGITS - np.log(np.exp(LOGITS).sum(1, keepdims=True))
    got = make_session().run([smoothed, negative], {labels: onehot, logits: LOGITS})
    np.testing.assert_allclose(got[0], -(soft * log_softmax).sum(1).mean(), rtol=1e-6)
    sigmoid_xent = np.maximum(LOGITS, 0) - LOGITS * onehot + np.log1p(np.exp(-abs(LOGITS)))
    np.testing.assert_allclose(got[1], sigmoid_xent.mean(), rtol=1e-6)


def test_softmax_and_cosine_argument_errors_are_tf1s():
    with pytest.raises(ValueError, match=r"^Shapes \(2, 3\) and \(2, 4\) are incompatible"):
        ds.losses.softmax_cross_entropy(np.ones((2, 4), np.float32), LOGITS)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'dim' and 'axis'\.$"):
        ds.losses.cosine_distance(LOGITS, LOGITS, axis=1, dim=1)


def test_no_regularization_loss_is_an_unnamed_zero(make_session):
    zero = ds.losses.get_regularization_loss(scope="nothing")
    assert zero.op.type == "Const" and zero.op.name == "Const"      # TF1's constant(0.0)
    assert make_session().run(zero) == 0.0


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


# --- 4. the metrics' value and update ops have TF's names -----------------------------------

def test_mean_iou_update_is_the_assign_add_named_as_tfs(make_session):
    miou, update = ds.metrics.mean_iou(ds.constant([0, 1, 2, 1]), ds.constant([0, 2, 2, 1]), 3)
    assert update.name == "mean_iou/AssignAdd:0" and update.shape.as_list() == [3, 3]
    assert miou.name == "mean_iou/Select_1:0"
    sess = make_session()
    sess.run(ds.local_variables_initializer())
    np.testing.assert_array_equal(sess.run(update), [[1, 0, 0], [0, 1, 1], [0, 0, 1]])
    # IoU per class: 1/1, 1/2, 1/2
    np.testing.assert_allclose(sess.run(miou), (1 + .5 + .5) / 3, rtol=1e-6)


def test_counting_metrics_are_named_as_tfs(make_session):
    labels = ds.constant([False, True, False, True])
    scores = ds.constant([0.1, 0.7, 0.4, 0.9])
    made = {"tp": ds.metrics.true_positives(labels, scores > 0.5),
            "fn": ds.metrics.false_negatives(labels, scores > 0.8),
            "tp_at": ds.metrics.true_positives_at_thresholds(labels, scores, [0.5, 0.8]),
            "fp_at": ds.metrics.false_positives_at_thresholds(labels, scores, [0.3]),
            "sens": ds.metrics.sensitivity_at_specificity(labels, scores, 0.5),
            "spec": ds.metrics.specificity_at_sensitivity(labels, scores, 0.5)}
    names = {k: (v.name, u.name) for k, (v, u) in made.items()}
    assert names == {
        "tp": ("true_positives/Identity:0", "true_positives/AssignAdd:0"),
        "fn": ("false_negatives/Identity:0", "false_negatives/AssignAdd:0"),
        "tp_at": ("true_positives_1/Identity:0", "true_positives_1/AssignAdd:0"),
        "fp_at": ("false_positives/Identity:0", "false_positives/AssignAdd:0"),
        "sens": ("sensitivity_at_specificity/value:0", "sensitivity_at_specificity/update_op:0"),
        "spec": ("specificity_at_sensitivity/value:0", "specificity_at_sensitivity/update_op:0")}
    sess = make_session()
    sess.run(ds.local_variables_initializer())
    got = sess.run({k: u for k, (_, u) in made.items()})
    assert got["tp"] == 2.0 and got["fn"] == 1.0 and got["fp_at"].tolist() == [1.0]
    assert got["tp_at"].tolist() == [2.0, 1.0]
    np.testing.assert_allclose([got["sens"], got["spec"]], [1.0, 1.0], rtol=1e-5)


def test_metrics_at_k_are_named_as_tfs(make_session):
    labels = ds.constant([[1], [2], [0], [1]], ds.int64)
    scores = ds.constant([[.1, .5, .4], [.3, .2, .5], [.2, .7, .1], [.6, .3, .1]])
    top = ds.constant([[1, 2]] * 4, ds.int64)
    made = {"p": ds.metrics.precision_at_k(labels, scores, 2),
            "r": ds.metrics.recall_at_k(labels, scores, 2),
            "pt": ds.metrics.precision_at_top_k(labels, top),
            "ap": ds.metrics.average_precision_at_k(labels, scores, 2)}
    assert {k: (v.name, u.name) for k, (v, u) in made.items()} == {
        "p": ("precision_at_2:0", "precision_at_2/update:0"),
        "r": ("recall_at_2:0", "recall_at_2/update:0"),
        "pt": ("precision_at_k:0", "precision_at_k/update:0"),
        "ap": ("average_precision_at_2/mean:0", "average_precision_at_2:0")}
    assert [v.op.name for v in ds.local_variables()][:2] == [
        "precision_at_2/true_positive_at_2", "precision_at_2/false_positive_at_2"]
    sess = make_session()
    sess.run(ds.local_variables_initializer())
    got = sess.run({k: u for k, (_, u) in made.items()})
    # top 2 of each row: {1, 2}, {2, 0}, {1, 0}, {0, 1}; labels 1, 2, 0, 1 all among them
    assert got["p"] == 0.5 and got["r"] == 1.0 and got["pt"] == 3 / 8      # [1, 2] has 1, 2, -, 1
    np.testing.assert_allclose(got["ap"], (1 + 1 + 0.5 + 0.5) / 4)


def test_mean_cosine_distance_subtracts_as_tf(make_session):
    x = ds.constant([[0.6, 0.8], [1.0, 0.0]])
    value, update = ds.metrics.mean_cosine_distance(x, x, 1)
    assert value.op.type == update.op.type == "Sub"
    assert (value.name, update.name) == ("Sub:0", "Sub_1:0")
    sess = make_session()
    sess.run(ds.local_variables_initializer())
    np.testing.assert_allclose(sess.run(update), 0.0, atol=1e-6)


# --- 5. embedding_lookup_sparse with weights: a row weighing 0 is 0 (TF 2.21's div_no_nan) --

def test_weighted_embedding_lookup_sparse_gives_zero_for_rows_weighing_nothing(make_session):
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    params = ds.constant(table)
    indices = [[0, 0], [0, 1], [2, 0], [3, 0]]       # row 1 empty; row 3 weighs 0
    ids = ds.SparseTensor(indices, ds.constant([1, 3, 0, 2], ds.int64), [4, 2])
    weights = ds.SparseTensor(indices, [1., 3., 2., 0.], [4, 2])
    out = {c: ds.nn.embedding_lookup_sparse(params, ids, weights, combiner=c)
           for c in ("mean", "sqrtn", "sum")}
    assert out["mean"].name == "embedding_lookup_sparse:0"
    grad = ds.gradients(out["mean"], params)[0]
    got, got_grad = make_session().run([out, ds.convert_to_tensor(grad)])
    row0 = table[1] * 1 + table[3] * 3
    want_mean = np.array([row0 / 4, np.zeros(3), table[0], np.zeros(3)], np.float32)
    want_sqrtn = np.array([row0 / np.sqrt(10), np.zeros(3), table[0], np.zeros(3)])
    np.testing.assert_allclose(got["mean"], want_mean, rtol=1e-6)     # TF: [[7.5 8.5 9.5]
    np.testing.assert_allclose(got["sqrtn"], want_sqrtn, rtol=1e-6)   # [0 0 0] [0 1 2] [0 0 0]]
    np.testing.assert_allclose(got["sum"], [row0, np.zeros(3), 2 * table[0], np.zeros(3)])
    np.testing.assert_allclose(got_grad, np.repeat([[1.], [.25], [0.], [.75]], 3, 1))


# --- 6. schedules, layers.dropout and norm name their result as TF's -----------------------

def _schedules(step):
    train = ds.train
    return {"exp": train.exponential_decay(0.1, step, 3, 0.5),
            "exp_named": train.exponential_decay(0.1, step, 3, 0.5, staircase=True, name="lr"),
            "poly": train.polynomial_decay(0.1, step, 6),
            "poly_cycle": train.polynomial_decay(0.1, step, 6, cycle=True, power=2.),
            "nat": train.natural_exp_decay(0.1, step, 2, 0.5),
            "inv": train.inverse_time_decay(0.1, step, 2, 0.5),
            "cos": train.cosine_decay(0.1, step, 6, alpha=0.1),
            "cosr": train.cosine_decay_restarts(0.1, step, 3),
            "lincos": train.linear_cosine_decay(0.1, step, 6),
            "noisy": train.noisy_linear_cosine_decay(0.1, step, 6)}


def test_learning_rate_schedules_are_named_as_tfs():
    step = ds.train.get_or_create_global_step()
    names = {k: v.name for k, v in _schedules(step).items()}
    assert names == {"exp": "ExponentialDecay:0", "exp_named": "lr:0",
                     "poly": "PolynomialDecay:0", "poly_cycle": "PolynomialDecay_1:0",
                     "nat": "ExponentialDecay_1:0", "inv": "InverseTimeDecay:0",
                     "cos": "CosineDecay/Mul_3:0", "cosr": "SGDRDecay:0",
                     "lincos": "LinearCosineDecay:0", "noisy": "NoisyLinearCosineDecay:0"}


def test_learning_rate_schedules_keep_their_values(make_session):
    step = ds.placeholder(ds.int64, [])
    rates = _schedules(step)
    del rates["noisy"]
    sess = make_session()
    for s in (0, 1, 4, 7):
        got = sess.run(rates, {step: s})
        cosine = 0.5 * (1 + np.cos(np.pi * min(s, 6) / 6))
        fraction = s / 3                 # SGDR with t_mul 2: periods of 3, 6, 12 steps
        restart = np.floor(np.log(1 - fraction * (1 - 2.)) / np.log(2.))
        done = (fraction - (1 - 2. ** restart) / (1 - 2.)) / 2. ** restart
        periods = max(1, np.ceil(s / 6))
        want = {"exp": 0.1 * 0.5 ** (s / 3), "exp_named": 0.1 * 0.5 ** np.floor(s / 3),
                "poly": (0.1 - 1e-4) * (1 - min(s, 6) / 6) + 1e-4,
                "poly_cycle": (0.1 - 1e-4) * (1 - s / (6 * periods)) ** 2 + 1e-4,
                "nat": 0.1 * np.exp(-0.5 * s / 2), "inv": 0.1 / (1 + 0.5 * s / 2),
                "cos": 0.1 * (0.9 * cosine + 0.1),
                "cosr": 0.1 * 0.5 * (1 + np.cos(np.pi * done)),
                "lincos": 0.1 * ((6 - min(s, 6)) / 6 * cosine + 0.001)}
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=2e-6, atol=1e-8, err_msg=key)


def test_layers_dropout_builds_in_its_scope_as_tfs(make_session):
    x = ds.placeholder(ds.float32, [None, 3])
    kept = ds.layers.dropout(x, 0.5, training=False)
    named = ds.layers.dropout(x, 0.5, training=False, name="drop")
    const = ds.layers.dropout(x, 0.5, training=ds.constant(False))
    dropped = ds.layers.dropout(x, 0.5, training=True)
    layer = ds.layers.Dropout(0.5)
    assert (kept.name, named.name, const.name) == \
        ("dropout/Identity:0", "drop/Identity:0", "dropout_1/Identity:0")
    assert dropped.name.startswith("dropout_2/dropout/")
    assert layer(x).name == "dropout_3/Identity:0"          # the layer's own scope, once
    ones = np.ones((2, 3), np.float32)
    got_kept, got_dropped = make_session().run([kept, dropped], {x: ones})
    np.testing.assert_array_equal(got_kept, ones)
    assert set(np.unique(got_dropped)) <= {0.0, 2.0}


def test_norm_squeezes_the_kept_axes_as_tf(make_session):
    x = ds.placeholder(ds.float32, [2, 3, 4])
    rows = ds.norm(x, axis=-1)
    matrix = ds.norm(x, ord=1, axis=[-2, -1])
    whole = ds.norm(x)
    kept = ds.norm(x, keepdims=True)
    assert [(t.name, t.shape.as_list()) for t in (rows, matrix, whole, kept)] == [
        ("norm/Squeeze:0", [2, 3]), ("norm_1/Squeeze:0", [2]), ("norm_2/Squeeze:0", []),
        ("norm_3/Sqrt:0", [1, 1, 1])]
    value = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    got = make_session().run([rows, matrix, whole, kept], {x: value})
    np.testing.assert_allclose(got[0], np.linalg.norm(value, axis=-1), rtol=1e-6)
    np.testing.assert_allclose(got[1], np.abs(value).sum(axis=1).max(axis=-1), rtol=1e-6)
    np.testing.assert_allclose(got[2], np.linalg.norm(value), rtol=1e-6)
    np.testing.assert_allclose(got[3], np.linalg.norm(value).reshape(1, 1, 1), rtol=1e-6)


# --- a control dependency on a fed placeholder is met by the feed (metrics.mean of one) -----

def test_the_mean_of_a_fed_placeholder_updates(make_session):
    values = ds.placeholder(ds.float32, [None])          # mean's count waits on the values
    mean, update = ds.metrics.mean(values)
    sess = make_session()
    sess.run(ds.local_variables_initializer())
    assert sess.run(update, {values: [1., 2., 3.]}) == 2.0
    assert sess.run(update, {values: [6.]}) == 3.0 and sess.run(mean) == 3.0
