"""Kernels of TF's image file ops (``devsession/ops/image_files.py``), on the host
(``HOST``; GPU sessions place them on the CPU, as TF's are CPU kernels).

The decode ops share one kernel, as TF 2.21's ``DecodeImageV2Op``: the attrs are
checked, the format is read from the magic bytes, and the op type decides what each
format gives (``decode_jpeg`` reads PNG and one-frame GIF too, ``decode_gif`` returns
4-D, ``decode_bmp`` reads BMP only...), with TF's messages.  Pixels come from
``image_codecs.py`` (Pillow); a missing Pillow, or what Pillow cannot do, is
``UnimplementedError``; unreadable data ``InvalidArgumentError``; both name the node.
"""

from __future__ import annotations

import numpy as np

from devsession.errors import InternalError, InvalidArgumentError, UnimplementedError

from ..registry import HOST, register_kernel
from . import image_codecs as codecs

DECODE_OPS = ("DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeBmp", "DecodeGif",
              "DecodeImage")
_JPEG_OPS = ("DecodeJpeg", "DecodeAndCropJpeg")
_DCT_METHODS = ("", "INTEGER_FAST", "INTEGER_ACCURATE")


def _error(node, message, cls=InvalidArgumentError):
    return cls(f"'{node.name}': {message}", node.name)


def _contents(node, contents) -> bytes:
    value = np.asarray(contents, dtype=object)
    if value.ndim:
        shape = ",".join(str(d) for d in value.shape)
        raise _error(node, f"`contents` must be scalar but got shape[{shape}]")
    data = bytes(value.item())
    if not data:
        raise _error(node, "Input is empty.")
    return data


def _attr_problem(node) -> str:
    """What TF's kernel constructor rejects in ``node``'s attrs ('' when nothing)."""
    attrs, op = node.attrs, node.op
    if op in _JPEG_OPS:
        ratio = attrs.get("ratio", 1)
        if ratio not in (1, 2, 4, 8):
            return f"ratio must be 1, 2, 4, or 8, got {ratio}"
        if attrs.get("dct_method", "") not in _DCT_METHODS:
            return "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}"
    dtype = np.dtype(node.output_dtypes[0])
    if op == "DecodePng" and dtype not in (np.uint8, np.uint16):
        return f"`dtype` for `DecodePng` must be unit8, unit16 but got: {dtype.name}"
    channels = attrs.get("channels", 0)
    if op != "DecodeGif" and channels not in (0, 1, 3, 4):
        return f"`channels` must be 0, 1, 3 or 4 but got {channels}"
    return ""


def _wrong_op(node, found: str) -> str:
    """TF's message for ``found`` bytes given to an op that cannot read them."""
    if node.op == "DecodeAndCropJpeg":
        return f"DecodeAndCropJpeg operation can run on JPEG only, but detected {found}."
    if found == "BMP":
        return (f"Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
                f"`decode_image` instead. Op used: {node.op}")
    return (f"Trying to decode {found} format using DecodeBmp op. Use "
            f"`decode_{found.lower()}` or `decode_image` instead.")


def _as_dtype(pixels: np.ndarray, dtype, png16: bool) -> np.ndarray:
    """uint8 pixels as TF widens them (x256 to uint16, /255 to float32); a PNG decoded at
    16 bits (``png16``) goes to float32 as /65535."""
    if dtype == pixels.dtype:
        return pixels
    if dtype == np.float32:
        top = 65535.0 if png16 else 255.0
        return (pixels.astype(np.float32) * np.float32(1.0 / top)).astype(np.float32)
    return pixels.astype(np.uint16) * np.uint16(256)


