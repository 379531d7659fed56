"""``tf.nn.rnn_cell`` and ``dynamic_rnn``/``static_rnn`` against the cells' formulas in
numpy (float64): outputs, final states, ``sequence_length`` (zero outputs and the state
kept past a sequence's end), time-major inputs, stacked cells; TF1's variable names;
gradients against finite differences; and a small LSTM that learns.  Beside TF 2.21's
``compat.v1`` cells, given the same weights, the names, outputs, states and gradients
came out the same (to 1e-6; TF is not a test dependency).

An unknown number of time steps runs a while loop: its outputs, states and gradients
equal the unrolled steps' (same variables, one graph, several lengths fed), for each
cell, with and without ``sequence_length``, time first or not; bidirectional too; 0 and
1 steps; TF 2.21's values hard-coded; an LSTM trained on batches of varying length.
Dropout inside the loop: the gradient uses the masks the forward pass drew (against the
unrolled steps given those masks), and an LSTM with dropout learns."""

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
            np.testing.assert_allclose(got_dk.reshape(-1)[i], (plus - minus) / 2e-6, rtol=1e-5,
                                       atol=1e-8)   # central differences: ~1e-10 of rounding
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
    x = ds.placeholder(ds.float32, (None, None))
    with pytest.raises(ValueError, match=r"must be \[batch, time, depth\]"):
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(2), x, dtype=ds.float32)
    fixed = ds.placeholder(ds.float32, (None, 4, 3))
    with pytest.raises(ValueError, match="you must give a dtype"):
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(2), fixed)
    ds.nn.dynamic_rnn(ds.nn.rnn_cell.BasicLSTMCell(2), fixed, dtype=ds.float32)
    with pytest.raises(ValueError, match="rnn/basic_lstm_cell/kernel already exists"):
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.BasicLSTMCell(2), fixed, dtype=ds.float32)
    with pytest.raises(ValueError, match="num_unit_shards"):
        ds.nn.rnn_cell.LSTMCell(2, num_unit_shards=2)
    with pytest.raises(ValueError, match="proj_clip needs num_proj"):
        ds.nn.rnn_cell.LSTMCell(2, proj_clip=1.0)
    with pytest.raises(ValueError, match="Some cells return tuples of states"):
        ds.nn.rnn_cell.MultiRNNCell([ds.nn.rnn_cell.BasicLSTMCell(2)], state_is_tuple=False)
    with pytest.raises(AttributeError, match="tf.nn.rnn_cell.LayerNormBasicLSTMCell"):
        ds.nn.rnn_cell.LayerNormBasicLSTMCell
    with pytest.raises(ValueError, match="output_keep_prob must be between 0 and 1"):
        ds.nn.rnn_cell.DropoutWrapper(ds.nn.rnn_cell.GRUCell(2), output_keep_prob=1.5)
    with pytest.raises(ValueError, match="sequence_length must be a vector of length "
                                         r"batch_size, but saw shape: \(1, 4\)"):
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(2), fixed, sequence_length=[[1, 2, 3, 4]],
                          dtype=ds.float32, scope="matrix_lengths")
    token_ids = ds.placeholder(ds.int32, (None, None, 1))      # no embedding lookup
    floats_only = "RNN cell only supports floating point inputs, but received dtype: "
    with pytest.raises(ValueError, match=floats_only + "<dtype: 'int32'>"):
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(2), token_ids, dtype=ds.float32,
                          scope="token_ids")
    with pytest.raises(ValueError, match=floats_only + "<dtype: 'int64'>"):
        ds.nn.rnn_cell.BasicLSTMCell(2)(ds.ones([1, 2]), (ds.ones([1, 2]),
                                                          ds.ones([1, 2], ds.int64)))
    with pytest.raises(ValueError, match=floats_only):
        ds.nn.rnn_cell.GRUCell(2, dtype=ds.int32)


