"""What the GraphDef passes run before import share: TF1 loops (``tf_while_import``),
TF1 conds (``tf_cond_import``) and TensorFlow's TensorArrays (``tf_tensor_array_import``).

Each pass walks a GraphDef's NodeDefs by name, in topological order, and returns a new
GraphDef, never changing the one it was given (a NodeDef it changes is a copy).  Inputs
are strings: ``"x"`` / ``"x:1"`` name a tensor, ``"^x"`` a control edge; a *key* is the
canonical form (``"x:0"``, ``"x:1"``, ``"^x"``) a pass's dicts use.

The cond and loop passes turn a piece of the GraphDef into one node that stands for it
(of a private op type, ``COND_OP`` or ``WHILE_OP``) and a plan saying how to build it;
the pieces that become functions are ``FunctionPart``s.  The importer builds such a node
through the builder registered for its op type here, by ``tf_cond_build`` and
``tf_while_build``: builders need function graphs, which import the importer.
"""

from __future__ import annotations

import dataclasses

from .errors import InvalidArgumentError, NotFoundError
from .graph_codec import FunctionAttr
from .ops.registry import get_op_def
from .proto import graph_pb2

__all__ = ["FunctionPart", "split_input", "tensor_key", "topological_order", "nodes_in_order",
           "loop_back_edge", "unique_name", "with_nodes", "with_inputs", "without_controls",
           "cut_function", "may_have_effects", "register_builder", "registered_builder",
           "is_tfs_functional", "FUNCTIONAL_IFS", "FUNCTIONAL_WHILES",
           "check_control_flow_inputs", "without_unread_variant_placeholders"]

FUNCTIONAL_IFS = ("If", "StatelessIf")
FUNCTIONAL_WHILES = ("While", "StatelessWhile")


# --- input strings -------------------------------------------------------------------------

def split_input(text: str) -> tuple[str, int]:
    """(producer, output index) of an input string; index -1 for a control input."""
    if text.startswith("^"):
        return text[1:], -1
    name, sep, index = text.rpartition(":")
    if sep and index.isdigit():
        return name, int(index)
    return text, 0


def tensor_key(producer: str, index: int) -> str:
    return f"^{producer}" if index < 0 else f"{producer}:{index}"


# --- walking ---------------------------------------------------------------------------------

def topological_order(nodes: dict, skip=None) -> list | None:
    """Names of ``nodes``, each after the nodes it reads (but for producers
    ``skip(node)`` is true of); None on a cycle."""
    pending = {name: {p for p in (split_input(t)[0] for t in node.input)
                      if p in nodes and not (skip and skip(nodes[p]))}
               for name, node in nodes.items()}
    readers: dict = {}
    for name, producers in pending.items():
        for producer in producers:
            readers.setdefault(producer, []).append(name)
    ready = [name for name, producers in pending.items() if not producers]
    order = []
    while ready:
        name = ready.pop()
        order.append(name)
        for reader in readers.get(name, ()):
            pending[reader].discard(name)
            if not pending[reader]:
                ready.append(reader)
    return order if len(order) == len(nodes) else None


def loop_back_edge(producer) -> bool:
    """Whether reading ``producer`` follows a TF1 loop's back edge (walks skip those)."""
    return producer.op == "NextIteration"


def nodes_in_order(graph_def: graph_pb2.GraphDef, skip=None) -> tuple[dict, list] | None:
    """({name: NodeDef}, names in topological order) of ``graph_def``; None when it has
    a cycle or duplicate names, which a pass leaves for the importer to report."""
    nodes = {node.name: node for node in graph_def.node}
    order = topological_order(nodes, skip)
    if order is None or len(nodes) != len(graph_def.node):
        return None
    return nodes, order


# --- new nodes and GraphDefs -------------------------------------------------------------------

def unique_name(names: set, name: str) -> str:
    """``name``, or ``name_<k>`` for the first k no node has; added to ``names``."""
    candidate, k = name, 0
    while candidate in names:
        k += 1
        candidate = f"{name}_{k}"
    names.add(candidate)
    return candidate


