"""Graph <-> GraphDef: a round trip of a graph using every op in API.md, import options,
files, and every way a GraphDef can be malformed.  No session runs here."""

from __future__ import annotations

import re

import numpy as np
import pytest

import devsession as ds
from devsession.graph_codec import FORMAT_VERSION
from devsession.ops.registry import registered_ops
from devsession.tensor_codec import array_to_proto, proto_to_array
from array_cases import one_of_each_array_op
from nn_cases import one_of_each_nn_op

CONST_VALUES = {
    "c_f16": np.array([[0.5, -1.0, np.inf], [np.nan, 65504.0, -0.0]], np.float16),
    "c_f32": np.arange(6, dtype=np.float32).reshape(2, 3) / 3,
    "c_f64": np.array([[np.pi, -1e300, 5e-324]], np.float64),
    "c_i32": np.array([[2**31 - 1, -2**31, 0]], np.int32),
    "c_i64": np.array([2**62, -2**63, 7], np.int64),
    "c_bool": np.array([[True, False, True]]),
    "c_scalar": np.array(2.5, np.float32),
    "c_empty": np.zeros((0, 3), np.float32),
    "c_i8": np.array([-128, 127], np.int8), "c_u8": np.array([0, 255], np.uint8),
    "c_i16": np.array([-32768], np.int16), "c_u16": np.array([65535], np.uint16),
    "c_str": np.array([b"a", b"", "\u00fc".encode()], dtype=object),
}