def test_a_cell_lists_its_variables_as_tf1s_layers_do():
    """TF1's cells are layers: ``weights``/``variables``/``trainable_variables`` (and the
    ``*_weights`` spellings) are its variables in the order they were made (TF 2.21's
    names), none before the first call; a stack lists its cells' in order.  As TF 2.21's,
    a wrapper lists none (its cell does), so a stack lists none of a wrapped cell's."""
    def names(variables):
        return [v.op.name for v in variables]

    gru, lstm, rnn = (ds.nn.rnn_cell.GRUCell(3), ds.nn.rnn_cell.LSTMCell(2, use_peepholes=True),
                      ds.nn.rnn_cell.BasicRNNCell(2))
    wrapped = ds.nn.rnn_cell.DropoutWrapper(rnn)
    stack = ds.nn.rnn_cell.MultiRNNCell([gru, lstm, wrapped])
    assert (stack.weights, gru.variables, stack.built, gru.built) == ([], [], False, False)
    stack(ds.zeros([1, 4]), stack.zero_state(1, ds.float32))
    assert names(gru.trainable_weights) == [f"multi_rnn_cell/cell_0/gru_cell/{part}" for part in
                                            ("gates/kernel", "gates/bias", "candidate/kernel",
                                             "candidate/bias")]
    assert names(lstm.weights) == [f"multi_rnn_cell/cell_1/lstm_cell/{part}" for part in
                                   ("kernel", "bias", "w_f_diag", "w_i_diag", "w_o_diag")]
    assert names(rnn.variables) == ["multi_rnn_cell/cell_2/basic_rnn_cell/kernel",
                                    "multi_rnn_cell/cell_2/basic_rnn_cell/bias"]
    assert names(stack.trainable_variables) == names(gru.weights) + names(lstm.weights)
    assert (wrapped.weights, wrapped.built, rnn.built) == ([], False, True)
    assert ds.trainable_variables() == stack.variables + rnn.variables
    assert (stack.built, gru.built, gru.trainable) == (True, True, True)
    assert gru.non_trainable_weights == gru.non_trainable_variables == []


def test_state_is_tuple_false_concatenates_the_tuple_states(make_session):
    """TF1's deprecated flat states: an LSTM's ``concat([c, h], 1)``, a MultiRNNCell's
    its cells' side by side; the same outputs and states as the tuple form with the
    same weights (a projection makes c and h of different sizes)."""
    x = ds.constant(np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32))

    def stacked(flat: bool, scope: str):
        cells = [ds.nn.rnn_cell.BasicLSTMCell(5, state_is_tuple=not flat),
                 ds.nn.rnn_cell.LSTMCell(4, num_proj=3, state_is_tuple=not flat)]
        cell = ds.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=not flat)
        return cell, ds.nn.dynamic_rnn(cell, x, dtype=ds.float32, scope=scope)
    flat_cell, (flat_out, flat_state) = stacked(True, "flat")
    tuple_cell, (out, state) = stacked(False, "tuples")
    assert flat_cell.state_size == 5 + 5 + 4 + 3 and flat_state.shape.as_list() == [2, 17]
    session = make_session()
    session.run(ds.global_variables_initializer())
    for a, b in zip(ds.trainable_variables("flat"), ds.trainable_variables("tuples")):
        session.run(a.assign(b))
    got, flat, want, parts = session.run([flat_out, flat_state, out, state])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(flat, np.concatenate([p for cell in parts for p in cell], 1),
                               rtol=1e-6)


def numpy_peephole_lstm(x, kernel, bias, w_f, w_i, w_o, projection, cell_clip, proj_clip):
    batch, steps, _ = x.shape
    units = bias.size // 4
    c, h = np.zeros((batch, units)), np.zeros((batch, projection.shape[1]))
    for t in range(steps):
        i, j, f, o = np.split(np.concatenate([x[:, t], h], 1) @ kernel + bias, 4, axis=1)
        c = sigmoid(f + 1.0 + w_f * c) * c + sigmoid(i + w_i * c) * np.tanh(j)
        c = np.clip(c, -cell_clip, cell_clip)
        h = np.clip((sigmoid(o + w_o * c) * np.tanh(c)) @ projection, -proj_clip, proj_clip)
    return c, h


