"""TensorFlow's resource variables (``VarHandleOp``...) in a GraphDef -> devsession's
reference variables (``VariableV2``...), before import.

TensorFlow 2's ``tf.compat.v1`` makes every variable a resource (unless a program calls
``disable_resource_variables``/``disable_v2_behavior``): ``VarHandleOp`` outputs a
handle, and reads, assignments and optimizer updates are ops taking the handle.  TF1's
reference variables are the same state with the variable's tensor in the handle's place,
and devsession has those, so ``map_resource_variables`` renames each node onto its
reference twin, its inputs in the same positions:

* ``VarHandleOp`` -> ``VariableV2`` (``dtype``, ``shape``, ``container``,
  ``shared_name``: the state is the same one, keyed as TF keys it);
* ``ReadVariableOp`` -> ``_ReadVariable``: a read where it runs, after its control
  inputs, as TF's;
* ``AssignVariableOp``/``AssignAddVariableOp``/``AssignSubVariableOp`` -> ``Assign``/
  ``AssignAdd``/``AssignSub`` (``validate_shape`` kept; TF's default for resources is
  false); ``VarIsInitializedOp`` -> ``IsVariableInitialized``;
* ``ResourceApply<X>`` -> ``Apply<X>`` and ``ResourceScatter<X>`` -> ``Scatter<X>`` for
  every one devsession registers (TF gave each the same inputs as its reference form);
* ``ResourceGather(handle, indices)`` -> ``GatherV2(variable, indices, axis 0)``
  (``batch_dims`` kept), a new ``<node>/axis`` constant beside it.

TF's resource ops output nothing where the reference ones output the variable; nothing
in TF's graph reads those outputs, so the rename is the whole change.  A handle read by
any other node (a function call, a ``While`` carrying it, ``DestroyResourceOp``...) is
``UnimplementedError`` naming the node; a resource op devsession has no twin for stays
as it is, for the importer's ``NotFoundError`` naming it.
"""

from __future__ import annotations

import numpy as np

from .errors import NotFoundError, UnimplementedError
from .proto import graph_pb2
from .tensor_codec import array_to_proto
from .tf_graph_passes import split_input, unique_name, with_nodes

__all__ = ["map_resource_variables"]

_HANDLE = "VarHandleOp"
_RENAMED = {"ReadVariableOp": "_ReadVariable", "AssignVariableOp": "Assign",
            "AssignAddVariableOp": "AssignAdd", "AssignSubVariableOp": "AssignSub",
            "VarIsInitializedOp": "IsVariableInitialized"}
# the attrs each reference op keeps (TF's dtype attrs name what devsession infers)
_KEPT_ATTRS = {"VariableV2": ("dtype", "shape", "container", "shared_name"),
               "Assign": ("validate_shape",), "GatherV2": ("batch_dims",)}
_PREFIXES = ("ResourceApply", "ResourceSparseApply", "ResourceScatter")


def map_resource_variables(graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """``graph_def`` with TF's resource-variable ops as devsession's reference ones (see
    the module docstring), or itself when it has no ``VarHandleOp``."""
    handles = {node.name for node in graph_def.node if node.op == _HANDLE}
    if not handles:
        return graph_def
    names = {node.name for node in graph_def.node}
    nodes = []
    for node in graph_def.node:
        _check_handle_readers(node, handles)
        if node.op == "ResourceGather":
            axis = _axis_const(unique_name(names, f"{node.name}/axis"), node.device)
            nodes += [axis, _renamed(node, "GatherV2", extra_input=axis.name)]
        else:
            twin = _reference_twin(node.op)
            nodes.append(_renamed(node, twin) if twin else node)
    return with_nodes(graph_def, nodes)


def _reference_twin(op: str) -> str | None:
    """The reference-variable op devsession runs for TF's resource op ``op``, if any."""
    if op == _HANDLE:
        return "VariableV2"
    if op in _RENAMED:
        return _RENAMED[op]
    if op.startswith(_PREFIXES):
        twin = op[len("Resource"):]
        try:
            _registered(twin)
        except NotFoundError:
            return None
        return twin
    return None


def _registered(op: str) -> None:
    from .ops.registry import get_op_def

    get_op_def(op)


def _check_handle_readers(node, handles: set) -> None:
    """Refuse a node that reads a handle but has no reference twin taking it."""
    if node.op == "ResourceGather" or node.op.startswith(_PREFIXES) or \
            _reference_twin(node.op):
        return
    for text in node.input:
        producer, index = split_input(text)
        if index >= 0 and producer in handles:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}) reads the handle of resource variable "
                f"'{producer}'; devsession maps TensorFlow's resource variables onto "
                f"reference variables for their reads, assignments, gathers, scatters and "
                f"optimizer updates only.", node.name)


def _renamed(node, op: str, extra_input: str | None = None):
    """A copy of ``node`` as devsession's ``op``: the attrs that op reads (``_KEPT_ATTRS``;
    the others keep all but TF's ``dtype``, which devsession infers), private ones as
    they are for the importer to sort."""
    copy = graph_pb2.NodeDef()
    copy.CopyFrom(node)
    copy.op = op
    kept = _KEPT_ATTRS.get(op)
    for key in list(copy.attr):
        if not key.startswith("_") and (key not in kept if kept else key == "dtype"):
            del copy.attr[key]
    if op == "Assign" and "validate_shape" not in copy.attr:
        copy.attr["validate_shape"].b = False      # TF's default for resource variables
    if extra_input is not None:
        copy.input.insert(2, extra_input)          # before the control inputs
    return copy


def _axis_const(name: str, device: str):
    node = graph_pb2.NodeDef(name=name, op="Const", device=device)
    array_to_proto(np.array(0, np.int32), node.attr["value"].tensor)
    return node
