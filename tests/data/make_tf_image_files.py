"""Writes small image files (tf_image_files/*) and TensorFlow 2.21's decoded values of
them (tf_image_files.npz), which tests/test_image_files.py compares devsession's
DecodeJpeg, DecodePng, DecodeBmp, DecodeGif, DecodeImage, DecodeAndCropJpeg,
ExtractJpegShape and EncodeJpeg with.  The files are made here with Pillow (the 16-bit
colour PNG with TensorFlow's encoder, which Pillow lacks); each npz key is
"<case>" -> TF's output (or its error message) for the call "call/<case>" names (JSON:
the tf.io function, the file, its keyword arguments); "encode_jpeg/..." hold TF's
encode_jpeg of "encode_jpeg/in/rgb" decoded again.  Run with TensorFlow and
Pillow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_image_files.py
"""

import io
import json
import os

import numpy as np
import tensorflow as tf
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "tf_image_files")
rng = np.random.default_rng(20261207)


def pattern(h, w, channels, depth=8):
    """Stripes and ramps (JPEG-friendly edges) plus a little noise."""
    yy, xx = np.mgrid[0:h, 0:w]
    top = 2 ** depth
    planes = [(xx * 37 + yy * 11) % top, (yy * 53) % top, ((xx - yy) * 29) % top,
              (xx * yy * 7 + 100) % top][:channels]
    x = np.stack(planes, -1) + rng.integers(0, 3, (h, w, channels))
    return np.clip(x, 0, top - 1).astype(np.uint8 if depth == 8 else np.uint16)


def save(name, data: bytes):
    with open(os.path.join(FILES, name), "wb") as f:
        f.write(data)


def pil_bytes(image, fmt, **options):
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


os.makedirs(FILES, exist_ok=True)
rgb = pattern(11, 13, 3)
files = {
    "gray8.png": pil_bytes(Image.fromarray(pattern(5, 7, 1)[..., 0]), "PNG"),
    "rgb8.png": pil_bytes(Image.fromarray(rgb), "PNG"),
    "rgba8.png": pil_bytes(Image.fromarray(pattern(6, 5, 4)), "PNG"),
    "gray_alpha8.png": pil_bytes(Image.fromarray(pattern(4, 6, 2), "LA"), "PNG"),
    "gray16.png": pil_bytes(Image.fromarray(pattern(5, 6, 1, 16)[..., 0]), "PNG"),
    "rgb16.png": tf.io.encode_png(pattern(4, 5, 3, 16)).numpy(),
    "palette.png": pil_bytes(Image.fromarray(rgb).quantize(7), "PNG"),
    "rgb_q90.jpg": pil_bytes(Image.fromarray(rgb), "JPEG", quality=90),
    "rgb_q40.jpg": pil_bytes(Image.fromarray(pattern(21, 29, 3)), "JPEG", quality=40),
    "rgb444_q75.jpg": pil_bytes(Image.fromarray(pattern(19, 23, 3)), "JPEG", quality=75,
                                subsampling=0),
    "gray_q85.jpg": pil_bytes(Image.fromarray(pattern(17, 9, 1)[..., 0]), "JPEG",
                              quality=85),
    "rgb24.bmp": pil_bytes(Image.fromarray(pattern(5, 7, 3)), "BMP"),
    "rgba32.bmp": pil_bytes(Image.fromarray(pattern(4, 3, 4)), "BMP"),
    "gray8.bmp": pil_bytes(Image.fromarray(pattern(3, 6, 1)[..., 0]), "BMP"),
}
frame0 = np.zeros((6, 8, 3), np.uint8)
frame0[:, :4] = (200, 30, 40)
frame0[:, 4:] = (10, 120, 250)
frame1 = frame0.copy()
frame1[2:5, 1:6] = (255, 255, 0)
files["two_frames.gif"] = pil_bytes(Image.fromarray(frame0), "GIF", save_all=True,
                                    append_images=[Image.fromarray(frame1)], duration=50)
