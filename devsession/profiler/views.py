"""The profiler's two views of a ``ModelStats``, as TF's tfprof shows them:

* **scope**: nodes in a tree by name ("dense/MatMul" under "dense", scopes without a node
  of their own made up), each with its own figures and totals over what is accounted
  below it; a ``GraphNodeProto`` tree and an indented report.
* **op**: one entry per op type, sorted, each also totalling the entries after it; a
  ``MultiGraphNodeProto`` whose children form that chain, and a table.

Which nodes count (``account_type_regexes`` against a node's types), which show (the
minimums, ``max_depth``, the name regexes) and in what order follow TF's rules, so a
model's totals and its report read as TF1 printed them.
"""

from __future__ import annotations

import re

from ..proto.tfprof_pb2 import GraphNodeProto, MultiGraphNodeProto
from .model import ModelStats, ProfNode
from .options import Options

__all__ = ["scope_view", "op_view", "ROOT"]

ROOT = "_TFProfRoot"
_SCOPE_PARENT = "_kTFScopeParent"   # the made-up scopes' op type, as TF names it
_TOTALS = ("run_count", "exec_micros", "accelerator_exec_micros", "cpu_exec_micros",
           "requested_bytes", "peak_bytes", "residual_bytes", "output_bytes", "parameters",
           "float_ops")


def _full_match(patterns, text: str) -> bool:
    return any(re.fullmatch(p, text) for p in patterns)


def _number(n: int) -> str:
    for limit, suffix in ((1e9, "b"), (1e6, "m"), (1e3, "k")):
        if n >= limit:
            return f"{n / limit:.2f}{suffix}"
    return str(n)


def _time(micros: int) -> str:
    if micros < 1000:
        return f"{micros}us"
    return f"{micros / 1e3:.2f}ms" if micros < 1_000_000 else f"{micros / 1e6:.2f}sec"


def _memory(size: int) -> str:
    if size < 1000:
        return f"{size}B"
    return f"{size / 1e3:.2f}KB" if size < 1_000_000 else f"{size / 1e6:.2f}MB"


def _shape_proto(proto, dims: list) -> None:
    if not dims:
        proto.unknown_rank = True
    for d in dims:
        proto.dim.add(size=d)


def _sorted(nodes: list, order_by: str) -> list:
    """Stable, most first (a name order for "name" and anything unknown)."""
    field = {"bytes": "total_requested_bytes", "peak_bytes": "total_peak_bytes",
             "residual_bytes": "total_residual_bytes", "output_bytes": "total_output_bytes",
             "micros": "total_exec_micros", "accelerator_micros":
             "total_accelerator_exec_micros", "cpu_micros": "total_cpu_exec_micros",
             "params": "total_parameters", "float_ops": "total_float_ops"}.get(order_by)
    if field is None:
        return sorted(nodes, key=lambda n: n.name)
    return sorted(nodes, key=lambda n: -getattr(n.proto, field))


def _passes_minimums(proto, opts: Options, totals: bool) -> bool:
    """Whether ``proto`` reaches every ``min_*`` of ``opts`` (the scope view compares a
    node's own parameters, float ops and runs, the op view its totals)."""
    own = "total_" if totals else ""
    return not (
        proto.total_requested_bytes < opts.min_bytes
        or proto.total_peak_bytes < opts.min_peak_bytes
        or proto.total_residual_bytes < opts.min_residual_bytes
        or proto.total_output_bytes < opts.min_output_bytes
        or proto.total_exec_micros < opts.min_micros
        or proto.total_accelerator_exec_micros < opts.min_accelerator_micros
        or proto.total_cpu_exec_micros < opts.min_cpu_micros
        or getattr(proto, own + "parameters") < opts.min_params
        or getattr(proto, own + "float_ops") < opts.min_float_ops
        or (not totals and proto.run_count < opts.min_occurrence))


def _named_for_showing(name: str, opts: Options) -> bool:
    if opts.show_name_regexes != (".*",) and not _full_match(opts.show_name_regexes, name):
        return False
    return not _full_match(opts.hide_name_regexes, name)


