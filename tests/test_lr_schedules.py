"""``ds.train``'s learning-rate schedules against the values TensorFlow computed for the
same arguments at the same global steps (tests/data/tf_lr_schedules.json, written by
tests/data/make_tf_lr_schedules.py), their errors, and one driving an optimizer."""

from __future__ import annotations

import json
import re
import os

import numpy as np
import pytest

import devsession as ds
import lr_schedule_cases as CASES

DATA = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(DATA, "tf_lr_schedules.json")) as f:
    RECORDED = json.load(f)


@pytest.mark.parametrize("case", sorted(CASES.CASES))
def test_schedule_matches_tensorflow(case):
    fn, kwargs = CASES.CASES[case]
    g = ds.Graph()
    with g.as_default():
        step = ds.placeholder(ds.int64, (), name="global_step")
        rate = getattr(ds.train, fn)(**{k: (step if v == "STEP" else v)
                                        for k, v in kwargs.items()})
    assert rate.dtype == ds.float32
    with ds.Session(graph=g) as sess:
        got = [float(sess.run(rate, {step: s})) for s in RECORDED["steps"]]
    # atol: two float32 steps at the rate's scale (0.1), for 1 + cos(x) near x = pi,
    # where the last bit of cos (TF's against numpy's) weighs most
    np.testing.assert_allclose(got, RECORDED["values"][case], rtol=2e-6, atol=2e-8)


def test_noisy_linear_cosine_decay_draws_noise_of_the_decaying_variance():
    """No TF values to match (its noise is its own draw): the rate's mean is
    linear_cosine_decay's, its spread sqrt(initial_variance / (1 + step) ** decay)
    times lr * cosine, and every run draws anew."""
    g = ds.Graph()
    with g.as_default():
        ds.set_random_seed(7)           # the same draws each time: the bounds cannot flake
        step = ds.placeholder(ds.int64, (), name="global_step")
        kwargs = dict(learning_rate=0.1, global_step=step, decay_steps=100, alpha=0.1)
        noisy = ds.train.noisy_linear_cosine_decay(initial_variance=0.5, variance_decay=0.55,
                                                   **kwargs)
        plain = ds.train.linear_cosine_decay(**kwargs)
    with ds.Session(graph=g) as sess:
        for s in (0, 20, 80):
            draws = np.array([sess.run(noisy, {step: s}) for _ in range(400)])
            mean = sess.run(plain, {step: s})
            cosine = 0.5 * (1 + np.cos(np.pi * s / 100))
            spread = 0.1 * cosine * np.sqrt(0.5 / (1 + s) ** 0.55)
            assert len(set(draws.tolist())) > 390
            assert abs(draws.mean() - mean) < 4 * spread / np.sqrt(len(draws))
            assert 0.85 * spread < draws.std() < 1.15 * spread


def test_a_decayed_rate_drives_gradient_descent_step_by_step():
    g = ds.Graph()
    with g.as_default():
        gs = ds.train.get_or_create_global_step()
        w = ds.Variable(0.0, name="w")
        lr = ds.train.exponential_decay(1.0, gs, decay_steps=1, decay_rate=0.5)
        train = ds.train.GradientDescentOptimizer(lr).minimize(-w, global_step=gs)  # grad -1
        init = ds.global_variables_initializer()
    with ds.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(4):
            sess.run(train)
        assert sess.run(gs) == 4
        assert sess.run(w) == pytest.approx(1 + 0.5 + 0.25 + 0.125)   # lr at steps 0..3


@pytest.mark.parametrize("fn", ["exponential_decay", "natural_exp_decay",
                                "inverse_time_decay"])
def test_no_global_step_is_a_value_error_naming_the_schedule(fn):
    with ds.Graph().as_default():
        with pytest.raises(ValueError, match=f"global_step is required for {fn}"):
            getattr(ds.train, fn)(0.1, None, 10, 0.5)


def test_piecewise_constant_checks_its_lists():
    with ds.Graph().as_default():
        step = ds.placeholder(ds.int64, ())
        with pytest.raises(ValueError, match="^The length of boundaries should be 1 less "
                                             "than the length of values$"):
            ds.train.piecewise_constant(step, [10, 20], [0.1, 0.01])
        with pytest.raises(ValueError, match=re.escape(
                "Values must have elements all with the same dtype (<dtype: 'float32'> vs "
                "<dtype: 'int32'>).")):
            ds.train.piecewise_constant(step, [10], [ds.constant(1.0), ds.constant(1)])


# (x's dtype, boundaries, the boundary dtype TF 2.21 refuses or None): TF converts each
# boundary as it is (a Python int to int32, a float to float32) and casts only int32
# boundaries to an int64 x; the dtype is checked before the lengths
_BOUNDARY_CASES = [
    ("int32", lambda: [ds.constant(3, ds.int64), 6], "int64"),
    ("int32", lambda: [np.int64(3), 6], "int64"),
    ("float32", lambda: [3, 6], "int32"),
    ("float64", lambda: [3.5, 6.5], "float32"),
    ("int64", lambda: [2.5, 6], "float32"),
    ("int64", lambda: [2.5], "float32"),        # and one value too few
    ("int64", lambda: [ds.constant(3), np.int64(6)], None),
    ("int32", lambda: [3, 6], None),
    ("float32", lambda: [3.0, np.float32(6)], None),
]


def test_piecewise_constant_boundaries_must_have_the_step_dtype_as_tf():
    g = ds.Graph()
    with g.as_default():
        rates = []
        for dtype, boundaries, refused in _BOUNDARY_CASES:
            step = ds.placeholder(dtype, ())
            if refused is None:
                rates.append((step, ds.train.piecewise_constant(step, boundaries(),
                                                                [1, 2, 3])))
                continue
            with pytest.raises(ValueError, match=re.escape(
                    f"Boundaries (<dtype: '{refused}'>) must have the same dtype as x "
                    f"(<dtype: '{dtype}'>).")):
                ds.train.piecewise_constant(step, boundaries(), [1, 2, 3])
    with ds.Session(graph=g) as sess:
        for step, rate in rates:
            assert [int(sess.run(rate, {step: s})) for s in range(8)] == \
                [1, 1, 1, 1, 2, 2, 2, 3]

