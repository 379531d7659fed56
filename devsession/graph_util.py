"""TF1's ``tf.graph_util``: freezing a trained graph for inference, and pruning GraphDefs.

``convert_variables_to_constants(sess, graph_def, output_node_names)`` is TF1's freeze:

1. keep the nodes the outputs need (``extract_sub_graph``: the outputs' inputs, control
   inputs and colocation hints, followed back; the order of the GraphDef kept), which
   drops the initializers, the optimizer's updates and the saver;
2. read every VariableV2 among them in one ``sess.run``;
3. write each as a ``Const`` of the same name holding the value read (no device, as
   TF's), so a reader of ``v/read`` reads the constant;
4. write the result in TensorFlow's form (``tf_export.to_tf_graph_def``: TF's dtype
   attrs, axes and shapes as Const inputs...), since a frozen graph is for serving,
   with TensorFlow too.

The result is a GraphDef of the same names and no state: TensorFlow's
``import_graph_def`` reads it, and so does devsession's, into a fresh graph whose
outputs, run without initialization, are the session's.  A frozen graph holding what TF
cannot read (an ``If`` or ``While`` with devsession's function bodies, an op private to
devsession) stays in devsession's own form, with a warning naming the node: devsession
still runs it.  A GraphDef TensorFlow wrote (it has a producer version) keeps its form.
devsession's variables are TF1's reference variables, so TF's handling of resource
variables (``VarHandleOp``, ``ReadVariableOp``) has nothing to do here.

``remove_training_nodes`` is TF's too: it drops CheckNumerics nodes (and, as TF's, the
inputs that named them) and splices out Identity and StopGradient nodes that take no part
in control edges, except ``protected_nodes``.
"""

from __future__ import annotations

import copy
import logging
import re

import numpy as np

from .errors import OpError
from .graph import Operation
from .graph_codec import encode_attr, node_def_of
from .graph_def import import_graph_def
from .proto import graph_pb2
from .tensor_codec import dtype_from_enum
from .tf_export import to_tf_graph_def

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "remove_training_nodes",
           "tensor_shape_from_node_def_name", "must_run_on_cpu", "import_graph_def"]

_LOG = logging.getLogger(__name__)

# What TF's must_run_on_cpu(pin_variables_on_cpu=True) counts as a variable op.
_VARIABLE_OPS = frozenset({"Assign", "AssignAdd", "AssignSub", "Queue", "ScatterAdd",
                           "ScatterSub", "ScatterUpdate", "TruncatedNormal", "Variable",
                           "VariableV2"})
_FROZEN_OPS = ("Variable", "VariableV2")


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None) -> graph_pb2.GraphDef:
    """``input_graph_def`` cut to what ``output_node_names`` need, its variables replaced
    by Consts holding their values in ``sess``, in TensorFlow's form where TF can read
    it (see the module docstring).  Only the variables named in
    ``variable_names_whitelist`` (when given) and not in ``variable_names_blacklist`` are
    frozen.  Raises what ``extract_sub_graph`` raises,
    and ``FailedPreconditionError`` for a variable the session has not initialized."""
    inference = extract_sub_graph(input_graph_def, output_node_names)
    names = [node.name for node in inference.node if node.op in _FROZEN_OPS
             and (variable_names_whitelist is None or node.name in variable_names_whitelist)
             and (variable_names_blacklist is None
                  or node.name not in variable_names_blacklist)]
    values = dict(zip(names, sess.run([f"{name}:0" for name in names]) if names else []))
    _LOG.info("Froze %d variables.", len(values))
    out = graph_pb2.GraphDef()
    for node in inference.node:
        if node.name in values:
            _const_node_def(node, values[node.name], out.node.add())
        else:
            out.node.add().CopyFrom(node)
    out.library.CopyFrom(inference.library)
    out.versions.CopyFrom(inference.versions)
    out.version = inference.version
    _LOG.info("Converted %d variables to const ops.", len(values))
    return _for_tensorflow(out)


