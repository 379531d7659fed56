"""TF1's conditionals (``Switch``/``Merge``) in a GraphDef -> one node per cond, before import.

A GraphDef that TF1 code built with ``tf.cond`` (and froze) holds TF1's *v1* control
flow: ``Switch(data, pred)`` forwards ``data`` on output 0 when ``pred`` is false, on
output 1 when true, and the other output is "dead"; everything computed from a dead
tensor is dead; ``Merge(a, b)`` outputs its one live input (and, as output 1, which one
it was).  devsession has no dead tensors: its conds are functional ``If`` ops whose
branches are functions (``ops/control_flow.py``).  ``functionalize_conds`` rewrites the
one into the other, as TensorFlow's own ``functionalize_cond`` pass does:

1. **Frames.**  In topological order every node gets the stack of branches it runs in:
   a Switch's output k adds ``(predicate, k)`` to the Switch's own stack, a Merge drops
   the top frame of its inputs (which must be the two branches of one predicate), any
   other node takes the deepest stack among its inputs, control inputs included (TF
   anchors a branch's constants to the branch by a control edge from its pivot, an
   ``Identity`` of ``Switch(pred, pred)``).  A predicate is its tensor seen through
   ``Identity`` nodes (TF's ``pred_id``).  A node reading two branches that never run
   together is refused.
2. **Conds.**  The nodes outside every branch are the top level.  Connected through
   edges that carry branch tensors, the top-level Switches, the nodes in branches and
   the Merges joining them fall apart into conds; the Switches of one ``tf.cond`` (which
   all read its ``pred_id``, its pivot Switch sitting beside it) are one cond even where
   their branches do not touch.
3. **Rewrite.**  Each cond becomes one node of type ``COND_OP`` (inputs: the predicate,
   every tensor its branches read from the top level, the ops they wait for), built as
   an ``If`` while the graph is imported (``tf_cond_build.py``).  Each Merge becomes an
   ``Identity`` of its ``If`` output under the Merge's name, so names still resolve;
   one whose ``value_index`` something reads becomes an ``IdentityN`` of that output and
   of an int32 the branches return (the index of their Merge input).  A branch is a
   GraphDef of its nodes; a cond nested in it is rewritten the same way, inner first,
   when the branch is.

Example: ``y = tf.cond(p, lambda: x * 2, lambda: x)`` holds ``Switch(x, pred_id)``,
``mul = Mul(Switch:1, Const ^switch_t)`` and ``Merge(Switch:0, mul)``; it becomes
``cond/If(p, x)`` (then: ``mul`` of the captured ``x``; else: the captured ``x``) and
``cond/Merge = Identity(cond/If:0)``.

TF1's while loops are taken apart before (``tf_while_import.py``): their Switches and
Merges are not conds.  Refused with ``UnimplementedError`` naming the node: a while
loop's node left in the GraphDef (``Enter``, ``Exit``, ``NextIteration``, ``LoopCond``:
``functionalize_conds`` called without that pass), ``RefMerge`` and a ``RefSwitch`` of
anything but a variable (a ``RefSwitch`` of one, as TF1's batch norm following a
``training`` placeholder assigns its moving averages in conds, is captured as the
variable: the branch's assignment updates it), a cond whose branch reads the cond's own
Merge (TF1's gradient of a cond), a Merge that does not join the two branches of one
predicate, and a branch whose outputs no Merge joins
but which holds an op with effects (a stateless dead end, such as an unused pivot, is
dropped).
"""

from __future__ import annotations

import dataclasses

from .errors import UnimplementedError
from .proto import graph_pb2
from .tf_graph_passes import (cut_function, may_have_effects, nodes_in_order,
                              registered_builder, split_input, tensor_key, unique_name,
                              with_nodes, without_controls)

__all__ = ["COND_OP", "CondPlan", "functionalize_conds", "build_cond"]

COND_OP = "_TFV1Cond"
WHILE_OPS = frozenset({"Enter", "Exit", "NextIteration", "LoopCond", "RefEnter", "RefExit",
                       "RefNextIteration"})
SWITCHES = frozenset({"Switch", "RefSwitch"})


