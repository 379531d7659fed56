"""TF's ``DecodeCompressed`` (``tf.io.decode_compressed``): each string of a tensor
inflated from ZLIB or GZIP (or passed through with no compression), elementwise, on the
host (``kernels/reference/compression.py``).  Corrupt data is ``DataLossError`` with
zlib's message, as TF's; a stream cut short gives what it holds, as TF's reader does.
TF's ZSTD is ``UnimplementedError``; any other type ``InvalidArgumentError``, as TF's.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["decode_compressed"]


def _infer(inputs, attrs, node):
    (data,) = inputs
    if data.dtype != dtypes.string:
        raise InferError(f"Op '{node}': DecodeCompressed reads strings, got "
                         f"{data.dtype.name}.")
    return dtypes.string, data.shape


register_op(OpDef("DecodeCompressed", _infer, 1, attr_defaults={"compression_type": ""}))
not_differentiable("DecodeCompressed")


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002  (TF's keyword)
    """Each string of ``bytes`` decompressed: ``compression_type`` "ZLIB", "GZIP" or ""
    (none)."""
    graph = get_default_graph()
    data = convert_to_tensor(bytes, dtype=dtypes.string, graph=graph)
    return graph.create_op("DecodeCompressed", [data],
                           {"compression_type": str(compression_type)},
                           name=name or "DecodeCompressed").outputs[0]
