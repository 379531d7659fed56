"""Training graphs for ``tf_export.to_tf_graph_def`` (``tests/test_tf_export_training.py``,
and by hand with TensorFlow: ``tests/data/tf_export/check_tf_trains_export.py``).

Each builder fills the default graph with a model, its loss and a train op built by
devsession's gradients and optimizers, from fixed numpy values (no random initializers:
initialized anywhere, the variables start the same), and returns a ``TrainingCase``.
Between them the graphs hold every devsession-private op ``ds.gradients`` writes
(``_BroadcastToShapeOf``, ``_ReduceToShapeOf``, ``_ReshapeToShapeOf`` with and without
reduced axes, ``_ReducedSize`` over some axes and over every axis of an input of unknown
rank, ``_SplitToShapesOf``) and ``Conv2DBackprop*V2``; ``train_losses`` runs a graph
(a devsession one, or a GraphDef imported anywhere, through ``run``) step by step.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import devsession as ds

STEPS = 4


@dataclasses.dataclass
class TrainingCase:
    feeds: dict            # placeholder name -> value (every step)
    loss: str              # tensor name
    train: str             # op name
    init: str              # op name


def _normal(rng, *shape, scale=0.3) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _dense(x, rng, units, name, activation=None):
    return ds.layers.dense(
        x, units, activation=activation, name=name,
        kernel_initializer=ds.constant_initializer(_normal(rng, x.shape[-1], units)),
        bias_initializer=ds.constant_initializer(_normal(rng, units)))


def _done(case_feeds: dict, loss, train) -> TrainingCase:
    init = ds.global_variables_initializer()
    return TrainingCase(case_feeds, loss.name, train.name, init.name)


def _mlp(optimizer, clip_norm=None) -> TrainingCase:
    rng = np.random.RandomState(3)
    x = ds.placeholder(ds.float32, (None, 6), name="x")
    labels = ds.placeholder(ds.int64, (None,), name="labels")
    hidden = _dense(x, rng, 8, "hidden", ds.nn.relu)
    logits = _dense(hidden, rng, 3, "logits")
    loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits), name="loss")
    step = ds.train.get_or_create_global_step()
    if clip_norm is None:
        train = optimizer.minimize(loss, global_step=step)
    else:
        grads, variables = zip(*optimizer.compute_gradients(loss))
        clipped, _ = ds.clip_by_global_norm(grads, clip_norm)
        train = optimizer.apply_gradients(zip(clipped, variables), global_step=step)
    return _done({"x": _normal(rng, 10, 6, scale=1.0), "labels": np.arange(10) % 3},
                 loss, train)


def mlp_sgd() -> TrainingCase:
    return _mlp(ds.train.GradientDescentOptimizer(0.5))


def mlp_adam() -> TrainingCase:
    return _mlp(ds.train.AdamOptimizer(0.05))


def mlp_momentum() -> TrainingCase:
    """Nesterov momentum, the gradients clipped by their global norm."""
    return _mlp(ds.train.MomentumOptimizer(0.2, 0.9, use_nesterov=True), clip_norm=1.0)


def convnet() -> TrainingCase:
    """conv2d (a batch of unknown size: Conv2DBackprop*V2) -> max pool -> batch norm of
    tf.layers in training mode (its moving averages updated with the step) -> dense; Adam."""
    rng = np.random.RandomState(5)
    images = ds.placeholder(ds.float32, (None, 6, 6, 2), name="images")
    labels = ds.placeholder(ds.int32, (None,), name="labels")
    conv = ds.layers.conv2d(
        images, 4, 3, padding="same", activation=ds.nn.relu, name="conv",
        kernel_initializer=ds.constant_initializer(_normal(rng, 3, 3, 2, 4)),
        bias_initializer=ds.constant_initializer(_normal(rng, 4)))
    pooled = ds.layers.max_pooling2d(conv, 2, 2, name="pool")
    normed = ds.layers.batch_normalization(pooled, training=True, name="bn")
    logits = _dense(ds.layers.flatten(normed), rng, 3, "logits")
    loss = ds.losses.sparse_softmax_cross_entropy(labels, logits)
    with ds.control_dependencies(ds.get_collection(ds.GraphKeys.UPDATE_OPS)):
        train = ds.train.AdamOptimizer(0.02).minimize(loss)
    return _done({"images": _normal(rng, 5, 6, 6, 2, scale=1.0),
                  "labels": np.arange(5, dtype=np.int32) % 3}, loss, train)


def embedding() -> TrainingCase:
    """An embedding lookup (its gradient rows: RMSProp updates only them) and a
    product where neither shape is known (``_ReduceToShapeOf``)."""
    rng = np.random.RandomState(7)
    ids = ds.placeholder(ds.int32, (None,), name="ids")
    targets = ds.placeholder(ds.float32, (None,), name="targets")
    table = ds.Variable(_normal(rng, 12, 4), name="table")
    scale = ds.Variable(_normal(rng, 4), name="scale")
    shift = ds.placeholder_with_default(np.zeros((1, 4), np.float32), (None, None),
                                        name="shift")
    rows = ds.nn.embedding_lookup(table, ids) + shift * scale
    loss = ds.reduce_mean(ds.square(ds.reduce_sum(rows, 1) - targets), name="loss")
    train = ds.train.RMSPropOptimizer(0.05, momentum=0.5).minimize(loss)
    return _done({"ids": np.array([1, 3, 3, 7, 0], np.int32),
                  "targets": np.array([1.0, -1.0, 0.5, 2.0, 0.0], np.float32)}, loss, train)


def shapes() -> TrainingCase:
    """Shapes known only at run time: a concat along unknown lengths (``_SplitToShapesOf``),
    a reduction of a tensor of two unknown dimensions (``_ReshapeToShapeOf``) and of one
    of unknown rank over an axis from the end and over every axis (``_ReducedSize``)."""
    rng = np.random.RandomState(9)
    a = ds.placeholder(ds.float32, (None, None, 3), name="a")
    b = ds.placeholder(ds.float32, (None, None, 3), name="b")
    c = ds.placeholder(ds.float32, None, name="c")
    w = ds.Variable(_normal(rng, 3), name="w")
    v = ds.Variable(np.float32(0.7), name="v")
    joined = ds.concat([a * w, ds.tanh(b * w)], axis=1, name="joined")
    summed = ds.reduce_sum(ds.square(joined), axis=2)
    spread = ds.reduce_mean(ds.square(c * v), axis=-1)
    loss = ds.add(ds.reduce_mean(summed), ds.reduce_mean(spread) + ds.reduce_mean(c * v),
                  name="loss")
    train = ds.train.GradientDescentOptimizer(0.1).minimize(loss)
    return _done({"a": _normal(rng, 2, 3, 3, scale=1.0), "b": _normal(rng, 2, 4, 3, scale=1.0),
                  "c": _normal(rng, 2, 5, scale=1.0)}, loss, train)


CASES = {case.__name__: case for case in
         (mlp_sgd, mlp_adam, mlp_momentum, convnet, embedding, shapes)}


def feeds_by_tensor(case: TrainingCase) -> dict:
    return {f"{name}:0": value for name, value in case.feeds.items()}


def train_losses(run, case: TrainingCase, steps: int = STEPS) -> list:
    """The loss before each of ``steps`` train steps; ``run(fetches, feeds)`` is a
    session's run (any session: fetches and feeds by name)."""
    run(case.init, {})
    feeds = feeds_by_tensor(case)
    return [run([case.loss, case.train], feeds)[0] for _ in range(steps)]