def build_every_op_graph() -> ds.Graph:
    """A graph with every op of API.md, devices, control inputs and a name scope."""
    g = ds.Graph()
    g.seed = 11
    with g.as_default():
        consts = {name: ds.constant(value, name=name) for name, value in CONST_VALUES.items()}
        with ds.device("/job:worker/task:1"):
            x = ds.placeholder(ds.float32, (None, 3), name="x")
            anything = ds.placeholder(ds.float64, None, name="anything")
            with ds.device("gpu:0"):
                y = ds.identity(x, name="y")
        f = consts["c_f32"]
        with ds.name_scope("math"):
            unary = [ds.negative(x), ds.abs(x), ds.exp(x), ds.log(x), ds.sqrt(x),
                     ds.square(x), ds.tanh(x), ds.sigmoid(x), ds.relu(x)]
            binary = [ds.add(x, f), ds.subtract(x, 1.0), ds.multiply(2.0, x), ds.divide(x, f),
                      ds.pow(x, 2.0), ds.maximum(x, 0.0), ds.minimum(x, f)]
            compare = [ds.equal(x, f), ds.less(x, f), ds.greater(x, f),
                       ds.less_equal(x, 0.0), ds.greater_equal(x, 0.0)]
            both = ds.logical_and(compare[1], compare[2])
            add_v2 = g.create_op("AddV2", [x, f]).outputs[0]  # TF's Add
        picked = ds.where(compare[1], x, f, name="picked")
        cast = ds.cast(consts["c_i32"], ds.float64, name="cast")
        mm = ds.matmul(x, f, transpose_b=True, name="mm")
        mm_t = ds.matmul(f, x, transpose_a=True, name="mm_t")
        reductions = [ds.reduce_sum(x, name="sum_all"),
                      ds.reduce_mean(x, axis=1, keepdims=True, name="mean_1"),
                      ds.reduce_max(x, axis=[0, -1], name="max_01"),
                      ds.reduce_min(anything, axis=0, name="min_0")]
        am = ds.argmax(x, axis=-1, name="am")
        rs = ds.reshape(x, (-1, 3, 1), name="rs")
        tr = ds.transpose(rs, name="tr")
        cc = ds.concat([x, f], -2, name="cc")
        with ds.name_scope("array"):
            array_ops = one_of_each_array_op(ds.placeholder(ds.float32, (2, 2), name="m"))
        with ds.name_scope("nn"):
            array_ops += one_of_each_nn_op()
            array_ops += [*ds.nn.top_k(x, 2, name="top"),
                          ds.nn.in_top_k(x, ds.constant([0, 2], ds.int64), 1, name="hits")]
        sm = ds.softmax(x, name="sm")
        ru = ds.random_uniform((2, 3), minval=-1.0, maxval=2.0, name="ru")
        rn = ds.random_normal((4,), mean=1.0, stddev=0.5, seed=5, dtype=ds.float64, name="rn")
        with ds.control_dependencies([ru, rn.op]):
            after = ds.identity(y, name="after")
            nothing = ds.no_op(name="nothing")
        v = ds.Variable(np.ones((2, 3), np.float32), name="v")
        assign = v.assign(f, name="assign")
        assign_add = v.assign_add(f, name="assign_add")
        training = [ds.stop_gradient(x, name="stopped"), v.assign_sub(f, name="assign_sub")]
        for opt in (ds.train.GradientDescentOptimizer(0.1), ds.train.AdamOptimizer(),
                    ds.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                    ds.train.RMSPropOptimizer(0.1), ds.train.AdagradOptimizer(0.1),
                    ds.train.RMSPropOptimizer(0.1, centered=True), ds.train.AdadeltaOptimizer(),
                    ds.train.FtrlOptimizer(0.1),
                    ds.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1),
                    ds.train.ProximalGradientDescentOptimizer(0.1),
                    ds.train.ProximalAdagradOptimizer(0.1),
                    ds.train.AdagradDAOptimizer(0.1, ds.Variable(np.int64(0), name="step"))):
            training.append(opt.apply_gradients([(f, v)]))
        grp = ds.group(after, nothing, assign, assign_add, name="grp")
        flag = ds.placeholder(ds.bool, (), name="flag")
        training += [  # control flow: If/While hold their functions in attrs
            ds.cond(flag, lambda: x * 2.0, lambda: x, name="choose"),
            ds.cond(flag, lambda: v.assign_add(f), lambda: ds.identity(v), name="bump"),
            ds.while_loop(lambda i: i < 3, lambda i: i + 1, [ds.constant(0)], name="count"),
            ds.while_loop(lambda t: t < 3.0, lambda t: t + ds.reduce_sum(v.assign_add(f)),
                          [ds.constant(0.0)], name="accumulate"),
            ds.Assert(flag, [x], name="check")]
        ds.global_variables_initializer()
        from test_graph import tf1_surface_ops

        tf1 = tf1_surface_ops(ds.placeholder(ds.float32, (2, 2), name="tf1_x"))
        unknown = ds.placeholder(ds.float32, None, name="unknown_rank")
        tf1 += [ds.reduce_sum(unknown, name="sum_unknown"), ds.argmax(unknown, -1, name="am_neg"),
                ds.reduce_mean(unknown, axis=[-1, 0], keep_dims=True, name="mean_neg")]
        del (tf1, unary, binary, picked, cast, mm, mm_t, reductions, am, tr, cc, sm, grp, both,
             add_v2, array_ops)
        del training
    return g


@pytest.fixture
def every_op_graph():
    return build_every_op_graph()


def _attrs_equal(a, b) -> bool:
    if not isinstance(a, np.ndarray):
        return type(a) is type(b) and a == b
    if not isinstance(b, np.ndarray) or (a.dtype, a.shape) != (b.dtype, b.shape):
        return False
    if a.dtype.kind == "f":  # NaNs equal, and -0.0 stays -0.0
        return np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a),
                                                                       np.signbit(b))
    return np.array_equal(a, b)


def assert_same_graph(original: ds.Graph, imported: ds.Graph, prefix: str = "") -> None:
    want = {op.name: op for op in original.get_operations()}
    got = {op.name: op for op in imported.get_operations()}
    assert set(got) == {prefix + name for name in want}
    for name, op in want.items():
        other = got[prefix + name]
        assert other.type == op.type, name
        assert other.device == op.device, name
        assert [t.name for t in other.inputs] == [prefix + t.name for t in op.inputs], name
        assert [c.name for c in other.control_inputs] == [
            prefix + c.name for c in op.control_inputs], name
        assert set(other.attrs) == set(op.attrs), name
        for key, value in op.attrs.items():
            assert _attrs_equal(value, other.attrs[key]), (name, key, value)
        assert len(other.outputs) == len(op.outputs), name
        for mine, theirs in zip(op.outputs, other.outputs):
            assert (theirs.dtype, theirs.shape) == (mine.dtype, mine.shape), name


