"""TF's image file ops (``ops/image_files.py``, kernels over Pillow): every decode of
the small files in ``data/tf_image_files/`` against TensorFlow 2.21's values and error
messages, recorded by ``data/make_tf_image_files.py`` in ``data/tf_image_files.npz``
(TensorFlow is not needed to run these tests); static shapes; the encoders' round trips
and headers; attrs TF rejects; Pillow missing; and a tf.data pipeline of image files.

Which values are TF's exactly: PNG, GIF, BMP, and JPEG wherever no chroma is upsampled
(grayscale files or outputs, 4:4:4) or the IDCT and upsampling pair is one Pillow's
decoder has (``INTEGER_ACCURATE`` with fancy upscaling, ``INTEGER_FAST`` without).  TF's
default pair (the fast IDCT with fancy upscaling) decodes within 4 levels of TF's
(these files; ``image_codecs.py`` says why), and a cropped window of a 4:2:0 JPEG with
fancy upscaling within 32 (TF's libjpeg upsamples the cropped columns alone).
"""

from __future__ import annotations

import builtins
import io
import json
import os

import numpy as np
import pytest

import devsession as ds
import test_gpu_cupy_standin
from devsession.errors import InvalidArgumentError, UnimplementedError

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU
HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "data", "tf_image_files")
TF = np.load(os.path.join(HERE, "data", "tf_image_files.npz"))
CALLS = {key[5:]: json.loads(str(TF[key])) for key in TF.files if key.startswith("call/")}
SUBSAMPLED = ("rgb_q90.jpg", "rgb_q40.jpg")        # 4:2:0 chroma (Pillow's default)
CODEC_OPS = {"DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeBmp", "DecodeGif",
             "DecodeImage", "EncodePng", "EncodeJpeg", "ExtractJpegShape"}


def read(name: str) -> bytes:
    with open(os.path.join(FILES, name), "rb") as f:
        return f.read()


def run(fetch, feed=None):
    with ds.Session() as sess:
        return sess.run(fetch, feed)


def build(case):
    function, name, kwargs = CALLS[case]
    kwargs = {k: getattr(ds, v) if k in ("dtype", "output_type") else v
              for k, v in kwargs.items()}
    return getattr(ds.io, function)(read(name), **kwargs)


def tolerance(case) -> int:
    """How far our value may be from TF's (0: equal); the module note says why."""
    function, name, kwargs = CALLS[case]
    if name not in SUBSAMPLED or kwargs.get("channels") == 1:
        return 0
    fancy = kwargs.get("fancy_upscaling", True)
    if function == "decode_and_crop_jpeg" and fancy:
        return 32
    accurate = kwargs.get("dct_method") == "INTEGER_ACCURATE"
    scale = 256 if kwargs.get("dtype") == "uint16" else 1
    return 0 if fancy == accurate else 4 * scale


VALUE_CASES = sorted(c for c in CALLS if TF[c].dtype.kind != "U" and
                     not c.startswith("png/rgb16.png/u16"))
ERROR_CASES = sorted(c for c in CALLS if TF[c].dtype.kind == "U")


@pytest.mark.parametrize("case", VALUE_CASES)
def test_decodes_as_tensorflow(case):
    got = run(build(case))
    want = TF[case]
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64)).max() if want.dtype.kind \
        in "ui" else np.abs(got - want).max()
    assert diff <= tolerance(case), (case, diff)


def test_the_exact_cases_are_most():
    """The tolerances stay the exception: everything but TF's default JPEG pair on
    subsampled files (and its crops) is compared for equality."""
    exact = [c for c in VALUE_CASES if tolerance(c) == 0]
    assert len(exact) > 0.8 * len(VALUE_CASES)
    assert tolerance("jpeg/rgb_q90.jpg/c3/INTEGER_ACCURATE/True") == 0
    assert tolerance("jpeg/rgb_q90.jpg/c3/INTEGER_FAST/False") == 0
    assert tolerance("jpeg/gray_q85.jpg/c3/default/True") == 0


@pytest.mark.parametrize("case", ERROR_CASES)
def test_refuses_as_tensorflow(case):
    tensor = build(case)
    with pytest.raises(InvalidArgumentError) as info:
        run(tensor)
    assert str(TF[case]) in str(info.value)
    assert info.value.node_name == tensor.op.name


def test_16_bit_colour_pngs_decode_to_uint8_only():
    """Pillow reads 16-bit colour at 8 bits: uint8 is TF's (the high bytes), uint16 is
    UnimplementedError rather than a silent loss; 16-bit gray is whole."""
    np.testing.assert_array_equal(run(ds.image.decode_png(read("rgb16.png"))),
                                  TF["png/rgb16.png"])
    with pytest.raises(UnimplementedError, match="16-bit colour"):
        run(ds.image.decode_png(read("rgb16.png"), dtype=ds.uint16))
    np.testing.assert_array_equal(
        run(ds.image.decode_png(read("gray16.png"), dtype=ds.uint16)),
        TF["png/gray16.png/u16"])


