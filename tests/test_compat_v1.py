"""A TF1 script written for TF2's ``tensorflow.compat.v1`` runs with only its import
changed: ``disable_v2_behavior``, ``tf.compat.v1.*``, ``make_template``, the layer
classes, ``tf.initializers``, and ``tf.graph_util`` freezing what it trained into a
GraphDef that imports back and computes the same.  Then ``tf.compat``'s helpers and the
behaviour switches one by one (initializers, graph_util, templates and layer classes
have their own files)."""

from __future__ import annotations

import importlib
import pathlib

import numpy as np
import pytest

import devsession as ds
from devsession.unsupported import UnsupportedTF1Error


# --- the script -----------------------------------------------------------------------------

def blobs(rng, n=200):
    """Two Gaussian blobs in 2-D, labels 0 and 1."""
    labels = rng.integers(0, 2, n)
    points = rng.normal(0.0, 0.6, (n, 2)) + np.where(labels[:, None] == 1, 1.5, -1.5)
    return points.astype(np.float32), labels.astype(np.int32)


def train_and_freeze(tf, points, labels, steps=60):
    """What the ported script does, every TF1 name through ``tf``; returns the first and
    last losses, the trained probabilities and the frozen GraphDef."""
    tf.disable_v2_behavior()
    tf.disable_eager_execution()
    assert not tf.executing_eagerly()
    x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
    y = tf.compat.v1.placeholder(tf.int32, [None], name="y")

    def classifier(inputs):
        hidden = tf.layers.Dense(16, activation=tf.nn.relu,
                                 kernel_initializer=tf.initializers.glorot_uniform(seed=1))
        out = tf.layers.Dense(2, kernel_initializer=tf.initializers.glorot_uniform(seed=2))
        return out(hidden(inputs))

    model = tf.make_template("model", classifier)
    logits = model(x)
    probs = tf.nn.softmax(model(x), name="probs")        # the same variables again
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    train = tf.compat.v1.train.AdamOptimizer(0.05).minimize(loss)
    assert [v.name for v in tf.trainable_variables()] == [
        "model/dense/kernel:0", "model/dense/bias:0", "model/dense_1/kernel:0",
        "model/dense_1/bias:0"]
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        losses = [sess.run([loss, train], {x: points, y: labels})[0] for _ in range(steps)]
        trained = sess.run(probs, {x: points})
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, sess.graph.as_graph_def(), ["probs"])
    return losses[0], losses[-1], trained, frozen


@pytest.mark.parametrize("spelling", ["import devsession as tf",
                                      "import devsession.compat.v1 as tf",
                                      "from devsession.compat import v1 as tf"])
def test_a_compat_v1_script_trains_freezes_and_reimports(spelling, graph, rng):
    namespace: dict = {}
    exec(spelling, namespace)
    tf = namespace["tf"]
    assert tf is ds
    points, labels = blobs(rng)
    first, last, trained, frozen = train_and_freeze(tf, points, labels)
    assert last < 0.3 * first
    assert ((trained[:, 1] > 0.5) == (labels == 1)).mean() > 0.95

    ops = {node.name: node.op for node in frozen.node}
    assert "VariableV2" not in ops.values() and "Assign" not in ops.values()
    assert not any("Adam" in name or "gradients" in name for name in ops)
    assert ops["model/dense/kernel"] == "Const" and ops["probs"] == "Softmax"
    with ds.Graph().as_default():
        ds.import_graph_def(frozen.SerializeToString(), name="")
        with ds.Session() as sess:                  # nothing to initialize
            again = sess.run("probs:0", {"x:0": points})
    np.testing.assert_allclose(again, trained, rtol=1e-6, atol=1e-7)


# --- tf.compat ------------------------------------------------------------------------------

def test_compat_v1_is_devsession_however_it_is_imported():
    assert ds.compat.v1 is ds
    assert importlib.import_module("devsession.compat.v1") is ds
    assert ds.compat.v1.nn.relu is ds.nn.relu
    assert ds.compat.v1.train.AdamOptimizer is ds.train.AdamOptimizer
    assert ds.compat.v1.placeholder is ds.placeholder
    assert ds.compat.v1.compat.v1 is ds


def test_compat_v2_and_other_names_are_named_as_unsupported():
    with pytest.raises(UnsupportedTF1Error, match=r"^tf\.compat\.v2 is not supported by "
                                                  r"devsession: .*TF1's API"):
        ds.compat.v2
    with pytest.raises(UnsupportedTF1Error, match=r"^tf\.compat\.renames is not supported "
                                                  r"by devsession yet"):
        ds.compat.renames
    assert not hasattr(ds.compat, "v2")


