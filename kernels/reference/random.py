"""Multinomial's kernel (``devsession/ops/random.py``: ``tf.random.categorical``), for the
reference device and the CPU (``HOST``; ``cuda/random.py`` runs it for the GPU and
uploads), drawing from the node's seeded stream (``resources.random_stream``) under its
lock, as the other random ops (``state.py``; RandomGamma's and RandomPoissonV2's:
``random_rates.py``).

TF's CPU algorithm (multinomial_op.cc), row by row: the weights ``exp(logit - max)``
of the finite logits (the max over the finite ones; a non-finite logit weighs 0), their
running sums ``cdf``, and for each sample a uniform ``u`` in ``[0, 1)``: the class is
the first ``j`` with ``cdf[j] > u * total`` (``searchsorted(..., side="right")``), so a
class of weight 0 is never drawn; a row whose logits are all non-finite has total 0 and
answers ``classes``, as TF's does.  The weights are float64 whatever the logits' dtype.
The uniforms are TF's: one double a sample, row by row, from the node's Philox stream
(``philox.py``), which moves on as TF's reserves (``build_multinomial``), so a seeded
Multinomial draws TF's classes (TF's CPU kernel splits very large batches across its
threads, each part skipping ahead: such batches draw other classes there).
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .philox import blocks, unit_float64

__all__ = ["build_multinomial", "multinomial", "draw_classes", "drawn_shape"]


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


def multinomial_count(node, logits, num_samples) -> int:
    """The number of samples to draw per row of ``logits``, after TF's checks of both
    (InvalidArgumentError naming the node)."""
    count = np.asarray(num_samples)
    if logits.ndim != 2:
        raise invalid_argument(node.name, node.op, f"logits should be a matrix, got "
                               f"shape {fmt_shape(logits.shape)}")
    if count.ndim != 0:
        raise invalid_argument(node.name, node.op, "num_samples should be a scalar.")
    if int(count) < 0:
        raise invalid_argument(node.name, node.op, f"num_samples should be "
                               f"nonnegative, got {int(count)}")
    if logits.shape[1] == 0:
        raise invalid_argument(node.name, node.op, "num_classes should be positive, got 0")
    return int(count)


@register_kernel("Multinomial", HOST)
def build_multinomial(node):
    """TF's values: the stateless op's draws where the node's Philox stream stands, which
    moves ``256 * 2 * rows * ceil4(samples)`` blocks on (TF's reservation)."""
    a = node.attrs
    stream = node.context.resources.random_stream(node.name, a["seed"], a["seed2"])
    dtype = node.output_dtype

    def kernel(logits, num_samples):
        count = multinomial_count(node, logits, num_samples)
        rows = logits.shape[0]
        if rows * count == 0:
            return np.zeros((rows, count), dtype)
        with stream.lock:
            key, counter = stream.reserve(256 * 2 * rows * (-(-count // 4) * 4))
        return multinomial(logits, count, key, counter).astype(dtype, copy=False)
    return kernel


def multinomial(logits: np.ndarray, count: int, key, counter) -> np.ndarray:
    """TF's CPU ``Multinomial`` at a Philox stream's (key, counter): ``count`` classes
    for each row of ``logits``, from one double (two uint32s) a sample, row after row."""
    draws = logits.shape[0] * count
    bits = blocks(key, counter, -(-draws // 2)).reshape(-1, 2)[:draws]
    uniforms = unit_float64(bits[:, 0], bits[:, 1]).reshape(logits.shape[0], count)
    return draw_classes(logits, uniforms)


def drawn_shape(node, shape) -> tuple:
    """A shape input (a vector of sizes) as a tuple; TF's InvalidArgumentError otherwise."""
    dims = np.asarray(shape)
    if dims.ndim != 1:
        raise invalid_argument(node.name, node.op, f"shape must be a vector of {{int32,int64}}"
                               f", got shape {fmt_shape(dims.shape)}")
    if np.any(dims < 0):
        raise invalid_argument(node.name, node.op, f"Dimension {int(np.argmax(dims < 0))} "
                               f"must be >= 0")
    return tuple(int(d) for d in dims)
