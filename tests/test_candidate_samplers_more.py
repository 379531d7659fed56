"""``ds.nn.learned_unigram_candidate_sampler``, ``fixed_unigram_candidate_sampler``,
``all_candidate_sampler`` and ``compute_accidental_hits`` (TF's ops of those names,
``ops/candidate_sampling.py``, kernels ``reference/candidate_sampling.py``).

What is deterministic equals TF 2.21's, recorded by
tests/data/make_tf_candidate_samplers.py (programs in candidate_sampler_cases.py):
accidental hits, the all-sampler, the expected counts of true classes without
``unique`` (the fixed sampler's weights from unigrams or a vocabulary file, distorted,
reserved and sharded; the learned sampler's over three runs, as it learns), and TF's
errors.  The draws are numpy's (devsession's random ops do not replay TF's stateful
streams), so of them the tests check what TF promises: the range, distinct classes with
``unique``, frequencies that follow the weights, and expected counts by TF's formula."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import candidate_sampler_cases as cases
import devsession as ds
from tf_recorded import DATA

TF = json.load(open(os.path.join(DATA, "tf_candidate_samplers.json")))
UNIGRAMS = np.array(cases.UNIGRAMS, np.float32)


def tf_values(entries):
    return [np.array(e["value"], e["dtype"]).reshape(e["shape"]) for e in entries]


@pytest.fixture()
def vocab_path(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text(cases.VOCAB)
    return str(path)


def run(fetches, runs=1):
    with ds.Session() as sess:
        return [sess.run(fetches) for _ in range(runs)]


def test_deterministic_outputs_equal_tfs(vocab_path):
    ds.reset_default_graph()
    fetches = cases.deterministic(ds, vocab_path)
    (got,) = run(fetches)
    assert set(got) == set(TF["values"])
    for name, values in got.items():
        for value, want in zip(values, tf_values(TF["values"][name])):
            assert value.dtype == want.dtype, name
            np.testing.assert_array_equal(value, want, err_msg=name)


def test_learned_sampler_learns_the_true_classes_as_tf():
    ds.reset_default_graph()
    counts = run(cases.learned(ds), runs=3)
    for got, want in zip(counts, TF["learned"]):
        np.testing.assert_array_equal(got[0], tf_values(want)[0])


def test_static_shapes_and_op_types():
    ds.reset_default_graph()
    classes = ds.placeholder(ds.int64, [None, 2])
    sampled, true_count, sampled_count = ds.nn.fixed_unigram_candidate_sampler(
        classes, 2, 3, True, 9, unigrams=UNIGRAMS)
    assert (sampled.shape.as_list(), true_count.shape.as_list(),
            sampled_count.shape.as_list()) == ([3], [None, 2], [3])
    assert sampled.op.type == "FixedUnigramCandidateSampler"
    indices, ids, weights = ds.nn.compute_accidental_hits(classes, sampled, 2)
    assert [t.shape.as_list() for t in (indices, ids, weights)] == [[None]] * 3
    assert [t.dtype for t in (indices, ids, weights)] == [ds.int32, ds.int64, ds.float32]
    assert ds.random.all_candidate_sampler is ds.nn.all_candidate_sampler
    assert ds.random.learned_unigram_candidate_sampler is \
        ds.nn.learned_unigram_candidate_sampler


def test_fixed_draws_follow_the_weights_and_never_a_weightless_class():
    ds.reset_default_graph()
    sampled, _, sampled_count = ds.nn.fixed_unigram_candidate_sampler(
        cases.column([0]), 1, 20000, False, 11, unigrams=UNIGRAMS, num_reserved_ids=2,
        seed=5)
    (got,) = run([sampled, sampled_count])
    weights = np.concatenate([[0.0, 0.0], UNIGRAMS])
    frequency = np.bincount(got[0], minlength=11) / 20000
    np.testing.assert_allclose(frequency, weights / weights.sum(), atol=0.01)
    assert frequency[:2].sum() == 0
    np.testing.assert_array_equal(
        got[1], (weights[got[0]] / weights.sum()).astype(np.float32) * np.float32(20000))


@pytest.mark.parametrize("sampler", ["fixed", "learned"])
def test_unique_draws_are_distinct_with_tfs_expected_counts(sampler):
    ds.reset_default_graph()
    true = cases.column([0, 4, 5])
    if sampler == "fixed":
        out = ds.nn.fixed_unigram_candidate_sampler(true, 1, 6, True, 9, unigrams=UNIGRAMS,
                                                    seed=2)
        p = UNIGRAMS / UNIGRAMS.sum()
    else:
        out = ds.nn.learned_unigram_candidate_sampler(true, 1, 6, True, 9, seed=2)
        p = np.full(9, 1 / 9, np.float32)      # before it learns: its first run only
    for classes, true_expected, sampled_expected in run(list(out),
                                                        runs=4 if sampler == "fixed" else 1):
        assert len(set(classes.tolist())) == 6 and 0 <= classes.min() and classes.max() < 9
        if np.allclose(sampled_expected, p[classes] * 6):   # no class came up twice
            tries = np.full(6, 6.0)
        else:
            tries = np.log1p(-sampled_expected.astype(np.float64)) / np.log1p(-p[classes])
        assert np.allclose(tries, np.round(tries[0]), rtol=1e-3) and tries[0] >= 6
        want = -np.expm1(np.round(tries[0]) * np.log1p(-p[true.ravel()]))
        if tries[0] == 6:
            want = p[true.ravel()] * 6
        np.testing.assert_allclose(true_expected.ravel(), want, rtol=1e-5)


def test_all_sampler_and_hits_of_size_zero_and_one():
    ds.reset_default_graph()
    hits = ds.nn.compute_accidental_hits(ds.zeros([0, 1], ds.int64),
                                         ds.zeros([0], ds.int64), 1)
    one = ds.nn.compute_accidental_hits(cases.column([4]), ds.constant([4], ds.int64), 1)
    (got,) = run([hits, one])
    assert [v.shape for v in got[0]] == [(0,), (0,), (0,)]
    assert [v.tolist() for v in got[1][:2]] == [[0], [0]]
    assert got[1][2][0] == -np.finfo(np.float32).max


def test_learned_state_is_per_session():
    ds.reset_default_graph()
    count = ds.nn.learned_unigram_candidate_sampler(cases.column([1]), 1, 2, False, 4)[1]
    # weights 1, 1, 1, 1; then class 1's 2 of 5
    np.testing.assert_array_equal(run(count, runs=2), np.float32([[[0.5]], [[0.8]]]))
    assert run(count)[0].tolist() == [[0.5]]           # a new session starts afresh


# --- TF's errors ---------------------------------------------------------------------------

def _build_error(name, build):
    want = TF["errors"][name]
    assert want["class"] in ("ValueError", "TypeError"), name
    ds.reset_default_graph()
    with pytest.raises((ValueError, TypeError)) as info:
        build()
    assert type(info.value).__name__ == want["class"] or isinstance(
        info.value, getattr(__builtins__, want["class"], Exception)), name
    return info.value, want["message"]


def test_build_errors_as_tfs():
    nn, c = ds.nn, cases.column
    error, want = _build_error("all_num_sampled_zero", lambda: nn.all_candidate_sampler(
        c([1]), 1, 0, True))
    assert want in str(error)
    error, want = _build_error("learned_range_zero",
                               lambda: nn.learned_unigram_candidate_sampler(c([0]), 1, 1,
                                                                           False, 0))
    assert want in str(error)
    error, want = _build_error("fixed_shards_zero", lambda: nn.fixed_unigram_candidate_sampler(
        c([1]), 1, 2, False, 3, unigrams=[1.0, 2.0, 3.0], num_shards=0))
    assert want in str(error)
    error, want = _build_error("sampler_int32", lambda: nn.all_candidate_sampler(
        ds.constant([[1]], ds.int32), 1, 2, True))
    assert isinstance(error, TypeError) and "int32" in want and "int64" in str(error)
    error, _ = _build_error("sampler_rank", lambda: nn.all_candidate_sampler(
        ds.constant([1, 2], ds.int64), 1, 2, True))
    assert "Shape must be rank 2 but is rank 1" in str(error)
    error, _ = _build_error("hits_num_true", lambda: nn.compute_accidental_hits(
        ds.constant([[1, 2]], ds.int64), ds.constant([1], ds.int64), num_true=3))
    assert "Dimension must be 3 but is 2" in str(error)
    error, _ = _build_error("hits_sampled_rank", lambda: nn.compute_accidental_hits(
        ds.constant([[1, 2]], ds.int64), ds.constant([[1]], ds.int64), num_true=2))
    assert "Shape must be rank 1 but is rank 2" in str(error)


def _run_cases(vocab_path, bad_vocab):
    nn, c = ds.nn, cases.column
    fixed = nn.fixed_unigram_candidate_sampler
    ph = lambda: ds.placeholder(ds.int64, None, name="true")   # noqa: E731
    rank1 = {"true:0": np.array([1, 2], np.int64)}
    return {
        "hits_run_rank": (lambda: nn.compute_accidental_hits(
            ph(), ds.constant([1], ds.int64), num_true=2), rank1),
        "sampler_run_rank": (lambda: nn.all_candidate_sampler(ph(), 1, 2, True), rank1),
        "sampler_run_columns": (lambda: nn.learned_unigram_candidate_sampler(
            ph(), 2, 2, True, 5), {"true:0": np.array([[1, 2, 3]], np.int64)}),
        "true_out_of_range": (lambda: nn.learned_unigram_candidate_sampler(
            c([1, 7]), 1, 2, False, 5), None),
        "negative_true": (lambda: fixed(c([-1]), 1, 2, False, 3, unigrams=[1.0, 2.0, 3.0]),
                          None),
        "range_too_small": (lambda: fixed(c([1]), 1, 4, True, 3, unigrams=[1.0, 2.0, 3.0]),
                            None),
        "learned_range_too_small": (lambda: nn.learned_unigram_candidate_sampler(
            c([1]), 1, 4, True, 3), None),
        "fixed_neither": (lambda: fixed(c([1]), 1, 2, False, 3), None),
        "fixed_both": (lambda: fixed(c([1]), 1, 2, False, 3, vocab_file=vocab_path,
                                     unigrams=[1.0, 2.0, 3.0]), None),
        "fixed_range": (lambda: fixed(c([1]), 1, 2, False, 4, unigrams=[1.0, 2.0, 3.0]),
                        None),
        "fixed_vocab_range": (lambda: fixed(c([1]), 1, 2, False, 4, vocab_file=vocab_path),
                              None),
        "fixed_bad_vocab": (lambda: fixed(c([1]), 1, 2, False, 2, vocab_file=bad_vocab),
                            None),
        "fixed_missing_vocab": (lambda: fixed(c([1]), 1, 2, False, 2,
                                              vocab_file=bad_vocab + ".missing"), None),
    }


def test_run_errors_as_tfs_naming_the_node(vocab_path, tmp_path):
    bad_vocab = tmp_path / "bad.txt"
    bad_vocab.write_text("a,1\nb,many\n")
    for name, (build, feed) in _run_cases(vocab_path, str(bad_vocab)).items():
        want = TF["errors"][name]
        ds.reset_default_graph()
        out = build()
        with ds.Session() as sess:
            with pytest.raises(getattr(ds.errors, want["class"])) as info:
                sess.run(out, feed)
        message = want["message"]
        if name == "fixed_missing_vocab":
            message = "bad.txt.missing; No such file or directory"
        assert message in str(info.value), name
        assert info.value.node_name == out[0].op.name, name
