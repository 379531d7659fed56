"""``ds.metrics``: TF1's streaming metrics against numpy over several batches, their
local variables (reset by ``local_variables_initializer``), names and collections.
Beside TF 2.21 the names and every value came out the same (TF is not a test
dependency)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

F32 = np.float32


def test_streaming_metrics_accumulate_over_batches(make_session, rng):
    batches = [(rng.integers(0, 3, 8), rng.integers(0, 3, 8), rng.random(8).astype(F32))
               for _ in range(3)]
    labels = ds.placeholder(ds.int64, (None,))
    predictions = ds.placeholder(ds.int64, (None,))
    weights = ds.placeholder(ds.float32, (None,))
    metrics = {
        "accuracy": ds.metrics.accuracy(labels, predictions),
        "weighted accuracy": ds.metrics.accuracy(labels, predictions, weights=weights),
        "mean": ds.metrics.mean(weights),
        "mse": ds.metrics.mean_squared_error(labels, predictions),
        "mae": ds.metrics.mean_absolute_error(labels, predictions, weights=weights),
    }
    sess = make_session()
    sess.run(ds.local_variables_initializer())
    assert sess.run({k: v for k, (v, _) in metrics.items()}) == {k: 0.0 for k in metrics}
    for k, (a, b, w) in enumerate(batches, 1):
        got = sess.run({k: op for k, (_, op) in metrics.items()},
                       {labels: a, predictions: b, weights: w})
        seen = batches[:k]
        la, pr, we = (np.concatenate([s[i] for s in seen]) for i in range(3))
        want = {"accuracy": np.mean(la == pr),
                "weighted accuracy": np.sum((la == pr) * we) / np.sum(we),
                "mean": np.mean(we), "mse": np.mean((la - pr) ** 2.0),
                "mae": np.sum(np.abs(la - pr) * we) / np.sum(we)}
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-5, err_msg=key)
    values = sess.run({k: v for k, (v, _) in metrics.items()})
    np.testing.assert_allclose(values["accuracy"], want["accuracy"], rtol=1e-6)
    sess.run(ds.local_variables_initializer())               # a new evaluation
    assert sess.run(metrics["mse"][0]) == 0.0


def test_metric_variables_names_and_collections():
    labels = ds.constant([1, 2])
    value, update = ds.metrics.accuracy(labels, ds.constant([1.0, 0.0]),
                                        metrics_collections=["evaluation"],
                                        updates_collections=["updates"])
    ds.metrics.mean(ds.constant([1.0]), name="loss_mean")
    assert [v.op.name for v in ds.local_variables()] == [
        "accuracy/total", "accuracy/count", "loss_mean/total", "loss_mean/count"]
    assert ds.get_collection(ds.GraphKeys.METRIC_VARIABLES) == ds.local_variables()
    assert ds.global_variables() == [] and ds.trainable_variables() == []
    assert (value.op.name, update.op.name) == ("accuracy/value", "accuracy/update_op")
    assert ds.get_collection("evaluation") == [value] and ds.get_collection("updates") == [update]
    with ds.Session() as sess:
        sess.run(ds.local_variables_initializer())
        assert sess.run(update) == 0.5
    with pytest.raises(ValueError, match=r"^Shapes \(3,\) and \(2,\) are incompatible: "
                                         r"accuracy: predictions .* must have the same shape"):
        ds.metrics.accuracy(labels, ds.constant([1, 2, 3]))
    with pytest.raises(ValueError, match=r"^Shapes \(\?, 2\) and \(2,\) are incompatible"):
        ds.metrics.auc(labels, ds.placeholder(ds.float32, [None, 2]))


def test_confusion_counts_precision_recall_and_auc_against_numpy():
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 2, 60).astype(bool)
    scores = np.clip(truth * 0.4 + rng.uniform(0, 0.6, 60), 0, 1).astype(np.float32)
    labels = ds.placeholder(ds.bool, [None])
    score = ds.placeholder(ds.float32, [None])
    predicted = score > 0.5
    metrics = {"precision": ds.metrics.precision(labels, predicted),
               "recall": ds.metrics.recall(labels, predicted),
               "fn": ds.metrics.false_negatives(labels, predicted),
               "auc": ds.metrics.auc(labels, score, num_thresholds=1000)}
    with ds.Session() as sess:
        sess.run(ds.local_variables_initializer())
        assert sess.run(metrics["precision"][0]) == 0.0          # no positive yet
        for part in np.split(np.arange(60), 3):
            sess.run([u for _, u in metrics.values()], {labels: truth[part],
                                                        score: scores[part]})
        got = sess.run({k: v for k, (v, _) in metrics.items()})
    guess = scores > 0.5
    tp, fp, fn = (np.sum(truth & guess), np.sum(~truth & guess), np.sum(truth & ~guess))
    np.testing.assert_allclose(got["precision"], tp / (tp + fp), rtol=1e-6)
    np.testing.assert_allclose(got["recall"], tp / (tp + fn), rtol=1e-6)
    assert got["fn"] == fn
    pairs = scores[truth][:, None] - scores[~truth][None, :]     # the ROC AUC is the
    rank_auc = np.mean((pairs > 0) + 0.5 * (pairs == 0))        # chance a positive ranks first
    np.testing.assert_allclose(got["auc"], rank_auc, atol=2e-3)
    assert sorted(v.op.name for v in ds.local_variables() if v.op.name.startswith("auc")) == \
        ["auc/false_negatives", "auc/false_positives", "auc/true_negatives",
         "auc/true_positives"]


def test_auc_refuses_what_it_does_not_compute():
    with pytest.raises(ValueError, match=r"^Curve must be either ROC or PR\. Curve DET is "
                                         r"unknown\.$"):
        ds.metrics.auc([True], [0.5], curve="DET")
    with pytest.raises(ValueError, match=r"^Invalid summation_method: simpson summation_method "
                       r"should be 'trapezoidal', 'careful_interpolation', 'minoring', or "
                       r"'majoring'\.$"):
        ds.metrics.auc([True], [0.5], summation_method="simpson")


def test_auc_summation_methods_give_tfs_values():
    """Every curve and summation_method against TF 2.21 (weighted, 50 thresholds):
    careful_interpolation is TF's closed-form PR interpolation (the trapezoidal rule for
    ROC), minoring and majoring each interval's lower and upper value."""
    rng = np.random.RandomState(0)
    labels = (rng.rand(200) > 0.6).astype(np.float32)
    preds = np.clip(labels * 0.3 + rng.rand(200) * 0.7, 0, 1).astype(np.float32)
    weights = rng.rand(200).astype(np.float32)
    methods = ("trapezoidal", "careful_interpolation", "minoring", "majoring")
    aucs = [ds.metrics.auc(labels, preds, weights=weights, curve=curve, summation_method=m,
                           num_thresholds=50) for curve in ("ROC", "PR") for m in methods]
    with ds.Session() as sess:
        sess.run(ds.local_variables_initializer())
        sess.run([update for _, update in aucs])
        got = sess.run([value for value, _ in aucs])
    np.testing.assert_allclose(got, [0.8316024541854858, 0.8316024541854858, 0.82273268699646,
                                     0.8404721021652222, 0.8021884560585022, 0.801577627658844,
                                     0.794793426990509, 0.8095833659172058], rtol=1e-6)


