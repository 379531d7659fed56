"""``ds.reduce_logsumexp`` (``ds.math.reduce_logsumexp``) against numpy in float64: axes,
keepdims and TF1's older keyword spellings, values that would overflow a plain
``log(sum(exp))``, rows of -inf and +inf, and its gradient (the softmax)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

X = np.random.default_rng(3).standard_normal((3, 4, 5)).astype(np.float32) * 4


def reference(x, axis=None, keepdims=False):
    x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def run(x, **kwargs):
    g = ds.Graph()
    with g.as_default():
        y = ds.reduce_logsumexp(ds.constant(x), **kwargs)
    with ds.Session(graph=g) as sess:
        return y, sess.run(y)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_values_and_shapes(axis, keepdims):
    y, got = run(X, axis=axis, keepdims=keepdims)
    want = reference(X, axis, keepdims)
    assert tuple(y.shape.as_list()) == want.shape == np.shape(got)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_tf1_keyword_spellings():
    _, got = run(X, reduction_indices=[1], keep_dims=True)
    np.testing.assert_allclose(got, reference(X, 1, True), rtol=1e-6)


def test_large_and_infinite_values():
    x = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0]],
                 np.float32)
    _, got = run(x, axis=1)
    assert got[0] == pytest.approx(1000.0 + np.log(2.0))     # no overflow
    assert got[1] == -np.inf and got[2] == np.inf and np.isnan(got[3])


def test_the_gradient_is_the_softmax():
    g = ds.Graph()
    with g.as_default():
        x = ds.constant(X)
        (grad,) = ds.gradients(ds.reduce_logsumexp(x, axis=-1), [x])
    with ds.Session(graph=g) as sess:
        got = sess.run(grad)
    e = np.exp(X.astype(np.float64) - X.max(-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)
    assert ds.math.reduce_logsumexp is ds.reduce_logsumexp