def test_lstm_cell_peepholes_clipping_and_projection_follow_tf1s_formulas(rng):
    x = rng.standard_normal((2, 4, 3))
    cell = ds.nn.rnn_cell.LSTMCell(5, use_peepholes=True, cell_clip=0.4, num_proj=2,
                                   proj_clip=0.3, initializer=ds.random_normal_initializer(
                                       stddev=0.8, seed=2))
    assert cell.state_size == (5, 2) and cell.output_size == 2
    outputs, state = ds.nn.dynamic_rnn(cell, ds.constant(x), dtype=ds.float64)
    names = [v.op.name for v in ds.trainable_variables()]
    assert names == ["rnn/lstm_cell/" + n for n in ("kernel", "bias", "w_f_diag", "w_i_diag",
                                                     "w_o_diag", "projection/kernel")]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got_c, got_h, w = sess.run([state.c, state.h, ds.trainable_variables()])
    want_c, want_h = numpy_peephole_lstm(x, *w, cell_clip=0.4, proj_clip=0.3)
    assert got_h.shape == (2, 2) and np.abs(got_c).max() <= 0.4
    np.testing.assert_allclose(got_c, want_c, rtol=1e-10)
    np.testing.assert_allclose(got_h, want_h, rtol=1e-10)


def test_residual_and_device_wrappers(rng):
    x = rng.standard_normal((3, 2, 4))
    cell = ds.nn.rnn_cell.MultiRNNCell([
        ds.nn.rnn_cell.DeviceWrapper(ds.nn.rnn_cell.GRUCell(4), "/cpu:0"),
        ds.nn.rnn_cell.ResidualWrapper(ds.nn.rnn_cell.GRUCell(4))])
    outputs, (first, second) = ds.nn.dynamic_rnn(cell, ds.constant(x), dtype=ds.float64)
    gru_ops = [op for op in ds.get_default_graph().get_operations()
               if "cell_0/gru_cell/MatMul" in op.name]
    assert gru_ops and {op.device for op in gru_ops} == {"/device:CPU:0"}
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got, h1, h2 = sess.run([outputs, first, second])
    np.testing.assert_allclose(got[:, -1], h1 + h2, rtol=1e-12)    # the second adds its input
    assert [v.op.name for v in ds.trainable_variables()][-1] == \
        "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/bias"    # a wrapper renames nothing


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


# --- unknown number of time steps: the while loop ------------------------------------------

CELLS = {
    "rnn": lambda: ds.nn.rnn_cell.BasicRNNCell(3),
    "lstm": lambda: ds.nn.rnn_cell.BasicLSTMCell(3),
    "gru": lambda: ds.nn.rnn_cell.GRUCell(3),
    "stacked": lambda: ds.nn.rnn_cell.MultiRNNCell([ds.nn.rnn_cell.LSTMCell(4),
                                                    ds.nn.rnn_cell.GRUCell(3)]),
}


def leaves(state):
    return [state] if not isinstance(state, tuple) else \
        [leaf for part in state for leaf in leaves(part)]


def rnn_and_gradients(make_cell, x, lengths, time_major, reuse):
    """dynamic_rnn's outputs and state leaves, then the gradients of a loss of them all
    (the outputs weighted by a fed tensor) w.r.t. the inputs and the variables."""
    with ds.variable_scope(ds.get_variable_scope(), reuse=reuse):
        outputs, state = ds.nn.dynamic_rnn(make_cell(), x, sequence_length=lengths,
                                           dtype=ds.float64, time_major=time_major)
    weights = ds.placeholder(ds.float64, (None, None, 3))
    loss = ds.reduce_sum(outputs * weights) + ds.add_n(
        [ds.reduce_sum(s * (k + 1.0)) for k, s in enumerate(leaves(state))])
    return [outputs, *leaves(state)], ds.gradients(loss, [x, *ds.trainable_variables()]), \
        weights


@pytest.mark.parametrize("time_major", [False, True], ids=["batch_major", "time_major"])
@pytest.mark.parametrize("with_lengths", [False, True], ids=["full", "lengths"])
@pytest.mark.parametrize("kind", sorted(CELLS))
def test_unknown_time_loops_with_the_unrolled_values_and_gradients(kind, with_lengths,
                                                                   time_major, rng):
    """One graph: the loop over [?, ?, 2] inputs, and the unrolled steps over 3 and 7
    steps sharing its variables (by name: the loop made them under TF1's names); both
    lengths fed into the loop in one session."""
    lengths = ds.placeholder(ds.int32, (None,)) if with_lengths else None
    x = ds.placeholder(ds.float64, (None, None, 2))
    looped = rnn_and_gradients(CELLS[kind], x, lengths, time_major, reuse=False)
    assert any(op.type in ("While", "StatelessWhile") for op in ds.get_default_graph()
               .get_operations())
    unrolled = {}
    for steps in (3, 7):
        fixed = ds.placeholder(ds.float64, (steps, None, 2) if time_major else (None, steps, 2))
        unrolled[steps] = fixed, rnn_and_gradients(CELLS[kind], fixed, lengths, time_major,
                                                   reuse=True)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for steps, (fixed, (values, grads, weights)) in unrolled.items():
            xv = rng.standard_normal((steps, 4, 2) if time_major else (4, steps, 2))
            feed = {lengths: [steps, 2, 0, 1]} if with_lengths else {}
            feed[looped[2]] = feed[weights] = rng.standard_normal(
                (steps, 4, 3) if time_major else (4, steps, 3))
            want = sess.run(values + grads, {**feed, fixed: xv})
            got = sess.run(looped[0] + looped[1], {**feed, x: xv})
            assert got[0].shape == want[0].shape
            for g, e in zip(got, want):
                np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
    if with_lengths:                        # lengths 0 and 1: zeros past them
        outputs = got[0] if time_major else got[0].transpose(1, 0, 2)
        assert not outputs[:, 2].any() and not outputs[1:, 3].any() and outputs[0, 3].all()


