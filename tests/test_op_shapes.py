"""Every op builder's static dtype and shape, and the build-time errors: elementwise ops,
the Python-scalar dtype rule, operators, matmul, reductions, shape ops.  No session runs
here."""

from __future__ import annotations

import re

import numpy as np
import pytest

import devsession as ds
from graph_building import ph


# --- elementwise ops --------------------------------------------------------------------------------

UNARY_ANY = [(ds.identity, "Identity"), (ds.negative, "Neg"), (ds.abs, "Abs"),
             (ds.square, "Square"), (ds.relu, "Relu")]
UNARY_FLOAT = [(ds.exp, "Exp"), (ds.log, "Log"), (ds.sqrt, "Sqrt"), (ds.tanh, "Tanh"),
               (ds.sigmoid, "Sigmoid")]
BINARY = [(ds.add, "Add"), (ds.subtract, "Sub"), (ds.multiply, "Mul"), (ds.pow, "Pow"),
          (ds.maximum, "Maximum"), (ds.minimum, "Minimum")]
COMPARE = [(ds.equal, "Equal"), (ds.less, "Less"), (ds.less_equal, "LessEqual"),
           (ds.greater, "Greater"), (ds.greater_equal, "GreaterEqual")]


@pytest.mark.parametrize("fn, op_type", UNARY_ANY)
@pytest.mark.parametrize("dtype", [ds.float16, ds.float32, ds.float64, ds.int32, ds.int64])
def test_unary_any_keeps_dtype_and_shape(graph, fn, op_type, dtype):
    y = fn(ph((None, 3), dtype))
    assert (y.op.type, y.dtype, y.shape) == (op_type, dtype, (None, 3))


@pytest.mark.parametrize("fn, op_type", UNARY_FLOAT)
@pytest.mark.parametrize("dtype", [ds.float16, ds.float32, ds.float64])
def test_unary_float_keeps_dtype_and_shape(graph, fn, op_type, dtype):
    y = fn(ph((2, None), dtype))
    assert (y.op.type, y.dtype, y.shape) == (op_type, dtype, (2, None))


@pytest.mark.parametrize("fn, op_type", UNARY_FLOAT)
@pytest.mark.parametrize("dtype", [ds.int32, ds.int64, ds.bool])
def test_unary_float_ops_reject_non_floats(graph, fn, op_type, dtype):
    x = ph((2,), dtype, name="x")
    with pytest.raises(TypeError, match=rf"Op '{op_type}' needs a floating-point input, but "
                                        rf"'x:0' is {dtype.name}"):
        fn(x)


def test_exp_of_a_python_int_is_type_error(graph):
    with pytest.raises(TypeError, match="floating-point"):
        ds.exp(3)


@pytest.mark.parametrize("fn", [ds.negative, ds.square])
def test_unary_numeric_ops_reject_bool(graph, fn):
    with pytest.raises(TypeError):
        fn(ph((2,), ds.bool))


@pytest.mark.parametrize("fn, op_type", BINARY)
@pytest.mark.parametrize("dtype", [ds.float16, ds.float32, ds.float64, ds.int32, ds.int64])
def test_binary_keeps_dtype(graph, fn, op_type, dtype):
    z = fn(ph((2, 1), dtype), ph((3,), dtype))
    assert (z.op.type, z.dtype, z.shape) == (op_type, dtype, (2, 3))


@pytest.mark.parametrize("fn, op_type", BINARY)
def test_binary_rejects_bool(graph, fn, op_type):
    with pytest.raises(TypeError, match="does not take bool inputs"):
        fn(ph((2,), ds.bool), ph((2,), ds.bool))


@pytest.mark.parametrize("a, b, out", [
    ((None, 3), (4, 1, 1), (4, None, 3)),
    ((None,), (None,), (None,)),
    ((None, 1), (1, 5), (None, 5)),
    ((None,), (1,), (None,)),
    ((5,), (None,), (5,)),
    ((2, 3), (), (2, 3)),
    ((1, 2, 1), (3, 1, 4), (3, 2, 4)),
    ((0, 1), (1, 3), (0, 3)),
    ((2, 3), None, None),
    (None, None, None),
])
def test_broadcasting_static_shapes(graph, a, b, out):
    z = ph(a) + ph(b)
    if out is None:
        assert z.shape.ndims is None
    else:
        assert z.shape == out


