"""TensorFlow's TensorArrays (``TensorArrayV3``...) in a GraphDef -> devsession's value
TensorArray ops (``_TensorArray``..., ``ops/tensor_array.py``), before import.

TF's TensorArray is a resource: ``TensorArrayV3`` outputs a *handle* and a float *flow*;
every TensorArray op takes the handle and the flow, and a write returns a new flow that
only orders the ops.  devsession's TensorArray is the value itself: two tensors
(``values``, ``lengths``) that each write outputs anew.  ``map_tensor_arrays`` rewrites
the one into the other, so the flows become values and the TF1 loops that carry them
(``tf.scan``, ``tf.map_fn``, ``tf.nn.dynamic_rnn``) become loops over values, which
``tf_while_import`` then functionalizes as any other:

1. **Follow.**  In topological order (``NextIteration`` back edges skipped), each
   tensor that is a handle or a flow gets the ``TensorArrayV3`` node it comes from:
   ``TensorArrayV3`` outputs (handle, flow), a write (``Write``/``Scatter``/``Split``)
   a flow of the array its handle names, and ``Identity``/``Enter``/``Exit``/
   ``Merge``/``Switch``/``NextIteration`` carry what their data input carries.
2. **Rewrite.**  ``TensorArrayV3`` becomes ``_TensorArray`` (its attrs are the same);
   each other op becomes its devsession op reading the (values, lengths) of the flow
   it takes, its handle dropped; ``TensorArraySizeV3`` is ``Size(lengths)``, the
   int64 lengths ``TensorArrayConcatV3`` also outputs a ``Cast`` of the array's
   lengths, ``TensorArrayCloseV3`` a ``NoOp``.  A node carrying a flow stays, now of
   the array's dtype, and a twin named ``<node>/lengths`` (made unique) carries the
   lengths beside it, so a loop variable flow becomes two loop variables.  Nodes
   carrying only a handle (its ``Enter`` into a loop...) are dropped.

Example: ``tf.scan(lambda a, r: a + r, x)`` writes ``TensorArray_1`` in its loop;
``Enter_3(TensorArrayWriteV3)``, ``Merge_3``, ``Switch_3``, ``Identity_3``,
``NextIteration_3`` and ``Exit_3`` carry its flow.  After the rewrite the write is
``_TensorArrayWrite(values, lengths, index, value)``, ``Enter_3`` carries its values and
``Enter_3/lengths`` its lengths, and so on round the loop.

Refused with ``UnimplementedError`` naming the node: a TensorArray op whose handle and
flow are not of the same array (or whose handle is not a ``TensorArrayV3``'s), a node
other than those above reading a handle or a flow, TensorArray gradients
(``TensorArrayGradV3``...: gradients of TensorArrays do not import; freeze an inference
graph), TF's older (V1, V2) TensorArray ops, and the TF 2 TensorList ops that
``tf_tensor_list_import.py`` (run before) does not map.
"""

from __future__ import annotations

import dataclasses

from .errors import UnimplementedError
from .ops.tensor_array import TF_TENSOR_ARRAY_OPS
from .proto import graph_pb2
from .tf_graph_passes import (loop_back_edge, nodes_in_order, split_input, tensor_key,
                              unique_name, with_inputs, with_nodes)

__all__ = ["map_tensor_arrays", "CARRIERS"]

# ops that pass their data input on unchanged (Switch: input 0; its input 1 is the pred)
CARRIERS = frozenset({"Identity", "Enter", "Exit", "Merge", "Switch", "NextIteration"})
_CREATE = "TensorArrayV3"
# TF op -> (devsession op, indices of its inputs kept after the array's two tensors)
_WRITES = {"TensorArrayWriteV3": ("_TensorArrayWrite", (1, 2)),
           "TensorArrayScatterV3": ("_TensorArrayScatter", (1, 2)),
           "TensorArraySplitV3": ("_TensorArraySplit", (1, 2))}
_READS = {"TensorArrayReadV3": ("_TensorArrayRead", (1,)),
          "TensorArrayGatherV3": ("_TensorArrayGather", (1,)),
          "TensorArrayConcatV3": ("_TensorArrayConcat", ()),
          "TensorArraySizeV3": ("Size", ())}
_CLOSE = "TensorArrayCloseV3"
_ARRAY_ATTRS = ("dtype", "element_shape", "dynamic_size", "clear_after_read",
                "identical_element_shapes", "tensor_array_name")


