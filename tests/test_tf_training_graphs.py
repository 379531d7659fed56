"""Training graphs TensorFlow wrote: its ``.meta`` (optimizer updates, gradient ops and
all) and checkpoint, resumed with ``import_meta_graph`` + ``restore`` + the ``train_op``
collection, give TensorFlow's losses and variables step by step, with TF1's reference
variables and with the resource variables TensorFlow 2 writes (``tf_resource_import.py``
maps them): models of get_variable and of tf.layers (TF's gradient ops, a batch of
unknown size, batch normalization's update ops, Adam, momentum, an embedding's sparse
update), whose imported initializers also draw TF's initial values.  Data:
tests/data/tf_training_meta, made by make_training_meta.py there.

The mapping itself is checked on small hand-written GraphDefs: what each resource op
becomes, that the result runs, and the errors for what does not map.
"""

import os

import numpy as np
import pytest

import devsession as ds
from devsession.proto import graph_pb2
from devsession.tensor_codec import array_to_proto
from devsession.tf_resource_import import map_resource_variables

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_training_meta")
KINDS = ("ref", "resource")
# <model>-<kind>: every directory make_training_meta.py wrote
RECORDED = sorted(d for d in os.listdir(DATA)
                  if os.path.isfile(os.path.join(DATA, d, "expected.npz")))


def _resume(directory, session, checkpoint="model"):
    """TF1's resume-training program on ``directory``'s .meta and checkpoint: (what TF
    computed, losses of each step, {variable name: value after them})."""
    expected = np.load(os.path.join(directory, "expected.npz"))
    prefix = os.path.join(directory, checkpoint)
    graph = ds.Graph()
    with graph.as_default():
        saver = ds.train.import_meta_graph(prefix + ".meta")
        (train,) = ds.get_collection("train_op")
        variables = ds.global_variables()
    sess = session(graph)
    saver.restore(sess, prefix)
    feed = {f"{k.split('/', 1)[1]}:0": expected[k] for k in expected.files
            if k.startswith("feed/")}
    losses = [sess.run(["loss:0", train], feed)[0] for _ in range(len(expected["losses"]))]
    return expected, losses, {v.op.name: sess.run(v) for v in variables}


@pytest.mark.parametrize("case", RECORDED)
def test_a_tensorflow_training_graph_resumes_with_tensorflows_steps(case, make_session):
    expected, losses, after = _resume(os.path.join(DATA, case), make_session)
    np.testing.assert_allclose(losses, expected["losses"], rtol=2e-5, atol=1e-6)
    names = {k.split("/", 1)[1] for k in expected.files if k.startswith("after/")}
    assert set(after) == names
    for name in sorted(names):
        np.testing.assert_allclose(after[name], expected[f"after/{name}"], rtol=2e-5,
                                   atol=2e-6, err_msg=name)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("model", ["layers_mlp_sgd", "layers_convnet_adam"])
def test_the_imported_initializers_draw_tensorflows_initial_values(model, kind):
    """tf.layers' glorot-uniform kernels come from TF's stateless random ops with fixed
    seeds: run without a restore, the imported initializers give the values TF's own
    run gave them, which it saved right after initializing."""
    prefix = os.path.join(DATA, f"{model}-{kind}", "model")
    graph = ds.Graph()
    with graph.as_default():
        ds.train.import_meta_graph(prefix + ".meta")
        ops = {op.type for op in graph.get_operations()}
        init = ds.global_variables_initializer()
    assert "StatelessRandomUniformV2" in ops
    with ds.Session(graph=graph) as sess:
        sess.run(init)
        values = {v.op.name: sess.run(v) for v in ds.global_variables()}
    saved = ds.train.load_checkpoint(prefix)
    assert set(values) == set(saved.get_variable_to_shape_map())
    for name, value in values.items():
        np.testing.assert_array_equal(value, saved.get_tensor(name), err_msg=name)


def test_a_resource_variable_savers_renamed_checkpoint_keys_are_followed(make_session):
    """TF's Saver restores a resource variable through an Identity of RestoreV2's
    output; the key it lists there, not the variable's name, is what is read."""
    expected, losses, _ = _resume(os.path.join(DATA, "regression_momentum-resource"),
                                  make_session, "renamed")
    np.testing.assert_allclose(losses, expected["losses"], rtol=2e-5, atol=1e-6)


def test_resource_variables_import_as_reference_ones_with_their_trainability():
    meta = os.path.join(DATA, "embedding_adam-resource", "model.meta")
    with ds.Graph().as_default() as graph:
        ds.train.import_meta_graph(meta)
        ops = {op.type for op in graph.get_operations()}
        assert {"VarHandleOp", "ReadVariableOp", "ResourceApplyAdam"}.isdisjoint(ops)
        assert {"VariableV2", "_ReadVariable", "ApplyAdam", "ScatterAdd"} <= ops
        assert sorted(v.op.name for v in ds.trainable_variables()) == ["b", "emb", "w", "w2"]
        assert "global_step" in {v.op.name for v in ds.global_variables()}


# --- the mapping, on hand-written GraphDefs -----------------------------------------------------

def _node(graph_def, name, op, inputs=(), **attrs):
    node = graph_def.node.add(name=name, op=op)
    node.input.extend(inputs)
    for key, value in attrs.items():
        if isinstance(value, np.ndarray):
            array_to_proto(value, node.attr[key].tensor)
        elif isinstance(value, bool):
            node.attr[key].b = value
        elif isinstance(value, int):
            node.attr[key].type = value
        elif isinstance(value, str):
            node.attr[key].s = value.encode()
        else:
            for size in value:
                node.attr[key].shape.dim.add(size=size)
    return node