class _Decode:
    """One decode node: its attrs read once; ``__call__`` runs TF's per-format rules."""

    def __init__(self, node):
        self.node = node
        attrs = node.attrs
        self.problem = _attr_problem(node)
        self.dtype = np.dtype(node.output_dtypes[0])
        self.channels = 3 if node.op == "DecodeGif" else attrs.get("channels", 0)
        self.expand = node.op == "DecodeGif" or (node.op == "DecodeImage" and
                                                 attrs.get("expand_animations", True))
        jpeg = node.op in _JPEG_OPS
        self.jpeg = {"ratio": attrs.get("ratio", 1) if jpeg else 1,
                     "fancy": attrs.get("fancy_upscaling", True) if jpeg else True,
                     "fast_dct": attrs.get("dct_method", "") != "INTEGER_ACCURATE",
                     "recover": jpeg and (attrs.get("try_recover_truncated", False) or
                                          attrs.get("acceptable_fraction", 1.0) < 1.0)}

    def __call__(self, contents, crop_window=None):
        node = self.node
        if self.problem:
            raise _error(node, self.problem)
        data = _contents(node, contents)
        found = codecs.classify(data)
        try:
            if found == "JPEG":
                return self._jpeg(data, crop_window)
            if found == "PNG":
                return self._png(data)
            if found == "GIF":
                return self._gif(data)
            if found == "BMP":
                return self._bmp(data)
        except codecs.CodecError as e:
            raise _error(node, str(e)) from None
        except codecs.Unsupported as e:
            raise _error(node, str(e), UnimplementedError) from None
        if found == "WebP":
            raise _error(node, "WebP images are not supported by devsession yet",
                         UnimplementedError)
        raise _error(node, "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, "
                           "WebP required.")

    def _frame(self, pixels):
        """A still image as the op returns it: 4-D for DecodeGif."""
        return pixels[None] if self.node.op == "DecodeGif" else pixels

    def _jpeg(self, data, crop_window):
        if self.channels not in (0, 1, 3):
            raise codecs.CodecError("JPEG does not support 4 channels")
        crop = None
        if self.node.op == "DecodeAndCropJpeg":
            window = np.asarray(crop_window)
            shape = ",".join(str(d) for d in window.shape)
            if window.ndim != 1:
                raise codecs.CodecError(f"crop_window must be 1-D, got shape [{shape}]")
            if window.shape[0] != 4:
                raise codecs.CodecError(f"crop_size must have four elements [{shape}]")
            crop = window
        elif self.node.op == "DecodeBmp":
            raise codecs.CodecError(_wrong_op(self.node, "JPEG"))
        pixels = codecs.decode_jpeg(data, self.channels, crop=crop, **self.jpeg)
        return self._frame(_as_dtype(pixels, self.dtype, False))

    def _png(self, data):
        if self.node.op in ("DecodeBmp", "DecodeAndCropJpeg"):
            raise codecs.CodecError(_wrong_op(self.node, "PNG"))
        bits = 8 if self.dtype == np.uint8 else 16
        pixels = codecs.decode_png(data, self.channels, bits)
        return self._frame(_as_dtype(pixels, self.dtype, bits == 16))

    def _gif(self, data):
        if self.channels not in (0, 3):
            raise codecs.CodecError(f"channels must be 0 or 3 for GIF, got {self.channels}")
        if self.node.op in ("DecodeBmp", "DecodeAndCropJpeg"):
            raise codecs.CodecError(_wrong_op(self.node, "GIF"))
        frames = codecs.decode_gif(data, first_only=not self.expand and
                                   self.node.op == "DecodeImage")
        if self.node.op in ("DecodePng", "DecodeJpeg"):
            if len(frames) != 1:
                raise codecs.CodecError(
                    f"Got {len(frames)} frames, but animated gifs can only be decoded by "
                    f"tf.io.decode_gif or tf.io.decode_image")
        frames = _as_dtype(frames, self.dtype, False)
        return frames if self.expand else frames[0]

    def _bmp(self, data):
        if self.channels == 1:
            raise codecs.CodecError(f"`channels` must be 0, 3 or 4 for BMP, but got "
                                    f"{self.channels}")
        if self.node.op not in ("DecodeBmp", "DecodeImage"):
            raise codecs.CodecError(_wrong_op(self.node, "BMP"))
        return _as_dtype(codecs.decode_bmp(data, self.channels), self.dtype, False)


@register_kernel(DECODE_OPS, HOST)
def build_decode(node):
    return _Decode(node)


