"""``ds.image.adjust_jpeg_quality`` and ``random_jpeg_quality`` (a JPEG round trip
through EncodeJpegVariableQuality and DecodeJpeg) against TensorFlow 2.21's images
(``tests/data/make_tf_image_augment.py``: RGB and one-channel uint8, float32): within
a few levels, the codecs being Pillow's and TF's builds of libjpeg; the random quality
drawn within its bounds and seeded; TF's errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from graph_building import ph

TF = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_image_augment.npz"))
RGB, GRAY = TF["in/jpeg"], TF["in/jpeg_gray"]
QUALITIES = (20, 50, 90)
LEVELS = 6                      # the most one pixel may differ from TF's, in uint8 levels


def levels_apart(a, b) -> int:
    return int(np.abs(a.astype(np.int64) - b.astype(np.int64)).max())


def only_op(graph, op_type):
    (op,) = [op for op in graph.get_operations() if op.type == op_type]
    return op


def test_round_trips_as_tf_within_a_few_levels(graph):
    rgb = {q: ds.image.adjust_jpeg_quality(RGB, q) for q in QUALITIES}
    gray = {q: ds.image.adjust_jpeg_quality(GRAY, q) for q in QUALITIES}
    floats = ds.image.adjust_jpeg_quality(RGB.astype(np.float32) / 255, 50)
    assert rgb[20].dtype == ds.uint8 and floats.dtype == ds.float32
    assert gray[20].shape.as_list() == [None, None, 1]
    assert len([op for op in graph.get_operations()
                if op.type == "EncodeJpegVariableQuality"]) == 2 * len(QUALITIES) + 1
    with ds.Session() as sess:
        got_rgb, got_gray, got_floats = sess.run([rgb, gray, floats])
    for q in QUALITIES:
        assert levels_apart(got_rgb[q], TF[f"jpeg/u8/{q}"]) <= LEVELS, q
        assert levels_apart(got_gray[q], TF[f"jpeg/gray/{q}"]) <= LEVELS, q
        assert np.mean(got_rgb[q] == TF[f"jpeg/u8/{q}"]) > 0.3
    # lower quality, larger artefacts on average, as TF's
    errors = [np.abs(got_rgb[q].astype(np.int64) - RGB).mean() for q in QUALITIES]
    assert errors[0] > errors[1] > errors[2]
    assert np.abs(got_floats - TF["jpeg/f32/50"]).max() <= LEVELS / 255


def test_a_quality_tensor_is_read_when_the_graph_runs(graph):
    quality = ph((), ds.int32)
    out = ds.image.adjust_jpeg_quality(RGB, quality)
    with ds.Session() as sess:
        low, high = (sess.run(out, {quality: q}) for q in (20, 90))
        assert levels_apart(low, TF["jpeg/u8/20"]) <= LEVELS
        assert levels_apart(high, TF["jpeg/u8/90"]) <= LEVELS
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match=r"quality must be in \[0,100\], got 101") as info:
            sess.run(out, {quality: 101})
    assert info.value.node_name == only_op(graph, "EncodeJpegVariableQuality").name


def test_random_quality_is_one_of_the_range_s_and_seeded(graph):
    image = ds.constant(RGB)
    each = {q: ds.image.adjust_jpeg_quality(image, q) for q in range(30, 36)}
    drawn = ds.image.random_jpeg_quality(image, 30, 36, seed=4)
    quality = only_op(graph, "RandomUniformInt").outputs[0]
    with ds.Session() as sess:
        candidates = sess.run(each)
        runs = [sess.run([drawn, quality]) for _ in range(12)]
    with ds.Session() as sess:
        again = [sess.run(quality) for _ in range(12)]
    assert [q for _, q in runs] == again
    assert {int(q) for _, q in runs} <= set(range(30, 36)) and len({int(q) for _, q in runs}) > 1
    for out, q in runs:
        np.testing.assert_array_equal(out, candidates[int(q)])


@pytest.mark.parametrize("low,high,message", [
    (-1, 50, "between 0 and 100"), (10, 101, "between 0 and 100"),
    (50, 50, "must be less than"),
])
def test_random_jpeg_quality_bounds(graph, low, high, message):
    with pytest.raises(ValueError, match=message):
        ds.image.random_jpeg_quality(RGB, low, high)


def test_encoder_checks_its_image(graph):
    two = ph((None, None, 2), ds.uint8)
    out = ds.image.adjust_jpeg_quality(two, 50)
    with pytest.raises(ValueError, match="rank 3"):
        ds.image.adjust_jpeg_quality(ph((1, 4, 4, 3), ds.uint8), 50)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match="image must have 1 or 3 channels"):
            sess.run(out, {two: np.zeros((4, 4, 2), np.uint8)})
