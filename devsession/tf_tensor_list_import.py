"""TensorFlow 2's TensorLists in a GraphDef -> devsession's value TensorArrays, before
import.

TF 2's ``tf.TensorArray`` (what ``tf.map_fn``, ``tf.scan`` and ``dynamic_rnn`` use inside
a control-flow-v2 loop) is a TensorList: one ``variant`` tensor that ``TensorListReserve``
makes, ``TensorListSetItem`` returns anew and a ``While`` carries as a loop variable.
devsession's TensorArray is a value too, but two tensors (``values``, ``lengths``:
``ops/tensor_array.py``), so ``split_tensor_lists`` gives every list tensor two: its
``values`` where the list was (so every output keeps its index, and TF's names still
resolve), its ``lengths`` after the node's other outputs, one per list in order.

* A TensorList op becomes a node of type ``LIST_OP`` standing for it, reading the two
  tensors of each list it takes (``values`` in the list's place, ``lengths`` after the
  other inputs); ``build_list`` makes it from devsession's TensorArray ops when it is
  imported (``Reserve``/``EmptyTensorList`` -> ``_TensorArray``, ``FromTensor`` -> a
  scatter of the rows, ``SetItem``/``PushBack`` -> a write, ``GetItem``/``Gather``/
  ``Stack`` -> reads, ``PopBack`` -> a read and the list without its last element,
  ``Length`` -> the size), as an ``IdentityN`` of its outputs.
* An ``Identity`` of a list becomes an ``IdentityN`` of its two tensors; TF's gradients
  also make a ``ZerosLike`` of a list (as many zero elements) and an ``AddN`` of lists
  (their elements summed), which stand for those the same way.
* TF's functional ``If`` and ``While`` take and return the two tensors of each list in
  the same layout: ``Wiring.functional`` says which arguments and results are lists,
  so that ``tf_function_import.py`` gives their functions the same layout (a
  function's list arguments are the ``lists`` the pass over its body starts from).
* A TF1 loop's node carrying a list (``Enter``, ``Merge``, ``Switch``, ``NextIteration``,
  ``Exit``: what TF's ``convert_variables_to_constants_v2`` lowers a Keras RNN's
  ``While`` into) carries its values, and a twin ``<node>/lengths`` beside it carries
  its lengths, so that ``tf_while_import.py`` makes the list two loop variables.  A
  ``Merge`` meets its ``NextIteration`` before the walk (which skips back edges) does:
  it names that one's twin in advance, and the ``NextIteration`` must carry a list.

Refused with ``UnimplementedError`` naming the node: another op reading a list, and
the TensorList ops not listed here (concat, split, resize...).
"""

from __future__ import annotations

import dataclasses

from .dtypes import float32, int32
from .errors import InvalidArgumentError, UnimplementedError
from .graph import constant_value, control_dependencies, name_scope
from .graph_codec import decode_attr
from .ops.array_fill import add_n, shape, size, zeros_like
from .ops.sequence import range as range_op
from .ops.state import constant
from .proto import graph_pb2
from .tensor_shape import TensorShape
from .tf_graph_passes import is_tfs_functional, loop_back_edge, nodes_in_order, split_input, \
    tensor_key, unique_name, with_inputs, with_nodes

__all__ = ["split_tensor_lists", "build_list", "ListPlan", "Wiring", "LIST_OP", "DT_VARIANT",
           "LIST_OP_SIGNATURES"]

LIST_OP = "_TFTensorList"
DT_VARIANT = graph_pb2.DT_VARIANT
# TF op -> (positions of the list inputs, kind of each output: "list" or "tensor")
_LIST_OPS = {
    "TensorListReserve": ((), ("list",)),
    "EmptyTensorList": ((), ("list",)),
    "TensorListFromTensor": ((), ("list",)),
    "TensorListSetItem": ((0,), ("list",)),
    "TensorListPushBack": ((0,), ("list",)),
    "TensorListScatterIntoExistingList": ((0,), ("list",)),
    "TensorListPopBack": ((0,), ("list", "tensor")),
    "TensorListGetItem": ((0,), ("tensor",)),
    "TensorListGather": ((0,), ("tensor",)),
    "TensorListStack": ((0,), ("tensor",)),
    "TensorListLength": ((0,), ("tensor",)),
    "TensorListElementShape": ((0,), ("tensor",)),
}
# how many data inputs TF gives each (AddN: any number)
_INPUT_COUNTS = {"TensorListReserve": 2, "EmptyTensorList": 2, "TensorListFromTensor": 2,
                 "TensorListSetItem": 3, "TensorListPushBack": 2,
                 "TensorListScatterIntoExistingList": 3, "TensorListPopBack": 2,
                 "TensorListGetItem": 3, "TensorListGather": 3, "TensorListStack": 2,
                 "TensorListLength": 1, "TensorListElementShape": 1, "ZerosLike": 1}
