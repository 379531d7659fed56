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
the ``BundleHeaderProto``.  Tensors are raw little-endian bytes.

A partitioned variable (TF1's ``partitioner=``) is saved in slices: its entry under the
full name has the full shape and lists its ``slices`` (start and length per axis, no
length: the whole axis), and each slice is an entry of its own whose key is TF's
``EncodeTensorNameSlice``: OrderedCode's number 0, the name as an escaped string, the
rank, then each axis' start and length as signed numbers (``_slice_key``).  ``tensor``
assembles the full tensor from them, so it restores into any partitioning.

Everything read is checked, as TF checks it: the footer's magic, each block's checksum,
each tensor's checksum and size; a failure is ``DataLossError`` naming the file.  What
TF can write but devsession does not read is ``UnimplementedError`` naming it: a
Snappy-compressed index, string tensors other than scalars (an object-based checkpoint's
``_CHECKPOINTABLE_OBJECT_GRAPH`` is one), bfloat16.
CRC-32C comes from ``google-crc32c`` (a dependency).
"""

from __future__ import annotations

import os
import struct

import numpy as np

from .. import dtypes
from ..errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
from ..io.tfrecord import masked_crc32c as _masked_crc
from ..proto import graph_pb2, tensor_bundle_pb2

__all__ = ["TFCheckpoint", "is_tf_checkpoint"]

# The table format's constants, shared with the writer (tf_checkpoint_writer.py)
TABLE_MAGIC = 0xDB4775248B80FB57
_FOOTER_BYTES = 48
_TRAILER_BYTES = 5          # compression type, masked CRC-32C
NO_COMPRESSION = 0


def is_tf_checkpoint(prefix: str) -> bool:
    """Whether ``prefix.index`` is a TensorFlow bundle index (its footer's magic)."""
    try:
        with open(prefix + ".index", "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() < _FOOTER_BYTES:
                return False
            f.seek(-8, os.SEEK_END)
            return struct.unpack("<Q", f.read(8))[0] == TABLE_MAGIC
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
        self._slices = {}          # encoded slice key: its entry, still serialized
        for key, value in entries.items():
            if key.startswith(b"\x00"):   # one slice of a partitioned variable
                self._slices[key] = value
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
        """The tensor ``name``, its bytes checked against the entry's size and CRC; a
        partitioned variable's assembled from its slices."""
        entry = self._entry(name)
        dtype = _dtype(entry, name, self.prefix)
        if dtype == dtypes.string:           # scalars only: _dtype refuses the others
            return np.array(self.string_scalar(name), dtype=object)
        shape = self.shape(name)
        if not entry.slices:
            return self._read(entry, name, dtype, shape)
        full = np.zeros(shape, dtype.np)
        for piece in entry.slices:
            starts, lengths = _extents(piece, shape)
            key = _slice_key(name, starts, [-1 if e.WhichOneof("has_length") is None
                                            else e.length for e in piece.extent])
            label = f"{name}[{', '.join(f'{a}:{a + n}' for a, n in zip(starts, lengths))}]"
            if key not in self._slices:
                raise DataLossError(f"Checkpoint {self.prefix}: the slice {label} its index "
                                    f"lists is missing.")
            part = tensor_bundle_pb2.BundleEntryProto()
            part.ParseFromString(self._slices[key])
            if [d.size for d in part.shape.dim] != lengths or part.dtype != entry.dtype:
                raise DataLossError(f"Checkpoint {self.prefix}: the slice {label} is "
                                    f"{[d.size for d in part.shape.dim]}, not {lengths}.")
            full[tuple(slice(a, a + n) for a, n in zip(starts, lengths))] = \
                self._read(part, label, dtype, lengths)
        return full

    def string_scalar(self, name: str) -> bytes:
        """The scalar string tensor ``name`` (an object-based checkpoint's object graph),
        its bytes checked: TF's form is the length as a varint, the masked CRC-32C of
        the length as a uint32, then the bytes; the entry's CRC covers that uint32, the
        length's checksum and the bytes."""
        entry = self._entry(name)
        if entry.dtype != dtypes.string.enum or entry.shape.dim:
            raise InvalidArgumentError(f"Checkpoint {self.prefix}: '{name}' is not a "
                                       f"scalar string.")
        raw = self._raw(entry, name)
        length, shift, at = 0, 0, 0
        while at < len(raw):
            length |= (raw[at] & 0x7F) << shift
            shift, at = shift + 7, at + 1
            if not raw[at - 1] & 0x80:
                break
        size = struct.pack("<I", length)        # TF checksums the length as a uint32
        if len(raw) != at + 4 + length or raw[at:at + 4] != struct.pack(
                "<I", _masked_crc(size)) or _masked_crc(size + raw[at:]) != entry.crc32c:
            raise DataLossError(f"Checkpoint {self.prefix}: '{name}' is corrupt (its "
                                f"CRC-32C or length differs from the index's).")
        return raw[at + 4:]

    def _raw(self, entry, name: str) -> bytes:
        path = f"{self.prefix}.data-{entry.shard_id:05d}-of-{self._shards:05d}"
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                raw = f.read(entry.size)
        except FileNotFoundError:
            raise DataLossError(f"Checkpoint {self.prefix}: its data file {path} is "
                                f"missing.") from None
        if len(raw) != entry.size:
            raise DataLossError(f"Checkpoint {self.prefix}: '{name}' should be "
                                f"{entry.size} bytes in {path}, got {len(raw)}.")
        return raw

    def _read(self, entry, name: str, dtype, shape) -> np.ndarray:
        path = f"{self.prefix}.data-{entry.shard_id:05d}-of-{self._shards:05d}"
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                raw = f.read(entry.size)
        except FileNotFoundError:
            raise DataLossError(f"Checkpoint {self.prefix}: its data file {path} is "
                                f"missing.") from None
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


def _extents(piece, shape: list) -> tuple:
    """(starts, lengths) of a TensorSliceProto over ``shape`` (no length: the whole
    axis)."""
    starts, lengths = [], []
    for axis, extent in enumerate(piece.extent):
        whole = extent.WhichOneof("has_length") is None
        starts.append(0 if whole else extent.start)
        lengths.append(shape[axis] if whole else extent.length)
    return starts, lengths


def _slice_key(name: str, starts: list, lengths: list) -> bytes:
    """TF's ``EncodeTensorNameSlice``: the table key of one slice (OrderedCode)."""
    escaped = b"".join(b"\x00\xff" if c == 0 else b"\xff\x00" if c == 0xFF else bytes([c])
                       for c in name.encode())
    key = b"\x00" + escaped + b"\x00\x01"
    key += _increasing(len(starts))
    for start, length in zip(starts, lengths):
        key += _signed_increasing(start) + _signed_increasing(length)
    return key


def _increasing(n: int) -> bytes:
    """OrderedCode's WriteNumIncreasing: the byte count, then the big-endian bytes."""
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return bytes([len(raw)]) + raw


def _signed_increasing(n: int) -> bytes:
    """OrderedCode's WriteSignedNumIncreasing: ``len`` bytes of two's complement whose
    first bits say the length (1s then a 0 for the sign)."""
    magnitude = ~n if n < 0 else n
    length = magnitude.bit_length() // 7 + 1
    raw = bytearray(n.to_bytes(10, "big", signed=True)[10 - length:])
    header = (0xFFFF << (16 - length)) & 0xFFFF          # ``length`` leading 1 bits
    raw[0] ^= header >> 8
    if length > 1:
        raw[1] ^= header & 0xFF
    return bytes(raw)


def _dtype(entry, name: str, prefix: str) -> dtypes.DType:
    try:
        dtype = dtypes.as_dtype(entry.dtype)
    except TypeError:
        dtype = None
    if dtype == dtypes.string and not entry.shape.dim and not entry.slices:
        return dtype            # a scalar string (an object-based checkpoint's graph)
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
            struct.unpack("<Q", table[-8:])[0] != TABLE_MAGIC:
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
    if trailer[0] != NO_COMPRESSION:
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