def test_incompatible_shapes_are_value_error_naming_both(graph):
    x = ph((2, 3), name="x")
    y = ph((4,), name="y")
    with pytest.raises(ValueError) as info:
        ds.add(x, y, name="bad")
    message = str(info.value)
    assert "Op 'bad': incompatible shapes for broadcasting" in message
    assert "'x:0' with shape (2, 3)" in message
    assert "'y:0' with shape (4,)" in message
    assert "bad" not in graph  # a failed build adds no node


def test_mismatched_dtypes_are_type_error(graph):
    x = ph((2,), ds.float32, name="x")
    y = ph((2,), ds.float64, name="y")
    with pytest.raises(TypeError, match=r"input 'y:0' has dtype float64, which does not match "
                                        r"dtype float32 of input 'x:0'.*ds\.cast"):
        ds.multiply(x, y)
    with pytest.raises(TypeError, match="does not match"):
        ph((2,), ds.int32) + ph((2,), ds.int64)


@pytest.mark.parametrize("dtype, out", [
    (ds.int32, ds.float64), (ds.int64, ds.float64), (ds.float16, ds.float16),
    (ds.float32, ds.float32), (ds.float64, ds.float64)])
def test_real_div_dtype(graph, dtype, out):
    for divide in (ds.divide, ds.truediv):
        q = divide(ph((3,), dtype), ph((3,), dtype))
        assert (q.op.type, q.dtype, q.shape) == ("RealDiv", out, (3,))


@pytest.mark.parametrize("fn, op_type", COMPARE)
@pytest.mark.parametrize("dtype", [ds.float32, ds.int32, ds.int64, ds.float16])
def test_comparisons_give_bool(graph, fn, op_type, dtype):
    r = fn(ph((2, None), dtype), ph((1, 3), dtype))
    assert (r.op.type, r.dtype, r.shape) == (op_type, ds.bool, (2, 3))


def test_comparison_dtype_rules(graph):
    b = ph((2,), ds.bool, name="b")
    assert ds.equal(b, True).dtype == ds.bool
    with pytest.raises(TypeError, match="cannot order bool inputs"):
        ds.less(b, b)
    with pytest.raises(TypeError, match="does not match"):
        ds.equal(ph((2,), ds.float32), ph((2,), ds.int32))
    with pytest.raises(ValueError, match="incompatible shapes"):
        ds.greater(ph((2,)), ph((3,)))


def test_where(graph):
    cond = ph((2, 1), ds.bool, name="cond")
    x = ph((2, 3), name="x")
    w = ds.where(cond, x, 0.0)
    assert (w.op.type, w.dtype, w.shape) == ("SelectV2", ds.float32, (2, 3))
    assert [t.name for t in w.op.inputs[:2]] == ["cond:0", "x:0"]
    assert ds.where(cond, 1, 2).dtype == ds.int32
    assert ds.where([True, False], ph((2,), ds.float64), 1.0).dtype == ds.float64
    with pytest.raises(TypeError, match="bool is required"):
        ds.where(x, x, x)
    with pytest.raises(TypeError, match="does not match"):
        ds.where(cond, x, ph((), ds.float64))
    with pytest.raises(ValueError, match="incompatible shapes.*'cond:0'.*'x:0'"):
        ds.where(cond, x, ph((2, 5)))


def test_tf1_where_with_a_vector_condition_picks_rows_where_v2_broadcasts(graph):
    square = np.arange(9.0).reshape(3, 3)
    cond = ph((3,), ds.bool, name="rows")
    rows, columns = ds.where(cond, square, -square), ds.where_v2(cond, square, -square)
    picked = np.array([True, False, True])
    with ds.Session() as sess:
        got_rows, got_columns = sess.run([rows, columns], {cond: picked})
    np.testing.assert_array_equal(got_rows, np.where(picked[:, None], square, -square))
    np.testing.assert_array_equal(got_columns, np.where(picked, square, -square))
    with pytest.raises(ValueError, match="vector condition .* of 3 elements picks rows"):
        ds.where(cond, ph((2, 3)), ph((2, 3)))