# --- static shapes and build-time errors --------------------------------------------------

def test_static_shapes_as_tensorflow():
    data = read("rgb_q90.jpg")
    im = ds.image
    assert im.decode_jpeg(data).shape.as_list() == [None, None, None]
    assert im.decode_jpeg(data, channels=3).shape.as_list() == [None, None, 3]
    assert im.decode_png(data, channels=4, dtype=ds.uint16).dtype == ds.uint16
    assert im.decode_bmp(data, channels=3).shape.as_list() == [None, None, 3]
    assert im.decode_gif(data).shape.as_list() == [None, None, None, 3]
    assert im.decode_image(data).shape.ndims is None
    assert im.decode_image(data, channels=3, expand_animations=False).shape.as_list() == \
        [None, None, 3]
    assert im.decode_image(data, expand_animations=False).shape.as_list() == \
        [None, None, None]
    assert im.decode_and_crop_jpeg(data, [1, 2, 3, 4]).shape.as_list() == [3, 4, None]
    fed = ds.placeholder(ds.int32, [4])
    assert im.decode_and_crop_jpeg(data, fed, channels=1).shape.as_list() == \
        [None, None, 1]
    assert im.extract_jpeg_shape(data).shape.as_list() == [3]
    assert im.encode_png(np.zeros((2, 3, 4, 3), np.uint8)).shape.as_list() == [2]
    assert im.encode_jpeg(np.zeros((4, 3, 1), np.uint8)).shape.as_list() == []
    assert im.is_jpeg(data).dtype == ds.bool
    # a channels value the shape accepts, refused when the kernel runs (as TF's)
    assert im.decode_jpeg(data, channels=2).shape.as_list() == [None, None, 2]


