"""tf.profiler beyond what tests/tf1_programs/p69_model_profile.py checks against
TensorFlow: shapes and times from traced steps, the outputs (stdout, none, file,
timeline), one step of several, the advisor, op logs, and bad input.

Float-op counts here are TF's formulas worked by hand (2*k per product output, one per
element of an elementwise op, n-1 per reduction to one value)."""

import json
import os

import numpy as np
import pytest

import devsession as ds

builder = ds.profiler.ProfileOptionBuilder


def _quiet(options):
    return builder(options).with_empty_output().build()


def _flops_by_node(graph, **kwargs):
    result = ds.profiler.profile(graph, options=_quiet(builder.float_operation()), **kwargs)
    found = {}

    def walk(node):
        if node.float_ops:
            found[node.name] = node.float_ops
        for child in node.children:
            walk(child)
    walk(result)
    return result.total_float_ops, found


@pytest.fixture
def batch_free_graph():
    """A dense layer whose batch is unknown until it runs, and one of fixed shape."""
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [None, 20], name="x")
        w = ds.Variable(np.ones((20, 5), np.float32), name="w")
        y = ds.nn.relu(ds.matmul(x * 0.5, w) + 1.0)
        loss = ds.reduce_sum(y * y)
        ds.matmul(ds.ones([4, 20]), w, name="fixed")
        init = ds.global_variables_initializer()
    return graph, x, loss, init


