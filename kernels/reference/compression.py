"""DecodeCompressed (``devsession/ops/compression.py``) on the host, over zlib."""

from __future__ import annotations

import zlib

import numpy as np

from devsession.errors import DataLossError, InvalidArgumentError, UnimplementedError

from ..registry import HOST, register_kernel

# zlib's window bits for each of TF's compression types: a zlib header, a gzip one
_WBITS = {"ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}


@register_kernel("DecodeCompressed", HOST)
def build_decode_compressed(node):
    kind = node.attrs.get("compression_type", "")
    if kind == "ZSTD":
        raise UnimplementedError(f"Node '{node.name}': ZSTD compression is not supported by "
                                 f"devsession; ZLIB, GZIP or none are.", node.name)
    if kind not in ("", *_WBITS):
        raise InvalidArgumentError(f"Only ZLIB, ZSTD, GZIP or NONE are supported "
                                   f"compressions (node '{node.name}')", node.name)

    def inflate(data: bytes) -> bytes:
        if not kind:
            return data
        try:
            # a stream cut short gives what it holds (no final check), as TF's reader
            return zlib.decompressobj(_WBITS[kind]).decompress(data)
        except zlib.error as e:
            raise DataLossError(f"inflate() failed: {e} (node '{node.name}')",
                                node.name) from None

    def decode_compressed(data):
        data = np.asarray(data, dtype=object)
        out = np.empty(data.shape, dtype=object)
        for index, value in np.ndenumerate(data):
            out[index] = inflate(bytes(value))
        return out
    return decode_compressed
