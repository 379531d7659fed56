"""``ds.image.sample_distorted_bounding_box`` (SampleDistortedBoundingBoxV2, and TF's
V1 op with ``min_object_covered`` as an attr): the constraints of TF's sampler over
many draws (the crop inside the image, its aspect ratio and area within range, covering
``min_object_covered`` of a box), the fallback to the whole image (TF 2.21's outputs,
``tests/data/make_tf_image_augment.py``), seeding (the same crops in a new session, new
ones each run), the inception-preprocessing pattern (``slice`` then resize), the
stand-in GPU, TF's errors, and not differentiable."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
import test_gpu_cupy_standin
from graph_building import ph

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU
SAMPLE_OPS = {"SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2"}
TF = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_image_augment.npz"))
BOX = np.array([[[0.2, 0.3, 0.7, 0.9]]], np.float32)      # rows 8..28, columns 15..45


def draws(sample, runs: int) -> list:
    with ds.Session() as sess:
        return [sess.run(sample) for _ in range(runs)]


def covered(begin, size, box, height, width) -> float:
    """The fraction of ``box`` (normalized) the crop covers, in pixels as TF counts."""
    y0, x0 = int(box[0] * np.float32(height)), int(box[1] * np.float32(width))
    y1, x1 = int(box[2] * np.float32(height)), int(box[3] * np.float32(width))
    rows = max(0, min(y1, begin[0] + size[0]) - max(y0, begin[0]))
    columns = max(0, min(x1, begin[1] + size[1]) - max(x0, begin[1]))
    return rows * columns / ((y1 - y0) * (x1 - x0))


@pytest.mark.parametrize("covered_at_least", [0.1, 0.5, 0.9])
def test_crops_keep_tf_s_constraints(graph, covered_at_least):
    height, width = 40, 50
    sample = ds.image.sample_distorted_bounding_box(
        [height, width, 3], BOX, seed=7, min_object_covered=covered_at_least,
        aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0))
    sizes = set()
    for begin, size, bboxes in draws(sample, 200):
        assert begin[2] == 0 and size[2] == -1
        assert 0 <= begin[0] and begin[0] + size[0] <= height
        assert 0 <= begin[1] and begin[1] + size[1] <= width
        area = size[0] * size[1] / (height * width)
        assert 0.05 - 1e-6 <= area <= 1.0
        # the width is rint(h * ratio): the ratio within range, up to the rounding
        assert 0.75 * size[0] - 0.5 <= size[1] <= 1.33 * size[0] + 0.5
        assert covered(begin, size, BOX[0, 0], height, width) >= covered_at_least
        np.testing.assert_allclose(bboxes[0, 0], [begin[0] / height, begin[1] / width,
                                                  (begin[0] + size[0]) / height,
                                                  (begin[1] + size[1]) / width], rtol=1e-6)
        sizes.add((int(size[0]), int(size[1]), int(begin[0]), int(begin[1])))
    assert len(sizes) > 50                               # the crops vary


def test_heights_and_offsets_spread_over_their_ranges(graph):
    sample = ds.image.sample_distorted_bounding_box(
        [100, 100, 1], BOX, seed=1, min_object_covered=0.0, aspect_ratio_range=(1, 1),
        area_range=(0.09, 0.81), use_image_if_no_bounding_boxes=True)
    got = np.array([np.concatenate([b[:2], s[:2]]) for b, s, _ in draws(sample, 400)])
    assert np.all(got[:, 2] == got[:, 3])                 # ratio 1: square crops
    assert got[:, 2].min() <= 32 and got[:, 2].max() >= 88   # heights 30..90
    assert np.all((got[:, 2] >= 30) & (got[:, 2] <= 90))
    assert got[:, 0].min() <= 3 and (got[:, 0] + got[:, 2]).max() >= 97


def test_the_whole_image_when_no_crop_fits(graph):
    fallback = ds.image.sample_distorted_bounding_box(
        [10, 12, 3], ds.zeros([1, 0, 4]), seed=3, aspect_ratio_range=[50, 60],
        use_image_if_no_bounding_boxes=True)
    for begin, size, bboxes in draws(fallback, 3):
        np.testing.assert_array_equal(begin, TF["sample/fallback/begin"])
        np.testing.assert_array_equal(size, TF["sample/fallback/size"])
        np.testing.assert_array_equal(bboxes, TF["sample/fallback/bboxes"])
    # covering all of a box no crop of this area range can cover: the whole image
    tiny = ds.image.sample_distorted_bounding_box(
        [40, 50, 3], [[[0.0, 0.0, 1.0, 1.0]]], seed=2, min_object_covered=1.0,
        area_range=(0.05, 0.5), max_attempts=20)
    for begin, size, _ in draws(tiny, 3):
        assert list(begin) == [0, 0, 0] and list(size) == [40, 50, -1]


def test_seeded_crops_repeat_in_a_new_session_and_change_each_run(graph):
    sample = ds.image.sample_distorted_bounding_box([64, 64, 3], BOX, seed=5, seed2=2)
    first, again = draws(sample, 6), draws(sample, 6)
    for (b1, s1, _), (b2, s2, _) in zip(first, again):
        np.testing.assert_array_equal(b1, b2)
        np.testing.assert_array_equal(s1, s2)
    assert len({tuple(b) + tuple(s) for b, s, _ in first}) > 1
    op = sample[0].op
    assert op.type == "SampleDistortedBoundingBoxV2"
    assert (op.get_attr("seed"), op.get_attr("seed2")) == (5, 2)


def test_graph_seed_makes_an_unseeded_sampler_repeatable():
    def crops():
        with ds.Graph().as_default():
            ds.set_random_seed(11)
            sample = ds.image.sample_distorted_bounding_box([64, 64, 3], BOX)
            return [(tuple(b), tuple(s)) for b, s, _ in draws(sample, 4)]
    assert crops() == crops()


def test_inception_preprocessing_slices_then_resizes(graph):
    image = ph((None, None, 3))
    begin, size, bbox = ds.image.sample_distorted_bounding_box(
        ds.shape(image), BOX, seed=4, min_object_covered=0.1,
        aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
        use_image_if_no_bounding_boxes=True)
    crop = ds.slice(image, begin, size)
    crop.set_shape([None, None, 3])                # as inception's, TF's slice knows none
    resized = ds.image.resize_images(ds.expand_dims(crop, 0), [24, 24])
    drawn = ds.image.draw_bounding_boxes(ds.expand_dims(image, 0), bbox)
    pixels = np.arange(40 * 50 * 3, dtype=np.float32).reshape(40, 50, 3)
    with ds.Session() as sess:
        for _ in range(5):
            got_begin, got_size, cut, out, _ = sess.run([begin, size, crop, resized, drawn],
                                                        {image: pixels})
            (y, x, _), (h, w, _) = got_begin, got_size
            np.testing.assert_array_equal(cut, pixels[y:y + h, x:x + w])
            assert out.shape == (1, 24, 24, 3)


def test_tf_s_v1_op_takes_min_object_covered_as_an_attr(graph):
    size, boxes = ds.constant([40, 50, 3], ds.int64), ds.constant(BOX)
    op = graph.create_op("SampleDistortedBoundingBox", [size, boxes],
                         {"seed": 1, "seed2": 3, "min_object_covered": 0.9})
    assert [t.dtype for t in op.outputs] == [ds.int64, ds.int64, ds.float32]
    assert [t.shape.as_list() for t in op.outputs] == [[3], [3], [1, 1, 4]]
    for begin, size, _ in draws(op.outputs, 50):
        assert begin.dtype == np.int64
        assert covered(begin, size, BOX[0, 0], 40, 50) >= 0.9


def test_the_stand_in_gpu_samples_the_cpus_crops(standin):
    def crops(device):
        with ds.Graph().as_default() as g:
            with ds.device(device):
                sample = ds.image.sample_distorted_bounding_box([64, 48, 3], BOX, seed=8)
        with ds.Session(graph=g, options=ds.SessionOptions(device=device)) as sess:
            return [sess.run(sample) for _ in range(4)]
    for on_gpu, on_cpu in zip(crops("gpu:0"), crops("cpu:0")):
        for a, b in zip(on_gpu, on_cpu):
            np.testing.assert_array_equal(a, b)


def test_not_differentiable(graph):
    boxes = ds.constant(BOX)
    _, _, bboxes = ds.image.sample_distorted_bounding_box([9, 9, 1], boxes, seed=1)
    assert ds.gradients(ds.reduce_sum(bboxes), boxes) == [None]


@pytest.mark.parametrize("call,error,message", [
    (lambda: ds.image.sample_distorted_bounding_box([9, 9], BOX), ValueError, "3 values"),
    (lambda: ds.image.sample_distorted_bounding_box([9, 9, 3], [[0.1, 0.1, 0.5, 0.5]]),
     ValueError, "3-D"),
    (lambda: ds.image.sample_distorted_bounding_box([9, 9, 3], ph((1, 2, 3))), ValueError,
     r"\[batch, N, 4\]"),
    (lambda: ds.image.sample_distorted_bounding_box(ds.constant([9.0, 9, 3]), BOX), TypeError,
     "image_size"),
    (lambda: ds.image.sample_distorted_bounding_box([9, 9, 3], BOX, area_range=[0.1]),
     ValueError, "area_range must hold 2 values"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_time_errors(graph, call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("kwargs,boxes,message", [
    ({}, np.zeros((1, 0, 4), np.float32), "No bounding boxes provided as input"),
    ({}, np.array([[[0.1, 0.1, 1.5, 0.5]]], np.float32),
     r"All bounding box coordinates must be in \[0.0, 1.0\]: 1.5"),
    ({"min_object_covered": -0.5}, BOX, "Min object covered must be non-negative: -0.5"),
    ({"area_range": (0.0, 1.0)}, BOX, r"Area range must be non-negative: \[0.0, 1.0\]"),
    ({"area_range": (0.1, 1.5)}, BOX, "Area range must be less then or equal to 1.0"),
    ({"aspect_ratio_range": (-1, 1)}, BOX, "Aspect ratio range must be non-negative"),
    ({"max_attempts": 0}, BOX, "Max attempts must be non-negative: 0"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_run_time_errors_name_the_node(graph, kwargs, boxes, message):
    boxes_in = ph((1, None, 4))
    _, size, _ = ds.image.sample_distorted_bounding_box([9, 9, 3], boxes_in, seed=1,
                                                        name="crop", **kwargs)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
            sess.run(size, {boxes_in: boxes})
    assert info.value.node_name == size.op.name