@dataclasses.dataclass
class CondPlan:
    """A cond to build as an ``If``: ``branches[k]`` (a ``tf_graph_passes.FunctionPart``,
    one output per Merge, reading no "arg") runs when the predicate is ``k`` (the Switch
    output it hangs off); ``value_indices`` (false, true) per Merge whose
    ``value_index`` is read, returned after the Merges' values."""
    name: str
    branches: tuple
    value_indices: list


# --- the builder (registered by tf_cond_build.py, which needs function graphs) -----------

def build_cond(plan: CondPlan, data: list, controls: list, graph, name: str):
    """The If of ``plan``, whose node's data inputs ``data`` are (pred, *captured), by
    the builder ``fn(plan, pred, captured, controls, graph, name)`` registered for
    ``COND_OP``."""
    builder = registered_builder(COND_OP, "TF1 conds", "devsession.tf_cond_build", plan.name)
    return builder(plan, data[0], data[1:], controls, graph, name)


# --- the pass ------------------------------------------------------------------------------

def functionalize_conds(graph_def: graph_pb2.GraphDef, known: dict | None = None):
    """(GraphDef, {node name: CondPlan}): ``graph_def`` with its TF1 conds rewritten (see
    the module docstring), or itself and {} when it holds none.  ``known``: the plans of
    nodes an earlier pass made (TF1 loops); a branch holding one takes its plan along,
    and the others are returned with the conds'.  Raises ``UnimplementedError`` for
    what does not import yet."""
    known = dict(known or {})
    _refuse_unsupported(graph_def)
    if not any(node.op in (*SWITCHES, "Merge") for node in graph_def.node):
        return graph_def, known
    walk = nodes_in_order(graph_def)
    if walk is None:
        return graph_def, known
    nodes, order = walk
    frames = _Frames(nodes, order)
    graph_def, plans = _Rewrite(graph_def, nodes, frames, known).run()
    return graph_def, {**known, **plans}


def _refuse_unsupported(graph_def) -> None:
    for node in graph_def.node:
        if node.op in WHILE_OPS:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}) belongs to a TF1 while loop, which "
                f"tf_while_import.functionalize takes apart before the conds.", node.name)
        if node.op == "RefMerge" or (node.op == "RefSwitch" and not _switches_a_variable(
                node, graph_def)):
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}): TF1 control flow over a reference other "
                f"than a variable's (a RefSwitch of a VariableV2, as a cond that assigns "
                f"it holds) does not import; freeze the graph (its variables become "
                f"constants) or read the variable before the cond.", node.name)


def _switches_a_variable(node, graph_def) -> bool:
    producer, _ = split_input(node.input[0])
    return any(other.name == producer and other.op in ("VariableV2", "Variable")
               for other in graph_def.node)


class _Frames:
    """The branch stack of every node (step 1 of the module docstring)."""

    def __init__(self, nodes: dict, order: list):
        self.nodes = nodes
        self.of: dict = {}
        for name in order:
            node = nodes[name]
            self.of[name] = (self._merge_frames(node) if node.op == "Merge"
                             else self._join(node, [self.tensor(t) for t in node.input]))

    def predicate(self, switch) -> str:
        """A Switch's predicate: its tensor seen through Identity nodes."""
        producer, index = split_input(switch.input[1])
        while producer in self.nodes and self.nodes[producer].op == "Identity":
            data = [t for t in self.nodes[producer].input if not t.startswith("^")]
            if len(data) != 1:
                break                   # malformed: the importer reports the Identity
            producer, index = split_input(data[0])
        return tensor_key(producer, index)

    def tensor(self, text: str) -> tuple:
        """The frames of the tensor (or control edge) an input string names."""
        producer, index = split_input(text)
        frames = self.of.get(producer, ())
        node = self.nodes.get(producer)
        if node is not None and node.op in SWITCHES and index >= 0:
            return frames + ((self.predicate(node), index),)
        return frames

    def _join(self, node, frames: list) -> tuple:
        deepest = ()
        for f in frames:
            if f[:len(deepest)] == deepest:
                deepest = f
            elif deepest[:len(f)] != f:
                raise UnimplementedError(
                    f"Node '{node.name}' ({node.op}) reads tensors of two branches that "
                    f"never run together (TF1 dead-tensor control flow that is not a "
                    f"tf.cond); devsession imports only tf.cond's form.", node.name)
        return deepest

    def _merge_frames(self, node) -> tuple:
        data = [t for t in node.input if not t.startswith("^")]
        frames = [self.tensor(t) for t in data]
        if len(frames) != 2 or not all(frames) or frames[0][:-1] != frames[1][:-1] \
                or frames[0][-1][0] != frames[1][-1][0] \
                or {frames[0][-1][1], frames[1][-1][1]} != {0, 1}:
            raise UnimplementedError(
                f"Node '{node.name}' (Merge) does not join the two branches of one "
                f"predicate (a Merge of {len(data)} inputs, or of tensors outside the "
                f"branches); devsession imports only tf.cond's Merges.", node.name)
        for text in node.input:
            if text.startswith("^") and self.tensor(text):
                raise UnimplementedError(
                    f"Node '{node.name}' (Merge) waits for '{text[1:]}', which is inside "
                    f"a branch; this does not import yet.", node.name)
        return frames[0][:-1]


