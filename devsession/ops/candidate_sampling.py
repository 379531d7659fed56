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
from .random import _seeds
from .reduce import reduce_any, reduce_sum
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["log_uniform_candidate_sampler", "uniform_candidate_sampler", "nce_loss",
           "sampled_softmax_loss", "SAMPLERS"]

SAMPLERS = ("LogUniformCandidateSampler", "UniformCandidateSampler")
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


for _name in SAMPLERS:
    register_op(OpDef(_name, _sampler, 1, stateful=True, draws=True,
                      attr_defaults={"seed": 0, "seed2": 0}))
not_differentiable(*SAMPLERS)


def _sample(op_type: str, true_classes, num_true, num_sampled, unique, range_max, seed,
            name):
    seed1, seed2 = _seeds(seed)
    classes = convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
    op = classes.graph.create_op(op_type, [classes], {
        "num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
        "range_max": int(range_max), "seed": seed1, "seed2": seed2}, name=name or op_type)
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
            hit = reduce_any(equal(expand_dims(labels, 2), reshape(sampled, [1, 1, -1])),
                             axis=1)
            sampled_logits = where(hit, sampled_logits - _FLOAT_MAX, sampled_logits)
        true_logits = true_logits - log(true_count)
        sampled_logits = sampled_logits - log(sampled_count)
        logits = concat([true_logits, sampled_logits], 1)
        targets = concat([ones_like(true_logits) / float(num_true),
                          zeros_like(sampled_logits)], 1)
        return logits, targets

