"""Writing checkpoints in TensorFlow's V2 "tensor bundle" format, the inverse of
``tf_checkpoint.py``: what a SavedModel's ``variables/variables`` must be for TensorFlow
(``tf.compat.v1.saved_model.loader.load``, TF Serving, ``tf.train.load_checkpoint``) to
read it.  ``write_tf_checkpoint(prefix, {name: array})`` writes, as TF's
``BundleWriter`` does:

* ``<prefix>.data-00000-of-00001``: the tensors' raw little-endian bytes, one after the
  other in key order, unpadded;
* ``<prefix>.index``: a LevelDB-style sorted table (TF's ``core/lib/io/table_builder``):
  data blocks of prefix-compressed entries (a restart point every 16), cut when a block
  reaches 256 KiB, each followed by its trailer (compression type 0, the masked CRC-32C
  of the block and that byte); an empty metaindex block; an index block (a restart at
  every entry) whose keys are LevelDB's shortest separators between blocks; the 48-byte
  footer (the two block handles as varints, zero-padded to 40 bytes, then the magic).
  The empty key holds the ``BundleHeaderProto`` (one shard, little-endian, version 1);
  every other key is a tensor's name and its value a ``BundleEntryProto`` (dtype,
  shape, shard 0, offset, size, masked CRC-32C of the bytes).

The data file is moved into place first, then the index, each written to a temporary
file, fsync'ed and renamed (``atomic_files``): the index is the commit point.  A crash
between the two leaves the old index over the new data, which the read's CRC checks
report as ``DataLossError``; never a half-written file.

String arrays (their bundle form differs) are ``UnimplementedError``, as the reader's; a
``bytes`` value is written as a scalar string tensor (TF's form: length varint, a
checksum of the length, the bytes), which object-based checkpoints need for their object graph;
a dtype devsession lacks (complex) ``TypeError``, before anything is written.
"""

from __future__ import annotations

import os
import struct

import numpy as np

from .. import dtypes
from ..atomic_files import fsync_directory, write_atomically, write_temp
from ..errors import UnimplementedError
from ..io.tfrecord import masked_crc32c
from ..proto import tensor_bundle_pb2
from .tf_checkpoint import NO_COMPRESSION, TABLE_MAGIC

__all__ = ["write_tf_checkpoint", "data_file_name", "string_scalar_bytes"]

_FOOTER_HANDLES_BYTES = 40           # two BlockHandles at most 2 * 10 bytes each
_BLOCK_SIZE = 256 * 1024             # TF's table::Options defaults
_RESTART_INTERVAL = 16
_BUNDLE_VERSION = 1                  # TF's kTensorBundleVersion


def data_file_name(prefix: str) -> str:
    """The one data file of a single-shard bundle."""
    return f"{prefix}.data-00000-of-00001"


def write_tf_checkpoint(prefix: str, tensors: dict, data_order=None) -> None:
    """Write ``{name: array}`` as a TensorFlow checkpoint at ``prefix`` (see the module
    docstring); the data file holds the tensors in key order, or in ``data_order`` (every
    name once: TF's object-based checkpoints lay them out in object-graph order).
    ``UnimplementedError`` for a string tensor, ``TypeError`` for a dtype devsession
    lacks."""
    prefix = os.fspath(prefix)
    names = sorted(tensors) if data_order is None else list(data_order)
    if sorted(names) != sorted(tensors):
        raise ValueError("data_order must name every tensor once.")
    data, entries, offset = [], {}, 0
    for name in names:
        if isinstance(tensors[name], bytes):      # a scalar string (an object graph)
            (raw, crc), dtype, shape = string_scalar_bytes(tensors[name]), dtypes.string, ()
        else:
            array = np.asarray(tensors[name])
            raw, dtype, shape = _raw_bytes(name, array), dtypes.as_dtype(array.dtype), \
                array.shape
            crc = masked_crc32c(raw)
        entry = tensor_bundle_pb2.BundleEntryProto(
            dtype=dtype.enum, shard_id=0, offset=offset, size=len(raw), crc32c=crc)
        entry.shape.SetInParent()          # a scalar's empty shape is written, as TF's
        for size in shape:
            entry.shape.dim.add(size=size)
        entries[name.encode()] = entry.SerializeToString(deterministic=True)
        data.append(raw)
        offset += len(raw)
    header = tensor_bundle_pb2.BundleHeaderProto(
        num_shards=1, endianness=tensor_bundle_pb2.BundleHeaderProto.LITTLE)
    header.version.producer = _BUNDLE_VERSION
    table = build_table([(b"", header.SerializeToString(deterministic=True))]
                        + sorted(entries.items()))
    directory = os.path.dirname(os.path.abspath(prefix))
    data_path = data_file_name(prefix)
    tmp = write_temp(directory, os.path.basename(data_path),
                     lambda f: [f.write(chunk) for chunk in data])
    try:
        os.replace(tmp, data_path)
    except BaseException:
        os.remove(tmp)
        raise
    fsync_directory(directory)     # the data is durable before an index names it
    write_atomically(prefix + ".index", lambda f: f.write(table))