def test_build_time_errors_as_tensorflow():
    im = ds.image
    with pytest.raises(ValueError, match="channels must be non-negative, got -1"):
        im.decode_png(b"x", channels=-1)
    with pytest.raises(ValueError, match="rank 0 but is rank 1"):
        im.decode_jpeg([b"x"])
    with pytest.raises(ValueError, match="Dimension must be 4 but is 3"):
        im.decode_and_crop_jpeg(b"x", [1, 2, 3])
    with pytest.raises(ValueError, match="at least rank 3 but is rank 2"):
        im.encode_png(np.zeros((3, 4), np.uint8))
    with pytest.raises(ValueError, match="rank 3 but is rank 4"):
        im.encode_jpeg(np.zeros((1, 3, 4, 3), np.uint8))
    with pytest.raises(TypeError, match="float32 not in list of allowed values: uint8, "
                                        "uint16"):
        im.decode_png(b"x", dtype=ds.float32)
    with pytest.raises(TypeError, match="not in list of allowed values: uint8, uint16"):
        im.encode_png(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(ValueError, match="'format' of 'EncodeJpeg' Op passed string "
                                         "'cmyk'"):
        im.encode_jpeg(np.zeros((2, 2, 3), np.uint8), format="cmyk")
    with pytest.raises(ValueError, match="'density_unit'"):
        im.encode_jpeg(np.zeros((2, 2, 3), np.uint8), density_unit="mm")


# --- the encoders ----------------------------------------------------------------------------

def test_encode_png_then_decode_png_is_exact():
    rng = np.random.default_rng(7)
    images = {c: rng.integers(0, 256, (5, 7, c), dtype=np.uint8) for c in (1, 2, 3, 4)}
    gray16 = rng.integers(0, 65536, (4, 3, 1), dtype=np.uint16)
    batch = rng.integers(0, 256, (2, 3, 4, 5, 3), dtype=np.uint8)
    fetches = {c: ds.image.decode_png(ds.image.encode_png(x, compression=9))
               for c, x in images.items()}
    fetches["16"] = ds.image.decode_png(ds.image.encode_png(gray16), dtype=ds.uint16)
    fetches["batch"] = ds.image.encode_png(batch)
    got = run(fetches)
    for c, x in images.items():
        np.testing.assert_array_equal(got[c], x)
    np.testing.assert_array_equal(got["16"], gray16)
    assert got["batch"].shape == (2, 3)
    one = run(ds.image.decode_png(got["batch"][1, 2]))
    np.testing.assert_array_equal(one, batch[1, 2])


@pytest.mark.parametrize("quality,chroma", [(95, True), (60, False), (30, True)])
@pytest.mark.parametrize("source", ["rgb", "gray"])
def test_encode_jpeg_as_tensorflow(quality, chroma, source):
    """Our JPEG bytes decode (accurate IDCT) to TF's JPEG bytes' values: the same libjpeg
    quantization and sampling."""
    image = TF["encode_jpeg/in/rgb"]
    image = image if source == "rgb" else image[..., :1]
    encoded = ds.image.encode_jpeg(image, quality=quality, chroma_downsampling=chroma)
    got = run(ds.image.decode_jpeg(encoded, dct_method="INTEGER_ACCURATE"))
    np.testing.assert_array_equal(got, TF[f"encode_jpeg/{source}/q{quality}/{chroma}"])


def jfif(data: bytes):
    """(units, x density, y density) of a JFIF APP0 segment."""
    assert data[2:4] == b"\xff\xe0" and data[6:11] == b"JFIF\0"
    return data[13], int.from_bytes(data[14:16], "big"), int.from_bytes(data[16:18], "big")


def test_encode_jpeg_header_attrs():
    image = TF["encode_jpeg/in/rgb"]
    im = ds.image
    default, cm, xmp, progressive, gray = run([
        im.encode_jpeg(image), im.encode_jpeg(image, density_unit="cm", x_density=72,
                                              y_density=96),
        im.encode_jpeg(image, xmp_metadata="<x:xmpmeta/>"),
        im.encode_jpeg(image, progressive=True, optimize_size=True),
        im.encode_jpeg(image[..., :1], format="grayscale")])
    assert jfif(default) == (1, 300, 300)                # TF's: 300 dots per inch
    assert jfif(cm) == (2, 72, 96)
    assert b"http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>" in xmp
    assert b"\xff\xc2" in progressive and b"\xff\xc2" not in default   # SOF2
    assert run(im.extract_jpeg_shape(gray)).tolist() == [11, 13, 1]
    np.testing.assert_array_equal(run(im.decode_jpeg(progressive, channels=3)).shape,
                                  image.shape)


def test_encoders_refuse_as_tensorflow():
    im = ds.image
    u8 = np.zeros((2, 2, 3), np.uint8)
    cases = [(im.encode_jpeg(u8, quality=101), "quality must be in [0,100], got 101"),
             (im.encode_jpeg(np.zeros((2, 2, 2), np.uint8)),
              "image must have 1 or 3 channels, got [2,2,2]"),
             (im.encode_jpeg(u8, format="grayscale"),
              "format grayscale expects 1 channels, got [2,2,3]"),
             (im.encode_png(u8, compression=10), "compression should be in [-1,9], got 10"),
             (im.encode_png(np.zeros((2, 2, 5), np.uint8)),
              "image must have 1, 2, 3, or 4 channels, got 5")]
    for tensor, message in cases:
        with pytest.raises(InvalidArgumentError) as info:
            run(tensor)
        assert message in str(info.value) and info.value.node_name == tensor.op.name


# --- attrs, truncation, is_jpeg ----------------------------------------------------------------

def test_truncated_jpeg_is_read_only_when_asked():
    """TF refuses a truncated JPEG; try_recover_truncated (or a smaller
    acceptable_fraction) accepts it: the rows the data has, as the whole file's."""
    data = read("truncated.jpg")
    whole = run(ds.image.decode_jpeg(read("rgb_q40.jpg"), dct_method="INTEGER_ACCURATE"))
    recovered, partial = run([
        ds.image.decode_jpeg(data, try_recover_truncated=True,
                             dct_method="INTEGER_ACCURATE"),
        ds.image.decode_jpeg(data, acceptable_fraction=0.5, dct_method="INTEGER_ACCURATE")])
    assert recovered.shape == whole.shape
    np.testing.assert_array_equal(recovered[:8], whole[:8])
    np.testing.assert_array_equal(partial, recovered)
    assert not np.array_equal(recovered, whole)


def _huge_headers() -> dict:
    """Tiny files whose headers claim 65535 x 65535 pixels (over Pillow's
    decompression-bomb limit)."""
    import struct
    import zlib

    from PIL import Image

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + \
            struct.pack(">I", zlib.crc32(kind + body))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 65535, 65535, 8,
                                                               0, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    gif = bytearray(read("one_frame.gif"))
    gif[6:10] = struct.pack("<HH", 65535, 65535)
    out = io.BytesIO()
    Image.new("L", (8, 8)).save(out, "JPEG")
    jpeg = bytearray(out.getvalue())
    sof = jpeg.index(b"\xff\xc0")
    jpeg[sof + 5:sof + 9] = struct.pack(">HH", 65535, 65535)
    return {"PNG": png, "GIF": bytes(gif), "JPEG": bytes(jpeg)}


@pytest.mark.parametrize("fmt", ["PNG", "GIF", "JPEG"])
def test_headers_claiming_too_many_pixels_are_invalid_argument(fmt):
    """As TF's "PNG size too large for int": InvalidArgumentError naming the node (a
    Python DecompressionBombError escaped the kernel as InternalError before)."""
    pytest.importorskip("PIL")
    contents = ds.placeholder(ds.string, [])
    image = ds.image.decode_image(contents)
    with pytest.raises(InvalidArgumentError, match=f"{fmt} image too large") as info:
        run(image, {contents: _huge_headers()[fmt]})
    assert info.value.node_name == image.op.name


def test_is_jpeg_and_extract_jpeg_shape():
    contents = ds.placeholder(ds.string, [])
    check = ds.image.is_jpeg(contents)
    assert check.op.type == "Equal"
    for name, want in (("rgb_q90.jpg", True), ("rgb8.png", False), ("empty.bin", False)):
        assert run(check, {contents: read(name)}) == want
    assert run(ds.io.extract_jpeg_shape(read("gray_q85.jpg"))).tolist() == [17, 9, 1]


def test_decode_image_to_other_dtypes():
    """As TF builds it: float32 directly (PNG / 65535 through uint16, else / 255), other
    dtypes through convert_image_dtype."""
    png = read("rgb8.png")
    as_float, as_int16 = run([ds.image.decode_image(png, dtype=ds.float32),
                              ds.image.decode_image(png, dtype=ds.int16)])
    np.testing.assert_allclose(as_float, TF["image/rgb8.png/float"], rtol=1e-6)
    np.testing.assert_array_equal(as_int16, (TF["png/rgb8.png/u16"] // 2).astype(np.int16))


def test_pillow_missing_is_unimplemented(monkeypatch):
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    for tensor in (ds.image.decode_png(read("rgb8.png")),
                   ds.image.encode_jpeg(np.zeros((2, 2, 3), np.uint8))):
        with pytest.raises(UnimplementedError, match=r"pip install devsession\[image\]") \
                as info:
            run(tensor)
        assert info.value.node_name == tensor.op.name


def test_not_differentiable():
    image = ds.cast(ds.placeholder(ds.float32, [2, 2, 3]), ds.uint8)
    encoded = ds.image.encode_png(image)
    decoded = ds.cast(ds.image.decode_png(encoded), ds.float32)
    assert ds.gradients(ds.reduce_sum(decoded), [image]) == [None]


# --- a TF1 input pipeline --------------------------------------------------------------------

def write_pngs(tmp_path, count):
    rng = np.random.default_rng(11)
    images = [rng.integers(0, 256, (6 + i, 5 + 2 * i, 3), dtype=np.uint8)
              for i in range(count)]
    paths = []
    for i, image in enumerate(images):
        path = tmp_path / f"img{i}.png"
        path.write_bytes(run(ds.image.encode_png(image)))
        paths.append(str(path))
    return images, paths


def test_dataset_of_file_names_decodes_resizes_and_batches(tmp_path):
    images, paths = write_pngs(tmp_path, 5)

    def load(filename):
        image = ds.image.decode_png(ds.read_file(filename), channels=3)
        return ds.image.resize_images(image, [4, 4])

    dataset = ds.data.Dataset.from_tensor_slices(paths).map(load).batch(2)
    batch = dataset.make_one_shot_iterator().get_next()
    assert batch.shape.as_list() == [None, 4, 4, 3]
    got = []
    with ds.Session() as sess:
        while True:
            try:
                got.append(sess.run(batch))
            except ds.errors.OutOfRangeError:
                break
    assert [b.shape for b in got] == [(2, 4, 4, 3), (2, 4, 4, 3), (1, 4, 4, 3)]
    want = run([ds.image.resize_images(ds.constant(x), [4, 4]) for x in images])
    np.testing.assert_array_equal(np.concatenate(got), np.stack(want))


def test_on_a_gpu_session_decoding_runs_on_the_host(tmp_path, standin):
    """Decoders take strings, which only the CPU holds: a GPU session places them there,
    as TF's placer puts host-only ops, and resizes on the GPU (the stand-in cupy on a
    fake GPU)."""
    images, paths = write_pngs(tmp_path, 1)
    decoded = ds.image.decode_png(ds.read_file(paths[0]))
    resized = ds.image.resize_images(decoded, [3, 3])
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        got = sess.run(resized)
        placed = sess.placement()
    assert "CPU" in placed[decoded.op.name] and "GPU" in placed[resized.op.name]
    np.testing.assert_array_equal(got, run(ds.image.resize_images(images[0], [3, 3])))


def test_images_read_back_with_pillow_directly():
    """Our PNG is a PNG any reader takes (Pillow here), not only our decoder."""
    from PIL import Image

    image = TF["encode_jpeg/in/rgb"]
    data = run(ds.image.encode_png(image))
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data))), image)
