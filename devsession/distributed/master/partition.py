"""Cut a placed graph into one partition per task, joined by ``_Send``/``_Recv`` pairs.

Pure logic: graph ops and their placements in, GraphDefs out; tested without sockets.

For one signature (feeds, fetches, targets) the partitioner keeps the ops the fetches
and targets need (``runtime.plan.needed_ops``), and gives each task the ops placed on
it.  Every data edge whose ends are on different tasks becomes a ``_Send`` on the
producer's task and a ``_Recv`` on the consumer's (one pair per tensor and consuming
task, however many consumers read it there); a control edge across tasks becomes a pair
carrying an empty token, the consumer taking a control input on the ``_Recv``.  An op
waiting on several ops of another task waits for one token, sent after a ``NoOp`` there
that waits for them all (a train op on a worker waiting on a ps's six updates cost six
round trips at the end of every data-parallel step: 3-4% of it).  Within a
task, values move between devices through the plan builder's own transfers, so sends
and receives always sit on the task's CPU:0.

A constant read on another task is not sent there on every step: each task that reads
it gets its own copy of the ``Const`` node (registered once, like the rest of its
partition), and a task runs the original only if it reads it itself.  (An optimizer's
learning rate, made on the client's default task and read on the ps, cost a message on
every step's critical path.)

The client talks to the master's task only, so feeds enter there (a ``Placeholder``
per fed tensor, sent on to whichever task consumes it) and fetches end there (a value
made elsewhere is sent to the master's task).  Partitions other than the master's have
no feeds or fetches, only targets: their sends and the user's targets placed there.

Deadlock freedom.  Every worker runs its partition's nodes one after another, in the
order of the partition's GraphDef, which is sorted by a key derived from one global
topological order (the graph's creation order): an op at position i has key (i, 0),
the send of its output (i, 1, ...), the receive of that output (j, -1, ...), where j > i
is the position of its first reader on the receiving task (a receive waits just before
the op that needs it, so the work before that op overlaps the transfer: a tower starts
its first layer while the ps still sends the next layer's weights); feeds come first.
Sends never wait for their receiver.  Take the pending node with the smallest key
across all partitions: every input of an op precedes it in the key order, so it has
run; a send's input is its op, which has run; a receive's send has a smaller key, so it
has run and its value is on the way.  So some node can always make progress, whatever
the graph.  (The worker imports a GraphDef in its given order when that order is
topological, which this one is, and the optimizer only ever moves work later into a
fused op at its root's position, never a send later or a receive earlier.)
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

from ... import dtypes
from ...errors import InvalidArgumentError
from ...ops.registry import get_op_def
from ...proto import graph_pb2
from ...runtime.plan import check_feeds_cover_placeholders, needed_ops, variables_read_after
from ...tensor_codec import shape_to_proto
from ..worker.send_recv import RECV_OP, SEND_OP

__all__ = ["Partition", "PartitionPlan", "partition_graph", "HOST_DEVICE"]

HOST_DEVICE = "/device:CPU:0"
RESERVED_PREFIX = ".ds/"


@dataclasses.dataclass
class Partition:
    """The part of one signature's graph that one task runs."""

    task: str
    nodes: list                      # graph_pb2.NodeDef, in execution order
    feeds: list                      # tensor names fed on every step (master only)
    fetches: list                    # tensor names returned on every step (master only)
    targets: list                    # op names run on every step

    def graph_def(self) -> graph_pb2.GraphDef:
        out = graph_pb2.GraphDef(version=1)
        out.node.extend(self.nodes)
        return out

    def sends_to(self) -> set:
        return {n.attr["peer_task"].s.decode() for n in self.nodes if n.op == SEND_OP}


@dataclasses.dataclass
class PartitionPlan:
    """Every task's partition of one signature, and where each node runs."""

    master_task: str
    partitions: dict                 # task -> Partition
    placements: dict                 # node name -> Placement (needed nodes only)

    @property
    def remote_tasks(self) -> list:
        return sorted(t for t in self.partitions if t != self.master_task)


