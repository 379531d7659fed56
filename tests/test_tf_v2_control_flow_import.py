"""GraphDefs TensorFlow 2 wrote in graph mode (``tf.compat.v1``, eager off: what a TF1
program run on TensorFlow 2 writes), whose ``tf.cond`` and ``tf.while_loop`` are control
flow v2 (If/While nodes running functions of the GraphDef's library), import as
devsession's If and While (devsession/tf_function_import.py) and compute TF's values.
Data: tests/data/make_tf_v2_control_flow.py, the models and cases of the TF1 recorders
built that way; what does not import is refused naming the node."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.proto import graph_pb2
from devsession.tf_function_import import functionalize_functions
from tf_import_cases import assert_computes_cases, assert_computes_modes, assert_round_trips, \
    body_types, imported, recorded_cases
from tf_recorded import DATA

IF_TYPES = ("If", "StatelessIf")
WHILE_TYPES = ("While", "StatelessWhile")


def _types(graph) -> set:
    return {op.type for op in graph.get_operations()}


def test_a_frozen_mlp_whose_batch_norm_and_dropout_follow_is_training_computes_tfs_values():
    data = np.load(f"{DATA}/tf_v2_cond_mlp.npz")
    graph = imported("tf_v2_cond_mlp", name="")
    assert graph.get_operation_by_name("bn").type in IF_TYPES
    assert graph.get_operation_by_name("dropout").type in IF_TYPES
    fetches = sorted({k.split(":", 1)[1] for k in data if k.startswith("train:")})
    assert "bn/Identity:0" in fetches     # tf.cond v2 names its outputs so
    assert_computes_modes(graph, data, fetches)


def test_conds_of_every_shape_compute_tfs_values_for_every_predicate():
    graph = imported("tf_v2_conds", name="")
    assert _types(graph) & set(IF_TYPES) and {"Switch", "Merge"}.isdisjoint(_types(graph))
    cases = recorded_cases("tf_v2_conds")
    assert len(cases) == 8 and len(cases[0][1]) == 12
    assert_computes_cases(graph, cases, ("p", "q"), rtol=1e-6)


def test_loops_of_every_shape_compute_tfs_values_for_every_feed():
    graph = imported("tf_v2_whiles", name="")
    cases = recorded_cases("tf_v2_whiles")
    assert len(cases) == 3 and len(cases[0][1]) == 9
    assert_computes_cases(graph, cases, ("n", "m"), rtol=1e-6)
    # a loop nested in a body, and a cond in a body, are devsession's ops inside it
    assert body_types(graph, "nested") & set(WHILE_TYPES)
    assert body_types(graph, "with_cond") & set(IF_TYPES)


def test_a_frozen_lstm_over_an_unknown_time_axis_computes_tfs_values():
    data = np.load(f"{DATA}/tf_v2_while_lstm.npz")
    graph = imported("tf_v2_while_lstm", name="")
    with ds.Session(graph=graph) as sess:
        for k in range(3):
            np.testing.assert_allclose(sess.run("probs:0", {"x:0": data[f"feed:x{k}"]}),
                                       data[f"fetch:x{k}"], rtol=1e-5, atol=1e-6)


def test_an_imported_v2_graph_round_trips_through_devsessions_format():
    assert_round_trips("tf_v2_conds", 1, ["nested/Identity:0", "several/Identity_1:0"],
                       rtol=1e-6)


# --- what does not import ---------------------------------------------------------------

def _graph_def(stem: str) -> graph_pb2.GraphDef:
    return ds.read_graph_def(f"{DATA}/{stem}.pb")


def _first(graph_def, types):
    return next(n for n in graph_def.node if n.op in types)


def test_a_branch_missing_from_the_library_is_refused_naming_the_node():
    graph_def = _graph_def("tf_v2_conds")
    node = _first(graph_def, IF_TYPES)
    node.attr["then_branch"].func.name = "no_such_function"
    with ds.Graph().as_default() as graph:
        with pytest.raises(ds.errors.UnimplementedError,
                           match=f"'{node.name}'.*'no_such_function'"):
            ds.import_graph_def(graph_def)
        assert graph.get_operations() == []


def test_function_calls_are_inlined_and_compute_tfs_values():
    """tf.functions called in a graph (a function calling another, one stepping a loop,
    one reading a variable passed in) are inlined under the call's name."""
    graph = imported("tf_v2_function_calls", name="")
    types = {op.type for op in graph.get_operations()}
    assert not types & {"PartitionedCall", "StatefulPartitionedCall"}
    cases = recorded_cases("tf_v2_function_calls")
    assert len(cases) == 2 and len(cases[0][1]) == 5
    assert_computes_cases(graph, cases, ("x",), rtol=1e-5, atol=1e-6, init="init")


def test_frozen_keras_recurrent_layers_compute_tfs_values():
    """Keras 2's LSTM and GRU loops push every intermediate, lists too, onto lists for a
    gradient the frozen graph does not hold; unread, those pushes are skipped."""
    graph = imported("tf_v2_keras_rnn", name="")
    assert_computes_cases(graph, recorded_cases("tf_v2_keras_rnn"), ("x",), rtol=1e-5,
                          atol=1e-6)