files["one_frame.gif"] = pil_bytes(Image.fromarray(frame1), "GIF")
jpeg = files["rgb_q40.jpg"]
sos = jpeg.index(b"\xff\xda")
files["truncated.jpg"] = jpeg[:sos + (len(jpeg) - sos) * 4 // 5]   # in the last rows
for name, data in files.items():
    save(name, data)

# case -> (function, file, keyword arguments)
CASES = {}
for name in files:
    if name.endswith(".png"):
        CASES[f"png/{name}"] = ("decode_png", name, {})
        for channels in (1, 2, 3, 4):
            CASES[f"png/{name}/c{channels}"] = ("decode_png", name, {"channels": channels})
        CASES[f"png/{name}/u16"] = ("decode_png", name, {"dtype": tf.uint16})
        CASES[f"png/{name}/u16/c3"] = ("decode_png", name, {"dtype": tf.uint16, "channels": 3})
    if name.endswith(".jpg") and name != "truncated.jpg":
        for channels in (0, 1, 3):
            for dct in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
                for fancy in (True, False):
                    CASES[f"jpeg/{name}/c{channels}/{dct or 'default'}/{fancy}"] = (
                        "decode_jpeg", name, {"channels": channels, "dct_method": dct,
                                              "fancy_upscaling": fancy})
        for ratio in (2, 4, 8):
            CASES[f"jpeg/{name}/ratio{ratio}"] = ("decode_jpeg", name, {"ratio": ratio})
        CASES[f"shape/{name}"] = ("extract_jpeg_shape", name, {})
        for fancy, dct in ((True, ""), (False, ""), (True, "INTEGER_ACCURATE")):
            CASES[f"crop/{name}/{fancy}/{dct or 'default'}"] = (
                "decode_and_crop_jpeg", name, {"crop_window": [1, 2, 5, 4],
                                               "fancy_upscaling": fancy, "dct_method": dct})
        CASES[f"crop/{name}/ratio2"] = ("decode_and_crop_jpeg", name,
                                        {"crop_window": [0, 1, 3, 4], "ratio": 2})
        CASES[f"crop/{name}/outside"] = ("decode_and_crop_jpeg", name,
                                         {"crop_window": [0, 1, 30, 4]})
    if name.endswith(".bmp"):
        for channels in (0, 3, 4):
            CASES[f"bmp/{name}/c{channels}"] = ("decode_bmp", name, {"channels": channels})
    if name.endswith(".gif"):
        CASES[f"gif/{name}"] = ("decode_gif", name, {})
        CASES[f"jpeg/{name}"] = ("decode_jpeg", name, {}) if name == "one_frame.gif" else None
    CASES[f"image/{name}"] = ("decode_image", name, {})
    CASES[f"image/{name}/flat"] = ("decode_image", name, {"expand_animations": False})
CASES["image/rgb8.png/float"] = ("decode_image", "rgb8.png", {"dtype": tf.float32})
CASES["image/rgb_q90.jpg/u16"] = ("decode_image", "rgb_q90.jpg", {"dtype": tf.uint16})
CASES["jpeg/rgb8.png"] = ("decode_jpeg", "rgb8.png", {})
# the formats each op refuses, and bad data: TF's messages
files["junk.bin"] = b"not an image at all"
files["empty.bin"] = b""
save("junk.bin", files["junk.bin"])
save("empty.bin", b"")
CASES.update({
    "jpeg/rgb24.bmp": ("decode_jpeg", "rgb24.bmp", {}),
    "png/rgb24.bmp": ("decode_png", "rgb24.bmp", {}),
    "gif/rgb24.bmp": ("decode_gif", "rgb24.bmp", {}),
    "bmp/rgb8.png": ("decode_bmp", "rgb8.png", {}),
    "bmp/rgb_q90.jpg": ("decode_bmp", "rgb_q90.jpg", {}),
    "bmp/one_frame.gif": ("decode_bmp", "one_frame.gif", {}),
    "bmp/rgb24.bmp/c1": ("decode_bmp", "rgb24.bmp", {"channels": 1}),
    "png/two_frames.gif": ("decode_png", "two_frames.gif", {}),
    "jpeg/two_frames.gif": ("decode_jpeg", "two_frames.gif", {}),
    "image/two_frames.gif/c1": ("decode_image", "two_frames.gif", {"channels": 1}),
    "jpeg/rgb_q90.jpg/c4": ("decode_jpeg", "rgb_q90.jpg", {"channels": 4}),
    "crop/rgb8.png": ("decode_and_crop_jpeg", "rgb8.png", {"crop_window": [0, 0, 1, 1]}),
    "crop/rgb24.bmp": ("decode_and_crop_jpeg", "rgb24.bmp", {"crop_window": [0, 0, 1, 1]}),
    "jpeg/junk.bin": ("decode_jpeg", "junk.bin", {}),
    "image/junk.bin": ("decode_image", "junk.bin", {}),
    "png/empty.bin": ("decode_png", "empty.bin", {}),
    "shape/rgb8.png": ("extract_jpeg_shape", "rgb8.png", {}),
    "shape/rgb_q90.jpg/int64": ("extract_jpeg_shape", "rgb_q90.jpg",
                                {"output_type": tf.int64}),
    "png/broken.png": ("decode_png", "broken.png", {}),
    "jpeg/truncated.jpg": ("decode_jpeg", "truncated.jpg", {}),
    "jpeg/rgb_q90.jpg/ratio3": ("decode_jpeg", "rgb_q90.jpg", {"ratio": 3}),
    "jpeg/rgb_q90.jpg/dct": ("decode_jpeg", "rgb_q90.jpg", {"dct_method": "FLOAT"}),
})
png = files["rgb8.png"]
files["broken.png"] = png[:40] + bytes(len(png) - 40)        # IHDR whole, data zeroed
save("broken.png", files["broken.png"])
CASES["png/rgb_q90.jpg"] = ("decode_png", "rgb_q90.jpg", {})
CASES["gif/rgb8.png"] = ("decode_gif", "rgb8.png", {})
CASES = {k: v for k, v in CASES.items() if v is not None}

values = {}
for case, (function, name, kwargs) in CASES.items():
    try:
        values[case] = getattr(tf.io, function)(files[name], **kwargs).numpy()
    except tf.errors.InvalidArgumentError as e:        # recorded as the message
        values[case] = np.array(e.message.split(" [Op:")[0].split("}} ")[-1])
    spec = {k: v.name if isinstance(v, tf.DType) else v for k, v in kwargs.items()}
    values[f"call/{case}"] = np.array(json.dumps([function, name, spec]))

# EncodeJpeg: TF's bytes, decoded by TF with the accurate IDCT (which Pillow matches)
for quality, chroma in ((95, True), (60, False), (30, True)):
    for source in ("rgb", "gray"):
        image = rgb if source == "rgb" else rgb[..., :1]
        encoded = tf.io.encode_jpeg(image, quality=quality, chroma_downsampling=chroma)
        values[f"encode_jpeg/{source}/q{quality}/{chroma}"] = tf.io.decode_jpeg(
            encoded, dct_method="INTEGER_ACCURATE").numpy()
values["encode_jpeg/in/rgb"] = rgb

np.savez_compressed(os.path.join(HERE, "tf_image_files.npz"), **values)
print(len(values), "values,", sum(len(d) for d in files.values()), "bytes of files")