# --- round trip ------------------------------------------------------------------------------

def test_graph_uses_every_registered_op(every_op_graph):
    types = {op.type for op in every_op_graph.get_operations() if not op.type.startswith("_")}
    assert types == {op for op in registered_ops() if not op.startswith("_")}  # "_" = internal


def test_as_graph_def_nodes(every_op_graph):
    gd = every_op_graph.as_graph_def()
    assert isinstance(gd, ds.GraphDef)
    assert gd.version == FORMAT_VERSION
    ops = every_op_graph.get_operations()
    assert [n.name for n in gd.node] == [op.name for op in ops]
    assert [n.op for n in gd.node] == [op.type for op in ops]
    nodes = {n.name: n for n in gd.node}
    assert nodes["x"].device == "/job:worker/task:1"
    assert nodes["y"].device == "/job:worker/task:1/device:GPU:0"
    assert nodes["c_f32"].device == ""
    assert list(nodes["math/Add"].input) == ["x", "c_f32"]      # output 0 unnumbered, as TF
    assert list(nodes["after"].input) == ["y", "^ru", "^rn"]
    assert list(nodes["grp"].input) == ["^after", "^nothing", "^assign", "^assign_add"]
    assert list(nodes["v/Assign"].input) == ["v", "v/initial_value"]
    # Attribute encodings.
    assert nodes["x"].attr["dtype"].type == ds.float32.enum
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 3]
    assert nodes["anything"].attr["shape"].shape.unknown_rank
    assert list(nodes["rs"].attr["shape"].list.i) == [-1, 3, 1]
    assert list(nodes["tr"].attr["perm"].list.i) == [2, 1, 0]
    assert list(nodes["max_01"].attr["axis"].list.i) == [0, 1]
    assert nodes["mean_1"].attr["keepdims"].b is True
    assert nodes["mm"].attr["transpose_b"].b is True
    assert nodes["cc"].attr["axis"].i == 0
    assert nodes["ru"].attr["minval"].f == -1.0  # TF's float field: float32 holds it exactly
    assert (nodes["rn"].attr["seed"].i, nodes["rn"].attr["seed2"].i) == (11, 5)
    assert nodes["v"].attr["container"].s == b""
    tensor = nodes["c_i64"].attr["value"].tensor
    assert tensor.dtype == ds.int64.enum
    assert tensor.tensor_content == CONST_VALUES["c_i64"].astype("<i8").tobytes()


def test_round_trip_preserves_everything(every_op_graph):
    gd = every_op_graph.as_graph_def()
    imported = ds.Graph()
    assert ds.import_graph_def(gd, graph=imported) is None
    assert_same_graph(every_op_graph, imported)
    assert imported.as_graph_def() == gd


def test_round_trip_through_bytes_into_the_default_graph(every_op_graph):
    data = every_op_graph.as_graph_def().SerializeToString()
    target = ds.Graph()
    with target.as_default():
        ds.import_graph_def(data)
    assert_same_graph(every_op_graph, target)


@pytest.mark.parametrize("name", sorted(CONST_VALUES))
def test_constant_arrays_of_every_dtype_round_trip(every_op_graph, name):
    imported = ds.Graph()
    ds.import_graph_def(every_op_graph.as_graph_def(), graph=imported)
    value = imported.get_operation_by_name(name).attrs["value"]
    want = CONST_VALUES[name]
    assert value.dtype == want.dtype
    assert value.shape == want.shape
    np.testing.assert_array_equal(value, want)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(value), np.signbit(want))
    assert not value.flags.writeable
    assert imported.get_tensor_by_name(f"{name}:0").dtype == ds.as_dtype(want.dtype)


@pytest.mark.parametrize("dtype", [ds.float16, ds.float32, ds.float64, ds.int32, ds.int64,
                                   ds.bool])