def test_the_loop_over_unknown_time_gives_tf1s_values(make_session):
    # From TF 2.21 (tf.compat.v1, legacy Keras cells): tf.nn.dynamic_rnn of
    # LSTMCell(3, initializer=tf.constant_initializer(kernel)) over a [None, None, 2]
    # float32 placeholder, sequence_length [T, min(2, T)], x = cos(arange).reshape(2, T, 2);
    # gradients of reduce_sum(outputs) + reduce_sum(state.c).
    x = ds.placeholder(ds.float32, (None, None, 2))
    lengths = ds.placeholder(ds.int32, (None,))
    kernel0 = (0.5 * np.sin(np.arange(60))).reshape(5, 12)
    cell = ds.nn.rnn_cell.LSTMCell(3, initializer=ds.constant_initializer(kernel0))
    outputs, state = ds.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=ds.float32)
    kernel = ds.trainable_variables()[0]
    assert kernel.op.name == "rnn/lstm_cell/kernel"
    dk, dx = ds.gradients(ds.reduce_sum(outputs) + ds.reduce_sum(state.c), [kernel, x])
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    want = {4: ([0.03603106, -0.11745526, -0.12435617],
                [[-0.06584761, 0.04102931, 0.10603114], [-0.06466814, 0.11043201, 0.16510145],
                 [0, 0, 0], [0, 0, 0]],
                [[0.05813511, -0.27776158, -0.41844264], [-0.14175645, 0.19621326, 0.27523777]],
                [0.33803761, -0.03327133, 0.00732560], [-0.87137842, -0.39366663]),
            1: ([0.06760502, -0.11351450, -0.13006389],
                [[-0.07125869, 0.06222190, 0.12736993]],
                [[0.11195664, -0.26918942, -0.42314911], [-0.19102174, 0.11808747, 0.19795947]],
                [0.14303611, -0.07399148, 0.0], [-0.54467350, -0.21995312])}
    for steps, (out_0_last, out_1, c, dk_some, dx_00) in want.items():
        xv = np.cos(np.arange(2 * steps * 2)).reshape(2, steps, 2).astype(F32)
        got = sess.run([outputs, state.c, state.h, dk, dx],
                       {x: xv, lengths: [steps, min(2, steps)]})
        for g, e in zip([got[0][0, -1], got[0][1], got[1], got[2][1], got[3].reshape(-1)[
                [0, 17, 59]], got[4][0, 0]], [out_0_last, out_1, c, out_1[min(2, steps) - 1],
                                              dk_some, dx_00]):
            np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-6)


def test_the_loop_runs_zero_steps_and_one(rng):
    x = ds.placeholder(ds.float32, (None, None, 2))
    start = ds.nn.rnn_cell.LSTMStateTuple(ds.placeholder(ds.float32, (None, 3)),
                                          ds.placeholder(ds.float32, (None, 3)))
    outputs, state = ds.nn.dynamic_rnn(ds.nn.rnn_cell.BasicLSTMCell(3), x, initial_state=start)
    grads = ds.gradients(ds.reduce_sum(outputs) + ds.reduce_sum(state.h),
                         [x, start.c, *ds.trainable_variables()])
    c0, h0 = rng.standard_normal((2, 4, 3)).astype(F32)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        feed = {x: np.zeros((4, 0, 2), F32), start.c: c0, start.h: h0}
        out, (c, h), (dx, dc, dk, db) = sess.run([outputs, state, grads], feed)
        assert out.shape == (4, 0, 3) and dx.shape == (4, 0, 2)
        np.testing.assert_array_equal(c, c0)       # TF1 too (with a known batch size)
        np.testing.assert_array_equal(h, h0)
        assert not dc.any() and not dk.any() and not db.any()
        out, (c, h) = sess.run([outputs, state], {**feed, x: np.ones((4, 1, 2), F32)})
        assert out.shape == (4, 1, 3) and not np.allclose(c, c0)
        np.testing.assert_array_equal(out[:, 0], h)


