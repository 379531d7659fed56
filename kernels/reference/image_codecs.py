"""Image files to pixels and back through Pillow, with TensorFlow's conventions: the
codec work of ``image_files.py``'s kernels (``devsession/ops/image_files.py``).

Pillow is optional (``pip install devsession[image]``): ``pillow()`` imports it when a
kernel first runs and says which extra to install when it is missing.  Every function
here takes bytes (or an array) and returns an array (or bytes), raising ``CodecError``
with TensorFlow's message for data it cannot read; the kernels add the node's name.

Where TF's libraries and Pillow's differ, TF's results are kept:

* JPEG (libjpeg through Pillow, as TF's): ``channels=1`` decodes the luma only, as
  libjpeg's grayscale output.  Pillow's decoder offers two settings: the accurate IDCT
  with fancy upsampling, and the fast IDCT without it (its "draft").  TF's four
  (``dct_method`` x ``fancy_upscaling``) map onto them: where no chroma is upsampled (a
  grayscale JPEG or output, 4:4:4 sampling) the IDCT is TF's; otherwise
  ``fancy_upscaling`` picks the setting, so ``INTEGER_ACCURATE`` with fancy upscaling
  and ``INTEGER_FAST`` without are TF's values, and TF's default (``INTEGER_FAST`` with
  fancy upscaling) decodes with the accurate IDCT: a few levels from TF's.  A
  truncated file is an error unless ``try_recover_truncated`` or an
  ``acceptable_fraction`` below 1 accepts it; then it decodes as libjpeg does past the
  data's end (an end-of-image marker supplied: the missing rows gray).
* PNG: palettes expand to RGB (RGBA with transparency); colour to gray with libpng's
  weights (9797, 19234, 3737) / 2^15 rounded down; alpha added or dropped (added as
  TF's libpng call adds it: (1 << bit depth) - 1, so 15 for a 4-bit palette);
  8 bits to 16 as x257, 16 to 8 as the high byte.  Pillow reads 16-bit colour at 8 bits,
  so 16-bit colour PNGs decode to uint8 only (gray at 16 bits is whole).
* GIF: every frame composed over the one before (black before the first) where it is
  transparent or does not reach, as TF's decoder does.
* BMP: TF's reader is a raw copy of uncompressed 8-, 24- and 32-bit rows (an 8-bit
  palette's indices as gray, a 32-bit row's fourth byte as alpha), so the header is
  checked as TF checks it and Pillow's raw unpacker copies the rows.
"""

from __future__ import annotations

import io
import struct

import numpy as np

__all__ = ["CodecError", "Unsupported", "PillowMissing", "pillow", "classify", "decode_jpeg",
           "jpeg_shape", "decode_png", "decode_gif", "decode_bmp", "encode_png", "encode_jpeg",
           "to_channels"]

_MAGIC = (("JPEG", b"\xff\xd8\xff"), ("PNG", b"\x89PNG\r\n\x1a\n"), ("GIF", b"GIF8"),
          ("BMP", b"BM"))
_JPEG_ERROR = "jpeg::Uncompress failed. Invalid JPEG data or crop window."
_EOI = b"\xff\xd9"


class CodecError(ValueError):
    """Data a decoder cannot read, with TensorFlow's message."""


class Unsupported(Exception):
    """What Pillow cannot do (its kernel raises UnimplementedError)."""


class PillowMissing(Unsupported):
    """Pillow is not installed."""


def pillow():
    """PIL.Image, imported when first needed (``devsession[image]`` installs it)."""
    try:
        from PIL import Image
    except ImportError as e:
        raise PillowMissing("decoding and encoding images needs Pillow: pip install "
                            "devsession[image]") from e
    return Image


def classify(data: bytes) -> str:
    """The format TF's magic-byte check sees: JPEG, PNG, GIF, BMP, WebP or '' (unknown)."""
    for name, magic in _MAGIC:
        if data.startswith(magic):
            return name
    if data.startswith(b"RIFF") and len(data) > 12 and data[8:12] == b"WEBP":
        return "WebP"
    return ""


