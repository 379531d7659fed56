"""Graph building: default graphs, names, lookups, sources, random ops and seeds, control
dependencies, Variables.  Op builders' dtypes and shapes are in test_op_shapes.py.  No
session runs here (kernels are tested elsewhere)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import devsession as ds
from devsession.ops.registry import registered_ops
from array_cases import one_of_each_array_op
from graph_building import ph
from nn_cases import one_of_each_nn_op
from stateful_random_cases import one_of_each_stateful_random_op


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
    with pytest.raises(AssertionError, match=r"^Do not use tf.reset_default_graph\(\) to clear "
                                             r"nested graphs. If you need a cleared graph, exit "
                                             r"the nesting and create a new graph.$"):
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


def test_unsafe_unfinalize_allows_new_nodes_again(graph):
    graph.finalize()
    graph._unsafe_unfinalize()       # what a MonitoredSession does as it closes
    assert not graph.finalized
    assert ds.constant(2.0).graph is graph


def test_prevent_feeding_and_fetching_mark_only_what_they_name(graph):
    a = ds.placeholder(ds.float32, (), name="a")
    b = a * 2.0
    c = b + 1.0
    graph.prevent_feeding(b)
    graph.prevent_fetching(c.op)
    assert [graph.is_feedable(t) for t in (a, b, c)] == [True, False, True]
    assert [graph.is_fetchable(t) for t in (a, b, c, c.op, b.op)] == [True, True, False, False,
                                                                       True]


# --- names ------------------------------------------------------------------------------------

def test_default_names_are_uniquified(graph):
    a = ds.constant(1.0)
    b = ds.constant(2.0)
    assert (a.name, b.name) == ("Const:0", "Const_1:0")
    # as TF1: `a + b` is named "add" (its scope's name), ds.add(a, b) "Add"; names are
    # unique regardless of case, as in TF
    assert [(a + b).name, (a + b).name, ds.add(a, b).name] == ["add:0", "add_1:0", "Add_2:0"]
    assert ds.matmul(ph((2, 2)), ph((2, 2))).op.name == "MatMul"


def test_default_names_of_renamed_op_types(graph):
    x = ph((2, 3), name="x")
    assert ds.concat([x, x], 0).op.name == "concat"
    assert ds.where(x > 0.0, x, x).op.name == "Select"           # TF1 1.15 and 2.21 alike
    assert ds.where_v2(x > 0.0, x, x).op.name == "SelectV2"
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


def test_tf1_name_scope_with_a_default_name_and_values(graph):
    """TF1's ``name_scope(name, default_name, values)``, as library code writes it: the
    default when name is None, in the graph of ``values``; neither name is a ValueError."""
    x = ds.constant(1.0)
    with ds.name_scope(None, "PTBProducer", [x]) as scope:
        assert scope == "PTBProducer/" and ds.identity(x).name == "PTBProducer/Identity:0"
    with ds.name_scope("given", default_name="unused", values=[x]) as scope:
        assert scope == "given/"
    with pytest.raises(ValueError, match="At least one of name"):
        with ds.name_scope(None, None, [x]):
            pass
    other = ds.Graph()
    with other.as_default():
        y = ds.constant(2.0)
    with ds.name_scope(None, "elsewhere", [[y]]) as scope:
        assert ds.identity(y).graph is other and scope == "elsewhere/"
    assert ds.get_default_graph() is graph


def test_scope_names_are_checked_as_tf_checks_them(graph):
    """A root scope is named as an op is; a nested one may also start with '_' (TF1's
    spatial transformer nests "_interpolate"); either error is TF's ValueError, raised as
    the scope opens, by variable_scope too."""
    with ds.variable_scope("outer"):
        with ds.variable_scope("_interpolate"), ds.name_scope("_meshgrid"):
            assert ds.constant(1.0).op.name == "outer/_interpolate/_meshgrid/Const"
        with pytest.raises(ValueError, match="'a b' is not a valid scope name"):
            with ds.name_scope("a b"):
                pass
    for opens in (ds.name_scope, ds.variable_scope):
        with pytest.raises(ValueError, match="'_x' is not a valid root scope name"):
            with opens("_x"):
                pass
    with ds.name_scope(".x") as scope:
        assert scope == ".x/"
    assert graph.get_operations()[1:] == [] and ds.get_variable_scope().name == ""


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


# (the graph's one constant, a lookup of an operation or a tensor by this name, the error)
BAD_LOOKUPS = {
    "unknown-op": ("alpha", "op", "alpah", KeyError,
                   "'alpah' refers to an Operation not in the graph"),
    "unknown-op-suggests": ("alpha", "op", "alpah", KeyError, "Did you mean 'alpha'"),
    "tensor-of-unknown-op": ("alpha", "tensor", "nope:0", KeyError,
                             "'nope:0' refers to a Tensor which does not exist. The "
                             "operation, 'nope', does not exist in this graph."),
    "tensor-of-unknown-op-suggests": ("alpha", "tensor", "alpah:0", KeyError,
                                      "does not exist in this graph. Did you mean 'alpha'"),
    "unknown-output": ("alpha", "tensor", "alpha:1", KeyError,
                       "'alpha:1' refers to a Tensor which does not exist"),
    "op-by-tensor-name": ("a", "op", "a:0", ValueError,
                          "'a:0' looks like a Tensor name.*did you mean 'a'"),
    "tensor-by-op-name": ("a", "tensor", "a", ValueError,
                          "'a' looks like an Operation name.*'a:0'"),
    "op-name-not-a-string": ("a", "op", 3, TypeError, "Operation names are strings"),
}


@pytest.mark.parametrize("existing, kind, name, error, match", BAD_LOOKUPS.values(),
                         ids=BAD_LOOKUPS.keys())
def test_lookups_of_unknown_or_wrong_kinds_of_names(graph, existing, kind, name, error, match):
    ds.constant(1.0, name=existing)
    lookup = graph.get_operation_by_name if kind == "op" else graph.get_tensor_by_name
    with pytest.raises(error, match=match):
        lookup(name)


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
    assert c.op.attrs["dtype"] == dtype
    stored = c.op.attrs["value"]
    assert stored.dtype == dtype.np
    np.testing.assert_array_equal(stored, np.asarray(value))


def test_constant_value_is_a_frozen_copy(graph):
    source = np.array([1.0, 2.0], np.float32)
    c = ds.constant(source)
    source[0] = 99.0
    stored = c.op.attrs["value"]
    np.testing.assert_array_equal(stored, [1.0, 2.0])
    with pytest.raises(ValueError):
        stored[0] = 5.0


def test_constant_with_dtype_and_shape(graph):
    assert ds.constant([1, 2], dtype=ds.float32).dtype == ds.float32
    filled = ds.constant(7, shape=(2, 3))
    assert filled.shape == (2, 3)
    np.testing.assert_array_equal(filled.op.attrs["value"], np.full((2, 3), 7, np.int32))
    reshaped = ds.constant([1, 2, 3, 4, 5, 6], shape=[3, 2])
    assert reshaped.shape == (3, 2)
    with pytest.raises(ValueError, match=r"shape \[2, 3\] from a value with 3 elements"):
        ds.constant([1, 2, 3], shape=(2, 3))
    with pytest.raises(TypeError, match="Cannot convert 1.5 to a tensor of dtype int32"):
        ds.constant(1.5, dtype=ds.int32)


@pytest.mark.parametrize("value, match", [
    (np.array([1, 2], np.longdouble), "Unsupported dtype"),
    (np.array(["2020-01-01"], "datetime64[D]"), "numbers, bools and strings only"),
])
def test_constant_rejects_unsupported_values(graph, value, match):
    with pytest.raises(TypeError, match=match):
        ds.constant(value)


@pytest.mark.parametrize("np_dtype, dtype", [(">f4", ds.float32), (">i4", ds.int32),
                                             (">f8", ds.float64)])
def test_constant_accepts_big_endian_arrays(graph, np_dtype, dtype):
    c = ds.constant(np.array([1, 2], dtype=np_dtype))
    assert c.dtype == dtype
    np.testing.assert_array_equal(c.op.attrs["value"], [1, 2])


def test_placeholder(graph):
    x = ds.placeholder(ds.float32, (None, 3), name="x")
    assert (x.dtype, x.shape, x.name, x.op.type) == (ds.float32, (None, 3), "x:0", "Placeholder")
    assert x.op.attrs["shape"] == (None, 3)
    assert x.op.attrs["dtype"] == ds.float32
    unknown = ds.placeholder(ds.int64)
    assert unknown.shape.ndims is None
    assert ds.placeholder(np.float16, 4).shape == (4,)
    assert ds.placeholder("bool", ()).dtype == ds.bool
    with pytest.raises(TypeError, match="Unsupported dtype"):
        ds.placeholder(np.longdouble, (2,))


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
    assert first == [(42, 0), (42, 1), (42, 3)]     # TF 2's: the count of seeds given
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
    assert v.op.attrs["shape"] == (2, 3)
    assert v.op.attrs["dtype"] == ds.float32
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
    # named in the current name scope, not the variable's, as TF1's RefVariable.assign
    assert (assign.op.type, assign.op.name, assign.dtype, assign.shape) == (
        "Assign", "Assign", ds.float32, (2,))
    with ds.name_scope("sync"):
        assert v.assign([0.0, 0.0]).op.name == "sync/Assign"
    assert assign.op.inputs[0].name == "v:0"
    add = v.assign_add([1, 1])  # Python ints take the variable's dtype
    assert (add.op.type, add.op.name, add.dtype, add.shape) == (
        "AssignAdd", "AssignAdd", ds.float32, (2,))
    assert v.assign_sub([1.0, 1.0]).op.name == "AssignSub"
    # read_value=False: the Operation, as TF1's RefVariable (fetched, None)
    ops = [v.assign([0.0, 0.0], read_value=False), v.assign_add([1, 1], read_value=False),
           v.assign_sub([1, 1], read_value=False)]
    assert [(type(op), op.type) for op in ops] == [
        (ds.Operation, "Assign"), (ds.Operation, "AssignAdd"), (ds.Operation, "AssignSub")]
    with ds.Session() as sess:
        assert sess.run(v.initializer) is None and sess.run(ops[0]) is None
        np.testing.assert_array_equal(sess.run(v), [0.0, 0.0])
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


def test_consumers_are_the_ops_reading_a_tensor(graph):
    x = ph((2,))
    doubled, squared = x * 2.0, ds.square(x)
    twice = ds.add(x, x)                               # one consumer, read twice
    assert x.consumers() == [doubled.op, squared.op, twice.op]
    assert doubled.consumers() == [] and doubled.op.inputs[1].consumers() == [doubled.op]


def test_variable_is_symbolic_like_a_tensor(graph):
    v = ds.Variable([[1.0, 2.0], [3.0, 4.0]], name="v")
    before = len(graph.get_operations())
    with pytest.raises(TypeError, match="not iterable"):
        list(v)
    with pytest.raises(TypeError, match="bool"):
        bool(v)
    with pytest.raises(TypeError, match="len"):
        len(v)
    assert len(graph.get_operations()) == before       # no slices were built on the way


def test_variable_ignores_outer_control_dependencies(graph):
    a = ds.constant(1.0, name="a")
    with ds.control_dependencies([a]):
        ds.Variable(1.0, name="v")
    for name in ("v", "v/initial_value", "v/Assign", "v/read"):
        assert graph.get_operation_by_name(name).control_inputs == ()


def test_a_variable_under_control_dependencies_is_read_once_per_use(graph):
    v = ds.Variable(1.0, name="v")
    inc = ds.assign_add(v, 1.0)
    with ds.control_dependencies([inc]):
        uses = [v + 1.0, ds.maximum(v, 0.5), 2.0 * v]
    reads = [op for op in graph.get_operations() if op.type == "_ReadVariable"]
    assert len(reads) == len(uses)                       # no orphan reads on the way
    assert all(read.control_inputs == (inc.op,) for read in reads)
    assert [u.op.inputs[0].op for u in uses[:2]] + [uses[2].op.inputs[1].op] == reads


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
        v.assign_add(x), ds.logical_and(x > x, True),
        graph.create_op("AddV2", [x, x]),  # TF's spelling of Add, as imported TF graphs have
    ]
    assert len(built) == 41
    built += [ds.stop_gradient(x), v.assign_sub(x)]
    for opt in (ds.train.GradientDescentOptimizer(0.1), ds.train.MomentumOptimizer(0.1, 0.9),
                ds.train.AdamOptimizer(), ds.train.RMSPropOptimizer(0.1),
                ds.train.RMSPropOptimizer(0.1, centered=True), ds.train.AdagradOptimizer(0.1),
                ds.train.AdadeltaOptimizer(), ds.train.FtrlOptimizer(0.1),
                ds.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1),
                ds.train.ProximalGradientDescentOptimizer(0.1),
                ds.train.ProximalAdagradOptimizer(0.1),
                ds.train.AdagradDAOptimizer(0.1, ds.Variable(np.int64(0)))):
        built.append(opt.apply_gradients([(x, v)]))
    flag = ds.placeholder(ds.bool, ())
    built += [ds.cond(flag, lambda: x, lambda: -x),
              ds.cond(flag, lambda: v.assign_add(x), lambda: x),
              ds.while_loop(lambda i: i < 3, lambda i: i + 1, [ds.constant(0)]),
              ds.while_loop(lambda t: t < 3.0, lambda t: t + ds.reduce_sum(v.assign_add(x)),
                            [ds.constant(0.0)]),
              ds.Assert(flag, [x])]
    built += one_of_each_array_op(x)
    built += tf1_surface_ops(x)
    built += one_of_each_nn_op()
    public = {op for op in registered_ops() if not op.startswith("_")}  # "_" = internal
    assert {op.type for op in graph.get_operations() if not op.type.startswith("_")} == public


def test_reshape_takes_a_shape_tensor(graph):
    x = ds.placeholder(ds.float32, (2, 3))
    r = ds.reshape(x, ds.constant([3, 2]))
    assert (r.op.type, len(r.op.inputs), r.shape) == ("Reshape", 2, (3, 2))


def tf1_surface_ops(x):
    """One node of each op the TF1 surface (branch tf1) added, built from float ``x``."""
    i = ds.cast(x, ds.int32)
    b = x > 0.0
    return [
        ds.add(x, x), x + x, ds.floordiv(x, x), ds.floormod(i, i), ds.truncatediv(i, i),
        ds.truncatemod(i, i), ds.not_equal(x, x), ds.logical_and(b, b), ds.logical_or(b, b),
        ds.logical_not(b), ds.sign(x), ds.floor(x), ds.ceil(x), ds.round(x), ds.rsqrt(x),
        ds.reciprocal(x), ds.sin(x), ds.cos(x), ds.reduce_prod(x), ds.reduce_all(b),
        ds.reduce_any(b),
        ds.argmin(x), ds.nn.top_k(x, 1).values, ds.nn.in_top_k(x, ds.constant([0, 1]), 1),
        ds.range(3), ds.unique(ds.constant([1, 1]))[0], ds.where(b),
        ds.diag(ds.constant([1.0])), ds.matrix_determinant(x), ds.truncated_normal([2]),
        ds.random_uniform([2], maxval=3, dtype=ds.int32), ds.random_shuffle(x),
        ds.summary.scalar("s", ds.constant(1.0)), ds.summary.histogram("h", x),
        ds.summary.image("i", ds.reshape(x, (1, 2, 2, 1))), ds.summary.text("t", "words"),
        ds.summary.audio("a", ds.constant([[0.5]]), 8000),
        ds.summary.merge_all(),
        ds.cumsum(x, 1), ds.cumprod(x), ds.gather_nd(x, [[0, 1]]),
        ds.scatter_nd([[1]], [[1.0, 2.0]], [3, 2]), ds.tensor_scatter_nd_update(x, [[0]], x[:1]),
        ds.tensor_scatter_nd_add(x, [[0]], x[:1]), ds.tensor_scatter_nd_sub(x, [[0]], x[:1]),
        ds.tensor_scatter_nd_min(x, [[0]], x[:1]), ds.tensor_scatter_nd_max(x, [[0]], x[:1]),
        ds.sparse_matmul(x, x, transpose_b=True, a_is_sparse=True),
        *_dataset_ops(x), *_queue_ops(x), *_accumulator_ops(x), *_lookup_ops(x),
        ds.py_func(np.negative, [x], ds.float32),
        ds.py_func(np.negative, [x], [ds.float32], stateful=False),
        *_variable_scatters(x),
        *_image_ops(x),
        *ds.nn.log_uniform_candidate_sampler(ds.constant([[1]], ds.int64), 1, 2, True, 5),
        ds.nn.uniform_candidate_sampler(ds.constant([[1]], ds.int64), 1, 2, False, 5)[0],
        *candidate_sampler_ops(), ds.random.stateless_poisson([2], [1, 2], 1.0),
        ds.random.stateless_gamma([2], [1, 2], 1.0),
        ds.random.stateless_binomial([2], [1, 2], 5.0, 0.5),
        ds.random.stateless_parameterized_truncated_normal([2], [1, 2]),
        ds.random_index_shuffle(ds.constant(1), ds.constant([1, 2, 3]), 5),
        *one_of_each_stateful_random_op(),
        *tf1_math_ops(x),
        *tf1_math_names_ops(x),
        *special_function_ops(x),
        *segment_ops(x),
        *linalg_ops(x),
        _restore_v2(), ds.read_file("f"), ds.write_file("f", "x"), ds.matching_files("*"),
        *image_file_ops(x),
        *audio_and_compression_ops(x),
        ds.math.betainc(ds.abs(x) + 1.0, 2.0 + ds.abs(x), ds.sigmoid(x)),
        ds.is_variable_initialized(ds.Variable(1.0, name="probed")),
        *space_and_sampling_ops(x),
        *stateless_random_ops(x),
        *sparse_ops(x),
        *string_ops(x),
        *array_manipulation_ops(x),
        *framework_ops(x),
        *ctc_ops(x),
        *tf_gradient_ops(x),
        *sparse_apply_ops(x),
    ]


def sparse_apply_ops(x):
    """One node of each SparseApply<X> op (TF's optimizers' row updates: devsession builds
    them only when importing TF's graphs) and of ApplyAdagradV2, on variables of ``x``'s
    shape (2, 2)."""
    from devsession.ops.sparse_training import SPARSE_TRAINING_OPS, sparse_apply, sparse_inputs
    from devsession.ops.training import apply_adagrad_v2

    ops = []
    for op in sorted(SPARSE_TRAINING_OPS):
        names, num_refs, _ = sparse_inputs(op)
        refs = [ds.Variable(np.ones((2, 2), np.float32)) for _ in range(num_refs)]
        values = [x if n == "grad" else [0, 1] if n == "indices" else
                  1 if n == "global_step" else 0.1 for n in names[num_refs:]]
        ops.append(sparse_apply(op, *refs, *values))
    v, accum = ds.Variable(np.ones((2, 2), np.float32)), ds.Variable(np.ones((2, 2), np.float32))
    return ops + [apply_adagrad_v2(v, accum, 0.1, 1e-7, x)]


def tf_gradient_ops(x):
    """One node of each gradient op type TF's ``tf.gradients`` writes (ReluGrad...,
    BroadcastGradientArgs, ConcatOffset, FusedBatchNormGrad*: devsession builds them only
    when importing TF's graphs), from float ``x`` of shape (2, 2)."""
    from devsession.ops.backprops import ACTIVATION_GRADS, OUTPUT_GRADS
    from devsession.ops.nn_batch_norm_backprop import FUSED_BATCH_NORM_GRAD_OPS

    graph = x.graph
    ops = [graph.create_op(op, [x, x]) for op in (*ACTIVATION_GRADS, *OUTPUT_GRADS)]
    shape = ds.shape(x)
    ops += [graph.create_op("BroadcastGradientArgs", [shape, shape]),
            graph.create_op("ConcatOffset", [ds.constant(0), shape, shape]),
            graph.create_op("PreventGradient", [x], {"message": "m"})]
    image, channels = ds.reshape(x, [1, 2, 2, 1]), ds.ones([1])
    for op, inputs in FUSED_BATCH_NORM_GRAD_OPS.items():
        ops.append(graph.create_op(op, [image, image] + [channels] * (inputs - 2)))
    return ops


def ctc_ops(x):
    """One node of each CTC op (CTCLoss, CTCGreedyDecoder, CTCBeamSearchDecoder), the
    logits made from float ``x`` (2x2)."""
    logits = ds.reshape(x, (2, 1, 2))
    labels = ds.SparseTensor([[0, 0]], np.array([0], np.int32), [1, 1])
    return [ds.nn.ctc_loss(labels, logits, [2]), ds.nn.ctc_greedy_decoder(logits, [2])[1],
            ds.nn.ctc_beam_search_decoder(logits, [2], 2)[1]]


def framework_ops(x):
    """One node of each op the gradient and framework utilities added, and of the
    persistent-tensor ops, from float ``x``."""
    return [ds.custom_gradient(lambda t: (t * 2.0, lambda dy: dy))(x),
            ds.print("x:", x, output_stream="file:///dev/null"), ds.get_session_handle(x),
            ds.get_session_tensor("h", ds.float32)[1], ds.delete_session_tensor("h")[1],
            ds.guarantee_const(x), ds.timestamp()]


def array_manipulation_ops(x):
    """One node of each array-manipulation op (Roll, searchsorted's bounds, the set and
    index ops, EnsureShape, ShapeN, BroadcastArgs, the diagonals, Cross), from float
    (2, 2) ``x``."""
    from devsession.ops.array_order import lower_bound, upper_bound
    from devsession.ops.bucketize import bucketize

    i = ds.constant([1, 0])
    v3 = ds.concat([x[0], x[1, :1]], 0)
    return [ds.roll(x, 1, 0), lower_bound(x, x), upper_bound(x, x),
            *ds.unique_with_counts(i), *ds.setdiff1d(i, [0]), ds.invert_permutation(i),
            ds.unravel_index(i, [2, 1]), ds.ensure_shape(x, [2, None]),
            *ds.shape_n([x, i]), ds.broadcast_dynamic_shape(ds.shape(x), [1]),
            ds.diag_part(x), ds.matrix_set_diag(x, x[0]),
            x.graph.create_op("MatrixSetDiag", [x, x[0]]).outputs[0], ds.cross(v3, v3),
            *_band_diagonal_ops(x), *_set_ops(), *_fake_quant_ops(x), ds.bitcast(x, ds.int32),
            *_complex_and_fft_ops(x), bucketize(x, [0.5])]


def _complex_and_fft_ops(x):
    """One node of each complex-number and FFT op (tests/test_signal.py), from (2, 2) ``x``."""
    z = ds.complex(x, x)
    return [z, ds.real(z), ds.imag(z), ds.abs(z), ds.conj(z), ds.angle(z),
            *(getattr(ds.signal, name)(z) for name in ("fft", "ifft", "fft2d", "ifft2d")),
            ds.signal.fft3d(ds.reshape(z, [1, 2, 2])), ds.signal.ifft3d(ds.reshape(z, [1, 2, 2])),
            ds.signal.rfft(x), ds.signal.irfft(z), ds.signal.rfft2d(x), ds.signal.irfft2d(z),
            ds.signal.rfft3d(ds.reshape(x, [1, 2, 2])),
            ds.signal.irfft3d(ds.reshape(z, [1, 2, 2]))]


def _fake_quant_ops(x):
    """One node of each fake quantization op (tests/test_fake_quant.py) and of quantize /
    dequantize, from (2, 2) ``x``."""
    q, lo, hi = ds.quantization, ds.constant([-1.0, -0.5]), ds.constant([1.0, 2.0])
    return [q.fake_quant_with_min_max_args(x), q.fake_quant_with_min_max_args_gradient(x, x),
            q.fake_quant_with_min_max_vars(x, -1.0, 1.0),
            *q.fake_quant_with_min_max_vars_gradient(x, x, -1.0, 1.0),
            q.fake_quant_with_min_max_vars_per_channel(x, lo, hi),
            *q.fake_quant_with_min_max_vars_per_channel_gradient(x, x, lo, hi),
            q.quantize_and_dequantize(x, -1.0, 1.0),
            *ds.gradients(q.quantize_and_dequantize_v2(x, -1.0, 1.0, range_given=True), x),
            ds.get_default_graph().create_op(
                "QuantizeAndDequantizeV3", [x, lo[0], hi[0], ds.constant(4)], {}).outputs[0],
            q.dequantize(*q.quantize(x, -1.0, 1.0, ds.qint8))]     # (tests/test_quantize.py)


def _set_ops():
    """One node of each tf.sets op (tests/test_sets.py)."""
    dense = ds.constant([[1, 2]])
    sparse = ds.SparseTensor([[0, 0]], ds.constant([1]), [1, 2])
    return [ds.sets.union(dense, dense).values, ds.sets.union(dense, sparse).values,
            ds.sets.union(sparse, sparse).values, ds.sets.size(sparse)]


def _band_diagonal_ops(x):
    """One node of each diagonal op of tests/test_matrix_diag.py, from float (2, 2) ``x``."""
    k, pad, size = ds.constant(0), ds.constant(0.0), ds.constant(-1)
    make = x.graph.create_op
    return [ds.matrix_diag(x[0]), ds.matrix_diag_part(x),
            make("MatrixDiag", [x[0]]).outputs[0], make("MatrixDiagPart", [x]).outputs[0],
            make("MatrixDiagV2", [x[0], k, size, size, pad]).outputs[0],
            make("MatrixDiagPartV2", [x, k, pad]).outputs[0],
            make("MatrixSetDiagV2", [x, x[0], k]).outputs[0]]


def image_file_ops(x):
    """One node of each image file op, the images made from float ``x`` (2x2)."""
    pixels = ds.cast(ds.reshape(x, [2, 2, 1]), ds.uint8)
    png, jpeg = ds.image.encode_png(pixels), ds.image.encode_jpeg(pixels)
    return [png, jpeg, ds.image.decode_png(png), ds.image.decode_jpeg(jpeg),
            ds.image.decode_and_crop_jpeg(jpeg, [0, 0, 1, 1]), ds.image.decode_bmp(png),
            ds.image.decode_gif(png), ds.image.decode_image(png),
            ds.image.extract_jpeg_shape(jpeg), ds.image.adjust_jpeg_quality(pixels, 50)]


def audio_and_compression_ops(x):
    """One node of each WAV op and of DecodeCompressed, from float ``x`` (2x2)."""
    wav = ds.audio.encode_wav(x, 8000)
    return [wav, *ds.audio.decode_wav(wav, desired_channels=1),
            ds.io.decode_compressed(wav, "ZLIB")]


def string_ops(x):
    """One node of each string op, from float ``x`` (2x2) and strings."""
    text = ds.as_string(x)
    line = ds.placeholder(ds.string, [None])
    return [*ds.decode_csv(line, [[0.0], [""]]), ds.strings.to_number(text),
            ds.strings.join([text, "!"]), ds.strings.length(text), ds.substr(text, 0, 1),
            ds.strings.strip(text), ds.strings.lower(text), ds.strings.upper(text),
            ds.strings.regex_replace(text, "0", "o"),
            ds.strings.regex_replace(text, ds.constant("0"), ds.constant("o")),
            ds.strings.regex_full_match(text, "1.*"),
            ds.strings.regex_full_match(text, ds.constant("1.*")),
            ds.strings.to_hash_bucket_fast(text, 5),
            ds.strings.to_hash_bucket_strong(text, 5, [1, 2]), ds.reduce_join(text),
            ds.io.decode_base64(ds.io.encode_base64(text)),
            ds.string_split(line).values, ds.strings.split(line).values,
            ds.strings.ngrams(text, 1), ds.strings.unsorted_segment_join(text, [0, 0], 1),
            ds.string_to_hash_bucket(text, 3), ds.fingerprint(text)]


def sparse_ops(x):
    """One node of each sparse op, over a SparseTensor of float ``x`` (2x2)."""
    sp = ds.sparse.from_dense(x)
    total = ds.sparse.add(sp, sp)
    return [ds.sparse.to_dense(sp), ds.sparse.sparse_dense_matmul(sp, x),
            ds.sparse.reduce_sum(sp, 1), ds.sparse.reorder(sp).values,
            ds.sparse.reshape(sp, [4]).indices, ds.sparse.add(sp, x),
            *ds.gradients(total.values, [sp.values]),         # SparseAdd, SparseAddGrad
            *sparse_slicing_ops(sp)]


def sparse_slicing_ops(sp):
    """One node of each op of ops/sparse_slicing.py and ops/sparse_math.py."""
    sliced = ds.sparse.slice(sp, [0, 0], [1, 2])
    filled, empty = ds.sparse.fill_empty_rows(sp, 0.0)
    softmax = ds.sparse.softmax(sp)
    return [ds.sparse.concat(0, [sp, sp]).values,
            ds.sparse.split(sp_input=sp, num_split=2, axis=1)[0].values, empty,
            ds.sparse.reduce_max(sp, 0), ds.sparse.reduce_max_sparse(sp, 0).values,
            ds.sparse.reduce_sum_sparse(sp, 0).values, ds.sparse.maximum(sp, sp).values,
            ds.sparse.minimum(sp, sp).values, (sp * [1.0, 2.0]).values, (sp / [1.0, 2.0]).values,
            ds.get_default_graph().create_op("SparseDenseCwiseAdd", [
                sp.indices, sp.values, sp.dense_shape, ds.ones([2])]).outputs[0],
            *ds.gradients(sliced.values, [sp.values]),          # SparseSliceGrad
            *ds.gradients(filled.values, [sp.values]),          # SparseFillEmptyRowsGrad
            *ds.gradients(softmax.values, [sp.values]),
            *sparse_cross_ops(sp)]


def sparse_cross_ops(sp):
    """One node of each op of ops/sparse_cross.py, crossing ``sp``'s entries as ids, and
    an EditDistance of them."""
    ids = ds.SparseTensor(sp.indices, ds.cast(sp.values, ds.int64), sp.dense_shape)
    words = ds.constant([["a"], ["b"]])
    hashed = ds.get_default_graph().create_op(
        "SparseCrossHashed", [ids.indices, ids.values, ids.dense_shape, words,
                              ds.constant(5, ds.int64), ds.constant(False),
                              ds.constant([1, 2], ds.int64)],
        {"N": 1, "sparse_types": (ds.int64,), "dense_types": (ds.string,)})
    return [ds.sparse.cross([ids, words]).values, ds.sparse.cross_hashed([ids, words]).values,
            hashed.outputs[1], ds.edit_distance(ids, ids), *sparse_serialization_ops(sp),
            *ragged_ops()]


def ragged_ops():
    """One node of each op of ops/ragged.py and ops/unicode.py."""
    rt = ds.ragged.range([2, 0, 1])                     # RaggedRange
    words = ds.constant(["h\u00e9", ""])
    points, offsets = ds.strings.unicode_decode_with_offsets(words, "UTF-8")
    return [rt.to_tensor(), rt.to_sparse().values,      # RaggedTensorToTensor, ToSparse
            ds.strings.unicode_decode(words, "UTF-8").flat_values, offsets.flat_values,
            ds.strings.unicode_encode(points, "UTF-16-BE"),
            ds.strings.unicode_transcode(words, "UTF-8", "UTF-32-BE"),
            ds.strings.unicode_script(points.flat_values)]


def sparse_serialization_ops(sp):
    """One node of each op of ops/sparse_serialization.py, over ``sp``."""
    one = ds.io.serialize_sparse(sp)
    raw = ds.get_default_graph().create_op("DeserializeSparse", [one], {"dtype": sp.dtype})
    many = ds.io.serialize_many_sparse(sp)
    ids = ds.SparseTensor(sp.indices, ds.cast(sp.values, ds.int64), sp.dense_shape)
    return [raw.outputs[1], ds.io.deserialize_many_sparse(many, sp.dtype).values,
            ds.sparse.bincount(ids, axis=-1).values, ds.sparse.bincount([1, 2]).values,
            *_dense_bincounts(ids)]


def _dense_bincounts(ids):
    """TF's DenseBincount and SparseBincount (what TF 2.x's tf.math.bincount builds)."""
    graph, size = ds.get_default_graph(), ds.constant(3, ds.int64)
    empty = ds.constant(np.zeros(0, np.float32))
    dense = graph.create_op("DenseBincount", [ids.values, size, empty],
                            {"binary_output": False})
    sparse = graph.create_op("SparseBincount", [ids.indices, ids.values, ids.dense_shape,
                                                 size, empty], {"binary_output": True})
    return [dense.outputs[0], sparse.outputs[0]]


def candidate_sampler_ops():
    """One node of each candidate sampler test_candidate_samplers_more.py checks."""
    true = ds.constant([[1]], ds.int64)
    return [ds.nn.learned_unigram_candidate_sampler(true, 1, 2, False, 5)[0],
            ds.nn.fixed_unigram_candidate_sampler(true, 1, 2, False, 2, unigrams=[1.0, 2.0])[0],
            ds.nn.all_candidate_sampler(true, 1, 2, True)[0],
            ds.nn.compute_accidental_hits(true, ds.constant([1], ds.int64), 1)[0]]


def space_and_sampling_ops(x):
    """One node of each space/depth op and of Multinomial, RandomGamma and RandomPoissonV2,
    from float ``x`` (2x2); the 4-D SpaceToBatch/BatchToSpace only older TF GraphDefs hold
    (TF 1.15's builders make the ND ops)."""
    image = ds.reshape(x, (1, 2, 2, 1))
    graph = image.graph
    return [ds.space_to_depth(image, 2), ds.depth_to_space(ds.reshape(x, (1, 1, 1, 4)), 2),
            ds.space_to_batch_nd(image, [2, 1], [[0, 0], [0, 0]]),
            ds.batch_to_space_nd(image, [1, 1], [[0, 0], [0, 0]]),
            graph.create_op("SpaceToBatch", [image, ds.constant([[0, 0], [0, 0]])],
                            {"block_size": 2}).outputs[0],
            graph.create_op("BatchToSpace", [ds.tile(image, [4, 1, 1, 1]),
                                             ds.constant([[0, 0], [0, 0]])],
                            {"block_size": 2}).outputs[0],
            ds.extract_image_patches(image, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
            ds.random.categorical(x, 3), ds.random.gamma([2], x), ds.random.poisson([2], x),
            *fractional_pool_ops(image),
            ds.extract_volume_patches(ds.reshape(x, (1, 1, 2, 2, 1)), [1, 1, 2, 1, 1],
                                      [1, 1, 1, 1, 1], "VALID")]


def fractional_pool_ops(image):
    """FractionalMaxPool and FractionalAvgPool of ``image`` (1x2x2x1) and their gradient
    ops."""
    pooled = [pool(image, [1, 1.5, 1.5, 1])[0]
              for pool in (ds.nn.fractional_max_pool, ds.nn.fractional_avg_pool)]
    return pooled + ds.gradients(pooled[0], image) + ds.gradients(pooled[1], image)


def stateless_random_ops(x):
    """One node of each of TF's stateless random ops (the V2 ops through ds.random's
    builders, TF1's V1 ops, GetKeyCounterAlg and GetAlg as a GraphDef holds them), the
    logits of StatelessMultinomial from float ``x`` (2x2)."""
    graph, seed, shape = x.graph, ds.constant([1, 2]), ds.constant([2])
    bounds = [ds.constant(0), ds.constant(5)]
    v1 = [graph.create_op(op, [shape, seed, *extra], attrs).outputs[0] for op, extra, attrs in (
        ("StatelessRandomUniform", [], {}), ("StatelessRandomNormal", [], {}),
        ("StatelessTruncatedNormal", [], {}), ("StatelessRandomUniformFullInt", [], {}),
        ("StatelessRandomUniformInt", bounds, {"dtype": ds.int32}))]
    return [ds.random.stateless_uniform([2], seed), ds.random.stateless_normal([2], seed),
            ds.random.stateless_truncated_normal([2], seed),
            ds.random.stateless_uniform([2], seed, minval=0, maxval=5, dtype=ds.int32),
            ds.random.stateless_uniform([2], seed, minval=None, maxval=None, dtype=ds.int64),
            ds.random.stateless_categorical(x, 2, seed), *v1,
            *graph.create_op("StatelessRandomGetKeyCounterAlg", [seed]).outputs,
            graph.create_op("StatelessRandomGetAlg", []).outputs[0],
            ds.random.experimental.stateless_shuffle(x, seed)]


def _restore_v2():
    """The op behind ``ds.train.init_from_checkpoint`` (which needs a checkpoint to build)."""
    from devsession.ops.checkpoint_io import restore_v2

    return restore_v2("/tmp/model", ["w"], [""], [ds.float32])[0]


def linalg_ops(x):
    """One node of each dense linear-algebra op (inverses, solves, decompositions), built
    from a float 2 x 2 ``x``."""
    return [ds.matrix_inverse(x), ds.matrix_solve(x, x), ds.matrix_triangular_solve(x, x),
            ds.matrix_solve_ls(x, x, fast=False), ds.cholesky(x), *ds.qr(x), *ds.svd(x),
            *ds.self_adjoint_eig(x), *ds.linalg.slogdet(x), *ds.linalg.lu(x),
            ds.linalg.sqrtm(x), ds.linalg.logm(ds.cast(x, ds.complex64)),
            ds.linalg.tridiagonal_solve(x, x, diagonals_format="matrix"),
            ds.linalg.tridiagonal_matmul(x, x, diagonals_format="matrix")]


def special_function_ops(x):
    """One node of each special function op, built from float ``x``."""
    return [ds.lgamma(x), ds.digamma(x), ds.polygamma(x, x), ds.zeta(x, x), ds.igamma(x, x),
            ds.igammac(x, x), ds.ops.special.igamma_grad_a(x, x), ds.math.bessel_i0e(x),
            ds.math.bessel_i1e(x), ds.math.bessel_i0(x), ds.math.bessel_i1(x),
            ds.math.erfinv(x), ds.math.ndtri(x), ds.math.nextafter(x, x),
            *[getattr(ds.math.special, name)(x) for name in ds.math.special.__all__]]


def segment_ops(x):
    """One node of each segment, partition and counting op, built from float (2, 2) ``x``."""
    ids, i = ds.constant([0, 1]), ds.constant([1, 0])
    reductions = [build(x, ids) for build in (ds.segment_sum, ds.segment_mean, ds.segment_max,
                                              ds.segment_min, ds.segment_prod)]
    reductions += [build(x, ids, 2) for build in (ds.unsorted_segment_max,
                                                  ds.unsorted_segment_min,
                                                  ds.unsorted_segment_prod)]
    for build in (ds.sparse_segment_sum, ds.sparse_segment_mean, ds.sparse_segment_sqrt_n):
        reductions += [build(x, i, ids), build(x, i, ids, num_segments=3)]
    reductions += [ds.ops.segments.sparse_segment_grad(f"SparseSegment{kind}Grad", x, i, ids, 2)
                   for kind in ("Sum", "Mean", "SqrtN")]
    return reductions + [*ds.dynamic_partition(x, ids, 2), ds.dynamic_stitch([i], [x]),
                         ds.ops.partition.parallel_dynamic_stitch([i], [x]),
                         ds.bincount(ids), ds.histogram_fixed_width(x, [0.0, 1.0], 2)]


def tf1_math_ops(x):
    """One node of each op the TF1 math branch added, built from float ``x``."""
    return [ds.log1p(x), ds.expm1(x), ds.erf(x), ds.erfc(x), ds.tan(x), ds.asin(x),
            ds.acos(x), ds.atan(x), ds.sinh(x), ds.cosh(x), ds.is_nan(x), ds.is_inf(x),
            ds.is_finite(x), ds.atan2(x, x), ds.math.xlogy(x, x), ds.div_no_nan(x, x),
            ds.check_numerics(x, "x"), ds.broadcast_to(x, [3, 2, 2]), ds.Print(x, [x])]


def tf1_math_names_ops(x):
    """One node of each op the TF1 math names branch added, built from float ``x``."""
    i = ds.cast(x, ds.int32)
    return [ds.acosh(x), ds.asinh(x), ds.atanh(x), ds.rint(x), ds.math.xdivy(x, x),
            ds.math.xlog1py(x, x), ds.math.multiply_no_nan(x, x),
            ds.bitwise.bitwise_and(i, i), ds.bitwise.bitwise_or(i, i),
            ds.bitwise.bitwise_xor(i, i), ds.bitwise.invert(i), ds.bitwise.left_shift(i, i),
            ds.bitwise.right_shift(i, i), ds.math.reduce_euclidean_norm(x, 1),
            ds.math.cumulative_logsumexp(x, 1, exclusive=True)]


def _variable_scatters(x) -> list:
    w = ds.Variable(np.zeros((2, 2), np.float32), name="scattered")
    rows = [build(w, [0], x[:1]) for build in (ds.scatter_update, ds.scatter_add,
                                                 ds.scatter_sub, ds.scatter_mul,
                                                 ds.scatter_div, ds.scatter_min,
                                                 ds.scatter_max)]
    points = [build(w, [[0, 1]], [1.0]) for build in (ds.scatter_nd_update, ds.scatter_nd_add,
                                                       ds.scatter_nd_sub)]
    return rows + points + [w[1, ::-1].assign(x[0, :2])]       # StridedSliceAssign


def _image_ops(x) -> list:
    """The resize and crop ops of ds.image and their gradient ops, from a 1x2x2x1 image,
    the non-max suppression, box-drawing, glimpse and crop-sampling ops."""
    from devsession.ops.image import resize_bilinear_grad, resize_nearest_neighbor_grad
    from devsession.ops.image_resample import resize_bicubic_grad

    image = ds.reshape(x, (1, 2, 2, 1))
    bigger = ds.image.resize_bilinear(image, [3, 3])
    boxes = ds.reshape(ds.concat([x[0], x[0]], 0), (1, 4))
    crops = ds.image.crop_and_resize(image, boxes, [0], [2, 2])
    scores = x[0, :1]
    cubic = ds.image.resize_bicubic(image, [3, 3])
    return [bigger, ds.image.resize_nearest_neighbor(image, [3, 3]),
            cubic, resize_bicubic_grad(cubic, image), ds.image.resize_area(image, [1, 1]),
            ds.image.draw_bounding_boxes(image, ds.reshape(boxes, (1, 1, 4))),
            ds.image.draw_bounding_boxes(image, ds.reshape(boxes, (1, 1, 4)), colors=[[1.0]]),
            ds.image.extract_glimpse(image, [1, 1], [[0.0, 0.0]]),
            ds.image.extract_glimpse(image, [1, 1], [[0.0, 0.0]], noise="zero"),
            *ds.image.sample_distorted_bounding_box([2, 2, 1], ds.reshape(boxes, (1, 1, 4)),
                                                    seed=1),
            *x.graph.create_op("SampleDistortedBoundingBox",
                               [ds.constant([2, 2, 1]), ds.reshape(boxes, (1, 1, 4))],
                               {"seed": 1}).outputs,
            resize_bilinear_grad(bigger, image), resize_nearest_neighbor_grad(bigger, [2, 2]),
            crops, *ds.gradients(crops, [image, boxes]),     # CropAndResizeGradImage/Boxes
            ds.image.non_max_suppression(boxes, scores, 1),
            ds.image.non_max_suppression_padded(boxes, scores, 1)[0],
            ds.image.non_max_suppression_with_scores(boxes, scores, 1)[0],
            ds.image.non_max_suppression_overlaps(x, x[0], 1),
            ds.image.combined_non_max_suppression(ds.reshape(boxes, (1, 1, 1, 4)),
                                                  ds.reshape(scores, (1, 1, 1)), 1, 1)[0]]


def _queue_ops(x) -> list:
    """One of each queue kind and each op on a queue (TF1's queue-based input)."""
    fifo = ds.FIFOQueue(4, [ds.float32], shapes=[x.shape])
    shuffled = ds.RandomShuffleQueue(4, 1, ds.float32)
    padded = ds.PaddingFIFOQueue(4, ds.float32, shapes=[[None]])
    prioritized = ds.PriorityQueue(4, ds.float32)
    return [fifo.enqueue(x), fifo.enqueue_many(ds.expand_dims(x, 0)), fifo.dequeue(),
            fifo.dequeue_many(2), fifo.dequeue_up_to(2), fifo.close(), fifo.size(),
            fifo.is_closed(), shuffled.dequeue(), padded.dequeue(), prioritized.dequeue(),
            ds.Variable(0, name="epochs").count_up_to(3), *_reader_ops(fifo)]


def _accumulator_ops(x) -> list:
    """Each conditional accumulator and each op on one (SyncReplicasOptimizer's)."""
    dense = ds.ConditionalAccumulator(ds.float32, shape=x.shape)
    sparse = ds.SparseConditionalAccumulator(ds.float32, shape=x.shape)
    return [dense.apply_grad(x, local_step=ds.constant(0, ds.int64)), dense.take_grad(2),
            dense.num_accumulated(), dense.set_global_step(ds.constant(1, ds.int64)),
            sparse.apply_grad(ds.constant([0], ds.int64), x[:1]), *sparse.take_grad(1)]


def _lookup_ops(x) -> list:
    """Each lookup table and each op on one (tf.lookup's)."""
    static = ds.lookup.StaticHashTable(ds.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
    from_file = ds.lookup.StaticHashTable(ds.lookup.TextFileInitializer(
        "vocab.txt", ds.string, ds.lookup.TextFileIndex.WHOLE_LINE, ds.int64,
        ds.lookup.TextFileIndex.LINE_NUMBER), -1)
    mutable = ds.lookup.experimental.MutableHashTable(ds.string, ds.float32, 0.0)
    initialize = ds.get_default_graph().create_op(
        "InitializeTableV2", [static.resource_handle, ds.constant(["a"]), ds.constant([1])])
    return [static.lookup(ds.constant(["a"])), static.size(), from_file.initializer,
            initialize, mutable.insert(["a"], x[0, :1]), mutable.remove(["a"]),
            *mutable.export(),
            ds.lookup.experimental.DenseHashTable(ds.int64, ds.float32, 0.0, -1, -2).size()]


def _reader_ops(queue) -> list:
    """One of each reader and each op on a reader."""
    readers = [ds.TFRecordReader(), ds.FixedLengthRecordReader(4), ds.TextLineReader(),
               ds.WholeFileReader(), ds.IdentityReader()]
    return [*(r.read(queue)[0] for r in readers), readers[0].read_up_to(queue, 2)[0],
            readers[0].num_records_produced(), readers[0].num_work_units_completed(),
            readers[0].reset()]


def _dataset_ops(x) -> list:
    """An initializable iterator's initializer, get_next (a map function inside) and
    string handle, a feedable iterator's get_next, an optional's value, a TFRecordWriter's
    write, a dataset's reduce, and the Example parsers and DecodeRaw."""
    iterator = ds.data.Dataset.from_tensor_slices(x).map(lambda row: row * 2.0) \
        .make_initializable_iterator()
    spec = {"x": ds.io.FixedLenFeature([], ds.float32)}
    feedable = ds.data.Iterator.from_string_handle(ds.placeholder(ds.string, []),
                                                  iterator.output_types)
    return [iterator.initializer, iterator.get_next(), iterator.string_handle(),
            feedable.get_next(), iterator.get_next_as_optional().get_value(),
            ds.data.experimental.TFRecordWriter("out.tfrecord").write(
                ds.data.Dataset.from_tensors("record")),
            ds.data.Dataset.range(3).reduce(np.int64(0), lambda total, k: total + k),
            ds.parse_single_example(ds.placeholder(ds.string, []), spec)["x"],
            ds.parse_example(ds.placeholder(ds.string, [None]), spec)["x"],
            ds.io.decode_raw(ds.placeholder(ds.string, [None]), ds.int16),
            *_sequence_parse_ops(spec)]


def _sequence_parse_ops(spec) -> list:
    """parse_single_sequence_example (ParseSequenceExampleV2), TF 1.x's raw
    ParseSingleSequenceExample, SerializeTensor, ParseTensor and DecodeJSONExample."""
    one = ds.placeholder(ds.string, [])
    context, _ = ds.io.parse_single_sequence_example(one, spec, {
        "y": ds.io.FixedLenSequenceFeature([], ds.int64)})
    raw = ds.get_default_graph().create_op(
        "ParseSingleSequenceExample",
        [one, ds.constant([""]), ds.constant("x"), ds.constant(np.zeros([0], np.float32)),
         ds.constant("")],
        {"Ncontext_dense": 1, "Tcontext_dense": (ds.float32,),
         "context_dense_shapes": (ds.TensorShape([]),)})
    return [context["x"], raw.outputs[0],
            ds.io.parse_tensor(ds.io.serialize_tensor(context["x"]), ds.float32),
            ds.io.decode_json_example(one)]