def test_sequence_lengths_for_another_batch_are_tf1s_run_time_error():
    # TF1's dynamic_rnn asserts one length per batch entry (a short vector would
    # broadcast through the steps' selects), unrolled or looped over unknown time
    n = ds.placeholder(ds.int32, (None,))
    cell = ds.nn.rnn_cell.GRUCell(2)
    for i, x in enumerate((ds.zeros((2, 3, 1)), ds.placeholder(ds.float32, (None, None, 1)))):
        outputs, _ = ds.nn.dynamic_rnn(cell, x, sequence_length=n, dtype=ds.float32,
                                       scope=f"rnn{i}")
        feed = {} if i == 0 else {x: np.zeros((2, 3, 1), F32)}
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            assert sess.run(outputs, {**feed, n: [3, 1]}).shape == (2, 3, 2)
            with pytest.raises(ds.errors.InvalidArgumentError,
                               match=r"Expected shape for Tensor .* is \] \[2\] \[ but saw "
                                     r"shape: \] \[1\]"):
                sess.run(outputs, {**feed, n: [3]})
    graph = ds.Graph()
    with graph.as_default():      # sizes the graph knows equal: no check
        ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(2), ds.zeros((2, 3, 1)), sequence_length=[3, 1],
                          dtype=ds.float32)
    assert not [op for op in graph.get_operations() if op.type == "Assert"]


def test_user_cells_subclass_rnn_cell_as_tf1s():
    # TF1's tf.nn.rnn_cell.RNNCell made without num_units: a cell with call() runs in its
    # snake-case scope, its variables made once and reused; contrib's CRF cells override
    # __call__ and have no __init__; the base's sizes are abstract
    class MinimalCell(ds.nn.rnn_cell.RNNCell):
        def __init__(self, units, name=None):
            super().__init__(name=name)
            self.units = units
        state_size = output_size = property(lambda self: self.units)

        def call(self, inputs, state):
            w = ds.get_variable("w", [3, self.units], initializer=ds.constant_initializer(0.1))
            h = ds.tanh(ds.matmul(inputs, w) + state)
            return h, h

    class SumCell(ds.nn.rnn_cell.RNNCell):
        state_size = output_size = 3

        def __call__(self, inputs, state, scope=None):
            return inputs + state, inputs + state

    x = np.arange(12, dtype=F32).reshape(2, 2, 3) / 12
    cell = MinimalCell(3)
    outputs, last = ds.nn.dynamic_rnn(cell, x, sequence_length=[2, 1], dtype=ds.float32)
    named = MinimalCell(3, name="named")
    first = named(x[:, 0], np.zeros((2, 3), F32))[0]
    with ds.variable_scope("elsewhere"):          # the cell's own scope again
        again = named(first, np.zeros((2, 3), F32))[0]
    sums, _ = ds.nn.dynamic_rnn(SumCell(), x, dtype=ds.float32, scope="sums")
    assert [v.op.name for v in ds.trainable_variables()] == ["rnn/minimal_cell/w", "named/w"]
    assert [[v.op.name for v in c.trainable_variables] for c in (cell, named)] == [
        ["rnn/minimal_cell/w"], ["named/w"]]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got, got_last, got_again, got_sums = sess.run([outputs, last, again, sums])
    h1 = np.tanh(x[:, 0].sum(1, keepdims=True) * 0.1 + np.zeros((2, 3)))
    h2 = np.tanh(x[:, 1].sum(1, keepdims=True) * 0.1 + h1)
    np.testing.assert_allclose(got[:, 0], h1, rtol=1e-6)
    np.testing.assert_allclose(got_last, [h2[0], h1[1]], rtol=1e-6)
    np.testing.assert_allclose(got_again, np.tanh(h1.sum(1, keepdims=True) * 0.1 + 0 * h1),
                               rtol=1e-6)
    np.testing.assert_allclose(got_sums, np.cumsum(x, 1), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="Abstract method"):
        ds.nn.rnn_cell.RNNCell().state_size
    assert ds.nn.rnn_cell.RNNCell(_reuse=True)._reuse is True     # TF1 subclasses pass it on
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        ds.nn.rnn_cell.RNNCell(num_unit=3)                         # a typo is no silent no-op


