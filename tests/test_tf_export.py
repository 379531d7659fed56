"""GraphDefs in TensorFlow's form (``devsession/tf_export.py``, and the frozen graphs of
``ds.graph_util.convert_variables_to_constants``), checked without TensorFlow:

* every node against TF's op signatures (``devsession/tf_op_signatures.json``, generated
  from TF's op registry): its attrs TF requires are there, of the right kind, with dtypes
  TF's op takes, and its input count is TF's;
* against what TensorFlow did once (``tests/data/tf_export/``, recorded by
  ``tests/data/make_tf_export.py``): today's export of each model is the GraphDef TF
  imported, node by node, and devsession computes what TF computed from it;
* the export imports back into devsession and computes what the model computed;
* what TF cannot read is ``UnimplementedError`` naming the node.
"""

from __future__ import annotations

import json
import logging
import os

import numpy as np
import pytest
from google.protobuf import text_format

import devsession as ds
from devsession.proto import graph_pb2
from devsession.tf_export import SIGNATURES_FILE, tf_signature, tf_version, to_tf_graph_def
from tf_export_cases import CASES, frozen, run_devsession

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_export")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

with open(os.path.join(DATA, "manifest.json")) as _f:
    MANIFEST = json.load(_f)

# The AttrValue field holding each kind of TF attr.
FIELDS = {"type": "type", "int": "i", "float": "f", "bool": "b", "string": "s",
          "shape": "shape", "tensor": "tensor", "func": "func"}


def tf_node_problems(node) -> list:
    """What TensorFlow's importer would refuse in ``node`` (a NodeDef), by TF's op
    signature: written independently of tf_export.py's own checks."""
    sig = tf_signature(node.op)
    if sig is None:
        return [f"TF has no op {node.op}"]
    problems = []
    for key, spec in sig["attrs"].items():
        if key not in node.attr:
            if "default" not in spec:
                problems.append(f"missing attr {key}")
            continue
        value, kind = node.attr[key], spec["type"]
        if kind.startswith("list("):
            filled = {field.name for field, _ in value.list.ListFields()}
            if value.WhichOneof("value") != "list" or not filled <= {FIELDS[kind[5:-1]]}:
                problems.append(f"attr {key} is not a {kind}")
            elif "minimum" in spec and len(getattr(value.list, FIELDS[kind[5:-1]])) \
                    < spec["minimum"]:
                problems.append(f"attr {key} has fewer than {spec['minimum']} values")
        elif value.WhichOneof("value") != FIELDS[kind]:
            problems.append(f"attr {key} is not a {kind}")
        elif kind == "type" and "allowed" in spec and \
                ds.as_dtype(value.type).name not in spec["allowed"]:
            problems.append(f"attr {key} is {ds.as_dtype(value.type).name}, not allowed")
        elif kind == "int" and value.i < spec.get("minimum", value.i):
            problems.append(f"attr {key} is below its minimum")
    problems += [f"attr {key} is not TF's" for key in node.attr
                 if not key.startswith("_") and key not in sig["attrs"]]
    if not problems:
        want = 0
        for arg in sig["inputs"]:
            if "number_attr" in arg:
                want += node.attr[arg["number_attr"]].i
            elif "type_list_attr" in arg:
                want += len(node.attr[arg["type_list_attr"]].list.type)
            else:
                want += 1
        got = sum(not text.startswith("^") for text in node.input)
        if got != want:
            problems.append(f"{got} inputs, TF's {node.op} takes {want}")
    return problems


def assert_tf_readable(graph_def) -> None:
    problems = {node.name: tf_node_problems(node) for node in graph_def.node}
    assert not {name: p for name, p in problems.items() if p}
    names = [node.name for node in graph_def.node]
    assert len(names) == len(set(names))
    assert graph_def.versions.producer > 0


def feeds_of(case) -> dict:
    return {f"{k}:0": v for k, v in case.feeds.items()}


# --- the signature table --------------------------------------------------------------------