def _for_tensorflow(frozen: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """``frozen`` in TF's form; as it is when TensorFlow wrote it (it says which GraphDef
    version produced it), or, with a warning, when it holds what TF cannot read."""
    if frozen.versions.producer:
        return frozen
    try:
        return to_tf_graph_def(frozen)
    except OpError as e:
        _LOG.warning("The frozen graph is left in devsession's own form, which TensorFlow "
                     "cannot import: %s", e.message)
        return frozen


def _const_node_def(variable, value, out) -> None:
    """``out``: a Const named as ``variable``, of its dtype, holding ``value`` (TF's
    create_const_op)."""
    out.name, out.op = variable.name, "Const"
    out.attr["dtype"].CopyFrom(variable.attr["dtype"])
    encode_attr(np.asarray(value), out.attr["value"])   # a scalar read comes back as one


def extract_sub_graph(graph_def, dest_nodes) -> graph_pb2.GraphDef:
    """The nodes of ``graph_def`` that ``dest_nodes`` (node names) reach back to through
    inputs, control inputs and colocation hints, in ``graph_def``'s order, with its
    function library and versions.  TypeError for something other than a GraphDef or for
    ``dest_nodes`` given as one string; AssertionError naming a node the graph lacks, as
    TF's."""
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(f"graph_def must be a graph_pb2.GraphDef proto, but got type "
                        f"{type(graph_def)}.")
    if isinstance(dest_nodes, str):
        raise TypeError(f"dest_nodes must be an iterable of strings, but got type "
                        f"{type(dest_nodes)}.")
    position = {node.name: i for i, node in enumerate(graph_def.node)}
    for name in dest_nodes:
        assert name in position, f"{name} is not in graph"
    keep, frontier = set(), list(dest_nodes)
    while frontier:
        name = frontier.pop()
        if name in keep:
            continue
        keep.add(name)
        if name in position:
            frontier.extend(_sources(graph_def.node[position[name]]))
    out = graph_pb2.GraphDef()
    for name in sorted(keep & position.keys(), key=position.__getitem__):
        out.node.add().CopyFrom(graph_def.node[position[name]])
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    out.version = graph_def.version
    return out


def _sources(node) -> list:
    """The node names ``node`` needs: its inputs, control inputs and ``_class``
    colocation hints ("loc:@name")."""
    names = [text[1:] if text.startswith("^") else text.split(":")[0] for text in node.input]
    if "_class" in node.attr:
        for hint in node.attr["_class"].list.s:
            hint = hint.decode("utf-8")
            names.append(hint[5:] if hint.startswith("loc:@") else hint)
    return names


def remove_training_nodes(input_graph, protected_nodes=None) -> graph_pb2.GraphDef:
    """``input_graph`` without its CheckNumerics nodes, and with its Identity and
    StopGradient nodes spliced out where no control edge involves them (or a colocation
    hint names them); ``protected_nodes`` (names) are kept.  TF's rules, including
    dropping the inputs that named a removed CheckNumerics."""
    protected = set(protected_nodes or ())
    removed = {node.name for node in input_graph.node
               if node.op == "CheckNumerics" and node.name not in protected}
    kept = []
    for node in input_graph.node:
        if node.name in removed:
            continue
        copied = copy.deepcopy(node)
        del copied.input[:]
        copied.input.extend(text for text in node.input
                            if re.sub(r"^\^", "", text) not in removed)
        kept.append(copied)
    controlled, control_sources, colocated = set(), set(), set()
    for node in kept:
        for text in node.input:
            if "^" in text:
                control_sources.add(text.replace("^", ""))
                controlled.add(node.name)
        if "_class" in node.attr:
            colocated.update(h.decode("utf-8").removeprefix("loc:@")
                             for h in node.attr["_class"].list.s)
    splice = {node.name: node.input[0] for node in kept
              if node.op in ("Identity", "StopGradient") and node.name not in protected
              and node.name not in colocated and node.name not in controlled
              and node.name not in control_sources}
    out = graph_pb2.GraphDef()
    for node in kept:
        if node.name in splice:
            continue
        copied = out.node.add()
        copied.CopyFrom(node)
        del copied.input[:]
        for text in node.input:
            while re.sub(r"^\^", "", text) in splice:
                text = splice[re.sub(r"^\^", "", text)]
            copied.input.append(text)
    return out


def tensor_shape_from_node_def_name(graph, input_name: str):
    """The static shape of the tensor a NodeDef input names ("x" meaning "x:0")."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()


def must_run_on_cpu(node, pin_variables_on_cpu: bool = False) -> bool:
    """TF's rule for nodes that must stay on the CPU: int32 and string Consts, int32
    DynamicStitch and casts from int32, and (with ``pin_variables_on_cpu``) variable
    ops.  ``node`` is an Operation or a NodeDef."""
    if isinstance(node, Operation):
        node_def, input_dtypes = node_def_of(node), [t.dtype.name for t in node.inputs]
    else:
        assert isinstance(node, graph_pb2.NodeDef)
        node_def, input_dtypes = node, []
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    if node_def.op == "Const":
        return _dtype_name(node_def, "dtype") in ("int32", "string")
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        data = _dtype_name(node_def, "T") or (input_dtypes[-1] if input_dtypes else None)
        return data == "int32"
    if node_def.op == "Cast":
        source = _dtype_name(node_def, "SrcT") or (input_dtypes[0] if input_dtypes else None)
        return source == "int32"
    return False


def _dtype_name(node_def, key: str):
    """The dtype attr ``key`` of a NodeDef by name ("int32"), or None when absent."""
    if key not in node_def.attr:
        return None
    return dtype_from_enum(node_def.attr[key].type, node_def.name).name


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("graph_util", name)
