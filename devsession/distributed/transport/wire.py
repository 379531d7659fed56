"""Tensors on the wire: raw bytes in chunks, described by ``TensorSpec``s (wire.proto).

Every message that carries tensors has ``repeated TensorSpec tensors = 14`` and
``bytes data = 15``.  The tensors' little-endian C-order buffers, concatenated in list
order, form one byte sequence; a unary message carries all of it in ``data``, a stream
carries it in consecutive pieces of at most ``CHUNK_BYTES``, the first message also
holding the specs.  So no message exceeds the chunk size, no tensor is limited by
protobuf's 2 GB, and nothing is encoded per element, pickled or evaluated.

The payload field is written and read here rather than by protobuf so the bytes are
copied once on each side: ``encode`` joins the serialized small fields and memoryviews of
the arrays into one ``bytes`` (what gRPC sends); ``split`` finds field 15 in a received
message and returns a memoryview of it, which ``TensorReader`` copies straight into
the destination arrays.  The result is exactly protobuf's encoding of the same message
(tests/test_distributed_wire.py parses it with the generated classes to prove it).

    frames = list(encode_stream(pb.PushTensorRequest(step_id=7), ["k"], [array]))
    head, arrays = decode_stream(pb.PushTensorRequest, iter(frames))

A string tensor travels packed: each element's length (little-endian uint64, in C
order), then the elements' bytes, its spec's ``string_bytes`` giving the packed size; the
receiver checks that the lengths account for every byte.

Malformed input of any kind raises ``InvalidArgumentError``; a spec too large to
allocate raises ``ResourceExhaustedError``.

Received arrays of 1-64 MB come from a pool (``kernels/buffer_pool.py``) and are written
again once nobody holds them (a fetched result the caller keeps is never touched): a
fresh 16 MB array per step takes new pages from the kernel each time, and now and then
a step pays 20-60 ms for them (worker-to-worker 16 MiB steps over 15 ms: 5-13 in 300
without the pool, 1-7 with it).
"""

from __future__ import annotations

import sys
from typing import Iterable, Iterator, Sequence

import numpy as np

from ... import dtypes
from ...errors import InvalidArgumentError, ResourceExhaustedError, UnimplementedError
from ...kernels.buffer_pool import BufferPool
from ...proto import wire_pb2

__all__ = ["CHUNK_BYTES", "INLINE_BYTES", "MAX_MESSAGE_BYTES", "encode", "split", "decode",
           "to_host", "tensor_specs", "payload_views", "payload_size", "encode_stream",
           "decode_stream", "TensorReader", "encode_tensors", "decode_tensors", "read_tensors",
           "spec_nbytes", "receive_buffer", "received"]

# A stream cuts the payload into pieces of this size; 1 MiB measured best on loopback
# (benchmarks/grpc_transfer.py): big enough that per-message costs vanish, small enough
# to keep both ends busy at once.
CHUNK_BYTES = 1 << 20
# Tensors totalling up to this many bytes ride inside a unary message.
INLINE_BYTES = 1 << 20
# The gRPC message limit of every server and channel: comfortably above the chunk size
# and the largest control message, far below what could exhaust a worker's memory.
MAX_MESSAGE_BYTES = 64 << 20

PAYLOAD_FIELD = 15
_PAYLOAD_TAG = bytes([(PAYLOAD_FIELD << 3) | 2])
_LITTLE = sys.byteorder == "little"


# --- the payload field ------------------------------------------------------------------

def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode(message, payload: Sequence = ()) -> bytes:
    """``message`` serialized, with ``payload`` (bytes-like parts, joined) as field 15.

    ``message`` must not set field 15 itself.
    """
    head = message.SerializeToString()
    size = sum(len(p) for p in payload)
    if not size:
        return head
    return b"".join([head, _PAYLOAD_TAG, _varint(size), *payload])