def _traced(graph, fetch, feed, init, fusion=True):
    options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
    with ds.Session(graph=graph, options=options) as sess:
        sess.run(init)
        meta = ds.RunMetadata()
        sess.run(fetch, feed, options=ds.RunOptions(trace_level=ds.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    return meta


def test_without_a_traced_step_ops_of_unknown_shape_have_no_float_ops(batch_free_graph, capsys):
    graph, *_ = batch_free_graph
    total, by_node = _flops_by_node(graph)
    assert by_node == {"fixed": 2 * 20 * 4 * 5}
    assert total == 800
    assert "5 ops no flops stats due to incomplete shapes." in capsys.readouterr().err


def test_a_traced_step_completes_the_shapes_the_graph_does_not_know(batch_free_graph, capsys):
    graph, x, loss, init = batch_free_graph
    meta = _traced(graph, loss, {x: np.ones((6, 20), np.float32)}, init, fusion=False)
    total, by_node = _flops_by_node(graph, run_meta=meta)
    # a fed tensor's shape is not in the step (TF's neither): "mul" counts its output
    assert by_node == {"mul": 120, "MatMul": 2 * 20 * 6 * 5, "add": 30, "mul_1": 30,
                       "Sum": 29, "fixed": 800}
    assert total == sum(by_node.values())
    assert "incomplete shapes" not in capsys.readouterr().err
    # the profile shows the shapes the step ran with, and leaves the graph's alone
    scope = ds.profiler.profile(graph, run_meta=meta, options=_quiet(
        builder(builder.float_operation()).select(["float_ops", "input_shapes"]).build()))
    matmul = next(c for c in scope.children if c.name == "MatMul")
    assert [d.size for d in matmul.input_shapes[0].dim] == [6, 20]
    assert graph.get_tensor_by_name("MatMul:0").shape.as_list() == [None, 5]


def test_a_fused_kernel_shows_only_its_last_nodes_shape(batch_free_graph):
    graph, x, loss, init = batch_free_graph
    meta = _traced(graph, loss, {x: np.ones((6, 20), np.float32)}, init, fusion=True)
    by_kernel = {}
    for stat in meta.step_stats:
        if stat.kernel:
            by_kernel.setdefault(stat.kernel, []).append(stat)
    assert by_kernel, "nothing fused: the test needs a fused kernel"
    for members in by_kernel.values():
        assert [bool(s.output_shapes) for s in members] == \
            [False] * (len(members) - 1) + [True]


def test_times_and_run_counts_come_from_the_traced_steps(batch_free_graph):
    graph, x, loss, init = batch_free_graph
    metas = [_traced(graph, loss, {x: np.ones((n, 20), np.float32)}, init) for n in (3, 5)]
    profiler = ds.profiler.Profiler(graph)
    for step, meta in enumerate(metas):
        profiler.add_step(step, meta)
    timed = _quiet(builder().select(["micros", "occurrence"]).build())
    scope = profiler.profile_name_scope(timed)
    ran = {c.name: c for c in scope.children}
    assert ran["Sum"].run_count == 1 and ran["Sum"].exec_micros > 0
    assert ran["fixed"].run_count == 0 and ran["fixed"].exec_micros == 0     # not fetched
    assert scope.total_exec_micros >= ran["Sum"].exec_micros
    # float ops a run: the first step's shapes completed the graph's (as TF's Profiler
    # sets them into the graph); picking a step picks its run counts
    for step in (0, 1):
        flops = profiler.profile_operations(_quiet(
            builder(builder.float_operation()).with_step(step).build()))
        by_type = {}
        link = flops
        while link.children:
            link = link.children[0]
            by_type[link.name] = link.float_ops
        assert by_type["Sum"] == 5 * 3 - 1


def test_a_step_the_profiler_never_saw_gives_an_empty_profile(batch_free_graph, capsys):
    graph, *_ = batch_free_graph
    profiler = ds.profiler.Profiler(graph)
    result = profiler.profile_name_scope(_quiet(builder().with_step(3).build()))
    assert result == ds.profiler.GraphNodeProto()
    assert "Options -step=3 not found" in capsys.readouterr().err


def test_the_report_goes_to_stdout_by_default_and_nowhere_with_empty_output(
        batch_free_graph, capsys):
    graph, *_ = batch_free_graph
    ds.profiler.profile(graph)          # trainable_variables_parameter, to stdout
    printed = capsys.readouterr().out
    assert "node name | # parameters\n_TFProfRoot (--/100 params)\n  w (20x5, 100/100 params)" \
        in printed
    assert "-account_type_regexes       _trainable_variables" in printed
    ds.profiler.profile(graph, options=_quiet(builder.trainable_variables_parameter()))
    assert capsys.readouterr().out == ""


def test_a_timeline_output_writes_the_traced_step_as_a_chrome_trace(batch_free_graph, tmp_path):
    graph, x, loss, init = batch_free_graph
    meta = _traced(graph, loss, {x: np.ones((2, 20), np.float32)}, init)
    path = tmp_path / "timeline.json"
    ds.profiler.profile(graph, run_meta=meta, options=builder(builder.time_and_memory())
                        .with_timeline_output(str(path)).build())
    events = json.loads(path.read_text())["traceEvents"]
    assert any(e.get("name") == "Sum" and e.get("ph") == "X" for e in events)


def test_the_default_graph_is_profiled_when_none_is_given():
    with ds.Graph().as_default():
        ds.get_variable("v", initializer=ds.zeros([3, 7]))
        ds.Variable(1.0, trainable=False)
        result = ds.profiler.profile(options=_quiet(builder.trainable_variables_parameter()))
    assert result.total_parameters == 21


def test_write_op_log_merges_a_given_log_keeping_its_float_ops(batch_free_graph, tmp_path):
    graph, *_ = batch_free_graph
    given = ds.profiler.OpLogProto()
    given.log_entries.add(name="fixed", float_ops=7, types=["mine"])
    given.log_entries.add(name="w", types=["mine"])
    ds.profiler.write_op_log(graph, str(tmp_path), op_log=given)
    written = ds.profiler.OpLogProto()
    written.ParseFromString((tmp_path / "tfprof_log").read_bytes())
    entries = {e.name: (e.float_ops, list(e.types)) for e in written.log_entries}
    assert entries == {"fixed": (7, ["mine"]), "w": (0, ["mine", "_trainable_variables"])}
    # the merged log's types account nodes: only the ones typed "mine"
    mine = ds.profiler.profile(graph, op_log=given, options=_quiet(
        builder(builder.trainable_variables_parameter()).with_accounted_types(["mine"])
        .select(["params", "float_ops"]).build()))
    assert (mine.total_parameters, mine.total_float_ops) == (100, 7)


def test_batched_products_count_as_tf_counts_batch_matmul():
    graph = ds.Graph()
    with graph.as_default():
        ds.matmul(ds.ones([3, 4, 5]), ds.ones([3, 5, 2]), name="batched")
        ds.matmul(ds.ones([6, 4]), ds.ones([6, 7]), transpose_a=True, name="transposed")
        ds.add_n([ds.ones([2, 2])] * 3, name="summed")
    _, by_node = _flops_by_node(graph)
    assert by_node == {"batched": 2 * 5 * 3 * 4 * 2, "transposed": 2 * 6 * 4 * 7,
                       "summed": 4 * 2}


def test_the_advisor_reports_the_most_expensive_ops_of_a_traced_step(batch_free_graph):
    graph, x, loss, init = batch_free_graph
    meta = _traced(graph, loss, {x: np.ones((64, 20), np.float32)}, init)
    advice = ds.profiler.advise(graph, run_meta=meta)
    assert set(advice.checkers) == {"ExpensiveOperationChecker",
                                    "AcceleratorUtilizationChecker", "OperationChecker"}
    expensive = advice.checkers["ExpensiveOperationChecker"].reports
    assert expensive[0].startswith("top 3 op types by time: ")
    assert "every op ran on the host" in advice.checkers["AcceleratorUtilizationChecker"].reports[0]
    untraced = ds.profiler.advise(graph, options={"ExpensiveOperationChecker": {}})
    assert list(untraced.checkers) == ["ExpensiveOperationChecker"]
    assert "No traced steps" in untraced.checkers["ExpensiveOperationChecker"].reports[0]


@pytest.mark.parametrize("cmd", ["graph", "code"])
def test_the_views_devsession_lacks_say_which_to_use(batch_free_graph, cmd):
    graph, *_ = batch_free_graph
    with pytest.raises(ds.errors.UnimplementedError, match="cmd='scope'"):
        ds.profiler.profile(graph, cmd=cmd, options=_quiet(builder.float_operation()))


@pytest.mark.parametrize("change, error, match", [
    ({"select": ["flops"]}, ds.errors.InvalidArgumentError, "Cannot select \\['flops'\\]"),
    ({"order_by": "time"}, ds.errors.InvalidArgumentError, "Cannot order by 'time'"),
    ({"output": "printer"}, ds.errors.InvalidArgumentError, "Unknown profiler output"),
    ({"output": "file:path=x"}, ds.errors.InvalidArgumentError, "names no file"),
    ({"max_dpeth": 3}, ds.errors.InvalidArgumentError, "Unknown profiler options"),
])
def test_bad_options_are_invalid_argument_errors(batch_free_graph, change, error, match):
    graph, *_ = batch_free_graph
    with pytest.raises(error, match=match):
        ds.profiler.profile(graph, options={**builder.float_operation(), **change})


def test_bad_commands_and_option_types_are_rejected(batch_free_graph):
    graph, *_ = batch_free_graph
    with pytest.raises(ds.errors.InvalidArgumentError, match="unknown cmd: scopes"):
        ds.profiler.profile(graph, cmd="scopes", options=_quiet(builder.float_operation()))
    with pytest.raises(TypeError, match="ProfileOptionBuilder"):
        ds.profiler.profile(graph, options=builder(builder.float_operation()))


def test_a_file_output_holds_the_report(batch_free_graph, tmp_path):
    graph, *_ = batch_free_graph
    path = os.path.join(tmp_path, "flops.txt")
    ds.profiler.profile(graph, options=builder(builder.float_operation())
                        .with_file_output(path).build())
    text = open(path).read()
    assert "node name | # float_ops\n_TFProfRoot (--/800 flops)\n  fixed (800/800 flops)\n" \
        in text
    assert text.rstrip().endswith("End of Report==========================")


def test_a_cluster_sessions_traced_step_brings_its_shapes(batch_free_graph):
    graph, x, loss, init = batch_free_graph
    server = ds.train.Server.create_local_server()
    try:
        with ds.Session(server.target, graph=graph) as sess:
            sess.run(init)
            meta = ds.RunMetadata()
            sess.run(loss, {x: np.ones((7, 20), np.float32)},
                     options=ds.RunOptions(trace_level=ds.RunOptions.FULL_TRACE),
                     run_metadata=meta)
    finally:
        server.stop()
    shapes = {s.node: s.output_shapes for s in meta.step_stats if s.output_shapes}
    assert shapes["Sum"] == ((),)
    assert any(shape == ((7, 5),) for shape in shapes.values())
    _, by_node = _flops_by_node(graph, run_meta=meta)
    assert by_node["Sum"] == 7 * 5 - 1
