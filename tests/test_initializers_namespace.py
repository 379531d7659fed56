"""``ds.initializers`` as TF 1.15's ``tf.initializers``: each name is the initializer it
stands for, the ones devsession added (orthogonal, identity, uniform_unit_scaling, he_*,
lecun_*) give TF's values or distributions, and other names raise
``UnsupportedTF1Error``.  Statistics use samples large enough that a wrong scale or
fan fails by many standard errors."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.unsupported import UnsupportedTF1Error

SAME = [("zeros", "zeros_initializer"), ("ones", "ones_initializer"),
        ("constant", "constant_initializer"), ("random_normal", "random_normal_initializer"),
        ("random_uniform", "random_uniform_initializer"),
        ("truncated_normal", "truncated_normal_initializer"),
        ("variance_scaling", "variance_scaling_initializer"),
        ("glorot_uniform", "glorot_uniform_initializer"),
        ("glorot_normal", "glorot_normal_initializer"),
        ("orthogonal", "orthogonal_initializer"),
        ("uniform_unit_scaling", "uniform_unit_scaling_initializer"),
        ("global_variables", "global_variables_initializer"),
        ("local_variables", "local_variables_initializer"),
        ("variables", "variables_initializer"), ("tables_initializer", "tables_initializer")]

TF115_NAMES = ["constant", "global_variables", "glorot_normal", "glorot_uniform", "he_normal",
               "he_uniform", "identity", "lecun_normal", "lecun_uniform", "local_variables",
               "ones", "orthogonal", "random_normal", "random_uniform", "tables_initializer",
               "truncated_normal", "uniform_unit_scaling", "variables", "variance_scaling",
               "zeros"]


@pytest.mark.parametrize("name,same", SAME, ids=[n for n, _ in SAME])
def test_tf1_spellings(name, same):
    assert getattr(ds.initializers, name) is getattr(ds, same)


def test_every_tf115_name_is_there():
    for name in TF115_NAMES:
        assert name in ds.initializers.__all__
        assert callable(getattr(ds.initializers, name))


def test_other_names_are_named():
    with pytest.raises(UnsupportedTF1Error,
                       match=r"^tf\.initializers\.delta_orthogonal is not supported"):
        ds.initializers.delta_orthogonal
    assert not hasattr(ds.initializers, "delta_orthogonal")


def value(initializer, shape, dtype=ds.float32):
    v = ds.get_variable(f"v{len(ds.global_variables())}", shape, dtype, initializer)
    with ds.Session() as sess:
        sess.run(v.initializer)
        return sess.run(v)


def test_constant_values(graph):
    assert (value(ds.initializers.zeros(), (2, 3)) == 0).all()
    assert (value(ds.initializers.ones(), (4,)) == 1).all()
    np.testing.assert_array_equal(value(ds.initializers.constant([1, 2, 3, 4]), (2, 2)),
                                  [[1, 2], [3, 4]])


def test_identity(graph):
    np.testing.assert_array_equal(value(ds.initializers.identity(), (2, 3)), np.eye(2, 3))
    got = value(ds.initializers.identity(gain=0.5), (3, 3), ds.float64)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, 0.5 * np.eye(3))
    with pytest.raises(ValueError, match="only be used for 2D matrices"):
        ds.initializers.identity()((2, 2, 2))


@pytest.mark.parametrize("make,scale,truncated", [
    (ds.initializers.he_normal, 2.0, True), (ds.initializers.he_uniform, 2.0, False),
    (ds.initializers.lecun_normal, 1.0, True), (ds.initializers.lecun_uniform, 1.0, False)])
def test_he_and_lecun_scale_by_fan_in(make, scale, truncated, graph):
    fan_in, fan_out = 50, 400                 # fan_in chosen apart from fan_out and the mean
    got = value(make(seed=3), (fan_in, fan_out)).ravel()
    variance = scale / fan_in
    assert got.var() == pytest.approx(variance, rel=0.03)
    assert abs(got.mean()) < 0.01
    if truncated:                             # truncated at two stddevs of the untruncated
        assert np.abs(got).max() <= 2 * np.sqrt(variance) / 0.87962566103423978 + 1e-6
    else:
        assert np.abs(got).max() <= np.sqrt(3 * variance) + 1e-6
        assert np.abs(got).max() > 0.99 * np.sqrt(3 * variance)


def test_uniform_unit_scaling(graph):
    # input size: every dimension but the last (3 * 4 * 5 = 60)
    got = value(ds.initializers.uniform_unit_scaling(factor=1.5, seed=4), (3, 4, 5, 200))
    limit = 1.5 * np.sqrt(3.0 / 60)
    assert np.abs(got).max() <= limit + 1e-6 and np.abs(got).max() > 0.99 * limit
    assert got.var() == pytest.approx(limit ** 2 / 3, rel=0.03)
    vector = value(ds.initializers.uniform_unit_scaling(seed=4), (1000,))
    assert np.abs(vector).max() <= np.sqrt(3.0) and np.abs(vector).max() > 0.99 * np.sqrt(3)


def reference_orthogonal(draw: np.ndarray, shape, gain):
    """TF's construction with numpy: the QR of the normal draw, Q's columns signed by R's
    diagonal, transposed back for a wide matrix."""
    q, r = np.linalg.qr(draw)
    q = q * np.sign(np.diag(r))
    rows = int(np.prod(shape[:-1]))
    if rows < shape[-1]:
        q = q.T
    return gain * q.reshape(shape)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 3, 5), (3, 3), (1, 7), (16, 16)])
def test_orthogonal_is_tfs_qr_of_the_same_draw(shape, graph):
    rows, cols = int(np.prod(shape[:-1])), shape[-1]
    tall = (max(rows, cols), min(rows, cols))
    ds.set_random_seed(11)
    init = ds.initializers.orthogonal(gain=1.5, seed=7, dtype=ds.float64)(shape)
    draw = ds.random_normal(tall, dtype=ds.float64, seed=7)    # the same seeds: same draw
    with ds.Session() as sess:
        got, drawn = sess.run([init, draw])
    assert got.shape == shape
    np.testing.assert_allclose(got, reference_orthogonal(drawn, shape, 1.5), atol=1e-10)
    flat = got.reshape(rows, cols)
    gram = flat.T @ flat if rows >= cols else flat @ flat.T
    np.testing.assert_allclose(gram, 1.5 ** 2 * np.eye(min(rows, cols)), atol=1e-10)


def test_orthogonal_float32_variable_repeats_in_a_new_session(graph):
    v = ds.get_variable("w", (64, 32), initializer=ds.orthogonal_initializer(seed=2))
    runs = []
    for _ in range(2):
        with ds.Session() as sess:
            sess.run(v.initializer)
            runs.append(sess.run(v))
    np.testing.assert_array_equal(runs[0], runs[1])
    assert runs[0].dtype == np.float32
    np.testing.assert_allclose(runs[0].T @ runs[0], np.eye(32), atol=2e-6)


def test_orthogonal_needs_two_dimensions():
    with pytest.raises(ValueError, match="at least two-dimensional"):
        ds.initializers.orthogonal()((5,))


def test_initializer_ops(graph):
    v = ds.Variable(1.0, name="g")
    local = ds.Variable(2.0, name="l", collections=[ds.GraphKeys.LOCAL_VARIABLES])
    with ds.Session() as sess:
        sess.run([ds.initializers.global_variables(), ds.initializers.local_variables()])
        assert sess.run([v, local]) == [1.0, 2.0]
        sess.run(ds.initializers.variables([v], name="again"))
        sess.run(ds.initializers.tables_initializer())


def test_constant_initializer_fills_as_tf1s_constant():
    """TF1's tf.constant(value, shape): fewer values pad with the last, more are TF's
    ValueError (a partitioned variable's part too), verify_shape TF's TypeError."""
    def initial(value, shape, verify_shape=False):
        with ds.Graph().as_default():
            v = ds.get_variable("v", shape, initializer=ds.constant_initializer(
                value, verify_shape=verify_shape))
            with ds.Session() as sess:
                sess.run(ds.global_variables_initializer())
                return sess.run(v).tolist()

    assert initial([1.0, 2.0], [2, 2]) == [[1.0, 2.0], [2.0, 2.0]]
    assert initial(7.0, [3]) == [7.0, 7.0, 7.0]
    with pytest.raises(ValueError, match="Takes at most 4, but got 8"):
        initial(np.arange(8.0), [2, 2])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(2, 2\), but got \(4,\)"):
        initial(np.arange(4.0), [2, 2], verify_shape=True)
    with ds.Graph().as_default(), pytest.raises(ValueError, match="Takes at most 4"):
        ds.get_variable("p", [4, 2], initializer=ds.constant_initializer(np.arange(8.0)),
                        partitioner=ds.fixed_size_partitioner(2))
