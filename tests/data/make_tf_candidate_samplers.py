"""Writes tf_candidate_samplers.json: TF 2.21's deterministic outputs of the candidate
samplers (candidate_sampler_cases.py) and its errors, which
tests/test_candidate_samplers_more.py compares devsession's with.  Run with TensorFlow
installed (not a test):

    /work/peers/bin/python tests/data/make_tf_candidate_samplers.py
"""

import json
import os
import sys
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import candidate_sampler_cases as cases  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def plain(value):
    value = np.asarray(value)
    return {"dtype": value.dtype.name, "shape": list(value.shape), "value": value.tolist()}


def error(build, feed=None):
    """The class and message TF raises building or running ``build()``."""
    with tf.Graph().as_default():
        try:
            fetch = build()
            with tf.Session() as sess:
                sess.run(fetch, feed(fetch) if feed else None)
        except Exception as exc:        # noqa: BLE001: recording what TF raises
            lines = getattr(exc, "message", str(exc)).split("\n")
            if lines[0] == "Graph execution error:":    # the kernel's message, after Node:
                lines = lines[[i for i, line in enumerate(lines)
                               if line.startswith("Node: ")][-1] + 1:]
            return {"class": type(exc).__name__, "message": lines[0]}
    return None


def errors(vocab_path, bad_vocab):
    nn = tf.nn
    c = cases.column
    ph = lambda: tf.placeholder(tf.int64, None, name="true")   # noqa: E731
    feed_rank1 = lambda fetch: {"true:0": np.array([1, 2], np.int64)}   # noqa: E731
    fixed = nn.fixed_unigram_candidate_sampler
    return {
        "hits_num_true": error(lambda: nn.compute_accidental_hits(
            tf.constant([[1, 2]], tf.int64), tf.constant([1], tf.int64), num_true=3)),
        "hits_sampled_rank": error(lambda: nn.compute_accidental_hits(
            tf.constant([[1, 2]], tf.int64), tf.constant([[1]], tf.int64), num_true=2)),
        "hits_run_rank": error(lambda: nn.compute_accidental_hits(
            ph(), tf.constant([1], tf.int64), num_true=2), feed_rank1),
        "sampler_run_rank": error(lambda: nn.all_candidate_sampler(ph(), 1, 2, True),
                                  feed_rank1),
        "sampler_run_columns": error(
            lambda: nn.learned_unigram_candidate_sampler(ph(), 2, 2, True, 5),
            lambda fetch: {"true:0": np.array([[1, 2, 3]], np.int64)}),
        "sampler_rank": error(lambda: nn.all_candidate_sampler(
            tf.constant([1, 2], tf.int64), 1, 2, True)),
        "sampler_int32": error(lambda: nn.all_candidate_sampler(
            tf.constant([[1]], tf.int32), 1, 2, True)),
        "true_out_of_range": error(lambda: nn.learned_unigram_candidate_sampler(
            tf.constant(c([1, 7])), 1, 2, False, 5)),
        "negative_true": error(lambda: fixed(
            tf.constant(c([-1])), 1, 2, False, 3, unigrams=[1.0, 2.0, 3.0])),
        "range_too_small": error(lambda: fixed(
            tf.constant(c([1])), 1, 4, True, 3, unigrams=[1.0, 2.0, 3.0])),
        "learned_range_too_small": error(lambda: nn.learned_unigram_candidate_sampler(
            tf.constant(c([1])), 1, 4, True, 3)),
        "all_num_sampled_zero": error(lambda: nn.all_candidate_sampler(
            tf.constant(c([1])), 1, 0, True)),
        "learned_range_zero": error(lambda: nn.learned_unigram_candidate_sampler(
            tf.constant(c([0])), 1, 1, False, 0)),
        "fixed_neither": error(lambda: fixed(tf.constant(c([1])), 1, 2, False, 3)),
        "fixed_both": error(lambda: fixed(tf.constant(c([1])), 1, 2, False, 3,
                                          vocab_file=vocab_path, unigrams=[1.0, 2.0, 3.0])),
        "fixed_range": error(lambda: fixed(tf.constant(c([1])), 1, 2, False, 4,
                                           unigrams=[1.0, 2.0, 3.0])),
        "fixed_vocab_range": error(lambda: fixed(tf.constant(c([1])), 1, 2, False, 4,
                                                 vocab_file=vocab_path)),
        "fixed_bad_vocab": error(lambda: fixed(tf.constant(c([1])), 1, 2, False, 2,
                                               vocab_file=bad_vocab)),
        "fixed_missing_vocab": error(lambda: fixed(tf.constant(c([1])), 1, 2, False, 2,
                                                   vocab_file=bad_vocab + ".missing")),
        "fixed_shards_zero": error(lambda: fixed(tf.constant(c([1])), 1, 2, False, 3,
                                                 unigrams=[1.0, 2.0, 3.0], num_shards=0)),
    }


def main():
    directory = tempfile.mkdtemp()
    vocab_path = os.path.join(directory, "vocab.txt")
    bad_vocab = os.path.join(directory, "bad.txt")
    with open(vocab_path, "w") as f:
        f.write(cases.VOCAB)
    with open(bad_vocab, "w") as f:
        f.write("a,1\nb,many\n")
    record = {"values": {}, "learned": []}
    with tf.Graph().as_default():
        fetches = cases.deterministic(tf, vocab_path)
        learned = cases.learned(tf)
        with tf.Session() as sess:
            for name, got in sess.run(fetches).items():
                record["values"][name] = [plain(v) for v in got]
            for _ in range(3):
                record["learned"].append([plain(v) for v in sess.run(learned)])
    record["errors"] = errors(vocab_path, bad_vocab)
    with open(os.path.join(HERE, "tf_candidate_samplers.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