def test_the_table_is_tfs_and_is_installed_with_the_package():
    assert tf_version() == MANIFEST["tensorflow_version"]
    sum_ = tf_signature("Sum")
    assert [arg["name"] for arg in sum_["inputs"]] == ["input", "reduction_indices"]
    assert sum_["attrs"]["keep_dims"] == {"type": "bool", "default": False}
    assert "default" not in sum_["attrs"]["T"] and sum_["attrs"]["Tidx"]["default"] == "int32"
    assert tf_signature("ConcatV2")["attrs"]["N"]["minimum"] == 2
    assert tf_signature("_MatMulBias") is None and tf_signature("MakeDatasetIterator") is None
    tomllib = pytest.importorskip("tomllib", reason="Python < 3.11 has no tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        package_data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    assert os.path.basename(SIGNATURES_FILE) in package_data["devsession"]
    assert os.path.dirname(SIGNATURES_FILE) == os.path.dirname(ds.__file__)


# --- (a) every node fits TF's signature -------------------------------------------------------

@pytest.mark.parametrize("name", CASES)
def test_every_node_of_an_exported_model_fits_tfs_signature(name):
    _, _, graph_def = frozen(name)
    assert_tf_readable(graph_def)


def test_every_op_tf_imported_still_exports_and_fits_its_signature():
    """The graph of every registered op (test_graph_def.py): each node TF can read
    exports to a NodeDef that fits TF's signature; the op types whose export TensorFlow
    imported when the data was recorded still export."""
    from devsession.tf_export import _Exporter, _Node
    from test_graph_def import build_every_op_graph

    ops = build_every_op_graph().get_operations()
    exporter, exported = _Exporter({op.name for op in ops}), set()
    for op in ops:
        size = len(exporter.out.node)
        try:
            exporter.export(_Node.of(op))
        except ds.errors.UnimplementedError as e:
            assert e.node_name == op.name
            continue
        exported.add(op.type)
        for node in exporter.out.node[size:]:
            assert not tf_node_problems(node), (op.name, tf_node_problems(node))
    assert set(MANIFEST["every_op_types"]) <= exported


def test_the_checker_sees_a_missing_type_attr():
    node = graph_pb2.NodeDef(name="r", op="Relu", input=["x"])
    assert tf_node_problems(node) == ["missing attr T"]
    node.attr["T"].type = ds.float32.enum
    assert tf_node_problems(node) == []
    node.input.append("y")
    assert tf_node_problems(node) == ["2 inputs, TF's Relu takes 1"]


# --- (b) what TensorFlow imported and ran ------------------------------------------------------

@pytest.mark.parametrize("name", CASES)
def test_the_export_is_the_graph_def_tensorflow_ran(name):
    """A change in the export must be run through TensorFlow again
    (tests/data/make_tf_export.py) before this passes."""
    _, _, graph_def = frozen(name)
    recorded = ds.read_graph_def(os.path.join(DATA, f"{name}.pb"))
    assert [node.name for node in graph_def.node] == [node.name for node in recorded.node]
    for mine, theirs in zip(graph_def.node, recorded.node):
        assert mine == theirs, (text_format.MessageToString(mine),
                                text_format.MessageToString(theirs))
    assert graph_def == recorded


@pytest.mark.parametrize("name", CASES)
def test_devsession_computes_what_tensorflow_computed_from_the_export(name):
    graph, case, _ = frozen(name)
    data = np.load(os.path.join(DATA, f"{name}.npz"))
    for key, value in case.feeds.items():
        np.testing.assert_array_equal(data[f"feed:{key}"], value)
    assert [k[6:] for k in data if k.startswith("fetch:")] == case.outputs
    for output, ours in zip(case.outputs, run_devsession(graph, case)):
        theirs = data[f"fetch:{output}"]
        assert np.asarray(ours).dtype == theirs.dtype and np.shape(ours) == theirs.shape
        if theirs.dtype.kind in "fc":
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=output)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=output)


def test_the_recorded_models_hold_the_rewritten_forms():
    """The recorded graphs hold what TF's forms need: Consts where devsession has attrs."""
    nodes = {node.name: node for node in ds.read_graph_def(
        os.path.join(DATA, "tensor_ops.pb")).node}
    assert nodes["Sum"].input[1] == "Sum/reduction_indices"
    assert nodes["Sum"].attr["keep_dims"].b is False and nodes["Sum"].attr["Tidx"].type == \
        ds.int32.enum
    assert [nodes[f"Sum_1/{n}"].op for n in ("Rank", "range")] == ["Rank", "Range"]
    assert nodes["concat_1"].attr["N"].i == 2 and nodes["concat_2"].op == "Identity"
    assert nodes["Softmax_1"].op == "Transpose"
    assert nodes["random_uniform"].op == "AddV2"
    assert nodes["random_uniform/RandomUniform"].op == "RandomUniform"
    assert list(nodes["random_uniform_2"].input)[0] == "random_uniform_2/shape"
    assert nodes["Assert/data_0"].attr["value"].tensor.string_val == [b"x must be finite"]
    assert nodes["v/read_1"].op == "Identity"         # devsession's _ReadVariable


# --- (c) the TF form imports back into devsession ----------------------------------------------

