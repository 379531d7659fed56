"""The profiler's table of graph nodes: each node's op types, float ops, parameters,
input shapes and, per traced step, its run count and times (TF's tfprof ``TFStats``).

Nodes come from a graph; an op log (``OpLogProto``) adds float ops and types (the
``_trainable_variables`` type marks what ``trainable_variables_parameter`` counts); a
traced step (``RunMetadata``) adds times, and nodes of its own for names the graph lacks.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys

from ..graph_keys import GraphKeys
from ..proto.tfprof_pb2 import OpLogEntry
from ..tf_signatures import tf_signature
from . import flops

__all__ = ["ProfNode", "ModelStats", "logged_ops", "runtime_shapes", "shape_list",
           "TRAINABLE_VARIABLES"]

TRAINABLE_VARIABLES = "_trainable_variables"
_UNTRACKED = re.compile(r"RecvTensor|_SOURCE|.*MEMCPY.*")    # never nodes of their own


def shape_list(shape) -> list[int]:
    """A shape as tfprof lists it: [] for an unknown rank, [1] for a scalar, -1 for an
    unknown dimension."""
    dims = shape.dims
    if dims is None:
        return []
    return [-1 if d is None else int(d) for d in dims] or [1]


@dataclasses.dataclass
class _Exec:
    """A node's runs in one step."""
    run_count: int = 0
    cpu_micros: int = 0
    accelerator_micros: int = 0
    devices: set = dataclasses.field(default_factory=set)


@dataclasses.dataclass
class ProfNode:
    """One graph node (or a name a traced step ran that the graph lacks)."""
    name: str
    op: str
    id: int
    types: set = dataclasses.field(default_factory=set)
    static_float_ops: int = 0
    shape: list = dataclasses.field(default_factory=list)   # a variable's or placeholder's
    inputs: dict = dataclasses.field(default_factory=dict)  # index -> (node, output) or dims
    output_shapes: dict = dataclasses.field(default_factory=dict)
    execs: dict = dataclasses.field(default_factory=dict)   # step -> _Exec

    @property
    def parameters(self) -> int:
        """The elements of its shape attr, when fully known (a variable's size)."""
        return math.prod(self.shape) if self.shape and min(self.shape) >= 0 else 0

    def _per_step(self, step: int, read) -> int:
        if not self.execs:
            return 0
        if step >= 0:
            return read(self.execs[step]) if step in self.execs else 0
        return sum(read(e) for e in self.execs.values()) // len(self.execs)

    def run_count(self, step: int) -> int:
        return self._per_step(step, lambda e: e.run_count)

    def cpu_micros(self, step: int) -> int:
        return self._per_step(step, lambda e: e.cpu_micros)

    def accelerator_micros(self, step: int) -> int:
        return self._per_step(step, lambda e: e.accelerator_micros)

    def exec_micros(self, step: int) -> int:
        """Accelerator time where it ran on one, else the host's."""
        return self._per_step(
            step, lambda e: e.accelerator_micros if e.accelerator_micros else e.cpu_micros)

    def float_ops(self, step: int) -> int:
        """The static count, times its runs once a traced step ran it."""
        return self.static_float_ops * (self.run_count(step) if self.execs else 1)

    def devices(self) -> list[str]:
        return sorted(set().union(*(e.devices for e in self.execs.values())))

    def input_shapes(self, nodes: dict) -> dict[int, list]:
        """Input index -> the shape its producer declares ([] where unknown)."""
        found = {}
        for index, source in sorted(self.inputs.items()):
            if isinstance(source, list):              # an attr TF's op takes as an input
                found[index] = list(source)
                continue
            producer = nodes.get(source[0])
            found[index] = list(producer.output_shapes.get(source[1], [])) if producer else []
        return found


_REDUCTIONS = frozenset(("Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm"))


def _attr_inputs(op) -> list[list]:
    """The shapes of the inputs TF's form of ``op`` has where devsession holds an attr
    (as ``tf_export`` writes them): a reduction's axes, ArgMax's and ConcatV2's axis,
    Transpose's perm, Reshape's shape."""
    attrs = op.attrs
    if "axis" in attrs and op.type in _REDUCTIONS:
        return [[-1] if attrs.get("all_axes") else [len(attrs["axis"])]]
    if "axis" in attrs and op.type in ("ArgMax", "ArgMin", "ConcatV2"):
        return [[1]]                                  # a scalar, as tfprof lists it
    for op_type, attr in (("Transpose", "perm"), ("Reshape", "shape")):
        if op.type == op_type and attr in attrs and len(op.inputs) == 1:
            return [[len(attrs[attr])]]
    return []


