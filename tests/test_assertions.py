"""TF1's ``tf.Assert`` text, the element-wise assertions (``tf.assert_equal``,
``tf.assert_less``, ``tf.assert_positive``... as TF1's ``check_ops`` builds them), the
static ones (``tf.assert_rank``, ``tf.assert_type``...) and ``tf.Print``, through a
session; the expected texts are TF 2.21's ``tf.compat.v1``.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

ASSERTIONS = [  # (name, holds for, fails for, TF's condition text)
    ("assert_equal", ([1, 2], [1, 2]), ([1, 2], [1, 3]), "x == y"),
    ("assert_none_equal", ([1, 2], [2, 1]), ([1, 2], [0, 2]), "x != y"),
    ("assert_less", ([1, 2], [2, 3]), ([1, 2], [1, 3]), "x < y"),
    ("assert_less_equal", ([1, 2], [1, 3]), ([1, 4], [1, 3]), "x <= y"),
    ("assert_greater", ([2, 3], [1, 2]), ([2, 3], [2, 2]), "x > y"),
    ("assert_greater_equal", ([2, 3], [2, 2]), ([1, 3], [2, 2]), "x >= y"),
]
SIGNS = [("assert_positive", [1, 2], [1, -2], "x > 0"),
         ("assert_negative", [-1, -2], [-1, 0], "x < 0"),
         ("assert_non_negative", [0, 2], [0, -2], "x >= 0"),
         ("assert_non_positive", [0, -2], [0, 2], "x <= 0")]


@pytest.fixture(autouse=True)
def graph():
    with ds.Graph().as_default() as g:
        yield g


def failure(target, feed=None) -> str:
    with ds.Session() as sess, pytest.raises(ds.errors.InvalidArgumentError) as info:
        sess.run(target, feed)
    return info.value.message


def test_assert_text_is_tfs():
    flag = ds.placeholder(ds.bool, ())
    data = ["x", ds.constant(5), ds.constant([1.5, 2.0, 3.0, 4.0]), ds.constant([[1, 2], [3, 4]]),
            ds.constant([True, False]), ds.constant(np.zeros((0,), np.float32))]
    check = ds.Assert(flag, data, summarize=2)
    with ds.Session() as sess:
        sess.run(check, {flag: True})
    assert failure(check, {flag: False}) == \
        "assertion failed: [x] [5] [1.5 2...] [[1 2]...] [1 0] []"
    big = ds.Assert(flag, [ds.constant(np.arange(25).reshape(5, 5))], summarize=30, name="big")
    assert failure(big, {flag: False}) == ("assertion failed: [[0 1 2 3 4][5 6 7 8 9]"
                                           "[10 11 12 13 14][15 16 17 18 19][20 21 22 23 24]]")
    assert failure(ds.Assert(flag, [ds.range(5)]), {flag: False}) == \
        "assertion failed: [0 1 2...]"                   # summarize: 3 by default


@pytest.mark.parametrize("name,good,bad,condition", ASSERTIONS, ids=[a[0] for a in ASSERTIONS])
def test_binary_assertions(name, good, bad, condition):
    build = getattr(ds, name)
    assert getattr(ds.debugging, name) is build
    x = ds.placeholder(ds.int32, (2,), name="x")
    y = ds.placeholder(ds.int32, (2,), name="y")
    check = build(x, y, message="checked")
    assert check.type == "Assert" and check.name == f"{name}/Assert"
    with ds.control_dependencies([check]):
        out = ds.identity(x)
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(out, {x: good[0], y: good[1]}), good[0])
    shown = lambda v: "[" + " ".join(str(e) for e in v) + "]"   # noqa: E731
    assert failure(out, {x: bad[0], y: bad[1]}) == (
        f"assertion failed: [checked] [Condition {condition} did not hold element-wise:] "
        f"[x (x:0) = ] {shown(bad[0])} [y (y:0) = ] {shown(bad[1])}")


@pytest.mark.parametrize("name,good,bad,condition", SIGNS, ids=[s[0] for s in SIGNS])
def test_sign_assertions(name, good, bad, condition):
    x = ds.placeholder(ds.float32, (None,), name="v")
    check = getattr(ds.debugging, name)(x)
    with ds.Session() as sess:
        sess.run(check, {x: good})
        sess.run(check, {x: np.zeros((0,), np.float32)})       # nothing to fail
    values = " ".join(str(int(v)) for v in bad)
    assert failure(check, {x: bad}) == (
        f"assertion failed: [Condition {condition} did not hold element-wise:] "
        f"[x (v:0) = ] [{values}]")


def test_assertions_broadcast_and_take_data_and_summarize():
    x = ds.placeholder(ds.float32, (2, 3))
    check = ds.assert_less(x, 10.0, data=["custom", x], summarize=2)
    assert failure(check, {x: np.full((2, 3), 11.0, np.float32)}) == \
        "assertion failed: [custom] [[11 11...]...]"


def test_constant_operands_are_checked_when_the_graph_is_built():
    with pytest.raises(ds.errors.InvalidArgumentError) as info:
        ds.assert_equal(ds.constant([1, 2], name="a"), ds.constant([1, 3], name="b"))
    assert info.value.message == ("Condition x == y did not hold element-wise:\n"
                                  "x (a:0) = \n[1 2]\ny (b:0) = \n[1 3]")
    assert ds.assert_equal(ds.constant([1, 2]), [1, 2]).type == "Assert"     # holds


# --- static assertions ---------------------------------------------------------------------

def test_static_assertions_decide_at_build_time_with_tf_texts():
    x = ds.constant([1.0, 2.0], name="v")
    for build, text in (
            (lambda: ds.assert_rank(x, 2), "Tensor v:0 must have rank 2.  Received rank 1, "
                                           "shape (2,)"),
            (lambda: ds.assert_rank(x, 2, message="mm"), "mm.  Tensor v:0 must have rank 2."),
            (lambda: ds.assert_rank_at_least(x, 2), "Tensor v:0 must have rank at least 2."),
            (lambda: ds.assert_scalar(x), "Expected scalar shape for v:0, saw shape: (2,).")):
        with pytest.raises(ValueError) as info:
            build()
        assert str(info.value).startswith(text)
    for build, text in (
            (lambda: ds.assert_type(x, ds.int32), "v:0 must be of type tf.int32; got "
                                                  "tf.float32"),
            (lambda: ds.assert_integer(x), 'Expected "x" to be integer type.  Found: v:0 of '
                                           "dtype <dtype: 'float32'>")):
        with pytest.raises(TypeError) as info:
            build()
        assert str(info.value) == text
    ok = [ds.assert_rank(x, 1), ds.assert_rank_at_least(x, 1), ds.assert_type(x, ds.float32),
          ds.assert_integer(ds.constant(1)), ds.assert_rank_at_least(ds.zeros((2, 2, 2)), 2)]
    assert [op.type for op in ok] == ["NoOp"] * 5
    assert ok[0].name.endswith("/static_checks_determined_all_ok")    # as TF names it
    scalar = ds.constant(1.0)
    assert ds.debugging.assert_scalar(scalar) is scalar


def test_static_assertions_prefix_the_message_as_tf():
    x = ds.constant([1.0, 2.0], name="v")
    with pytest.raises(TypeError) as info:
        ds.assert_type(x, ds.int32, message="M")
    assert str(info.value) == "M.  v:0 must be of type tf.int32; got tf.float32"
    with pytest.raises(TypeError) as info:
        ds.assert_integer(x, message="M")
    assert str(info.value) == ('M.  Expected "x" to be integer type.  Found: v:0 of dtype '
                               "<dtype: 'float32'>")
    with pytest.raises(ValueError) as info:
        ds.assert_scalar(x, message="M")
    assert str(info.value) == "M.  Expected scalar shape for v:0, saw shape: (2,)."


def test_a_constant_rank_tensor_is_decided_at_build_time_as_tf():
    x = ds.constant([1.0, 2.0], name="v")
    ok = [ds.assert_rank(x, ds.constant(1)), ds.assert_rank_at_least(x, ds.constant(1))]
    assert [op.type for op in ok] == ["NoOp", "NoOp"]
    assert ok[0].name.endswith("/static_checks_determined_all_ok")
    with pytest.raises(ValueError) as info:
        ds.assert_rank(x, ds.constant(2), message="M")
    assert str(info.value) == "M.  Tensor v:0 must have rank 2.  Received rank 1, shape (2,)"
    with pytest.raises(ValueError) as info:
        ds.assert_rank_at_least(x, ds.constant(3))
    assert str(info.value) == ("Tensor v:0 must have rank at least 3.  Received rank 1, "
                               "shape (2,)")
    p = ds.placeholder(ds.float32, None)       # a rank unknown until run time
    assert ds.assert_rank(p, ds.constant(1)).type == "Assert"


def test_rank_assertions_of_an_unknown_rank_run_as_asserts():
    p = ds.placeholder(ds.float32, None, name="p")
    exact, at_least = ds.assert_rank(p, 2), ds.debugging.assert_rank_at_least(p, 2)
    with ds.Session() as sess:
        sess.run([exact, at_least], {p: [[1.0]]})
        sess.run(at_least, {p: np.zeros((1, 1, 1), np.float32)})
    assert failure(exact, {p: [1.0]}) == ("assertion failed: [] [Tensor p:0 must have rank] "
                                          "[2] [Received shape: ] [1]")
    assert failure(at_least, {p: [1.0]}) == ("assertion failed: [] [Tensor p:0 must have rank "
                                             "at least] [2] [Received shape: ] [1]")


# --- Print ------------------------------------------------------------------------------------

def test_print_passes_its_input_and_writes_tf_text(capfd):
    x = ds.constant([1.0, 2.0])
    y = ds.Print(x, [x, "s", ds.constant(3)], message="msg: ", summarize=1)
    assert (y.op.type, y.op.name, y.shape.as_list()) == ("Print", "Print", [2])
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(y * 2.0), [2.0, 4.0])
    assert capfd.readouterr().err == "msg: [1...][s][3]\n"


def test_print_first_n_and_gradient(capfd):
    x = ds.placeholder(ds.float64, (2,))
    y = ds.Print(x, [x], first_n=2)
    (g,) = ds.gradients(ds.reduce_sum(y * y), [x])
    with ds.Session() as sess:
        for k in range(3):
            sess.run(y, {x: [k, 1]})
        np.testing.assert_array_equal(sess.run(g, {x: [1.0, 3.0]}), [2.0, 6.0])
    assert capfd.readouterr().err.splitlines() == ["[0 1]", "[1 1]"]   # first 2 runs only
