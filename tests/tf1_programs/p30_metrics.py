"""TF1's streaming evaluation metrics over three batches: counts of true/false
positives/negatives, precision, recall, RMSE and AUC (ROC and PR), with weights; the
local variables they keep and what local_variables_initializer resets."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    labels = tf.placeholder(tf.int64, [None], name="labels")
    scores = tf.placeholder(tf.float32, [None], name="scores")
    weights = tf.placeholder(tf.float32, [None], name="weights")
    predicted = tf.greater(scores, 0.5)
    metrics = {
        "tp": tf.metrics.true_positives(labels, predicted),
        "fp": tf.metrics.false_positives(labels, predicted, weights=weights),
        "tn": tf.metrics.true_negatives(labels, predicted),
        "fn": tf.metrics.false_negatives(labels, predicted),
        "precision": tf.metrics.precision(labels, predicted),
        "recall": tf.metrics.recall(labels, predicted, weights=weights),
        "rmse": tf.metrics.root_mean_squared_error(tf.cast(labels, tf.float32), scores),
        "auc": tf.metrics.auc(labels, scores),
        "auc_pr": tf.metrics.auc(labels, scores, curve="PR", num_thresholds=50),
        "auc_weighted": tf.metrics.auc(labels, scores, weights=weights, name="weighted_auc"),
    }
    out["local_variables"] = sorted(v.op.name for v in tf.local_variables())
    updates = [op for _, op in metrics.values()]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        out["before"] = sess.run([value for value, _ in metrics.values()])
        for _ in range(3):
            y = rng.randint(0, 2, 40).astype(np.int64)
            s = np.clip(y * 0.3 + rng.uniform(0, 0.7, 40), 0, 1).astype(np.float32)
            w = rng.uniform(0.5, 2.0, 40).astype(np.float32)
            sess.run(updates, {labels: y, scores: s, weights: w})
        for key, (value, _) in metrics.items():
            out[key] = sess.run(value)
        sess.run(tf.local_variables_initializer())
        out["reset_precision"] = sess.run(metrics["precision"][0])
