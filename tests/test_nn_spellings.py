"""TF's spellings built from existing ops (``ops/nn_nd.py``, ``ops/nn_moments.py``, the
depthwise backprop builders, ``static_bidirectional_rnn``): TF's build-time ValueErrors,
and values checked against numpy or against the op each spelling names.  TF 2.21's
values for the spellings are checked in test_window_argmax.py (one recorded graph)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


def run(fetches, feeds=None):
    with ds.Session() as sess:
        return sess.run(fetches, feeds)


@pytest.mark.parametrize("build, message", [
    (lambda x: ds.nn.pool(x, [2, 2], "MAX", "SAME", dilation_rate=[2, 1]), "SAME"),
    (lambda x: ds.nn.pool(x, [2, 2], "MAX", "VALID", strides=[3, 1]), "window_shape"),
    (lambda x: ds.nn.pool(x, [2, 2], "MAX", "VALID", strides=[2, 1], dilation_rate=[1, 2]),
     "strides > 1"),
    (lambda x: ds.nn.pool(x, [2, 2, 2, 2], "MAX", "VALID"), "must be 1, 2, or 3"),
    (lambda x: ds.nn.pool(x, [2], "MAX", "VALID"), "rank 3"),
    (lambda x: ds.nn.convolution(x, np.ones((2, 2, 3, 1), np.float32), "VALID",
                                 strides=2, dilation_rate=2), "strides > 1"),
    (lambda x: ds.nn.convolution(x, np.ones((2, 2, 3, 1), np.float32), "VALID",
                                 dilation_rate=[1, 0]), "all values of `dilation_rate` must be"),
    (lambda x: ds.nn.atrous_conv2d(x, np.ones((2, 2, 3, 1), np.float32), [1, 2, 3], "SAME"),
     "one int or two"),
    (lambda x: ds.nn.conv_transpose(x, np.ones((2, 2, 1, 3), np.float32), [1, 2], 1),
     "length 3, 4 or 5"),
    (lambda x: ds.nn.max_pool_v2(ds.placeholder(ds.float32), 2, 2, "SAME"), "static rank"),
    (lambda x: ds.nn.max_pool2d(x, [1, 2, 3], 1, "SAME"), "ksize"),
    (lambda x: ds.nn.weighted_moments(x, [1], 1.0, keep_dims=True, keepdims=True),
     "^Cannot specify both 'keep_dims' and 'keepdims'"),
])
def test_build_time_errors_are_tfs_value_errors(build, message):
    with ds.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            build(ds.placeholder(ds.float32, (2, 6, 6, 3)))


def test_pool_and_convolution_are_the_ops_they_name():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 6, 5, 3)).astype(np.float32)
    f = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
    with ds.Graph().as_default():
        pooled, named = run([ds.nn.pool(x, [3, 2], "AVG", "SAME", strides=[2, 1]),
                             ds.nn.avg_pool(x, [1, 3, 2, 1], [1, 2, 1, 1], "SAME")])
        np.testing.assert_allclose(pooled, named, rtol=1e-6)
        conv, named = run([ds.nn.convolution(x, f, "SAME", dilation_rate=[2, 1]),
                           ds.nn.conv2d(x, f, [1, 1, 1, 1], "SAME", dilations=[1, 2, 1, 1])])
        np.testing.assert_allclose(conv, named, rtol=1e-5)
        assert ds.get_default_graph().get_operation_by_name("convolution").type == "Conv2D"


def test_conv1d_and_atrous_conv2d_nodes_take_their_scopes_names_as_tfs():
    """TF names conv1d's Conv2D after its scope ("conv1d", or ``convolution``'s), and
    atrous_conv2d is ``convolution``: its nodes count among the "convolution" scopes."""
    x = np.ones((1, 5, 7, 2), np.float32)
    with ds.Graph().as_default() as graph:
        ds.nn.conv1d(x[0], np.ones((2, 2, 3), np.float32), 1, "VALID")
        ds.nn.convolution(x[0], np.ones((2, 2, 3), np.float32), "VALID", dilation_rate=[2])
        atrous = ds.nn.atrous_conv2d(x, np.ones((2, 2, 2, 3), np.float32), 2, "SAME")
        after = ds.nn.convolution(x, np.ones((2, 2, 2, 3), np.float32), "VALID")
        conv_names = sorted(op.name for op in graph.get_operations() if op.type == "Conv2D")
    assert conv_names == ["conv1d", "convolution", "convolution_1", "convolution_2"]
    assert (atrous.name, after.name) == ("convolution_1:0", "convolution_2:0")


def test_atrous_conv2d_takes_a_rate_per_spatial_dim():
    """rate [2, 3] (TF broadcasts the rate to two) against a VALID conv2d of the filter
    with 1 zero row between its rows and 2 zero columns between its columns."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 7, 9, 3)).astype(np.float32)
    f = rng.standard_normal((2, 3, 3, 4)).astype(np.float32)
    spread = np.zeros((3, 7, 3, 4), np.float32)
    spread[::2, ::3] = f
    with ds.Graph().as_default():
        got, want = run([ds.nn.atrous_conv2d(x, f, [2, 3], "VALID"),
                         ds.nn.conv2d(x, spread, [1, 1, 1, 1], "VALID")])
    assert got.shape == (2, 5, 3, 4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_dilated_pooling_takes_every_rate_th_element():
    x = np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) * np.float32(-1) ** \
        np.arange(7).reshape(1, 7, 1)
    with ds.Graph().as_default():
        got = run(ds.nn.pool(x, [2], "MAX", "VALID", dilation_rate=[3]))
    want = np.maximum(x[:, :4], x[:, 3:7])                  # taps i and i + 3
    np.testing.assert_array_equal(got, want)


