"""DecodeWav and EncodeWav (``devsession/ops/audio.py``) on the host: 16-bit PCM WAV
files read and written as TF's ``wav_io`` does, its checks and messages included (a
header that lies about its sizes is refused before anything is allocated)."""

from __future__ import annotations

import struct

import numpy as np

from devsession.errors import InvalidArgumentError

from ..registry import HOST, register_kernel

# chunks a broadcast WAV may hold before its "fmt " chunk, which TF skips
_SKIPPED_BEFORE_FORMAT = {b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link",
                          b"axml"}
_INT32_MAX = 2 ** 31 - 1


class _Reader:
    """Reads a WAV file's fields in order, refusing to run past its end."""

    def __init__(self, data: bytes, node: str):
        self.data, self.offset, self.node = data, 0, node

    def error(self, text: str) -> InvalidArgumentError:
        return InvalidArgumentError(f"{text} (node '{self.node}')", self.node)

    def take(self, count: int) -> bytes:
        if self.offset + count > len(self.data):
            raise self.error("Data too short when trying to read string")
        piece = self.data[self.offset:self.offset + count]
        self.offset += count
        return piece

    def expect(self, text: bytes) -> None:
        found = self.take(len(text))
        if found != text:
            raise self.error(f"Header mismatch: Expected {text.decode()} but found "
                             f"{found.decode('latin-1')}")

    def uint(self, size: int) -> int:
        return int.from_bytes(self.take(size), "little")


def decode_lin16(data: bytes, node: str):
    """``(samples as float32 [frames, channels], sample_rate)`` of a WAV file."""
    r = _Reader(data, node)
    r.expect(b"RIFF")
    r.uint(4)
    r.expect(b"WAVE")
    chunk = r.take(4)
    while chunk != b"fmt ":
        if chunk not in _SKIPPED_BEFORE_FORMAT:
            raise r.error(f"Unexpected field {chunk.decode('latin-1')}")
        r.take(r.uint(4))
        chunk = r.take(4)
    format_size = r.uint(4)
    if format_size not in (16, 18):
        raise r.error(f"Bad format chunk size for WAV: Expected 16 or 18, but got"
                      f"{format_size}")
    if (audio_format := r.uint(2)) != 1:
        raise r.error(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = r.uint(2)
    if channels < 1:
        raise r.error(f"Bad number of channels for WAV: Expected at least 1, but got "
                      f"{channels}")
    rate, bytes_per_second, bytes_per_frame, bits = r.uint(4), r.uint(4), r.uint(2), r.uint(2)
    if bits != 16:
        raise r.error(f"Can only read 16-bit WAV files, but received {bits}")
    if bytes_per_frame != (bits * channels + 7) // 8:
        raise r.error(f"Bad bytes per sample in WAV header: Expected "
                      f"{(bits * channels + 7) // 8} but got {bytes_per_frame}")
    if bytes_per_second != bytes_per_frame * rate:
        raise r.error(f"Bad bytes per second in WAV header: Expected "
                      f"{bytes_per_frame * rate} but got {bytes_per_second} "
                      f"(sample_rate={rate}, bytes_per_sample={bytes_per_frame})")
    if format_size == 18:
        r.offset += 2
    samples = None
    while r.offset < len(data):
        chunk, size = r.take(4), r.uint(4)
        if size > _INT32_MAX:
            raise r.error(f"WAV data chunk '{chunk.decode('latin-1')}' is too large: {size} "
                          f"bytes, but the limit is {_INT32_MAX}")
        if chunk != b"data":
            r.offset += size
            continue
        if samples is not None:
            raise r.error("More than one data chunk found in WAV")
        frames = size // bytes_per_frame
        raw = r.take(2 * frames * channels)         # checked before anything is allocated
        samples = np.frombuffer(raw, "<i2").astype(np.float32).reshape(frames, channels)
        samples *= np.float32(1 / 32768)
    if samples is None:
        raise r.error("No data chunk found in WAV")
    return samples, rate


def encode_lin16(audio: np.ndarray, rate: int, node: str) -> bytes:
    """A 16-bit PCM WAV file of float samples [frames, channels]."""
    frames, channels = audio.shape
    if not 0 < rate < 2 ** 32:
        raise InvalidArgumentError(f"sample_rate must be in (0, 2^32), got: {rate}", node)
    if not 0 < channels < 2 ** 16:
        raise InvalidArgumentError(f"num_channels must be in (0, 2^16), got: {channels}", node)
    data_size = 2 * frames * channels
    if 44 + data_size > 2 ** 32 - 1:
        raise InvalidArgumentError("Provided channels and frames cannot be encoded as a WAV.",
                                   node)
    scaled = (audio.astype(np.float32) * np.float32(32768)).astype(np.float64)
    rounded = np.trunc(scaled + np.copysign(0.5, scaled))      # C's roundf: half away from 0
    pcm = np.clip(np.nan_to_num(rounded, nan=0.0), -32768, 32767).astype("<i2")   # NaN: 0
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + data_size, b"WAVE", b"fmt ", 16,
                         1, channels, rate, rate * 2 * channels, 2 * channels, 16, b"data",
                         data_size)
    return header + pcm.tobytes()


@register_kernel("DecodeWav", HOST)
def build_decode_wav(node):
    want_channels = node.attrs.get("desired_channels", -1)
    want_samples = node.attrs.get("desired_samples", -1)

    def decode_wav(contents):
        contents = np.asarray(contents, dtype=object)
        if contents.ndim:
            raise InvalidArgumentError(f"contents must be scalar, got shape "
                                       f"{list(contents.shape)}", node.name)
        samples, rate = decode_lin16(bytes(contents.item()), node.name)
        frames, channels = samples.shape
        rows = frames if want_samples == -1 else want_samples
        columns = channels if want_channels == -1 else want_channels
        audio = np.zeros((rows, columns), np.float32)
        kept = min(rows, frames)
        if columns and kept:
            source = np.minimum(np.arange(columns), channels - 1)   # the last one repeated
            audio[:kept] = samples[:kept, source]
        return audio, np.int32(rate)
    return decode_wav


@register_kernel("EncodeWav", HOST)
def build_encode_wav(node):
    def encode_wav(audio, sample_rate):
        audio = np.asarray(audio, np.float32)
        if audio.ndim != 2:
            raise InvalidArgumentError(f"audio must be 2-dimensional{list(audio.shape)}",
                                       node.name)
        rate = np.asarray(sample_rate)
        if rate.ndim:
            raise InvalidArgumentError(f"Input sample_rate should be a scalar tensor, got "
                                       f"{list(rate.shape)} instead.", node.name)
        return np.array(encode_lin16(audio, int(rate), node.name), dtype=object)
    return encode_wav