def _run(node, encode):
    """``encode()`` with the codec's failures as the node's errors."""
    try:
        return encode()
    except codecs.CodecError as e:
        raise _error(node, str(e), InternalError) from None
    except codecs.Unsupported as e:
        raise _error(node, str(e), UnimplementedError) from None


@register_kernel("EncodePng", HOST)
def build_encode_png(node):
    compression = node.attrs.get("compression", -1)

    def encode_png(image):
        if not -1 <= compression <= 9:
            raise _error(node, f"compression should be in [-1,9], got {compression}")
        image = np.asarray(image)
        if image.ndim < 3:
            raise _error(node, f"image must be at least 3-dimensional, got shape "
                               f"[{','.join(str(d) for d in image.shape)}]")
        if image.shape[-1] not in (1, 2, 3, 4):
            raise _error(node, f"image must have 1, 2, 3, or 4 channels, got "
                               f"{image.shape[-1]}")
        batch = image.shape[:-3]
        flat = image.reshape((-1,) + image.shape[-3:])
        out = np.empty(len(flat), dtype=object)
        for i, one in enumerate(flat):
            out[i] = _run(node, lambda: codecs.encode_png(one, compression))
        return out.reshape(batch)
    return encode_png


@register_kernel("EncodeJpeg", HOST)
def build_encode_jpeg(node):
    attrs = dict(node.attrs)
    quality = attrs.get("quality", 95)
    fmt = attrs.get("format", "")
    options = {key: attrs.get(key, default) for key, default in (
        ("progressive", False), ("optimize_size", False), ("chroma_downsampling", True),
        ("density_unit", "in"), ("x_density", 300), ("y_density", 300))}
    xmp = attrs.get("xmp_metadata", "")
    options["xmp_metadata"] = xmp.encode() if isinstance(xmp, str) else bytes(xmp)

    def encode_jpeg(image):
        if not 0 <= quality <= 100:
            raise _error(node, f"quality must be in [0,100], got {quality}")
        image = np.asarray(image)
        shape = ",".join(str(d) for d in image.shape)
        if image.ndim != 3:
            raise _error(node, f"image must be 3-dimensional[{shape}]")
        if fmt:
            channels = 1 if fmt == "grayscale" else 3
            if image.shape[2] != channels:
                raise _error(node, f"format {fmt} expects {channels} channels, got [{shape}]")
        elif image.shape[2] not in (1, 3):
            raise _error(node, f"image must have 1 or 3 channels, got [{shape}]")
        return np.array(_run(node, lambda: codecs.encode_jpeg(image, quality, **options)),
                        dtype=object)
    return encode_jpeg


@register_kernel("EncodeJpegVariableQuality", HOST)
def build_encode_jpeg_variable_quality(node):
    def encode_jpeg_variable_quality(image, quality):
        image, quality = np.asarray(image), np.asarray(quality)
        shape = ",".join(str(d) for d in image.shape)
        if image.ndim != 3:
            raise _error(node, f"image must be 3-dimensional[{shape}]")
        if quality.ndim != 0:
            raise _error(node, f"quality must be scalar: "
                               f"[{','.join(str(d) for d in quality.shape)}]")
        if not 0 <= int(quality) <= 100:
            raise _error(node, f"quality must be in [0,100], got {int(quality)}")
        if image.shape[2] not in (1, 3):
            raise _error(node, f"image must have 1 or 3 channels, got [{shape}]")
        return np.array(_run(node, lambda: codecs.encode_jpeg(image, int(quality))),
                        dtype=object)
    return encode_jpeg_variable_quality


@register_kernel("ExtractJpegShape", HOST)
def build_extract_jpeg_shape(node):
    dtype = np.dtype(node.output_dtypes[0])

    def extract_jpeg_shape(contents):
        data = _contents(node, contents)
        try:
            return np.array(codecs.jpeg_shape(data), dtype=dtype)
        except codecs.CodecError as e:
            raise _error(node, str(e)) from None
        except codecs.Unsupported as e:
            raise _error(node, str(e), UnimplementedError) from None
    return extract_jpeg_shape