def test_tensor_codec_round_trip(dtype):
    array = (np.arange(24) % 3).reshape(2, 3, 4).astype(dtype.np)
    proto = array_to_proto(array)
    assert proto.dtype == dtype.enum
    assert [d.size for d in proto.tensor_shape.dim] == [2, 3, 4]
    assert len(proto.tensor_content) == array.size * dtype.size
    back = proto_to_array(proto)
    assert back.dtype == dtype.np
    np.testing.assert_array_equal(back, array)
    back[0, 0, 0] = 1  # a fresh, writable array
    # Non-contiguous input is encoded in C order.
    np.testing.assert_array_equal(proto_to_array(array_to_proto(array.T)), array.T)


def test_import_with_name_prefix(every_op_graph):
    target = ds.Graph()
    ds.import_graph_def(every_op_graph.as_graph_def(), name="imp", graph=target)
    assert_same_graph(every_op_graph, target, prefix="imp/")
    assert target.get_operation_by_name("imp/math/Add").inputs[0].name == "imp/x:0"
    assert target.get_operation_by_name("imp/y").device == "/job:worker/task:1/device:GPU:0"


def test_import_twice_with_different_prefixes(every_op_graph):
    gd = every_op_graph.as_graph_def()
    target = ds.Graph()
    ds.import_graph_def(gd, name="a", graph=target)
    ds.import_graph_def(gd, name="b", graph=target)
    assert len(target.get_operations()) == 2 * len(gd.node)


def test_import_into_a_graph_with_the_same_names_uniquifies_them_as_tf(every_op_graph):
    """TF's importer renames a node whose name is taken (c -> c_1), and a taken prefix
    scope (import -> import_1), rather than failing."""
    gd = every_op_graph.as_graph_def()
    target = ds.Graph()
    ds.import_graph_def(gd, graph=target)
    before = {op.name for op in target.get_operations()}
    again = ds.import_graph_def(gd, graph=target, return_elements=["x:0"])[0]
    added = [op.name for op in target.get_operations() if op.name not in before]
    assert len(added) == len(gd.node) and again.name == "x_1:0"
    with ds.Graph().as_default() as g:
        ds.constant(5.0, name="c")
        small = ds.Graph()
        with small.as_default():
            ds.multiply(ds.constant(2.0, name="c"), 3.0, name="d")
        d, c = ds.import_graph_def(small.as_graph_def(), name="", return_elements=["d:0", "c:0"])
        prefixed = [ds.import_graph_def(small.as_graph_def(), name="import",
                                        return_elements=["d:0"])[0] for _ in range(2)]
        with ds.Session(graph=g) as sess:
            assert sess.run([d, c] + prefixed) == [6.0, 2.0, 6.0, 6.0]
    assert [t.name for t in [d, c] + prefixed] == ["d:0", "c_1:0", "import/d:0",
                                                     "import_1/d:0"]


def test_return_elements(every_op_graph):
    target = ds.Graph()
    x, v, total, grp = ds.import_graph_def(
        every_op_graph.as_graph_def(), name="imp", graph=target,
        return_elements=["x:0", "v", "sum_all:0", "grp"])
    assert isinstance(x, ds.Tensor) and x.name == "imp/x:0" and x.shape == (None, 3)
    assert isinstance(v, ds.Operation) and (v.name, v.type) == ("imp/v", "VariableV2")
    assert total.graph is target and total.shape == ()
    assert grp.type == "NoOp"
    assert ds.import_graph_def(ds.GraphDef(), graph=ds.Graph(), return_elements=[]) == []


def test_names_after_import_stay_unique():
    g = ds.Graph()
    with g.as_default():
        a = ds.constant(1.0)
        ds.add(a, a)
        ds.add(a, a)
    target = ds.Graph()
    ds.import_graph_def(g.as_graph_def(), graph=target)
    with target.as_default():
        b = ds.constant(2.0)
        c = ds.add(b, b)
    assert (b.op.name, c.op.name) == ("Const_1", "Add_2")


