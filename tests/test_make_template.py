"""``ds.make_template``: variables made on the first call and shared by later ones, named
as TF1 names them (the expected names were printed by TensorFlow 2.21's ``compat.v1``
for the same program, whose layers were ``get_variable`` inside
``variable_scope(None, default_name="dense")``, as ``tf.layers.dense`` opens)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


def dense(z, units):
    with ds.variable_scope(None, default_name="dense"):
        w = ds.get_variable("kernel", (int(z.shape[-1]), units))
        return ds.matmul(z, w)


def two_layers(z):
    return dense(dense(z, 3), 1)


def test_variable_names_as_tf1s(graph):
    x = ds.placeholder(ds.float32, (None, 4))
    net = ds.make_template("net", two_layers)
    net(x)
    net(x)
    ds.make_template("net", two_layers)(x)               # another template: net_1
    early = ds.make_template("net", two_layers, create_scope_now_=True)
    with ds.variable_scope("elsewhere"):                 # its scope was fixed at creation
        early(x)
        early(x)
    ds.make_template("ignored", two_layers, unique_name_="given")(x)
    assert [v.name for v in ds.global_variables()] == [
        "net/dense/kernel:0", "net/dense_1/kernel:0", "net_1/dense/kernel:0",
        "net_1/dense_1/kernel:0", "net_2/dense/kernel:0", "net_2/dense_1/kernel:0",
        "given/dense/kernel:0", "given/dense_1/kernel:0"]
    assert net.variable_scope_name == "net" and early.variable_scope_name == "net_2"
    assert [v.name for v in net.trainable_variables] == ["net/dense/kernel:0",
                                                         "net/dense_1/kernel:0"]
    assert net.variables == net.global_variables == net.trainable_variables
    assert net.non_trainable_variables == [] and net.local_variables == []


def test_calls_share_values_and_kwargs_are_bound(graph, rng):
    x = ds.placeholder(ds.float32, (None, 2))

    def affine(z, scale):
        w = ds.get_variable("w", (2, 2))
        b = ds.get_variable("b", (2,), initializer=ds.constant_initializer(0.5))
        return scale * (ds.matmul(z, w) + b)

    layer = ds.make_template("affine", affine, scale=3.0)
    assert layer.name == "affine" and layer.variable_scope is None
    first, second = layer(x), layer(x + 1.0)
    assert len(ds.trainable_variables()) == 2
    feed = rng.normal(size=(4, 2)).astype(np.float32)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        a, b, w = sess.run([first, second, layer.trainable_variables[0]], {x: feed})
    np.testing.assert_allclose(a, 3.0 * (feed @ w + 0.5), rtol=1e-5)
    np.testing.assert_allclose(b, 3.0 * ((feed + 1.0) @ w + 0.5), rtol=1e-5)


def test_layers_inside_a_template_are_shared(graph):
    x = ds.placeholder(ds.float32, (None, 3))
    model = ds.make_template("model", lambda z: ds.layers.Dense(2)(ds.layers.dense(z, 4)))
    model(x)
    model(x)
    assert [v.name for v in ds.global_variables()] == [
        "model/dense/kernel:0", "model/dense/bias:0", "model/dense_1/kernel:0",
        "model/dense_1/bias:0"]


def test_a_new_trainable_variable_on_a_later_call_is_an_error(graph):
    x = ds.placeholder(ds.float32, ())
    bad = ds.make_template("bad", lambda z: z * ds.Variable(1.0))
    bad(x)
    with pytest.raises(ValueError, match="Trainable variable created when calling a "
                                         "template after the first time"):
        bad(x)
    quiet = ds.make_template("quiet", lambda z: z * ds.Variable(1.0, trainable=False))
    quiet(x)
    quiet(x)                                  # TF1 only logs for an untrainable one


def test_arguments_refused():
    with pytest.raises(ValueError, match="name cannot be None"):
        ds.make_template(None, two_layers)


def test_a_custom_getter_sees_every_variable_of_every_call():
    seen = []

    def doubled(getter, name, *args, **kwargs):
        seen.append(name)
        return 2.0 * getter(name, *args, **kwargs)
    scale = ds.make_template("scale", lambda z: z * ds.get_variable(
        "s", [], initializer=ds.ones_initializer()), custom_getter_=doubled)
    x = ds.constant(3.0)
    first, second = scale(x), scale(x)
    assert seen == ["scale/s", "scale/s"] and len(ds.global_variables()) == 1
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        assert sess.run([first, second]) == [6.0, 6.0]


def test_each_call_builds_its_ops_in_a_new_name_scope_as_tf1(graph):
    # op names TF 2.21's compat.v1 printed for the same calls: every call re-enters the
    # template's variable scope, opening a name scope of its name where it is called;
    # create_scope_now_ opens none at creation, so the first call is still under "T/"
    x = ds.zeros([2, 3])
    fc = lambda v: ds.layers.dense(v, 2, name="fc")  # noqa: E731
    early = ds.make_template("T", fc, create_scope_now_=True)
    names = [early(x).name, early(x).name]
    with ds.name_scope("outer"):
        late = ds.make_template("U", fc)
        names += [late(x).name, late(x).name]
    names.append(late(x).name)
    assert names == ["T/fc/BiasAdd:0", "T_1/fc/BiasAdd:0", "outer/U/fc/BiasAdd:0",
                     "outer/U_1/fc/BiasAdd:0", "U/fc/BiasAdd:0"]
    assert [v.op.name for v in ds.global_variables()] == ["T/fc/kernel", "T/fc/bias",
                                                          "U/fc/kernel", "U/fc/bias"]