def test_a_call_of_a_function_missing_from_the_library_is_refused_naming_it():
    graph_def = _graph_def("tf_v2_conds")
    call = graph_def.node.add(name="call", op="StatefulPartitionedCall")
    call.attr["f"].func.name = "some_tf_function"
    with ds.Graph().as_default():
        with pytest.raises(ds.errors.UnimplementedError, match="'call'.*'some_tf_function'"):
            ds.import_graph_def(graph_def)


def test_a_loop_passing_the_wrong_number_of_tensors_is_invalid():
    graph_def = _graph_def("tf_v2_whiles")
    loop = _first(graph_def, WHILE_TYPES)
    loop.input.append(loop.input[0])
    with ds.Graph().as_default():
        with pytest.raises(ds.errors.InvalidArgumentError, match=f"'{loop.name}'.*takes"):
            ds.import_graph_def(graph_def)


def test_outputs_of_list_arguments_are_found_by_their_flat_index():
    """A function body reads ``split:output:2``: the third tensor of Split's one list
    output.  The LSTM's body splits its gates in four, so a wrong index would show in
    its values; here the rewritten input is checked directly."""
    graph_def = _graph_def("tf_v2_while_lstm")
    library = {f.signature.name: f for f in graph_def.library.function}
    reads = [t for f in library.values() for n in f.node_def for t in n.input
             if t.startswith("split:output:")]
    assert sorted(reads)[-1] == "split:output:3"
    _, plans, _ = functionalize_functions(graph_def)
    (plan,) = plans.values()
    inputs = {t for n in plan.body.graph_def.node for t in n.input if t.startswith("split:")}
    assert inputs == {"split:0", "split:1", "split:2", "split:3"}