def test_write_graph_and_read_graph_def(tmp_path, every_op_graph):
    path = tmp_path / "model.pb"
    assert ds.write_graph(every_op_graph, str(path)) == str(path)
    gd = ds.read_graph_def(str(path))
    assert gd == every_op_graph.as_graph_def()
    assert ds.GraphDef.FromString(path.read_bytes()) == gd
    # A GraphDef can be written too.
    other = tmp_path / "copy.pb"
    ds.write_graph(gd, str(other))
    assert ds.read_graph_def(str(other)) == gd
    imported = ds.Graph()
    ds.import_graph_def(ds.read_graph_def(str(other)), graph=imported)
    assert_same_graph(every_op_graph, imported)


def test_read_graph_def_of_a_garbage_file(tmp_path):
    path = tmp_path / "garbage.pb"
    path.write_bytes(b"\xff\xff\xff\xff not a graph")
    with pytest.raises(ds.errors.InvalidArgumentError, match="Cannot parse a GraphDef"):
        ds.read_graph_def(str(path))


def test_read_graph_def_reports_file_errors_as_tfs_classes(tmp_path):
    with pytest.raises(ds.errors.NotFoundError, match="nothing.pb; No such file"):
        ds.read_graph_def(str(tmp_path / "nothing.pb"))
    with pytest.raises(ds.errors.FailedPreconditionError, match="Is a directory"):
        ds.read_graph_def(str(tmp_path))
    graph = ds.Graph()
    with graph.as_default():
        ds.constant(1.0, name="a")
    path = ds.write_graph(graph, str(tmp_path / "g.pb"))
    assert ds.read_graph_def("file://" + path) == graph.as_graph_def()


@pytest.mark.parametrize("order", ["reversed", "shuffled"])
def test_nodes_in_any_order(every_op_graph, order):
    gd = every_op_graph.as_graph_def()
    nodes = list(gd.node)
    if order == "reversed":
        nodes.reverse()
    else:
        np.random.default_rng(0).shuffle(nodes)
    scrambled = ds.GraphDef(version=gd.version)
    scrambled.node.extend(nodes)
    imported = ds.Graph()
    ds.import_graph_def(scrambled, graph=imported)
    assert_same_graph(every_op_graph, imported)
    # The imported graph's own order is topological.
    seen = set()
    for op in imported.get_operations():
        assert all(t.op.name in seen for t in op.inputs), op.name
        assert all(c.name in seen for c in op.control_inputs), op.name
        seen.add(op.name)


def test_imported_graph_is_checked_like_a_built_one():
    """Import re-runs shape inference: a forged NodeDef cannot lie about shapes."""
    g = ds.Graph()
    with g.as_default():
        a = ds.placeholder(ds.float32, (2, 3), name="a")
        b = ds.placeholder(ds.float32, (2, 3), name="b")
        ds.add(a, b, name="c")
    gd = g.as_graph_def()
    gd.node[1].attr["shape"].shape.dim[1].size = 4
    with pytest.raises(ds.errors.InvalidArgumentError) as info:
        ds.import_graph_def(gd, graph=ds.Graph())
    assert "Cannot import node 'c' (Add)" in str(info.value)
    assert "incompatible shapes" in str(info.value)
    assert info.value.node_name == "c"