def test_new_metrics_refuse_bad_inputs_as_tf1():
    scores = ds.placeholder(ds.float32, [None])
    precision, update = ds.metrics.precision_at_thresholds([True, False], scores, [0.5])
    with ds.Session() as sess:
        sess.run(ds.local_variables_initializer())
        np.testing.assert_allclose(sess.run(update, {scores: [0.9, 0.2]}), [1.0 / (1 + 1e-7)])
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match=r"predictions must be in \[0, 1\]"):
            sess.run(update, {scores: [1.5, 0.2]})
    ids = ds.placeholder(ds.int64, [None])
    _, confusion = ds.metrics.mean_iou(ids, ds.constant([0, 1], ds.int64), num_classes=2)
    with ds.Session() as sess:
        sess.run(ds.local_variables_initializer())
        np.testing.assert_array_equal(sess.run(confusion, {ids: [1, 1]}), [[0, 0], [1, 1]])
        with pytest.raises(ds.errors.InvalidArgumentError, match="`labels` out of bound"):
            sess.run(confusion, {ids: [2, 0]})
        with pytest.raises(ds.errors.InvalidArgumentError, match="negative values"):
            sess.run(confusion, {ids: [-1, 0]})
    with pytest.raises(ValueError, match="`specificity` must be in the range"):
        ds.metrics.sensitivity_at_specificity([True], [0.5], specificity=1.5)
    with pytest.raises(ValueError, match="Invalid k=0"):
        ds.metrics.average_precision_at_k(ds.constant([[1]]), ds.constant([[0.5, 0.2]]), k=0)
    with pytest.raises(ValueError, match="Unexpected labels shape"):
        ds.metrics.precision_at_k(ds.constant([[[1]]]), ds.constant([[0.5, 0.2]]), k=1)
    with pytest.raises(ValueError, match="fully defined"):
        ds.metrics.mean_tensor(ds.placeholder(ds.float32, [None, 2]))
    with pytest.raises(NotImplementedError, match="SparseTensor labels"):
        ds.metrics.recall_at_k(ds.SparseTensor([[0, 0]], [1], [1, 1]),
                               ds.constant([[0.5, 0.2]]), k=1)