def test_a_bidirectional_rnn_over_unknown_time_equals_the_unrolled_one(rng):
    lengths = np.array([5, 2, 0], np.int32)
    xv = rng.standard_normal((3, 5, 4)).astype(F32)
    results = []
    for shape, reuse in (((None, None, 4), False), ((None, 5, 4), True)):
        x = ds.placeholder(ds.float32, shape)
        with ds.variable_scope(ds.get_variable_scope(), reuse=reuse):
            (forward, backward), (state_fw, state_bw) = ds.nn.bidirectional_dynamic_rnn(
                ds.nn.rnn_cell.BasicLSTMCell(3), ds.nn.rnn_cell.GRUCell(2), x,
                sequence_length=lengths, dtype=ds.float32)
        loss = ds.reduce_sum(forward * backward[:, :, :1]) + ds.reduce_sum(state_bw)
        results.append((x, [forward, backward, state_fw.c, state_bw] + ds.gradients(
            loss, [x] + ds.trainable_variables())))
    assert len(ds.trainable_variables()) == 6
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        (x, looped), (fixed, unrolled) = results
        for g, e in zip(sess.run(looped, {x: xv}), sess.run(unrolled, {fixed: xv})):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_an_lstm_over_variable_length_batches_learns(rng):
    x = ds.placeholder(ds.float32, (None, None, 1))
    y = ds.placeholder(ds.float32, (None, 1))
    lengths = ds.placeholder(ds.int32, (None,))
    _, state = ds.nn.dynamic_rnn(ds.nn.rnn_cell.LSTMCell(8), x, sequence_length=lengths,
                                 dtype=ds.float32)
    loss = ds.losses.mean_squared_error(y, ds.layers.dense(state.h, 1))
    train = ds.train.AdamOptimizer(0.03).minimize(loss)
    batches = []
    for steps in (4, 6, 3):
        xv = rng.standard_normal((32, steps, 1)).astype(F32)
        n = rng.integers(1, steps + 1, 32).astype(np.int32)
        xv[np.arange(steps) >= n[:, None]] = 0       # past its length, nothing to sum
        batches.append({x: xv, y: xv.sum(1), lengths: n})
    assert_trains_below_a_tenth(train, loss, batches)


def assert_trains_below_a_tenth(train, loss, batches, steps=120):
    """``steps`` runs of ``train`` over ``batches`` in turn (batches of different time
    lengths, one graph) take the mean loss below a tenth of where it started."""
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        first = np.mean([sess.run(loss, b) for b in batches])
        for k in range(steps):
            sess.run(train, batches[k % len(batches)])
        assert np.mean([sess.run(loss, b) for b in batches]) < 0.1 * first


def test_dropout_in_the_loop_differentiates_with_the_masks_the_forward_pass_drew(rng):
    """Output dropout in a loop over unknown time: its gradient is the unrolled cell's
    gradient under the masks this very run drew (read off its outputs' zeros, fed to
    the unrolled steps as a mask), so the gradient did not draw masks of its own."""
    x = ds.placeholder(ds.float64, (None, None, 2))
    weights = ds.placeholder(ds.float64, (None, None, 5))
    keep = 0.6
    cell = ds.nn.rnn_cell.DropoutWrapper(ds.nn.rnn_cell.GRUCell(5), output_keep_prob=keep,
                                         seed=4)
    outputs, _ = ds.nn.dynamic_rnn(cell, x, dtype=ds.float64)
    variables = ds.trainable_variables()
    looped = ds.gradients(ds.reduce_sum(outputs * weights), [x, *variables])
    fixed = ds.placeholder(ds.float64, (None, 4, 2))
    mask = ds.placeholder(ds.float64, (None, 4, 5))
    with ds.variable_scope(ds.get_variable_scope(), reuse=True):
        plain, _ = ds.nn.dynamic_rnn(ds.nn.rnn_cell.GRUCell(5), fixed, dtype=ds.float64)
    unrolled = ds.gradients(ds.reduce_sum(plain * mask / keep * weights), [fixed, *variables])
    assert len(ds.trainable_variables()) == 4                  # the same variables
    masks = []
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for _ in range(3):
            xv, wv = rng.standard_normal((3, 4, 2)), rng.standard_normal((3, 4, 5))
            got, *grads = sess.run([outputs, *looped], {x: xv, weights: wv})
            masks.append((got != 0).astype(F64))
            want = sess.run(unrolled, {fixed: xv, mask: masks[-1], weights: wv})
            for g, e in zip(grads, want):
                np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
    assert 0.2 < np.mean(masks) < 0.9 and not np.array_equal(masks[0], masks[1])