def test_cast(graph):
    x = ph((None, 3), name="x")
    c = ds.cast(x, ds.int64)
    assert (c.op.type, c.dtype, c.shape) == ("Cast", ds.int64, (None, 3))
    assert c.op.get_attr("DstT") == ds.int64
    assert ds.cast(x, np.float16).dtype == ds.float16
    assert ds.cast(x, "bool").dtype == ds.bool
    assert ds.cast(x, ds.float32) is x                 # TF's: no op for its own dtype
    assert ds.cast([1, 2], ds.float64).dtype == ds.float64
    assert ds.cast([1, 2], ds.int32).op.name.endswith("/x")   # converted in its scope
    with pytest.raises(TypeError, match="Unsupported dtype"):
        ds.cast(x, np.longdouble)


# --- the Python-scalar dtype rule ---------------------------------------------------------------

def test_python_scalars_alone(graph):
    assert ds.convert_to_tensor(3.0).dtype == ds.float32
    assert ds.convert_to_tensor(3).dtype == ds.int32
    assert ds.convert_to_tensor(True).dtype == ds.bool
    assert ds.convert_to_tensor(2**31).dtype == ds.int64
    assert ds.convert_to_tensor([1.5, 2]).dtype == ds.float32


@pytest.mark.parametrize("dtype", [ds.float16, ds.float32, ds.float64])
def test_python_float_takes_the_tensor_dtype(graph, dtype):
    x = ph((2,), dtype)
    for y in (x * 3.0, 3.0 * x, x + 1, 2 - x, x / 2.0, x ** 2, ds.maximum(x, 0.5),
              ds.minimum(0.5, x)):
        assert y.dtype == dtype
        assert all(t.dtype == dtype for t in y.op.inputs)


@pytest.mark.parametrize("dtype", [ds.int32, ds.int64])
def test_python_int_takes_the_tensor_dtype(graph, dtype):
    x = ph((2,), dtype)
    assert (x * 3).dtype == dtype
    assert (3 + x).dtype == dtype
    assert (x / 2).dtype == ds.float64


def test_int_tensor_times_a_fraction_is_type_error(graph):
    i = ph((2,), ds.int32)
    with pytest.raises(TypeError, match="Cannot convert|does not match"):
        i * 1.5
    with pytest.raises(TypeError):
        1.5 * i


def test_int_too_large_for_the_tensor_dtype_is_type_error(graph):
    with pytest.raises(TypeError, match="does not fit in int32"):
        ph((2,), ds.int32) + 2**40


def test_numpy_values_combine_with_tensors(graph):
    x = ph((3,))
    assert (np.ones(3) + x).dtype == ds.float32
    assert (np.ones(3) + x).op.type == "AddV2"      # what `+` builds in TF 2's tf.compat.v1
    assert (x * np.float64(2.0)).dtype == ds.float32
    assert (np.ones((2, 3), np.float32) @ ph((3, 5))).shape == (2, 5)


def test_convert_to_tensor(graph):
    x = ph((2,))
    assert ds.convert_to_tensor(x) is x
    assert ds.convert_to_tensor(x, dtype=ds.float32) is x
    with pytest.raises(TypeError, match="has dtype float32, but int32 is required"):
        ds.convert_to_tensor(x, dtype=ds.int32)
    with pytest.raises(TypeError, match="has no value"):
        ds.convert_to_tensor(ds.no_op())
    assert ds.convert_to_tensor(3, dtype=ds.float64).dtype == ds.float64
    assert ds.convert_to_tensor(3, dtype_hint=ds.float16).dtype == ds.float16
    assert ds.convert_to_tensor(3.5, dtype_hint=ds.int32).dtype == ds.float32


# --- operators -----------------------------------------------------------------------------------

def test_operators_build_the_expected_ops(graph):
    x = ph((2, 3), name="x")
    m = ph((3, 4), name="m")
    cases = {
        "AddV2": x + 1.0, "Sub": x - 1.0, "Mul": x * 2.0, "RealDiv": x / 2.0, "Pow": x ** 2.0,
        "MatMul": x @ m, "Neg": -x, "Abs": abs(x), "Less": x < 1.0, "LessEqual": x <= 1.0,
        "Greater": x > 1.0, "GreaterEqual": x >= 1.0,
    }
    for op_type, t in cases.items():
        assert t.op.type == op_type
        assert t.op.inputs[0] is x
    assert (x @ m).shape == (2, 4)
    assert (x < 1.0).dtype == ds.bool


