"""The candidate samplers' kernels (``devsession/ops/candidate_sampling.py``) and
``ComputeAccidentalHits``, for the reference device and the CPU (``HOST``; GPU sessions
place them on the CPU), as TF's ``candidate_sampler_ops.cc`` and ``range_sampler.cc``.

Every sampler is a *range sampler* over ``[0, range)``: a way to draw a class and the
probability ``p`` of each class.  One run checks the true classes (a matrix of
``num_true`` columns, each in range; with ``unique`` the range at least
``num_sampled``), draws ``num_sampled`` classes from the node's seeded stream
(``resources.random_stream``) under its lock (with ``unique``, drawing on until that many
distinct classes came up, in ``tries`` draws), and gives each true and sampled class
TF's expected count, in float32 as TF computes it: ``p * num_sampled`` when every draw
was kept (always without ``unique``), else ``1 - (1 - p) ** tries``.

The samplers: log-uniform (Zipf) and uniform; *learned unigram*, whose weights start at
1 and grow by one for each true class a run saw (after that run's counts: the state
lives in the session's resources, one per node, as TF's kernel keeps it); *fixed
unigram*, weights from the ``unigrams`` attr or a vocabulary file's last csv field,
raised to ``distortion``, ``num_reserved_ids`` zero weights first, only this shard's ids
(``id % num_shards == shard``); and *all*, which returns ``0..num_sampled-1`` with
expected counts 1.  Every sampler draws TF's classes: its samples (``SimplePhilox``)
from the node's Philox stream, which moves ``512 num_sampled`` blocks on each run (TF's
``ReserveSamples32(2048 num_sampled)``; a unique draw that needs more reads on, as TF's).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ...errors import NotFoundError
from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .philox import SimplePhilox

__all__ = ["build_sampler", "build_accidental_hits", "fixed_unigram_weights"]

_FLOAT_MAX = np.float32(np.finfo(np.float32).max)
_INT32_MAX = 2**31 - 1


class _LogUniform:
    """``P(k) = log((k + 2) / (k + 1)) / log(range + 1)``; a sample is
    ``exp(u * log(range + 1)) - 1`` truncated, for a uniform double ``u`` (two words)."""

    def __init__(self, node, range_max: int):
        self.range = range_max
        self._log_range = math.log1p(range_max)

    def sample(self, random: SimplePhilox) -> int:
        return (int(math.exp(random.rand_double() * self._log_range)) - 1) % self.range

    def probability(self, k) -> np.ndarray:
        k = np.asarray(k, np.float64)
        return (np.log((k + 2.0) / (k + 1.0)) / self._log_range).astype(np.float32)


class _Uniform:
    """A sample is TF's ``Uniform64(range)``."""

    def __init__(self, node, range_max: int):
        self.range = range_max

    def sample(self, random: SimplePhilox) -> int:
        return random.uniform64(self.range)

    def probability(self, k) -> np.ndarray:
        return np.full(np.shape(k), np.float32(1.0 / self.range), np.float32)


class _Weighted:
    """Classes drawn in proportion to weights (``weights`` [range])."""

    def __init__(self, weights: np.ndarray, total):
        self.range = len(weights)
        self.weights = weights
        self.total = total

    def probability(self, k) -> np.ndarray:
        return (self.weights[np.asarray(k)] / self.total).astype(np.float32)


class _LearnedUnigram(_Weighted):
    """Integer weights, all 1 at first; ``update`` counts the true classes a run saw.  A
    sample is TF's ``WeightedPicker``: the class whose run of the cumulative weights
    holds ``Uniform(total)``."""

    def __init__(self, node, range_max: int):
        super().__init__(np.ones(range_max, np.int64), range_max)
        self._cumulative = None

    def sample(self, random: SimplePhilox) -> int:
        if self._cumulative is None:
            self._cumulative = np.cumsum(self.weights)
        return int(np.searchsorted(self._cumulative, random.uniform(int(self.total)),
                                   side="right"))

    def probability(self, k) -> np.ndarray:
        return (self.weights[np.asarray(k)].astype(np.float32)
                / np.float32(self.total)).astype(np.float32)

    def update(self, true_classes: np.ndarray) -> None:
        values = true_classes.reshape(-1)[:max(0, _INT32_MAX - self.total)]
        np.add.at(self.weights, values, 1)
        self.total += len(values)
        self._cumulative = None


