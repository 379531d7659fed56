"""``ds.nn.fractional_max_pool`` / ``fractional_avg_pool`` (``ops/nn_fractional_pool.py``,
``kernels/reference/fractional_pool.py``) against TensorFlow 2.21, recorded by
tests/data/make_tf_fractional_pool.py on the cases of fractional_pool_cases.py: seeded
(deterministic) pools give TF's very pooling sequences (TF's Philox stream), outputs and
gradients; random and pseudo-random sequences, overlapping or not, float and int
inputs, ratios of 1 and 2; TF's errors.  Unseeded pools are checked for what a sequence
must be, and the gradient ops against finite differences."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import fractional_pool_cases
from gradient_check import check_op_gradient

HERE = os.path.join(os.path.dirname(__file__), "data")
EXPECTED = np.load(os.path.join(HERE, "tf_fractional_pool.npz"))
with open(os.path.join(HERE, "tf_fractional_pool_errors.json")) as f:
    ERRORS = json.load(f)


@pytest.mark.parametrize("name", sorted(fractional_pool_cases.CASES))
def test_seeded_pools_give_tfs_sequences_values_and_gradients(name):
    for run, values in enumerate(fractional_pool_cases.run(ds, name)):
        for k, got in enumerate(values):
            want = EXPECTED[f"{name}/{run}/{k}"]
            assert (got.shape, got.dtype) == (want.shape, want.dtype), (name, run, k)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6,
                                       err_msg=f"{name}/{run}/{k}")


@pytest.mark.parametrize("key", sorted(ERRORS))
def test_pools_refuse_what_tf_refuses(key):
    kind, message = ERRORS[key]
    got_kind, got_message = fractional_pool_cases.errors(ds)[key]
    assert got_kind == kind
    if kind == "ValueError" and " for '" in message:      # TF's node def follows
        message = message[:message.index(" for '") + 6]
    assert message in got_message


@pytest.mark.parametrize("pseudo", [False, True])
def test_unseeded_sequences_are_valid_and_drawn_anew(pseudo):
    x = ds.constant(np.zeros((1, 23, 23, 1), np.float32))
    _, rows, cols = ds.nn.fractional_max_pool(x, [1, 2.3, 1.6, 1], pseudo_random=pseudo)
    seen = set()
    with ds.Session() as sess:
        for _ in range(8):
            r, c = sess.run([rows, cols])
            for seq, n in ((r, 23), (c, 23)):
                k = 23 // (len(seq) - 1)
                assert seq[0] == 0 and seq[-1] == n
                assert set(np.diff(seq)) <= {k, k + 1}
            seen.add((tuple(r), tuple(c)))
    assert len(seen) > 1


@pytest.mark.parametrize("overlapping", [False, True])
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_the_gradient_ops_match_finite_differences(kind, overlapping):
    rng = np.random.default_rng(3)
    x = rng.permutation(2 * 7 * 9 * 2).reshape(2, 7, 9, 2).astype(np.float64) / 10
    pool = ds.nn.fractional_max_pool if kind == "max" else ds.nn.fractional_avg_pool
    check_op_gradient(lambda v: pool(v, [1, 1.6, 2.2, 1], overlapping=overlapping,
                                     pseudo_random=True, deterministic=True, seed=4,
                                     seed2=1)[0], [x])
