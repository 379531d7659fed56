"""The candidate samplers (``ds.nn.log_uniform_candidate_sampler``,
``uniform_candidate_sampler``): their distributions, uniqueness, expected counts and
seeding, and the errors they raise.  The sampled losses built on them are checked
against TensorFlow by tests/tf1_programs/p34_word2vec.py."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

LABELS = np.array([[0], [3], [9]], np.int64)


def log_uniform(k, range_max):
    return np.log((k + 2) / (k + 1)) / np.log(range_max + 1)


def test_log_uniform_draws_follow_zipf():
    drawn, true_count, sampled_count = ds.nn.log_uniform_candidate_sampler(
        LABELS, 1, 20000, False, 10, seed=1)
    with ds.Session() as sess:
        got = sess.run([drawn, true_count, sampled_count])
    frequency = np.bincount(got[0], minlength=10) / 20000
    np.testing.assert_allclose(frequency, log_uniform(np.arange(10), 10), atol=0.01)
    np.testing.assert_allclose(got[1], log_uniform(LABELS, 10) * 20000, rtol=1e-6)
    np.testing.assert_allclose(got[2], log_uniform(got[0], 10) * 20000, rtol=1e-6)


def test_unique_draws_are_distinct_and_their_counts_share_one_number_of_tries():
    drawn, true_count, sampled_count = ds.nn.log_uniform_candidate_sampler(
        LABELS, 1, 6, True, 10, seed=2)
    with ds.Session() as sess:
        for _ in range(5):
            classes, true_expected, sampled_expected = sess.run([drawn, true_count,
                                                                 sampled_count])
            assert len(set(classes.tolist())) == 6 and classes.max() < 10
            p = log_uniform(classes, 10)
            tries = np.log1p(-sampled_expected.astype(np.float64)) / np.log1p(-p)
            assert np.allclose(tries, np.round(tries[0]), rtol=1e-4) and tries[0] >= 6
            np.testing.assert_allclose(
                true_expected, -np.expm1(np.round(tries[0]) * np.log1p(-log_uniform(LABELS,
                                                                                     10))),
                rtol=1e-5)


def test_uniform_draws_and_seeding():
    def draws(seed):
        ds.reset_default_graph()
        drawn = ds.nn.uniform_candidate_sampler(LABELS, 1, 8, False, 4, seed=seed)[0]
        with ds.Session() as sess:
            return [sess.run(drawn).tolist() for _ in range(2)]
    first, second = draws(7)
    assert first == draws(7)[0] and first != second
    assert set(first) <= {0, 1, 2, 3}


def test_bad_sampler_arguments():
    with pytest.raises(ValueError, match="cannot exceed range_max"):
        ds.nn.log_uniform_candidate_sampler(LABELS, 1, 11, True, 10)
    with pytest.raises(TypeError, match="int64"):
        ds.nn.log_uniform_candidate_sampler(ds.constant([[1]]), 1, 2, True, 10)
    with pytest.raises(ValueError, match="num_true=2"):
        ds.nn.uniform_candidate_sampler(LABELS, 2, 2, True, 10)