def test_reflected_operators_put_the_scalar_first(graph):
    x = ph((2,), name="x")
    for t, op_type in ((1.0 + x, "AddV2"), (1.0 - x, "Sub"), (2.0 * x, "Mul"), (2.0 / x, "RealDiv"),
                       (2.0 ** x, "Pow")):
        assert t.op.type == op_type
        assert t.op.inputs[0].op.type == "Const"
        assert t.op.inputs[1] is x
    # 1.0 < x is x > 1.0 in Python.
    assert (1.0 < x).op.type == "Greater"


def test_tensor_as_bool_or_len_is_type_error(graph):
    x = ph((2,), name="x")
    with pytest.raises(TypeError, match="as a Python bool is not allowed"):
        bool(x)
    with pytest.raises(TypeError, match="as a Python bool"):
        if x > 0.0:
            pass  # pragma: no cover
    with pytest.raises(TypeError, match="as a Python bool"):
        0.0 < x < 1.0  # noqa: B015 (chained comparison calls bool())
    with pytest.raises(TypeError, match=r"len\(\) of a symbolic tensor"):
        len(x)


def test_tensor_properties_and_hashing(graph):
    x = ph((2, 3), ds.float64, name="x")
    assert x.name == "x:0"
    assert x.dtype == ds.float64 and x.dtype == np.float64
    assert x.shape == (2, 3) and x.get_shape() == [2, 3]
    assert x.op.outputs == (x,)
    assert x.value_index == 0
    assert x.graph is graph
    assert {x: 1}[x] == 1
    assert repr(x) == "<ds.Tensor 'x:0' shape=(2, 3) dtype=float64>"


def test_tensors_from_different_graphs_are_value_error(graph):
    """TF's ValueError and message: the later input must be from the same graph as the
    first (whose graph the op is built in)."""
    a = ds.constant(1.0, name="a")
    with ds.Graph().as_default():
        b = ds.constant(1.0, name="b")
    def same(x, y):
        return re.escape(f"{x!r} must be from the same graph as {y!r} (graphs are")

    with pytest.raises(ValueError, match=same(b, a)):
        a + b
    with pytest.raises(ValueError, match=same(a, b)):
        ds.multiply(b, a)
    with pytest.raises(ValueError, match=same(b, a)):
        ds.concat([a, b], 0)
    with pytest.raises(ValueError, match=same(b.op, a)):
        ds.group(a, b.op)
    with pytest.raises(ValueError, match="'b:0'.* is not from the passed-in graph"):
        graph.create_op("Identity", [b], {"T": ds.float32})
    assert graph.get_operations() == [a.op]


def test_ops_follow_their_inputs_graph(graph):
    other = ds.Graph()
    with other.as_default():
        b = ds.constant(1.0)
    c = b * 2.0  # built while `graph` is the default
    assert c.graph is other
    assert c.op.inputs[1].graph is other
    assert graph.get_operations() == []


# --- matmul -------------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, ta, tb, out", [
    ((2, 3), (3, 4), False, False, (2, 4)),
    ((3, 2), (3, 4), True, False, (2, 4)),
    ((2, 3), (4, 3), False, True, (2, 4)),
    ((3, 2), (4, 3), True, True, (2, 4)),
    ((None, 3), (3, None), False, False, (None, None)),
    ((2, None), (5, 7), False, False, (2, 7)),
    ((5, 2, 3), (1, 4, 3), False, True, (5, 2, 4)),
    ((5, 2, 3), (3, 4), False, False, (5, 2, 4)),
    ((7, 1, 2, 3), (6, 3, 4), False, False, (7, 6, 2, 4)),
    ((None, 2, 3), (4, 3, 2), False, False, (4, 2, 2)),
])
def test_matmul_shapes(graph, a, b, ta, tb, out):
    y = ds.matmul(ph(a), ph(b), transpose_a=ta, transpose_b=tb)
    assert (y.op.type, y.dtype, y.shape) == ("MatMul", ds.float32, out)
    assert (y.op.get_attr("transpose_a"), y.op.get_attr("transpose_b")) == (ta, tb)


def test_matmul_unknown_rank(graph):
    assert ds.matmul(ph(None), ph((3, 4))).shape.ndims is None


