"""Ops with several outputs, ops that read shapes on the host, and shapes given as
tensors whose value the graph determines (the machinery the TF op set needs:
``Unique``, ``FusedBatchNorm``, ``Reshape(x, shape_tensor)``...).  Exercised with
test-only ops registered here (named with a leading "_", as internal ops are, so the tests that walk
every public op skip them), so the runtime is checked apart from any real op."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.graph import constant_value
from devsession.kernels.registry import HOST, register_kernel
from devsession.ops.registry import OpDef, register_op
from devsession.tensor_shape import TensorShape


def _split_infer(inputs, attrs, node):
    (x,) = inputs
    return [(x.dtype, x.shape), (ds.int64, x.shape)]


def _fill_infer(inputs, attrs, node):
    dims, value = inputs
    shape = TensorShape(None) if dims.value is None else TensorShape(dims.value.tolist())
    return value.dtype, shape


register_op(OpDef("_TestTwoOutputs", _split_infer, 1))
register_op(OpDef("_TestFillFromShape", _fill_infer, 2, host_inputs=(0,)))
CALLS = []


@register_kernel("_TestTwoOutputs", HOST)
def _two_outputs(node):
    def kernel(x):
        CALLS.append(node.name)
        return x * 2, np.arange(x.size, dtype=np.int64).reshape(x.shape)
    return kernel


@register_kernel("_TestFillFromShape", HOST)
def _fill(node):
    return lambda dims, value: np.full(tuple(int(d) for d in dims), value)


def two_outputs(x, name=None):
    op = ds.get_default_graph().create_op("_TestTwoOutputs", [ds.convert_to_tensor(x)],
                                          name=name)
    return op.outputs


def test_an_op_with_two_outputs_runs_once_and_feeds_both_consumers():
    x = ds.placeholder(ds.float32, (3,), name="x")
    doubled, index = two_outputs(x, name="two")
    assert (doubled.name, index.name) == ("two:0", "two:1")
    assert index.dtype == ds.int64 and doubled.op is index.op
    y = doubled + ds.cast(index, ds.float32)
    CALLS.clear()
    with ds.Session() as sess:
        got_y, got_index, by_name = sess.run([y, index, "two:1"], {x: [1.0, 2.0, 3.0]})
    np.testing.assert_array_equal(got_y, [2.0, 5.0, 8.0])
    np.testing.assert_array_equal(got_index, [0, 1, 2])
    np.testing.assert_array_equal(by_name, [0, 1, 2])
    assert CALLS == ["two"]            # one kernel call serves both outputs


def test_two_outputs_survive_a_graphdef_round_trip():
    x = ds.placeholder(ds.float32, (2,), name="x")
    doubled, index = two_outputs(x, name="two")
    ds.identity(index, name="picked")
    g = ds.Graph()
    ds.import_graph_def(ds.get_default_graph().as_graph_def(), graph=g)
    with ds.Session(graph=g) as sess:
        out = sess.run("picked:0", {"x:0": [5.0, 6.0]})
    np.testing.assert_array_equal(out, [0, 1])


def test_a_shape_given_as_a_tensor_is_inferred_when_the_graph_knows_it():
    dims = ds.identity(ds.constant([2, 3]))
    assert constant_value(dims).tolist() == [2, 3]
    filled = ds.get_default_graph().create_op("_TestFillFromShape",
                                              [dims, ds.constant(1.5)], name="fill").outputs[0]
    assert filled.shape.as_list() == [2, 3]
    fed = ds.placeholder(ds.int32, (2,), name="dims")
    assert constant_value(fed) is None
    unknown = ds.get_default_graph().create_op("_TestFillFromShape",
                                               [fed, ds.constant(1.5)], name="fill").outputs[0]
    assert unknown.shape.ndims is None
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(unknown, {fed: [1, 2]}), np.full((1, 2), 1.5))
        np.testing.assert_array_equal(sess.run(filled), np.full((2, 3), 1.5))


def test_host_inputs_stay_on_the_host_for_a_gpu_node():
    from fake_gpu import fake_gpus, plan_of

    with fake_gpus(1):
        fed = ds.placeholder(ds.int32, (2,), name="dims")
        value = ds.placeholder(ds.float32, (), name="value")
        with ds.device("gpu:0"):
            filled = ds.get_default_graph().create_op("_TestFillFromShape", [fed, value],
                                                      name="fill").outputs[0]
        with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
            sess.run(filled, {fed: [2, 2], value: 1.0})
            plan = plan_of(sess)
    moved = [s.name for s in plan.steps if s.op_type == "_Transfer"]
    assert any(name.startswith("value:0") for name in moved)
    assert not any(name.startswith("dims:0") for name in moved)
