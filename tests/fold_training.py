"""What the fold tests share (test_bias_folds.py, test_pool_gradients.py): a few SGD
steps with the optimizer's folds on or off, the first one traced, so that a test can
check both that training is the same and that the trace names every folded node."""

from __future__ import annotations

import numpy as np

import devsession as ds


def sgd_losses(g, feeds: dict, loss, variables, rate: float, steps: int, fusion: bool,
               objective=None):
    """(the ``loss`` of each of ``steps`` SGD steps minimizing ``objective`` (``loss``
    unless given) on ``g``, the first step's RunMetadata)."""
    with g.as_default():
        train_op = ds.train.GradientDescentOptimizer(rate).minimize(
            loss if objective is None else objective)
    options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
    with ds.Session(graph=g, options=options) as sess:
        sess.run(ds.variables_initializer(variables))
        metadata = ds.RunMetadata()
        losses = [sess.run([loss, train_op], feeds, options=ds.RunOptions(trace=True),
                           run_metadata=metadata)[0]]
        losses += [sess.run([loss, train_op], feeds)[0] for _ in range(steps - 1)]
    return np.array(losses), metadata