def fixed_unigram_weights(attrs: dict, node_name: str, op: str) -> np.ndarray:
    """TF's ``FixedUnigramSampler`` weights (float32): ``num_reserved_ids`` zeros, then
    the unigrams (or each vocabulary line's last csv field) to the power ``distortion``,
    keeping only ids of this shard.  As TF, the ids of the unigrams continue from the
    number of reserved ids this shard kept."""
    vocab_file, unigrams = attrs.get("vocab_file", ""), list(attrs.get("unigrams", ()))
    if isinstance(vocab_file, bytes):
        vocab_file = vocab_file.decode()
    if not vocab_file and not unigrams:
        raise invalid_argument(node_name, op, "Must provide either vocab_file or unigrams.")
    if vocab_file and unigrams:
        raise invalid_argument(node_name, op,
                               "Must only provide one of vocab_file and unigrams.")
    shards, shard = int(attrs.get("num_shards", 1)), int(attrs.get("shard", 0))
    distortion = float(np.float32(attrs.get("distortion", 1.0)))
    weights = [np.float32(0.0) for word in range(int(attrs.get("num_reserved_ids", 0)))
               if word % shards == shard]
    values = unigrams if not vocab_file else _vocabulary_counts(vocab_file, shards, shard,
                                                                len(weights), node_name, op)
    for word, value in enumerate(values, start=len(weights)):
        if vocab_file or word % shards == shard:
            # TF's std::pow of the float count: the double power, rounded to float
            weights.append(np.float32(float(np.float32(value)) ** distortion))
    return np.array(weights, np.float32)


def _vocabulary_counts(path: str, shards: int, shard: int, first: int, node_name: str,
                       op: str) -> list:
    """The counts of this shard's lines of a vocabulary file (each line's last csv
    field), as floats."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
    except FileNotFoundError as err:
        raise NotFoundError(f"{op} node '{node_name}': {path}; No such file or directory",
                            node_name=node_name) from err
    if lines and lines[-1] == "":          # the newline ending the last line
        lines.pop()
    counts = []
    for word, line in enumerate(lines, start=first):
        if word % shards != shard:
            continue
        try:
            counts.append(float(line.split(",")[-1]))
        except ValueError:
            raise invalid_argument(node_name, op,
                                   f"Wrong vocabulary format at line: {line}") from None
    return counts


class _FixedUnigram(_Weighted):
    """A sample is TF's ``DistributionSampler`` (Walker's alias method): a float32 ``r``
    and a bucket ``Uniform(range)``, the bucket when ``r`` is below its probability,
    else its alias."""

    def __init__(self, node, range_max: int):
        weights = fixed_unigram_weights(node.attrs, node.name, node.op)
        if len(weights) != range_max:
            raise invalid_argument(node.name, node.op, f"range is {range_max} must be equal "
                                   f"to weights size  {len(weights)}")
        super().__init__(weights, float(np.sum(weights, dtype=np.float64)))
        self._chance, self._alias = _alias_table(weights)

    def sample(self, random: SimplePhilox) -> int:
        r = random.rand_float()
        bucket = random.uniform(self.range)
        return bucket if r < self._chance[bucket] else int(self._alias[bucket])


def _alias_table(weights: np.ndarray):
    """TF's ``DistributionSampler`` tables: each bucket's float32 chance and its alias,
    paired as TF pairs them (the last short bucket with the last long one, in turn)."""
    n = len(weights)
    total = sum(float(w) for w in weights.tolist())                # in double, in order
    scaled = [float(np.float32(w) * np.float32(n)) / total for w in weights.tolist()]
    alias = list(range(n))
    low = [i for i, p in enumerate(scaled) if p < 1.0]
    high = [i for i, p in enumerate(scaled) if p >= 1.0]
    while high and low:
        short, tall = low.pop(), high.pop()
        alias[short] = tall
        scaled[tall] -= 1.0 - scaled[short]
        (low if scaled[tall] < 1.0 else high).append(tall)
    chance = np.array(scaled, np.float32)
    for i in high + low:                       # rounding left these: always themselves
        chance[i], alias[i] = 1.0, i
    return chance, np.array(alias)


class _All:
    """The classes ``0..num_sampled-1`` themselves, each with expected count 1."""

    def __init__(self, node, range_max: int):
        self.range = range_max


_SAMPLERS = {"LogUniformCandidateSampler": _LogUniform,
             "UniformCandidateSampler": _Uniform,
             "LearnedUnigramCandidateSampler": _LearnedUnigram,
             "FixedUnigramCandidateSampler": _FixedUnigram,
             "AllCandidateSampler": _All}

# the samplers that check their true classes' range at run time as TF 2.21's kernel
# does (the log-uniform and uniform ones check less, as devsession's always have)
_RUN_CHECKED = ("LearnedUnigramCandidateSampler", "FixedUnigramCandidateSampler",
                "AllCandidateSampler")


def _philox_draws(sampler, random: SimplePhilox, count: int, unique: bool):
    """TF's ``SampleBatchGetExpectedCountAvoid``: ``count`` samples (with ``unique``,
    the distinct ones in the order they came up) and the number of samples taken."""
    if not unique:
        return np.array([sampler.sample(random) for _ in range(count)], np.int64), count
    picked: dict = {}
    tries = 0
    while len(picked) < count:
        tries += 1
        picked.setdefault(sampler.sample(random), None)
    return np.fromiter(picked, np.int64, count), tries


def _expected(p: np.ndarray, num_sampled: int, tries: int) -> np.ndarray:
    """TF's ``ExpectedCountHelper``, in float32."""
    p = np.asarray(p, np.float32)
    if tries == num_sampled:
        return (p * np.float32(num_sampled)).astype(np.float32)
    return -np.expm1(np.float32(tries) * np.log1p(-p)).astype(np.float32)


