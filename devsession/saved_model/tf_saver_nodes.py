"""TF1's ``tf.train.Saver`` as TensorFlow 2.21's ``tf.compat.v1`` builds it for reference
variables (``sharded=False``, format V2), written as NodeDefs into a GraphDef in TF's form,
and the ``SaverDef`` naming them: what a SavedModel needs for TensorFlow's loaders to
restore its variables (they run the restore op, feeding the filename tensor the path of
``variables/variables``).  Under ``<scope>/`` (``save``):

    filename/input  Const "model"          filename  PlaceholderWithDefault(filename/input)
    Const           PlaceholderWithDefault(filename): the filename tensor
    SaveV2          (Const, SaveV2/tensor_names, SaveV2/shape_and_slices, *variables)
    control_dependency  Identity(Const, ^SaveV2): the save tensor
    RestoreV2       (Const, RestoreV2/tensor_names, RestoreV2/shape_and_slices)
    Assign, Assign_1...  Assign(variable, RestoreV2:k), colocated with the variable
    restore_all     NoOp(^Assign...): the restore op

Checkpoint keys are sorted, as TF's Saver sorts them, and each tensor is saved whole
(``shape_and_slices`` empty).  devsession's own loader drops these nodes on import
(``train/meta_graph.py``) and restores through a Saver of its own, keyed by the names
``RestoreV2`` lists.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph_codec import encode_attr
from ..proto import graph_pb2
from ..proto.meta_graph_pb2 import SaverDef
from ..tensor_shape import TensorShape

__all__ = ["add_saver_nodes"]


def add_saver_nodes(graph_def: graph_pb2.GraphDef, variables: dict, scope: str = "save",
                    max_to_keep: int = 5, keep_every_n_hours: float = 10000.0) -> SaverDef:
    """Append the Saver of ``variables`` ({checkpoint key: (variable node name, dtype)},
    reference variables of ``graph_def``) under ``scope/``; returns its SaverDef."""
    keys = sorted(variables)
    names = np.array([k.encode() for k in keys], dtype=object)
    slices = np.array([b""] * len(keys), dtype=object)
    kinds = [dtypes.as_dtype(variables[k][1]) for k in keys]
    s = f"{scope}/"
    _node(graph_def, s + "filename/input", "Const", [], value=np.array(b"model", object),
          dtype=dtypes.string)
    _node(graph_def, s + "filename", "PlaceholderWithDefault", [s + "filename/input"],
          dtype=dtypes.string, shape=TensorShape([]))
    _node(graph_def, s + "Const", "PlaceholderWithDefault", [s + "filename"],
          dtype=dtypes.string, shape=TensorShape([]))
    for op in ("SaveV2", "RestoreV2"):
        _node(graph_def, f"{s}{op}/tensor_names", "Const", [], value=names,
              dtype=dtypes.string)
        _node(graph_def, f"{s}{op}/shape_and_slices", "Const", [], value=slices,
              dtype=dtypes.string)
    common = [s + "Const", s + "SaveV2/tensor_names", s + "SaveV2/shape_and_slices"]
    if keys:
        _node(graph_def, s + "SaveV2", "SaveV2",
              common + [variables[k][0] for k in keys], dtypes=kinds,
              _has_manual_control_dependencies=True)
        _node(graph_def, s + "control_dependency", "Identity", [s + "Const", f"^{s}SaveV2"],
              T=dtypes.string, _class=[f"loc:@{s}Const".encode()])
        _node(graph_def, s + "RestoreV2", "RestoreV2",
              [s + "Const", s + "RestoreV2/tensor_names", s + "RestoreV2/shape_and_slices"],
              dtypes=kinds)
    else:                         # TF's Saver(allow_empty=True) saves nothing
        _node(graph_def, s + "control_dependency", "Identity", [s + "Const"],
              T=dtypes.string)
    assigns = []
    for k, key in enumerate(keys):
        variable, kind = variables[key][0], kinds[k]
        assigns.append(s + ("Assign" if k == 0 else f"Assign_{k}"))
        _node(graph_def, assigns[-1], "Assign",
              [variable, s + "RestoreV2" + (f":{k}" if k else "")], T=kind,
              use_locking=True, validate_shape=True, _has_manual_control_dependencies=True,
              _class=[f"loc:@{variable}".encode()])
    _node(graph_def, s + "restore_all", "NoOp", [f"^{a}" for a in assigns])
    return SaverDef(filename_tensor_name=s + "Const:0",
                    save_tensor_name=s + "control_dependency:0",
                    restore_op_name=s + "restore_all", max_to_keep=max_to_keep,
                    keep_checkpoint_every_n_hours=keep_every_n_hours, version=SaverDef.V2)


def _node(graph_def, name: str, op: str, inputs: list, **attrs) -> None:
    node = graph_def.node.add(name=name, op=op)
    node.input.extend(inputs)
    for key, value in sorted(attrs.items()):
        encode_attr(value, node.attr[key])
