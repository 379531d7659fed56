"""The candidate samplers' kernel (``devsession/ops/candidate_sampling.py``), for the
reference device and the CPU (``HOST``; GPU sessions place the op on the CPU): draws
from the node's seeded stream (``resources.random_stream``) under its lock, and TF's
expected counts (range_sampler.cc): ``p * num_sampled``, or ``1 - (1 - p) ** tries``
when ``unique`` made it draw ``tries`` times to find ``num_sampled`` distinct classes.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["build_sampler"]


def _log_uniform(range_max: int):
    log_range = np.log(range_max + 1)

    def draw(generator, count):
        values = np.floor(np.exp(generator.random(count) * log_range)) - 1
        return np.clip(values, 0, range_max - 1).astype(np.int64)

    def probability(k):
        k = np.asarray(k, np.float64)
        return (np.log(k + 2) - np.log(k + 1)) / log_range
    return draw, probability


def _uniform(range_max: int):
    def draw(generator, count):
        return generator.integers(0, range_max, size=count, dtype=np.int64)

    def probability(k):
        return np.full(np.shape(k), 1.0 / range_max)
    return draw, probability


def _unique_draws(draw, generator, count: int):
    """``count`` distinct classes, in the order they first came up, and the number of
    draws that took."""
    picked: dict = {}
    tries = 0
    while len(picked) < count:
        for value in draw(generator, max(2 * (count - len(picked)), 16)).tolist():
            tries += 1
            picked.setdefault(value, None)
            if len(picked) == count:
                break
    return np.fromiter(picked, np.int64, count), tries


@register_kernel(("LogUniformCandidateSampler", "UniformCandidateSampler"), HOST)
def build_sampler(node):
    a = node.attrs
    num_true, num_sampled = int(a["num_true"]), int(a["num_sampled"])
    unique, range_max = bool(a["unique"]), int(a["range_max"])
    draw, probability = (_log_uniform if node.op == "LogUniformCandidateSampler"
                         else _uniform)(range_max)
    stream = node.context.resources.random_stream(node.name, a["seed"], a["seed2"])

    def expected(p, tries: int) -> np.ndarray:
        count = -np.expm1(tries * np.log1p(-p)) if unique else p * num_sampled
        return count.astype(np.float32)

    def sampler(true_classes):
        if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
            raise invalid_argument(node.name, node.op, f"true_classes must be [batch, "
                                   f"{num_true}], got {fmt_shape(true_classes.shape)}")
        with stream.lock:
            if unique:
                sampled, tries = _unique_draws(draw, stream.generator, num_sampled)
            else:
                sampled, tries = draw(stream.generator, num_sampled), num_sampled
        return (sampled, expected(probability(true_classes), tries),
                expected(probability(sampled), tries))
    return sampler
