"""Candidate sampling and the sampled losses that train large softmaxes (word2vec's
``tf.nn.nce_loss``, ``tf.nn.sampled_softmax_loss``), as TF1's.

Ops (TF's op types and attrs; random and stateful, drawn on the host from the node's
seeded stream like the other random ops):

* ``LogUniformCandidateSampler(true_classes)``: ``num_sampled`` classes from
  ``[0, range_max)`` with ``P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)`` (Zipf,
  for classes sorted by frequency); ``UniformCandidateSampler``: ``P(k) = 1 /
  range_max``.  Outputs ``sampled_candidates`` (int64), and the *expected counts* of
  each true class and each sample: ``p * num_sampled``, or with ``unique`` (sampling
  without replacement, by drawing until ``num_sampled`` distinct classes came up in
  ``tries`` draws) ``1 - (1 - p) ** tries``, as TF's range samplers compute them.
* ``LearnedUnigramCandidateSampler``: ``P(k)`` in proportion to 1 + the number of times
  ``k`` was a true class in the node's earlier runs; ``FixedUnigramCandidateSampler``:
  in proportion to given counts (``unigrams``, or a ``vocab_file`` of csv lines ending in
  a count) to the power ``distortion``, after ``num_reserved_ids`` ids of weight 0, one
  shard of ``num_shards`` (``id % num_shards == shard``); ``AllCandidateSampler``: the
  classes ``0..num_sampled-1``, expected counts 1.  These three check their arguments at
  run time, as TF's kernels (only the rank of ``true_classes`` at build).
* ``ComputeAccidentalHits(true_classes, sampled_candidates)``: the (row, sample
  position, ``-FLOAT_MAX``) of each true class that was also sampled, deterministic.

``nce_loss`` and ``sampled_softmax_loss`` build TF's ``_compute_sampled_logits`` from
ops devsession has: the true and sampled classes' weights by one ``embedding_lookup``,
their logits less ``log(expected count)``, optionally the sampled logits of classes that
are also true labels ("accidental hits") pushed to ``-FLOAT_MAX``; then a sigmoid
(NCE) or softmax cross entropy per example.  Passing ``sampled_values`` (a sampler's
three outputs) makes the loss deterministic.  Kernels: ``kernels/reference/
candidate_sampling.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array import concat, expand_dims, reshape, stop_gradient
from .array_fill import ones_like, shape, zeros_like
from .array_index import embedding_lookup
from .elementwise import cast, equal, log, multiply, where
from .linalg import matmul
from .nn import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2
from .random import _seeds, skip_seed
from .reduce import reduce_any, reduce_sum
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["log_uniform_candidate_sampler", "uniform_candidate_sampler",
           "learned_unigram_candidate_sampler", "fixed_unigram_candidate_sampler",
           "all_candidate_sampler", "compute_accidental_hits", "nce_loss",
           "sampled_softmax_loss", "SAMPLERS"]

SAMPLERS = ("LogUniformCandidateSampler", "UniformCandidateSampler",
            "LearnedUnigramCandidateSampler", "FixedUnigramCandidateSampler",
            "AllCandidateSampler")
_FLOAT_MAX = float(np.finfo(np.float32).max)


def _sampler(inputs, attrs, node):
    (true_classes,) = inputs
    if true_classes.dtype != dtypes.int64:
        raise TypeError(f"Op '{node}': true_classes '{true_classes.name}' must be int64, "
                        f"not {true_classes.dtype.name}.")
    num_true, num_sampled = int(attrs["num_true"]), int(attrs["num_sampled"])
    range_max = int(attrs["range_max"])
    if num_true < 1 or num_sampled < 1 or range_max < 1:
        raise InferError(f"Op '{node}': num_true, num_sampled and range_max must be "
                         f"positive, got {num_true}, {num_sampled}, {range_max}.")
    if attrs["unique"] and num_sampled > range_max:
        raise InferError(f"Op '{node}': num_sampled ({num_sampled}) cannot exceed "
                         f"range_max ({range_max}) when sampling unique classes.")
    given = true_classes.shape
    if given.ndims not in (None, 2) or (given.ndims == 2 and given.dims[1] not in (None,
                                                                                     num_true)):
        raise InferError(f"Op '{node}': true_classes must be [batch, num_true={num_true}], "
                         f"got {given}.")
    batch = given.dims[0] if given.ndims == 2 else None
    return [(dtypes.int64, TensorShape([num_sampled])),
            (dtypes.float32, TensorShape([batch, num_true])),
            (dtypes.float32, TensorShape([num_sampled]))]


def _at_least(op_type: str, attrs, name: str, minimum: int) -> None:
    """TF's check of an int attr's minimum (ValueError at build)."""
    if int(attrs[name]) < minimum:
        raise InferError(f"Attr '{name}' of '{op_type}' Op passed {int(attrs[name])} less "
                         f"than minimum {minimum}.")


def _rank(node, spec, rank: int, what: str) -> None:
    if spec.shape.ndims not in (None, rank):
        raise InferError(f"Op '{node}': Shape must be rank {rank} but is rank "
                         f"{spec.shape.ndims} for {what} '{spec.name}' with shape "
                         f"{spec.shape}.")


def _run_checked_sampler(op_type: str):
    """The inference of the samplers that check their arguments at run time, as TF's:
    the attrs' minimums, true_classes int64 of rank 2."""
    def infer(inputs, attrs, node):
        (true_classes,) = inputs
        minimums = {"num_true": 1, "num_sampled": 1, "range_max": 1, "num_shards": 1,
                    "shard": 0}
        for name, minimum in minimums.items():
            if name in attrs:
                _at_least(op_type, attrs, name, minimum)
        if true_classes.dtype != dtypes.int64:
            raise TypeError(f"Input 'true_classes' of '{op_type}' Op has type "
                            f"{true_classes.dtype.name} that does not match expected type "
                            f"of int64.")
        _rank(node, true_classes, 2, "true_classes")
        batch = true_classes.shape.dims[0] if true_classes.shape.ndims == 2 else None
        num_sampled = int(attrs["num_sampled"])
        return [(dtypes.int64, TensorShape([num_sampled])),
                (dtypes.float32, TensorShape([batch, int(attrs["num_true"])])),
                (dtypes.float32, TensorShape([num_sampled]))]
    return infer