def test_matmul_errors(graph):
    a = ph((2, 3), name="a")
    b = ph((2, 3), name="b")
    with pytest.raises(ValueError, match=r"matmul inner dimensions differ: 'a:0' has shape "
                                         r"\(2, 3\) and 'b:0' has shape \(2, 3\) \(3 != 2\)"):
        ds.matmul(a, b)
    with pytest.raises(ValueError, match=r"'a:0' has shape \(2, 3\) \(transposed\) .* "
                                         r"\(2 != 3\)"):
        ds.matmul(a, ph((3, 4)), transpose_a=True)
    assert ds.matmul(a, b, transpose_a=True).shape == (3, 3)
    with pytest.raises(ValueError, match="rank >= 2"):
        ds.matmul(a, ph((3,)))
    with pytest.raises(ValueError, match="batch dimensions"):
        ds.matmul(ph((2, 2, 3)), ph((5, 3, 4)))
    with pytest.raises(TypeError, match="does not match"):
        ds.matmul(a, ph((3, 2), ds.float64))
    with pytest.raises(TypeError, match="needs a numeric input"):
        ds.matmul(ph((2, 2), ds.bool), ph((2, 2), ds.bool))


# --- reductions and argmax ------------------------------------------------------------------------

REDUCTIONS = [(ds.reduce_sum, "Sum"), (ds.reduce_mean, "Mean"), (ds.reduce_max, "Max"),
              (ds.reduce_min, "Min")]


@pytest.mark.parametrize("fn, op_type", REDUCTIONS)
@pytest.mark.parametrize("axis, keepdims, out, stored", [
    (None, False, (), (0, 1, 2)),
    (None, True, (1, 1, 1), (0, 1, 2)),
    (0, False, (None, 4), (0,)),
    (0, True, (1, None, 4), (0,)),
    (1, False, (2, 4), (1,)),
    (-1, False, (2, None), (2,)),
    (-1, True, (2, None, 1), (2,)),
    ([0, 2], False, (None,), (0, 2)),
    ((-1, 0), True, (1, None, 1), (0, 2)),
    ([2, -1], False, (2, None), (2,)),           # one axis named twice: reduced once
    ([0, 0], True, (1, None, 4), (0,)),
    ([], False, (2, None, 4), ()),
])
def test_reductions(graph, fn, op_type, axis, keepdims, out, stored):
    x = ph((2, None, 4), ds.float64)
    y = fn(x, axis=axis, keepdims=keepdims)
    assert (y.op.type, y.dtype, y.shape) == (op_type, ds.float64, out)
    assert y.op.get_attr("axis") == stored
    assert y.op.get_attr("keepdims") is keepdims


def test_reduction_details(graph):
    x = ph((2, 3), name="x")
    assert ds.reduce_sum(x, keep_dims=True).shape == (1, 1)  # TF1's old spelling
    assert ds.reduce_sum(x, np.int64(1)).shape == (2,)
    assert ds.reduce_mean(ph((4,), ds.int32)).dtype == ds.int32
    assert ds.reduce_sum(ph(None), axis=1).shape.ndims is None
    # Unknown rank: 1 and -1 both stay, and the kernels reduce over their set per input.
    assert ds.reduce_sum(ph(None), axis=[1, -1, 1]).op.get_attr("axis") == (-1, 1)
    assert ds.reduce_max(3.0).shape == ()
    with pytest.raises(ValueError, match="axis 2 is out of range for rank 2"):
        ds.reduce_sum(x, 2)
    with pytest.raises(ValueError, match="axis -3 is out of range for rank 2"):
        ds.reduce_min(x, [0, -3])
    assert ds.reduce_sum(ph(None)).shape.as_list() == []    # every axis, decided at run time
    with pytest.raises(TypeError, match="needs a numeric input"):
        ds.reduce_sum(ph((2,), ds.bool))


def test_argmax(graph):
    x = ph((2, None, 4), ds.float32, name="x")
    first = ds.argmax(x)
    assert (first.op.type, first.dtype, first.shape) == ("ArgMax", ds.int64, (None, 4))
    assert first.op.get_attr("axis") == 0
    last = ds.argmax(x, -1)
    assert (last.shape, last.op.get_attr("axis")) == ((2, None), 2)
    assert ds.argmax(x, axis=1).shape == (2, 4)
    assert ds.argmax(ph((5,), ds.int32)).dtype == ds.int64
    assert ds.argmax(ph(None), 1).shape.ndims is None
    with pytest.raises(ValueError, match="axis 3 is out of range for rank 3"):
        ds.argmax(x, 3)
    assert ds.argmax(x, output_type=ds.int32).dtype == ds.int32
    with pytest.raises(TypeError, match="output_type must be int32 or int64"):
        ds.argmax(x, output_type=ds.float32)
    with pytest.raises(TypeError, match="needs a numeric input"):
        ds.argmax(ph((3,), ds.bool))


