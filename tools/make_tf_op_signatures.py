"""Writes devsession/tf_op_signatures.json: TensorFlow's OpDef signatures of the op types
devsession registers that TensorFlow also has, and of those its importer builds from
devsession's ops (``tf_graph.mapped_op_types``), which ``devsession/tf_export.py`` reads to
write GraphDefs TensorFlow imports and ``devsession/raw_ops.py`` to bind keywords.  Run once, with TensorFlow installed (never at run
time or in tests), from the repository root:

    /work/peers/bin/python tools/make_tf_op_signatures.py

Per op: ``inputs`` and ``outputs`` (each arg's ``name`` and, as TF's OpDef has them,
``type_attr`` / ``number_attr`` / ``type_list_attr`` or a fixed ``type``, and ``is_ref``),
and ``attrs`` (each attr's ``type`` as TF spells it: "type", "int", "list(type)"..., its
``default`` when it has one, ``minimum``, and ``allowed`` dtypes of a type attr).  Dtypes
are named as ``ds.DType.name`` names them ("float32", "int64", "string"); ``raw_ops_names``
maps the keywords ``tf.raw_ops`` renamed to the OpDef's names.  The op types
devsession has and TF lacks are listed under ``missing``; ``graph_def_version`` is the
GraphDef producer version of that TensorFlow (what an exported GraphDef says it is).
"""

from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "devsession", "tf_op_signatures.json")

# TF ops devsession does not register but writes into GraphDefs for TensorFlow: the
# SavedModel builder's TF1 Saver (devsession/saved_model/tf_saver_nodes.py), and the
# batched products devsession's MatMul runs (tf_export.py's ``_matmul``)
EXPORT_ONLY_OPS = ("SaveV2", "BatchMatMulV2")


def dtype_name(enum: int) -> str:
    import tensorflow as tf

    return tf.dtypes.as_dtype(enum).name


def attr_value(value, kind: str):
    """The JSON form of a default AttrValue of TF type ``kind``."""
    which = value.WhichOneof("value")
    if which == "list":
        items = value.list
        for field, convert in (("s", bytes.decode), ("i", int), ("f", float), ("b", bool),
                               ("type", dtype_name), ("shape", shape_value)):
            if len(getattr(items, field)):
                return [convert(v) for v in getattr(items, field)]
        return []
    if which == "s":
        return value.s.decode()
    if which in ("i", "f", "b"):
        return getattr(value, which)
    if which == "type":
        return dtype_name(value.type)
    if which == "shape":
        return shape_value(value.shape)
    if which == "tensor":
        import tensorflow as tf

        array = tf.make_ndarray(value.tensor)
        return {"dtype": dtype_name(value.tensor.dtype), "shape": list(array.shape),
                "values": array.reshape(-1).tolist()}
    raise ValueError(f"a default of kind {which!r} ({kind}) has no JSON form here")


def shape_value(shape):
    return None if shape.unknown_rank else [d.size for d in shape.dim]


def arg(spec) -> dict:
    out = {"name": spec.name}
    for key in ("type_attr", "number_attr", "type_list_attr"):
        if getattr(spec, key):
            out[key] = getattr(spec, key)
    if not spec.type_attr and not spec.type_list_attr:
        out["type"] = dtype_name(spec.type)
    if spec.is_ref:
        out["is_ref"] = True
    return out


def attr(spec) -> dict:
    out = {"type": spec.type}
    if spec.HasField("default_value"):
        out["default"] = attr_value(spec.default_value, spec.type)
    if spec.has_minimum:
        out["minimum"] = spec.minimum
    if spec.type in ("type", "list(type)") and spec.allowed_values.list.type:
        out["allowed"] = sorted(dtype_name(t) for t in spec.allowed_values.list.type)
    return out


def signature(op_def) -> dict:
    return {"inputs": [arg(a) for a in op_def.input_arg],
            "outputs": [arg(a) for a in op_def.output_arg],
            "attrs": {a.name: attr(a) for a in op_def.attr},
            **({"stateful": True} if op_def.is_stateful else {})}


def raw_ops_names(tf, name: str, op_def):
    """{keyword of ``tf.raw_ops.<name>``: the OpDef's input or attr name} where TF's API
    renamed one (Sum's ``reduction_indices`` is ``axis``, Squeeze's ``squeeze_dims``
    ``axis``); None where none is, or raw_ops lacks the op.  The keywords are the inputs
    in order, then the attrs the inputs do not determine (required ones first)."""
    import inspect

    function = getattr(tf.raw_ops, name, None)
    if function is None:
        return None
    params = [p for p in inspect.signature(function).parameters if p != "name"]
    inputs = [a.name for a in op_def.input_arg]
    renamed = {mine: theirs for mine, theirs in zip(params, inputs) if mine != theirs}
    attrs = {a.name for a in op_def.attr}
    loose = [p for p in params[len(inputs):] if p not in attrs]    # attrs renamed: required
    inferred = {getattr(a, field) for a in op_def.input_arg         # to match one for one
                for field in ("type_attr", "number_attr", "type_list_attr")}
    unmatched = sorted(attrs - inferred - set(params[len(inputs):]))
    if len(loose) > 1 or len(loose) != len(unmatched):
        raise SystemExit(f"raw_ops.{name}{params}: cannot match {loose} to {unmatched}")
    renamed.update(zip(loose, unmatched))
    return renamed or None


def main() -> None:
    import tensorflow as tf
    from tensorflow.python.framework import op_def_registry

    sys.path.insert(0, ROOT)
    import devsession                     # registers every op

    registered_ops = devsession.ops.registry.registered_ops

    from devsession.tf_graph import mapped_op_types

    ops, missing = {}, []
    for name in sorted(set(registered_ops()) | set(EXPORT_ONLY_OPS) | mapped_op_types()):
        if name.startswith("_"):
            continue                      # devsession's private ops: TF never has them
        op_def = op_def_registry.get(name)
        if op_def is None:
            missing.append(name)
        else:
            ops[name] = signature(op_def)
            renamed = raw_ops_names(tf, name, op_def)
            if renamed is not None:
                ops[name]["raw_ops_names"] = renamed
    data = {"tensorflow_version": tf.__version__, "graph_def_version": tf.version.GRAPH_DEF_VERSION,
            "missing": missing, "ops": ops}
    with open(OUT, "w") as f:
        json.dump(data, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(ops)} op signatures written to {os.path.relpath(OUT, ROOT)}; "
          f"not in TF: {missing}")


if __name__ == "__main__":
    main()
