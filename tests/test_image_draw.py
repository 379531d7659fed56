"""``ds.image.draw_bounding_boxes``: DrawBoundingBoxes (TF's default colour table) and
DrawBoundingBoxesV2 (given colours) against TensorFlow 2.21's images
(``tests/data/make_tf_image_boxes.py``: boxes partly outside, inverted and one pixel
wide; RGB, grey and RGBA images), on the host and the GPU (through the host), float16,
static shapes and TF's errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from graph_building import ph
from kernel_cases import DEVICES, F32, make_node, run_on

DRAW_OPS = {"DrawBoundingBoxes", "DrawBoundingBoxesV2"}
TF = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_image_boxes.npz"))
IMAGES, BOXES, COLORS = TF["in/draw/in"], TF["in/draw/boxes"], TF["in/draw/colors"]
ALL_DEVICES = [pytest.param("REF", id="ref"), *DEVICES]
RGBA = np.concatenate([IMAGES, IMAGES[..., :1]], -1)


def draw_node(colors=False, dtype=F32, name="draw"):
    if colors:
        return make_node("DrawBoundingBoxesV2", [dtype, F32, F32], dtype, name=name)
    return make_node("DrawBoundingBoxes", [dtype, F32], dtype, name=name)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_draws_as_tf(device):
    np.testing.assert_array_equal(run_on(device, draw_node(), IMAGES, BOXES), TF["draw/default"])
    np.testing.assert_array_equal(run_on(device, draw_node(True), IMAGES, BOXES, COLORS),
                                  TF["draw/colors"])
    np.testing.assert_array_equal(run_on(device, draw_node(), IMAGES[..., :1], BOXES),
                                  TF["draw/gray"])
    np.testing.assert_array_equal(run_on(device, draw_node(True), RGBA, BOXES, COLORS[:1]),
                                  TF["draw/rgba"])
    # an empty colour table is the default one; float16 images keep their dtype
    empty = np.zeros((0, 4), F32)
    np.testing.assert_array_equal(run_on(device, draw_node(True), IMAGES, BOXES, empty),
                                  TF["draw/default"])
    half = run_on(device, draw_node(dtype=np.float16), IMAGES.astype(np.float16), BOXES)
    assert half.dtype == np.float16
    np.testing.assert_array_equal(half, TF["draw/default"].astype(np.float16))


def test_draw_bounding_boxes_in_a_graph(graph):
    images = ds.constant(IMAGES)
    plain = ds.image.draw_bounding_boxes(images, BOXES)
    colored = ds.image.draw_bounding_boxes(images, BOXES, colors=COLORS)
    assert plain.op.type == "DrawBoundingBoxes" and colored.op.type == "DrawBoundingBoxesV2"
    assert plain.shape.as_list() == [2, 6, 7, 3] and plain.dtype == ds.float32
    assert ds.gradients(ds.reduce_sum(plain), images) == [None]
    with ds.Session() as sess:
        got = sess.run([plain, colored])
    np.testing.assert_array_equal(got[0], TF["draw/default"])
    np.testing.assert_array_equal(got[1], TF["draw/colors"])


@pytest.mark.parametrize("call,error,message", [
    (lambda: ds.image.draw_bounding_boxes(ph((6, 7, 3)), ph((1, 2, 4))), ValueError, "4-D"),
    (lambda: ds.image.draw_bounding_boxes(ph((1, 6, 7, 2)), ph((1, 2, 4))), ValueError,
     "Channel depth"),
    (lambda: ds.image.draw_bounding_boxes(ph((1, 6, 7, 3)), ph((2, 4))), ValueError, "3-D"),
    (lambda: ds.image.draw_bounding_boxes(ph((1, 6, 7, 3), ds.uint8), ph((1, 2, 4))),
     TypeError, "float32 or float16"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_time_errors(graph, call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("node,inputs,message", [
    (draw_node(), (IMAGES[..., :2], BOXES), "Channel depth should be either 1"),
    (draw_node(), (IMAGES, BOXES[..., :3]), r"boxes must be 3-D \[batch, num_boxes, 4\]"),
    (draw_node(), (IMAGES, BOXES[:1]), "the images' batch"),
    (draw_node(True), (RGBA, BOXES, COLORS[:, :3]), "equal or more channels"),
    (draw_node(True), (IMAGES, BOXES, COLORS[0]), "colors must be a 2-D matrix"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_run_time_errors_name_the_node(device, node, inputs, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on(device, node, *inputs)
    assert info.value.node_name == "draw"
