"""TF1's while loops (``Enter``/``Merge``/``Switch``/``LoopCond``/``NextIteration``/``Exit``)
in a GraphDef -> one node per loop, before import.

``tf.while_loop`` under ``tf.disable_v2_behavior()`` (and ``tf.nn.dynamic_rnn``...) builds
TF1's *v1* loop: a *frame* of nodes that run once per iteration.  Per loop variable
``Enter(init)`` (``is_constant`` false) feeds ``Merge(Enter, NextIteration)``, which the
cond reads; ``Switch(Merge, LoopCond)`` sends the value out through ``Exit`` (output 0)
when the cond is false, into the body through an ``Identity`` (output 1) when true; the
body's result goes back through ``NextIteration``.  ``Enter`` with ``is_constant`` true
brings an outer tensor in unchanged.  devsession's loops are functional ``While`` ops
(``ops/control_flow.py``); ``functionalize_whiles`` rewrites the one into the other, as
TensorFlow's ``functionalize_while`` does:

1. **Frames.**  Ignoring the ``NextIteration`` back edges, in topological order every
   node gets its stack of frames: an ``Enter`` pushes its ``frame_name``, an ``Exit``
   pops, any other node takes the deepest stack among its inputs (control inputs too:
   TF anchors a loop's constants to its pivots by control edges).  A node reading two
   frames that are not nested is refused.
2. **Loops.**  The nodes whose stack starts with one frame are one top-level loop (a loop
   nested in it among them).  Its loop variables are its ``Enter`` nodes with
   ``is_constant`` false, in GraphDef order, each with its Merge, Switch, Exit and
   NextIteration; its invariants the tensors its ``is_constant`` Enters read.
3. **Functions.**  The cond is every node of the frame that ``LoopCond``'s input needs,
   reading a Merge as its loop variable; the body every node the NextIterations' inputs
   need, reading a ``Switch:1`` (or a Merge) as its loop variable.  Each is a GraphDef,
   functionalized in turn (``functionalize``: nested loops, then conds, inner first)
   when it is; a tensor it reads from outside the frame, or through an invariant Enter,
   is captured.  Control edges to the frame's Merges and Switches are dropped (a loop
   variable has no effect to wait for).  A stateless node neither needs is dropped.
4. **Rewrite.**  The loop becomes one node of type ``WHILE_OP`` (inputs: the loop
   variables' initial values, the captured tensors, the ops the functions wait for),
   built as a ``While`` while the graph is imported (``tf_while_build.py``); each Exit
   becomes an ``Identity`` of its loop variable's ``While`` output under the Exit's name.

Example: ``tf.while_loop(lambda i: i < n, lambda i: i + 1, [0])`` holds ``Enter(Const)``,
``Merge(Enter, NextIteration)``, ``Less(Merge, Enter_1(n))``, ``LoopCond(Less)``,
``Switch(Merge, LoopCond)``, ``Identity(Switch:1)``, ``add(Identity, 1)``,
``NextIteration(add)``, ``Exit(Switch)``; it becomes ``while/While(Const, n)`` (cond:
``Less(i, n)``; body: ``add(i, 1)``) and ``while/Exit = Identity(while/While:0)``.

TensorFlow's TensorArrays (``dynamic_rnn``, ``tf.scan``, ``tf.map_fn``) are mapped to
devsession's value TensorArrays before this pass (``tf_tensor_array_import.py``): their
flows are then loop variables like any other, two per array (its values and lengths).

Refused with ``UnimplementedError`` naming the node: a frame without exactly one
``LoopCond``, a loop variable whose Merge/Switch is not the usual form, a cond or body
reading what a functional loop cannot give it (a ``LoopCond``, an ``Exit``...), a
stateful node neither the cond nor the body needs, and ``RefEnter``/``RefExit``/
``RefNextIteration``.  (A node reading a loop's tensor is in its frame, so one that
neither function needs, and that has no effect, is dropped: TF would not give its value
either.)
"""

from __future__ import annotations

import dataclasses

from .errors import UnimplementedError
from .proto import graph_pb2
from .tf_cond_import import functionalize_conds
from .tf_graph_passes import (FunctionPart, check_control_flow_inputs, cut_function,
                              loop_back_edge, may_have_effects,
                              nodes_in_order, registered_builder, split_input, tensor_key,
                              unique_name, with_nodes, without_controls)

