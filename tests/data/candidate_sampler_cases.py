"""The candidate-sampler programs recorded by make_tf_candidate_samplers.py and run by
tests/test_candidate_samplers_more.py, written once against the TF1 module each side
passes (``tf.compat.v1`` or ``devsession``).  Only deterministic outputs are fetched:
accidental hits, the all-sampler, and the expected counts of true classes when
``unique=False`` (TF's ``p * num_sampled``, whatever was drawn)."""

import numpy as np

# a vocabulary file: csv lines whose last field is the word's count
VOCAB = "the,12\nof,7.5\nand,3\nto,0.5\nx,y,2\n"
UNIGRAMS = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0]


def column(ids):
    return np.array(ids, np.int64).reshape(-1, 1)


def deterministic(tf, vocab_path):
    """name -> the tensors of one deterministic output, run once."""
    nn = tf.nn
    true2 = tf.constant([[1, 2], [3, 4], [5, 1]], tf.int64)
    out = {}
    out["hits"] = list(nn.compute_accidental_hits(
        true2, tf.constant([1, 7, 5, 3, 1], tf.int64), num_true=2))
    out["hits_none"] = list(nn.compute_accidental_hits(
        true2, tf.constant([0, 9], tf.int64), num_true=2))
    out["hits_empty_batch"] = list(nn.compute_accidental_hits(
        tf.zeros([0, 2], tf.int64), tf.constant([1], tf.int64), num_true=2))
    out["hits_no_samples"] = list(nn.compute_accidental_hits(
        true2, tf.zeros([0], tf.int64), num_true=2))
    out["all"] = list(nn.all_candidate_sampler(true2, 2, 6, True))
    out["all_one"] = list(nn.all_candidate_sampler(column([0]), 1, 1, False))
    fixed = [
        ("fixed_unigrams", dict(range_max=9, unigrams=UNIGRAMS)),
        ("fixed_distortion", dict(range_max=9, unigrams=UNIGRAMS, distortion=0.75)),
        ("fixed_reserved", dict(range_max=11, unigrams=UNIGRAMS, num_reserved_ids=2)),
        ("fixed_shard", dict(range_max=4, unigrams=UNIGRAMS, num_reserved_ids=2,
                             num_shards=3, shard=1)),
        ("fixed_vocab", dict(range_max=5, vocab_file=vocab_path, distortion=0.5)),
        ("fixed_vocab_shard", dict(range_max=3, vocab_file=vocab_path, num_reserved_ids=1,
                                   num_shards=2, shard=0)),
    ]
    for name, kwargs in fixed:
        classes = column(range(kwargs["range_max"]))
        out[name] = [nn.fixed_unigram_candidate_sampler(classes, 1, 7, False, seed=3,
                                                        **kwargs)[1]]
    return out


def learned(tf):
    """The learned sampler's expected counts of true classes, run three times: each run
    counts the true classes it saw before the next."""
    classes = tf.constant([[0, 3], [0, 5], [3, 3]], tf.int64)
    return [tf.nn.learned_unigram_candidate_sampler(classes, 2, 4, False, 6, seed=1)[1]]
