"""A MobileNet-style training step: what a depthwise convolution costs in training.

Batch 16 of 56x56x32 images through two separable blocks (a 3x3 depthwise convolution,
then a 1x1 convolution to 64 channels, bias, ReLU), a global mean, a dense layer to 10
classes, sparse softmax cross entropy and SGD: depthwise convolutions forward and
backward (input and filter gradients) beside small 1x1 products.  The same graph builder
runs with ``devsession`` and ``tf.compat.v1``; the first step's loss is checked against
numpy's.  (JAX is not a contender here: its model would be written by hand.)
"""

from __future__ import annotations

import numpy as np

from .training import measure_with
from .workload import Data, Workload

__all__ = ["separable_train"]

F32 = np.float32
SHAPES = [(3, 3, 32, 1), (1, 1, 32, 64), (64,), (3, 3, 64, 1), (1, 1, 64, 64), (64,),
          (64, 10), (10,)]


def _data(batch: int):
    def make(rng) -> Data:
        x = rng.standard_normal((batch, 56, 56, 32), dtype=F32)
        labels = rng.integers(0, 10, batch).astype(np.int32)
        params = tuple((rng.standard_normal(s, dtype=F32) * F32(0.2)) if len(s) > 1
                       else np.zeros(s, F32) for s in SHAPES)
        return Data((x, labels), ("x", "labels"), params)
    return make


def _graph(api, data):
    x = api.placeholder(api.float32, data.feeds[0].shape, name="x")
    labels = api.placeholder(api.int32, data.feeds[1].shape, name="labels")
    d1, p1, b1, d2, p2, b2, w, b = [api.Variable(p, name=f"p{k}")
                                    for k, p in enumerate(data.consts)]
    h = x
    for depthwise, pointwise, bias in ((d1, p1, b1), (d2, p2, b2)):
        h = api.nn.relu(api.nn.separable_conv2d(h, depthwise, pointwise, [1, 1, 1, 1],
                                                "SAME") + bias)
    logits = api.matmul(api.reduce_mean(h, axis=[1, 2]), w) + b
    loss = api.reduce_mean(api.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))
    train = api.train.GradientDescentOptimizer(0.01).minimize(loss)
    return [loss, train], [x, labels]


def _depthwise_same(x, f):
    """numpy: a 3x3 SAME depthwise convolution (multiplier 1) of NHWC ``x``."""
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    height, width = x.shape[1:3]
    return sum(padded[:, i:i + height, j:j + width, :] * f[i, j, :, 0]
               for i in range(3) for j in range(3))


def _first_loss(data):
    x, labels = data.feeds[0].astype(np.float64), data.feeds[1]
    d1, p1, b1, d2, p2, b2, w, b = (p.astype(np.float64) for p in data.consts)
    h = x
    for depthwise, pointwise, bias in ((d1, p1, b1), (d2, p2, b2)):
        h = np.maximum(_depthwise_same(h, depthwise) @ pointwise[0, 0] + bias, 0)
    logits = h.mean(axis=(1, 2)) @ w + b
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return np.float32(-log_probs[np.arange(len(labels)), labels].mean())


def separable_train(batch: int = 16, max_repeats: int | None = None) -> Workload:
    return Workload(
        name="separable_train", title=f"MobileNet-style training step (two separable "
        f"3x3 blocks, 56x56x32 -> 64, SGD), batch {batch}", unit="steps/s", work=1.0,
        make_data=_data(batch), measure=measure_with(_graph, _first_loss, peers=("tf1",)),
        rtol=1e-4, atol=1e-5, max_repeats=max_repeats, stateful=True,
        params={"batch": batch})