# ops that take TensorLists as well as tensors (TF's gradients make zeros of a list and
# sum lists); ALL: every input
ALL = "all"
_ON_LISTS = {"ZerosLike": ((0,), ("list",)), "AddN": (ALL, ("list",))}
# The outputs of the TensorList op with more than one (devsession registers no TensorList
# op, so TF's signature table lacks them), as that table lists outputs.
LIST_OP_SIGNATURES = {"TensorListPopBack": {"outputs": [{"name": "output_handle"},
                                                        {"name": "tensor"}]}}
# TF1 loop ops that pass a list on (Switch: its input 0; outputs 0 and 1 for a Switch)
LOOP_CARRIERS = frozenset({"Enter", "Merge", "Switch", "NextIteration", "Exit"})
# functional op -> (attr listing its arguments' types, attr listing its results')
_FUNCTIONAL_TYPES = {"If": ("Tin", "Tout"), "StatelessIf": ("Tin", "Tout"),
                     "While": ("T", "T"), "StatelessWhile": ("T", "T")}


@dataclasses.dataclass
class ListPlan:
    """A TensorList op to build from devsession's TensorArray ops: TF's ``op`` type, its
    attrs (protos) and the positions of its list inputs, for ``build_list``."""
    name: str
    op: str
    attrs: dict
    list_inputs: tuple


@dataclasses.dataclass
class Wiring:
    """``lists``: each list's key -> its (values, lengths) keys after the pass;
    ``functional``: TF's If and While nodes -> (positions of the list arguments, after
    an If's predicate; positions of the list results)."""
    lists: dict
    functional: dict

    def keys(self, key: str) -> tuple:
        """The key(s) ``key`` is after the pass: two for a list, else itself."""
        return self.lists.get(key, (key,))


def split_tensor_lists(graph_def: graph_pb2.GraphDef, lists: dict | None = None,
                       optional: dict | None = None):
    """(GraphDef, {node name: ListPlan}, Wiring): ``graph_def`` with each list tensor as
    two (see the module docstring).  ``lists``: keys read from outside that are lists
    (a function's list arguments) -> their (values, lengths) keys; ``optional``: TF If
    nodes -> the positions of their ``variant`` results that are a cond's Optionals
    (one tensor each, ``tf_function_import``), not lists.  A GraphDef with no lists is
    returned as it is."""
    wiring = Wiring(dict(lists or {}), {})
    optional = optional or {}
    if not wiring.lists and not any(_makes_lists(node) for node in graph_def.node):
        return graph_def, {}, wiring
    walk = nodes_in_order(graph_def, skip=loop_back_edge)
    if walk is None:
        return graph_def, {}, wiring
    nodes, order = walk
    out, plans, twins = {}, {}, _Twins(set(nodes), {})
    for name in order:
        node = nodes[name]
        if node.op in LOOP_CARRIERS and _carried_lists(node, wiring, nodes, twins):
            out[name] = twins.pair(node, wiring)
        elif node.op in _LIST_OPS or (node.op in _ON_LISTS and _list_inputs(node, wiring)):
            count = len(_data(node))
            if count != _INPUT_COUNTS.get(node.op, max(count, 1)):
                raise InvalidArgumentError(
                    f"Node '{name}' ({node.op}) has {count} inputs; TF's takes "
                    f"{_INPUT_COUNTS.get(node.op, 'at least 1')}.", name)
            list_in, kinds = _list_signature(node.op, count)
            out[name] = _rewired(node, LIST_OP, wiring, list_in)
            out[name].attr.clear()
            plans[name] = ListPlan(name, node.op, dict(node.attr), list_in)
            _add_lists(wiring, name, [k for k, kind in enumerate(kinds) if kind == "list"],
                       len(kinds))
        elif node.op == "Identity" and _list_inputs(node, wiring):
            out[name] = _rewired(node, "IdentityN", wiring, (0,))
            _add_lists(wiring, name, [0], 1)
        elif is_tfs_functional(node):
            out[name] = _functional(node, wiring, optional.get(name, ()))
        else:
            reads = _list_inputs(node, wiring)
            if reads:
                raise UnimplementedError(
                    f"Node '{name}' ({node.op}) reads the TensorList '{reads[0]}'; devsession "
                    f"maps TF's TensorLists onto its TensorArrays for TF's TensorList ops, "
                    f"Identity, If and While only.", name)
            out[name] = node
    kept = [n for node in graph_def.node
            for n in (out[node.name] if isinstance(out[node.name], tuple) else (out[node.name],))]
    return with_nodes(graph_def, kept), plans, wiring