# --- shape ops ---------------------------------------------------------------------------------

@pytest.mark.parametrize("src, target, out", [
    ((2, 3), (3, 2), (3, 2)),
    ((2, 3), (-1,), (6,)),
    ((2, 3), [-1, 2], (3, 2)),
    ((2, 3), 6, (6,)),
    ((2, 3, 4), (2, -1), (2, 12)),
    ((None, 6), (-1, 2, 3), (None, 2, 3)),
    ((None, 6), (4, 3), (4, 3)),
    ((2, 3), ds.TensorShape([1, 6]), (1, 6)),
    ((), (1, 1), (1, 1)),
])
def test_reshape(graph, src, target, out):
    r = ds.reshape(ph(src, ds.int64), target)
    assert (r.op.type, r.dtype, r.shape) == ("Reshape", ds.int64, out)
    assert r.op.get_attr("shape") == tuple(np.atleast_1d(
        target.as_list() if isinstance(target, ds.TensorShape) else target).tolist())


@pytest.mark.parametrize("target, match", [
    ((4,), r"cannot reshape 'x:0' with shape \(2, 3\) \(6 elements\) into \[4\] \(4 elements\)"),
    ((4, -1), r"cannot reshape 'x:0' with shape \(2, 3\) \(6 elements\) into \[4, -1\]"),
    ((-1, -1), r"more than one -1"),
    ((-2, -3), r"negative dimension"),
])
def test_bad_reshape_is_value_error(graph, target, match):
    x = ph((2, 3), name="x")
    with pytest.raises(ValueError, match=match):
        ds.reshape(x, target)


def test_transpose(graph):
    x = ph((2, None, 4), name="x")
    t = ds.transpose(x)
    assert (t.op.type, t.shape, t.op.get_attr("perm")) == ("Transpose", (4, None, 2), (2, 1, 0))
    assert ds.transpose(x, [1, 0, 2]).shape == (None, 2, 4)
    assert ds.transpose(ph((3, 5))).shape == (5, 3)
    assert ds.transpose(ph(())).shape == ()
    assert ds.transpose(ph(None), [1, 0]).shape == (None, None)
    with pytest.raises(ValueError, match=r"perm \[1, 0\] is not a permutation of the 3 axes "
                                         r"of 'x:0'"):
        ds.transpose(x, [1, 0])
    with pytest.raises(ValueError, match="not a permutation"):
        ds.transpose(x, [0, 0, 1])
    assert ds.transpose(ph(None)).shape.ndims is None     # perm from Rank, as TF's


def test_concat(graph):
    a = ph((2, 3), name="a")
    b = ph((2, 5), name="b")
    c = ds.concat([a, b], -1)
    assert (c.op.type, c.dtype, c.shape) == ("ConcatV2", ds.float32, (2, 8))
    assert c.op.get_attr("axis") == 1
    assert list(c.op.inputs) == [a, b]
    assert ds.concat([a, a, a], 0).shape == (6, 3)
    assert ds.concat([a, ph((2, None))], 1).shape == (2, None)
    assert ds.concat([a, ph((None, 3))], 0).shape == (None, 3)
    assert ds.concat([a, ph(None)], 0).shape == (None, 3)
    assert ds.concat([a], -2).shape == (2, 3)
    assert ds.concat([[1.0, 2.0], [3.0]], 0).shape == (3,)


def test_concat_errors(graph):
    a = ph((2, 3), name="a")
    with pytest.raises(ValueError, match=r"differ in dimension 1 \(other than axis 0\): 'a:0' "
                                         r"\(2, 3\) vs 'b:0' \(2, 5\)"):
        ds.concat([a, ph((2, 5), name="b")], 0)
    with pytest.raises(ValueError, match="differ in rank"):
        ds.concat([a, ph((2,))], 0)
    with pytest.raises(ValueError, match="axis 2 is out of range for rank 2"):
        ds.concat([a, a], 2)
    with pytest.raises(TypeError, match="does not match"):
        ds.concat([a, ph((2, 3), ds.int32)], 0)
    with pytest.raises(ValueError, match="needs at least one input"):
        ds.concat([], 0)


