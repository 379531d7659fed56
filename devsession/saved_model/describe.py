"""What a SavedModel holds, in the words of TensorFlow's ``saved_model_cli show --all``:
each MetaGraphDef's tag set, its signatures (inputs and outputs: dtype, shape, tensor
name; the method) and its op types, so a model TensorFlow exported is read before it is
run (``devsession show DIR``)."""

from __future__ import annotations

from ..proto.graph_pb2 import DataType
from .loader import parse_saved_model

__all__ = ["describe"]


def describe(export_dir) -> str:
    """The text ``saved_model_cli show --all --dir export_dir`` prints."""
    lines = []
    for meta in parse_saved_model(str(export_dir)).meta_graphs:
        tags = list(meta.meta_info_def.tags)
        lines += ["", f"MetaGraphDef with tag-set: '{', '.join(tags)}' contains the following "
                      f"SignatureDefs:"]
        for key in sorted(meta.signature_def):
            signature = meta.signature_def[key]
            lines += ["", f"signature_def['{key}']:"]
            for kind, infos in (("input", signature.inputs), ("output", signature.outputs)):
                lines.append(f"  The given SavedModel SignatureDef contains the following "
                             f"{kind}(s):")
                for name in sorted(infos):
                    lines += [f"    {kind}s['{name}'] tensor_info:"] + _tensor_info(infos[name])
            lines.append(f"  Method name is: {signature.method_name}")
        ops = sorted({n.op for n in meta.graph_def.node} |
                     {n.op for f in meta.graph_def.library.function for n in f.node_def})
        lines.append(f"The MetaGraph with tag set {tags} contains the following ops: "
                     f"{{{', '.join(repr(op) for op in ops)}}}")
    return "\n".join(lines)


def _tensor_info(info) -> list:
    dims = info.tensor_shape.dim
    if info.tensor_shape.unknown_rank:
        shape = "unknown_rank"
    elif len(dims) == 1:
        shape = f"({dims[0].size})"
    else:
        shape = f"({', '.join(str(d.size) for d in dims)})"
    if info.WhichOneof("encoding") == "coo_sparse":
        sparse = info.coo_sparse
        where = [f"        indices name: {sparse.indices_tensor_name}",
                 f"        values name: {sparse.values_tensor_name}",
                 f"        dense_shape name: {sparse.dense_shape_tensor_name}"]
    else:
        where = [f"        name: {info.name}"]
    return [f"        dtype: {DataType.Name(info.dtype)}", f"        shape: {shape}"] + where
