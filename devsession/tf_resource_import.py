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
  false); ``VarIsInitializedOp`` -> ``IsVariableInitialized``; ``VariableShape`` ->
  ``Shape``;
* ``ResourceApply<X>`` -> ``Apply<X>`` and ``ResourceScatter<X>`` -> ``Scatter<X>`` for
  every one devsession registers (TF gave each the same inputs as its reference form);
* ``ResourceGather(handle, indices)`` -> ``GatherV2(variable, indices, axis 0)``
  (``batch_dims`` kept), a new ``<node>/axis`` constant beside it.

TF's resource ops output nothing where the reference ones output the variable; nothing
in TF's graph reads those outputs, so the rename is the whole change.  An op devsession
registers under TF's own name that takes a variable where TF's takes the handle (the
stateful random ops ``RngReadAndSkip``, ``StatefulRandomBinomial``...: a
``tf.random.Generator``'s draws) stays as it is, and gets the variable.

TF 2's ``If`` and ``While`` pass a handle to their functions, which use it there.  Both
pass devsession's the variable itself (``tf_function_import.py``, ``tf_part_build.py``),
so in their functions each op on such an argument becomes its reference twin as above:
a batch norm's moving averages updated in a cond on ``is_training``, a loop adding to
a variable and reading it back each iteration.

A handle read by any other node (a function call, ``DestroyResourceOp``...) is
``UnimplementedError`` naming the node; a resource op devsession has no twin for stays
as it is, for the importer's ``NotFoundError`` naming it.
"""

from __future__ import annotations

import numpy as np

from .errors import UnimplementedError
from .ops.registry import get_op_def, registered_ops
from .proto import graph_pb2
from .tensor_codec import array_to_proto
from .tf_graph_passes import FUNCTIONAL_IFS, FUNCTIONAL_WHILES, split_input, unique_name, \
    with_nodes

__all__ = ["map_resource_variables"]

_HANDLE = "VarHandleOp"
_RENAMED = {"ReadVariableOp": "_ReadVariable", "AssignVariableOp": "Assign",
            "AssignAddVariableOp": "AssignAdd", "AssignSubVariableOp": "AssignSub",
            "VarIsInitializedOp": "IsVariableInitialized", "VariableShape": "Shape"}
# the attrs each reference op keeps (TF's dtype attrs name what devsession infers)
_KEPT_ATTRS = {"VariableV2": ("dtype", "shape", "container", "shared_name"),
               "Assign": ("validate_shape",), "GatherV2": ("batch_dims",),
               "Shape": ("out_type",)}
_PREFIXES = ("ResourceApply", "ResourceSparseApply", "ResourceScatter")
_FUNCTIONAL = FUNCTIONAL_IFS + FUNCTIONAL_WHILES     # TF 2's control flow
_DT_RESOURCE = graph_pb2.DT_RESOURCE
# what reads a variable without changing it (every other op on a handle may assign)
_READS = frozenset({"ReadVariableOp", "ResourceGather", "VariableShape", "VarIsInitializedOp"})


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
    mapped = with_nodes(graph_def, nodes)
    for function in mapped.library.function:
        _use_arguments_as_variables(function)
    return mapped


def _use_arguments_as_variables(function) -> None:
    """In a function that takes a variable's handle (an If's branch, a While's cond or
    body), each op on the argument becomes its reference twin: the If or While passes
    the variable itself (``tf_function_import``, ``tf_part_build``), so the function
    assigns it, and reads it when its reads run.  A variable the function does not
    assign is read as the value it has when the function is called (``Identity``): the
    same value, without tying the function to the variable's device."""
    handles = {arg.name for arg in function.signature.input_arg if arg.type == _DT_RESOURCE}
    assigned = {t for node in function.node_def if node.op not in _READS | set(_FUNCTIONAL)
                for t in node.input if t in handles}
    names = {node.name for node in function.node_def}
    added, values = [], set()
    for node in function.node_def:
        reads = [t for t in node.input if t in handles]
        if not reads or node.op in _FUNCTIONAL:
            continue
        if node.op == "ReadVariableOp" and reads[0] not in assigned:
            node.CopyFrom(_renamed(node, "Identity"))
            values.add(node.name)
            continue
        if node.op == "ResourceGather":
            axis = _axis_const(unique_name(names, f"{node.name}/axis"), node.device)
            added.append(axis)
            node.CopyFrom(_renamed(node, "GatherV2", extra_input=f"{axis.name}:output:0"))
            continue
        twin = _reference_twin(node.op)
        if twin is None:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}) in the TF function "
                f"'{function.signature.name}' reads the handle of the variable it is passed "
                f"('{reads[0]}'); devsession has no reference-variable twin for it.",
                node.name)
        node.CopyFrom(_renamed(node, twin))
    function.node_def.extend(added)
    # readers name a ReadVariableOp's output "value", an Identity's "output"
    renamed = {f"{name}:value:": f"{name}:output:" for name in values}
    for node in function.node_def:
        node.input[:] = [_renamed_output(t, renamed) for t in node.input]
    for key, text in list(function.ret.items()):     # a snapshot: the loop writes the map
        function.ret[key] = _renamed_output(text, renamed)


def _renamed_output(text: str, renamed: dict) -> str:
    head, sep, index = text.rpartition(":")
    prefix = head + sep
    return renamed[prefix] + index if prefix in renamed else text


def _reference_twin(op: str) -> str | None:
    """The reference-variable op devsession runs for TF's resource op ``op``, if any."""
    if op == _HANDLE:
        return "VariableV2"
    if op in _RENAMED:
        return _RENAMED[op]
    if op.startswith(_PREFIXES) and op[len("Resource"):] in registered_ops():
        return op[len("Resource"):]
    return None


def _check_handle_readers(node, handles: set) -> None:
    """Refuse a node that reads a handle but has no reference twin taking it, nor is
    a TF If or While passing it to its functions."""
    if node.op == "ResourceGather" or node.op.startswith(_PREFIXES) or \
            node.op in _FUNCTIONAL or _reference_twin(node.op) or _takes_variable(node.op):
        return
    for text in node.input:
        producer, index = split_input(text)
        if index >= 0 and producer in handles:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}) reads the handle of resource variable "
                f"'{producer}'; devsession maps TensorFlow's resource variables onto "
                f"reference variables for their reads, assignments, gathers, scatters and "
                f"optimizer updates only.", node.name)


def _takes_variable(op: str) -> bool:
    """Whether devsession's ``op`` (TF's name) takes a variable in the place of TF's
    handle, so the node imports as it is."""
    return op in registered_ops() and bool(get_op_def(op).ref_inputs)


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
