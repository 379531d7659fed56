"""The small classifier the SavedModel tests export (tests/test_saved_model.py,
tests/test_saved_model_export.py): placeholders ``x`` (None, 4) and ``labels``,
variables ``w`` and ``b``, ``probs``, a mean sparse cross-entropy ``loss``, its train op
``train`` (in the ``train_op`` collection too, where TF1 programs put it), trained a few
steps in a session left open."""

import numpy as np

import devsession as ds


def trained_classifier(graph, optimizer=None, steps=3, seed=0):
    """(x, probs, session) after ``steps`` steps of ``optimizer`` (SGD 0.5 unless given)
    in ``graph``."""
    rng = np.random.default_rng(seed)
    with graph.as_default():
        x = ds.placeholder(ds.float32, [None, 4], name="x")
        labels = ds.placeholder(ds.int64, [None], name="labels")
        w = ds.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="w")
        b = ds.Variable(np.zeros(3, np.float32), name="b")
        logits = ds.matmul(x, w) + b
        probs = ds.nn.softmax(logits, name="probs")
        loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits), name="loss")
        train = (optimizer or ds.train.GradientDescentOptimizer(0.5)).minimize(
            loss, name="train")
        ds.add_to_collection("train_op", train)
        sess = ds.Session(graph=graph)
        sess.run(ds.global_variables_initializer())
        data = rng.standard_normal((8, 4)).astype(np.float32)
        for _ in range(steps):
            sess.run(train, {x: data, labels: np.arange(8) % 3})
    return x, probs, sess