def test_as_graph_def_add_shapes_and_from_version():
    """TF's ``as_graph_def(from_version, add_shapes)``: ``_output_shapes`` holds each node's
    static output shapes (none on an op without outputs; -1 for an unknown dimension,
    ``unknown_rank`` for an unknown rank), and ``from_version`` keeps the later ops; a
    GraphDef with the shapes imports again."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 3), name="x")
        version = g.version
        ds.placeholder(ds.float32, None, name="any")
        ds.reduce_sum(x, 1, name="total")
        ds.no_op(name="n")
    shapes = {n.name: n.attr["_output_shapes"].list.shape
              for n in g.as_graph_def(add_shapes=True).node if "_output_shapes" in n.attr}
    assert sorted(shapes) == ["any", "total", "x"]
    assert [[d.size for d in s.dim] for s in shapes["x"]] == [[-1, 3]]
    assert [[d.size for d in s.dim] for s in shapes["total"]] == [[-1]]
    assert shapes["any"][0].unknown_rank
    assert all("_output_shapes" not in n.attr for n in g.as_graph_def().node)
    assert [n.name for n in g.as_graph_def(version).node] == ["any", "total", "n"]
    imported = ds.Graph()
    ds.import_graph_def(g.as_graph_def(add_shapes=True), graph=imported)
    assert imported.get_tensor_by_name("total:0").shape.as_list() == [None]


# --- malformed GraphDefs ---------------------------------------------------------------------

@pytest.fixture
def small_graph_def():
    g = ds.Graph()
    with g.as_default():
        a = ds.constant(np.float32(1.0), name="a")
        ds.add(a, a, name="b")
        ds.no_op(name="n")
    return g.as_graph_def()


def assert_import_fails(graph_def, error=ds.errors.InvalidArgumentError, match=None):
    """Importing ``graph_def`` into a new graph raises ``error`` (with a message that
    ``match`` finds, where given); returns it."""
    with pytest.raises(error, match=match) as info:
        ds.import_graph_def(graph_def, graph=ds.Graph())
    return info.value


def _node(gd, name):
    return next(n for n in gd.node if n.name == name)


def test_unknown_op_type_is_not_found(small_graph_def):
    _node(small_graph_def, "b").op = "Frobnicate"
    assert_import_fails(small_graph_def, ds.errors.NotFoundError,
                        match="Op type not registered 'Frobnicate'")


def test_unknown_op_type_suggests_a_close_name(small_graph_def):
    _node(small_graph_def, "b").op = "Ad"
    assert_import_fails(small_graph_def, ds.errors.NotFoundError, match="Did you mean 'Add'")


def test_unknown_op_type_message_names_it_without_listing_every_op():
    with pytest.raises(ds.errors.NotFoundError) as info:
        ds.ops.registry.get_op_def("NoSuchOpType")
    message = str(info.value)
    assert "'NoSuchOpType'" in message and "registered_ops()" in message
    assert "MatMul" not in message and len(message) < 200


def test_cycle_is_invalid_argument_naming_the_nodes(small_graph_def):
    _node(small_graph_def, "a").input.append("b")
    error = assert_import_fails(small_graph_def)
    assert re.search(r"cycle: (a -> b -> a|b -> a -> b)\.", str(error))
    assert error.node_name in ("a", "b")
    assert error.code == ds.errors.InvalidArgumentError.code


def test_longer_cycle_through_a_control_input():
    gd = ds.GraphDef()
    gd.node.add(name="p", op="NoOp", input=["^r"])
    gd.node.add(name="q", op="NoOp", input=["^p"])
    gd.node.add(name="r", op="NoOp", input=["^q"])
    gd.node.add(name="outside", op="NoOp")
    error = assert_import_fails(gd, match="cycle")
    cycle_text = str(error).split("cycle")[1]
    for name in ("p", "q", "r"):
        assert name in cycle_text
    assert "outside" not in str(error)


def test_self_loop_is_a_cycle(small_graph_def):
    _node(small_graph_def, "n").input.append("^n")
    assert_import_fails(small_graph_def, match="cycle: n -> n")


@pytest.mark.parametrize("bad_input", ["missing", "missing:0", "^missing"])
def test_input_naming_a_missing_node(small_graph_def, bad_input):
    _node(small_graph_def, "b").input[1] = bad_input
    error = assert_import_fails(small_graph_def)
    assert f"Node 'b' has input '{bad_input}', but no node 'missing'" in str(error)
    assert error.node_name == "b"


def test_input_reading_an_output_that_does_not_exist(small_graph_def):
    _node(small_graph_def, "b").input[1] = "n:0"
    assert_import_fails(small_graph_def, match="Node 'b' reads output 0 of 'n', which has 0")


def test_malformed_input_string(small_graph_def):
    _node(small_graph_def, "b").input[1] = "a:x"
    assert_import_fails(small_graph_def, match="malformed input 'a:x'")


def test_wrong_number_of_inputs(small_graph_def):
    del _node(small_graph_def, "b").input[1]
    assert_import_fails(small_graph_def, match="'Add' takes 2 inputs, got 1")


@pytest.mark.parametrize("data", [b"\xff\xff\xff\xff", b"\x0a\x05abc", b"garbage bytes!!"])
def test_garbage_bytes_are_invalid_argument(data):
    assert_import_fails(data, match="Cannot parse a GraphDef")


# (No content at all is TF's form for zeros: tests/test_tf_graphdef.py.)
@pytest.mark.parametrize("content", [b"\x00\x00\x00", b"\x00" * 5])
def test_tensor_content_of_the_wrong_length(small_graph_def, content):
    _node(small_graph_def, "a").attr["value"].tensor.tensor_content = content
    assert_import_fails(small_graph_def,
                        match=rf"dtype float32 and shape \(\) needs 4 bytes, got {len(content)}")


def test_tensor_with_unknown_dimension_is_invalid(small_graph_def):
    _node(small_graph_def, "a").attr["value"].tensor.tensor_shape.dim.add(size=-1)
    assert_import_fails(small_graph_def, match="fully defined shape")


def test_tensor_with_bad_dimension_is_invalid(small_graph_def):
    _node(small_graph_def, "a").attr["value"].tensor.tensor_shape.dim.add(size=-7)
    assert_import_fails(small_graph_def, match="Invalid dimension -7")


def test_tensor_with_unsupported_dtype_enum(small_graph_def):
    _node(small_graph_def, "a").attr["value"].tensor.dtype = 0
    assert_import_fails(small_graph_def, match="Unsupported tensor dtype enum 0")


def test_type_attr_with_unsupported_enum(small_graph_def):
    _node(small_graph_def, "a").attr["dtype"].type = 0
    assert_import_fails(small_graph_def, match="Unsupported dtype 0")


def test_attr_without_a_value(small_graph_def):
    _node(small_graph_def, "a").attr["value"].Clear()
    assert_import_fails(small_graph_def, match="AttrValue has no value set")


def test_missing_required_attr(small_graph_def):
    del _node(small_graph_def, "a").attr["value"]
    assert_import_fails(small_graph_def, match="Cannot import node 'a' \\(Const\\)")


@pytest.mark.parametrize("kind", ["i", "f"])
def test_attr_of_the_wrong_kind_is_invalid_argument(small_graph_def, kind):
    setattr(_node(small_graph_def, "a").attr["value"], kind, 3)
    assert_import_fails(small_graph_def, match="Cannot import node 'a'")


def test_duplicate_node_names(small_graph_def):
    small_graph_def.node.add().CopyFrom(_node(small_graph_def, "n"))
    error = assert_import_fails(small_graph_def, match="Duplicate node name 'n'")
    assert error.node_name == "n"


def test_invalid_node_name(small_graph_def):
    _node(small_graph_def, "n").name = "bad name"
    assert_import_fails(small_graph_def, match="'bad name' is not a valid node name")


def test_failed_import_errors_are_op_errors(small_graph_def):
    _node(small_graph_def, "a").input.append("b")
    assert_import_fails(small_graph_def, ds.errors.OpError)


def test_imported_device_is_kept(small_graph_def):
    _node(small_graph_def, "a").device = "/job:worker/task:1/device:GPU:0"
    target = ds.Graph()
    ds.import_graph_def(small_graph_def, graph=target)
    assert target.get_operation_by_name("a").device == "/job:worker/task:1/device:GPU:0"


def test_imported_device_is_canonical(small_graph_def):
    _node(small_graph_def, "a").device = "gpu:1"
    target = ds.Graph()
    ds.import_graph_def(small_graph_def, graph=target)
    assert target.get_operation_by_name("a").device == "/device:GPU:1"


def test_imported_invalid_device_is_invalid_argument(small_graph_def):
    _node(small_graph_def, "a").device = "/job:worker/nonsense"
    assert_import_fails(small_graph_def, match="nonsense")