def _accidental_hits(inputs, attrs, node):
    true_classes, sampled = inputs
    num_true = int(attrs["num_true"])
    for name, spec in (("true_classes", true_classes), ("sampled_candidates", sampled)):
        if spec.dtype != dtypes.int64:
            raise TypeError(f"Input '{name}' of 'ComputeAccidentalHits' Op has type "
                            f"{spec.dtype.name} that does not match expected type of int64.")
    _rank(node, true_classes, 2, "true_classes")
    columns = true_classes.shape.dims[1] if true_classes.shape.ndims == 2 else None
    if columns is not None and columns != num_true:
        raise InferError(f"Op '{node}': Dimension must be {num_true} but is {columns} for "
                         f"true_classes '{true_classes.name}' with shape "
                         f"{true_classes.shape}.")
    _rank(node, sampled, 1, "sampled_candidates")
    return [(dtypes.int32, TensorShape([None])), (dtypes.int64, TensorShape([None])),
            (dtypes.float32, TensorShape([None]))]


_SEEDS = {"seed": 0, "seed2": 0}
for _name in SAMPLERS[:2]:
    register_op(OpDef(_name, _sampler, 1, stateful=True, draws=True, attr_defaults=_SEEDS))
for _name in SAMPLERS[2:]:
    register_op(OpDef(_name, _run_checked_sampler(_name), 1, stateful=True, draws=True,
                      attr_defaults=_SEEDS if _name != "FixedUnigramCandidateSampler" else {
                          **_SEEDS, "vocab_file": "", "distortion": 1.0,
                          "num_reserved_ids": 0, "num_shards": 1, "shard": 0,
                          "unigrams": ()}))
register_op(OpDef("ComputeAccidentalHits", _accidental_hits, 2, attr_defaults=_SEEDS))
not_differentiable(*SAMPLERS, "ComputeAccidentalHits")