def _accounted(types, opts: Options) -> bool:
    return opts.account_type_regexes == (".*",) or any(
        _full_match(opts.account_type_regexes, t) for t in types)


# ------------------------------------------------------------------------ scope view

class _ScopeNode:
    """A node of the scope tree: a graph node or a made-up scope, with its figures in a
    GraphNodeProto (without children: the shown tree is assembled at the end)."""

    def __init__(self, node: ProfNode):
        self.node = node
        self.name = node.name
        self.children: list[_ScopeNode] = []
        self.show_children: list[_ScopeNode] = []
        self.account = False
        self.text = ""
        self.proto = GraphNodeProto()

    def reinit(self, stats: ModelStats, step: int) -> None:
        node, proto = self.node, self.proto
        proto.Clear()
        proto.name = node.name
        proto.devices.extend(node.devices())
        proto.run_count = node.run_count(step)
        proto.exec_micros = node.exec_micros(step)
        proto.accelerator_exec_micros = node.accelerator_micros(step)
        proto.cpu_exec_micros = node.cpu_micros(step)
        proto.float_ops = node.float_ops(step)
        for index, dims in node.input_shapes(stats.nodes).items():
            _shape_proto(proto.input_shapes[index], dims)
        proto.parameters = node.parameters

    def reset_totals(self) -> None:
        self.text = ""
        proto = self.proto
        proto.total_definition_count = 0
        for field in _TOTALS:
            setattr(proto, "total_" + field, 0)

    def add_self_to_totals(self) -> None:
        proto = self.proto
        proto.total_definition_count += 1
        for field in _TOTALS:
            setattr(proto, "total_" + field,
                    getattr(proto, "total_" + field) + getattr(proto, field))

    def aggregate(self, other: "_ScopeNode") -> None:
        proto, theirs = self.proto, other.proto
        proto.total_definition_count += theirs.total_definition_count
        for field in _TOTALS:
            total = "total_" + field
            setattr(proto, total, getattr(proto, total) + getattr(theirs, total))


def scope_view(stats: ModelStats, opts: Options) -> tuple[GraphNodeProto, str]:
    """The scope view's tree and report (legend and one line per shown node)."""
    root = _scope_tree(stats)
    root.reset_totals()
    roots = _account(root.children, stats, opts)
    for node in roots:
        root.aggregate(node)
    if opts.start_name_regexes != (".*",):
        roots = _search_root(roots, opts.start_name_regexes)
    root.show_children = roots
    root = _print_scope([root], opts, 1, 0)[0]
    proto = GraphNodeProto()
    proto.CopyFrom(root.proto)
    lines = [root.text]
    _assemble(root.show_children, proto, lines)
    return proto, _scope_legend(opts) + "".join(lines)


def _scope_tree(stats: ModelStats) -> _ScopeNode:
    by_name = {name: _ScopeNode(node) for name, node in stats.nodes.items()}
    for name in list(by_name):
        while "/" in name:
            name = name.rsplit("/", 1)[0]
            if name not in by_name:
                by_name[name] = _ScopeNode(ProfNode(name, _SCOPE_PARENT, -1, {_SCOPE_PARENT}))
    root = _ScopeNode(ProfNode(ROOT, _SCOPE_PARENT, -1, {_SCOPE_PARENT}))
    for name in sorted(by_name):
        parent = by_name[name.rsplit("/", 1)[0]] if "/" in name else root
        parent.children.append(by_name[name])
    root.reinit(stats, -1)
    return root


def _account(nodes: list, stats: ModelStats, opts: Options) -> list:
    accounted = []
    for node in nodes:
        node.reset_totals()
        below = _account(node.children, stats, opts)
        node.reinit(stats, opts.step)
        node.account = _accounted(node.node.types, opts)
        if node.account or below:
            node.show_children = list(below)
            node.reset_totals()
            node.add_self_to_totals()
            for child in below:
                node.aggregate(child)
            accounted.append(node)
    return accounted


def _search_root(nodes: list, patterns) -> list:
    found = []
    for node in nodes:
        if _full_match(patterns, node.name):
            found.append(node)
        else:
            found += _search_root(node.show_children, patterns)
    return found


