"""Reading checkpoints TensorFlow wrote: the V2 "tensor bundle" of TF1's ``tf.train.Saver``
(``<prefix>.index`` and ``<prefix>.data-00000-of-00001``), so a TF1 program ported to
devsession restores the weights it trained with TensorFlow (``Saver.restore`` and
``NewCheckpointReader`` read both formats).

The index is a LevelDB-style sorted table (TF's ``core/lib/io/table``): a 48-byte footer
(two block handles, then the magic number) points at an index block, whose entries point
at data blocks; a block is prefix-compressed key/value entries, then its restart
offsets, then a 5-byte trailer (compression type, masked CRC-32C).  Each key is a
tensor's name; each value a ``BundleEntryProto`` (``proto/tensor_bundle.proto``: dtype,
shape, which data file, offset, size, masked CRC-32C of the bytes); the empty key holds
the ``BundleHeaderProto``; keys starting with a zero byte name the slices of a
partitioned variable.  Tensors are raw little-endian bytes.

Everything read is checked, as TF checks it: the footer's magic, each block's checksum,
each tensor's checksum and size; a failure is ``DataLossError`` naming the file.  What
TF can write but devsession does not read is ``UnimplementedError`` naming it: a
Snappy-compressed index, string tensors, partitioned variables (slices), bfloat16.
CRC-32C comes from ``google-crc32c`` (a dependency).
"""

from __future__ import annotations

import os
import struct

import numpy as np

from .. import dtypes
from ..errors import DataLossError, NotFoundError, UnimplementedError
from ..io.tfrecord import masked_crc32c as _masked_crc
from ..proto import graph_pb2, tensor_bundle_pb2

__all__ = ["TFCheckpoint", "is_tf_checkpoint"]

_MAGIC = 0xDB4775248B80FB57
_FOOTER_BYTES = 48
_TRAILER_BYTES = 5          # compression type, masked CRC-32C
_NO_COMPRESSION = 0