@dataclasses.dataclass
class _Twins:
    """The names the pass has given out, and the twins named in advance: a
    ``NextIteration``'s, by the ``Merge`` that reads it across the back edge."""
    names: set
    reserved: dict          # NextIteration's name -> its twin's name

    def name_for(self, node_name: str) -> str:
        if node_name not in self.reserved:
            self.reserved[node_name] = unique_name(self.names, f"{node_name}/lengths")
        return self.reserved[node_name]

    def pair(self, node, wiring: Wiring) -> tuple:
        """``node`` carrying its lists' values and its twin carrying their lengths (the
        other inputs, a Switch's predicate, go to both); its list outputs recorded."""
        twin_name = self.name_for(node.name)
        carried = _carried_positions(node)
        values, lengths = [], []
        for k, text in enumerate(_data(node)):
            keys = wiring.keys(tensor_key(*split_input(text)))
            if k in carried and len(keys) != 2:
                raise UnimplementedError(
                    f"Node '{node.name}' ({node.op}) joins a TensorList with '{text}', "
                    f"which is none; this does not import.", node.name)
            values.append(keys[0])
            lengths.append(keys[1] if k in carried else keys[0])
        controls = [t for t in node.input if t.startswith("^")]
        copy = with_inputs(node, values + controls)
        twin = with_inputs(node, lengths + controls)
        twin.name = twin_name
        twin.attr["T"].type = graph_pb2.DT_INT32
        if "_class" in twin.attr:
            del twin.attr["_class"]
        for k in ((0, 1) if node.op == "Switch" else (0,)):
            wiring.lists[f"{node.name}:{k}"] = (f"{node.name}:{k}", f"{twin_name}:{k}")
        return copy, twin


def _carried_positions(node) -> tuple:
    return (0,) if node.op == "Switch" else tuple(range(len(_data(node))))


def _carried_lists(node, wiring: Wiring, nodes: dict, twins: _Twins) -> bool:
    """Whether the loop op ``node`` carries a list; a Merge of one names the twin of the
    NextIteration across its back edge, which must carry one too."""
    data = _data(node)
    keys = [tensor_key(*split_input(data[k])) for k in _carried_positions(node)]
    if node.name in twins.reserved:
        return True                    # a NextIteration a Merge of a list reads
    if not any(key in wiring.lists for key in keys):
        return False
    for key in keys:
        producer = nodes.get(split_input(key)[0])
        if key not in wiring.lists and producer is not None and loop_back_edge(producer):
            wiring.lists[key] = (key, f"{twins.name_for(producer.name)}:0")
    return True


def _list_signature(op: str, inputs: int) -> tuple:
    """(positions of the list inputs, kinds of the outputs) of a list-taking op with
    ``inputs`` data inputs."""
    list_in, kinds = _LIST_OPS.get(op) or _ON_LISTS[op]
    return (tuple(range(inputs)) if list_in == ALL else list_in), kinds


def _makes_lists(node) -> bool:
    return node.op in _LIST_OPS and "list" in _LIST_OPS[node.op][1]


def _data(node) -> list:
    return [t for t in node.input if not t.startswith("^")]


def _list_inputs(node, wiring: Wiring) -> list:
    return [t for t in _data(node) if tensor_key(*split_input(t)) in wiring.lists]