def test_as_bytes_as_text_as_str():
    assert ds.compat.as_bytes("héllo") == "héllo".encode("utf-8")
    assert ds.compat.as_bytes("héllo", encoding="latin-1") == b"h\xe9llo"
    assert ds.compat.as_bytes(bytearray(b"ab")) == b"ab"
    assert type(ds.compat.as_bytes(bytearray(b"ab"))) is bytes
    assert ds.compat.as_bytes(b"\xff") == b"\xff"
    assert ds.compat.as_text(b"h\xc3\xa9") == "hé"
    assert ds.compat.as_text(b"h\xe9", "latin-1") == "hé"
    assert ds.compat.as_str is ds.compat.as_text
    assert ds.compat.as_str("x") == "x"
    for convert in (ds.compat.as_bytes, ds.compat.as_text):
        with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
            convert(3)
    with pytest.raises(LookupError):
        ds.compat.as_bytes("x", encoding="no-such-codec")
    with pytest.raises(UnicodeDecodeError):
        ds.compat.as_text(b"\xff")


def test_as_str_any_and_paths():
    assert ds.compat.as_str_any(b"abc") == "abc"
    assert ds.compat.as_str_any(12) == "12"
    assert ds.compat.path_to_str(pathlib.PurePosixPath("a/./b")) == "a/b"
    assert ds.compat.path_to_str("a/./b") == "a/./b"        # not a PathLike: unchanged
    assert ds.compat.path_to_str(7) == 7
    assert ds.compat.path_to_bytes(pathlib.PurePosixPath("a/b")) == b"a/b"


def test_type_tuples():
    assert isinstance(np.int64(3), ds.compat.integral_types)
    assert isinstance(3, ds.compat.integral_types)
    assert not isinstance(3.0, ds.compat.integral_types)
    assert isinstance(np.float16(1), ds.compat.real_types)
    assert isinstance(np.int8(1), ds.compat.real_types)
    assert not isinstance(1j, ds.compat.real_types)
    assert isinstance(np.complex64(1j), ds.compat.complex_types)
    assert ds.compat.bytes_or_text_types == (bytes, str)


def test_dimension_value_and_at_index():
    x = ds.placeholder(ds.float32, (None, 3))
    assert ds.compat.dimension_value(x.shape[1]) == 3
    assert ds.compat.dimension_value(x.shape[0]) is None

    class Dimension:                       # TF1's form, read by .value
        value = 5
    assert ds.compat.dimension_value(Dimension()) == 5
    assert ds.compat.dimension_at_index(x.shape, 1) == 3
    assert ds.compat.dimension_at_index([4, None], 0) == 4
    assert ds.compat.dimension_at_index(ds.TensorShape(None), 2).value is None


def test_forward_compatible_and_its_horizon():
    assert ds.compat.forward_compatible(2019, 1, 1)
    assert not ds.compat.forward_compatible(2019, 10, 16)
    assert not ds.compat.forward_compatible(2030, 1, 1)
    with ds.compat.forward_compatibility_horizon(2031, 1, 1):
        assert ds.compat.forward_compatible(2030, 1, 1)
    assert not ds.compat.forward_compatible(2030, 1, 1)
    with pytest.raises(ValueError):
        ds.compat.forward_compatible(2019, 13, 1)


# --- the behaviour switches -----------------------------------------------------------------

NO_OPS = ["disable_v2_behavior", "disable_eager_execution", "disable_resource_variables",
          "disable_tensor_equality", "disable_v2_tensorshape", "enable_v2_tensorshape",
          "disable_control_flow_v2", "enable_control_flow_v2"]


@pytest.mark.parametrize("name", NO_OPS)
def test_switches_to_graph_mode_behaviour_change_nothing(name, graph):
    x = ds.placeholder(ds.float32, (None, 2))
    assert getattr(ds, name)() is None
    assert getattr(ds.compat.v1, name) is getattr(ds, name)
    assert graph.get_operations() == [x.op]
    assert isinstance(x.shape[1], int)              # shapes keep their form
    assert x != ds.identity(x) and len({x, x}) == 1  # tensors compare by identity


def test_queries_answer_as_graph_mode():
    assert ds.executing_eagerly() is False
    assert ds.executing_eagerly_outside_functions() is False
    assert ds.resource_variables_enabled() is False
    assert ds.control_flow_v2_enabled() is True


def test_control_flow_v2_enabled_tells_the_truth(graph):
    p = ds.placeholder(ds.bool, ())
    ds.cond(p, lambda: ds.constant(1.0), lambda: ds.constant(2.0))
    assert "StatelessIf" in {op.type for op in graph.get_operations()}


@pytest.mark.parametrize("name,why", [
    ("enable_eager_execution", "no eager execution"),
    ("enable_v2_behavior", "graph-mode behaviour only"),
    ("enable_resource_variables", "reference variables"),
    ("enable_tensor_equality", "compare by identity"),
])
def test_switches_to_tf2_behaviour_say_why_they_are_missing(name, why):
    assert not hasattr(ds, name)
    with pytest.raises(UnsupportedTF1Error) as info:
        getattr(ds.compat.v1, name)()
    message = str(info.value)
    assert message.startswith(f"tf.{name} is not supported by devsession: ")
    assert why in message and "yet" not in message
