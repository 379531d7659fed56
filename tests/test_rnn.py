"""``tf.nn.rnn_cell`` and ``dynamic_rnn``/``static_rnn`` against the cells' formulas in
numpy (float64): outputs, final states, ``sequence_length`` (zero outputs and the state
kept past a sequence's end), time-major inputs, stacked cells; TF1's variable names;
gradients against finite differences; and a small LSTM that learns.  Beside TF 2.21's
``compat.v1`` cells, given the same weights, the names, outputs, states and gradients
came out the same (to 1e-6; TF is not a test dependency)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

F32, F64 = np.float32, np.float64


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def numpy_lstm(x, kernel, bias, lengths, forget_bias=1.0):
    batch, steps, _ = x.shape
    units = bias.size // 4
    c, h = np.zeros((batch, units)), np.zeros((batch, units))
    outputs = np.zeros((batch, steps, units))
    for t in range(steps):
        i, j, f, o = np.split(np.concatenate([x[:, t], h], 1) @ kernel + bias, 4, axis=1)
        new_c = c * sigmoid(f + forget_bias) + sigmoid(i) * np.tanh(j)
        new_h = np.tanh(new_c) * sigmoid(o)
        live = (t < lengths)[:, None]
        c, h = np.where(live, new_c, c), np.where(live, new_h, h)
        outputs[:, t] = np.where(live, new_h, 0)
    return outputs, c, h


def numpy_gru(x, gate_kernel, gate_bias, kernel, bias):
    batch, steps, _ = x.shape
    h = np.zeros((batch, bias.size))
    outputs = []
    for t in range(steps):
        r, u = np.split(sigmoid(np.concatenate([x[:, t], h], 1) @ gate_kernel + gate_bias), 2, 1)
        candidate = np.tanh(np.concatenate([x[:, t], r * h], 1) @ kernel + bias)
        h = u * h + (1 - u) * candidate
        outputs.append(h)
    return np.stack(outputs, 1), h


def values_of(sess, variables):
    return {v.op.name: sess.run(v).astype(F64) for v in variables}


def test_lstm_and_gru_follow_their_formulas_and_sequence_lengths(make_session, rng):
    xv = rng.standard_normal((3, 5, 4)).astype(F32)
    lengths = np.array([5, 2, 0], np.int32)
    x = ds.placeholder(ds.float32, (None, 5, 4))
    lstm_out, lstm_state = ds.nn.dynamic_rnn(ds.nn.rnn_cell.BasicLSTMCell(6), x,
                                             sequence_length=lengths, dtype=ds.float32)
    gru_out, gru_state = ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(3), x, dtype=ds.float32,
                                           scope="gru")
    assert [v.op.name for v in ds.trainable_variables()] == [
        "rnn/basic_lstm_cell/kernel", "rnn/basic_lstm_cell/bias", "gru/gru_cell/gates/kernel",
        "gru/gru_cell/gates/bias", "gru/gru_cell/candidate/kernel", "gru/gru_cell/candidate/bias"]
    assert gru_out.shape.as_list() == [None, 5, 3] and isinstance(
        lstm_state, ds.nn.rnn_cell.LSTMStateTuple)
    assert lstm_out.shape.as_list() == [3, 5, 6]          # the batch of sequence_length
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    w = values_of(sess, ds.trainable_variables())
    np.testing.assert_array_equal(w["gru/gru_cell/gates/bias"], 1.0)     # TF1's start
    got = sess.run([lstm_out, lstm_state.c, lstm_state.h, gru_out, gru_state], {x: xv})
    want = numpy_lstm(xv.astype(F64), w["rnn/basic_lstm_cell/kernel"],
                      w["rnn/basic_lstm_cell/bias"], lengths)
    want += numpy_gru(xv.astype(F64), *(w[f"gru/gru_cell/{k}"] for k in (
        "gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")))
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert not got[0][2].any() and not got[1][2].any()          # length 0: zeros throughout


def test_stacked_time_major_and_static_rnns(rng):
    xv = rng.standard_normal((5, 2, 3)).astype(F32)               # time first
    cells = ds.nn.rnn_cell.MultiRNNCell([ds.nn.rnn_cell.LSTMCell(4, forget_bias=0.5),
                                         ds.nn.rnn_cell.BasicRNNCell(2)])
    outputs, (lstm_state, rnn_state) = ds.nn.dynamic_rnn(cells, xv, dtype=ds.float32,
                                                         time_major=True, scope="deep")
    static, last = ds.nn.static_rnn(ds.nn.rnn_cell.BasicRNNCell(2), list(xv), dtype=ds.float32)
    assert [v.op.name for v in ds.trainable_variables()][:3] == [
        "deep/multi_rnn_cell/cell_0/lstm_cell/kernel", "deep/multi_rnn_cell/cell_0/lstm_cell/bias",
        "deep/multi_rnn_cell/cell_1/basic_rnn_cell/kernel"]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        w = values_of(sess, ds.trainable_variables())
        got, h_top, static_got, last_got = sess.run([outputs, rnn_state, static, last])
    x64 = xv.transpose(1, 0, 2).astype(F64)
    lstm_out, _, _ = numpy_lstm(x64, w["deep/multi_rnn_cell/cell_0/lstm_cell/kernel"],
                                w["deep/multi_rnn_cell/cell_0/lstm_cell/bias"],
                                np.array([5, 5]), forget_bias=0.5)
    h = np.zeros((2, 2))
    for t in range(5):
        h = np.tanh(np.concatenate([lstm_out[:, t], h], 1) @
                    w["deep/multi_rnn_cell/cell_1/basic_rnn_cell/kernel"] +
                    w["deep/multi_rnn_cell/cell_1/basic_rnn_cell/bias"])
        np.testing.assert_allclose(got[t], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h_top, h, rtol=1e-5, atol=1e-6)
    h = np.zeros((2, 2))
    for t in range(5):
        h = np.tanh(np.concatenate([x64[:, t], h], 1) @ w["rnn/basic_rnn_cell/kernel"] +
                    w["rnn/basic_rnn_cell/bias"])
        np.testing.assert_allclose(static_got[t], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(last_got, h, rtol=1e-5, atol=1e-6)


def test_lstm_gradients_match_finite_differences(rng):
    xv = rng.standard_normal((2, 3, 2))
    x = ds.placeholder(ds.float64, (2, 3, 2))
    cell = ds.nn.rnn_cell.BasicLSTMCell(3, initializer=None)
    outputs, state = ds.nn.dynamic_rnn(cell, x, dtype=ds.float64, sequence_length=[3, 1])
    weights = rng.standard_normal((2, 3, 3))
    loss = ds.reduce_sum(outputs * weights) + ds.reduce_sum(state.c)
    kernel, _ = ds.trainable_variables()
    dx, dk = ds.gradients(loss, [x, kernel])
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got_dx, got_dk, k0 = sess.run([dx, dk, kernel], {x: xv})
        numeric = np.zeros_like(xv)
        for i in range(xv.size):
            step = np.zeros_like(xv)
            step.reshape(-1)[i] = 1e-6
            numeric.reshape(-1)[i] = (sess.run(loss, {x: xv + step}) -
                                      sess.run(loss, {x: xv - step})) / 2e-6
        np.testing.assert_allclose(got_dx, numeric, rtol=1e-5, atol=1e-8)
        for i in (0, 7, 20):
            step = np.zeros_like(k0)
            step.reshape(-1)[i] = 1e-6
            sess.run(kernel.assign(k0 + step))
            plus = sess.run(loss, {x: xv})
            sess.run(kernel.assign(k0 - step))
            minus = sess.run(loss, {x: xv})
            np.testing.assert_allclose(got_dk.reshape(-1)[i], (plus - minus) / 2e-6, rtol=1e-5)
    assert not got_dx[1, 1:].any()                   # past its length, no gradient flows


def test_an_lstm_learns_to_sum_a_sequence(rng):
    xv = rng.standard_normal((64, 6, 1)).astype(F32)
    yv = xv.sum(1)
    x = ds.placeholder(ds.float32, (None, 6, 1))
    y = ds.placeholder(ds.float32, (None, 1))
    _, state = ds.nn.dynamic_rnn(ds.nn.rnn_cell.LSTMCell(8), x, dtype=ds.float32)
    loss = ds.losses.mean_squared_error(y, ds.layers.dense(state.h, 1))
    train = ds.train.AdamOptimizer(0.03).minimize(loss)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        first = sess.run(loss, {x: xv, y: yv})
        for _ in range(150):
            sess.run(train, {x: xv, y: yv})
        assert sess.run(loss, {x: xv, y: yv}) < 0.1 * first


def test_what_the_rnns_refuse():
    x = ds.placeholder(ds.float32, (None, None, 3))
    with pytest.raises(ValueError, match="number of time steps"):
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(2), x, dtype=ds.float32)
    fixed = ds.placeholder(ds.float32, (None, 4, 3))
    with pytest.raises(ValueError, match="you must give a dtype"):
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(2), fixed)
    ds.nn.dynamic_rnn(ds.nn.rnn_cell.BasicLSTMCell(2), fixed, dtype=ds.float32)
    with pytest.raises(ValueError, match="rnn/basic_lstm_cell/kernel already exists"):
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.BasicLSTMCell(2), fixed, dtype=ds.float32)
    with pytest.raises(ValueError, match="use_peepholes"):
        ds.nn.rnn_cell.LSTMCell(2, use_peepholes=True)
    with pytest.raises(ValueError, match="state_is_tuple=True"):
        ds.nn.rnn_cell.BasicLSTMCell(2, state_is_tuple=False)
    with pytest.raises(AttributeError, match="tf.nn.rnn_cell.ResidualWrapper"):
        ds.nn.rnn_cell.ResidualWrapper
    with pytest.raises(ValueError, match="output_keep_prob must be between 0 and 1"):
        ds.nn.rnn_cell.DropoutWrapper(ds.nn.rnn_cell.GRUCell(2), output_keep_prob=1.5)


def test_dropout_wrapper_drops_only_while_its_keep_probability_says(rng):
    xv = rng.standard_normal((4, 3, 2)).astype(F32)
    keep = ds.placeholder_with_default(1.0, ())
    cell = ds.nn.rnn_cell.DropoutWrapper(ds.nn.rnn_cell.BasicLSTMCell(50),
                                         output_keep_prob=keep, state_keep_prob=keep)
    outputs, _ = ds.nn.dynamic_rnn(cell, xv, dtype=ds.float32)
    plain_cell = ds.nn.rnn_cell.BasicLSTMCell(50, name="plain")
    plain, _ = ds.nn.dynamic_rnn(plain_cell, xv, dtype=ds.float32, scope="other")
    assert [v.op.name for v in ds.trainable_variables()][:2] == [
        "rnn/basic_lstm_cell/kernel", "rnn/basic_lstm_cell/bias"]       # the cell's names
    assert cell.state_size == (50, 50) and cell.output_size == 50
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run([v.assign(w) for v, w in zip(ds.trainable_variables()[2:],
                                              sess.run(ds.trainable_variables()[:2]))])
        np.testing.assert_allclose(sess.run(outputs), sess.run(plain), rtol=1e-6)
        dropped = sess.run(outputs, {keep: 0.5})
    zeros = np.mean(dropped == 0)
    assert 0.35 < zeros < 0.65, zeros                              # about half dropped
    with pytest.raises(ValueError, match="dropout_state_filter_visitor"):
        ds.nn.rnn_cell.DropoutWrapper(plain_cell, dropout_state_filter_visitor=lambda s: True)


def test_dropout_wrapper_keeps_an_lstms_memory(rng):
    xv = rng.standard_normal((8, 4, 2)).astype(F32)
    cell = ds.nn.rnn_cell.DropoutWrapper(ds.nn.rnn_cell.BasicLSTMCell(40), state_keep_prob=0.5)
    _, state = ds.nn.dynamic_rnn(cell, xv, dtype=ds.float32)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        c, h = sess.run([state.c, state.h])
    assert np.mean(h == 0) > 0.3 and np.mean(c == 0) == 0     # h dropped, c never


def test_a_bidirectional_rnn_reads_each_sequence_both_ways(rng):
    xv = rng.standard_normal((3, 5, 4)).astype(F32)
    lengths = np.array([5, 2, 0], np.int32)
    (forward, backward), (state_fw, state_bw) = ds.nn.bidirectional_dynamic_rnn(
        ds.nn.rnn_cell.BasicLSTMCell(3), ds.nn.rnn_cell.BasicLSTMCell(2), xv,
        sequence_length=lengths, dtype=ds.float32)
    assert [v.op.name for v in ds.trainable_variables()] == [
        "bidirectional_rnn/fw/basic_lstm_cell/kernel", "bidirectional_rnn/fw/basic_lstm_cell/bias",
        "bidirectional_rnn/bw/basic_lstm_cell/kernel", "bidirectional_rnn/bw/basic_lstm_cell/bias"]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        w = values_of(sess, ds.trainable_variables())
        got = sess.run([forward, backward, state_fw.h, state_bw.h])
    x64 = xv.astype(F64)
    want_fw, _, h_fw = numpy_lstm(x64, w["bidirectional_rnn/fw/basic_lstm_cell/kernel"],
                                  w["bidirectional_rnn/fw/basic_lstm_cell/bias"], lengths)
    flipped = x64.copy()
    for b, n in enumerate(lengths):
        flipped[b, :n] = x64[b, :n][::-1]
    out_bw, _, h_bw = numpy_lstm(flipped, w["bidirectional_rnn/bw/basic_lstm_cell/kernel"],
                                 w["bidirectional_rnn/bw/basic_lstm_cell/bias"], lengths)
    want_bw = out_bw.copy()
    for b, n in enumerate(lengths):
        want_bw[b, :n] = out_bw[b, :n][::-1]
    for g, e in zip(got, [want_fw, want_bw, h_fw, h_bw]):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