__all__ = ["WHILE_OP", "WhilePlan", "functionalize", "functionalize_whiles", "build_while"]

WHILE_OP = "_TFV1While"
LOOP_OPS = frozenset({"Enter", "Exit", "NextIteration", "LoopCond"})
REF_LOOP_OPS = frozenset({"RefEnter", "RefExit", "RefNextIteration"})


@dataclasses.dataclass
class WhilePlan:
    """A loop to build as a ``While`` of ``loop_vars`` variables; ``cond`` returns the
    predicate, ``body`` the next values (``tf_graph_passes.FunctionPart``s whose "arg"
    is a loop variable); ``names`` the loop variables' Merges (names for the function
    arguments)."""
    name: str
    loop_vars: int
    cond: FunctionPart
    body: FunctionPart
    names: list
    parallel_iterations: int


# --- the builder (registered by tf_while_build.py, which needs function graphs) -------------

def build_while(plan: WhilePlan, data: list, controls: list, graph, name: str):
    """The While of ``plan``, whose node's data inputs ``data`` are (*inits, *captured),
    by the builder ``fn(plan, inits, captured, controls, graph, name)`` registered for
    ``WHILE_OP``."""
    builder = registered_builder(WHILE_OP, "TF1 while loops", "devsession.tf_while_build",
                                 plan.name)
    return builder(plan, data[:plan.loop_vars], data[plan.loop_vars:], controls, graph, name)


# --- the pass ---------------------------------------------------------------------------------

def functionalize(graph_def: graph_pb2.GraphDef, known: dict | None = None):
    """(GraphDef, {node name: WhilePlan or CondPlan}): ``graph_def`` with its TF1 loops,
    then its TF1 conds, rewritten into single nodes.  ``known``: the plans of nodes an
    earlier pass made (TensorList ops, TF2's functional conds and loops): a loop's or a
    cond's function holding one takes its plan along, and the others are returned with
    the new ones.  Raises ``UnimplementedError`` for what does not import yet,
    ``InvalidArgumentError`` for a malformed control-flow node."""
    check_control_flow_inputs(graph_def)
    graph_def, loops = functionalize_whiles(graph_def, known)
    return functionalize_conds(graph_def, loops)


def functionalize_whiles(graph_def: graph_pb2.GraphDef, known: dict | None = None):
    """(GraphDef, {node name: plan}): ``graph_def`` with its top-level TF1 loops
    rewritten (see the module docstring), or itself and ``known`` when it holds none;
    the plans are the loops' and those of ``known`` no loop took along."""
    known = dict(known or {})
    for node in graph_def.node:
        if node.op in REF_LOOP_OPS:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}): a TF1 while loop over a variable's "
                f"reference does not import; freeze the graph (its variables become "
                f"constants) or read the variable before the loop.", node.name)
    if not any(node.op in LOOP_OPS for node in graph_def.node):
        return graph_def, known
    walk = nodes_in_order(graph_def, skip=loop_back_edge)
    if walk is None:
        return graph_def, known
    nodes, order = walk
    return _Rewrite(graph_def, nodes, _frames(nodes, order), known).run()


def _frames(nodes: dict, order: list) -> dict:
    """The frame stack of every node (step 1 of the module docstring)."""
    of: dict = {}
    for name in order:
        node = nodes[name]
        deepest = ()
        for text in node.input:
            producer = nodes.get(split_input(text)[0])
            if producer is None or loop_back_edge(producer):
                continue
            frames = of[producer.name]
            if frames[:len(deepest)] == deepest:
                deepest = frames
            elif deepest[:len(frames)] != frames:
                raise UnimplementedError(
                    f"Node '{name}' ({node.op}) reads tensors of two TF1 while loops that "
                    f"are not nested; this does not import.", name)
        if node.op == "Enter":
            deepest = deepest + (node.attr["frame_name"].s.decode(),)
        elif node.op == "Exit":
            if not deepest:
                raise UnimplementedError(f"Node '{name}' (Exit) leaves no while loop.", name)
            deepest = deepest[:-1]
        of[name] = deepest
    return of


