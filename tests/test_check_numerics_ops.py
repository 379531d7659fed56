"""TF1's ``tf.add_check_numerics_ops``: a check of every float tensor of the graph,
chained and grouped as TF builds them (the structure below is what TF 2.21's
``tf.compat.v1`` built for the same program)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


def checks_of(graph) -> list:
    return [(op.name, op.attrs["message"], [t.name for t in op.inputs],
             [c.name for c in op.control_inputs])
            for op in graph.get_operations() if op.type == "CheckNumerics"]


def test_every_float_tensor_is_checked_in_a_chain_as_tf_builds_it():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, [2], name="x")
        ds.log(x, name="y")
        ds.constant(3, name="i")                     # an int: not checked
        ds.Variable([1.0, 2.0], name="v")            # TF's float32_ref: not checked
        group = ds.add_check_numerics_ops()
    assert (group.name, group.type) == ("group_deps", "NoOp")
    assert [c.name for c in group.control_inputs] == ["CheckNumerics_3"]
    assert checks_of(g) == [
        ("CheckNumerics", "x:0", ["x:0"], []),
        ("CheckNumerics_1", "y:0", ["y:0"], ["CheckNumerics"]),
        ("CheckNumerics_2", "v/initial_value:0", ["v/initial_value:0"], ["CheckNumerics_1"]),
        ("CheckNumerics_3", "v/read:0", ["v/read:0"], ["CheckNumerics_2"]),
    ]


def test_running_it_fails_at_the_first_tensor_with_a_nan():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, [2], name="x")
        y = ds.log(x, name="y")
        v = ds.Variable([1.0, 2.0], name="v")
        z = ds.multiply(y, v, name="z")
        check = ds.add_check_numerics_ops()
    with ds.Session(graph=g) as sess:
        sess.run(v.initializer)
        _, zv = sess.run([check, z], {x: [1.0, 2.0]})
        np.testing.assert_allclose(zv, np.log([1.0, 2.0]) * [1.0, 2.0], rtol=1e-6)
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match=r"y:0 : Tensor had NaN values"):
            sess.run(check, {x: [-1.0, 2.0]})
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match=r"y:0 : Tensor had Inf values"):
            sess.run(check, {x: [0.0, 2.0]})


def test_every_float_width_and_no_other_dtype():
    g = ds.Graph()
    with g.as_default():
        for dtype in (ds.float16, ds.float32, ds.float64, ds.int64, ds.bool, ds.string):
            ds.placeholder(dtype, [], name=dtype.name)
        ds.add_check_numerics_ops()
    assert [m for _, m, _, _ in checks_of(g)] == ["float16:0", "float32:0", "float64:0"]


def test_an_empty_graph_gives_a_bare_group():
    with ds.Graph().as_default():
        group = ds.add_check_numerics_ops()
    assert group.type == "NoOp" and not group.control_inputs


def test_control_flow_carrying_floats_is_refused_as_tf1_does():
    g = ds.Graph()
    with g.as_default():
        p = ds.placeholder(ds.bool, [], name="p")
        ds.cond(p, lambda: ds.constant(1), lambda: ds.constant(2))    # ints: TF1 allows
        ds.add_check_numerics_ops()
        ds.cond(p, lambda: ds.constant(1.0), lambda: ds.constant(2.0))
        with pytest.raises(ValueError, match=r"not compatible with TensorFlow control flow"):
            ds.add_check_numerics_ops()
    g = ds.Graph()
    with g.as_default():
        ds.while_loop(lambda t: t < 5.0, lambda t: t + 1.0, [ds.constant(0.0)])
        with pytest.raises(ValueError, match=r"`tf.cond\(\)` or `tf.while_loop\(\)`"):
            ds.add_check_numerics_ops()
