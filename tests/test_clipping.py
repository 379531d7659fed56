"""``ds.global_norm``, ``ds.clip_by_norm`` and ``ds.clip_by_global_norm`` against numpy's
norms, with TF1's edge cases: None entries kept, a zero norm leaving values as they are,
an infinite norm making everything NaN, a lone tensor refused."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

A = np.random.default_rng(7).standard_normal((4, 5)).astype(np.float32)
B = np.random.default_rng(8).standard_normal(3).astype(np.float32) * 10


def run(fetches, graph):
    with ds.Session(graph=graph) as sess:
        return sess.run(fetches)


def norm_of(*arrays):
    return np.sqrt(sum(float(np.sum(a.astype(np.float64) ** 2)) for a in arrays))


def test_global_norm_skips_none():
    g = ds.Graph()
    with g.as_default():
        norm = ds.global_norm([ds.constant(A), None, ds.constant(B)])
    np.testing.assert_allclose(run(norm, g), norm_of(A, B), rtol=1e-6)


@pytest.mark.parametrize("clip", [1.0, 1e6])
def test_clip_by_global_norm_scales_all_by_one_factor(clip):
    g = ds.Graph()
    with g.as_default():
        (ca, none, cb), norm = ds.clip_by_global_norm([ds.constant(A), None, ds.constant(B)],
                                                      clip)
    assert none is None
    got_a, got_b, got_norm = run([ca, cb, norm], g)
    scale = clip / max(norm_of(A, B), clip)
    np.testing.assert_allclose(got_norm, norm_of(A, B), rtol=1e-6)
    np.testing.assert_allclose(got_a, A * scale, rtol=1e-5)
    np.testing.assert_allclose(got_b, B * scale, rtol=1e-5)
    assert norm_of(got_a, got_b) <= clip * (1 + 1e-5)


def test_an_infinite_global_norm_makes_every_value_nan():
    g = ds.Graph()
    with g.as_default():
        (ca, cb), _ = ds.clip_by_global_norm([ds.constant(A), ds.constant([np.inf, 1.0])], 1.0)
    got_a, got_b = run([ca, cb], g)
    assert np.isnan(got_a).all() and np.isnan(got_b).all()


def test_use_norm_replaces_the_computed_one():
    g = ds.Graph()
    with g.as_default():
        (ca,), norm = ds.clip_by_global_norm([ds.constant(A)], 1.0, use_norm=ds.constant(4.0))
    got, got_norm = run([ca, norm], g)
    assert got_norm == 4.0
    np.testing.assert_allclose(got, A / 4.0, rtol=1e-6)


def test_a_list_of_nones_has_a_zero_norm_as_tf1():
    # compute_gradients for a var_list the loss does not reach, clipped before the
    # optimizer says so: TF's norm of nothing is a float32 0, the Nones stay None
    g = ds.Graph()
    with g.as_default():
        clipped, norm = ds.clip_by_global_norm([None, None], 1.0)
        alone = ds.global_norm([None])
    assert clipped == [None, None] and norm.dtype == ds.float32
    assert run([norm, alone], g) == [0.0, 0.0]


def test_a_lone_tensor_is_not_a_list():
    with ds.Graph().as_default():
        with pytest.raises(TypeError, match="t_list should be a sequence"):
            ds.clip_by_global_norm(ds.constant(A), 1.0)


@pytest.mark.parametrize("axes", [None, [1], [0]])
def test_clip_by_norm_over_axes(axes):
    x = np.concatenate([A, np.zeros((1, 5), np.float32)])       # a zero row stays zero
    g = ds.Graph()
    with g.as_default():
        clipped = ds.clip_by_norm(ds.constant(x), 2.0, axes=axes)
    got = run(clipped, g)
    l2 = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=None if axes is None else tuple(axes),
                        keepdims=True))
    np.testing.assert_allclose(got, x * 2.0 / np.maximum(l2, 2.0), rtol=1e-5, atol=1e-7)
    assert np.isfinite(got).all()


def test_clipped_gradients_train_as_tf1_scripts_use_them():
    g = ds.Graph()
    with g.as_default():
        w = ds.Variable(np.float32(10.0), name="w")
        loss = w * w                                   # gradient 20, clipped to 1
        opt = ds.train.GradientDescentOptimizer(0.5)
        grads, variables = zip(*opt.compute_gradients(loss))
        clipped, norm = ds.clip_by_global_norm(grads, 1.0)
        train = opt.apply_gradients(zip(clipped, variables))
        init = ds.global_variables_initializer()
    with ds.Session(graph=g) as sess:
        sess.run(init)
        assert sess.run([norm, train])[0] == pytest.approx(20.0)
        assert sess.run(w) == pytest.approx(9.5)


def test_clip_by_norm_of_zeros_has_a_finite_gradient():
    # sqrt's gradient at 0 is inf: TF's guard takes the norm of ones there instead.
    g = ds.Graph()
    with g.as_default():
        x = ds.constant(np.zeros((2, 3), np.float32))
        (grad,) = ds.gradients(ds.reduce_sum(ds.clip_by_norm(x, 2.0, axes=[1])), [x])
    got = run(grad, g)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, np.ones((2, 3)), rtol=1e-6)   # identity below the clip


def test_clipping_and_normalizing_name_their_results_as_tf():
    """TF 2.21's tensor names, which ported scripts look up."""
    with ds.Graph().as_default():
        a, b = ds.ones([2]), ds.ones([3])
        clipped, norm = ds.clip_by_global_norm([a, b], 1.0)
        again, _ = ds.clip_by_global_norm([a, None], 1.0, use_norm=norm)
        names = [t.name for t in clipped] + [norm.name, again[0].name,
                                             ds.clip_by_value(a, 0.0, 1.0).name,
                                             ds.clip_by_norm(a, 1.0).name,
                                             ds.nn.l2_normalize(a, 0).name,
                                             ds.nn.weighted_cross_entropy_with_logits(
                                                 labels=a, logits=a, pos_weight=2.0).name]
    assert names == ["clip_by_global_norm/clip_by_global_norm/_0:0",
                     "clip_by_global_norm/clip_by_global_norm/_1:0", "global_norm/global_norm:0",
                     "clip_by_global_norm_1/clip_by_global_norm_1/_0:0", "clip_by_value:0",
                     "clip_by_norm:0", "l2_normalize:0", "logistic_loss:0"]
