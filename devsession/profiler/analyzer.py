"""``tf.profiler``'s entry points: ``profile`` (a model's parameters, float operations
and, from traced steps, times, by name scope or by op type), ``Profiler`` (the same over
several steps), ``advise`` and ``write_op_log``.

Reports go where the options' ``output`` says: stdout (the default), a file, nowhere
("none"), or for ``timeline`` the traced step as Chrome trace JSON.  The "graph" and
"code" views are not there: devsession keeps no Python traceback per op, and the graph
view is left for when someone asks.
"""

from __future__ import annotations

import os
import sys

from .. import errors
from ..graph import get_default_graph
from ..proto.tfprof_pb2 import (AdviceProto, GraphNodeProto, MultiGraphNodeProto, OpLogEntry,
                                OpLogProto)
from .model import ModelStats, logged_ops, runtime_shapes
from .options import Options, ProfileOptionBuilder
from .views import op_view, scope_view

__all__ = ["profile", "advise", "write_op_log", "Profiler"]

_DEFAULT_OPTIONS = 0            # TF's sentinel: trainable_variables_parameter
_DOCS = {
    "scope": "scope: nodes organized by name, as a file system by path.",
    "op": "op: nodes grouped by op type (MatMul, Conv2D, ...).",
    "bytes": "requested bytes: memory the op asked for (devsession records none).",
    "micros": "total execution time: the op's time in the traced steps (accelerator "
              "time on a GPU, host time elsewhere).",
    "params": "param: number of parameters (elements of a variable).",
    "float_ops": "flops: number of float operations, counted by op type as "
                 "TensorFlow counts them.",
    "occurrence": "occurrence: how many times it ran | how many are defined.",
    "op_types": "op_types: the op type and the types an op log added.",
    "device": "device: where it ran.",
    "input_shapes": "input shape: the shapes of its inputs.",
}


def profile(graph=None, run_meta=None, op_log=None, cmd="scope", options=_DEFAULT_OPTIONS):
    """Profile ``graph`` (the default graph when None): a ``GraphNodeProto`` for the
    "scope" view, a ``MultiGraphNodeProto`` for "op"; the report goes to
    ``options['output']``.  ``run_meta`` (a traced step's ``RunMetadata``) adds times;
    ``op_log`` adds float ops and types to named nodes."""
    graph = graph if graph is not None else get_default_graph()
    if options == _DEFAULT_OPTIONS:
        options = ProfileOptionBuilder.trainable_variables_parameter()
    opts = _options(options)
    known = runtime_shapes(graph, run_meta) if run_meta is not None else {}
    stats = ModelStats(graph, known)
    if run_meta is not None:
        stats.add_run_meta(0, run_meta)
    stats.add_op_log(merge_op_logs(graph, op_log, known, report_missing=run_meta is None))
    return _show(stats, cmd, opts, run_meta)


def write_op_log(graph, log_dir, op_log=None, run_meta=None, add_trace=True):
    """Write the op log TF's command-line profiler reads (``log_dir/tfprof_log``): each
    op's float ops and the ``_trainable_variables`` type, merged into ``op_log``.
    ``add_trace`` is accepted; devsession keeps no Python traceback per op."""
    graph = graph if graph is not None else get_default_graph()
    known = runtime_shapes(graph, run_meta) if run_meta is not None else {}
    merged = merge_op_logs(graph, op_log, known, report_missing=run_meta is None)
    os.makedirs(log_dir, exist_ok=True)
    with open(os.path.join(log_dir, "tfprof_log"), "wb") as f:
        f.write(merged.SerializeToString())


def advise(graph=None, run_meta=None, options=_DEFAULT_OPTIONS):
    """Findings by checker (an ``AdviceProto``): the most expensive op types and scopes
    of the traced step (``ExpensiveOperationChecker``), whether it ran on an accelerator
    (``AcceleratorUtilizationChecker``), and NHWC convolutions placed on a GPU
    (``OperationChecker``)."""
    graph = graph if graph is not None else get_default_graph()
    known = runtime_shapes(graph, run_meta) if run_meta is not None else {}
    stats = ModelStats(graph, known)
    if run_meta is not None:
        stats.add_run_meta(0, run_meta)
    stats.add_op_log(merge_op_logs(graph, None, known, report_missing=run_meta is None))
    return _advice(stats, graph, options)