FLOAT, INT32 = 1, 3     # TF's DataType enum values


def _resource_graph_def():
    """A resource variable ``v`` (3x2 float) with what TF writes around one: initializer,
    reads, assignments, a gather, a scatter, a gradient-descent update."""
    g = graph_pb2.GraphDef()
    _node(g, "v", "VarHandleOp", dtype=FLOAT, shape=(3, 2), shared_name="v", container="")
    _node(g, "init_value", "Const", value=np.arange(6, dtype=np.float32).reshape(3, 2),
          dtype=FLOAT)
    _node(g, "v/Assign", "AssignVariableOp", ["v", "init_value"], dtype=FLOAT)
    _node(g, "v/IsInitialized", "VarIsInitializedOp", ["v"])
    _node(g, "one", "Const", value=np.ones((3, 2), np.float32), dtype=FLOAT)
    _node(g, "add_one", "AssignAddVariableOp", ["v", "one"], dtype=FLOAT)
    _node(g, "read_after", "ReadVariableOp", ["v", "^add_one"], dtype=FLOAT)
    _node(g, "ids", "Const", value=np.array([2, 0], np.int32), dtype=INT32)
    _node(g, "rows", "ResourceGather", ["v", "ids"], dtype=FLOAT, Tindices=INT32)
    _node(g, "updates", "Const", value=np.full((2, 2), 10, np.float32), dtype=FLOAT)
    _node(g, "scatter", "ResourceScatterAdd", ["v", "ids", "updates"], dtype=FLOAT,
          Tindices=INT32)
    _node(g, "lr", "Const", value=np.array(0.5, np.float32), dtype=FLOAT)
    _node(g, "sgd", "ResourceApplyGradientDescent", ["v", "lr", "one"], T=FLOAT)
    return g


def test_each_resource_op_becomes_its_reference_twin():
    mapped = {n.name: n for n in map_resource_variables(_resource_graph_def()).node}
    assert {name: n.op for name, n in mapped.items() if n.op != "Const"} == {
        "v": "VariableV2", "v/Assign": "Assign", "v/IsInitialized": "IsVariableInitialized",
        "add_one": "AssignAdd", "read_after": "_ReadVariable", "rows": "GatherV2",
        "scatter": "ScatterAdd", "sgd": "ApplyGradientDescent"}
    assert list(mapped["rows"].input) == ["v", "ids", "rows/axis"]
    assert mapped["v/Assign"].attr["validate_shape"].b is False   # TF's resource default
    assert mapped["v"].attr["shared_name"].s == b"v"
    assert "dtype" not in mapped["scatter"].attr and "dtype" not in mapped["read_after"].attr


def test_a_graph_without_resource_variables_is_returned_as_it_is():
    g = graph_pb2.GraphDef()
    _node(g, "c", "Const", value=np.array(1, np.float32), dtype=FLOAT)
    assert map_resource_variables(g) is g


def test_the_mapped_graph_runs_as_tensorflow_runs_it():
    with ds.Graph().as_default() as graph:
        ds.import_graph_def(_resource_graph_def())
        with ds.Session(graph=graph) as sess:
            assert not sess.run("v/IsInitialized:0")
            sess.run("v/Assign")
            assert sess.run("v/IsInitialized:0")
            start = np.arange(6, dtype=np.float32).reshape(3, 2)
            np.testing.assert_array_equal(sess.run("read_after:0"), start + 1)
            np.testing.assert_array_equal(sess.run("rows:0"), (start + 1)[[2, 0]])
            sess.run("scatter")
            sess.run("sgd")
            expected = start + 1
            expected[[2, 0]] += 10
            np.testing.assert_array_equal(sess.run("v:0"), expected - 0.5)


def test_a_handle_read_by_an_op_without_a_twin_is_unimplemented_naming_it():
    g = _resource_graph_def()
    _node(g, "handle_copy", "Identity", ["v"], T=20)
    with ds.Graph().as_default() as graph:
        with pytest.raises(ds.errors.UnimplementedError, match="'handle_copy'.*'v'"):
            ds.import_graph_def(g)
        assert graph.get_operations() == []


def test_a_resource_update_devsession_lacks_is_not_found_naming_it():
    g = _resource_graph_def()
    _node(g, "adamax", "ResourceApplyAdaMax", ["v", "v", "v", "lr", "lr", "lr", "lr", "lr",
                                                "one"], T=FLOAT)
    with ds.Graph().as_default():
        with pytest.raises(ds.errors.NotFoundError, match="ResourceApplyAdaMax"):
            ds.import_graph_def(g)


def test_every_result_of_a_function_reading_a_variable_is_renamed():
    """A function returning many reads of a variable it is passed: each read becomes an
    Identity, and every result names the Identity's output (the ret map is rewritten
    from a snapshot; rewriting it while iterating it skipped entries at random)."""
    g = _resource_graph_def()
    function = g.library.function.add()
    function.signature.name = "reads"
    function.signature.input_arg.add(name="handle", type=20)        # DT_RESOURCE
    for k in range(24):
        _node_in(function, f"read{k}", "ReadVariableOp", ["handle"], dtype=FLOAT)
        function.signature.output_arg.add(name=f"out{k}", type=FLOAT)
        function.ret[f"out{k}"] = f"read{k}:value:0"
    mapped = map_resource_variables(g).library.function[0]
    assert {n.op for n in mapped.node_def} == {"Identity"}
    assert dict(mapped.ret) == {f"out{k}": f"read{k}:output:0" for k in range(24)}


def _node_in(function, name, op, inputs, **attrs):
    node = function.node_def.add(name=name, op=op)
    node.input.extend(inputs)
    for key, value in attrs.items():
        node.attr[key].type = value
