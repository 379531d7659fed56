"""Records TensorFlow's streaming metrics and ``mean_pairwise_squared_error`` on small
weighted batches (tf_metrics.json): each case's inputs, the update op's value after each
of three batches, the value read at the end, and the local variables' names, dtypes and
shapes.  tests/test_metrics_tf.py builds the same metric in devsession and feeds the same
batches.  Run once, in a virtualenv with tensorflow (never a test dependency):

    /work/peers/bin/python tests/data/make_tf_metrics.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

BATCHES = 3


def _classes(rng, shape, n):
    return rng.integers(0, n, shape).astype(np.int64)


def _weights(rng, shape):
    w = rng.uniform(0.0, 2.0, shape).astype(np.float32)
    w.reshape(-1)[2:: 3] = 0.0                       # some examples masked (not the first two)
    return w


def _unit(rng, shape):
    v = rng.normal(size=shape)
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def _scores(rng, shape):
    s = rng.uniform(0.0, 1.0, shape).astype(np.float32)
    s.reshape(-1)[:2] = [0.0, 1.0]                   # the ends of [0, 1]
    return s


def _batch(rng, spec: dict) -> dict:
    """One batch of inputs; ``spec`` maps an argument to (kind, shape, extra)."""
    out = {}
    for arg, (kind, shape, *extra) in spec.items():
        if kind == "classes":
            out[arg] = _classes(rng, shape, extra[0])
        elif kind == "agree":                        # class ids mostly equal to the labels
            guess = out["labels"].copy()
            flip = rng.random(shape) < 0.35
            guess[flip] = _classes(rng, shape, extra[0])[flip]
            out[arg] = guess
        elif kind == "bool":
            labels = rng.integers(0, 2, shape).astype(bool)
            labels.reshape(-1)[1] = False            # the score of 1 (see _scores) a negative
            out[arg] = labels
        elif kind == "weights":
            out[arg] = _weights(rng, shape)
        elif kind == "unit":
            out[arg] = _unit(rng, shape)
        elif kind == "scores":
            out[arg] = _scores(rng, shape)
        elif kind == "normal":
            out[arg] = rng.normal(size=shape).astype(np.float32)
        elif kind == "normalizer":
            n = rng.uniform(0.5, 2.0, shape).astype(np.float32)
            n.reshape(-1)[1] = 0.0                   # a relative error of 0
            out[arg] = n
        elif kind == "labels_k":                     # class ids, one out of range, one -1
            labels = _classes(rng, shape, extra[0])
            labels.reshape(-1)[0] = extra[0] + 1
            labels.reshape(-1)[-1] = -1
            out[arg] = labels
        elif kind == "indices":                      # top-k indices a caller passed, one repeat
            idx = np.stack([rng.permutation(extra[0])[: shape[-1]] for _ in range(shape[0])])
            idx[0, -1] = idx[0, 0]
            out[arg] = idx.astype(np.int64)
        else:
            raise ValueError(kind)
    return out


THRESHOLDS = [0.0, 0.25, 0.5, 0.9]
BINARY = {"labels": ("bool", (8,)), "predictions": ("scores", (8,)),
          "weights": ("weights", (8,))}
AT_K = {"labels": ("labels_k", (4, 2), 5), "predictions": ("normal", (4, 5)),
        "weights": ("weights", (4,))}

CASES = {
    "mean_iou": ("mean_iou", {"labels": ("classes", (6,), 4),
                              "predictions": ("agree", (6,), 4),
                              "weights": ("weights", (6,))}, {"num_classes": 4}),
    "mean_iou_2d_unweighted": ("mean_iou", {"labels": ("classes", (2, 3), 3),
                                            "predictions": ("classes", (2, 3), 3)},
                               {"num_classes": 3}),
    "mean_per_class_accuracy": ("mean_per_class_accuracy",
                                {"labels": ("classes", (7,), 3),
                                 "predictions": ("agree", (7,), 3),
                                 "weights": ("weights", (7,))}, {"num_classes": 3}),
    "mean_cosine_distance": ("mean_cosine_distance",
                             {"labels": ("unit", (4, 3)), "predictions": ("unit", (4, 3)),
                              "weights": ("weights", (4, 1))}, {"dim": 1}),
    "mean_relative_error": ("mean_relative_error",
                            {"labels": ("normal", (5,)), "predictions": ("normal", (5,)),
                             "normalizer": ("normalizer", (5,)),
                             "weights": ("weights", (5,))}, {}),
    "mean_tensor": ("mean_tensor", {"values": ("normal", (2, 3)),
                                    "weights": ("weights", (2, 1))}, {}),
    "percentage_below": ("percentage_below", {"values": ("normal", (6,)),
                                              "weights": ("weights", (6,))},
                         {"threshold": 0.3}),
    "true_positives_at_thresholds": ("true_positives_at_thresholds", BINARY,
                                     {"thresholds": THRESHOLDS}),
    "false_positives_at_thresholds": ("false_positives_at_thresholds", BINARY,
                                      {"thresholds": THRESHOLDS}),
    "true_negatives_at_thresholds": ("true_negatives_at_thresholds", BINARY,
                                     {"thresholds": THRESHOLDS}),
    "false_negatives_at_thresholds": ("false_negatives_at_thresholds", BINARY,
                                      {"thresholds": THRESHOLDS}),
    "precision_at_thresholds": ("precision_at_thresholds", BINARY,
                                {"thresholds": THRESHOLDS}),
    "recall_at_thresholds": ("recall_at_thresholds", BINARY, {"thresholds": THRESHOLDS}),
    "recall_at_thresholds_squeezed": ("recall_at_thresholds",
                                      {"labels": ("bool", (8, 1)),
                                       "predictions": ("scores", (8,)),
                                       "weights": ("weights", (8, 1))},
                                      {"thresholds": THRESHOLDS}),
    "auc_given_thresholds": ("auc", BINARY, {"thresholds": [0.7, 0.3, 0.5]}),
    "auc_pr": ("auc", BINARY, {"curve": "PR", "num_thresholds": 30}),
    "sensitivity_at_specificity": ("sensitivity_at_specificity", BINARY,
                                   {"specificity": 0.6, "num_thresholds": 20}),
    "specificity_at_sensitivity": ("specificity_at_sensitivity", BINARY,
                                   {"sensitivity": 0.7, "num_thresholds": 20}),
    "specificity_at_low_sensitivity": ("specificity_at_sensitivity", BINARY,
                                       {"sensitivity": 0.0, "num_thresholds": 10}),
    "precision_at_k": ("precision_at_k", AT_K, {"k": 2}),
    "recall_at_k": ("recall_at_k", AT_K, {"k": 2}),
    "precision_at_k_class": ("precision_at_k", AT_K, {"k": 2, "class_id": 1}),
    "recall_at_k_class": ("recall_at_k", AT_K, {"k": 3, "class_id": 4}),
    "sparse_precision_at_k_rank1_labels": ("sparse_precision_at_k",
                                           {"labels": ("classes", (4,), 5),
                                            "predictions": ("normal", (4, 5))}, {"k": 3}),
    "precision_at_top_k": ("precision_at_top_k",
                           {"labels": ("labels_k", (4, 2), 5),
                            "predictions_idx": ("indices", (4, 3), 5),
                            "weights": ("weights", (4,))}, {"k": 3}),
    "recall_at_top_k": ("recall_at_top_k",
                        {"labels": ("labels_k", (4, 2), 5),
                         "predictions_idx": ("indices", (4, 3), 5),
                         "weights": ("weights", (4,))}, {}),
    "average_precision_at_k": ("average_precision_at_k", AT_K, {"k": 3}),
    "sparse_average_precision_at_k": ("sparse_average_precision_at_k",
                                      {"labels": ("classes", (4,), 5),
                                       "predictions": ("normal", (4, 5))}, {"k": 2}),
}

LOSSES = {
    "pairwise_scalar_weight": ({"labels": ("normal", (3, 4)),
                                "predictions": ("normal", (3, 4))}, {"weights": 2.0}),
    "pairwise_per_example": ({"labels": ("normal", (3, 4)), "predictions": ("normal", (3, 4)),
                              "weights": ("weights", (3, 1))}, {}),
    "pairwise_3d": ({"labels": ("normal", (2, 3, 2)), "predictions": ("normal", (2, 3, 2)),
                     "weights": ("weights", (2, 3, 1))}, {}),
}


def _placeholders(batch: dict) -> dict:
    return {arg: tf.placeholder(tf.as_dtype(value.dtype), value.shape, name=arg)
            for arg, value in batch.items()}


def record_metric(seed: int, metric: str, spec: dict, kwargs: dict) -> dict:
    rng = np.random.default_rng(seed)
    batches = [_batch(rng, spec) for _ in range(BATCHES)]
    with tf.Graph().as_default():
        inputs = _placeholders(batches[0])
        value, update = getattr(tf.metrics, metric)(**inputs, **kwargs)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            updates = [sess.run(update, {inputs[a]: b[a] for a in b}).tolist()
                       for b in batches]
            final = sess.run(value).tolist()
        variables = [(v.op.name, v.dtype.base_dtype.name, v.shape.as_list())
                     for v in tf.local_variables()]
        assert tf.local_variables() == tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)
    return {"metric": metric, "kwargs": kwargs,
            "batches": [{a: [str(v.dtype), v.tolist()] for a, v in b.items()}
                        for b in batches],
            "updates": updates, "value": final, "variables": variables}


def record_loss(seed: int, spec: dict, kwargs: dict) -> dict:
    batch = _batch(np.random.default_rng(seed), spec)
    with tf.Graph().as_default():
        inputs = _placeholders(batch)
        loss = tf.losses.mean_pairwise_squared_error(**inputs, **kwargs)
        assert tf.get_collection(tf.GraphKeys.LOSSES) == [loss]
        with tf.Session() as sess:
            value = sess.run(loss, {inputs[a]: batch[a] for a in batch}).tolist()
    return {"kwargs": kwargs, "batch": {a: [str(v.dtype), v.tolist()] for a, v in batch.items()},
            "loss": value}


if __name__ == "__main__":
    tf.disable_eager_execution()
    metrics = {case: record_metric(seed, *CASES[case]) for seed, case in enumerate(CASES)}
    losses = {case: record_loss(seed, *LOSSES[case]) for seed, case in enumerate(LOSSES)}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_metrics.json")
    with open(path, "w") as f:
        json.dump({"tensorflow": tf.__version__, "metrics": metrics,
                   "mean_pairwise_squared_error": losses}, f, indent=None)
        f.write("\n")
    print("wrote", path)
