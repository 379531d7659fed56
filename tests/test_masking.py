"""TF1's masking and counting composites (``ops/masking.py``) against numpy, through
every session type, and the initializers TF1 scripts run beside
``global_variables_initializer``.  Beside TF 2.21 the values, dtypes, shapes and
gradients came out the same (TF is not a test dependency)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

F32 = np.float32


def test_boolean_mask_keeps_the_true_entries_and_scatters_its_gradient(make_session, rng):
    xv = rng.standard_normal((3, 4, 2)).astype(F32)
    mv = rng.random((3, 4)) > 0.5
    x = ds.placeholder(ds.float32, (None, 4, 2))
    rows = ds.boolean_mask(x, mv)
    columns = ds.boolean_mask(x, mv[0], axis=1)
    dx, = ds.gradients(ds.reduce_sum(rows * rows), [x])
    got_rows, got_columns, got_dx = make_session().run([rows, columns, dx], {x: xv})
    np.testing.assert_array_equal(got_rows, xv[mv])
    np.testing.assert_array_equal(got_columns, xv[:, mv[0]])
    np.testing.assert_allclose(got_dx, np.where(mv[..., None], 2 * xv, 0), rtol=1e-6)
    assert rows.shape.as_list() == [None, 2]
    with pytest.raises(ValueError, match="does not match dimensions"):
        ds.boolean_mask(x, np.ones((3, 5), bool))
    with pytest.raises(ValueError, match="known rank of at least 1"):
        ds.boolean_mask(x, True)


def test_sequence_mask_count_nonzero_reverse_and_linspace(make_session, rng):
    lengths = np.array([1, 3, 0, 4], np.int32)
    bits = rng.random((3, 5)) > 0.5
    xv = rng.standard_normal((2, 3, 4)).astype(F32)
    built = {
        "mask": ds.sequence_mask(lengths),
        "mask6": ds.sequence_mask(lengths, 6, dtype=ds.float32),
        "count": ds.count_nonzero(bits),
        "count rows": ds.count_nonzero(bits, axis=1, keepdims=True, dtype=ds.int32),
        "count floats": ds.count_nonzero(np.array([0.0, -0.0, 1e-30, np.nan], F32)),
        "reverse": ds.reverse(xv, [0, -1]),
        "linspace": ds.linspace(1.0, 2.0, 5),
        "one point": ds.lin_space(-1.0, 3.0, 1),
    }
    got = make_session().run(built)
    np.testing.assert_array_equal(got["mask"], np.arange(4)[None, :] < lengths[:, None])
    assert got["mask"].dtype == bool and got["mask6"].shape == (4, 6)
    np.testing.assert_array_equal(got["mask6"], (np.arange(6) < lengths[:, None]).astype(F32))
    assert got["count"] == bits.sum() and got["count"].dtype == np.int64
    np.testing.assert_array_equal(got["count rows"], bits.sum(1, keepdims=True))
    assert got["count rows"].dtype == np.int32 and got["count floats"] == 2
    np.testing.assert_array_equal(got["reverse"], xv[::-1, :, ::-1])
    np.testing.assert_allclose(got["linspace"], np.linspace(1.0, 2.0, 5), rtol=1e-6)
    np.testing.assert_array_equal(got["one point"], [-1.0])
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        ds.reverse(xv, [3])
    with pytest.raises(ValueError, match="num must be positive"):
        ds.linspace(0.0, 1.0, 0)


def test_sequence_mask_compares_in_maxlens_dtype_as_tf(make_session):
    """TF 2.21's values: float lengths against an int maxlen are truncated, a float maxlen
    counts float steps below it, and without maxlen no negative length is the longest."""
    built = {"float lengths": ds.sequence_mask(ds.constant([1.5, 2.0]), 3),
             "float maxlen": ds.sequence_mask([1, 2], 2.5),
             "int64 maxlen": ds.sequence_mask([1, 2], ds.constant(3, ds.int64)),
             "no lengths": ds.sequence_mask(ds.zeros([0], ds.int32)),
             "negative": ds.sequence_mask([-2, -1])}
    got = make_session().run(built)
    two = [[True, False, False], [True, True, False]]
    for key in ("float lengths", "float maxlen", "int64 maxlen"):
        np.testing.assert_array_equal(got[key], two, err_msg=key)
    assert got["no lengths"].shape == (0, 0) and got["negative"].shape == (2, 0)
    with pytest.raises(ValueError, match="`maxlen` must be scalar"):
        ds.sequence_mask([1, 2], [3])


def test_local_and_table_initializers_run_beside_the_global_one():
    counter = ds.Variable(np.int64(5), name="count", collections=[ds.GraphKeys.LOCAL_VARIABLES])
    w = ds.Variable(F32(1.0), name="w")
    assert ds.local_variables() == [counter] and ds.global_variables() == [w]
    with ds.Session() as sess:
        sess.run([ds.global_variables_initializer(), ds.local_variables_initializer(),
                  ds.tables_initializer()])
        assert sess.run(counter) == 5 and sess.run(w) == 1.0
    assert ds.local_variables_initializer.__name__ == "local_variables_initializer"


def test_reverse_sequence_reverses_each_sequence_up_to_its_length(make_session, rng):
    xv = rng.standard_normal((3, 5, 2)).astype(F32)
    lengths = np.array([5, 2, 0])
    x = ds.placeholder(ds.float32, (None, 5, 2))
    batch_major = ds.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0)
    time_major = ds.reverse_sequence(ds.transpose(x, [1, 0, 2]), lengths, seq_dim=0,
                                     batch_dim=1)
    dx, = ds.gradients(ds.reduce_sum(batch_major * np.arange(10.0, dtype=F32).reshape(5, 2)),
                       [x])
    assert batch_major.shape.as_list() == [None, 5, 2]
    got, got_time, got_dx = make_session().run([batch_major, time_major, dx], {x: xv})
    want = xv.copy()
    for b, n in enumerate(lengths):
        want[b, :n] = xv[b, :n][::-1]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_time, want.transpose(1, 0, 2))
    weights = np.arange(10.0).reshape(5, 2)
    want_dx = np.broadcast_to(weights, xv.shape).copy()
    for b, n in enumerate(lengths):
        want_dx[b, :n] = weights[:n][::-1]
    np.testing.assert_array_equal(got_dx, want_dx)
    with pytest.raises(ValueError, match="must be two axes"):
        ds.reverse_sequence(x, lengths, seq_axis=1, batch_axis=1)


def test_reverse_sequence_checks_its_lengths_as_tf(make_session):
    # TF's kernel: each length in [0, time], one per batch entry (InvalidArgumentError
    # at run, where devsession's gather read past the row or broadcast a short vector);
    # its shape function: a vector, of the batch's size where both are known
    x = ds.placeholder(ds.int32, (None, None))
    n = ds.placeholder(ds.int32, (None,))
    rows = [[1, 2, 3], [4, 5, 6]]
    reversed_ = ds.reverse_sequence(x, n, seq_axis=1, batch_axis=0)
    sess = make_session()
    assert sess.run(reversed_, {x: rows, n: [3, 0]}).tolist() == [[3, 2, 1], [4, 5, 6]]
    for lengths, words in (([1, 4], r"seq_lens > input.dims\(1\)\] \[1 4\] \[3\]"),
                           ([1, -1], r"seq_lens < 0\] \[1 -1\]"),
                           ([1], r"Length of seq_lengths != input.dims\(0\)\] \[1\] \[2\]")):
        with pytest.raises(ds.errors.InvalidArgumentError, match=words):
            sess.run(reversed_, {x: rows, n: lengths})
    with pytest.raises(ValueError, match=r"Shape must be rank 1 but is rank 2 .* input "
                                         r"shapes: \[\?,\?\], \[1,2\]"):
        ds.reverse_sequence(x, [[1, 2]], seq_axis=1, batch_axis=0)
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 2 and 3"):
        ds.reverse_sequence(ds.constant(rows), [1, 2, 3], seq_axis=1, batch_axis=0)
    with pytest.raises(ds.errors.InvalidArgumentError, match=r"seq_lens > input.dims\(1\)"):
        sess.run(ds.reverse_sequence(ds.constant(rows), [3, 4], seq_axis=1, batch_axis=0))
    with pytest.raises(TypeError, match="'seq_lengths' has DataType float32 not in list of "
                                        "allowed values: int32, int64"):
        ds.reverse_sequence(x, [2.0, 3.0], seq_axis=1, batch_axis=0)
    with pytest.raises(ValueError, match="Cannot specify both 'seq_dim' and 'seq_axis'"):
        ds.reverse_sequence(x, n, seq_axis=1, seq_dim=1)
    assert sess.run(ds.reverse_sequence(x, ds.cast(n, ds.int64), seq_dim=1),
                    {x: rows, n: [2, 3]}).tolist() == [[2, 1, 3], [6, 5, 4]]
    graph = ds.Graph()
    with graph.as_default():      # constant lengths that pass: no run-time checks
        ds.reverse_sequence(ds.constant(rows), [3, 1], seq_axis=1, batch_axis=0)
    assert not [op for op in graph.get_operations() if op.type == "Assert"]