def map_tensor_arrays(graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """``graph_def`` with TensorFlow's TensorArray ops as devsession's (see the module
    docstring), or itself when it holds none.  Raises ``UnimplementedError`` naming the
    node for what does not map."""
    if not any(node.op in TF_TENSOR_ARRAY_OPS for node in graph_def.node):
        return graph_def
    walk = nodes_in_order(graph_def, skip=loop_back_edge)
    if walk is None:
        return graph_def
    return _Mapping(graph_def, *walk).rewrite()


class _Mapping:
    """The two steps of the module docstring for one GraphDef."""

    def __init__(self, graph_def, nodes: dict, order: list):
        self.graph_def, self.nodes = graph_def, nodes
        self.names = set(nodes)
        # tensor key -> ("handle" or "flow", the TensorArrayV3 node's name)
        self.carried: dict = {}
        self.carriers: dict = {}    # a carrier node's name -> what it carries
        for name in order:
            self._follow(nodes[name])
        self.handles_only = {n for n, (kind, _) in self.carriers.items() if kind == "handle"}

    # --- step 1 ---------------------------------------------------------------------

    def _follow(self, node) -> None:
        name, op = node.name, node.op
        if op == _CREATE:
            self.carried[tensor_key(name, 0)] = ("handle", name)
            self.carried[tensor_key(name, 1)] = ("flow", name)
        elif op in _WRITES:
            self.carried[tensor_key(name, 0)] = ("flow", self._array(node))
        elif op in _READS or op == _CLOSE:
            self._array(node)
        elif op in TF_TENSOR_ARRAY_OPS:
            self._refuse_op(node)
        elif op in CARRIERS:
            self._carry(node)
        else:
            for text in node.input:
                key = tensor_key(*split_input(text))
                if key in self.carried:
                    self._refuse_reader(node, key)

    def _carry(self, node) -> None:
        data = [t for t in node.input if not t.startswith("^")]
        data = data[:1] if node.op == "Switch" else data
        found = {self.carried[tensor_key(*split_input(t))] for t in data
                 if tensor_key(*split_input(t)) in self.carried}
        if not found:
            return
        if len(found) > 1:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}) joins the handles or flows of different "
                f"TensorArrays; this does not import.", node.name)
        self.carriers[node.name] = carried = found.pop()
        for k in {"Switch": (0, 1)}.get(node.op, (0,)):
            self.carried[tensor_key(node.name, k)] = carried

    def _array(self, node) -> str:
        """The TensorArrayV3 that ``node`` (a TensorArray op) works on: its handle's,
        which must be its flow's too."""
        handle = self.carried.get(tensor_key(*split_input(node.input[0])))
        if handle is None or handle[0] != "handle":
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}): its handle '{node.input[0]}' is not one "
                f"a TensorArrayV3 of this GraphDef outputs; this does not import.", node.name)
        if node.op == _CLOSE:
            return handle[1]
        flow_input = [t for t in node.input if not t.startswith("^")][-1]
        flow = self.carried.get(tensor_key(*split_input(flow_input)))
        if flow != ("flow", handle[1]):
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}) takes the handle of the TensorArray "
                f"'{handle[1]}' without its flow ('{flow_input}' is not one): a "
                f"TensorArray imports as the value its flow carries.", node.name)
        return handle[1]

    def _refuse_op(self, node) -> None:
        if "Grad" in node.op:
            why = ("gradients of TensorArrays do not import (freeze an inference graph, or "
                   "take gradients with ds.gradients after import)")
        elif "TensorList" in node.op:
            why = ("of TF 2's TensorList ops, tf_tensor_list_import.py maps those tf.map_fn, "
                   "tf.scan, dynamic_rnn and loop gradients use (reserve, from-tensor, "
                   "set/get item, stack, gather, push/pop back, length), not this one yet")
        else:
            why = "only TF1's V3 TensorArray ops import (not V1/V2 ones)"
        raise UnimplementedError(f"Node '{node.name}' ({node.op}): {why}.", node.name)

    def _refuse_reader(self, node, key: str) -> None:
        kind, array = self.carried[key]
        raise UnimplementedError(
            f"Node '{node.name}' ({node.op}) reads the {kind} '{key}' of the TensorArray "
            f"'{array}'; only TensorArray ops and Identity/Enter/Exit/Merge/Switch/"
            f"NextIteration may, for it to import as a value.", node.name)

    # --- step 2 ---------------------------------------------------------------------

    def rewrite(self) -> graph_pb2.GraphDef:
        self.pairs: dict = {}       # flow's key -> (values key, lengths key)
        self.renamed: dict = {}     # other outputs' keys -> new keys
        rewritten = []
        for node in self.graph_def.node:
            if node.name not in self.handles_only:
                rewritten.extend(self._rewritten(node))
        return with_nodes(self.graph_def, [self._rewired(node) for node in rewritten])

    def _rewritten(self, node) -> list:
        """The nodes that stand for ``node``, their data inputs still TF's."""
        op = node.op
        if op == _CREATE:
            self.pairs[tensor_key(node.name, 1)] = (f"{node.name}:0", f"{node.name}:1")
            new = _node(node.name, "_TensorArray", node, node.input[:1])
            for attr in _ARRAY_ATTRS:
                if attr in node.attr:
                    new.node.attr[attr].CopyFrom(node.attr[attr])
            return [new]
        if op in _WRITES or op in _READS:
            return self._array_op(node)
        if op == _CLOSE:
            return [_node(node.name, "NoOp", node, [])]
        if self.carriers.get(node.name, ("",))[0] == "flow":
            return self._twins(node)
        return [node]

    def _array_op(self, node) -> list:
        array = self.nodes[self._array(node)]
        data = [t for t in node.input if not t.startswith("^")]
        flow = tensor_key(*split_input(data[-1]))
        kind, kept = _WRITES.get(node.op) or _READS[node.op]
        if node.op == "TensorArraySizeV3":
            new = _node(node.name, "Size", node, [("lengths", flow)])
            new.node.attr["out_type"].type = graph_pb2.DT_INT32
            return [new]
        new = _node(node.name, kind, node, [("values", flow), ("lengths", flow),
                                             *(data[k] for k in kept)])
        attrs = new.node.attr
        attrs["identical_element_shapes"].CopyFrom(_attr(array, "identical_element_shapes"))
        if node.op in _WRITES:
            attrs["element_shape"].CopyFrom(_attr(array, "element_shape"))
            attrs["dynamic_size"].CopyFrom(_attr(array, "dynamic_size"))
            self.pairs[tensor_key(node.name, 0)] = (f"{node.name}:0", f"{node.name}:1")
            return [new]
        # a gather's own element shape is what TF's Python knew when it was built
        known = "element_shape" in node.attr and not node.attr["element_shape"].shape.unknown_rank
        attrs["element_shape"].CopyFrom(node.attr["element_shape"] if known
                                        else _attr(array, "element_shape"))
        if node.op != "TensorArrayConcatV3":
            return [new]
        attrs["element_shape_except0"].CopyFrom(_attr(node, "element_shape_except0"))
        cast = _node(unique_name(self.names, f"{node.name}/lengths"), "Cast", node, [("lengths", flow)])
        cast.node.attr["DstT"].type = graph_pb2.DT_INT64
        self.renamed[tensor_key(node.name, 1)] = f"{cast.node.name}:0"
        return [new, cast]

    def _twins(self, node) -> list:
        """A node carrying a flow, and its twin carrying the array's lengths."""
        array = self.nodes[self.carriers[node.name][1]]
        data = [t for t in node.input if not t.startswith("^")]
        flows = data[:1] if node.op == "Switch" else data
        values = _node(node.name, node.op, node, [("values", tensor_key(*split_input(t)))
                                                   for t in flows] + data[len(flows):])
        twin = _node(unique_name(self.names, f"{node.name}/lengths"), node.op, node,
                     [("lengths", tensor_key(*split_input(t))) for t in flows]
                     + data[len(flows):])
        for copy in (values.node, twin.node):
            for key, attr in node.attr.items():
                if key != "_class":
                    copy.attr[key].CopyFrom(attr)
        values.node.attr["T"].type = _attr(array, "dtype").type
        twin.node.attr["T"].type = graph_pb2.DT_INT32
        for k in {"Switch": (0, 1)}.get(node.op, (0,)):
            self.pairs[tensor_key(node.name, k)] = (f"{node.name}:{k}",
                                                    f"{twin.node.name}:{k}")
        return [values, twin]

    def _rewired(self, item):
        """The NodeDef of ``item`` (a NodeDef or a ``_Pending``) reading the new tensors:
        ("values" or "lengths", flow key) inputs resolved, renamed outputs followed,
        control inputs on dropped nodes gone."""
        node, texts = (item.node, item.inputs) if isinstance(item, _Pending) \
            else (item, list(item.input))
        inputs = []
        for text in texts:
            if isinstance(text, tuple):
                part, flow = text
                if flow not in self.pairs:
                    raise UnimplementedError(
                        f"Node '{node.name}' ({node.op}) joins a TensorArray's flow with "
                        f"'{flow}', which is none; this does not import.", node.name)
                inputs.append(self.pairs[flow][part == "lengths"])
            elif text.startswith("^"):
                if text[1:] not in self.handles_only:
                    inputs.append(text)
            else:
                inputs.append(self.renamed.get(tensor_key(*split_input(text)), text))
        out = with_inputs(node, inputs)
        if "_class" in out.attr:
            hints = [h for h in out.attr["_class"].list.s
                     if h.decode().removeprefix("loc:@") not in self.handles_only]
            del out.attr["_class"].list.s[:]
            out.attr["_class"].list.s.extend(hints)
        return out


@dataclasses.dataclass
class _Pending:
    """A new node whose inputs may name a flow's values or lengths (("values", key)),
    known only once every flow's node is rewritten (a loop's Merge reads its
    NextIteration, later in the GraphDef)."""
    node: graph_pb2.NodeDef
    inputs: list


def _node(name: str, op: str, like, data: list) -> _Pending:
    """A node standing for ``like``: its device and control inputs, these data inputs."""
    node = graph_pb2.NodeDef(name=name, op=op, device=like.device)
    return _Pending(node, [*data, *(t for t in like.input if t.startswith("^"))])


def _attr(node, key: str) -> graph_pb2.AttrValue:
    """``node``'s attr ``key``, else TF's default for it (read without adding it to a
    GraphDef the caller owns)."""
    if key in node.attr:
        return node.attr[key]
    default = graph_pb2.AttrValue()
    if key in ("identical_element_shapes", "dynamic_size"):
        default.b = key == "identical_element_shapes"
    elif key.startswith("element_shape"):
        default.shape.unknown_rank = True
    return default
