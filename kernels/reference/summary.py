"""Summary kernels (host only: they produce strings): each returns a 0-d string tensor
holding a serialized ``Summary`` (``devsession/proto/summary.proto``, TF's wire format).

* ScalarSummary: one ``simple_value`` (float32) per tag.
* HistogramSummary: TF's histogram: buckets whose limits grow by 10% from 1e-12 to 1e20
  (mirrored below zero, with 0 and +-DBL_MAX), each value counted in the first bucket
  whose limit exceeds it, runs of empty buckets merged (``Histogram::EncodeToProto``).
  NaN or infinity is an ``InvalidArgumentError``, as in TF.
* ImageSummary: PNG images.  Float images are scaled into 0..255 per image as TF does
  (all non-negative: ``255 / max``; otherwise ``127 / max|x|`` around 128), non-finite
  pixels painted ``bad_color``; uint8 images are written as they are.  Tags are
  "<tag>/image" for ``max_images == 1``, else "<tag>/image/<i>".
* AudioSummaryV2: 16-bit PCM WAV clips (``wave``): samples times 32768, rounded and
  clamped to int16 as TF's ``EncodeAudioAsS16LEWav`` (NaN as 0); tags
  "<tag>/audio" for ``max_outputs == 1``, else "<tag>/audio/<i>".
* TensorSummaryV2: the whole tensor as a TensorProto, with the metadata it was given
  (which TensorBoard plugin shows it: "text" for ``tf.summary.text``).
* MergeSummary: the values of every input summary, in order; a tag seen twice is an
  ``InvalidArgumentError`` (as TF).
"""

from __future__ import annotations

import struct
import sys
import zlib

import numpy as np

from devsession.proto import summary_pb2

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel


def _string_scalar(data: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = data
    return out


def _tags(tags) -> list:
    return [t if isinstance(t, bytes) else bytes(t) for t in np.asarray(tags).reshape(-1)]


@register_kernel("ScalarSummary", HOST)
def build_scalar_summary(node):
    def scalar_summary(tags, values):
        if np.shape(tags) != np.shape(values):
            raise invalid_argument(node.name, node.op, f"tags and values must have the same "
                                   f"shape, got {fmt_shape(np.shape(tags))} and "
                                   f"{fmt_shape(np.shape(values))}")
        summary = summary_pb2.Summary()
        for tag, value in zip(_tags(tags), np.asarray(values).reshape(-1)):
            summary.value.add(tag=tag.decode("utf-8", "replace"), simple_value=float(value))
        return _string_scalar(summary.SerializeToString())
    return scalar_summary


# --- histograms ------------------------------------------------------------------------

def _default_bucket_limits() -> np.ndarray:
    positive, value = [], 1.0e-12
    while value < 1.0e20:
        positive.append(value)
        value *= 1.1
    positive.append(sys.float_info.max)
    return np.array([-v for v in reversed(positive)] + [0.0] + positive)


BUCKET_LIMITS = _default_bucket_limits()


def histogram_proto(values: np.ndarray, out: "summary_pb2.HistogramProto") -> None:
    """Fill ``out`` with TF's histogram of ``values`` (finite float64 values)."""
    counts = np.bincount(np.searchsorted(BUCKET_LIMITS, values, side="right"),
                         minlength=BUCKET_LIMITS.size)[:BUCKET_LIMITS.size]
    out.min = float(values.min()) if values.size else float(BUCKET_LIMITS[-1])
    out.max = float(values.max()) if values.size else float(-BUCKET_LIMITS[-1])
    out.num = float(values.size)
    out.sum = float(values.sum())
    out.sum_squares = float(np.dot(values, values))
    i, n = 0, counts.size
    while i < n:                      # runs of empty buckets become one (TF's encoding)
        end, count = BUCKET_LIMITS[i], counts[i]
        i += 1
        if count <= 0:
            while i < n and counts[i] <= 0:
                end, count = BUCKET_LIMITS[i], counts[i]
                i += 1
        out.bucket_limit.append(float(end))
        out.bucket.append(float(count))


@register_kernel("HistogramSummary", HOST)
def build_histogram_summary(node):
    def histogram_summary(tag, values):
        flat = np.asarray(values, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(flat)):
            raise invalid_argument(node.name, node.op, f"Nan in summary histogram for: "
                                   f"{_tags(tag)[0].decode('utf-8', 'replace')}")
        summary = summary_pb2.Summary()
        value = summary.value.add(tag=_tags(tag)[0].decode("utf-8", "replace"))
        histogram_proto(flat, value.histo)
        return _string_scalar(summary.SerializeToString())
    return histogram_summary


# --- images ------------------------------------------------------------------------------

def png(image: np.ndarray) -> bytes:
    """A PNG of a uint8 ``[height, width, channels]`` image (1, 3 or 4 channels)."""
    height, width, channels = image.shape
    color_type = {1: 0, 3: 2, 4: 6}[channels]
    rows = np.concatenate([np.zeros((height, 1), np.uint8),
                           image.reshape(height, width * channels)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes())) + chunk(b"IEND", b""))