def test_metrics_at_k_with_unknown_shapes_count_sets_as_tf1():
    """Rows' labels and top indices are sets: a repeated label counts once, a label out
    of range (-1 too) is a false negative; hand-counted."""
    labels = ds.placeholder(ds.int64, [None, None])
    scores = ds.placeholder(ds.float32, [None, None])
    metrics = {"precision": ds.metrics.precision_at_k(labels, scores, k=2),
               "recall": ds.metrics.recall_at_k(labels, scores, k=2),
               "recall_class_0": ds.metrics.recall_at_k(labels, scores, k=2, class_id=0),
               "map": ds.metrics.average_precision_at_k(labels, scores, k=2)}
    feed = {labels: [[2, 2, 0], [-1, 1, 7]],
            scores: [[0.9, 0.1, 0.8, 0.0], [0.1, 0.2, 0.3, 0.4]]}   # top 2: {0, 2}, {3, 2}
    with ds.Session() as sess:
        sess.run(ds.local_variables_initializer())
        got = sess.run({k: u for k, (_, u) in metrics.items()}, feed)
    # tp: row 0 {0, 2} 2, row 1 none; fp: row 1 {3, 2}; fn: row 1 {-1, 1, 7}
    assert got["precision"] == 2 / 4 and got["recall"] == 2 / 5
    assert got["recall_class_0"] == 1.0
    # row 0: ranks 1 and 2 both labels, 2 labels in range -> 1; row 1: no hit, 1 label in range
    assert got["map"] == 0.5


def test_threshold_metrics_check_the_score_range_where_tf_does():
    """TF's range checks gate the casts (scores to float32, labels to bool): float32
    scores with bool labels go unchecked, int labels or float64 scores fail the run
    (TF 2.21's outcomes for the same feeds)."""
    outcomes = []
    for label_dtype, score_dtype in ((ds.bool, ds.float32), (ds.int64, ds.float32),
                                     (ds.bool, ds.float64)):
        with ds.Graph().as_default():
            labels = ds.placeholder(label_dtype, [None])
            scores = ds.placeholder(score_dtype, [None])
            _, update = ds.metrics.auc(labels, scores)
            with ds.Session() as sess:
                sess.run(ds.local_variables_initializer())
                try:
                    sess.run(update, {labels: [1, 0], scores: [1.5, 0.2]})
                    outcomes.append("ran")
                except ds.errors.InvalidArgumentError as e:
                    outcomes.append("checked" if "must be in [0, 1]" in e.message else e)
    assert outcomes == ["ran", "checked", "checked"]


def test_weights_of_a_column_weigh_the_rows_as_tf1(make_session):
    # TF1's _remove_squeezable_dimensions: [batch, 1] weights of [batch] labels are one
    # weight a row (TF 2.21: 0.75, 1.0, 0.25, 0.75), static or fed with an unknown rank;
    # [1, batch] ones are refused, at build where the ranks are known, else at run
    labels, predictions = ds.constant([1, 0, 1, 1]), ds.constant([1, 1, 1, 0])
    column = np.array([[1.], [0.], [2.], [1.]], F32)
    fed = ds.placeholder(ds.float32, None)

    def metrics(weights):
        return [ds.metrics.accuracy(labels, predictions, weights=weights)[1],
                ds.metrics.mean(ds.cast(labels, ds.float32), weights=weights)[1],
                ds.metrics.mean_squared_error(labels, predictions, weights=weights)[1],
                ds.metrics.recall(labels, predictions, weights=weights)[1]]
    static, at_run = metrics(ds.constant(column)), metrics(fed)
    sess = make_session()
    sess.run(ds.local_variables_initializer())
    np.testing.assert_allclose(sess.run(static), [0.75, 1.0, 0.25, 0.75], rtol=1e-6)
    np.testing.assert_allclose(sess.run(at_run, {fed: column}), [0.75, 1.0, 0.25, 0.75],
                               rtol=1e-6)
    for metric in (ds.metrics.accuracy, ds.metrics.true_positives):
        with pytest.raises(ValueError):
            metric(labels, predictions, weights=ds.constant(column.T))
    for update in at_run[::3]:
        with pytest.raises(ds.errors.InvalidArgumentError):
            sess.run(update, {fed: column.T})