class _SamplerState:
    """A node's sampler, made on its first run (TF makes it with the kernel), and the
    lock its learned weights change under."""

    def __init__(self, sampler):
        self.sampler = sampler
        self.lock = threading.Lock()


def _check_true_classes(node, true_classes, num_true: int, range_max: int) -> None:
    if true_classes.ndim != 2:
        raise invalid_argument(node.name, node.op, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise invalid_argument(node.name, node.op, f"true_classes must have num_true "
                               f"columns, expected: {true_classes.shape[1]} was: {num_true}")
    outside = (true_classes < 0) | (true_classes >= range_max)
    if outside.any():
        raise invalid_argument(node.name, node.op, f"`true_candidate` out of range [0, "
                               f"{range_max}), received {true_classes[outside][0]}")


@register_kernel(tuple(_SAMPLERS), HOST)
def build_sampler(node):
    a = node.attrs
    num_true, num_sampled, unique = int(a["num_true"]), int(a["num_sampled"]), bool(a["unique"])
    range_max = int(a.get("range_max", num_sampled))
    kind = _SAMPLERS[node.op]
    resources = node.context.resources
    stream = resources.random_stream(node.name, a["seed"], a["seed2"])

    def sampler(true_classes):
        state = resources.get_or_put("_candidate_samplers", node.name,
                                     lambda: _SamplerState(kind(node, range_max)))
        if node.op in _RUN_CHECKED:
            _check_true_classes(node, true_classes, num_true, range_max)
        elif true_classes.ndim != 2 or true_classes.shape[1] != num_true:
            raise invalid_argument(node.name, node.op, f"true_classes must be [batch, "
                                   f"{num_true}], got {fmt_shape(true_classes.shape)}")
        if unique and num_sampled > range_max:
            raise invalid_argument(node.name, node.op, "Sampler's range is too small.")
        if kind is _All:
            ones = np.ones(true_classes.shape, np.float32)
            return (np.arange(num_sampled, dtype=np.int64), ones,
                    np.ones(num_sampled, np.float32))
        with state.lock:
            with stream.lock:                   # TF's ReserveSamples32(2048 num_sampled)
                random = SimplePhilox(*stream.reserve(512 * num_sampled))
            sampled, tries = _philox_draws(state.sampler, random, num_sampled, unique)
            counts = (_expected(state.sampler.probability(true_classes), num_sampled, tries),
                      _expected(state.sampler.probability(sampled), num_sampled, tries))
            if hasattr(state.sampler, "update"):
                state.sampler.update(true_classes)
        return (sampled.astype(np.int64), *counts)
    return sampler


@register_kernel("ComputeAccidentalHits", HOST)
def build_accidental_hits(node):
    num_true = int(node.attrs["num_true"])

    def accidental_hits(true_classes, sampled):
        """For each true class that was also sampled: its row, the position of its last
        sampling, and weight ``-FLOAT_MAX`` (to push the sampled logit out)."""
        if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
            raise invalid_argument(node.name, node.op, "true_candidates must be a "
                                   "batch_size * num_true matrix")
        if sampled.ndim != 1:
            raise invalid_argument(node.name, node.op, "sampled_candidates must be a "
                                   "vector, which is typically an output from "
                                   "CandidateSampler")
        position = {int(v): i for i, v in enumerate(sampled.tolist())}
        hits = [(row, position[v]) for row, values in enumerate(true_classes.tolist())
                for v in values if v in position]
        rows = np.array([row for row, _ in hits], np.int32)
        ids = np.array([i for _, i in hits], np.int64)
        return rows, ids, np.full(len(hits), -_FLOAT_MAX, np.float32)
    return accidental_hits
