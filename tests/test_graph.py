"""Graph building: default graphs, names, lookups, every op builder's static dtype and
shape, build-time errors, the Python-scalar dtype rule, operators, control dependencies,
Variables and seeds.  No session runs here (kernels are tested elsewhere)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import devsession as ds
from devsession.ops.registry import registered_ops


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


def ph(shape, dtype=ds.float32, name=None):
    return ds.placeholder(dtype, shape, name=name)


# --- default graph --------------------------------------------------------------------------

def test_default_graph_is_stable_and_reset_replaces_it():
    first = ds.get_default_graph()
    assert ds.get_default_graph() is first
    ds.reset_default_graph()
    second = ds.get_default_graph()
    assert second is not first
    assert isinstance(second, ds.Graph)
    assert second.get_operations() == []
    c = ds.constant(1.0)
    assert c.graph is second


def test_as_default_nests_and_restores():
    outer_default = ds.get_default_graph()
    g1, g2 = ds.Graph(), ds.Graph()
    with g1.as_default() as entered:
        assert entered is g1
        assert ds.get_default_graph() is g1
        with g2.as_default():
            assert ds.get_default_graph() is g2
            assert ds.constant(1.0).graph is g2
        assert ds.get_default_graph() is g1
        assert ds.constant(1.0).graph is g1
    assert ds.get_default_graph() is outer_default
    assert [op.type for op in g1.get_operations()] == ["Const"]
    assert [op.type for op in g2.get_operations()] == ["Const"]


def test_as_default_restores_after_an_exception():
    before = ds.get_default_graph()
    g = ds.Graph()
    with pytest.raises(RuntimeError):
        with g.as_default():
            raise RuntimeError("boom")
    assert ds.get_default_graph() is before


def test_reset_default_graph_inside_as_default_is_refused(graph):
    with pytest.raises(AssertionError, match="reset_default_graph"):
        ds.reset_default_graph()


def test_default_graph_is_thread_local(graph):
    seen = {}

    def other_thread():
        seen["graph"] = ds.get_default_graph()
        seen["const_graph"] = ds.constant(1.0).graph

    t = threading.Thread(target=other_thread)
    t.start()
    t.join()
    assert ds.get_default_graph() is graph
    assert seen["graph"] is not graph
    assert seen["const_graph"] is seen["graph"]
    assert graph.get_operations() == []


def test_scopes_are_thread_local(graph):
    seen = {}

    def other_thread():
        with graph.as_default():
            c = ds.constant(1.0, name="c")
        seen["name"], seen["device"] = c.op.name, c.op.device
        seen["control"] = c.op.control_inputs

    a = ds.constant(0.0, name="a")
    with ds.name_scope("scope"), ds.device("gpu:0"), ds.control_dependencies([a]):
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
    assert seen == {"name": "c", "device": "", "control": ()}


def test_graph_version_counts_nodes(graph):
    assert graph.version == 0
    a = ds.constant(1.0)
    assert graph.version == 1
    b = a + 2.0
    assert graph.version == 3
    assert graph.operations_since(1) == [b.op.inputs[1].op, b.op]


def test_finalized_graph_refuses_new_nodes(graph):
    ds.constant(1.0)
    graph.finalize()
    assert graph.finalized
    with pytest.raises(RuntimeError, match="finalized"):
        ds.constant(2.0)
    assert graph.version == 1


# --- names ------------------------------------------------------------------------------------

def test_default_names_are_uniquified(graph):
    a = ds.constant(1.0)
    b = ds.constant(2.0)
    assert (a.name, b.name) == ("Const:0", "Const_1:0")
    assert [(a + b).name, (a + b).name, ds.add(a, b).name] == ["Add:0", "Add_1:0", "Add_2:0"]
    assert ds.matmul(ph((2, 2)), ph((2, 2))).op.name == "MatMul"


def test_default_names_of_renamed_op_types(graph):
    x = ph((2, 3), name="x")
    assert ds.concat([x, x], 0).op.name == "concat"
    assert ds.where(x > 0.0, x, x).op.name == "where"
    assert ds.divide(x, x).op.name == "truediv"
    assert ds.random_normal((2,)).op.name == "random_normal"
    assert ds.random_uniform((2,)).op.name == "random_uniform"
    assert ds.placeholder(ds.float32).op.name == "Placeholder"
    assert ds.no_op().name == "NoOp"
    assert ds.group(x).name == "group_deps"


def test_explicit_names_are_uniquified_like_tf(graph):
    names = [ds.constant(1.0, name=n).op.name for n in ["foo_1", "foo", "foo", "foo", "foo_1"]]
    assert names == ["foo_1", "foo", "foo_2", "foo_3", "foo_1_1"]


def test_names_are_unique_case_insensitively(graph):
    assert ds.constant(1.0, name="x").op.name == "x"
    assert ds.constant(1.0, name="X").op.name == "X_1"


def test_invalid_node_name_is_value_error(graph):
    with pytest.raises(ValueError, match="'bad name' is not a valid node name"):
        ds.constant(1.0, name="bad name")


def test_name_scopes(graph):
    with ds.name_scope("outer") as outer:
        assert outer == "outer/"
        a = ds.constant(1.0)
        with ds.name_scope("inner") as inner:
            assert inner == "outer/inner/"
            b = ds.add(a, a, name="sum")
        with ds.name_scope(None) as cleared:
            assert cleared == ""
            c = ds.constant(1.0)
        with ds.name_scope("outer/") as reentered:  # trailing '/' re-enters a scope as is
            assert reentered == "outer/"
            d = ds.constant(1.0)
    with ds.name_scope("outer") as again:
        e = ds.constant(1.0)
    assert again == "outer_1/"
    assert [a.name, b.name, c.name, d.name, e.name] == [
        "outer/Const:0", "outer/inner/sum:0", "Const:0", "outer/Const_1:0", "outer_1/Const:0"]


def test_name_scope_reserves_its_name(graph):
    with ds.name_scope("s"):
        pass
    assert ds.constant(1.0, name="s").op.name == "s_1"


def test_variable_node_names(graph):
    v = ds.Variable(1.0, name="v")
    assert v.name == "v:0"
    assert v.op.name == "v"
    assert v.op.type == "VariableV2"
    assert v.initializer.name == "v/Assign"
    assert v.value().name == "v/read:0"
    assert v.initial_value.name == "v/initial_value:0"
    assert [op.name for op in graph.get_operations()] == [
        "v/initial_value", "v", "v/Assign", "v/read"]
    w = ds.Variable(2.0, name="v")
    assert w.name == "v_1:0"
    assert w.initializer.name == "v_1/Assign"
    assert w.value().name == "v_1/read:0"
    anonymous = ds.Variable(3.0)
    assert anonymous.name == "Variable:0"
    with ds.name_scope("layer"):
        scoped = ds.Variable(4.0, name="w")
    assert scoped.name == "layer/w:0"
    assert scoped.initializer.name == "layer/w/Assign"


# --- lookups -------------------------------------------------------------------------------------

def test_get_tensor_and_operation_by_name(graph):
    a = ds.constant(1.0, name="a")
    with ds.name_scope("s"):
        b = ds.identity(a, name="b")
    assert graph.get_tensor_by_name("a:0") is a
    assert graph.get_operation_by_name("a") is a.op
    assert graph.get_tensor_by_name("s/b:0") is b
    assert graph.get_operation_by_name("s/b") is b.op
    assert "s/b" in graph
    assert "b" not in graph


def test_lookup_of_unknown_names(graph):
    ds.constant(1.0, name="alpha")
    with pytest.raises(KeyError, match="'alpah' refers to an Operation not in the graph"):
        graph.get_operation_by_name("alpah")
    with pytest.raises(KeyError, match="Did you mean 'alpha'"):
        graph.get_operation_by_name("alpah")
    with pytest.raises(KeyError, match="'nope' refers to an Operation not in the graph"):
        graph.get_tensor_by_name("nope:0")
    with pytest.raises(KeyError, match="'alpha:1' refers to a Tensor which does not exist"):
        graph.get_tensor_by_name("alpha:1")


def test_lookup_with_the_wrong_kind_of_name(graph):
    ds.constant(1.0, name="a")
    with pytest.raises(ValueError, match="'a:0' looks like a Tensor name.*did you mean 'a'"):
        graph.get_operation_by_name("a:0")
    with pytest.raises(ValueError, match="'a' looks like an Operation name.*'a:0'"):
        graph.get_tensor_by_name("a")
    with pytest.raises(TypeError, match="Operation names are strings"):
        graph.get_operation_by_name(3)


def test_as_graph_element(graph):
    a = ds.constant(1.0, name="a")
    v = ds.Variable(1.0, name="v")
    assert graph.as_graph_element("a:0") is a
    assert graph.as_graph_element("a") is a.op
    assert graph.as_graph_element(v) is v.value()
    with pytest.raises(ValueError, match="Expected an Operation name"):
        graph.as_graph_element("a:0", allow_tensor=False)
    with pytest.raises(TypeError, match="Can not convert a float"):
        graph.as_graph_element(1.0)
    with ds.Graph().as_default():
        other = ds.constant(1.0)
    with pytest.raises(ValueError, match="not an element of this graph"):
        graph.as_graph_element(other)


def test_get_attr_unknown_is_value_error(graph):
    a = ds.constant(1.0, name="a")
    with pytest.raises(ValueError, match="Operation 'a' has no attr named 'nope'"):
        a.op.get_attr("nope")


# --- sources -------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, dtype, shape", [
    (3.0, ds.float32, ()),
    (3, ds.int32, ()),
    (True, ds.bool, ()),
    (2**40, ds.int64, ()),
    ([1.0, 2.0], ds.float32, (2,)),
    ([[1, 2, 3], [4, 5, 6]], ds.int32, (2, 3)),
    (np.float64(3.0), ds.float64, ()),
    (np.zeros((2, 0), np.float16), ds.float16, (2, 0)),
    (np.arange(3, dtype=np.int64), ds.int64, (3,)),
])
def test_constant_dtype_and_shape(graph, value, dtype, shape):
    c = ds.constant(value)
    assert c.dtype == dtype
    assert c.shape == shape
    assert c.op.type == "Const"
    assert c.op.get_attr("dtype") == dtype
    stored = c.op.get_attr("value")
    assert stored.dtype == dtype.np
    np.testing.assert_array_equal(stored, np.asarray(value))


def test_constant_value_is_a_frozen_copy(graph):
    source = np.array([1.0, 2.0], np.float32)
    c = ds.constant(source)
    source[0] = 99.0
    stored = c.op.get_attr("value")
    np.testing.assert_array_equal(stored, [1.0, 2.0])
    with pytest.raises(ValueError):
        stored[0] = 5.0


def test_constant_with_dtype_and_shape(graph):
    assert ds.constant([1, 2], dtype=ds.float32).dtype == ds.float32
    filled = ds.constant(7, shape=(2, 3))
    assert filled.shape == (2, 3)
    np.testing.assert_array_equal(filled.op.get_attr("value"), np.full((2, 3), 7, np.int32))
    reshaped = ds.constant([1, 2, 3, 4, 5, 6], shape=[3, 2])
    assert reshaped.shape == (3, 2)
    with pytest.raises(ValueError, match=r"shape \[2, 3\] from a value with 3 elements"):
        ds.constant([1, 2, 3], shape=(2, 3))
    with pytest.raises(TypeError, match="Cannot convert 1.5 to a tensor of dtype int32"):
        ds.constant(1.5, dtype=ds.int32)


@pytest.mark.parametrize("value, match", [
    ("abc", "numbers and bools only"),
    (np.array([1, 2], np.uint8), "Unsupported dtype"),
    (np.array([1j]), "numbers and bools only"),
])
def test_constant_rejects_unsupported_values(graph, value, match):
    with pytest.raises(TypeError, match=match):
        ds.constant(value)


@pytest.mark.parametrize("np_dtype, dtype", [(">f4", ds.float32), (">i4", ds.int32),
                                             (">f8", ds.float64)])
def test_constant_accepts_big_endian_arrays(graph, np_dtype, dtype):
    c = ds.constant(np.array([1, 2], dtype=np_dtype))
    assert c.dtype == dtype
    np.testing.assert_array_equal(c.op.get_attr("value"), [1, 2])


def test_placeholder(graph):
    x = ds.placeholder(ds.float32, (None, 3), name="x")
    assert (x.dtype, x.shape, x.name, x.op.type) == (ds.float32, (None, 3), "x:0", "Placeholder")
    assert x.op.get_attr("shape") == (None, 3)
    assert x.op.get_attr("dtype") == ds.float32
    unknown = ds.placeholder(ds.int64)
    assert unknown.shape.ndims is None
    assert ds.placeholder(np.float16, 4).shape == (4,)
    assert ds.placeholder("bool", ()).dtype == ds.bool
    with pytest.raises(TypeError, match="Unsupported dtype"):
        ds.placeholder(np.complex64, (2,))


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
    q = ds.divide(ph((3,), dtype), ph((3,), dtype))
    assert (q.op.type, q.dtype, q.shape) == ("RealDiv", out, (3,))
    assert ds.truediv is ds.divide


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


def test_cast(graph):
    x = ph((None, 3), name="x")
    c = ds.cast(x, ds.int64)
    assert (c.op.type, c.dtype, c.shape) == ("Cast", ds.int64, (None, 3))
    assert c.op.get_attr("DstT") == ds.int64
    assert ds.cast(x, np.float16).dtype == ds.float16
    assert ds.cast(x, "bool").dtype == ds.bool
    same = ds.cast(x, ds.float32)
    assert (same.op.type, same.dtype) == ("Identity", ds.float32)
    assert ds.cast([1, 2], ds.float64).dtype == ds.float64
    with pytest.raises(TypeError, match="Unsupported dtype"):
        ds.cast(x, np.complex64)


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
    assert (np.ones(3) + x).op.type == "Add"
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
        "Add": x + 1.0, "Sub": x - 1.0, "Mul": x * 2.0, "RealDiv": x / 2.0, "Pow": x ** 2.0,
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
    for t, op_type in ((1.0 + x, "Add"), (1.0 - x, "Sub"), (2.0 * x, "Mul"), (2.0 / x, "RealDiv"),
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
    a = ds.constant(1.0, name="a")
    with ds.Graph().as_default():
        b = ds.constant(1.0, name="b")
    with pytest.raises(ValueError, match="belongs to another graph"):
        a + b
    with pytest.raises(ValueError, match="belongs to another graph"):
        ds.multiply(a, b)
    with pytest.raises(ValueError, match="belongs to another graph"):
        ds.concat([a, b], 0)
    with pytest.raises(ValueError, match="not an element of this graph"):
        ds.group(a, b)


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
    assert ds.reduce_max(3.0).shape == ()
    with pytest.raises(ValueError, match="axis 2 is out of range for rank 2"):
        ds.reduce_sum(x, 2)
    with pytest.raises(ValueError, match="axis -3 is out of range for rank 2"):
        ds.reduce_min(x, [0, -3])
    with pytest.raises(ValueError, match="needs a known rank"):
        ds.reduce_sum(ph(None))
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
    with pytest.raises(TypeError, match="argmax returns int64"):
        ds.argmax(x, output_type=ds.int32)
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
    with pytest.raises(ValueError, match="without perm needs a known rank"):
        ds.transpose(ph(None))


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
    with pytest.raises(ValueError, match="axis 2 is out of range for rank 2"):
        ds.softmax(x, 2)


def test_tf1_spellings_are_the_same_functions():
    for name in ("relu", "sigmoid", "tanh", "softmax"):
        assert getattr(ds.nn, name) is getattr(ds, name)
    for name in ds.math.__all__:
        assert getattr(ds.math, name) is getattr(ds, name), name


# --- random ops and seeds ------------------------------------------------------------------------

def test_random_ops(graph):
    u = ds.random_uniform((2, 3), minval=-1, maxval=2, dtype=ds.float64, name="u")
    assert (u.op.type, u.dtype, u.shape) == ("RandomUniform", ds.float64, (2, 3))
    assert (u.op.get_attr("minval"), u.op.get_attr("maxval")) == (-1.0, 2.0)
    n = ds.random_normal([4], mean=1.0, stddev=0.5)
    assert (n.op.type, n.dtype, n.shape) == ("RandomStandardNormal", ds.float32, (4,))
    assert (n.op.get_attr("mean"), n.op.get_attr("stddev")) == (1.0, 0.5)
    with pytest.raises(ValueError, match="fully defined shape"):
        ds.random_uniform((None, 2))
    with pytest.raises(TypeError, match="must be floating point, not int32"):
        ds.random_normal((2,), dtype=ds.int32)


def _seeds(t):
    return t.op.get_attr("seed"), t.op.get_attr("seed2")


def test_unseeded_random_ops(graph):
    assert _seeds(ds.random_uniform((2,))) == (0, 0)
    assert _seeds(ds.random_normal((2,))) == (0, 0)


def test_op_seed_without_graph_seed_uses_the_default_graph_seed(graph):
    assert _seeds(ds.random_normal((2,), seed=9)) == (87654321, 9)


def test_graph_seed_gives_each_op_a_distinct_repeatable_seed():
    def build():
        g = ds.Graph()
        g.seed = 42
        with g.as_default():
            ops = [ds.random_uniform((2,)), ds.constant(1.0), ds.random_normal((2,)),
                   ds.random_normal((3,), seed=3)]
        return [_seeds(t) for t in ops if t.op.type != "Const"]

    first = build()
    assert first == [(42, 0), (42, 2), (42, 3)]
    assert build() == first


def test_graph_seed_zero_still_seeds_the_first_op():
    g = ds.Graph()
    g.seed = 0
    with g.as_default():
        assert _seeds(ds.random_uniform((2,))) != (0, 0)


# --- control dependencies and group ------------------------------------------------------------

def test_control_dependencies(graph):
    a = ds.constant(1.0, name="a")
    b = ds.constant(2.0, name="b")
    with ds.control_dependencies([a]):
        c = ds.add(b, b, name="c")
        with ds.control_dependencies([b.op]):
            d = ds.identity(a, name="d")  # a is a data input: not repeated as control
            e = ds.no_op(name="e")
        with ds.control_dependencies(None):
            f = ds.identity(b, name="f")
        with ds.control_dependencies([]):
            h = ds.identity(b, name="h")
    after = ds.identity(b, name="after")
    assert [op.name for op in c.op.control_inputs] == ["a"]
    assert [op.name for op in d.op.control_inputs] == ["b"]
    assert {op.name for op in e.control_inputs} == {"a", "b"}
    assert f.op.control_inputs == ()
    assert [op.name for op in h.op.control_inputs] == ["a"]
    assert after.op.control_inputs == ()


def test_control_dependencies_accept_names_and_variables(graph):
    a = ds.constant(1.0, name="a")
    v = ds.Variable(1.0, name="v")
    with ds.control_dependencies(["a", v, v.initializer]):
        k = ds.identity(3.0, name="k")
    assert [op.name for op in k.op.control_inputs] == ["a", "v/read", "v/Assign"]
    with pytest.raises(TypeError, match="Can not convert a float"):
        with ds.control_dependencies([1.0]):
            pass  # pragma: no cover
    with graph.control_dependencies([a]):
        m = ds.no_op()
    assert [op.name for op in m.control_inputs] == ["a"]


def test_group(graph):
    a = ds.constant(1.0, name="a")
    b = ds.identity(a, name="b")
    n = ds.no_op(name="n")
    g = ds.group(a, [b, n], name="grp")
    assert (g.type, g.name, g.inputs, g.outputs) == ("NoOp", "grp", (), ())
    assert [op.name for op in g.control_inputs] == ["a", "b", "n"]
    assert ds.group(b, "a:0").control_inputs == (b.op, a.op)
    assert ds.group(b).name == "group_deps_1"
    assert ds.no_op(name="nothing").control_inputs == ()


# --- Variables -----------------------------------------------------------------------------------

def test_variable_properties(graph):
    v = ds.Variable(np.zeros((2, 3), np.float32), name="v")
    assert (v.dtype, v.shape, v.name, v.graph) == (ds.float32, (2, 3), "v:0", graph)
    assert v.op.type == "VariableV2"
    assert v.op.get_attr("shape") == (2, 3)
    assert v.op.get_attr("dtype") == ds.float32
    assert v.initializer.type == "Assign"
    assert [t.name for t in v.initializer.inputs] == ["v:0", "v/initial_value:0"]
    assert v.value().op.type == "Identity"
    assert v.value().op.inputs[0].name == "v:0"
    assert v.get_shape() == (2, 3)
    assert v.trainable
    assert ds.global_variables() == [v]


def test_variable_dtype_argument_and_inference(graph):
    assert ds.Variable(1).dtype == ds.int32
    assert ds.Variable(1.0).dtype == ds.float32
    assert ds.Variable(1, dtype=ds.float64).dtype == ds.float64
    assert ds.Variable([True, False]).shape == (2,)
    with pytest.raises(TypeError, match="without losing information"):
        ds.Variable(1.5, dtype=ds.int32)


def test_variable_needs_a_fully_defined_shape(graph):
    with pytest.raises(ValueError, match=r"Variable 'v' needs an initial value of fully "
                                         r"defined shape, got \(\?, 3\)"):
        ds.Variable(ph((None, 3)), name="v")


def test_variable_assign_ops(graph):
    v = ds.Variable([1.0, 2.0], name="v")
    assign = v.assign([3.0, 4.0])
    assert (assign.op.type, assign.op.name, assign.dtype, assign.shape) == (
        "Assign", "v/Assign_1", ds.float32, (2,))
    assert assign.op.inputs[0].name == "v:0"
    add = v.assign_add([1, 1])  # Python ints take the variable's dtype
    assert (add.op.type, add.op.name, add.dtype, add.shape) == (
        "AssignAdd", "v/AssignAdd", ds.float32, (2,))
    assert add.op.inputs[1].dtype == ds.float32
    assert v.assign(ph((2,)), name="set").op.name == "set"
    with pytest.raises(ValueError, match=r"cannot assign value .* with shape \(3,\) to variable "
                                         r"'v:0' with shape \(2,\)"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="cannot assign float64 value"):
        v.assign(ph((2,), ds.float64))


def test_variable_is_usable_as_a_tensor(graph):
    v = ds.Variable([[1.0, 2.0]], name="v")
    read = v.value()
    for t in (v * 2.0, 2.0 * v, v + v, v - 1.0, v / 2.0, v ** 2.0, -v, abs(v), v < 1.0):
        assert read in t.op.inputs
    assert (v @ ds.constant([[1.0], [1.0]])).shape == (1, 1)
    assert ds.reduce_sum(v).dtype == ds.float32
    assert ds.identity(v).op.inputs[0] is read
    assert ds.convert_to_tensor(v) is read
    assert ds.where(v > 0.0, v, 0.0).shape == (1, 2)


def test_variable_ignores_outer_control_dependencies(graph):
    a = ds.constant(1.0, name="a")
    with ds.control_dependencies([a]):
        ds.Variable(1.0, name="v")
    for name in ("v", "v/initial_value", "v/Assign", "v/read"):
        assert graph.get_operation_by_name(name).control_inputs == ()


def test_global_variables_initializer(graph):
    v = ds.Variable(1.0, name="v")
    w = ds.Variable(2.0, name="w")
    init = ds.global_variables_initializer()
    assert (init.type, init.name) == ("NoOp", "init")
    assert list(init.control_inputs) == [v.initializer, w.initializer]
    only = ds.variables_initializer([w], name="only_w")
    assert list(only.control_inputs) == [w.initializer]
    empty = ds.variables_initializer([])
    assert (empty.type, empty.control_inputs) == ("NoOp", ())


def test_every_registered_op_has_a_builder(graph):
    """Each op type the registry knows can be built from the public API."""
    x = ph((2, 2))
    v = ds.Variable([[1.0, 2.0], [3.0, 4.0]])
    built = [
        ds.identity(x), -x, abs(x), ds.square(x), ds.relu(x), ds.exp(x), ds.log(x),
        ds.sqrt(x), ds.tanh(x), ds.sigmoid(x), x + x, x - x, x * x, x ** x, x / x,
        ds.maximum(x, x), ds.minimum(x, x), ds.equal(x, x), x < x, x <= x, x > x, x >= x,
        ds.where(x > x, x, x), ds.cast(x, ds.int32), x @ x, ds.reduce_sum(x),
        ds.reduce_mean(x), ds.reduce_max(x), ds.reduce_min(x), ds.argmax(x),
        ds.reshape(x, (-1,)), ds.transpose(x), ds.concat([x, x], 0), ds.softmax(x),
        ds.random_uniform((2,)), ds.random_normal((2,)), ds.no_op(), v.assign(x),
        v.assign_add(x),
    ]
    assert len(built) == 39
    public = {op for op in registered_ops() if not op.startswith("_")}  # "_" = optimizer-made
    assert {op.type for op in graph.get_operations()} == public


def test_reshape_with_a_shape_tensor_says_what_is_supported(graph):
    x = ds.placeholder(ds.float32, (2, 3))
    with pytest.raises(TypeError, match="list of ints"):
        ds.reshape(x, ds.constant([3, 2]))
