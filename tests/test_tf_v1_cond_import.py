"""GraphDefs holding TF1's conditionals (Switch/Merge, what tf.cond builds under
``tf.disable_v2_behavior()``; made by tests/data/make_tf_v1_cond.py with TensorFlow 2.21)
import as devsession's If ops (devsession/tf_cond_import.py) and compute TF's values;
what does not import yet is refused naming the node."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.function_graph import function_nodes
from devsession.proto import graph_pb2
from tf_import_cases import assert_computes_cases, assert_computes_modes, assert_refused, \
    assert_round_trips, imported, recorded_cases
from tf_recorded import DATA

IF_TYPES = ("If", "StatelessIf")


def test_a_frozen_mlp_whose_batch_norm_and_dropout_follow_is_training_computes_tfs_values():
    data = np.load(f"{DATA}/tf_v1_cond_mlp.npz")
    graph = imported("tf_v1_cond_mlp", name="")
    types = {op.type for op in graph.get_operations()}
    assert not types & {"Switch", "Merge"}
    assert graph.get_operation_by_name("bn/If").type in IF_TYPES
    assert graph.get_operation_by_name("dropout/If").type in IF_TYPES
    assert graph.get_operation_by_name("bn/Merge").type == "Identity"   # TF's name resolves
    assert_computes_modes(graph, data, ["out:0", "logits:0", "bn/Merge:0", "bn/Merge_1:0"])


def test_conds_of_every_shape_compute_tfs_values_for_every_predicate():
    graph = imported("tf_v1_conds", name="")
    cases = recorded_cases("tf_v1_conds")
    assert len(cases) == 8 and len(cases[0][1]) == 12
    assert_computes_cases(graph, cases, ("p", "q"), rtol=1e-6)


def test_the_ifs_have_the_conds_structure():
    graph = imported("tf_v1_conds", name="")
    ifs = {op.name for op in graph.get_operations() if op.type in IF_TYPES}
    assert ifs == {f"{c}/If" for c in ("several", "nested", "inner_pred", "passthrough",
                                       "constants", "only_constants", "data_pred", "first",
                                       "in_a_row", "int_branch", "by_hand")}
    several = graph.get_operation_by_name("several/If")
    assert len(several.outputs) == 2         # one If for both outputs of one tf.cond
    for outer in ("nested/If", "inner_pred/If"):     # the inner cond is an If in a branch
        then_types = [t for _, t in function_nodes(graph.get_operation_by_name(outer)
                                                   .attrs["then_branch"])]
        else_types = [t for _, t in function_nodes(graph.get_operation_by_name(outer)
                                                   .attrs["else_branch"])]
        assert set(then_types) & set(IF_TYPES) and not set(else_types) & set(IF_TYPES)
    # value_index is read (a Cast), so that Merge is an IdentityN of value and index
    by_hand = graph.get_operation_by_name("by_hand/merge")
    assert by_hand.type == "IdentityN" and by_hand.outputs[1].dtype == ds.int32
    # in_a_row's cond reads first's result: two Ifs on one predicate, in order
    in_a_row = graph.get_operation_by_name("in_a_row/If")
    assert "first/Merge" in {t.op.name for t in in_a_row.inputs[1:]}


def test_an_imported_cond_round_trips_through_devsessions_format_and_takes_a_prefix():
    assert_round_trips("tf_v1_conds", 1, ["nested/Merge:0", "several/Merge_1:0", "add:0"],
                       rtol=1e-6)


def test_input_map_reaches_into_the_branches():
    feeds, want = recorded_cases("tf_v1_conds")[0]
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [3, 4], name="mine")
        out, = ds.import_graph_def(ds.read_graph_def(f"{DATA}/tf_v1_conds.pb"), name="tf",
                                   input_map={"x:0": x}, return_elements=["nested/Merge:0"])
    with ds.Session(graph=graph) as sess:
        got = sess.run(out, {x: feeds["x:0"], "tf/p:0": feeds["p:0"], "tf/q:0": feeds["q:0"]})
    np.testing.assert_allclose(got, want["nested/Merge:0"], rtol=1e-6)


def test_a_tf1_program_whose_batch_norm_assigns_in_conds_resumes_with_tfs_values():
    """TF1's tf.layers.batch_normalization(training=<placeholder>) saved by a program
    (tests/data/make_tf_v1_cond_assign.py): its moving averages are assigned inside conds
    through RefSwitches of the variables; imported from the .meta and restored, each
    training-mode run with the update ops updates them as TensorFlow did."""
    directory = f"{DATA}/tf_v1_cond_batch_norm"
    want = np.load(f"{directory}/expected.npz")
    graph = ds.Graph()
    with graph.as_default():
        saver = ds.train.import_meta_graph(f"{directory}/model.meta")
        updates = ds.get_collection(ds.GraphKeys.UPDATE_OPS)
    with ds.Session(graph=graph) as sess:
        saver.restore(sess, f"{directory}/model")

        def run(mode):
            return sess.run(["y:0", updates], {"x:0": want["feed_x"], "training:0": mode})[0]
        np.testing.assert_allclose(run(False), want["infer_before"], rtol=1e-6)
        for k in range(3):
            np.testing.assert_allclose(run(True), want[f"train_{k}"], rtol=1e-5, atol=1e-6)
            for stat in ("moving_mean", "moving_variance"):
                np.testing.assert_allclose(sess.run(f"batch_normalization/{stat}:0"),
                                           want[f"{stat}_{k}"], rtol=1e-6, err_msg=stat)
        np.testing.assert_allclose(run(False), want["infer_after"], rtol=1e-5)
        assert len(ds.global_variables()) == 4        # the branches' twins are not variables


def _graph_def_with(*nodes) -> graph_pb2.GraphDef:
    with ds.Graph().as_default() as graph:
        ds.placeholder(ds.float32, [2], name="x")
        ds.placeholder(ds.bool, [], name="p")
    graph_def = graph.as_graph_def()
    for name, op, inputs in nodes:
        graph_def.node.add(name=name, op=op, input=inputs)
    return graph_def


@pytest.mark.parametrize("nodes, node, message", [
    ([("sw", "RefSwitch", ["x", "p"])], "sw", "over a reference other than a variable's"),
    ([("sw", "RefMerge", ["x", "x"])], "sw", "over a reference other than a variable's"),
    ([("sw", "Switch", ["p", "p"]), ("check", "Assert", ["sw:1", "sw:1"])], "check",
     "no Merge joins: a dead end with side effects"),
    ([("m", "Merge", ["x", "x"])], "m", "does not join the two branches"),
    ([("sw", "Switch", ["x", "p"]), ("t", "Identity", ["sw:1"]), ("m", "Merge", ["sw:0", "t"]),
      ("grad", "Mul", ["m", "sw:1"])], "grad", "reads that cond's own output 'm'"),
    ([("sw", "Switch", ["x", "p"]), ("both", "AddV2", ["sw:0", "sw:1"])], "both",
     "two branches that never run together"),
])
def test_what_does_not_import_is_refused_naming_the_node(nodes, node, message):
    assert_refused(_graph_def_with(*nodes), node, message)


def test_a_switch_nobody_merges_without_effects_is_dropped():
    graph_def = _graph_def_with(("sw", "Switch", ["p", "p"]), ("pivot", "Identity", ["sw:1"]),
                                ("y", "Neg", ["x"]))
    graph = ds.Graph()
    ds.import_graph_def(graph_def, graph=graph)
    assert {op.name for op in graph.get_operations()} == {"x", "p", "y"}