class _Rewrite:
    """Steps 2 to 4 of the module docstring for the top level of one GraphDef."""

    def __init__(self, graph_def, nodes: dict, frames: dict, known: dict):
        self.graph_def, self.nodes, self.frames = graph_def, nodes, frames
        self.known = known              # plans of nodes, which loops take along
        self.taken: set = set()         # the nodes of ``known`` a loop's function holds
        self.names = set(nodes)
        self.readers: dict = {}
        for node in graph_def.node:
            for text in node.input:
                self.readers.setdefault(split_input(text)[0], []).append(node.name)

    def run(self):
        loops: dict = {}
        for node in self.graph_def.node:          # GraphDef order, so plans are stable
            if self.frames[node.name]:
                loops.setdefault(self.frames[node.name][0], []).append(node.name)
        plans, replaced, added, removed = {}, {}, [], set()
        for frame, members in loops.items():
            plan, node, exits = _Loop(self, frame, members).plan()
            plans[plan.name] = plan
            added.append(node)
            replaced.update(exits)
            removed.update(members)
        kept = [replaced.get(node.name, node) for node in self.graph_def.node
                if node.name in replaced or node.name not in removed]
        left = {name: plan for name, plan in self.known.items() if name not in self.taken}
        return with_nodes(self.graph_def, kept + added), {**left, **plans}