def test_softmax(graph):
    x = ph((None, 10), ds.float64)
    s = ds.softmax(x)
    assert (s.op.type, s.dtype, s.shape, s.op.get_attr("axis")) == (
        "Softmax", ds.float64, (None, 10), 1)
    assert ds.softmax(x, axis=0).op.get_attr("axis") == 0
    assert ds.nn.softmax(x).op.type == "Softmax"
    with pytest.raises(TypeError, match="floating-point"):
        ds.softmax(ph((3,), ds.int32))
    for build in (ds.softmax, ds.nn.log_softmax):       # TF's error class, when built
        for axis in (2, -3):
            with pytest.raises(ds.errors.InvalidArgumentError,
                               match=rf"range \[-2, 2\) .* Received: dim={axis}$"):
                build(x, axis)
    with pytest.raises(ds.errors.InvalidArgumentError, match="dim=3"):
        ds.nn.softmax(x, dim=3)
    with pytest.raises(ValueError, match="out of range for rank 0"):     # the op's own
        ds.softmax(ph((), ds.float32))


def test_an_argument_given_in_both_its_spellings_is_value_error(graph):
    """TF's deprecated_argument_lookup: axis and dim (keepdims and keep_dims) together are
    ValueError even when they agree; one of them alone is that argument."""
    x, labels = ph((2, 3)), ph((2, 3))
    for build in (lambda: ds.nn.softmax(x, axis=-1, dim=1),
                  lambda: ds.nn.log_softmax(x, axis=0, dim=0),
                  lambda: ds.nn.l2_normalize(x, axis=1, dim=1),
                  lambda: ds.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=x,
                                                                     axis=0, dim=0),
                  lambda: ds.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x,
                                                                  axis=0)):   # dim=-1 given
        with pytest.raises(ValueError, match=r"^Cannot specify both 'dim' and 'axis'\.$"):
            build()
    for build in (lambda: ds.norm(x, axis=1, keepdims=True, keep_dims=True),
                  lambda: ds.nn.moments(x, [0], keepdims=False, keep_dims=True),
                  lambda: ds.count_nonzero(x, keepdims=True, keep_dims=False)):
        with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
            build()
    with pytest.raises(ValueError, match="'reduction_indices' and 'axis'"):
        ds.count_nonzero(x, axis=0, reduction_indices=0)
    assert ds.nn.softmax(x, dim=0).op.get_attr("axis") == 0
    assert ds.nn.softmax(x, axis=None).op.get_attr("axis") == 1
    assert ds.norm(x, axis=1, keep_dims=True).shape == (2, 1)
    assert ds.nn.moments(x, [0], keep_dims=True)[0].shape == (1, 3)
    assert ds.count_nonzero(x, reduction_indices=1, keep_dims=True).shape == (2, 1)


def test_tf1_spellings_are_the_same_functions():
    for name in ("relu", "sigmoid", "tanh", "softmax"):
        assert getattr(ds.nn, name) is getattr(ds, name)
    only_in_math = {"top_k", "in_top_k",     # TF1 has no tf.top_k, tf.in_top_k either,
                    "approx_max_k", "approx_min_k"}          # nor tf.approx_max_k
    math_only = {"xlogy", "divide_no_nan",  # nor tf.xlogy, tf.divide_no_nan (tf.div_no_nan),
                 "reduce_std", "reduce_variance", "l2_normalize", "softplus", "softsign",
                 "erfinv", "ndtri", "bessel_i0e", "bessel_i1e", "bessel_i0", "bessel_i1",
                 "cumulative_logsumexp", "multiply_no_nan", "polyval", "reciprocal_no_nan",
                 "reduce_euclidean_norm", "xdivy", "xlog1py", "log_softmax", "erfcinv",
                 "zero_fraction", "special", "nextafter"}
    for name in set(ds.math.__all__) - only_in_math - math_only:
        assert getattr(ds.math, name) is getattr(ds, name), name
    for name in math_only:
        assert not hasattr(ds, name), name
    assert ds.div_no_nan is ds.math.divide_no_nan
    for name in only_in_math:
        assert getattr(ds.math, name) is getattr(ds.nn, name)
        assert not hasattr(ds, name), name