def _rewired(node, op: str, wiring: Wiring, list_positions):
    """A copy of ``node`` as ``op`` reading, for each list input at ``list_positions``,
    its values in its place and its lengths after the other data inputs."""
    data, lengths = [], []
    for k, text in enumerate(_data(node)):
        keys = wiring.keys(tensor_key(*split_input(text)))
        if len(keys) == 2 and k not in list_positions:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}) takes the TensorList '{text}' as input {k}, "
                f"where devsession expects a tensor.", node.name)
        if len(keys) == 1 and k in list_positions:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}) takes '{text}' as input {k}, a TensorList "
                f"(or another variant, such as a cond's Optional) that devsession does not "
                f"follow to a TensorList op it maps.", node.name)
        data.append(keys[0])
        lengths += keys[1:]
    copy = with_inputs(node, data + lengths + [t for t in node.input if t.startswith("^")])
    copy.op = op
    return copy


def _add_lists(wiring: Wiring, name: str, positions: list, outputs: int) -> None:
    """Outputs ``positions`` of the node ``name`` (of ``outputs``) are lists: values in
    place, lengths appended in order."""
    for j, k in enumerate(positions):
        wiring.lists[f"{name}:{k}"] = (f"{name}:{k}", f"{name}:{outputs + j}")


def _functional(node, wiring: Wiring, optional):
    """TF's If or While taking and returning both tensors of each list; records which.
    A ``variant`` argument that is no list (a cond's Optional) passes as it is, as do
    the ``optional`` results."""
    in_attr, out_attr = _FUNCTIONAL_TYPES[node.op]
    first = 1 if node.op.endswith("If") else 0        # an If's predicate is no argument
    in_types = list(node.attr[in_attr].list.type)
    out_types = list(node.attr[out_attr].list.type)
    data = _data(node)
    if len(in_types) != len(data) - first:
        raise InvalidArgumentError(
            f"Node '{node.name}' ({node.op}) passes {len(data) - first} tensors, but its "
            f"attr {in_attr} lists {len(in_types)} types.", node.name)
    list_in = tuple(k for k, t in enumerate(in_types) if t == DT_VARIANT and
                    tensor_key(*split_input(data[first + k])) in wiring.lists)
    list_out = tuple(k for k, t in enumerate(out_types)
                     if t == DT_VARIANT and k not in optional)
    copy = _rewired(node, node.op, wiring, {first + k for k in list_in})
    _add_lists(wiring, node.name, list(list_out), len(out_types))
    wiring.functional[node.name] = (list_in, list_out)
    return copy


# --- building a list op from devsession's TensorArray ops -------------------------------------

def build_list(plan: ListPlan, data: list, controls: list, graph, name: str):
    """The ``IdentityN`` named ``name`` of what ``plan``'s TensorList op computes from
    ``data`` (each list input as two tensors), built under ``name/``."""
    with graph.as_default(), name_scope(name + "/"), control_dependencies(controls):
        results = _BUILDERS[plan.op](plan, _paired(plan, data), graph)
    lists = [r for r in results if isinstance(r, tuple)]
    outputs = [r[0] if isinstance(r, tuple) else r for r in results] + [r[1] for r in lists]
    return graph.create_op("IdentityN", outputs, name=name, exact_name=True)


def _paired(plan: ListPlan, data: list) -> list:
    """``data`` with each list input as one (values, lengths) pair, as TF's inputs."""
    positions = plan.list_inputs
    count = len(data) - len(positions)
    inputs = list(data[:count])
    for j, k in enumerate(positions):
        inputs[k] = (inputs[k], data[count + j])
    return inputs


def _attr(plan: ListPlan, key: str, default=None):
    return decode_attr(plan.attrs[key], plan.name, key) if key in plan.attrs else default


def _element_shape(tensor):
    """A TF element_shape input (-1 for an unknown dimension, or a scalar -1 for an
    unknown rank) as a TensorShape."""
    value = constant_value(tensor)
    if value is None or value.ndim == 0:
        return TensorShape(None)
    return TensorShape([None if d < 0 else int(d) for d in value.reshape(-1)])


def _array_attrs(plan, element_shape, dynamic: bool) -> dict:
    if "element_dtype" not in plan.attrs:
        raise InvalidArgumentError(f"Node '{plan.name}' ({plan.op}) has no attr "
                                   f"element_dtype.", plan.name)
    dtype = _attr(plan, "element_dtype") \
        if plan.attrs["element_dtype"].type != DT_VARIANT else float32
    # a list of lists: only ever carried (a write of a list is refused), so it holds
    # nothing, and an empty float array stands for it
    return {"dtype": dtype, "element_shape": element_shape,
            "dynamic_size": dynamic, "clear_after_read": False,
            "identical_element_shapes": True, "tensor_array_name": ""}