def without_unread_variant_placeholders(graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """``graph_def`` less its ``variant`` Placeholders that no node reads: TF's
    ``convert_variables_to_constants_v2`` leaves one behind for each variant a lowered
    loop used to take (``unused_control_flow_input_<k>``).  A variant placeholder that is
    read stays, for the importer to refuse."""
    read = {split_input(text)[0] for node in graph_def.node for text in node.input}
    unread = [node.name for node in graph_def.node
              if node.op == "Placeholder" and node.attr["dtype"].type == graph_pb2.DT_VARIANT
              and node.name not in read]
    if not unread:
        return graph_def
    return with_nodes(graph_def, [node for node in graph_def.node if node.name not in unread])


def with_nodes(graph_def: graph_pb2.GraphDef, nodes) -> graph_pb2.GraphDef:
    """A copy of ``graph_def`` (its versions, library...) holding ``nodes`` instead."""
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    del out.node[:]
    out.node.extend(nodes)
    return out


def with_inputs(node, inputs: list):
    """A copy of ``node`` reading ``inputs`` instead."""
    copy = graph_pb2.NodeDef()
    copy.CopyFrom(node)
    del copy.input[:]
    copy.input.extend(inputs)
    return copy


def without_controls(node, dropped):
    """``node`` without its control inputs on the nodes named in ``dropped`` (a copy, or
    itself when it has none)."""
    kept = [t for t in node.input if not (t.startswith("^") and t[1:] in dropped)]
    return node if len(kept) == len(node.input) else with_inputs(node, kept)


# TF1's control-flow ops, and the Identity the passes look through -> how many data
# inputs TF gives them (Merge: at least one)
_CONTROL_FLOW_INPUTS = {"Switch": 2, "RefSwitch": 2, "Enter": 1, "RefEnter": 1, "Exit": 1,
                        "RefExit": 1, "NextIteration": 1, "RefNextIteration": 1,
                        "LoopCond": 1, "Merge": None, "RefMerge": None, "Identity": 1}


def check_control_flow_inputs(graph_def) -> None:
    """InvalidArgumentError naming the node for a TF1 control-flow node (or an Identity)
    with another number of data inputs than TF's (the passes read them by position; a
    GraphDef is untrusted)."""
    for node in graph_def.node:
        if node.op not in _CONTROL_FLOW_INPUTS:
            continue
        count = sum(1 for t in node.input if not t.startswith("^"))
        want = _CONTROL_FLOW_INPUTS[node.op]
        if count != want if want is not None else count < 1:
            raise InvalidArgumentError(
                f"Node '{node.name}' ({node.op}) has {count} data inputs; TF's takes "
                f"{want if want is not None else 'at least 1'}.", node.name)


def is_tfs_functional(node) -> bool:
    """Whether ``node`` is TensorFlow's functional If/While (its functions named in the
    GraphDef's library) rather than devsession's own (its functions' bodies in its
    attrs)."""
    if node.op not in FUNCTIONAL_IFS + FUNCTIONAL_WHILES:
        return False
    key = "then_branch" if node.op in FUNCTIONAL_IFS else "body"
    return FunctionAttr.BODY_KEY not in node.attr[key].func.attr


def may_have_effects(op: str, unknown: bool) -> bool:
    """Whether a node of ``op`` that nothing needs may not be dropped: its op is
    stateful, or (``unknown``) not registered."""
    try:
        return get_op_def(op).stateful
    except NotFoundError:
        return unknown


# --- pieces that become functions -------------------------------------------------------------

@dataclasses.dataclass
class FunctionPart:
    """A piece of a GraphDef to import as a function (a cond's branch, a loop's cond or
    body): its nodes, the keys under which they read from outside (``"sw:1"``, ``"x:0"``,
    ``"^op"``) -> ("arg", loop variable index), ("data", index of the standing node's
    captured input) or ("control", index of its control input), and its outputs' keys.
    ``node_keys`` are the outside keys its nodes read (the others only an output is);
    ``plans`` the conds and loops nested in it, by node name."""
    graph_def: graph_pb2.GraphDef
    external: dict
    node_keys: frozenset
    outputs: list
    plans: dict


def cut_function(graph_def: graph_pb2.GraphDef, outputs: list, plans: dict,
                 outside) -> FunctionPart:
    """The ``FunctionPart`` of ``graph_def`` (already functionalized, with ``plans``)
    returning ``outputs``; ``outside(key)`` says what each key read from outside is."""
    inside = {node.name for node in graph_def.node}
    node_keys = {tensor_key(*split_input(t)) for node in graph_def.node for t in node.input
                 if split_input(t)[0] not in inside}
    outputs = [tensor_key(*split_input(t)) for t in outputs]
    external = {key: outside(key)
                for key in node_keys | {k for k in outputs if split_input(k)[0] not in inside}}
    return FunctionPart(graph_def, external, frozenset(node_keys), outputs, plans)


# --- builders of the standing nodes ----------------------------------------------------------

_BUILDERS: dict = {}


def register_builder(op: str, fn) -> None:
    """``fn`` builds the nodes of type ``op`` a pass made (see ``registered_builder``)."""
    _BUILDERS[op] = fn


def registered_builder(op: str, what: str, module: str, plan_name: str):
    """The builder registered for ``op``.  Raises ``NotFoundError`` naming ``module``
    (which registers it) when none is: ``what`` (say, "TF1 conds") cannot import."""
    builder = _BUILDERS.get(op)
    if builder is None:
        raise NotFoundError(f"No builder for {what} is registered (import "
                            f"{module}); cannot import '{plan_name}'.")
    return builder