def test_functions_reading_and_assigning_resource_variables_use_the_variables():
    """A graph before freezing: a While's body and an If's branch read resource variables
    (their handles passed in), and a second loop adds to a variable and reads it back
    each iteration; imported, the functions use devsession's variables themselves."""
    data = np.load(f"{DATA}/tf_v2_resource_loop.npz")
    graph = imported("tf_v2_resource_loop", name="")
    assert {"VariableV2"} <= _types(graph) and _types(graph) & set(WHILE_TYPES)
    with ds.Session(graph=graph) as sess:
        sess.run("init")
        y, counted, after = sess.run(["y:0", "counted:0", "counter_after:0"],
                                     {"x:0": data["feed:x"]})
    np.testing.assert_allclose(y, data["fetch:y"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(counted, data["fetch:counted"], rtol=1e-5)
    np.testing.assert_allclose(after, data["fetch:counter"], rtol=1e-5)


def test_a_loop_replacing_a_variables_handle_is_refused_naming_it():
    graph_def = _graph_def("tf_v2_resource_loop")
    loop = next(n for n in graph_def.node if n.op in WHILE_TYPES
                and 20 in n.attr["T"].list.type)           # DT_RESOURCE: a variable
    body = next(f for f in graph_def.library.function
                if f.signature.name == loop.attr["body"].func.name)
    k = list(loop.attr["T"].list.type).index(20)
    body.ret[body.signature.output_arg[k].name] = body.signature.input_arg[k - 1].name
    with ds.Graph().as_default():
        with pytest.raises(ds.errors.UnimplementedError, match=f"'{loop.name}'.*another "
                                                               f"variable"):
            ds.import_graph_def(graph_def)


def test_loops_over_tensor_lists_compute_tfs_values_for_every_feed():
    """map_fn, scan, a dynamic TensorArray written in a loop and read back, a nested
    map_fn, and a loop's gradient (its accumulators pushed and popped back): TF 2's
    TensorLists are devsession's TensorArrays (tf_tensor_list_import.py)."""
    graph = imported("tf_v2_tensor_lists", name="")
    cases = recorded_cases("tf_v2_tensor_lists")
    assert len(cases) == 3 and len(cases[0][1]) == 11
    assert_computes_cases(graph, cases, ("x",), rtol=1e-5, atol=1e-6)
    assert not {op.type for op in graph.get_operations()} & {"TensorListReserve", "_TFTensorList"}


def test_a_loop_passed_a_variant_that_is_no_tensor_list_is_refused_naming_it():
    graph_def = _graph_def("tf_v2_tensor_lists")
    loop = next(n for n in graph_def.node if n.op in WHILE_TYPES and 21 in n.attr["T"].list.type)
    position = list(loop.attr["T"].list.type).index(21)
    other = graph_def.node.add(name="not_a_list", op="Placeholder")
    other.attr["dtype"].type = 21
    loop.input[position] = other.name
    with ds.Graph().as_default():
        # the loop carries it as a tensor; its body's TensorList op is refused
        with pytest.raises(ds.errors.UnimplementedError,
                           match=r"\(TensorListSetItem\) takes .* does not follow"):
            ds.import_graph_def(graph_def)


# --- a GraphDef is untrusted input: malformed functions are refused, never a crash --------

def _function_of(graph_def, node, key):
    return next(f for f in graph_def.library.function
                if f.signature.name == node.attr[key].func.name)


def _recursing(graph_def, node, key):
    """``node``'s ``key`` function gets a copy of ``node`` itself inside."""
    function = _function_of(graph_def, node, key)
    inner = function.node_def.add()
    inner.CopyFrom(node)
    inner.name = "recursing"
    del inner.input[:]
    inner.input.extend(function.signature.input_arg[0].name for _ in node.input)


def _malformed_input(graph_def, node, key):
    function = next(f for f in graph_def.library.function if f.node_def)
    function.node_def[0].input.append("a:b:c:d")


def _result_without_ret(graph_def, node, key):
    function = _function_of(graph_def, node, key)
    del function.ret[function.signature.output_arg[0].name]


def _one_result_more(graph_def, node, key):
    node.attr["Tout" if key.endswith("branch") else "T"].list.type.append(1)


def _one_result_less(graph_def, node, key):
    function = _function_of(graph_def, node, key)
    del function.ret[function.signature.output_arg.pop().name]


MALFORMED = [
    ("tf_v2_conds", "then_branch", _recursing, "holds itself"),
    ("tf_v2_whiles", "body", _recursing, "holds itself"),
    ("tf_v2_conds", "then_branch", _malformed_input, "malformed input 'a:b:c:d'"),
    ("tf_v2_conds", "then_branch", _result_without_ret, "does not say which tensor"),
    ("tf_v2_conds", "then_branch", _one_result_more, r"returns 3 tensors \(Tout\)"),
    ("tf_v2_tensor_lists", "body", _one_result_more, "attr T lists"),
    ("tf_v2_tensor_lists", "body", _one_result_less, "must return its"),
]


@pytest.mark.parametrize("stem,key,mutate,message", MALFORMED,
                         ids=[f"{m[2].__name__}-{m[1]}" for m in MALFORMED])
def test_a_malformed_function_is_invalid_argument_naming_it(stem, key, mutate, message):
    graph_def = _graph_def(stem)
    types = IF_TYPES if key.endswith("branch") else WHILE_TYPES
    node = next(n for n in graph_def.node if n.op in types and
                (stem != "tf_v2_conds" or len(n.attr["Tout"].list.type) == 2))
    mutate(graph_def, node, key)
    with ds.Graph().as_default() as graph:
        with pytest.raises(ds.errors.InvalidArgumentError, match=message):
            ds.import_graph_def(graph_def)
        assert graph.get_operations() == []


def _mutated(graph_def, rng):
    """``graph_def`` with one random damage: an input dropped, added or redirected, an
    attr dropped, or a node removed, in the graph or in one of its functions."""
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    holders = [out.node] + [f.node_def for f in out.library.function if f.node_def]
    nodes = holders[int(rng.integers(len(holders)))]
    node = nodes[int(rng.integers(len(nodes)))]
    kind = int(rng.integers(5))
    if kind == 0 and node.input:
        del node.input[int(rng.integers(len(node.input)))]
    elif kind == 1 and node.attr:
        del node.attr[sorted(node.attr)[int(rng.integers(len(node.attr)))]]
    elif kind == 2:
        node.input.append(f"{nodes[int(rng.integers(len(nodes)))].name}:{rng.integers(3)}")
    elif kind == 3:
        nodes.remove(node)
    elif node.input:
        node.input[0] = nodes[int(rng.integers(len(nodes)))].name
    return out


@pytest.mark.parametrize("stem", ["tf_v2_conds", "tf_v2_tensor_lists", "tf_v2_function_calls",
                                  "tf_v2_keras_rnn", "tf_v1_conds", "tf_v1_whiles",
                                  "tf_v1_while_lstm", "tf_composite_nodes"])
def test_damaged_graphs_import_or_raise_tfs_errors(stem):
    """A GraphDef is untrusted: damaged at random (TF 2's and TF1's control flow, TF ops
    built as composites), it imports or raises one of TF's errors (OpError), never a
    Python error from inside the importer."""
    rng = np.random.default_rng(len(stem))
    graph_def = _graph_def(stem)
    for _ in range(40):
        damaged = _mutated(graph_def, rng)
        with ds.Graph().as_default():
            try:
                ds.import_graph_def(damaged)
            except ds.errors.OpError:
                pass


def test_a_tensor_list_op_missing_an_input_is_invalid_naming_it():
    graph_def = _graph_def("tf_v2_tensor_lists")
    body = next(f for f in graph_def.library.function
                if any(n.op == "TensorListSetItem" for n in f.node_def))
    node = next(n for n in body.node_def if n.op == "TensorListSetItem")
    del node.input[2]
    with ds.Graph().as_default():
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match=f"'{node.name}' \\(TensorListSetItem\\) has 2 inputs; TF's "
                                 f"takes 3"):
            ds.import_graph_def(graph_def)