def _should_show(node: _ScopeNode, opts: Options, depth: int) -> bool:
    if node.name == ROOT:
        return True
    return (_passes_minimums(node.proto, opts, totals=False) and depth <= opts.max_depth
            and _named_for_showing(node.name, opts))


def _print_scope(nodes: list, opts: Options, depth: int, indent: int) -> list:
    shown = []
    for node in nodes:
        show = _should_show(node, opts, depth)
        below = []
        if not _full_match(opts.trim_name_regexes, node.name) and depth <= opts.max_depth:
            below = _print_scope(node.show_children, opts, depth + 1,
                                 indent + 2 if show else indent)
        if not show:
            shown += below
            continue
        node.show_children = _sorted(below, opts.order_by)
        if opts.account_displayed_op_only:
            node.reset_totals()
            node.add_self_to_totals()
            for child in node.show_children:
                node.aggregate(child)
        node.text = " " * indent + _scope_line(node, opts) + "\n"
        shown.append(node)
    return shown


def _assemble(nodes: list, proto: GraphNodeProto, lines: list) -> None:
    for node in nodes:
        lines.append(node.text)
        child = proto.children.add()
        child.CopyFrom(node.proto)
        _assemble(node.show_children, child, lines)


def _own_of_total(node, own: str, total: str) -> str:
    return f"{own}/{total}" if node.account else f"--/{total}"


def _scope_line(node: _ScopeNode, opts: Options) -> str:
    proto, select, info = node.proto, opts.select, []
    if "params" in select:
        if node.node.shape:
            info.append("x".join(map(str, node.node.shape)))
        info.append(_own_of_total(node, _number(proto.parameters),
                                  _number(proto.total_parameters)) + " params")
    if "float_ops" in select:
        info.append(_own_of_total(node, _number(proto.float_ops),
                                  _number(proto.total_float_ops)) + " flops")
    for key, field in (("bytes", "requested_bytes"), ("peak_bytes", "peak_bytes"),
                       ("residual_bytes", "residual_bytes"), ("output_bytes", "output_bytes")):
        if key in select:
            info.append(_own_of_total(node, _memory(getattr(proto, field)),
                                      _memory(getattr(proto, "total_" + field))))
    info += _times(node, select)
    if "device" in select and proto.devices:
        info.append("|".join(proto.devices))
    if "op_types" in select:
        info.append("|".join(sorted(node.node.types)))
    if "occurrence" in select:
        runs = _own_of_total(node, _number(proto.run_count), _number(proto.total_run_count))
        defined = _own_of_total(node, "1", _number(proto.total_definition_count))
        info.append(f"{runs}|{defined}")
    if "input_shapes" in select:
        info.append("|".join(
            f"{k}:{'unknown' if v.unknown_rank else 'x'.join(str(d.size) for d in v.dim)}"
            for k, v in sorted(proto.input_shapes.items())))
    return f"{node.name} ({', '.join(info)})"


def _times(node, select) -> list[str]:
    proto = node.proto
    return [_own_of_total(node, _time(getattr(proto, field)),
                          _time(getattr(proto, "total_" + field)))
            for field, _ in _time_columns(select)]


_SCOPE_LEGENDS = (("params", "# parameters"), ("float_ops", "# float_ops"),
                  ("bytes", "requested bytes"), ("peak_bytes", "peak bytes"),
                  ("residual_bytes", "residual bytes"), ("output_bytes", "output bytes"))


_TIME_COLUMNS = {"micros": ("exec_micros", "total execution time"),
                 "accelerator_micros": ("accelerator_exec_micros", "accelerator execution time"),
                 "cpu_micros": ("cpu_exec_micros", "cpu execution time")}


def _time_columns(select) -> list[tuple[str, str]]:
    """(proto field, legend) of the times ``select`` asks for: all three for "micros"."""
    if "micros" in select:
        return list(_TIME_COLUMNS.values())
    return [_TIME_COLUMNS[key] for key in ("accelerator_micros", "cpu_micros") if key in select]


def _time_legends(select) -> list[str]:
    return [legend for _, legend in _time_columns(select)]


