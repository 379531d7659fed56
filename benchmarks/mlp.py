"""The multilayer perceptron of the training workloads (``training.mlp_train`` on one
device, ``cluster_training.mlp_train_ps`` on a cluster), written once so that every
contender and every reference runs the same model.

``he_params``: the starting weights (He-normal) and biases (zero) of layers of ``sizes``;
``logits``: the forward pass, ReLU between the layers, with the ``matmul`` and ``relu``
of any array API (a TF1-style graph, numpy for the reference loss, JAX).
"""

from __future__ import annotations

import numpy as np

__all__ = ["he_params", "logits", "np_relu"]

F32 = np.float32


def he_params(rng, sizes) -> list:
    """[w0, b0, w1, b1, ...] (float32) for layers ``sizes[0] -> sizes[1] -> ...``."""
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        params += [(rng.standard_normal((n_in, n_out), dtype=F32) *
                    F32(np.sqrt(2.0 / n_in))), np.zeros(n_out, F32)]
    return params


def logits(x, params, matmul, relu):
    """The output layer's logits of ``x`` for ``params`` as ``he_params`` lays them out."""
    h = x
    for k in range(0, len(params) - 2, 2):
        h = relu(matmul(h, params[k]) + params[k + 1])
    return matmul(h, params[-2]) + params[-1]


def np_relu(x):
    """``relu`` for numpy, the references' API."""
    return np.maximum(x, 0)