def _read_varint(buf: memoryview, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError("truncated or overlong varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def split(data) -> tuple[bytes, memoryview]:
    """(the message's bytes without field 15, a memoryview of field 15's content).

    Raises ValueError for bytes that are not a well-formed protobuf message.
    """
    buf = memoryview(data)
    end = len(buf)
    pos = 0
    kept: list = []
    payload = buf[0:0]
    seen_payload = False
    while pos < end:
        start = pos
        key, pos = _read_varint(buf, pos, end)
        field, wire_type = key >> 3, key & 7
        if field == 0:
            raise ValueError("field number 0")
        if wire_type == 0:
            _, pos = _read_varint(buf, pos, end)
        elif wire_type == 1:
            pos += 8
        elif wire_type == 5:
            pos += 4
        elif wire_type == 2:
            length, pos = _read_varint(buf, pos, end)
            if pos + length > end:
                raise ValueError("a length-delimited field runs past the end")
            if field == PAYLOAD_FIELD:
                if seen_payload:
                    raise ValueError("the data field appears twice")
                seen_payload = True
                payload = buf[pos:pos + length]
                pos += length
                continue
            pos += length
        else:
            raise ValueError(f"unsupported wire type {wire_type}")
        if pos > end:
            raise ValueError("a field runs past the end")
        kept.append(buf[start:pos])
    if not seen_payload:
        return data, payload
    return b"".join(kept), payload


def decode(cls, data) -> tuple[object, memoryview]:
    """(a ``cls`` message without its payload, the payload); InvalidArgumentError if bad."""
    try:
        head, payload = split(data)
        return cls.FromString(head), payload
    except Exception as e:  # ValueError from split, DecodeError from protobuf
        raise InvalidArgumentError(
            f"Malformed {cls.DESCRIPTOR.name} message ({len(data)} bytes): {e}") from None


# --- tensors <-> specs and byte views -----------------------------------------------------

# The numpy dtype of each wire enum a fixed-size tensor may carry, and back (strings
# travel packed: ``_pack``).
WIRE_DTYPES = {d.enum: np.dtype(d.np) for d in dtypes.ALL if d is not dtypes.string}
_WIRE_ENUMS = {dtype: enum for enum, dtype in WIRE_DTYPES.items()}
_STRING = dtypes.string.enum
_LENGTH = np.dtype("<u8")


def to_host(value) -> np.ndarray:
    """A C-contiguous numpy array of ``value`` (a numpy or cupy array, or a scalar)."""
    if hasattr(value, "__cuda_array_interface__"):
        value = value.get()
    array = np.asarray(value)
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    return array


def tensor_specs(names: Sequence[str], arrays: Sequence[np.ndarray]) -> list:
    return [_spec(name, array) for name, array in zip(names, arrays)]


def _spec(name: str, array: np.ndarray):
    if array.dtype == object:
        return wire_pb2.TensorSpec(name=name, dtype=_STRING, shape=array.shape,
                                   string_bytes=_packed_size(name, array))
    return wire_pb2.TensorSpec(name=name, dtype=_WIRE_ENUMS.get(array.dtype) or
                               _unsendable(name, array.dtype), shape=array.shape)


def _packed_size(name: str, array: np.ndarray) -> int:
    """The packed payload's bytes; InvalidArgumentError for an element that is not
    bytes (before any spec goes out)."""
    total = array.size * _LENGTH.itemsize
    for element in array.reshape(-1):
        if not isinstance(element, bytes):
            raise InvalidArgumentError(f"Cannot send tensor '{name}': a string tensor holds "
                                       f"bytes, not {type(element).__name__}.")
        total += len(element)
    return total


def _pack(array: np.ndarray) -> np.ndarray:
    """A string tensor's payload: the elements' lengths, then their bytes."""
    flat = array.reshape(-1)
    lengths = np.fromiter((len(b) for b in flat), _LENGTH, count=flat.size)
    return np.frombuffer(lengths.tobytes() + b"".join(flat), np.uint8)


def _unpack(spec, packed: np.ndarray) -> np.ndarray:
    """The string tensor ``spec`` announced, from its received payload; checked."""
    count = 1
    for d in spec.shape:
        count *= d
    head = count * _LENGTH.itemsize
    data = packed.tobytes()
    lengths = np.frombuffer(data[:head], _LENGTH).tolist() if len(data) >= head else None
    if lengths is None or sum(lengths) != len(data) - head:       # Python ints: no wrap
        raise InvalidArgumentError(f"String tensor '{spec.name}' is malformed: its element "
                                   f"lengths do not account for its {len(data)} bytes.")
    out = np.empty(count, object)
    pos = head
    for i, length in enumerate(lengths):
        out[i] = data[pos:pos + length]
        pos += length
    try:
        return out.reshape(tuple(spec.shape))
    except ValueError as e:             # no elements, but a dimension numpy cannot hold
        raise ResourceExhaustedError(f"Cannot allocate string tensor '{spec.name}' of shape "
                                     f"{list(spec.shape)}: {e}") from None


def _unsendable(name: str, dtype) -> int:
    """The wire enum of a dtype outside the table (another byte order of a wire dtype:
    ``payload_views`` sends it little-endian); raises for one that cannot travel."""
    try:
        enum = dtypes.as_dtype(dtype).enum
    except TypeError as e:
        raise InvalidArgumentError(f"Cannot send tensor '{name}': {e}") from None
    if enum == _STRING:
        raise UnimplementedError(f"Cannot send string tensor '{name}' of numpy dtype "
                                 f"{np.dtype(dtype)}: a string tensor is an object array "
                                 f"of bytes.")
    return enum          # another byte order of a wire dtype


def payload_views(arrays: Sequence[np.ndarray]) -> list[memoryview]:
    """One flat byte view per (host, C-contiguous) array, little-endian."""
    views = []
    for array in arrays:
        if array.dtype == object:
            views.append(memoryview(_pack(array)))
            continue
        little = array.dtype.newbyteorder("<")
        if array.dtype != little:          # a big-endian array, or any on a big-endian host
            array = array.astype(little)
        views.append(memoryview(array.reshape(-1).view(np.uint8)))
    return views


def payload_size(arrays: Sequence[np.ndarray]) -> int:
    return sum(_packed_size("", a) if a.dtype == object else a.nbytes for a in arrays)


def _chunks(views: Sequence[memoryview], chunk: int) -> Iterator[list]:
    """Lists of views (pieces of ``views``, in order) of ``chunk`` bytes each, the last
    one shorter; at least one (possibly empty) list."""
    parts, size = [], 0
    for view in views:
        pos = 0
        while pos < len(view):
            take = min(chunk - size, len(view) - pos)
            parts.append(view[pos:pos + take])
            size += take
            pos += take
            if size == chunk:
                yield parts
                parts, size = [], 0
    yield parts


def encode_tensors(message, names: Sequence[str], arrays: Sequence[np.ndarray]) -> bytes:
    """One message carrying every tensor inline (use when payload_size <= INLINE_BYTES)."""
    arrays = [to_host(a) for a in arrays]
    message.tensors.extend(tensor_specs(names, arrays))
    return encode(message, payload_views(arrays))


def encode_stream(first, names: Sequence[str], arrays: Sequence,
                  chunk: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The messages of a stream carrying ``arrays``: ``first`` with the specs added and
    the first piece of data, then messages holding only the next piece of data."""
    arrays = [to_host(a) for a in arrays]
    first.tensors.extend(tensor_specs(names, arrays))
    pieces = _chunks(payload_views(arrays), chunk)
    yield encode(first, next(pieces))
    for parts in pieces:
        if parts:
            yield encode_payload_only(parts)


def encode_payload_only(parts: Sequence) -> bytes:
    return b"".join([_PAYLOAD_TAG, _varint(sum(len(p) for p in parts)), *parts])


class TensorReader:
    """Receives the payload of some ``TensorSpec``s into fresh arrays, piece by piece."""

    def __init__(self, specs: Iterable):
        self.names: list[str] = []
        self.arrays: list[np.ndarray] = []
        self._views: list[np.ndarray] = []
        self._specs = list(specs)
        for spec in self._specs:
            array = receive_buffer(spec)
            self.names.append(spec.name)
            self.arrays.append(array)
            self._views.append(array.reshape(-1).view(np.uint8))
        self._index = 0
        self._offset = 0
        self._skip_empty()

    def _skip_empty(self) -> None:
        while self._index < len(self._views) and self._offset == len(self._views[self._index]):
            self._index += 1
            self._offset = 0

    def add(self, payload: memoryview) -> None:
        pos, size = 0, len(payload)
        while pos < size:
            if self._index >= len(self._views):
                raise InvalidArgumentError(
                    f"Received {size - pos} more bytes than the tensors "
                    f"{self.names} announced.")
            view = self._views[self._index]
            take = min(len(view) - self._offset, size - pos)
            view[self._offset:self._offset + take] = np.frombuffer(payload[pos:pos + take],
                                                                  np.uint8)
            self._offset += take
            pos += take
            self._skip_empty()

    def finish(self) -> list[np.ndarray]:
        if self._index < len(self._views):
            missing = len(self._views[self._index]) - self._offset + sum(
                len(v) for v in self._views[self._index + 1:])
            raise InvalidArgumentError(
                f"Tensor '{self.names[self._index]}' is incomplete: {missing} byte(s) of "
                f"the announced tensors never arrived.")
        self.arrays = [received(spec, array) for spec, array in zip(self._specs, self.arrays)]
        return self.arrays


_RECEIVED = BufferPool(keep=8, min_bytes=1 << 20, max_bytes=64 << 20)


def spec_nbytes(spec) -> int:
    """The payload bytes ``spec`` announces (InvalidArgumentError for a bad spec)."""
    if spec.dtype == _STRING:
        return spec.string_bytes
    dtype = WIRE_DTYPES.get(spec.dtype)
    if dtype is None:
        raise InvalidArgumentError(f"Tensor '{spec.name}' has an unsupported dtype enum "
                                   f"{spec.dtype}.")
    count = 1
    for d in spec.shape:
        if d < 0:
            raise InvalidArgumentError(f"Tensor '{spec.name}' has a negative dimension in "
                                       f"shape {list(spec.shape)}.")
        count *= d
    return count * dtype.itemsize


def receive_buffer(spec) -> np.ndarray:
    """Where ``spec``'s payload is received: the tensor itself, or for a string tensor a
    byte buffer that ``received`` unpacks."""
    if spec.dtype != _STRING:
        return _allocate(spec)
    if spec.string_bytes < 0 or any(d < 0 for d in spec.shape):
        raise InvalidArgumentError(f"String tensor '{spec.name}' announces a negative size.")
    try:
        return np.empty(spec.string_bytes, np.uint8)
    except (MemoryError, ValueError) as e:
        raise ResourceExhaustedError(f"Cannot allocate string tensor '{spec.name}' of "
                                     f"{spec.string_bytes} bytes: {e}") from None


def received(spec, array: np.ndarray) -> np.ndarray:
    """The tensor ``spec`` describes, once ``receive_buffer``'s array is filled."""
    if spec.dtype == _STRING:
        return _unpack(spec, array)
    if not _LITTLE:
        array.byteswap(inplace=True)
    return array


def _allocate(spec) -> np.ndarray:
    dtype = WIRE_DTYPES.get(spec.dtype)
    if dtype is None:
        raise InvalidArgumentError(f"Tensor '{spec.name}' has an unsupported dtype enum "
                                   f"{spec.dtype}.")
    shape = tuple(spec.shape)
    if any(d < 0 for d in shape):
        raise InvalidArgumentError(f"Tensor '{spec.name}' has a negative dimension in shape "
                                   f"{list(shape)}.")
    if not shape:                     # a scalar: not worth the pool's lock
        return np.empty((), dtype)
    try:
        array = _RECEIVED.take(shape, dtype)
    except (MemoryError, ValueError) as e:
        raise ResourceExhaustedError(f"Cannot allocate tensor '{spec.name}' of shape "
                                     f"{list(shape)} and dtype {dtype.name}: {e}") from None
    _RECEIVED.give(array)             # reused only once nobody else holds it
    return array


def read_tensors(specs, payload: memoryview) -> list[np.ndarray]:
    """The tensors ``specs`` describe, from one whole ``payload``."""
    reader = TensorReader(specs)
    reader.add(payload)
    return reader.finish()


def decode_tensors(cls, data) -> tuple[object, list[np.ndarray]]:
    """(the message, its inline tensors) of one message made by ``encode_tensors``."""
    message, payload = decode(cls, data)
    return message, read_tensors(message.tensors, payload)


def _decode_frames(cls, frames: Iterable):
    """(the first message, an iterator of every frame's payload) of a ``cls`` stream;
    InvalidArgumentError for an empty stream or a malformed message."""
    iterator = iter(frames)
    try:
        first_bytes = next(iterator)
    except StopIteration:
        raise InvalidArgumentError(f"Empty {cls.DESCRIPTOR.name} stream.") from None
    first, payload = decode(cls, first_bytes)

    def payloads():
        yield payload
        for data in iterator:
            yield decode(cls, data)[1]
    return first, payloads()


def decode_stream(cls, frames: Iterable) -> tuple[object, list[np.ndarray]]:
    """(the first message, the tensors) of a stream made by ``encode_stream``.

    Raises InvalidArgumentError for an empty stream, a malformed message or a byte count
    that does not match the specs.
    """
    first, payloads = _decode_frames(cls, frames)
    reader = TensorReader(first.tensors)
    for payload in payloads:
        reader.add(payload)
    return first, reader.finish()


def decode_payload_stream(cls, frames: Iterable) -> tuple[object, bytes]:
    """(the first message, the whole payload as bytes) of a stream of ``cls`` messages
    whose payload is one opaque byte string (a GraphDef)."""
    first, payloads = _decode_frames(cls, frames)
    return first, b"".join(payloads)


def encode_payload_stream(first, payload: bytes, chunk: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The messages of a stream carrying one opaque byte string (``decode_payload_stream``)."""
    view = memoryview(payload)
    yield encode(first, [view[:chunk]])
    for pos in range(chunk, len(view), chunk):
        yield encode_payload_only([view[pos:pos + chunk]])


__all__ += ["decode_payload_stream", "encode_payload_stream", "encode_payload_only"]