def is_tf_checkpoint(prefix: str) -> bool:
    """Whether ``prefix.index`` is a TensorFlow bundle index (its footer's magic)."""
    try:
        with open(prefix + ".index", "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() < _FOOTER_BYTES:
                return False
            f.seek(-8, os.SEEK_END)
            return struct.unpack("<Q", f.read(8))[0] == _MAGIC
    except OSError:
        return False


class TFCheckpoint:
    """The tensors of one TensorFlow checkpoint, read on demand."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self._index_path = prefix + ".index"
        try:
            with open(self._index_path, "rb") as f:
                table = f.read()
        except FileNotFoundError:
            raise NotFoundError(f"Checkpoint {prefix} not found: no file "
                                f"{self._index_path}.") from None
        entries = dict(_table_entries(table, self._index_path))
        header = tensor_bundle_pb2.BundleHeaderProto()
        header.ParseFromString(entries.pop(b"", b""))
        if header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
            raise UnimplementedError(f"Checkpoint {prefix} is big-endian; devsession reads "
                                     f"little-endian bundles.")
        self._shards = max(header.num_shards, 1)
        self._entries = {}
        for key, value in entries.items():
            if key.startswith(b"\x00"):   # one slice of a partitioned variable
                continue
            entry = tensor_bundle_pb2.BundleEntryProto()
            entry.ParseFromString(value)
            self._entries[key.decode()] = entry

    def names(self) -> list:
        return sorted(self._entries)

    def shape(self, name: str) -> list:
        return [d.size for d in self._entry(name).shape.dim]

    def dtype(self, name: str) -> dtypes.DType:
        return _dtype(self._entry(name), name, self.prefix)

    def tensor(self, name: str) -> np.ndarray:
        """The tensor ``name``, its bytes checked against the entry's size and CRC."""
        entry = self._entry(name)
        dtype = _dtype(entry, name, self.prefix)
        if entry.slices:
            raise UnimplementedError(f"Checkpoint {self.prefix}: '{name}' is a partitioned "
                                     f"variable (saved in slices), which devsession does "
                                     f"not read.")
        path = f"{self.prefix}.data-{entry.shard_id:05d}-of-{self._shards:05d}"
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                raw = f.read(entry.size)
        except FileNotFoundError:
            raise DataLossError(f"Checkpoint {self.prefix}: its data file {path} is "
                                f"missing.") from None
        shape = self.shape(name)
        if len(raw) != entry.size or entry.size != dtype.np.itemsize * int(np.prod(shape)):
            raise DataLossError(f"Checkpoint {self.prefix}: '{name}' should be "
                                f"{entry.size} bytes of {dtype.name} {shape} in {path}, "
                                f"got {len(raw)}.")
        if _masked_crc(raw) != entry.crc32c:
            raise DataLossError(f"Checkpoint {self.prefix}: '{name}' in {path} is corrupt "
                                f"(its CRC-32C differs from the index's).")
        return np.frombuffer(raw, dtype.np.newbyteorder("<")).astype(dtype.np).reshape(shape)

    def _entry(self, name: str):
        try:
            return self._entries[name]
        except KeyError:
            raise NotFoundError(f"Key {name} not found in checkpoint {self.prefix}.") \
                from None


def _dtype(entry, name: str, prefix: str) -> dtypes.DType:
    try:
        dtype = dtypes.as_dtype(entry.dtype)
    except TypeError:
        dtype = None
    if dtype is None or dtype == dtypes.string:
        label = graph_pb2.DataType.Name(entry.dtype) \
            if entry.dtype in graph_pb2.DataType.values() else entry.dtype
        raise UnimplementedError(f"Checkpoint {prefix}: '{name}' is {label}, which "
                                 f"devsession does not read from TF checkpoints.")
    return dtype


# --- the sorted table ------------------------------------------------------------------------

def _table_entries(table: bytes, path: str):
    """Every (key, value) of the table's data blocks, in order."""
    if len(table) < _FOOTER_BYTES or \
            struct.unpack("<Q", table[-8:])[0] != _MAGIC:
        raise DataLossError(f"{path} is not a TensorFlow checkpoint index (no table footer).")
    footer = table[-_FOOTER_BYTES:]
    _, at = _block_handle(footer, 0, path)            # the metaindex block: unused
    index_handle, _ = _block_handle(footer, at, path)
    for _, handle in _block_entries(_block(table, index_handle, path), path):
        data_handle, _ = _block_handle(handle, 0, path)
        yield from _block_entries(_block(table, data_handle, path), path)


def _block_handle(data: bytes, at: int, path: str):
    offset, at = _varint(data, at, path)
    size, at = _varint(data, at, path)
    return (offset, size), at


def _block(table: bytes, handle, path: str) -> bytes:
    offset, size = handle
    end = offset + size + _TRAILER_BYTES
    if end > len(table) - _FOOTER_BYTES:
        raise DataLossError(f"{path}: a block runs past the end of the table.")
    contents, trailer = table[offset:offset + size], table[offset + size:end]
    if _masked_crc(contents + trailer[:1]) != struct.unpack("<I", trailer[1:])[0]:
        raise DataLossError(f"{path} is corrupt (a block's CRC-32C differs).")
    if trailer[0] != _NO_COMPRESSION:
        raise UnimplementedError(f"{path}: its blocks are compressed (type {trailer[0]}); "
                                 f"devsession reads uncompressed checkpoint indexes, as TF "
                                 f"writes them.")
    return contents


def _block_entries(block: bytes, path: str):
    """The (key, value) entries of one block (keys prefix-compressed)."""
    if len(block) < 4:
        raise DataLossError(f"{path}: a block is too short.")
    restarts = struct.unpack("<I", block[-4:])[0]
    end = len(block) - 4 * (restarts + 1)
    if end < 0:
        raise DataLossError(f"{path}: a block's restart array is corrupt.")
    at, key = 0, b""
    while at < end:
        shared, at = _varint(block, at, path)
        unshared, at = _varint(block, at, path)
        length, at = _varint(block, at, path)
        if shared > len(key) or at + unshared + length > end:
            raise DataLossError(f"{path}: a block entry is corrupt.")
        key = key[:shared] + block[at:at + unshared]
        at += unshared
        yield key, block[at:at + length]
        at += length


def _varint(data: bytes, at: int, path: str):
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise DataLossError(f"{path}: a varint is truncated or corrupt.")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7