def _sample(op_type: str, true_classes, num_true, num_sampled, unique, range_max, seed,
            name, **attrs):
    seed1, seed2 = _seeds(seed)
    classes = convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
    if range_max is not None:
        attrs["range_max"] = int(range_max)
    op = classes.graph.create_op(op_type, [classes], {
        "num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
        **attrs, "seed": seed1, "seed2": seed2}, name=name or op_type)
    return tuple(op.outputs)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """``(sampled_candidates, true_expected_count, sampled_expected_count)`` drawn
    log-uniformly, as TF1's ``tf.nn.log_uniform_candidate_sampler``."""
    return _sample("LogUniformCandidateSampler", true_classes, num_true, num_sampled,
                   unique, range_max, seed, name)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """As ``log_uniform_candidate_sampler``, every class equally likely."""
    return _sample("UniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                   range_max, seed, name)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique,
                                      range_max, seed=None, name=None):
    """As ``log_uniform_candidate_sampler``, each class in proportion to 1 + the times
    it was a true class in the node's earlier runs (TF1's
    ``tf.nn.learned_unigram_candidate_sampler``)."""
    return _sample("LearnedUnigramCandidateSampler", true_classes, num_true, num_sampled,
                   unique, range_max, seed, name)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None,
                                    name=None):
    """As ``log_uniform_candidate_sampler``, each class in proportion to its count (from
    ``unigrams`` or ``vocab_file``, one of them) to the power ``distortion``, after
    ``num_reserved_ids`` classes of count 0, this ``shard`` of ``num_shards``; the
    counts must give ``range_max`` classes (InvalidArgumentError at run otherwise), as
    TF1's ``tf.nn.fixed_unigram_candidate_sampler``."""
    return _sample("FixedUnigramCandidateSampler", true_classes, num_true, num_sampled,
                   unique, range_max, seed, name, vocab_file=str(vocab_file),
                   distortion=float(distortion), num_reserved_ids=int(num_reserved_ids),
                   num_shards=int(num_shards), shard=int(shard),
                   unigrams=tuple(float(u) for u in unigrams))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class ``0..num_sampled-1``, each with expected count 1 (TF1's
    ``tf.nn.all_candidate_sampler``, for testing the sampled losses)."""
    return _sample("AllCandidateSampler", true_classes, num_true, num_sampled, unique, None,
                   seed, name)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None,
                            name=None):
    """``(indices, ids, weights)``: for each true class of row ``indices[i]`` that is also
    ``sampled_candidates[ids[i]]`` (its last position there), ``weights[i] = -FLOAT_MAX``,
    to add to that sampled logit (TF1's ``tf.nn.compute_accidental_hits``)."""
    seed1, seed2 = _seeds(seed)
    classes = convert_to_tensor(true_classes, name="true_classes")
    sampled = convert_to_tensor(sampled_candidates, name="sampled_candidates")
    op = classes.graph.create_op("ComputeAccidentalHits", [classes, sampled], {
        "num_true": int(num_true), "seed": seed1, "seed2": seed2},
        name=name or "ComputeAccidentalHits")
    return tuple(op.outputs)


# --- the sampled losses --------------------------------------------------------------------------

def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):
    """Noise-contrastive estimation: per example, the sigmoid cross entropies of its true
    classes (label ``1 / num_true``) and the sampled ones (label 0), summed: TF1's
    ``tf.nn.nce_loss`` ([batch] losses)."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled,
                                      num_classes, num_true, sampled_values,
                                      remove_accidental_hits, partition_strategy, name)
    losses = sigmoid_cross_entropy_with_logits(labels=targets, logits=logits,
                                               name="sampled_losses")
    return reduce_sum(losses, axis=1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """The softmax cross entropy over each example's true classes and the sampled ones:
    TF1's ``tf.nn.sampled_softmax_loss`` ([batch] losses)."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled,
                                      num_classes, num_true, sampled_values,
                                      remove_accidental_hits, partition_strategy, name, seed)
    return softmax_cross_entropy_with_logits_v2(
        labels=stop_gradient(targets, name="labels_stop_gradient"), logits=logits)


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, remove_accidental_hits, partition_strategy, name,
                    seed=None):
    """TF's ``_compute_sampled_logits``: ``(logits, labels)``, each [batch, num_true +
    num_sampled], the true classes first."""
    weights = list(weights) if isinstance(weights, (list, tuple)) else [weights]
    with name_scope(name or "compute_sampled_logits"):
        labels = cast(convert_to_tensor(labels), dtypes.int64)
        inputs = convert_to_tensor(inputs)
        flat_labels = reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled,
                                                           True, num_classes, seed=seed)
        sampled, true_count, sampled_count = (stop_gradient(v) for v in sampled_values)
        sampled = cast(sampled, dtypes.int64)
        true_ids = shape(flat_labels)[0]
        all_ids = concat([flat_labels, sampled], 0)
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w, all_b = cast(all_w, inputs.dtype), cast(all_b, inputs.dtype)
        true_w, sampled_w = all_w[:true_ids], all_w[true_ids:]
        true_b, sampled_b = all_b[:true_ids], all_b[true_ids:]
        dim = shape(true_w)[1:2]
        rows = multiply(expand_dims(inputs, 1),
                        reshape(true_w, concat([[-1, num_true], dim], 0)))
        true_logits = reduce_sum(rows, axis=2) + reshape(true_b, [-1, num_true])
        sampled_logits = matmul(inputs, sampled_w, transpose_b=True) + sampled_b
        if remove_accidental_hits:
            skip_seed()             # TF's compute_accidental_hits op takes one, unseeded
            hit = reduce_any(equal(expand_dims(labels, 2), reshape(sampled, [1, 1, -1])),
                             axis=1)
            sampled_logits = where(hit, sampled_logits - _FLOAT_MAX, sampled_logits)
        true_logits = true_logits - log(true_count)
        sampled_logits = sampled_logits - log(sampled_count)
        logits = concat([true_logits, sampled_logits], 1)
        targets = concat([ones_like(true_logits) / float(num_true),
                          zeros_like(sampled_logits)], 1)
        return logits, targets