def _write_attrs(dynamic: bool) -> dict:
    """A list's element may be set again (a TF1 TensorArray's may not)."""
    return {"dynamic_size": dynamic, "identical_element_shapes": True, "overwrite": True}


def _new(plan, graph, size, element_shape, dynamic: bool) -> tuple:
    return tuple(graph.create_op("_TensorArray", [size],
                                 _array_attrs(plan, element_shape, dynamic),
                                 name="TensorArray").outputs)


def _written(graph, op: str, array: tuple, inputs: list, dynamic: bool, name: str) -> tuple:
    return tuple(graph.create_op(op, [*array, *inputs], _write_attrs(dynamic),
                                 name=name).outputs)


def _read(graph, op: str, array: tuple, inputs: list, element_shape, name: str):
    return graph.create_op(op, [*array, *inputs], {
        "element_shape": _element_shape(element_shape), "identical_element_shapes": True},
        name=name).outputs[0]


def _reserve(plan, inputs, graph):
    element_shape, size = inputs
    return [_new(plan, graph, size, _element_shape(element_shape), dynamic=False)]


def _empty(plan, inputs, graph):
    return [_new(plan, graph, constant(0, name="size"), _element_shape(inputs[0]),
                 dynamic=True)]


def _from_tensor(plan, inputs, graph):
    tensor, element_shape = inputs
    size = shape(tensor)[0]
    array = _new(plan, graph, size, _element_shape(element_shape), dynamic=False)
    return [_written(graph, "_TensorArrayScatter", array, [range_op(0, size), tensor], False,
                     "unstack")]


def _set_item(plan, inputs, graph):
    array, index, item = inputs
    dynamic = bool(_attr(plan, "resize_if_index_out_of_bounds", False))
    return [_written(graph, "_TensorArrayWrite", array, [index, item], dynamic, "write")]


def _push_back(plan, inputs, graph):
    array, item = inputs
    return [_written(graph, "_TensorArrayWrite", array, [size(array[1]), item], True, "push")]


def _scatter(plan, inputs, graph):
    array, tensor, indices = inputs
    return [_written(graph, "_TensorArrayScatter", array, [indices, tensor], True, "scatter")]


def _get_item(plan, inputs, graph):
    array, index, element_shape = inputs
    return [_read(graph, "_TensorArrayRead", array, [index], element_shape, "read")]


def _gather(plan, inputs, graph):
    array, indices, element_shape = inputs
    return [_read(graph, "_TensorArrayGather", array, [indices], element_shape, "gather")]


def _stack(plan, inputs, graph):
    array, element_shape = inputs
    return [_read(graph, "_TensorArrayGather", array, [range_op(0, size(array[1]))],
                  element_shape, "stack")]


def _pop_back(plan, inputs, graph):
    (values, lengths), element_shape = inputs
    last = size(lengths) - 1
    item = _read(graph, "_TensorArrayRead", (values, lengths), [last], element_shape, "read")
    return [(values[:last], lengths[:last]), item]


def _length(plan, inputs, graph):
    return [size(inputs[0][1])]


def _element_shape_of(plan, inputs, graph):
    return [shape(inputs[0][0], out_type=_attr(plan, "shape_type", int32))[1:]]


def _add_n(plan, inputs, graph):
    return [(add_n([values for values, _ in inputs]), inputs[0][1])]


def _zeros_like(plan, inputs, graph):
    (values, lengths), = inputs
    return [(zeros_like(values), lengths)]


_BUILDERS = {
    "TensorListReserve": _reserve, "EmptyTensorList": _empty,
    "TensorListFromTensor": _from_tensor, "TensorListSetItem": _set_item,
    "TensorListPushBack": _push_back, "TensorListScatterIntoExistingList": _scatter,
    "TensorListPopBack": _pop_back, "TensorListGetItem": _get_item,
    "TensorListGather": _gather, "TensorListStack": _stack, "TensorListLength": _length,
    "TensorListElementShape": _element_shape_of, "ZerosLike": _zeros_like, "AddN": _add_n,
}