class _Loop:
    """One top-level frame: its loop variables, cond and body (steps 2 and 3)."""

    def __init__(self, rewrite: _Rewrite, frame: str, members: list):
        self.rewrite, self.frame, self.members = rewrite, frame, members
        self.nodes = rewrite.nodes
        self.member_set = set(members)
        own = [n for n in members if rewrite.frames[n] == (frame,)]
        enters = self.enters = [n for n in own if self.nodes[n].op == "Enter"]
        self.invariants = {n for n in enters if self.nodes[n].attr["is_constant"].b}
        conds = [n for n in own if self.nodes[n].op == "LoopCond"]
        if len(conds) != 1:
            raise UnimplementedError(
                f"Node '{members[0]}': the TF1 while loop '{frame}' has {len(conds)} "
                f"LoopCond nodes, not one; this does not import.", members[0])
        self.loop_cond = conds[0]
        self.vars = [self._variable(n) for n in enters if n not in self.invariants]
        self.merges = {v["merge"]: k for k, v in enumerate(self.vars)}
        self.switches = {v["switch"]: k for k, v in enumerate(self.vars)}
        self.variable_nodes = self.merges.keys() | self.switches.keys()
        self.structure = ({*enters, self.loop_cond} | set(self.merges) | set(self.switches)
                          | {v["next"] for v in self.vars} | {v["exit"] for v in self.vars})
        self.captured: dict = {}
        self.controls: dict = {}
        self.used: set = set()

    def _variable(self, enter: str) -> dict:
        """The Merge, Switch, NextIteration and Exit (or None) of the loop variable that
        ``enter`` brings in."""
        def reader(of: str, op: str, index: int = 0) -> str | None:
            for name in self.rewrite.readers.get(of, ()):
                node = self.nodes[name]
                if node.op == op and any(split_input(t) == (of, index) for t in node.input):
                    return name
            return None

        merge = reader(enter, "Merge")
        switch = merge and reader(merge, "Switch")
        nexts = merge and [t for t in self.nodes[merge].input
                           if self.nodes.get(split_input(t)[0]) is not None
                           and self.nodes[split_input(t)[0]].op == "NextIteration"]
        if not merge or not switch or len(nexts) != 1 \
                or split_input(self.nodes[switch].input[1])[0] != self.loop_cond:
            raise UnimplementedError(
                f"Node '{enter}' (Enter): its loop variable is not TF1's Enter -> "
                f"Merge(Enter, NextIteration) -> Switch(Merge, LoopCond) form; this "
                f"does not import.", enter)
        return {"enter": enter, "merge": merge, "switch": switch,
                "next": split_input(nexts[0])[0], "exit": reader(switch, "Exit")}

    def plan(self):
        if not self.vars:
            raise UnimplementedError(f"Node '{self.loop_cond}': the TF1 while loop "
                                     f"'{self.frame}' has no loop variables.", self.loop_cond)
        base = self.frame.rpartition("/")[0] or "while"
        name = unique_name(self.rewrite.names, f"{base}/While")
        cond = self._function([self.nodes[self.loop_cond].input[0]], body=False)
        body = self._function([self.nodes[v["next"]].input[0] for v in self.vars], body=True)
        self._check_dead_ends()
        first = self.nodes[self.vars[0]["enter"]]
        parallel = first.attr["parallel_iterations"].i or 10
        plan = WhilePlan(name, len(self.vars), cond, body, [v["merge"] for v in self.vars],
                         parallel)
        inits = [self.nodes[v["enter"]].input[0] for v in self.vars]
        enter_controls = [t for n in self.enters for t in self.nodes[n].input[1:]
                          if t.startswith("^")]
        node = graph_pb2.NodeDef(name=name, op=WHILE_OP, device=first.device,
                                 input=[*inits, *self.captured,
                                        *dict.fromkeys([*(f"^{c}" for c in self.controls),
                                                        *enter_controls])])
        exits = {}
        for k, v in enumerate(self.vars):
            if v["exit"] is not None:
                exit_node = self.nodes[v["exit"]]
                exits[v["exit"]] = graph_pb2.NodeDef(
                    name=v["exit"], op="Identity", device=exit_node.device,
                    input=[f"{name}:{k}", *(t for t in exit_node.input[1:]
                                            if t.startswith("^")
                                            and split_input(t)[0] not in self.member_set)])
        return plan, node, exits

    # --- cond and body ------------------------------------------------------------

    def _function(self, outputs: list, body: bool) -> FunctionPart:
        names = self._needed(outputs, body)
        graph_def = graph_pb2.GraphDef()
        for name in self.members:                # GraphDef order
            if name in names:
                graph_def.node.append(self._without_variable_controls(self.nodes[name]))
        self.used |= names
        known = {n: self.rewrite.known[n] for n in names if n in self.rewrite.known}
        self.rewrite.taken.update(known)
        graph_def, plans = functionalize(graph_def, known)
        return cut_function(graph_def, outputs, plans, lambda key: self._external(key, body))

    def _needed(self, outputs: list, body: bool) -> set:
        """The frame's nodes that computing ``outputs`` runs, up to the loop variables."""
        needed, stack = set(), [split_input(t)[0] for t in outputs]
        while stack:
            name = stack.pop()
            if name in needed or name not in self.member_set:
                continue
            if name in self.structure:
                self._check_readable(name, body)
                continue
            needed.add(name)
            stack.extend(split_input(t)[0] for t in self.nodes[name].input)
        return needed

    def _check_readable(self, name: str, body: bool) -> None:
        op = self.nodes[name].op
        if name in self.merges or name in self.invariants or (body and name in self.switches):
            return
        raise UnimplementedError(
            f"Node '{name}' ({op}) of the TF1 while loop '{self.frame}' is read by its "
            f"{'body' if body else 'cond'}, which a functional loop cannot do.", name)

    def _external(self, key: str, body: bool) -> tuple:
        producer, index = split_input(key)
        if producer in self.merges and index == 0:
            return ("arg", self.merges[producer])
        if body and producer in self.switches and index == 1:
            return ("arg", self.switches[producer])
        if producer in self.invariants:
            source = self.nodes[producer].input[0]
            if index < 0:
                producer, index = split_input(source)[0], -1
            else:
                return ("data", self.captured.setdefault(tensor_key(*split_input(source)),
                                                         len(self.captured)))
        elif producer in self.member_set:
            raise UnimplementedError(
                f"Node '{producer}' ({self.nodes[producer].op}): output {index} of it is "
                f"read inside the TF1 while loop '{self.frame}' in a form that does not "
                f"import.", producer)
        if index < 0:
            return ("control", self.controls.setdefault(producer, len(self.controls)))
        return ("data", self.captured.setdefault(key, len(self.captured)))

    def _without_variable_controls(self, node):
        """``node`` without control inputs on the loop's Merges and Switches (a loop
        variable has no effect to wait for)."""
        return without_controls(node, self.variable_nodes)

    def _check_dead_ends(self) -> None:
        for name in self.members:
            if name in self.used or name in self.structure:
                continue
            op = self.nodes[name].op
            # an unused Exit of a nested loop is no effect
            if may_have_effects(op, unknown=op not in LOOP_OPS | {"Switch", "Merge"}):
                raise UnimplementedError(
                    f"Node '{name}' ({op}) runs in the TF1 while loop '{self.frame}' but "
                    f"neither its cond nor its body needs it: an effect no loop variable "
                    f"waits for does not import.", name)
