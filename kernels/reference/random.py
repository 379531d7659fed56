"""Multinomial's kernel (``devsession/ops/random.py``: ``tf.random.categorical``), for the
reference device and the CPU (``HOST``; ``cuda/random.py`` runs it for the GPU and
uploads): draws from the node's seeded stream (``resources.random_stream``) under its
lock, as the other random ops (``state.py``).

TF's CPU algorithm (multinomial_op.cc), row by row: the weights ``exp(logit - max)``
of the finite logits (the max over the finite ones; a non-finite logit weighs 0), their
running sums ``cdf``, and for each sample a uniform ``u`` in ``[0, 1)``: the class is
the first ``j`` with ``cdf[j] > u * total`` (``searchsorted(..., side="right")``), so a
class of weight 0 is never drawn; a row whose logits are all non-finite has total 0 and
answers ``classes``, as TF's does.  The weights are float64 whatever the logits' dtype.
The uniforms are drawn as one ``[batch, num_samples]`` block, row by row.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["build_multinomial", "draw_classes"]


def draw_classes(logits: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """For each row of ``logits`` ([batch, classes]) and of ``uniforms`` ([batch,
    samples] in [0, 1)), the class each uniform picks (int64)."""
    values = logits.astype(np.float64)
    finite = np.isfinite(values)
    peak = np.max(np.where(finite, values, -np.inf), axis=1, keepdims=True,
                  initial=-np.inf)
    peak[~np.isfinite(peak)] = 0.0               # a row with no finite logit weighs 0
    weights = np.where(finite, np.exp(np.where(finite, values - peak, 0.0)), 0.0)
    cdf = np.cumsum(weights, axis=1)
    out = np.empty(uniforms.shape, np.int64)
    for row in range(values.shape[0]):
        total = cdf[row, -1] if cdf.shape[1] else 0.0
        out[row] = np.searchsorted(cdf[row], uniforms[row] * total, side="right")
    return out


@register_kernel("Multinomial", HOST)
def build_multinomial(node):
    a = node.attrs
    stream = node.context.resources.random_stream(node.name, a["seed"], a["seed2"])
    dtype = node.output_dtype

    def multinomial(logits, num_samples):
        count = np.asarray(num_samples)
        if logits.ndim != 2:
            raise invalid_argument(node.name, node.op, f"logits should be a matrix, got "
                                   f"shape {fmt_shape(logits.shape)}")
        if count.ndim != 0:
            raise invalid_argument(node.name, node.op, "num_samples should be a scalar.")
        count = int(count)
        if count < 0:
            raise invalid_argument(node.name, node.op, f"num_samples should be "
                                   f"nonnegative, got {count}")
        if logits.shape[1] == 0:
            raise invalid_argument(node.name, node.op, "num_classes should be positive, "
                                   "got 0")
        with stream.lock:
            uniforms = stream.generator.random((logits.shape[0], count))
        return draw_classes(logits, uniforms).astype(dtype, copy=False)
    return multinomial