class Profiler:
    """Profiles a graph over several traced steps: ``add_step(step, run_meta)`` after each
    traced run, then the ``profile_*`` views (``with_step`` in the options picks one
    step; by default the steps are averaged)."""

    def __init__(self, graph=None, op_log=None):
        self._graph = graph if graph is not None else get_default_graph()
        self._stats = ModelStats(self._graph)
        self._stats.add_op_log(merge_op_logs(self._graph, op_log, {}))
        self._known: dict = {}
        self._last_run_meta = None

    def add_step(self, step, run_meta):
        """A traced step's times; its shapes complete the float ops of ops whose static
        shapes are not fully known (the first step's, as TF sets them into the graph)."""
        self._stats.add_run_meta(int(step), run_meta)
        for name, dims in runtime_shapes(self._graph, run_meta).items():
            self._known.setdefault(name, dims)
        self._stats.add_op_log(merge_op_logs(self._graph, None, self._known,
                                             report_missing=False))
        self._last_run_meta = run_meta

    def profile_name_scope(self, options):
        return self._show("scope", options)

    def profile_operations(self, options):
        return self._show("op", options)

    def profile_graph(self, options):
        return self._show("graph", options)

    def profile_python(self, options):
        return self._show("code", options)

    def advise(self, options=_DEFAULT_OPTIONS):
        return _advice(self._stats, self._graph, options)

    def serialize_to_string(self):
        raise errors.UnimplementedError(
            "Profiler.serialize_to_string writes TF's ProfileProto store, which devsession "
            "does not produce; use profile_name_scope/profile_operations, or write_op_log "
            "for TF's command-line profiler.")

    def _show(self, cmd, options):
        opts = _options(options)
        if opts.step >= 0 and opts.step not in self._stats.steps:
            sys.stderr.write(f"Options -step={opts.step} not found.\nAvailable steps: "
                             f"{' '.join(map(str, sorted(self._stats.steps)))}\n")
            return _empty(cmd)
        return _show(self._stats, cmd, opts, self._last_run_meta)


def merge_op_logs(graph, op_log, known: dict, report_missing: bool = True) -> OpLogProto:
    """The op log of ``graph`` (float ops, trainable variables' type; ``known``: shapes
    a traced step showed) merged into ``op_log``, as TF's ``merge_default_with_oplog``:
    a given entry keeps its float ops when it has some and gains the types."""
    logged = logged_ops(graph, known, report_missing)
    merged = OpLogProto()
    if op_log is None:
        merged.log_entries.extend(logged.values())
        return merged
    entries = {}
    for entry in op_log.log_entries:
        entries[entry.name] = OpLogEntry()
        entries[entry.name].CopyFrom(entry)
    for name, entry in logged.items():
        if name not in entries:
            entries[name] = entry
            continue
        given = entries[name]
        given.types.extend(entry.types)
        if entry.float_ops > 0 and given.float_ops == 0:
            given.float_ops = entry.float_ops
    merged.log_entries.extend(entries.values())
    for key, text in op_log.id_to_string.items():
        merged.id_to_string[key] = text
    return merged


def _options(options) -> Options:
    if not isinstance(options, dict):
        raise TypeError(f"profiler options are a dict (tf.profiler.ProfileOptionBuilder"
                        f"(...).build()), not {type(options).__name__}")
    return Options.from_dict(options)


def _empty(cmd):
    return MultiGraphNodeProto() if cmd in ("op", "code") else GraphNodeProto()


def _show(stats: ModelStats, cmd: str, opts: Options, run_meta):
    if cmd not in ("scope", "op", "graph", "code"):
        raise errors.InvalidArgumentError(
            f"unknown cmd: {cmd}: the profiler's views are 'scope' and 'op'.")
    if cmd in ("graph", "code"):
        raise errors.UnimplementedError(
            f"The profiler's {cmd!r} view is not in devsession: use cmd='scope' (by name) "
            f"or cmd='op' (by op type).")
    result, report = (scope_view if cmd == "scope" else op_view)(stats, opts)
    if opts.output_type == "pprof":
        sys.stderr.write("Only 'code' view supports pprof output now.\n")
    elif opts.output_type == "timeline":
        with open(opts.output_file, "w") as f:
            f.write(run_meta.chrome_trace() if run_meta is not None else
                    '{"traceEvents": []}')
    elif opts.output_type in ("stdout", "file"):
        text = _framed(cmd, opts, report)
        if opts.output_type == "stdout":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            with open(opts.output_file, "w") as f:
                f.write(text)
    return result