def test_an_lstm_with_dropout_over_unknown_time_learns(rng):
    x = ds.placeholder(ds.float32, (None, None, 1))
    y = ds.placeholder(ds.float32, (None, 1))
    cell = ds.nn.rnn_cell.DropoutWrapper(ds.nn.rnn_cell.LSTMCell(16), output_keep_prob=0.8,
                                         state_keep_prob=0.9, seed=1)
    _, state = ds.nn.dynamic_rnn(cell, x, dtype=ds.float32)
    loss = ds.losses.mean_squared_error(y, ds.layers.dense(state.h, 1))
    train = ds.train.AdamOptimizer(0.03).minimize(loss)
    batches = []
    for steps in (4, 6, 3):
        xv = rng.standard_normal((32, steps, 1)).astype(F32)
        batches.append({x: xv, y: xv.sum(1)})
    assert_trains_below_a_tenth(train, loss, batches)


@pytest.mark.parametrize("steps", [5, None], ids=["unrolled", "while_loop"])
def test_variational_dropout_uses_one_mask_for_every_step_of_a_run(steps):
    """TF1's variational_recurrent: [1, depth] noise drawn once per run, so every step
    (and, as TF's, every sequence of the batch) drops the same units, scaled by 1/keep;
    a new run draws a new mask."""
    x = ds.placeholder(ds.float32, (3, steps, 4))
    base = ds.nn.rnn_cell.GRUCell(32)
    cell = ds.nn.rnn_cell.DropoutWrapper(base, input_keep_prob=0.5, output_keep_prob=0.5,
                                         state_keep_prob=0.5, variational_recurrent=True,
                                         input_size=4, dtype=ds.float32, seed=3)
    out, _ = ds.nn.dynamic_rnn(cell, x, dtype=ds.float32)
    feed = {x: np.random.default_rng(0).uniform(0.5, 1.0, (3, 5, 4)).astype(np.float32)}
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        masks = [sess.run(out, feed) == 0 for _ in range(4)]
    for dropped in masks:
        assert (dropped == dropped[:1, :1]).all()                    # one mask per run
        assert 0 < dropped[0, 0].sum() < 32
    assert len({m[0, 0].tobytes() for m in masks}) > 1
    with pytest.raises(ValueError, match="dtype must be provided"):
        ds.nn.rnn_cell.DropoutWrapper(base, output_keep_prob=0.5, variational_recurrent=True)
    with pytest.raises(ValueError, match="input_size must be provided"):
        ds.nn.rnn_cell.DropoutWrapper(base, input_keep_prob=0.5, variational_recurrent=True,
                                      dtype=ds.float32)


def test_variational_dropout_keeping_everything_changes_nothing(make_session):
    x = ds.constant(np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32))
    keep = ds.placeholder_with_default(1.0, ())
    cell = ds.nn.rnn_cell.BasicLSTMCell(64)         # some of 64 outputs are surely dropped
    plain, _ = ds.nn.dynamic_rnn(cell, x, dtype=ds.float32, scope="rnn")
    wrapped = ds.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=keep, output_keep_prob=keep,
                                            variational_recurrent=True, input_size=4,
                                            dtype=ds.float32)
    with ds.variable_scope("rnn", reuse=True):
        dropped, _ = ds.nn.dynamic_rnn(wrapped, x, dtype=ds.float32, scope="rnn")
    session = make_session()
    session.run(ds.global_variables_initializer())
    want, got = session.run([plain, dropped])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    scaled = session.run(dropped, {keep: 0.5})
    assert (scaled == 0).any() and not np.allclose(scaled, want)