# --- channels -------------------------------------------------------------------------------

def _gray(rgb: np.ndarray) -> np.ndarray:
    """libpng's rgb_to_gray with TF's weights 0.299, 0.587: (9797, 19234, 3737) / 2^15
    (libpng's fixed-point coefficients), rounded down."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((9797 * r + 19234 * g + 3737 * b) >> 15).astype(rgb.dtype)[..., None]


def to_channels(pixels: np.ndarray, channels: int, opaque: int | None = None) -> np.ndarray:
    """``pixels`` (h, w, 1..4) as ``channels`` (0: as they are): gray replicated or
    weighted, alpha added (as ``opaque``, else the dtype's maximum) or dropped, as
    libpng and TF's BMP reader convert."""
    have = pixels.shape[-1]
    if channels in (0, have):
        return pixels
    alpha = pixels[..., have - 1:] if have in (2, 4) else None
    colour = pixels[..., :3] if have >= 3 else pixels[..., :1]
    if channels < 3:
        base = _gray(colour) if colour.shape[-1] == 3 else colour
    else:
        base = np.repeat(colour, 3, axis=-1) if colour.shape[-1] == 1 else colour
    if channels in (2, 4):
        if alpha is None:
            alpha = np.full(pixels.shape[:-1] + (1,), np.iinfo(pixels.dtype).max
                            if opaque is None else opaque, pixels.dtype)
        base = np.concatenate([base, alpha], axis=-1)
    return np.ascontiguousarray(base)


def _too_large(fmt: str, error) -> str:
    """The refusal of a header claiming more pixels than Pillow's decompression-bomb
    limit (Image.MAX_IMAGE_PIXELS x 2): InvalidArgument as TF's for such a PNG ("PNG
    size too large for int"), not a Python error out of the kernel."""
    return f"{fmt} image too large: {error}"


def _as_array(image) -> np.ndarray:
    pixels = np.asarray(image)
    return pixels[..., None] if pixels.ndim == 2 else pixels


# --- JPEG -----------------------------------------------------------------------------------

def _open(data: bytes, fmt: str, invalid: str):
    """Pillow's image of ``data`` read as ``fmt`` only; CodecError(``invalid``) where it
    is not one, a too-large refusal where its header claims too many pixels."""
    Image = pillow()
    try:
        return Image.open(io.BytesIO(data), formats=[fmt])
    except Image.DecompressionBombError as e:
        raise CodecError(_too_large(fmt, e)) from e
    except (OSError, SyntaxError, ValueError) as e:
        raise CodecError(invalid) from e


def _open_jpeg(data: bytes):
    return _open(data, "JPEG", _JPEG_ERROR)


def decode_jpeg(data: bytes, channels: int = 0, ratio: int = 1, fancy: bool = True,
                fast_dct: bool = True, recover: bool = False, crop=None) -> np.ndarray:
    """A JPEG's pixels, (h, w, channels) uint8, as TF's DecodeJpeg (see the module
    note); ``crop`` is TF's window (y, x, height, width) on the scaled image."""
    image = _open_jpeg(data)
    gray_source = image.mode == "L"
    mode = "L" if channels == 1 or (channels == 0 and gray_source) else "RGB"
    width, height = image.size
    image.draft(mode, (max(1, width // ratio), max(1, height // ratio)) if ratio > 1
                else None)
    scale = image.decoderconfig[0] if image.decoderconfig else 1
    if scale != ratio:
        raise Unsupported(f"ratio {ratio} needs an image at least {ratio} pixels wide and "
                         f"high, got {width}x{height}")
    sampling = {(h, v) for _, h, v, _ in getattr(image, "layer", ())}
    upsampled = image.mode != "L" and len(sampling) > 1
    image.decoderconfig = (scale, int(not fancy if upsampled else fast_dct))
    try:
        image.load()
    except OSError as e:
        if not recover:
            raise CodecError(_JPEG_ERROR) from e
        return decode_jpeg(data + _EOI, channels, ratio, fancy, fast_dct, False, crop)
    pixels = to_channels(_as_array(image), 3 if mode == "RGB" else 1)
    if crop is not None:
        y, x, h, w = (int(v) for v in crop)
        if not (h > 0 and w > 0 and y >= 0 and x >= 0 and y + h <= pixels.shape[0]
                and x + w <= pixels.shape[1]):
            raise CodecError(_JPEG_ERROR)
        pixels = np.ascontiguousarray(pixels[y:y + h, x:x + w])
    return pixels


def jpeg_shape(data: bytes) -> tuple[int, int, int]:
    """(height, width, components) from a JPEG's header, as TF's ExtractJpegShape."""
    try:
        image = _open_jpeg(data)
    except CodecError:
        raise CodecError(f"Invalid JPEG data, size {len(data)}") from None
    return image.size[1], image.size[0], len(getattr(image, "layer", ())) or 1


# --- PNG ------------------------------------------------------------------------------------

def decode_png(data: bytes, channels: int = 0, bits: int = 8) -> np.ndarray:
    """A PNG's pixels, (h, w, channels) uint8 (``bits`` 8) or uint16 (16), as TF's
    DecodePng (see the module note)."""
    image = _open(data, "PNG", "Invalid PNG. Failed to initialize decoder.")
    depth, colour_type = data[24], data[25]
    try:
        image.load()
    except (OSError, SyntaxError, ValueError) as e:
        raise CodecError(f"Invalid PNG data, size {len(data)}") from e
    # TF adds alpha as (1 << bit depth) - 1: 15 for a 4-bit palette, as TF does
    opaque = (1 << depth) - 1 if depth < 8 else None
    if image.mode == "P" or image.mode == "PA":
        image = image.convert("RGBA" if "transparency" in image.info or image.mode == "PA"
                              else "RGB")
    elif image.mode == "1":
        image = image.convert("L")
    pixels = _as_array(image)
    if pixels.dtype.itemsize == 2 or image.mode.startswith("I"):      # 16-bit gray
        pixels = pixels.astype(np.uint16)
        stored = 16
    else:
        stored = 8
        if depth == 16 and colour_type != 0 and bits == 16:
            raise Unsupported("Pillow reads 16-bit colour PNGs at 8 bits: decode them "
                                "with dtype=uint8")
    pixels = to_channels(pixels, channels, opaque)
    if bits == stored:
        return pixels
    if bits == 16:
        return pixels.astype(np.uint16) * np.uint16(257)
    return (pixels >> 8).astype(np.uint8)


# --- GIF ------------------------------------------------------------------------------------

def decode_gif(data: bytes, first_only: bool = False) -> np.ndarray:
    """A GIF's frames, (frames, h, w, 3) uint8, each composed over the one before where
    it is transparent or does not reach (black before the first), as TF's decoder."""
    Image = pillow()
    try:
        image = Image.open(io.BytesIO(data), formats=["GIF"])
        frames, previous = [], None
        for index in range(1 if first_only else getattr(image, "n_frames", 1)):
            image.seek(index)
            rgba = _as_array(image.convert("RGBA"))
            if previous is None:
                previous = np.zeros(rgba.shape[:2] + (3,), np.uint8)
            frame = np.where(rgba[..., 3:] == 0, previous, rgba[..., :3])
            frames.append(frame)
            previous = frame
    except Image.DecompressionBombError as e:
        raise CodecError(_too_large("GIF", e)) from e
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise CodecError(f"Invalid GIF data (size {len(data)}), {e}") from e
    return np.stack(frames)


# --- BMP ------------------------------------------------------------------------------------

def decode_bmp(data: bytes, channels: int = 0) -> np.ndarray:
    """A BMP's pixels, (h, w, channels) uint8, as TF's DecodeBmp reads them (see the
    module note): its header checks and messages, then the raw rows."""
    if len(data) < 32:
        raise CodecError(f"Incomplete bmp content, requires at least 32 bytes to find "
                         f"the header size, width, height, and bpp, got {len(data)} bytes")
    header, width, height = struct.unpack_from("<i", data, 10)[0], \
        *struct.unpack_from("<ii", data, 18)
    stored = struct.unpack_from("<h", data, 28)[0] // 8
    if stored not in (1, 3, 4):
        raise CodecError(f"Number of channels inherent in the image must be 1, 3 or 4, "
                         f"was {stored}")
    if width <= 0:
        raise CodecError("Width must be positive")
    if height == 0:
        raise CodecError("Height must be nonzero")
    if header < 0:
        raise CodecError("header size must be nonnegative")
    if width * abs(height) >= (2 ** 31 - 1) // 8:
        raise CodecError("Total possible pixel bytes must be less than 2^30")
    row = (stored * width + 3) // 4 * 4
    diff = len(data) - header - row * abs(height)
    if diff != 0:
        raise CodecError(f"Input size should match (header_size + row_size * abs_height) "
                         f"but they differ by {diff}")
    Image = pillow()
    mode, raw = {1: ("L", "L"), 3: ("RGB", "BGR"), 4: ("RGBA", "BGRA")}[stored]
    image = Image.frombuffer(mode, (width, abs(height)), data[header:], "raw", raw, row,
                             1 if height < 0 else -1)      # a positive height: bottom-up
    return to_channels(_as_array(image).copy(), channels)


# --- encoders -------------------------------------------------------------------------------

def encode_png(pixels: np.ndarray, compression: int = -1) -> bytes:
    """One (h, w, 1..4) uint8 or uint16 image as PNG bytes (zlib level ``compression``,
    -1: the default, 6)."""
    Image = pillow()
    if pixels.dtype == np.uint16 and pixels.shape[-1] != 1:
        raise Unsupported("Pillow writes 16-bit PNGs in gray only: encode 16-bit colour "
                            "as uint8")
    if 0 in pixels.shape:
        raise CodecError("PNG encoding failed: the image is empty")
    # Pillow reads the mode from the array: L or I;16, LA, RGB, RGBA
    image = Image.fromarray(np.ascontiguousarray(pixels[..., 0] if pixels.shape[-1] == 1
                                                 else pixels))
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=6 if compression == -1 else compression)
    return out.getvalue()


def encode_jpeg(pixels: np.ndarray, quality: int = 95, progressive: bool = False,
                optimize_size: bool = False, chroma_downsampling: bool = True,
                density_unit: str = "in", x_density: int = 300, y_density: int = 300,
                xmp_metadata: bytes = b"") -> bytes:
    """One (h, w, 1 or 3) uint8 image as JPEG bytes with TF's EncodeJpeg settings: a JFIF
    header with the density (in dots per inch or cm), 4:2:0 chroma or 4:4:4, and the XMP
    packet as TF writes it (an APP1 segment after the JFIF one)."""
    Image = pillow()
    if 0 in pixels.shape:
        raise CodecError("JPEG encoding failed")
    image = Image.fromarray(np.ascontiguousarray(pixels[..., 0] if pixels.shape[-1] == 1
                                                 else pixels))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality, progressive=progressive,
               optimize=optimize_size, subsampling=2 if chroma_downsampling else 0,
               dpi=(x_density, y_density))
    data = bytearray(out.getvalue())
    if data[2:4] == b"\xff\xe0" and data[6:11] == b"JFIF\0":
        data[13] = 2 if density_unit == "cm" else 1      # JFIF units: 1 in, 2 cm
        struct.pack_into(">HH", data, 14, x_density, y_density)
    if xmp_metadata:
        app0_end = 4 + struct.unpack_from(">H", data, 4)[0]
        payload = b"http://ns.adobe.com/xap/1.0/\0" + xmp_metadata
        data[app0_end:app0_end] = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return bytes(data)
