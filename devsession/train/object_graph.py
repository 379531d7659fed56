"""The object graph of TF's object-based checkpoints (``tf.train.Checkpoint``): which
Python objects a checkpoint holds, under which keys, and how a checkpoint's graph is
matched back onto objects.  Pure logic over Python objects; ``object_checkpoint.py``
does the reading, writing and running.

Trackable objects, as TF1's graph mode tracks them:

* a ``Variable``: a leaf saving one value, ``VARIABLE_VALUE``;
* a TF1 ``Optimizer``: its non-slot variables of the current graph by name, sorted
  (Adam's ``beta1_power``, ``beta2_power``); its slots are not children but
  ``slot_variables`` references (``m`` of ``kernel``), appended after every other node;
* a ``ds.layers`` layer: its weights by their names in its scope (``kernel``, ``bias``),
  as TF1's (Keras) layers track them;
* lists and tuples (children ``"0"``, ``"1"``...), dicts (children by key), a
  ``Checkpoint`` (its ordered children), a ``ds.Module`` and any other plain Python
  object (a user's model): its attributes in assignment order.  Containers with
  no variable below them are left out, so sessions, graphs and other devsession objects
  held by a model are never walked into.

``serialize(root)`` numbers the objects breadth first from the root (node 0), as TF's
``_breadth_first_traversal``; an object reached twice keeps its first path.  A node's
key is its path of escaped local names (``.`` doubled, ``/`` as ``.S``); a variable's
value is saved under ``<path>/.ATTRIBUTES/VARIABLE_VALUE`` and a slot's under
``<variable's path>/.OPTIMIZER_SLOT/<optimizer's path>/<slot name>/.ATTRIBUTES/
VARIABLE_VALUE``.  The result is TF's ``TrackableObjectGraph`` proto, byte for byte.

``match(root, proto)`` walks a checkpoint's graph from node 0 and the objects from
``root`` together, by local name; then each matched optimizer's slot references whose
variable matched and whose slot exists.  Objects that appear later (slots made by
``minimize`` after the restore) match on a later call.
"""

from __future__ import annotations

import collections

from ..module import Module
from ..proto import trackable_object_graph_pb2
from ..variables import Variable
from .optimizer import Optimizer

__all__ = ["serialize", "match", "node_names", "children", "escape_local_name", "full_name_keys",
           "OBJECT_GRAPH_KEY", "VARIABLE_VALUE"]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
_ATTRIBUTES = ".ATTRIBUTES"
_OPTIMIZER_SLOT = ".OPTIMIZER_SLOT"


def escape_local_name(name: str) -> str:
    """TF's ``_escape_local_name``: a local name as one component of a key."""
    return name.replace(".", "..").replace("/", ".S")


def children(obj) -> list:
    """``[(local name, child)]`` of ``obj``, in TF's order (see the module docstring)."""
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, Optimizer):
        return _optimizer_children(obj)
    layer = _layer_children(obj)
    if layer is not None:
        return layer
    own = getattr(obj, "_trackable_children", None)      # a Checkpoint
    if callable(own):
        items = own()
    elif isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, dict):
        items = [(str(k), v) for k, v in obj.items()]
    elif _is_plain_container(obj):
        items = [(k, v) for k, v in vars(obj).items() if not k.startswith("__")]
    else:
        return []
    return [(name, child) for name, child in items if _holds_variables(child, set())]


def _optimizer_children(optimizer) -> list:
    from ..graph import get_default_graph

    graph = get_default_graph()
    return sorted((name, var) for (name, var_graph), var in optimizer._non_slot.items()
                  if var_graph is graph)


def _layer_children(obj):
    """A ``ds.layers`` layer's weights by their names in its scope (``kernel``,
    ``bias``, ``moving_mean``...), in the order it made them, as a TF1 layer (a Keras
    layer) tracks them; None for anything else."""
    from ..layers_classes import Layer     # here: the layers import far more than train

    if not isinstance(obj, Layer):
        return None
    scope = obj._scope.name + "/" if obj._scope is not None else None
    return [(v.op.name[len(scope):], v) for v in obj._variables
            if scope and v.op.name.startswith(scope)]


def _is_plain_container(obj) -> bool:
    """A user's object (a model, a module): not devsession's, numpy's or a builtin."""
    if isinstance(obj, Module):
        return True
    module = type(obj).__module__ or ""
    return hasattr(obj, "__dict__") and not isinstance(obj, type) and \
        module.split(".")[0] not in ("devsession", "numpy", "builtins")


def _holds_variables(obj, seen: set) -> bool:
    """Whether ``obj`` is trackable and has a variable at or below it (cycle-safe)."""
    if isinstance(obj, (Variable, Optimizer)):
        return True
    if _layer_children(obj) is not None:
        return bool(_layer_children(obj))
    if id(obj) in seen or not (isinstance(obj, (list, tuple, dict))
                               or callable(getattr(obj, "_trackable_children", None))
                               or _is_plain_container(obj)):
        return False
    seen.add(id(obj))
    return any(_holds_variables(child, seen) for _, child in children(obj))


