"""A convolution's bias and ReLU folded into it (``optimizer/conv_bias.py``,
``_Conv2DBias``): where it applies, where it must not, and that the values are the
ops' apart on every path the CPU convolution takes."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.nn_conv import CONV2D_BIAS

F32 = np.float32


def layer(*, add="add", relu=True, stride=1, k=3, dtype=F32, shape=(3, 9, 8, 4), out=20,
          extra_reader=False):
    """(graph, x, y): y = [relu](conv(x, f) <add> b), and the tensors along the way."""
    rng = np.random.default_rng(5)
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(dtype, shape, name="x")
        f = ds.constant(rng.standard_normal((k, k, shape[3], out)).astype(dtype), name="f")
        b = ds.constant(rng.standard_normal(out).astype(dtype), name="b")
        conv = ds.nn.conv2d(x, f, strides=[1, stride, stride, 1], padding="SAME")
        summed = {"add": lambda: conv + b, "reversed": lambda: b + conv,
                  "bias_add": lambda: ds.nn.bias_add(conv, b)}[add]()
        y = ds.nn.relu(summed) if relu else summed
        if extra_reader:
            y = y + ds.reduce_sum(conv)
    return g, x, y, conv, summed


def run(g, x, y, data, fusion=True, fetch=()):
    options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
    with ds.Session(graph=g, options=options) as sess:
        values = sess.run([y, *fetch], {x: data})
        steps = sess._prepare((x,), (y, *fetch), ()).plan.steps
    return values, [s for s in steps if s.op_type == CONV2D_BIAS]


def data_for(x, rng_seed=1):
    rng = np.random.default_rng(rng_seed)
    return rng.standard_normal(x.shape.dims).astype(x.dtype.np)


@pytest.mark.parametrize("add", ["add", "reversed", "bias_add"])
@pytest.mark.parametrize("relu", [True, False])
def test_bias_and_relu_fold_into_the_convolution(add, relu):
    g, x, y, _, _ = layer(add=add, relu=relu)
    data = data_for(x)
    (folded, *_), (fold,) = run(g, x, y, data)
    (apart, *_), none = run(g, x, y, data, fusion=False)
    assert not none
    assert [op for _, op in fold.members] == ["Conv2D", "BiasAdd" if add == "bias_add" else
                                              "AddV2"] + (["Relu"] if relu else [])
    np.testing.assert_allclose(folded, apart, rtol=1e-6, atol=1e-6)
    assert (folded < 0).any() != relu


@pytest.mark.parametrize("geometry", [
    dict(stride=1), dict(stride=2), dict(k=1), dict(dtype=np.float64),
    dict(shape=(2, 7, 7, 1), out=33), dict(shape=(2, 5, 6, 0)),
    dict(shape=(2, 9, 7, 32), k=5, out=64)],
    ids=["in place", "packed", "pointwise", "float64", "one channel", "no channels",
         "filter in blocks"])
def test_every_convolution_path_adds_the_bias(geometry):
    g, x, y, _, _ = layer(**geometry)
    data = data_for(x)
    (folded,), (fold,) = run(g, x, y, data)
    (apart,), _ = run(g, x, y, data, fusion=False)
    np.testing.assert_allclose(folded, apart, rtol=1e-5, atol=1e-5)


def test_nan_stays_nan_through_the_relu():
    g, x, y, _, _ = layer()
    data = data_for(x)
    data[0, 2, 3, 1] = np.nan
    (folded,), (fold,) = run(g, x, y, data)
    (apart,), _ = run(g, x, y, data, fusion=False)
    np.testing.assert_array_equal(np.isnan(folded), np.isnan(apart))
    assert np.isnan(folded).any()
    np.testing.assert_allclose(folded, apart, rtol=1e-6, atol=1e-6)


def test_what_is_fetched_or_read_elsewhere_stays_apart():
    g, x, y, conv, summed = layer()
    data = data_for(x)
    _, folds = run(g, x, y, data, fetch=(conv,))
    assert not folds
    (_, got_sum), (fold,) = run(g, x, y, data, fetch=(summed,))   # conv + bias only
    assert [op for _, op in fold.members] == ["Conv2D", "AddV2"]
    (_, want_sum), _ = run(g, x, y, data, fusion=False, fetch=(summed,))
    np.testing.assert_allclose(got_sum, want_sum, rtol=1e-6, atol=1e-6)
    g, x, y, _, _ = layer(extra_reader=True)
    _, folds = run(g, x, y, data)
    assert not folds


def test_an_addend_that_is_not_a_per_channel_bias_does_not_fold():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(F32, (2, 5, 5, 3), name="x")
        f = ds.constant(np.ones((3, 3, 3, 4), F32))
        conv = ds.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
        y = ds.nn.relu(conv + ds.constant(np.ones((5, 1, 4), F32)))
    data = data_for(x)
    (got,), folds = run(g, x, y, data)
    assert not folds
    np.testing.assert_allclose(got, run(g, x, y, data, fusion=False)[0][0])


def test_a_traced_step_names_every_folded_node_and_training_is_the_same():
    def train(fusion):
        rng = np.random.default_rng(9)
        g = ds.Graph()
        with g.as_default():
            x = ds.placeholder(F32, (4, 8, 8, 2), name="x")
            f = ds.Variable(rng.standard_normal((3, 3, 2, 6)).astype(F32) * 0.3, name="f")
            b = ds.Variable(np.full(6, 0.1, F32), name="b")
            h = ds.nn.relu(ds.nn.conv2d(x, f, [1, 1, 1, 1], "SAME") + b)
            loss = ds.reduce_mean(ds.square(h - 1.0))
            step = ds.train.GradientDescentOptimizer(0.05).minimize(loss)
        data = rng.standard_normal((4, 8, 8, 2)).astype(F32)
        options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
        with ds.Session(graph=g, options=options) as sess:
            sess.run(ds.variables_initializer([f, b]))
            metadata = ds.RunMetadata()
            losses = [sess.run([loss, step], {x: data}, options=ds.RunOptions(trace=True),
                               run_metadata=metadata)[0]]
            losses += [sess.run([loss, step], {x: data})[0] for _ in range(5)]
        return np.array(losses), metadata

    losses, metadata = train(True)
    apart, _ = train(False)
    np.testing.assert_allclose(losses, apart, rtol=1e-5)
    assert losses[-1] < losses[0]
    kernels = {s.node: s.kernel for s in metadata.step_stats}
    assert kernels["Relu"] and {n for n, k in kernels.items() if k == kernels["Relu"]} == {
        "Conv2D", "add", "Relu"}