def test_moments_against_numpy():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 5))
    w = rng.random((4, 1, 5))
    with ds.Graph().as_default():
        counts, m_ss, v_ss, shift = ds.nn.sufficient_statistics(x, [0, 2], shift=0.3)
        mean, variance = ds.nn.normalize_moments(counts, m_ss, v_ss, shift)
        wmean, wvar = ds.nn.weighted_moments(x, [0, 2], w)
        zero = ds.nn.weighted_moments(x, [0], np.zeros((4, 1, 1)))
        got = run([counts, mean, variance, wmean, wvar, zero])
    assert got[0] == 20
    np.testing.assert_allclose(got[1], x.mean(axis=(0, 2)))
    np.testing.assert_allclose(got[2], x.var(axis=(0, 2)))
    wb = np.broadcast_to(w, x.shape)
    wm = (wb * x).sum(axis=(0, 2)) / wb.sum(axis=(0, 2))
    np.testing.assert_allclose(got[3], wm)
    np.testing.assert_allclose(got[4], (wb * (x - wm[None, :, None]) ** 2).sum(axis=(0, 2))
                               / wb.sum(axis=(0, 2)))
    np.testing.assert_array_equal(got[5][0], np.zeros((3, 5)))   # div_no_nan: 0, not NaN


def test_sufficient_statistics_counts_at_run_time_when_the_shape_is_unknown():
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, (None, 3))
        counts, _, v_ss, _ = ds.nn.sufficient_statistics(x, [0, -1])
        got = run([counts, v_ss], {x: np.ones((4, 3), np.float32)})
    assert got[0] == 12 and got[1] == 12


def test_depthwise_backprop_spellings_are_the_gradient_ops():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 5, 5, 2)).astype(np.float32)
    f = rng.standard_normal((3, 3, 2, 2)).astype(np.float32)
    with ds.Graph().as_default():
        xt, ft = ds.constant(x), ds.constant(f)
        y = ds.nn.depthwise_conv2d_native(xt, ft, [1, 1, 1, 1], "SAME")
        dy = ds.constant(rng.standard_normal((1, 5, 5, 4)).astype(np.float32))
        dx, df = ds.gradients(y, [xt, ft], dy)
        got = run([ds.nn.depthwise_conv2d_native_backprop_input(
                       [1, 5, 5, 2], ft, dy, [1, 1, 1, 1], "SAME"),
                   ds.nn.depthwise_conv2d_backprop_filter(xt, [3, 3, 2, 2], dy,
                                                          [1, 1, 1, 1], "SAME"), dx, df])
    np.testing.assert_allclose(got[0], got[2], rtol=1e-5)
    np.testing.assert_allclose(got[1], got[3], rtol=1e-5)


def test_static_bidirectional_rnn_runs_each_cell_its_way():
    rng = np.random.default_rng(4)
    steps = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(4)]
    with ds.Graph().as_default():
        cell_fw, cell_bw = ds.nn.rnn_cell.BasicRNNCell(5), ds.nn.rnn_cell.BasicRNNCell(5)
        outputs, state_fw, state_bw = ds.nn.static_bidirectional_rnn(
            cell_fw, cell_bw, [ds.constant(s) for s in steps], dtype=ds.float32,
            sequence_length=[4, 2])
        with ds.variable_scope("check", reuse=False):
            pass
        names = sorted(v.op.name for v in ds.global_variables())
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            out, fw, bw = sess.run([outputs, state_fw, state_bw])
            kernel_fw, bias_fw, kernel_bw, bias_bw = sess.run(
                [v for n in ("fw", "bw") for v in ds.global_variables()
                 if f"/{n}/" in v.op.name])
    assert names[0].startswith("bidirectional_rnn/bw/") and \
        names[-1].startswith("bidirectional_rnn/fw/")

    def step(kernel, bias, x, h):
        return np.tanh(np.concatenate([x, h], 1) @ kernel + bias)
    lengths = np.array([4, 2])
    h_fw, h_bw = np.zeros((2, 5), np.float32), np.zeros((2, 5), np.float32)
    fw_out, bw_out = [], [None] * 4
    for t in range(4):
        live = (t < lengths)[:, None]
        new = step(kernel_fw, bias_fw, steps[t], h_fw)
        fw_out.append(np.where(live, new, 0))
        h_fw = np.where(live, new, h_fw)
    for t in range(4):                      # the backward cell reads each sequence reversed
        x = np.stack([steps[lengths[b] - 1 - t][b] if t < lengths[b] else steps[t][b]
                      for b in range(2)])
        live = (t < lengths)[:, None]
        new = step(kernel_bw, bias_bw, x, h_bw)
        h_bw = np.where(live, new, h_bw)
        for b in range(2):
            at = lengths[b] - 1 - t if t < lengths[b] else t
            bw_out[at] = bw_out[at] if bw_out[at] is not None else np.zeros((2, 5))
            bw_out[at][b] = new[b] if t < lengths[b] else 0
    for t in range(4):
        np.testing.assert_allclose(out[t], np.concatenate([fw_out[t], bw_out[t]], 1),
                                   rtol=1e-5, atol=1e-6)
    # float32 state near zero: as the outputs above, an absolute tolerance too
    np.testing.assert_allclose(fw, h_fw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bw, h_bw, rtol=1e-5, atol=1e-6)