def _scope_legend(opts: Options) -> str:
    select = opts.select
    legends = [text for key, text in _SCOPE_LEGENDS if key in select]
    legends += _time_legends(select)
    legends += [text for key, text in (("device", "assigned devices"), ("op_types", "op types"),
                                       ("occurrence", "op count (run|defined)"),
                                       ("input_shapes", "input shapes")) if key in select]
    return f"node name | {' | '.join(legends)}\n"


# --------------------------------------------------------------------------- op view

class _OpNode:
    """Every graph node of one op type, as the op view counts them."""

    def __init__(self, name: str, nodes: list):
        self.name = name
        self.nodes = nodes
        self.account = False
        self.picked: list = []
        self.proto = MultiGraphNodeProto(name=name)

    def reinit(self, stats: ModelStats, opts: Options) -> bool:
        """Sum the figures of the nodes whose types ``account_type_regexes`` match
        (every node once per matching pattern, as TF counts them); whether any did."""
        patterns = opts.account_type_regexes
        if patterns == (".*",):
            picked = list(self.nodes)
        else:
            picked = [n for p in patterns for n in self.nodes
                      if any(re.fullmatch(p, t) for t in n.types)]
        proto, step = self.proto, opts.step
        proto.Clear()
        proto.name = self.name
        self.picked = picked
        for node in sorted({n.name: n for n in picked}.values(), key=lambda n: n.name):
            shown = _ScopeNode(node)
            shown.reinit(stats, step)
            shown.reset_totals()
            shown.add_self_to_totals()
            proto.graph_nodes.add().CopyFrom(shown.proto)
        for node in picked:
            proto.exec_micros += node.exec_micros(step)
            proto.accelerator_exec_micros += node.accelerator_micros(step)
            proto.cpu_exec_micros += node.cpu_micros(step)
            proto.float_ops += node.float_ops(step)
            proto.parameters += node.parameters
        return bool(picked) or patterns == (".*",)

    def reset_totals(self) -> None:
        for field in _TOTALS[1:]:
            setattr(self.proto, "total_" + field, 0)

    def add_self_to_totals(self) -> None:
        for field in _TOTALS[1:]:
            setattr(self.proto, "total_" + field,
                    getattr(self.proto, "total_" + field) + getattr(self.proto, field))

    def aggregate(self, other: "_OpNode") -> None:
        for field in _TOTALS[1:]:
            total = "total_" + field
            setattr(self.proto, total, getattr(self.proto, total) + getattr(other.proto, total))


def op_view(stats: ModelStats, opts: Options) -> tuple[MultiGraphNodeProto, str]:
    """The op view's chain and report (legend and one line per shown op type)."""
    by_type: dict[str, list] = {}
    for node in stats.nodes.values():
        by_type.setdefault(node.op, []).append(node)
    root = _OpNode(ROOT, [])
    types = [_OpNode(name, nodes) for name, nodes in sorted(by_type.items())]
    for entry in types:
        entry.account = entry.reinit(stats, opts)
        entry.reset_totals()
        entry.add_self_to_totals()
    accounted = [t for t in _sorted(types, opts.order_by) if t.account]
    _chain_totals(root, accounted)
    start = 0
    if opts.start_name_regexes and opts.start_name_regexes != (".*",):
        start = next((i for i, t in enumerate(accounted)
                      if _full_match(opts.start_name_regexes, t.name)), len(accounted))
    shown = []
    for depth, entry in enumerate(accounted[start:]):
        if _full_match(opts.trim_name_regexes, entry.name) or depth > opts.max_depth:
            break
        if (_passes_minimums(entry.proto, opts, totals=True) and depth <= opts.max_depth
                and _named_for_showing(entry.name, opts)):
            shown.append(entry)
    if opts.account_displayed_op_only:
        for entry in shown:
            entry.reset_totals()
            entry.add_self_to_totals()
        root.reset_totals()
        _chain_totals(root, shown)
    proto = MultiGraphNodeProto()
    proto.CopyFrom(root.proto)
    link = proto
    for entry in shown:
        link = link.children.add()
        link.CopyFrom(entry.proto)
    text = _op_legend(opts) + "".join(_op_line(e, root, opts) for e in shown)
    return proto, text