def runtime_shapes(graph, run_meta) -> dict:
    """Tensor name -> the shape a traced step showed, for the outputs whose static shape
    is not fully known (TF's profiler completes the graph's shapes so)."""
    known = {}
    for stat in run_meta.step_stats:
        if not stat.output_shapes or stat.op == "_Output":
            continue
        try:
            op = graph.get_operation_by_name(stat.node)
        except (KeyError, ValueError):
            continue
        if len(stat.output_shapes) != len(op.outputs):
            continue
        for tensor, shape in zip(op.outputs, stat.output_shapes):
            if tensor.shape.is_fully_defined():
                continue
            if tensor.shape.is_compatible_with(shape):
                known[tensor.name] = list(shape)
            else:
                sys.stderr.write(f"Node {stat.node} incompatible shapes: {tensor.shape} "
                                 f"and {list(shape)}.\n")
    return known


class ModelStats:
    """The nodes of a graph, by name, with what op logs and traced steps added;
    ``known`` (``runtime_shapes``) completes the shapes the graph does not know."""

    def __init__(self, graph, known: dict | None = None):
        self.nodes: dict[str, ProfNode] = {}
        self.steps: set[int] = set()
        self._known = known or {}
        for op in graph.get_operations():
            self._add_graph_node(op)

    def _add_graph_node(self, op) -> None:
        if op.name in self.nodes:
            return
        node = ProfNode(op.name, op.type, len(self.nodes), {op.type})
        signature = tf_signature(op.type) or {}
        if signature.get("attrs", {}).get("shape", {}).get("type") == "shape":
            node.shape = shape_list(op.attrs["shape"])
        sources: list = [(t.op.name, t.value_index) for t in op.inputs]
        sources += _attr_inputs(op)
        sources += [(c.name, 0) for c in op.control_inputs]
        node.inputs = dict(enumerate(sources))
        node.output_shapes = {k: self._known.get(t.name) or shape_list(t.shape)
                              for k, t in enumerate(op.outputs)}
        self.nodes[op.name] = node

    def add_op_log(self, op_log) -> None:
        for entry in op_log.log_entries:
            node = self.nodes.get(entry.name)
            if node is None:
                continue
            node.types.update(entry.types)
            if entry.float_ops:
                node.static_float_ops = entry.float_ops

    def add_run_meta(self, step: int, run_meta) -> None:
        """A traced step's node times (a ``ds.RunMetadata``)."""
        self.steps.add(step)
        for stat in run_meta.step_stats:
            if stat.op == "_Output":        # an output taken out of a node's results
                continue
            name = stat.node.split(":")[0]
            node = self.nodes.get(name)
            if node is None:
                if _UNTRACKED.fullmatch(name):
                    continue
                node = self.nodes[name] = ProfNode(name, name, len(self.nodes), {name})
            run = node.execs.setdefault(step, _Exec())
            micros = int(round(stat.duration * 1e6))
            run.run_count += 1
            if "GPU" in stat.device.upper():
                run.accelerator_micros += micros
            else:
                run.cpu_micros += micros
            run.devices.add(stat.device)


def logged_ops(graph, known: dict | None = None, report_missing: bool = True) -> dict:
    """The op log a profile starts from (TF's ``tfprof_logger``), by op name: each op's
    float ops where its op type has a count, and the ``_trainable_variables`` type on
    the trainable variables' ops.  Ops whose count needs a shape the graph does not
    know get none; with ``report_missing``, their number goes to stderr, as TF's
    profiler reports it.  ``known``: shapes a traced step showed (``runtime_shapes``)."""
    entries, missing = {}, 0
    for op in graph.get_operations():
        try:
            count = flops.float_ops(op, known)
        except flops.IncompleteShape:
            missing, count = missing + 1, None
        if count:
            entries[op.name] = OpLogEntry(name=op.name, float_ops=count)
    for variable in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
        name = variable.op.name
        entries.setdefault(name, OpLogEntry(name=name)).types.append(TRAINABLE_VARIABLES)
    if missing and report_missing:
        sys.stderr.write(f"{missing} ops no flops stats due to incomplete shapes.\n")
    return entries