@pytest.mark.parametrize("name", CASES)
def test_the_export_imports_back_and_computes_the_same(name):
    graph, case, graph_def = frozen(name)
    want = run_devsession(graph, case)
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph_def.SerializeToString(), name="")
    with ds.Session(graph=imported) as sess:             # nothing to initialize
        got = sess.run(case.outputs, feeds_of(case))
    for output, a, b in zip(case.outputs, want, got):
        assert np.asarray(a).dtype == np.asarray(b).dtype, output
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, err_msg=output)


def test_a_graph_def_exports_as_its_graph_does(graph):
    x = ds.placeholder(ds.float32, (None, 3), name="x")
    ds.reduce_mean(ds.transpose(x), axis=[0], keepdims=True, name="m")
    from_graph = to_tf_graph_def(graph)
    assert to_tf_graph_def(graph.as_graph_def()) == from_graph
    assert to_tf_graph_def(graph.as_graph_def().SerializeToString()) == from_graph
    assert graph.as_graph_def().node[-1].attr["axis"].list.i == [0]   # devsession's own form
    nodes = {node.name: node for node in from_graph.node}
    assert [n.name for n in from_graph.node] == ["x", "transpose/perm", "transpose",
                                                  "m/reduction_indices", "m"]
    assert nodes["m"].attr["keep_dims"].b is True and "axis" not in nodes["m"].attr


def test_helper_consts_get_names_the_graph_does_not_hold(graph):
    ds.constant([0], name="s/reduction_indices")
    ds.constant(1, name="s/reduction_indices_1")
    ds.reduce_sum(ds.placeholder(ds.float32, (2,), name="x"), name="s")
    nodes = {node.name: node for node in to_tf_graph_def(graph).node}
    assert nodes["s"].input[1] == "s/reduction_indices_2"
    assert nodes["s/reduction_indices_2"].attr["value"].tensor.tensor_shape.dim[0].size == 1


def test_helper_consts_follow_the_device_and_control_inputs_stay(graph):
    x = ds.placeholder(ds.float32, (2, 3), name="x")
    first = ds.no_op(name="first")
    with ds.device("/cpu:0"), ds.control_dependencies([first]):
        ds.reshape(x, [3, 2], name="r")
    nodes = {node.name: node for node in to_tf_graph_def(graph).node}
    assert list(nodes["r"].input) == ["x", "r/shape", "^first"]
    assert nodes["r/shape"].device == nodes["r"].device != ""
    assert list(nodes["r/shape"].input) == []


def test_float_attrs_are_tfs_float32_field(graph):
    x = ds.placeholder(ds.float32, (1, 2, 2, 3), name="x")
    ds.nn.lrn(x, 2, alpha=0.1, beta=0.75, name="lrn")
    assert graph.as_graph_def().node[-1].attr["alpha"].WhichOneof("value") == "double_value"
    node = to_tf_graph_def(graph).node[-1]
    assert node.attr["alpha"].WhichOneof("value") == "f"
    assert node.attr["alpha"].f == np.float32(0.1)


# --- (d) what TF cannot read -----------------------------------------------------------------

def assert_unimplemented(graph, node: str, match: str) -> None:
    with pytest.raises(ds.errors.UnimplementedError, match=match) as raised:
        to_tf_graph_def(graph)
    assert raised.value.node_name == node and f"'{node}'" in str(raised.value)


def test_devsession_private_ops_are_refused(graph):
    ds.TensorArray(ds.float32, size=2).write(0, 1.0)   # devsession's own TensorArray ops
    with pytest.raises(ds.errors.UnimplementedError, match=r"\(_TensorArray\): an op "
                       r"private to devsession, which TensorFlow does not have") as raised:
        to_tf_graph_def(graph)
    assert graph.get_operation_by_name(raised.value.node_name).type == "_TensorArray"


def test_control_flow_exports_as_tfs_functional_ops_with_library_functions(graph):
    flag = ds.placeholder(ds.bool, (), name="flag")
    x = ds.placeholder(ds.float32, (3,), name="x")
    scale = x * 3.0                                   # captured by the loop's body
    ds.cond(flag, lambda: (x * 2.0, x + 1.0), lambda: (x, x - 1.0), name="choose")
    ds.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * scale), [0, x], name="loop")
    graph_def = to_tf_graph_def(graph)
    nodes = {node.name: node for node in graph_def.node}
    functions = {f.signature.name: f for f in graph_def.library.function}
    choose, loop = nodes["choose"], nodes["loop"]
    assert choose.op == "StatelessIf" and loop.op == "StatelessWhile"
    then = functions[choose.attr["then_branch"].func.name]
    assert [a.name for a in then.signature.input_arg] == ["arg0"]       # x, captured
    assert len(then.signature.output_arg) == 2 == len(choose.attr["Tout"].list.type)
    # the loop carries the captured tensor as a third loop variable its body returns
    body = functions[loop.attr["body"].func.name]
    assert len(loop.input) == 3 == len(loop.attr["T"].list.type)
    assert len(body.signature.input_arg) == 3 == len(body.signature.output_arg)
    assert body.ret["output2"] == "arg2"
    reads = [t for n in body.node_def for t in n.input]
    assert all(t.startswith("arg") or t.count(":") == 2 for t in reads), reads


