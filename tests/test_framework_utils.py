"""TF1's framework utilities: tf.tuple, tf.switch_case, tf.is_tensor,
tf.get_static_value, tf.make_tensor_proto / tf.make_ndarray, tf.dimension_value,
the collection helpers (model_variables, get_local_variable, get_collection_ref,
add_to_collections), the graph scopes (init_scope, colocate_with, container) and
tf.test's gradient checker, against hand-computed values and TF's error classes."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.proto import graph_pb2
from devsession.unsupported import UnsupportedTF1Error


def test_tuple_gates_every_tensor_on_all_of_them():
    v = ds.Variable(0.0)
    bump = v.assign_add(1.0)
    extra = ds.Variable(0.0)
    other = extra.assign_add(5.0)
    five, op, nothing = ds.tuple([ds.constant(5.0), bump.op, None], control_inputs=[other])
    assert nothing is None and isinstance(op, ds.Operation)
    assert five.op.type == "Identity" and five.op.name.startswith("tuple/control_dependency")
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        assert sess.run(five) == 5.0
        assert sess.run([v, extra]) == [1.0, 5.0]      # fetching one ran the others
        sess.run(op)
        assert sess.run([v, extra]) == [2.0, 10.0]
    with pytest.raises(ValueError, match="at least one Tensor"):
        ds.tuple([None])
    with pytest.raises(TypeError, match="control_inputs"):
        ds.tuple([five], control_inputs=[3])


def test_switch_case_picks_by_index_and_out_of_range_takes_the_default():
    i = ds.placeholder(ds.int32, ())
    listed = ds.switch_case(i, [lambda: ds.constant(10.0), lambda: ds.constant(20.0),
                                lambda: ds.constant(30.0)])
    keyed = ds.switch_case(i, {1: lambda: ds.constant(1), 0: lambda: ds.constant(0)},
                           default=lambda: ds.constant(-1))
    pairs = ds.switch_case(ds.cast(i, ds.int64), [(0, lambda: ds.constant(7))])
    with ds.Session() as sess:
        got = [sess.run([listed, keyed, pairs], {i: k}) for k in (-1, 0, 1, 2, 3)]
    assert got == [[30.0, -1, 7], [10.0, 0, 7], [20.0, 1, 7], [30.0, -1, 7], [30.0, -1, 7]]


def test_switch_case_refusals_are_tfs():
    i = ds.constant(0)
    with pytest.raises(TypeError, match="'branch_index' must be a Tensor"):
        ds.switch_case(0, [lambda: i])
    with pytest.raises(TypeError, match="integer Tensor"):
        ds.switch_case(ds.constant(0.0), [lambda: i])
    with pytest.raises(ValueError, match=r"contiguous range of \[0 to 2\) but found \{0,2\}"):
        ds.switch_case(i, {0: lambda: i, 2: lambda: i})
    with pytest.raises(TypeError, match="key must be a Python `int`"):
        ds.switch_case(i, [("a", lambda: i)])
    with pytest.raises(ValueError, match="at least one item"):
        ds.switch_case(i, [])


def test_is_tensor_and_get_static_value():
    v = ds.Variable(1.0)
    x = ds.placeholder(ds.float32, (2, 3))
    sparse = ds.SparseTensor([[0]], [1.0], [2])
    assert [ds.is_tensor(t) for t in (x, v, sparse, 1.0, np.ones(2))] == [
        True, True, True, False, False]
    np.testing.assert_array_equal(ds.get_static_value(ds.shape(x)), [2, 3])
    const = ds.get_static_value(ds.constant([1.5, 2.5]))
    const[0] = 9.0                                    # a copy: the graph keeps its value
    np.testing.assert_array_equal(ds.get_static_value(ds.constant([1.5, 2.5])), [1.5, 2.5])
    assert ds.get_static_value(x) is None and ds.get_static_value(v) is None
    assert ds.get_static_value(3) == 3


def test_make_tensor_proto_and_make_ndarray_round_trip_tfs_forms():
    proto = ds.make_tensor_proto([[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(proto, graph_pb2.TensorProto) and proto.dtype == ds.float32.enum
    np.testing.assert_array_equal(ds.make_ndarray(proto), [[1, 2], [3, 4]])
    assert ds.make_ndarray(proto).dtype == np.float32
    filled = ds.make_tensor_proto([1, 2], shape=[2, 2])   # the last value repeats
    np.testing.assert_array_equal(ds.make_ndarray(filled), [[1, 2], [2, 2]])
    assert ds.make_ndarray(filled).dtype == np.int32
    np.testing.assert_array_equal(ds.make_ndarray(
        ds.make_tensor_proto(7.0, dtype=ds.float64, shape=[3])), [7.0, 7.0, 7.0])
    np.testing.assert_array_equal(ds.make_ndarray(ds.make_tensor_proto(np.float16(1.5),
                                                                       shape=[2])), [1.5, 1.5])
    strings = ds.make_ndarray(ds.make_tensor_proto(["a", "bc"]))
    assert strings.tolist() == [b"a", b"bc"]
    with pytest.raises(ValueError, match="Too many elements provided. Takes at most 2, but "
                                         "got 3"):
        ds.make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(2,\), but got \(1,\)"):
        ds.make_tensor_proto([1], shape=[2], verify_shape=True)
    with pytest.raises(TypeError, match="TensorProto"):
        ds.make_ndarray(np.ones(2))


def test_dimension_helpers_at_the_top_level():
    x = ds.placeholder(ds.float32, (None, 3))
    assert ds.dimension_value(x.shape[1]) == 3 and ds.dimension_value(x.shape[0]) is None
    assert ds.dimension_value(ds.dimension_at_index(x.shape, 1)) == 3


def test_collection_helpers():
    ds.add_to_collections(["a", "b", "a"], 1)
    ds.add_to_collections("c", 2)
    assert (ds.get_collection("a"), ds.get_collection("b"), ds.get_collection("c")) == (
        [1], [1], [2])
    ref = ds.get_collection_ref("fresh")
    ref.append("x")
    assert ds.get_collection("fresh") == ["x"] and ds.get_collection_ref("fresh") is ref
    w = ds.Variable(1.0, name="w", collections=[ds.GraphKeys.GLOBAL_VARIABLES,
                                                ds.GraphKeys.MODEL_VARIABLES])
    with ds.variable_scope("s"):
        local = ds.get_local_variable("counter", [2], initializer=ds.zeros_initializer())
    assert ds.model_variables() == [w] and ds.model_variables("nothing") == []
    assert local.name == "s/counter:0"
    assert ds.local_variables() == [local] and local not in ds.global_variables()
    assert local not in ds.trainable_variables()
    with ds.Session() as sess:
        sess.run(ds.local_variables_initializer())
        np.testing.assert_array_equal(sess.run(local), [0.0, 0.0])


def test_init_scope_leaves_control_dependencies_and_cond_branches():
    x = ds.constant(1.0)
    flag = ds.placeholder(ds.bool, ())
    lifted = []

    def branch():
        with ds.init_scope():
            lifted.append(ds.constant(5.0, name="lifted"))
        return x + 1.0

    with ds.control_dependencies([x]):
        with ds.name_scope("outer"):
            with ds.init_scope():
                free = ds.constant(2.0, name="free")
        y = ds.cond(flag, branch, lambda: x)
    assert free.op.control_inputs == () and free.name == "outer/free:0"
    assert lifted[0].graph is ds.get_default_graph() and lifted[0].op.control_inputs == ()
    with ds.Session() as sess:
        assert sess.run([y, lifted[0]], {flag: True}) == [2.0, 5.0]


def test_colocate_with_names_the_group_and_takes_the_ops_device():
    g = ds.get_default_graph()
    with ds.device("/cpu:0"):
        v = ds.Variable(1.0, name="v")
    with ds.device("/gpu:0"):
        with ds.colocate_with(v):
            a = ds.identity(v, name="a")
            with g.colocate_with(None, ignore_existing=True):
                free = ds.constant(1.0, name="free")
        plain = ds.constant(1.0, name="plain")
    assert a.op.get_attr("_class") == [b"loc:@v"] and a.op.device == "/device:CPU:0"
    assert "_class" not in free.op.attrs and free.op.device == ""
    assert plain.op.device == "/device:GPU:0" and "_class" not in plain.op.attrs
    with pytest.raises(ValueError, match="ignore_existing"):
        with ds.colocate_with(None):
            pass
    with ds.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(a) == 1.0


def test_ops_writing_a_variable_are_built_colocated_with_it():
    """TF1's op_def_library builds an op with reference inputs in ``colocate_with`` its
    variables: their groups, their device, the scopes' devices set aside (what TF 2.21's
    compat.v1 gives each op below); reads are ordinary ops."""
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:ps/task:0"):
            on_ps = ds.Variable([1.0, 2.0], name="on_ps")
        free = ds.Variable([1.0, 2.0], name="free")
        other = ds.Variable([1.0, 2.0], name="other")
        with ds.device("/job:worker/task:0"):
            writes = [ds.assign(on_ps, [3.0, 4.0]), on_ps.assign_add([1.0, 1.0]),
                      ds.scatter_update(on_ps, [0], [5.0]), ds.assign(free, [0.0, 0.0]),
                      ds.is_variable_initialized(free)]
            with ds.colocate_with(other):
                nested = ds.assign_add(free, [1.0, 1.0])
            read = ds.identity(on_ps)
            ds.train.MomentumOptimizer(0.1, 0.9).minimize(ds.reduce_sum(free * other))
    placed = [(t.op.device, t.op.colocation_groups()) for t in writes]
    assert placed == [("/job:ps/task:0", [b"loc:@on_ps"])] * 3 + [("", [b"loc:@free"])] * 2
    assert on_ps.initializer.colocation_groups() == [b"loc:@on_ps"]
    assert (nested.op.device, nested.op.colocation_groups()) == (
        "", [b"loc:@free", b"loc:@other"])
    assert (read.op.device, read.op.colocation_groups()) == (
        "/job:worker/task:0", [b"loc:@" + read.op.name.encode()])
    apply = g.get_operation_by_name("Momentum/update_free/ApplyMomentum")
    assert apply.colocation_groups() == [b"loc:@free"]
    nodes = {n.name: n for n in g.as_graph_def().node}
    assert list(nodes[writes[0].op.name].attr["_class"].list.s) == [b"loc:@on_ps"]
    with ds.Session(graph=g) as sess:
        sess.run([on_ps.initializer, free.initializer, other.initializer])
        sess.run(writes[:2])
        assert sess.run(on_ps).tolist() == [4.0, 5.0]


def test_container_scopes_variables_and_a_reset_clears_only_it():
    with ds.container("experiment"):
        scoped = ds.Variable(1.0, name="scoped")
    kept = ds.Variable(2.0, name="kept")
    assert scoped.op.get_attr("container") == b"experiment"
    assert kept.op.get_attr("container") == b""
    graph = ds.get_default_graph()
    with graph.container("inner") as name:
        assert name == "inner"


def test_compute_gradient_against_the_jacobian_by_hand():
    x = ds.placeholder(ds.float64, (2, 3))
    y = ds.reduce_sum(x * x, axis=1)
    x0 = np.arange(6.0).reshape(2, 3)
    with ds.Session():
        theoretical, numerical = ds.test.compute_gradient(x, (2, 3), y, (2,), x_init_value=x0)
        error = ds.test.compute_gradient_error(x, [2, 3], y, [2])
        [(t2, _)] = ds.test.compute_gradient([x], [(2, 3)], y, (2,), x_init_value=[x0])
    want = np.zeros((6, 2))
    want[:3, 0], want[3:, 1] = 2 * x0[0], 2 * x0[1]
    np.testing.assert_allclose(theoretical, want)
    np.testing.assert_allclose(numerical, want, atol=1e-8)
    np.testing.assert_allclose(t2, want)
    assert error < 1e-6
    with pytest.raises(ValueError, match="default session"):
        ds.test.compute_gradient(x, (2, 3), y, (2,))


def test_compute_gradient_error_sees_a_wrong_gradient():
    @ds.custom_gradient
    def wrong(t):
        return ds.square(t), lambda dy: dy * 3.0 * t      # not 2t
    x = ds.placeholder(ds.float64, (3,))
    with ds.Session():
        assert ds.test.compute_gradient_error(x, (3,), wrong(x), (3,),
                                              x_init_value=np.ones(3)) == pytest.approx(1.0)


def test_the_rest_of_tf_test_is_named_as_missing():
    with pytest.raises(UnsupportedTF1Error, match="tf.test.test_src_dir_path is not supported"):
        ds.test.test_src_dir_path