def to_uint8(image: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """A float image scaled into 0..255 as TF's ImageSummary scales it."""
    image = image.astype(np.float32)
    finite = np.isfinite(image)
    lo = float(image[finite].min()) if finite.any() else 0.0
    hi = float(image[finite].max()) if finite.any() else 0.0
    if lo < 0:
        biggest = max(abs(lo), abs(hi))
        scale, offset = (0.0 if biggest < 1e-6 else 127.0 / biggest), 128.0
    else:
        scale, offset = (0.0 if hi < 1e-6 else 255.0 / hi), 0.0
    with np.errstate(invalid="ignore"):
        out = np.where(finite, image * scale + offset, 0).astype(np.uint8)
    bad_pixels = ~finite.all(axis=-1)
    out[bad_pixels] = bad_color[:image.shape[-1]]
    return out


@register_kernel("ImageSummary", HOST)
def build_image_summary(node):
    max_images = int(node.attrs.get("max_images", 3))
    bad_color = np.asarray(node.attrs.get("bad_color", (255, 0, 0, 255)), np.uint8)

    def image_summary(tag, images):
        if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
            raise invalid_argument(node.name, node.op, f"images must be [batch, height, "
                                   f"width, 1|3|4], got shape {fmt_shape(images.shape)}")
        base = _tags(tag)[0].decode("utf-8", "replace")
        summary = summary_pb2.Summary()
        for i, img in enumerate(images[:max_images]):
            pixels = img if img.dtype == np.uint8 else to_uint8(img, bad_color)
            value = summary.value.add(tag=f"{base}/image" if max_images == 1 else
                                      f"{base}/image/{i}")
            value.image.height, value.image.width, value.image.colorspace = pixels.shape
            value.image.encoded_image_string = png(pixels)
        return _string_scalar(summary.SerializeToString())
    return image_summary


def wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """``samples`` ([frames, channels] floats) as a 16-bit little-endian PCM WAV file."""
    import io
    import wave

    scaled = np.nan_to_num(np.round(samples.astype(np.float32) * np.float32(32768)))
    pcm = np.clip(scaled, -32768, 32767)
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(samples.shape[1])
        file.setsampwidth(2)
        file.setframerate(sample_rate)
        file.writeframes(pcm.astype("<i2").tobytes())
    return out.getvalue()


@register_kernel("AudioSummaryV2", HOST)
def build_audio_summary(node):
    max_outputs = int(node.attrs.get("max_outputs", 3))

    def audio_summary(tag, clips, sample_rate):
        clips = np.asarray(clips)
        if clips.ndim == 2:
            clips = clips[:, :, None]
        if clips.ndim != 3:
            raise invalid_argument(node.name, node.op, f"audio must be [batch, frames] or "
                                   f"[batch, frames, channels], got shape "
                                   f"{fmt_shape(clips.shape)}")
        rate = float(np.asarray(sample_rate))
        if not rate > 0:
            raise invalid_argument(node.name, node.op, f"sample_rate must be > 0, got {rate}")
        base = _tags(tag)[0].decode("utf-8", "replace")
        summary = summary_pb2.Summary()
        for i, clip in enumerate(clips[:max_outputs]):
            value = summary.value.add(tag=f"{base}/audio" if max_outputs == 1 else
                                      f"{base}/audio/{i}")
            value.audio.sample_rate = rate
            value.audio.num_channels, value.audio.length_frames = clip.shape[1], clip.shape[0]
            value.audio.encoded_audio_string = wav(clip, int(rate))
            value.audio.content_type = "audio/wav"
        return _string_scalar(summary.SerializeToString())
    return audio_summary


@register_kernel("TensorSummaryV2", HOST)
def build_tensor_summary(node):
    from devsession.tensor_codec import array_to_proto

    def tensor_summary(tag, tensor, serialized_metadata):
        summary = summary_pb2.Summary()
        value = summary.value.add(tag=_tags(tag)[0].decode("utf-8", "replace"))
        try:
            value.metadata.ParseFromString(bytes(np.asarray(serialized_metadata).item()))
        except Exception:   # protobuf's DecodeError
            raise invalid_argument(node.name, node.op, "serialized_summary_metadata is not a "
                                   "serialized SummaryMetadata") from None
        value.tensor.CopyFrom(array_to_proto(np.asarray(tensor)))
        return _string_scalar(summary.SerializeToString())
    return tensor_summary


@register_kernel("MergeSummary", HOST)
def build_merge_summary(node):
    def merge_summary(*inputs):
        merged, seen = summary_pb2.Summary(), set()
        for data in (d for x in inputs for d in np.asarray(x).reshape(-1)):
            part = summary_pb2.Summary()
            try:
                part.ParseFromString(bytes(data))
            except Exception:   # protobuf's DecodeError
                raise invalid_argument(node.name, node.op, "an input is not a serialized "
                                       "Summary") from None
            for value in part.value:
                if value.tag in seen:
                    raise invalid_argument(node.name, node.op,
                                           f"Duplicate tag {value.tag} found in summary inputs")
                seen.add(value.tag)
                merged.value.append(value)
        return _string_scalar(merged.SerializeToString())
    return merge_summary
