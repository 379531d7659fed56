"""Writes tf_image_augment.npz: fixed inputs and TensorFlow 2.21's outputs for the
augmentation ops of ``tf.image`` that tests/test_image_glimpse.py and
tests/test_image_jpeg_quality.py compare devsession with: ExtractGlimpse (TF1's
``tf.image.extract_glimpse``, windows inside the image or touching its edge, so no noise
is drawn) and ExtractGlimpseV2 (``noise="zero"``: windows partly or wholly outside), in
every centered/normalized combination; adjust_jpeg_quality (EncodeJpegVariableQuality
and DecodeJpeg) on uint8, float32 and one-channel images; and
sample_distorted_bounding_box's fallback to the whole image.  Keys are "in/<name>" for
inputs and "<case>" for TF's outputs.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_image_augment.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261208)
f32 = np.float32

GLIMPSE_IN = rng.uniform(-1, 1, (2, 6, 7, 2)).astype(f32)
# (case, op, size, offsets, centered, normalized): TF1's op keeps inside the image
GLIMPSES = [
    ("v1/centered_normalized", "ExtractGlimpse", [3, 3], [[0, 0], [0.2, -0.3]], True, True),
    ("v1/normalized", "ExtractGlimpse", [3, 3], [[0.5, 0.5], [0.4, 0.6]], False, True),
    ("v1/pixels", "ExtractGlimpse", [3, 2], [[2, 3], [1.7, 2.2]], False, False),
    ("v1/centered_pixels", "ExtractGlimpse", [3, 3], [[0, 0], [1, -2]], True, False),
    ("v1/edge", "ExtractGlimpse", [2, 3], [[4, 4], [5, 5.5]], False, False),
    ("v2/centered_normalized", "ExtractGlimpseV2", [3, 4], [[-1, -1], [0.9, 1.0]], True,
     True),
    ("v2/centered_pixels", "ExtractGlimpseV2", [3, 3], [[0, 0], [-4, 5]], True, False),
    ("v2/pixels", "ExtractGlimpseV2", [3, 3], [[-0.5, -0.9], [4.5, 5.9]], False, False),
    ("v2/normalized", "ExtractGlimpseV2", [2, 2], [[0, 0], [1, 1]], False, True),
    ("v2/larger", "ExtractGlimpseV2", [8, 9], [[0, 0], [0.1, 0.1]], True, True),
    ("v2/negative", "ExtractGlimpseV2", [3, 3], [[-2.5, -1.2], [-9, 2]], False, False),
]

yy, xx = np.mgrid[0:16, 0:20]
JPEG_IN = np.stack([yy * 15, xx * 12, (yy + xx) * 7], -1).clip(0, 255).astype(np.uint8)
JPEG_IN[5:9, 6:12] = [250, 30, 40]                      # an edge for the codec to blur
JPEG_GRAY = JPEG_IN[..., :1].copy()
QUALITIES = (20, 50, 90)

out = {"in/glimpse": GLIMPSE_IN, "in/jpeg": JPEG_IN, "in/jpeg_gray": JPEG_GRAY}
graph = tf.Graph()
with graph.as_default():
    fetches = {}
    image = tf.constant(GLIMPSE_IN)
    for case, op, size, offsets, centered, normalized in GLIMPSES:
        out[f"in/{case}/size"] = np.array(size, np.int32)
        out[f"in/{case}/offsets"] = np.array(offsets, f32)
        if op == "ExtractGlimpse":
            fetches[case] = tf.image.extract_glimpse(image, size, np.array(offsets, f32),
                                                     centered=centered, normalized=normalized)
        else:
            fetches[case] = tf.raw_ops.ExtractGlimpseV2(
                input=image, size=size, offsets=np.array(offsets, f32), centered=centered,
                normalized=normalized, uniform_noise=False, noise="zero")
    for q in QUALITIES:
        fetches[f"jpeg/u8/{q}"] = tf.image.adjust_jpeg_quality(tf.constant(JPEG_IN), q)
        fetches[f"jpeg/gray/{q}"] = tf.image.adjust_jpeg_quality(tf.constant(JPEG_GRAY), q)
    fetches["jpeg/f32/50"] = tf.image.adjust_jpeg_quality(
        tf.constant(JPEG_IN.astype(f32) / 255), 50)
    # no crop can have an aspect ratio of 50 in a 10 x 12 image: the whole image
    fetches["sample/fallback"] = tf.image.sample_distorted_bounding_box(
        [10, 12, 3], tf.zeros([1, 0, 4]), seed=3, aspect_ratio_range=[50, 60],
        use_image_if_no_bounding_boxes=True)
    with tf.Session() as sess:
        got = sess.run(fetches)
for key, value in got.items():
    if isinstance(value, tuple):
        for name, part in zip(("begin", "size", "bboxes"), value):
            out[f"{key}/{name}"] = part
    else:
        out[key] = value
np.savez_compressed(os.path.join(HERE, "tf_image_augment.npz"), **out)
print(sorted(out))