def _framed(cmd: str, opts: Options, report: str) -> str:
    """The report with the options it used and what its columns mean, as TF frames it."""
    option_lines = "".join(
        f"-{name:<27}{value}\n" for name, value in (
            ("max_depth", opts.max_depth), ("min_bytes", opts.min_bytes),
            ("min_peak_bytes", opts.min_peak_bytes),
            ("min_residual_bytes", opts.min_residual_bytes),
            ("min_output_bytes", opts.min_output_bytes), ("min_micros", opts.min_micros),
            ("min_accelerator_micros", opts.min_accelerator_micros),
            ("min_cpu_micros", opts.min_cpu_micros), ("min_params", opts.min_params),
            ("min_float_ops", opts.min_float_ops), ("min_occurrence", opts.min_occurrence),
            ("step", opts.step), ("order_by", opts.order_by),
            ("account_type_regexes", ",".join(opts.account_type_regexes)),
            ("start_name_regexes", ",".join(opts.start_name_regexes)),
            ("trim_name_regexes", ",".join(opts.trim_name_regexes)),
            ("show_name_regexes", ",".join(opts.show_name_regexes)),
            ("hide_name_regexes", ",".join(opts.hide_name_regexes)),
            ("account_displayed_op_only", str(opts.account_displayed_op_only).lower()),
            ("select", ",".join(sorted(opts.select))), ("output", opts.output)))
    docs = "".join(_DOCS[key] + "\n" for key in [cmd, *sorted(opts.select)] if key in _DOCS)
    return ("\n=========================Options=============================\n" +
            option_lines +
            "\n==================Model Analysis Report======================\n\n" +
            f"Doc:\n{docs}\nProfile:\n{report}" +
            "\n======================End of Report==========================\n")


def _advice(stats: ModelStats, graph, options) -> AdviceProto:
    checkers = (["ExpensiveOperationChecker", "AcceleratorUtilizationChecker",
                 "OperationChecker"] if options == _DEFAULT_OPTIONS else list(options))
    advice = AdviceProto()
    for name in checkers:
        report = _CHECKERS.get(name)
        if report is None:
            continue
        advice.checkers[name].reports.extend(report(stats, graph))
    return advice


def _expensive_operations(stats: ModelStats, graph) -> list[str]:
    if not stats.steps:
        return ["No traced steps: run with RunOptions(trace_level=FULL_TRACE) and pass its "
                "run_metadata to see the most expensive ops."]
    timed = Options.from_dict({**ProfileOptionBuilder.time_and_memory(min_bytes=0),
                               "output": "none"})
    by_type, _ = op_view(stats, timed)
    reports, link, top = [], by_type, []
    while link.children and len(top) < 3:
        link = link.children[0]
        top.append(f"{link.name}: {link.exec_micros} us ({len(link.graph_nodes)} nodes)")
    if top:
        reports.append("top 3 op types by time: " + "; ".join(top))
    scopes, _ = scope_view(stats, timed)
    ranked = sorted(scopes.children, key=lambda n: -n.total_exec_micros)[:3]
    if ranked:
        reports.append("top 3 scopes by time: " + "; ".join(
            f"{n.name}: {n.total_exec_micros} us" for n in ranked))
    return reports


def _accelerator_utilization(stats: ModelStats, graph) -> list[str]:
    devices = {d for node in stats.nodes.values() for d in node.devices()}
    if not any("GPU" in d.upper() for d in devices):
        return ["No accelerator time in the traced steps (every op ran on the host)."]
    return []


def _nhwc_on_gpu(stats: ModelStats, graph) -> list[str]:
    found = []
    for op in graph.get_operations():
        if op.type.startswith(("Conv2D", "MaxPool", "AvgPool", "FusedBatchNorm")) and \
                "GPU" in (op.device or "").upper() and \
                op.attrs.get("data_format", "NHWC") in ("NHWC", b"NHWC"):
            found.append(op.name)
    if not found:
        return []
    return [f"Found {len(found)} NHWC ops placed on a GPU ({', '.join(found[:3])}...): "
            "NCHW is often faster there (data_format='NCHW')."]


_CHECKERS = {"ExpensiveOperationChecker": _expensive_operations,
             "AcceleratorUtilizationChecker": _accelerator_utilization,
             "OperationChecker": _nhwc_on_gpu}