def test_a_loop_recording_its_draws_is_refused(graph):
    ds.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + ds.random_uniform([])),
                  [0, ds.placeholder(ds.float32, (), name="x")], name="noisy")
    assert_unimplemented(graph, "noisy", r"records the random values it draws")


def test_a_branch_assigning_a_variable_is_refused(graph):
    v = ds.Variable(np.float32(1.0), name="v")
    ds.cond(ds.placeholder(ds.bool, (), name="flag"), lambda: ds.assign_add(v, 1.0),
            lambda: ds.identity(v), name="bump")
    assert_unimplemented(graph, "bump", r"assigns the variable 'v'")


def test_an_op_tensorflow_lacks_is_refused(graph):
    iterator = ds.data.Dataset.range(3).make_one_shot_iterator()
    iterator.get_next(name="next")
    with pytest.raises(ds.errors.UnimplementedError,
                       match=rf"TensorFlow {tf_version()} has no op of this type"):
        to_tf_graph_def(graph)


def test_an_op_newer_than_the_table_says_how_to_add_it(graph, monkeypatch):
    from devsession.tf_signatures import signature_table

    monkeypatch.delitem(signature_table()["ops"], "Relu")
    ds.nn.relu(ds.placeholder(ds.float32, (3,), name="x"), name="r")
    assert_unimplemented(graph, "r", r"newer than TensorFlow's op signatures.*"
                                     r"tools/make_tf_op_signatures\.py")


def test_a_dtype_tensorflows_op_does_not_take_is_refused(graph):
    x = ds.placeholder(ds.uint8, (3,), name="x")
    ds.pow(x, x, name="a")
    assert_unimplemented(graph, "a", r"TensorFlow's Pow does not take uint8 for attr 'T'")


def test_an_attr_tensorflows_op_lacks_is_refused(graph):
    graph.create_op("Relu", [ds.placeholder(ds.float32, (3,), name="x")], {"bogus": 1},
                    name="r")
    assert_unimplemented(graph, "r", r"attr 'bogus'=1 has no counterpart in TensorFlow's Relu")


def test_a_softmax_over_an_inner_axis_of_unknown_rank_is_refused(graph):
    ds.nn.softmax(ds.placeholder(ds.float32, None, name="x"), axis=0, name="sm")
    assert_unimplemented(graph, "sm", "works on the last axis")


def test_freezing_what_tf_cannot_read_keeps_devsessions_form(graph, caplog):
    x = ds.placeholder(ds.float32, (None,), name="x")
    w = ds.Variable(2.0, name="w")
    # through devsession's own TensorArray ops, which TF's form has no counterpart for
    ds.identity(ds.TensorArray(ds.float32, size=1).write(0, x * w).read(0), name="out")
    with ds.Session() as sess, caplog.at_level(logging.WARNING, "devsession.graph_util"):
        sess.run(ds.global_variables_initializer())
        result = ds.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(),
                                                              ["out"])
    assert "TensorFlow cannot import" in caplog.text and "_TensorArray" in caplog.text
    assert {node.name: node.op for node in result.node}["w"] == "Const"
    assert not any("T" in node.attr for node in result.node if node.op == "Identity")
    with ds.Graph().as_default(), ds.Session() as sess:
        ds.import_graph_def(result, name="")
        np.testing.assert_array_equal(sess.run("out:0", {"x:0": [1.5, -1.0]}), [3.0, -2.0])


def test_freezing_a_graph_def_tensorflow_wrote_keeps_its_form():
    graph_def = ds.read_graph_def(os.path.join(DATA, "..", "tf_frozen", "mlp.pb"))
    assert graph_def.versions.producer > 0
    with ds.Graph().as_default() as graph, ds.Session() as sess:
        ds.import_graph_def(graph_def, name="")
        result = ds.graph_util.convert_variables_to_constants(sess, graph_def, ["probs"])
    assert result == ds.graph_util.extract_sub_graph(graph_def, ["probs"])
    assert graph.as_graph_def() != result                   # what devsession would write