def partition_graph(graph_ops: Sequence, feeds: Sequence, fetches: Sequence,
                    targets: Sequence, placements: dict, master_task: str,
                    node_def: Callable) -> PartitionPlan:
    """Partition one signature (see the module docstring).

    ``graph_ops`` is the graph's ops in creation order; ``placements`` maps the name of
    every needed op (and of every variable a needed op assigns to) to its
    ``Placement`` (its device names the task); ``node_def(op)`` returns the op's
    ``NodeDef``.
    """
    return _Partitioner(graph_ops, feeds, placements, master_task, node_def).run(
        fetches, targets)


class _Partitioner:
    def __init__(self, graph_ops, feeds, placements, master_task, node_def):
        self.position = {op: i for i, op in enumerate(graph_ops)}
        self.feeds = list(feeds)
        self.fed = set(feeds)
        self.placements = placements
        self.master = master_task
        self.node_def = node_def
        self.names = {op.name for op in graph_ops}
        self.keyed: dict = {}          # task -> list of (key, NodeDef)
        self.partitions: dict = {}     # task -> Partition
        self.feed_source: dict = {}    # fed tensor -> placeholder tensor name on the master
        self.pairs: dict = {}          # (tensor or ("^", op), dst task) -> name on dst
        self.included: set = set()     # ops already in some partition

    # --- partitions and names ------------------------------------------------------------

    def part(self, task: str) -> Partition:
        if task not in self.partitions:
            self.partitions[task] = Partition(task, [], [], [], [])
            self.keyed[task] = []
        return self.partitions[task]

    def add(self, task: str, key: tuple, node) -> None:
        self.part(task)
        self.keyed[task].append((key, node))

    def fresh(self, base: str) -> str:
        name = RESERVED_PREFIX + base
        candidate, n = name, 1
        while candidate in self.names:
            candidate = f"{name}_{n}"
            n += 1
        self.names.add(candidate)
        return candidate

    def task_of(self, op) -> str:
        return self.placements[op.name].device.task_name

    # --- the cut -----------------------------------------------------------------------

    def run(self, fetches, targets) -> PartitionPlan:
        needed = needed_ops(fetches, targets, self.fed)
        order = sorted(needed, key=self.position.__getitem__)
        check_feeds_cover_placeholders(order)
        for k, t in enumerate(self.feeds):
            name = self.fresh(f"feed/{t.op.name}")
            node = graph_pb2.NodeDef(name=name, op="Placeholder", device=HOST_DEVICE)
            node.attr["dtype"].type = t.dtype.enum
            shape_to_proto(t.shape, node.attr["shape"].shape)
            self.add(self.master, (k - len(self.feeds), 0, ""), node)
            self.feed_source[t] = f"{name}:0"
            self.part(self.master).feeds.append(f"{name}:0")
        for op in order:
            if not _copyable(op):        # constants: where they are read (bring)
                self.include(op)
        for t, read_after in zip(fetches, variables_read_after(fetches, order, self.fed)):
            self.part(self.master).fetches.append(
                self.bring(t, self.master, len(self.position)) if read_after is None
                else self.read_after_step(*read_after))
        for op in targets:
            self.include(op)
            self.part(self.task_of(op)).targets.append(op.name)
        for task, part in self.partitions.items():
            part.nodes = [node for _, node in sorted(self.keyed[task], key=lambda kn: kn[0])]
            part.targets.extend(n.name for n in part.nodes if n.op == SEND_OP)
        placed = {op.name: self.placements[op.name] for op in needed}
        return PartitionPlan(self.master, self.partitions, placed)

    def include(self, op) -> None:
        """Add a needed op to its task's partition, its inputs brought to that task."""
        if op in self.included:
            return
        task = self.task_of(op)
        node = graph_pb2.NodeDef()
        node.CopyFrom(self.node_def(op))
        node.device = str(self.placements[op.name].device.local())
        refs = get_op_def(op.type).ref_inputs
        inputs = []
        for j, t in enumerate(op.inputs):
            if j in refs:
                self.include_variable(t.op, task)
                inputs.append(t.name)
            else:
                inputs.append(self.bring(t, task, self.position[op]))
        inputs.extend(self.bring_controls(op.control_inputs, task))
        del node.input[:]
        node.input.extend(inputs)
        self.add(task, (self.position[op], 0, ""), node)
        self.included.add(op)

    def read_after_step(self, var, changers) -> str:
        """The name on the master task of ``var``'s value once ``changers`` (ops of this
        run that change it, on its task: assignments run with their variable) have run:
        a ``_ReadVariable`` waiting for them, last in the variable's partition
        (``variables_read_after``)."""
        task, end = self.task_of(var), len(self.position)
        self.include_variable(var, task)
        read = graph_pb2.NodeDef(name=self.fresh(f"{var.name}/read_after_step"),
                                 op="_ReadVariable",
                                 device=str(self.placements[var.name].device.local()))
        read.input.append(var.name)
        read.input.extend(f"^{op.name}" for op in changers)
        self.add(task, (end, 0, ""), read)
        value = f"{read.name}:0"
        if task == self.master:
            return value
        key = f"{task};{self.master};{value}"
        send = self.transfer_node(SEND_OP, f"send/{read.name}", key, self.master, value)
        send.input.append(value)
        recv = self.transfer_node(RECV_OP, f"recv/{read.name}", key, task, value)
        recv.attr["dtype"].type = var.outputs[0].dtype.base_dtype.enum
        shape_to_proto(var.outputs[0].shape, recv.attr["shape"].shape)
        self.add(task, (end, 1, self.master), send)
        self.add(self.master, (end, -1, task), recv)
        return f"{recv.name}:0"

    def include_variable(self, var, task: str) -> None:
        """A variable an assign refers to (not necessarily read) must exist on its task."""
        if var in self.included:
            return
        if self.task_of(var) != task:
            raise InvalidArgumentError(
                f"Variable '{var.name}' is on {self.task_of(var)} but an op assigning to it "
                f"is on {task}; assignments run with their variable.", var.name)
        node = graph_pb2.NodeDef()
        node.CopyFrom(self.node_def(var))
        node.device = str(self.placements[var.name].device.local())
        del node.input[:]              # only referred to here, never run for its inputs
        self.add(task, (self.position[var], 0, ""), node)
        self.included.add(var)

    def source(self, t) -> tuple[str, str, int]:
        """(task, tensor name there, position) where the value of ``t`` comes from."""
        if t in self.fed:
            return self.master, self.feed_source[t], self.feeds.index(t) - len(self.feeds)
        return self.task_of(t.op), t.name, self.position[t.op]

    def bring(self, t, dst: str, reader: int) -> str:
        """The name under which tensor ``t``'s value is available on task ``dst``, for a
        reader at position ``reader`` (a receive sits just before its first reader)."""
        src, name, position = self.source(t)
        if t not in self.fed and _copyable(t.op):
            if src == dst:
                self.include(t.op)
                return name
            return self.copy_constant(t, dst, position)
        if src == dst:
            return name
        pair = (t, dst)
        if pair not in self.pairs:
            key = f"{src};{dst};{t.name}"
            send = self.transfer_node(SEND_OP, f"send/{t.op.name}", key, dst, t.name)
            send.input.append(name)
            recv = self.transfer_node(RECV_OP, f"recv/{t.op.name}", key, src, t.name)
            recv.attr["dtype"].type = t.dtype.enum
            shape_to_proto(t.shape, recv.attr["shape"].shape)
            self.add(src, (position, 1, dst), send)
            self.add(dst, (reader, -1, src), recv)
            self.pairs[pair] = f"{recv.name}:0"
        return self.pairs[pair]

    def copy_constant(self, t, dst: str, position: int) -> str:
        """A copy of constant ``t``'s node on task ``dst`` (one per task)."""
        pair = (t, dst)
        if pair not in self.pairs:
            node = graph_pb2.NodeDef()
            node.CopyFrom(self.node_def(t.op))
            node.name = self.fresh(f"const/{t.op.name}")
            node.device = HOST_DEVICE
            self.add(dst, (position, 0, ""), node)
            self.pairs[pair] = f"{node.name}:0"
        return self.pairs[pair]

    def bring_controls(self, controls, dst: str) -> list:
        """The control inputs on task ``dst`` that fire after ops ``controls`` ran: one
        token from each other task, however many of the ops run there (a train op
        waiting on a ps's updates waits for one message, not one per variable)."""
        out, elsewhere = [], {}
        for c in controls:
            if c.name not in self.placements:    # fed (a placeholder's op): not run at all
                continue
            if _copyable(c):             # a constant "runs" wherever it is read
                self.include(c)
            src = self.task_of(c)
            if src == dst:
                out.append(f"^{c.name}")
            else:
                elsewhere.setdefault(src, []).append(c)
        for src, ops in elsewhere.items():
            out.append(self.bring_control(ops[0], src, dst) if len(ops) == 1
                       else self.bring_joined(ops, src, dst))
        return out

    def bring_joined(self, ops, src: str, dst: str) -> str:
        """A control input on ``dst`` that fires after all of ``ops`` (on task ``src``)
        ran: a NoOp on ``src`` waits for them, and its token crosses once.  It sits at
        the position of the last of them, so the order argument holds."""
        pair = (("^", tuple(sorted(op.name for op in ops))), dst)
        if pair not in self.pairs:
            last = max(self.position[op] for op in ops)
            base = f"join/{ops[0].name}"
            join = graph_pb2.NodeDef(name=self.fresh(base), op="NoOp", device=HOST_DEVICE)
            join.input.extend(f"^{op.name}" for op in ops)
            self.add(src, (last, 0, join.name), join)
            self.pairs[pair] = self.token(join.name, base, src, dst, last)
        return self.pairs[pair]

    def bring_control(self, c, src: str, dst: str) -> str:
        """The control input on task ``dst`` that fires after op ``c`` ran on ``src``."""
        pair = (("^", c), dst)
        if pair not in self.pairs:
            self.pairs[pair] = self.token(c.name, c.name, src, dst, self.position[c])
        return self.pairs[pair]

    def token(self, name: str, base: str, src: str, dst: str, position: int) -> str:
        """An empty token sent from ``src`` once node ``name`` ran there; the control
        input on ``dst`` that waits for it (transfer nodes named after ``base``)."""
        key = f"{src};{dst};^{name}"
        send = self.transfer_node(SEND_OP, f"send/^{base}", key, dst, f"^{name}")
        send.input.append(f"^{name}")
        recv = self.transfer_node(RECV_OP, f"recv/^{base}", key, src, f"^{name}")
        recv.attr["dtype"].type = dtypes.bool_.enum      # an empty token
        recv.attr["shape"].shape.dim.add(size=0)
        self.add(src, (position, 1, "^" + dst), send)
        self.add(dst, (position, 2, "^" + src), recv)
        return f"^{recv.name}"

    def transfer_node(self, op_type: str, base: str, key: str, peer: str, what: str):
        node = graph_pb2.NodeDef(name=self.fresh(base.replace("^", "ctl-")), op=op_type,
                                 device=HOST_DEVICE)
        node.attr["key"].s = key.encode()
        node.attr["peer_task"].s = peer.encode()
        node.attr["tensor_name"].s = what.encode()
        return node


def _copyable(op) -> bool:
    """A constant with nothing to wait for: the same value on any task."""
    return op.type == "Const" and not op.inputs and not op.control_inputs


def placement_entries(plan: PartitionPlan) -> list[tuple]:
    """(node name, device) sorted by node name, for logs and PrepareStep replies."""
    return sorted(plan.placements.items())


__all__ += ["placement_entries", "RESERVED_PREFIX"]
