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
    with pytest.raises(ValueError, match="accuracy: predictions .* must have the same shape"):
        ds.metrics.accuracy(labels, ds.constant([1, 2, 3]))


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
    with pytest.raises(ValueError, match="curve"):
        ds.metrics.auc([True], [0.5], curve="DET")
    with pytest.raises(ValueError, match="trapezoidal"):
        ds.metrics.auc([True], [0.5], summation_method="careful_interpolation")