def _breadth_first(root) -> tuple:
    """(objects in node order, {id: path of local names}, {id: node id},
    [[(local name, child node id)] per node])."""
    order, paths, ids, edges = [root], {id(root): ()}, {id(root): 0}, []
    at = 0
    while at < len(order):
        obj = order[at]
        refs = []
        for name, child in children(obj):
            if id(child) not in ids:
                ids[id(child)] = len(order)
                paths[id(child)] = paths[id(obj)] + (name,)
                order.append(child)
            refs.append((name, ids[id(child)]))
        edges.append(refs)
        at += 1
    return order, paths, ids, edges


def _key(path) -> str:
    return "/".join(escape_local_name(name) for name in path)


def serialize(root) -> tuple:
    """``(TrackableObjectGraph, {checkpoint key: Variable})`` of the objects reachable
    from ``root`` (see the module docstring)."""
    order, paths, ids, edges = _breadth_first(root)
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    values = {}
    for obj, refs in zip(order, edges):
        node = graph.nodes.add()
        for name, node_id in refs:
            node.children.add(node_id=node_id, local_name=name)
        if isinstance(obj, Variable):
            key = f"{_key(paths[id(obj)])}/{_ATTRIBUTES}/{VARIABLE_VALUE}"
            node.attributes.add(name=VARIABLE_VALUE, full_name=obj.op.name,
                                checkpoint_key=key)
            values[key] = obj
    originals = list(enumerate(order))
    for optimizer_id, optimizer in originals:
        if not isinstance(optimizer, Optimizer):
            continue
        for slot_name in optimizer.get_slot_names():
            for variable_id, variable in originals:
                slot = optimizer.get_slot(variable, slot_name) \
                    if isinstance(variable, Variable) else None
                if slot is None:
                    continue
                slot_id = len(graph.nodes)
                graph.nodes[optimizer_id].slot_variables.add(
                    original_variable_node_id=variable_id, slot_name=slot_name,
                    slot_variable_node_id=slot_id)
                key = (f"{_key(paths[id(variable)])}/{_OPTIMIZER_SLOT}/"
                       f"{_key(paths[id(optimizer)])}/{escape_local_name(slot_name)}/"
                       f"{_ATTRIBUTES}/{VARIABLE_VALUE}")
                graph.nodes.add().attributes.add(name=VARIABLE_VALUE,
                                                 full_name=slot.op.name, checkpoint_key=key)
                values[key] = slot
    _mark_checkpoint_values(graph)
    return graph, values


def _mark_checkpoint_values(graph) -> None:
    """TF's ``has_checkpoint_values``: a node saves a value or leads to one."""
    has = [bool(node.attributes) for node in graph.nodes]
    changed = True
    while changed:
        changed = False
        for i, node in enumerate(graph.nodes):
            if not has[i] and (any(has[c.node_id] for c in node.children) or
                               any(has[s.slot_variable_node_id] for s in node.slot_variables)):
                has[i] = changed = True
    for node, value in zip(graph.nodes, has):
        node.has_checkpoint_values.value = value


def all_objects(root) -> list:
    """Every object reachable from ``root``, slots included, in node order."""
    order = _breadth_first(root)[0]
    slots = [optimizer.get_slot(v, name) for optimizer in order
             if isinstance(optimizer, Optimizer) for name in optimizer.get_slot_names()
             for v in order if isinstance(v, Variable)]
    return order + [s for s in slots if s is not None]


def match(root, graph) -> dict:
    """``{node id: object}``: the checkpoint's nodes that the objects below ``root``
    match (see the module docstring)."""
    matched = {0: root}
    queue = collections.deque([0])
    while queue:
        node_id = queue.popleft()
        named = dict(children(matched[node_id]))
        for ref in graph.nodes[node_id].children:
            child = named.get(ref.local_name)
            if child is not None and ref.node_id not in matched:
                matched[ref.node_id] = child
                queue.append(ref.node_id)
    for node_id, optimizer in list(matched.items()):
        if not isinstance(optimizer, Optimizer):
            continue
        for ref in graph.nodes[node_id].slot_variables:
            variable = matched.get(ref.original_variable_node_id)
            if isinstance(variable, Variable):
                slot = optimizer.get_slot(variable, ref.slot_name)
                if slot is not None:
                    matched.setdefault(ref.slot_variable_node_id, slot)
    return matched


def node_names(graph) -> dict:
    """TF's ``ObjectGraphProtoPrettyPrinter.node_names``: ``(root).model.layer.kernel``,
    a slot as ``<optimizer>'s state 'm' for <variable>``."""
    paths = {0: ("(root)",)}
    queue = collections.deque([0])
    while queue:
        node_id = queue.popleft()
        for child in graph.nodes[node_id].children:
            if child.node_id not in paths:
                paths[child.node_id] = paths[node_id] + (child.local_name,)
                queue.append(child.node_id)
    names = {node_id: ".".join(path) for node_id, path in paths.items()}
    for node_id, node in enumerate(graph.nodes):
        for ref in node.slot_variables:
            names[ref.slot_variable_node_id] = (
                f"{names.get(node_id)}'s state '{ref.slot_name}' for "
                f"{names.get(ref.original_variable_node_id)}")
    return names


def full_name_keys(reader) -> dict:
    """``{variable's full name: checkpoint key}`` of an object-based checkpoint (TF's
    ``object_graph_key_mapping``), for a name-based Saver restoring one."""
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(reader.string_scalar(OBJECT_GRAPH_KEY))
    return {attribute.full_name: attribute.checkpoint_key
            for node in graph.nodes for attribute in node.attributes}