def _chain_totals(root: _OpNode, chain: list) -> None:
    """Each entry also totals the ones after it; the root totals the first."""
    for later, entry in zip(chain[::-1], chain[-2::-1]):
        entry.aggregate(later)
    if chain:
        root.aggregate(chain[0])


def _op_line(entry: _OpNode, root: _OpNode, opts: Options) -> str:
    proto, whole, select, attrs = entry.proto, root.proto, opts.select, []

    def column(value: str, own: int, total: int, of_all: int, counted: int) -> str:
        """``value`` with its cumulative and own shares of the whole, where ``counted``."""
        accumulated, part = (100.0 * total / of_all, 100.0 * own / of_all) if counted > 0 \
            else (0.0, 0.0)
        return f"{value} ({accumulated:.2f}%, {part:.2f}%)".rjust(30)

    def figures(field: str) -> tuple[int, int, int]:
        return (getattr(proto, field), getattr(proto, "total_" + field),
                getattr(whole, "total_" + field))

    for key, field in (("bytes", "requested_bytes"), ("peak_bytes", "peak_bytes"),
                       ("residual_bytes", "residual_bytes"), ("output_bytes", "output_bytes")):
        if key in select:
            own, total, of_all = figures(field)
            attrs.append(column(_memory(own), own, total, of_all, counted=own))
    for field, _ in _time_columns(select):
        own, total, of_all = figures(field)
        attrs.append(column(_time(own), own, total, of_all, counted=total))
    for key, field, unit in (("params", "parameters", "params"),
                             ("float_ops", "float_ops", "float_ops")):
        if key in select:
            own, total, of_all = figures(field)
            attrs.append(column(f"{_number(own)} {unit}", own, total, of_all, counted=total))
    if "device" in select:
        attrs.append("|".join(sorted({d for n in entry.picked for d in n.devices()})))
    if "op_types" in select:
        attrs.append("|".join(sorted(set().union(*(n.types for n in entry.picked)))))
    if "occurrence" in select:
        runs = sum(g.run_count for g in proto.graph_nodes)
        attrs.append(f"{runs}|{len(proto.graph_nodes)}".rjust(10))
    line = f"{entry.name:<25}{', '.join(attrs)}\n"
    if "input_shapes" in select and proto.graph_nodes:
        line += "\n" + _input_kinds(proto) + "\n\n"
    return line


def _input_kinds(proto: MultiGraphNodeProto) -> str:
    """One line per distinct list of input shapes among the entry's nodes: how many
    ran and are defined with it, and their time; the most run first."""
    kinds: dict[str, list] = {}
    for node in proto.graph_nodes:
        shapes = ",\t".join(
            f"{k}:{'unknown' if v.unknown_rank else 'x'.join(str(d.size) for d in v.dim)}"
            for k, v in sorted(node.input_shapes.items()))
        counts = kinds.setdefault(f"input_type: {shapes}", [0, 0, 0])
        counts[0] += 1
        counts[1] += node.run_count
        counts[2] += node.exec_micros
    ranked = sorted(sorted(kinds.items()), key=lambda kv: -kv[1][1])
    return "\n".join(f"{text}\t(run*{runs}|defined*{defined})\texec_time: {_time(micros)}"
                     for text, (defined, runs, micros) in ranked)


def _op_legend(opts: Options) -> str:
    select = opts.select
    legends = [text for key, text in (("bytes", "requested bytes"), ("peak_bytes", "peak bytes"),
                                      ("residual_bytes", "residual bytes"),
                                      ("output_bytes", "output bytes")) if key in select]
    legends += _time_legends(select)
    legends += [text for key, text in (("params", "# parameters"), ("float_ops", "# float_ops"),
                                       ("device", "assigned devices"), ("op_types", "op types"),
                                       ("occurrence", "op occurrence (run|defined)"),
                                       ("input_shapes", "input shapes")) if key in select]
    return f"node name | {' | '.join(legends)}\n"