def string_scalar_bytes(value: bytes) -> tuple:
    """A scalar string tensor's bundle bytes and their entry's CRC, as TF's
    ``WriteStringTensor``: the length as a varint, the masked CRC-32C of the length as a
    little-endian uint32, the bytes; the entry's CRC-32C covers that uint32 (not the
    varint), the length's checksum and the bytes."""
    varint, n = bytearray(), len(value)
    while n >= 0x80:
        varint.append((n & 0x7F) | 0x80)
        n >>= 7
    varint.append(n)
    checksum = struct.pack("<I", masked_crc32c(struct.pack("<I", len(value))))
    return (bytes(varint) + checksum + value,
            masked_crc32c(struct.pack("<I", len(value)) + checksum + value))


def _raw_bytes(name: str, array: np.ndarray) -> bytes:
    if array.dtype.kind in "OSU":
        raise UnimplementedError(f"'{name}' is {array.dtype}: devsession writes numeric and "
                                 f"bool tensors into TensorFlow checkpoints, not strings.")
    dtypes.as_dtype(array.dtype)      # TypeError for a dtype devsession lacks
    little = array.dtype.newbyteorder("<") if array.dtype.byteorder not in "|" \
        else array.dtype
    return np.ascontiguousarray(array, dtype=little).tobytes()


# --- the sorted table (TF's table_builder) -----------------------------------------------

def build_table(entries: list, block_size: int = _BLOCK_SIZE) -> bytes:
    """The table of ``entries`` ((key, value) bytes, keys strictly increasing)."""
    out = bytearray()
    data, index = _Block(_RESTART_INTERVAL), _Block(1)
    pending, last_key = None, None
    for key, value in entries:
        if last_key is not None and key <= last_key:
            raise ValueError(f"table keys must be strictly increasing: {key!r} after "
                             f"{last_key!r}")
        if pending is not None:
            index.add(_shortest_separator(last_key, key), pending)
            pending = None
        data.add(key, value)
        last_key = key
        if data.size_estimate() >= block_size:
            pending = _write_block(out, data.finish())
            data = _Block(_RESTART_INTERVAL)
    if not data.empty():
        pending = _write_block(out, data.finish())
    metaindex = _write_block(out, _Block(_RESTART_INTERVAL).finish())
    if pending is not None:
        index.add(_short_successor(last_key), pending)
    index_handle = _write_block(out, index.finish())
    handles = metaindex + index_handle
    out += handles + b"\x00" * (_FOOTER_HANDLES_BYTES - len(handles))
    out += struct.pack("<Q", TABLE_MAGIC)
    return bytes(out)


class _Block:
    """LevelDB's BlockBuilder: keys share prefixes with the previous key, except at the
    restart points, whose offsets end the block."""

    def __init__(self, restart_interval: int):
        self.interval = restart_interval
        self.buffer = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last = b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.interval:
            limit = min(len(self.last), len(key))
            while shared < limit and self.last[shared] == key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.counter = 0
        self.buffer += _varint(shared) + _varint(len(key) - shared) + _varint(len(value))
        self.buffer += key[shared:] + value
        self.last = key
        self.counter += 1

    def empty(self) -> bool:
        return not self.buffer

    def size_estimate(self) -> int:
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        return bytes(self.buffer) + b"".join(struct.pack("<I", r) for r in self.restarts) \
            + struct.pack("<I", len(self.restarts))


def _write_block(out: bytearray, contents: bytes) -> bytes:
    """Append ``contents`` and its trailer to ``out``; its encoded BlockHandle."""
    handle = _varint(len(out)) + _varint(len(contents))
    kind = bytes([NO_COMPRESSION])
    out += contents + kind + struct.pack("<I", masked_crc32c(contents + kind))
    return handle


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """LevelDB's BytewiseComparator::FindShortestSeparator: a short key in
    [start, limit)."""
    n = min(len(start), len(limit))
    at = 0
    while at < n and start[at] == limit[at]:
        at += 1
    if at < n and start[at] < 0xFF and start[at] + 1 < limit[at]:
        return start[:at] + bytes([start[at] + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """LevelDB's FindShortSuccessor: a short key >= ``key``."""
    for at, byte in enumerate(key):
        if byte != 0xFF:
            return key[:at] + bytes([byte + 1])
    return key


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
