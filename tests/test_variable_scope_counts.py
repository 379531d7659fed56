"""Default variable-scope names are made unique as TF1's ``_VariableScopeStore`` does, so a
network built twice with unnamed layers shares its variables (``reuse=True`` on the
second build).  The expected names were printed by TensorFlow 2.21's ``compat.v1`` for
the same program (``get_variable`` inside ``variable_scope(None, default_name="dense")``,
which is what ``tf.layers.dense`` opens)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


def dense(x, units):
    with ds.variable_scope(None, default_name="dense"):
        w = ds.get_variable("kernel", (int(x.shape[-1]), units))
        return ds.matmul(x, w)


def test_default_names_count_as_tf1s(graph):
    x = ds.placeholder(ds.float32, (None, 4))
    with ds.variable_scope("foo"):
        dense(x, 3)
    with ds.variable_scope("foo", reuse=True):        # the same layer again: shared
        dense(x, 3)
    dense(x, 3)
    dense(x, 3)
    with ds.variable_scope(None, default_name="blk"):
        dense(x, 2)
        dense(x, 2)
    with ds.variable_scope(None, default_name="blk"):
        dense(x, 2)
    with ds.variable_scope("blk_2"):                  # a name used explicitly is skipped
        pass
    with ds.variable_scope(None, default_name="blk"):
        dense(x, 2)
    with ds.variable_scope("outer") as outer:
        dense(x, 2)
    with ds.variable_scope(outer, reuse=True):        # a re-entered scope object
        dense(x, 2)
    with ds.variable_scope(outer, reuse=ds.AUTO_REUSE):
        with ds.variable_scope(None, default_name="dense"):
            pass
        dense(x, 5)
    assert [v.name for v in ds.global_variables()] == [
        "foo/dense/kernel:0", "dense/kernel:0", "dense_1/kernel:0", "blk/dense/kernel:0",
        "blk/dense_1/kernel:0", "blk_1/dense/kernel:0", "blk_3/dense/kernel:0",
        "outer/dense/kernel:0", "outer/dense_1/kernel:0"]


def test_layers_built_twice_under_a_reused_scope_share_variables(graph):
    x = ds.placeholder(ds.float32, (None, 4))

    def net(inputs):
        return ds.layers.dense(ds.layers.dense(inputs, 3, activation=ds.nn.relu), 1)

    with ds.variable_scope("D"):
        real = net(x)
    with ds.variable_scope("D", reuse=True):
        fake = net(x)
    assert [v.name for v in ds.trainable_variables()] == [
        "D/dense/kernel:0", "D/dense/bias:0", "D/dense_1/kernel:0", "D/dense_1/bias:0"]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        a, b = sess.run([real, fake], {x: [[1.0, -2.0, 3.0, 0.5]]})
    assert a == pytest.approx(b)


def test_a_second_unnamed_layer_without_reuse_is_a_new_one(graph):
    x = ds.placeholder(ds.float32, (None, 4))
    with ds.variable_scope("E"):
        ds.layers.dense(x, 3)
    with ds.variable_scope("E"):
        with pytest.raises(ValueError, match="E/dense/kernel already exists"):
            ds.layers.dense(x, 3)


def test_a_value_initializer_keeps_its_dtype_as_tf():
    """get_variable(initializer=<a tensor or an array>) takes the value's dtype (the
    scope's dtype does not apply), and an explicit dtype that differs is TF's
    ValueError (TF 2.21's dtypes and message)."""
    with ds.Graph().as_default():
        made = [ds.get_variable("a", initializer=ds.constant(np.ones(3, np.float64))),
                ds.get_variable("b", initializer=np.ones(3, np.int32)),
                ds.get_variable("c", initializer=[1, 2]),
                ds.get_variable("d", initializer=1.5)]
        with ds.variable_scope("s", dtype=ds.float64):
            made += [ds.get_variable("e", initializer=np.ones(3, np.float32)),
                     ds.get_variable("f", shape=[2])]
        with pytest.raises(ValueError, match="Initializer type '<dtype: 'float64'>' and "
                                             "explicit dtype '<dtype: 'float32'>' don't"):
            ds.get_variable("g", initializer=np.ones(3), dtype=ds.float32)
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(made[1]), [1, 1, 1])
    assert [v.dtype.name for v in made] == ["float64", "int32", "int32", "float32",
                                            "float32", "float64"]


def test_a_reentered_scope_object_opens_a_name_scope_of_its_last_part_as_tf1(graph):
    # op names TF 2.21's compat.v1 printed for the same calls: re-entering a scope object
    # opens a new name scope of its last component where it is entered (the root scope
    # none: a multi-tower script's ops stay in their tower), the scope keeping its
    # original_name_scope; a make_template's later calls build under "T_1/", a layer
    # object's under its own scope
    x = ds.zeros([2, 3])
    with ds.variable_scope("s") as s:
        first = ds.constant(1.0, name="c")
        ds.layers.dense(x, 2)
    with ds.variable_scope(s):
        again = ds.constant(1.0, name="c")
    with ds.variable_scope(s, reuse=True):
        reused = ds.layers.dense(x, 2)
    with ds.variable_scope("outer"), ds.variable_scope(s):
        inside = ds.constant(1.0, name="c")
    with ds.variable_scope("a/b") as ab:
        pass
    with ds.variable_scope(ab):
        last_part = ds.constant(1.0, name="c")
        assert ds.get_variable_scope().original_name_scope == "a/b/"
    towers = []
    for k in range(2):
        with ds.name_scope(f"tower_{k}"), ds.variable_scope(ds.get_variable_scope(),
                                                             reuse=ds.AUTO_REUSE):
            towers.append(ds.layers.dense(x, 2, name="shared"))
    template = ds.make_template("T", lambda v: ds.layers.dense(v, 2, name="fc"))
    calls = [template(x), template(x)]
    layer = ds.layers.Dense(2, name="dense_obj")
    objects = [layer(x), layer(x)]
    assert [t.name for t in [first, again, reused, inside, last_part, *towers, *calls,
                             *objects]] == [
        "s/c:0", "s_1/c:0", "s_2/dense/BiasAdd:0", "outer/s/c:0", "b/c:0",
        "tower_0/shared/BiasAdd:0", "tower_1/shared/BiasAdd:0", "T/fc/BiasAdd:0",
        "T_1/fc/BiasAdd:0", "dense_obj/BiasAdd:0", "dense_obj/BiasAdd_1:0"]
    assert sorted(v.op.name for v in ds.global_variables()) == [
        "T/fc/bias", "T/fc/kernel", "dense_obj/bias", "dense_obj/kernel", "s/dense/bias",
        "s/dense/kernel", "shared/bias", "shared/kernel"]