class _Rewrite:
    """Steps 2 and 3 of the module docstring for the top level of one GraphDef."""

    def __init__(self, graph_def, nodes: dict, frames: _Frames, known: dict):
        self.graph_def, self.nodes, self.frames, self.known = graph_def, nodes, frames, known
        self.names = set(nodes)
        self.value_index_read = {split_input(t)[0] for node in graph_def.node for t in node.input
                                 if split_input(t)[1] == 1}

    def run(self):
        conds, removed = self._conds(), set()
        for cond in conds:
            self._check_acyclic(cond)
        plans, replaced, added = {}, {}, []
        for cond in conds:
            removed |= cond["switches"] | cond["members"]
        self.removed_switches = {n for n in removed if self.nodes[n].op in SWITCHES}
        for cond in conds:
            if not cond["merges"]:
                self._check_dead_end(cond)
                continue
            plan, node, merges = self._plan(cond)
            plans[plan.name] = plan
            added.append(node)
            replaced.update(merges)
        kept = [replaced.get(node.name) or self._without_removed(node)
                for node in self.graph_def.node if node.name not in removed]
        return with_nodes(self.graph_def, kept + added), plans

    # --- grouping -------------------------------------------------------------------

    def _conds(self) -> list:
        parent = {}

        def find(name):
            while parent.setdefault(name, name) != name:
                parent[name] = parent[parent[name]]
                name = parent[name]
            return name

        def union(a, b):
            parent[find(a)] = find(b)

        for node in self.graph_def.node:
            for text in node.input:
                if self.frames.tensor(text):
                    union(split_input(text)[0], node.name)
        by_pred_id = {}
        for node in self.graph_def.node:
            if node.op in SWITCHES and not self.frames.of[node.name]:
                find(node.name)
                anchor = self._pred_id(node)
                # a gradient's conds read the forward cond's pred_id too, but from their
                # own scope (gradients/...), after its Merges: they are conds of their own
                if anchor is not None and \
                        node.name.startswith(anchor.rpartition("/")[0] + "/"):
                    union(node.name, by_pred_id.setdefault(anchor, node.name))
        conds: dict = {}
        for node in self.graph_def.node:        # GraphDef order, so plans are stable
            if node.name not in parent:
                continue
            cond = conds.setdefault(find(node.name), {"switches": set(), "members": [],
                                                      "merges": []})
            if self.frames.of[node.name]:
                cond["members"].append(node.name)
            elif node.op == "Merge":
                cond["merges"].append(node.name)
            else:
                cond["switches"].add(node.name)
        for cond in conds.values():
            cond["order"], cond["members"] = cond["members"], set(cond["members"])
        return list(conds.values())

    def _pred_id(self, switch) -> str | None:
        """The ``pred_id`` Identity of the tf.cond a top-level Switch belongs to: the
        one it reads, or (for the pivot ``Switch(pred, pred)``) the one beside it."""
        producer, _ = split_input(switch.input[1])
        if producer.rpartition("/")[2] == "pred_id" and producer in self.nodes \
                and self.nodes[producer].op == "Identity":
            return producer
        if split_input(switch.input[0]) == split_input(switch.input[1]):
            beside = f"{switch.name.rpartition('/')[0]}/pred_id"
            node = self.nodes.get(beside)
            if node is not None and node.op == "Identity" \
                    and split_input(node.input[0]) == split_input(switch.input[1]):
                return beside
        return None

    def _check_acyclic(self, cond) -> None:
        """A node of the cond computed from the cond's own Merges would make its If an
        input of itself: TF1's gradient of a cond reads the forward branches' tensors
        from its own branches (TF 2's control flow v2 returns them from the If)."""
        merges = set(cond["merges"])
        if not merges:
            return
        readers: dict = {}
        for node in self.graph_def.node:
            for text in node.input:
                readers.setdefault(split_input(text)[0], []).append(node.name)
        seen, stack = set(), list(merges)
        inside = cond["members"] | cond["switches"]
        while stack:
            for name in readers.get(stack.pop(), ()):
                if name in inside:
                    raise UnimplementedError(
                        f"Node '{name}' runs in a TF1 cond (Switch/Merge) and reads that "
                        f"cond's own output '{sorted(merges)[0]}': a cond's gradient built "
                        f"with TF1's control flow does not import (build the graph with TF "
                        f"2's control flow v2, tf.cond's default there, or freeze it for "
                        f"inference).", name)
                if name not in seen:
                    seen.add(name)
                    stack.append(name)

    def _check_dead_end(self, cond) -> None:
        for name in cond["order"]:
            node = self.nodes[name]
            if may_have_effects(node.op, unknown=True):
                switch = sorted(cond["switches"])[0] if cond["switches"] else "?"
                raise UnimplementedError(
                    f"Node '{name}' ({node.op}) runs in a branch of Switch '{switch}' "
                    f"whose outputs no Merge joins: a dead end with side effects does not "
                    f"import (devsession's conds are If ops with outputs).", name)

    # --- one cond -------------------------------------------------------------------

    def _plan(self, cond):
        merges = cond["merges"]
        name = unique_name(self.names, f"{merges[0].rpartition('/')[0] or 'cond'}/If")
        switches = sorted(cond["switches"])
        pred = self.nodes[switches[0]].input[1]
        captured, controls = {}, {}
        branches = []
        for port in (0, 1):
            outputs = [self._merge_input(m, port) for m in merges]
            branches.append(self._branch(cond, port, outputs, captured, controls))
        value_indices = []
        replaced = {}
        for k, merge in enumerate(merges):
            node = graph_pb2.NodeDef(name=merge, op="Identity", input=[f"{name}:{k}"],
                                     device=self.nodes[merge].device)
            if merge in self.value_index_read:
                node.op = "IdentityN"
                node.input.append(f"{name}:{len(merges) + len(value_indices)}")
                value_indices.append(tuple(self._merge_input_index(merge, p) for p in (0, 1)))
            node.input.extend(t for t in self.nodes[merge].input if t.startswith("^"))
            replaced[merge] = node
        plan = CondPlan(name, tuple(branches), value_indices)
        node = graph_pb2.NodeDef(name=name, op=COND_OP,
                                 input=[pred, *captured, *(f"^{c}" for c in controls)])
        return plan, node, replaced

    def _merge_input_index(self, merge: str, port: int) -> int:
        data = [t for t in self.nodes[merge].input if not t.startswith("^")]
        return next(k for k, t in enumerate(data) if self.frames.tensor(t)[-1][1] == port)

    def _merge_input(self, merge: str, port: int) -> str:
        data = [t for t in self.nodes[merge].input if not t.startswith("^")]
        return tensor_key(*split_input(data[self._merge_input_index(merge, port)]))

    def _branch(self, cond, port: int, outputs: list, captured: dict, controls: dict):
        names = {n for n in cond["order"] if self.frames.of[n][0][1] == port}
        graph_def = graph_pb2.GraphDef()
        for name in cond["order"]:
            if name in names:
                graph_def.node.append(self._without_removed(self.nodes[name]))
        graph_def, plans = functionalize_conds(
            graph_def, {n: self.known.pop(n) for n in names if n in self.known})

        def outside(key: str) -> tuple:
            producer, index = split_input(key)
            if index < 0:
                return ("control", controls.setdefault(producer, len(controls)))
            if producer in cond["switches"]:
                source = tensor_key(*split_input(self.nodes[producer].input[0]))
            else:
                source = key
            return ("data", captured.setdefault(source, len(captured)))

        return cut_function(graph_def, outputs, plans, outside)

    def _without_removed(self, node):
        """``node``, without control inputs on Switches the rewrite removes (a Switch
        has no effect to wait for)."""
        return without_controls(node, self.removed_switches)
