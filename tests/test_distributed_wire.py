"""Tensors on the wire (devsession/distributed/wire.py): raw bytes in chunks, exactly
protobuf's encoding, and every kind of bad input refused with InvalidArgumentError."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.distributed.transport import wire
from devsession.proto import master_pb2, worker_pb2

DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_]
SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 0, 3)]


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 100).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_inline_round_trip(dtype, shape):
    x = sample(shape, dtype)
    data = wire.encode_tensors(worker_pb2.PushTensorRequest(step_id=9), ["k"], [x])
    message, (y,) = wire.decode_tensors(worker_pb2.PushTensorRequest, data)
    assert message.step_id == 9 and message.tensors[0].name == "k"
    assert y.dtype == x.dtype and y.shape == x.shape and y.flags.writeable
    np.testing.assert_array_equal(y, x)


def test_encoding_is_exactly_protobufs():
    x, z = sample((4, 3), np.float32), sample((5,), np.int64)
    ours = wire.encode_tensors(master_pb2.RunStepRequest(session_handle="s", step_handle=3),
                               ["x:0", "z:0"], [x, z])
    parsed = master_pb2.RunStepRequest.FromString(ours)
    assert parsed.session_handle == "s" and parsed.step_handle == 3
    assert [t.name for t in parsed.tensors] == ["x:0", "z:0"]
    assert list(parsed.tensors[0].shape) == [4, 3]
    assert parsed.tensors[0].dtype == ds.float32.enum
    assert parsed.data == x.tobytes() + z.tobytes()
    assert parsed.SerializeToString() == ours


def test_split_finds_the_payload_anywhere():
    message = master_pb2.RunStepRequest(session_handle="abc", timeout_s=1.5, data=b"\x01\x02")
    head, payload = wire.split(message.SerializeToString())
    assert bytes(payload) == b"\x01\x02"
    assert master_pb2.RunStepRequest.FromString(head) == master_pb2.RunStepRequest(
        session_handle="abc", timeout_s=1.5)


@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 20])
def test_stream_cuts_anywhere_and_reassembles(chunk):
    arrays = [sample((3, 3), np.float64, 1), sample((0,), np.float32), sample((), np.int32, 2),
              sample((11,), np.bool_, 3)]
    names = [f"t{i}" for i in range(len(arrays))]
    frames = list(wire.encode_stream(worker_pb2.PushTensorRequest(step_id=1), names, arrays,
                                     chunk=chunk))
    total = sum(a.nbytes for a in arrays)
    assert len(frames) == max(1, -(-total // chunk))
    for frame in frames[1:]:
        assert len(wire.split(frame)[1]) <= chunk
    first, out = wire.decode_stream(worker_pb2.PushTensorRequest, iter(frames))
    assert first.step_id == 1
    for x, y in zip(arrays, out):
        assert y.dtype == x.dtype and y.shape == x.shape
        np.testing.assert_array_equal(x, y)


def test_non_contiguous_and_scalar_values_are_sent_as_c_order():
    x = np.arange(12, dtype=np.float32).reshape(3, 4).T
    y = np.float64(2.5)
    data = wire.encode_tensors(worker_pb2.PushTensorRequest(), ["a", "b"], [x, y])
    _, (a, b) = wire.decode_tensors(worker_pb2.PushTensorRequest, data)
    np.testing.assert_array_equal(a, x)
    assert b.shape == () and b == 2.5


def test_payload_stream_of_opaque_bytes():
    payload = bytes(range(256)) * 10
    frames = list(wire.encode_payload_stream(worker_pb2.RegisterGraphRequest(session_handle="s"),
                                             payload, chunk=100))
    assert len(frames) == 26
    first, got = wire.decode_payload_stream(worker_pb2.RegisterGraphRequest, iter(frames))
    assert first.session_handle == "s" and got == payload


def _bad(fn, match):
    with pytest.raises(ds.errors.InvalidArgumentError, match=match):
        fn()


def test_bad_bytes_are_invalid_argument():
    good = wire.encode_tensors(worker_pb2.PushTensorRequest(step_id=1), ["k"],
                               [np.ones(4, np.float32)])
    decode = wire.decode_tensors
    _bad(lambda: decode(worker_pb2.PushTensorRequest, b"\xff\xff\xff"), "Malformed")
    _bad(lambda: decode(worker_pb2.PushTensorRequest, good[:-3]), "Malformed")
    _bad(lambda: decode(worker_pb2.PushTensorRequest, good + b"\x7a\x01\x00"), "twice")
    _bad(lambda: decode(worker_pb2.PushTensorRequest, b"\x0b\x01"), "Malformed")  # group
    for trial in range(200):
        junk = np.random.default_rng(trial).bytes(trial % 40 + 1)
        try:
            decode(worker_pb2.PushTensorRequest, junk)
        except ds.errors.InvalidArgumentError:
            pass


def test_byte_counts_must_match_the_specs():
    message = worker_pb2.PushTensorRequest()
    message.tensors.add(name="k", dtype=ds.float32.enum, shape=[4])
    short = wire.encode(message, [b"\x00" * 12])
    _bad(lambda: wire.decode_tensors(worker_pb2.PushTensorRequest, short), "incomplete")
    long = wire.encode(message, [b"\x00" * 20])
    _bad(lambda: wire.decode_tensors(worker_pb2.PushTensorRequest, long), "more bytes")


def test_bad_specs_are_refused():
    bad_dtype = worker_pb2.PushTensorRequest()
    bad_dtype.tensors.add(name="k", dtype=99, shape=[1])
    _bad(lambda: wire.decode_tensors(worker_pb2.PushTensorRequest,
                                     bad_dtype.SerializeToString()), "dtype")
    negative = worker_pb2.PushTensorRequest()
    negative.tensors.add(name="k", dtype=ds.float32.enum, shape=[-2])
    _bad(lambda: wire.decode_tensors(worker_pb2.PushTensorRequest,
                                     negative.SerializeToString()), "negative")
    _bad(lambda: wire.decode_stream(worker_pb2.PushTensorRequest, iter([])), "Empty")


def test_huge_spec_is_resource_exhausted_not_a_crash():
    message = worker_pb2.PushTensorRequest()
    message.tensors.add(name="k", dtype=ds.float64.enum, shape=[1 << 40, 1 << 40])
    with pytest.raises((ds.errors.ResourceExhaustedError, ds.errors.InvalidArgumentError)):
        wire.decode_tensors(worker_pb2.PushTensorRequest, message.SerializeToString())


def test_limits_are_deliberate():
    assert wire.CHUNK_BYTES <= wire.INLINE_BYTES < wire.MAX_MESSAGE_BYTES
    assert wire.MAX_MESSAGE_BYTES != 4 * 1024 * 1024   # not gRPC's default


def test_received_arrays_reuse_a_dropped_buffer_never_a_held_one():
    # 2 MB tensors come from the receive pool: one the caller still holds (or a view of
    # it) keeps its values; one it dropped is written again instead of fresh pages
    def received(value):
        data = wire.encode_tensors(worker_pb2.PushTensorRequest(step_id=1), ["t"],
                                   [np.full(1 << 19, value, np.float32)])
        return wire.decode_tensors(worker_pb2.PushTensorRequest, data)[1][0]

    held = received(1.0)
    view = received(2.0)[:10]
    again = received(3.0)
    assert not np.shares_memory(held, again) and not np.shares_memory(view, again)
    assert (held == 1.0).all() and (view == 2.0).all() and (again == 3.0).all()
    address = again.__array_interface__["data"][0]
    del again
    assert received(4.0).__array_interface__["data"][0] == address
    big = wire._RECEIVED.max_bytes // 4 + 1                 # past the pool: plain arrays
    assert not wire._RECEIVED._pooled(big * 4) and wire._RECEIVED.max_bytes == 64 << 20


STRINGS = [np.array(b"", object), np.array([], object).reshape(0, 2),
           np.array([b"a", b"", "é".encode(), bytes(range(256)), b"\x00" * 5], object),
           np.array([[b"x", b"yz"], [b"", b"long " * 50]], object)]


@pytest.mark.parametrize("strings", STRINGS, ids=lambda s: str(s.shape))
def test_string_tensors_travel_packed(strings):
    data = wire.encode_tensors(worker_pb2.PushTensorRequest(step_id=2), ["s", "f"],
                               [strings, np.ones(3, np.float32)])
    message, (got, ones) = wire.decode_tensors(worker_pb2.PushTensorRequest, data)
    spec = message.tensors[0]
    assert (spec.dtype, tuple(spec.shape)) == (ds.string.enum, strings.shape)
    assert spec.string_bytes == 8 * strings.size + sum(len(b) for b in strings.reshape(-1))
    assert got.dtype == object and got.shape == strings.shape
    assert got.reshape(-1).tolist() == strings.reshape(-1).tolist()
    np.testing.assert_array_equal(ones, np.ones(3, np.float32))
    frames = list(wire.encode_stream(worker_pb2.PushTensorRequest(), ["s"], [strings], chunk=3))
    _, (streamed,) = wire.decode_stream(worker_pb2.PushTensorRequest, iter(frames))
    assert streamed.reshape(-1).tolist() == strings.reshape(-1).tolist()


def test_malformed_string_payloads_are_invalid_argument():
    def message_with(shape, lengths, data):
        message = worker_pb2.PushTensorRequest()
        payload = np.array(lengths, "<u8").tobytes() + data
        message.tensors.add(name="s", dtype=ds.string.enum, shape=shape,
                            string_bytes=len(payload))
        return wire.encode(message, [payload])

    decode = lambda data: wire.decode_tensors(worker_pb2.PushTensorRequest, data)  # noqa: E731
    _bad(lambda: decode(message_with([2], [1, 5], b"abc")), "do not account")
    _bad(lambda: decode(message_with([2], [1, 1], b"abc")), "do not account")
    _bad(lambda: decode(message_with([3], [1, 1], b"ab")), "do not account")
    _bad(lambda: decode(message_with([1], [2 ** 63], b"ab")), "do not account")
    assert decode(message_with([2], [1, 2], b"abc"))[1][0].tolist() == [b"a", b"bc"]
    with pytest.raises(ds.errors.ResourceExhaustedError, match="Cannot allocate"):
        decode(message_with([0, 2 ** 62], [], b""))     # no element, too big a shape
    with pytest.raises(ds.errors.InvalidArgumentError, match="holds bytes, not int"):
        wire.encode_tensors(worker_pb2.PushTensorRequest(), ["s"], [np.array([1], object)])
    with pytest.raises(ds.errors.InvalidArgumentError, match="holds bytes, not str"):
        wire.tensor_specs(["s"], [np.array([b"a", "b"], object)])     # refused before a spec
