"""Ops whose outputs are a list of a length their arguments set (Unpack, Split, SplitV,
ShapeN, IdentityN, DynamicPartition) when that length is 1: the one output is the list's
item, as in TF, whether it is computed at run time, folded as a constant, or run by a
cluster's tasks -- and so a recurrent layer unrolled over one time step runs (the PTB
tutorial's evaluation model has ``num_steps=1``)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

X = np.arange(8, dtype=np.float32).reshape(2, 4)


def _ops_of_one(x):
    """(name, tensor, numpy's value) for each list op asked for one output of ``x``."""
    return [("unstack", ds.unstack(x[:1])[0], X[0]),
            ("split", ds.split(x, 1, axis=1)[0] + 1, X + 1),
            ("split_v", ds.split(x, [4], axis=1)[0], X),
            ("shape_n", ds.shape_n([x])[0], np.array([2, 4], np.int32)),
            ("identity_n", ds.identity_n([x])[0], X),
            ("dynamic_partition", ds.dynamic_partition(x, [0, 0], 1)[0] * 2, X * 2)]


@pytest.mark.parametrize("fed", [False, True], ids=["folded", "fed"])
def test_a_list_of_one_output_is_its_item(make_session, fed):
    x = ds.placeholder(ds.float32, (2, 4)) if fed else ds.constant(X)
    cases = _ops_of_one(x)
    for name, tensor, want in cases:
        assert tensor.shape.is_compatible_with(want.shape), name
    got = make_session().run([t for _, t, _ in cases], {x: X} if fed else None)
    for (name, _, want), value in zip(cases, got):
        assert value.shape == want.shape, name
        np.testing.assert_array_equal(value, want, err_msg=name)
    assert make_session().run(ds.reduce_sum(ds.unstack(x[:1])[0]), {x: X} if fed else None) == 6


def test_an_lstm_over_one_time_step_equals_its_cell_applied_once(make_session):
    cell = ds.nn.rnn_cell.BasicLSTMCell(3)
    inputs = ds.constant(np.random.default_rng(0).standard_normal((2, 1, 4)).astype(np.float32))
    outputs, state = ds.nn.dynamic_rnn(cell, inputs, dtype=ds.float32)
    with ds.variable_scope("rnn", reuse=True):
        once, _ = cell(inputs[:, 0], cell.zero_state(2, ds.float32))
    session = make_session()
    session.run(ds.global_variables_initializer())
    got, want, h = session.run([outputs, once, state.h])
    assert got.shape == (2, 1, 3)
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-6)
    np.testing.assert_allclose(h, want, rtol=1e-6)
