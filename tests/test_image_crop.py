"""``ds.image.crop_and_resize``: CropAndResize and its gradient ops CropAndResizeGradImage
and CropAndResizeGradBoxes, the reference against TensorFlow 2.21's values
(``tests/data/make_tf_image_boxes.py``: boxes inside, partly outside, flipped and of one
point; crops of 1x1; bilinear and nearest; an extrapolation value; uint8 and float64
images; both gradients), every device (``kernel_cases.DEVICES``, the stand-in GPU
included) against the reference, gradients against finite differences, shapes and errors.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient
from graph_building import ph
from kernel_cases import DEVICES, F32, F64, I32, check_against_ref, make_node, run_on

CROP_OPS = {"CropAndResize", "CropAndResizeGradImage", "CropAndResizeGradBoxes"}
TF = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_image_boxes.npz"))
IMAGE, BOXES, BOX_IND = TF["in/crop/image"], TF["in/crop/boxes"], TF["in/crop/box_ind"]
GRAD_BOXES, GRAD_IND = TF["in/crop/grad_boxes"], TF["in/crop/grad_ind"]
ALL_DEVICES = [pytest.param("REF", id="ref"), *DEVICES]


def crop_node(dtype=F32, method="bilinear", extrapolation=0.0, name="crop"):
    return make_node("CropAndResize", [dtype, F32, I32, I32], F32,
                     {"method": method, "extrapolation_value": extrapolation}, name=name)


def grad_image_node(dtype=F32, method="bilinear", name="gi"):
    return make_node("CropAndResizeGradImage", [F32, F32, I32, I32], dtype,
                     {"method": method, "T": ds.as_dtype(dtype)}, name=name)


def grad_boxes_node(dtype=F32, name="gb"):
    return make_node("CropAndResizeGradBoxes", [F32, dtype, F32, I32], F32,
                     {"method": "bilinear"}, name=name)


def hw(*values):
    return np.array(values, np.int32)


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(3, 4), (1, 1), (7, 5)], ids=str)
@pytest.mark.parametrize("extra", [0.0, -1.5], ids=str)
def test_crops_as_tf(device, method, size, extra):
    got = run_on(device, crop_node(F32, method, extra), IMAGE, BOXES, BOX_IND, hw(*size))
    np.testing.assert_array_equal(got, TF[f"crop/{method}_{size[0]}x{size[1]}_{extra}"])


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_integer_and_double_images_as_tf(device):
    pixels = (IMAGE * 50 + 100).astype(np.uint8)
    got = run_on(device, crop_node(np.dtype(np.uint8)), pixels, BOXES, BOX_IND, hw(3, 4))
    np.testing.assert_array_equal(got, TF["crop/u8"])
    got = run_on(device, crop_node(F64, "nearest"), IMAGE.astype(F64), BOXES, BOX_IND,
                 hw(4, 3))
    np.testing.assert_array_equal(got, TF["crop/f64"])


def test_gradients_as_tf():
    image, boxes = ds.constant(IMAGE), ds.constant(GRAD_BOXES)
    weights = TF["in/crop/grad_weights"]
    crops = ds.image.crop_and_resize(image, boxes, GRAD_IND, (4, 5))
    one = ds.image.crop_and_resize(image, boxes, GRAD_IND, (1, 1))
    grads = ds.gradients(ds.reduce_sum(crops * weights), [image, boxes])
    grads_one = ds.gradients(ds.reduce_sum(one * weights[:, :1, :1]), [image, boxes])
    assert grads[0].op.type == "CropAndResizeGradImage"
    assert grads[1].op.type == "CropAndResizeGradBoxes"
    with ds.Session() as sess:
        got = sess.run(grads + grads_one)
    keys = ["crop/grad_image", "crop/grad_boxes_out", "crop/grad_image_1x1",
            "crop/grad_boxes_1x1"]
    for value, key in zip(got, keys):
        np.testing.assert_allclose(value, TF[key], rtol=1e-5, atol=1e-5, err_msg=key)
    ref = [run_on("REF", grad_image_node(), np.broadcast_to(weights, (3, 4, 5, 3)).copy(),
                  GRAD_BOXES, GRAD_IND, hw(*IMAGE.shape)),
           run_on("REF", grad_boxes_node(), weights, IMAGE, GRAD_BOXES, GRAD_IND)]
    np.testing.assert_array_equal(ref[0], TF["crop/grad_image"])      # TF's order: exact
    np.testing.assert_array_equal(ref[1], TF["crop/grad_boxes_out"])


CASES = [((2, 5, 6, 3), 5, (3, 4)), ((1, 1, 1, 1), 2, (2, 2)), ((3, 7, 4, 2), 6, (1, 5)),
         ((1, 13, 11, 3), 4, (16, 9)), ((2, 4, 4, 1), 0, (3, 3))]


def boxes_of(rng, count, batch):
    boxes = rng.uniform(-0.3, 1.3, (count, 4)).astype(F32)
    boxes[:count // 2] = np.sort(rng.uniform(0, 1, (count // 2, 4)), axis=1).astype(F32)
    return boxes, rng.integers(0, batch, count).astype(np.int32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape,count,size", CASES, ids=str)
@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_kernels_against_the_reference(device, shape, count, size, method):
    rng = np.random.default_rng(sum(shape) + count)
    image = rng.normal(0, 3, shape).astype(F32)
    boxes, index = boxes_of(rng, count, shape[0])
    crops = check_against_ref(device, crop_node(F32, method, 0.5), image, boxes, index,
                              hw(*size), rtol=0, atol=0)
    assert crops.shape == (count, *size, shape[3])
    grads = rng.normal(0, 1, crops.shape).astype(F32)
    for dtype in (F32, F64):
        check_against_ref(device, grad_image_node(dtype, method), grads, boxes, index,
                          hw(*shape), rtol=1e-5, atol=1e-5)
    check_against_ref(device, grad_boxes_node(), grads, image, boxes, index, rtol=1e-4,
                      atol=1e-3)


def test_gradients_against_finite_differences():
    rng = np.random.default_rng(7)
    image = rng.normal(0, 1, (2, 6, 5, 2))
    boxes = np.array([[0.1, 0.15, 0.77, 0.81], [0.33, 0.05, 0.91, 0.62]], F64)
    # float32 crops, linear in the image: a wide step (only rounding limits it)
    for method in ("bilinear", "nearest"):
        check_op_gradient(lambda x: ds.image.crop_and_resize(x, boxes.astype(F32), [1, 0],
                                                             [3, 4], method),
                          [image], eps=0.25, rtol=1e-4, atol=1e-4)
    # the boxes' gradient: float32 boxes, so a wide step and loose tolerances
    check_op_gradient(lambda b: ds.image.crop_and_resize(image.astype(F32), b, [1, 0],
                                                         [3, 4]),
                      [boxes.astype(F32)], eps=1e-3, rtol=2e-2, atol=2e-2)


def test_static_shapes_and_gradient_registrations(graph):
    from devsession.ops.registry import get_gradient

    crops = ds.image.crop_and_resize(ph((None, 8, 8, 3)), ph((None, 4)), ph((None,), ds.int32),
                                     [5, 6])
    assert crops.shape.as_list() == [None, 5, 6, 3] and crops.dtype == ds.float32
    assert crops.op.attrs["method"] == "bilinear"
    pixels = ds.image.crop_and_resize(ph((1, 8, 8, 3), ds.uint8), ph((2, 4)),
                                      ph((2,), ds.int32), [2, 2], "nearest")
    grads = get_gradient("CropAndResize")(pixels.op, pixels)
    assert grads[0] is None and grads[1].op.type == "CropAndResizeGradBoxes"
    assert grads[2:] == [None, None]
    for no_gradient in ("CropAndResizeGradImage", "CropAndResizeGradBoxes"):
        with pytest.raises(LookupError):                # TF registers none
            get_gradient(no_gradient)


def test_box_indices_is_box_inds_newer_name():
    """TF1's crop_and_resize(image, boxes, box_ind=None, crop_size=None, ...,
    box_indices=None): either name, by keyword, gives the same crops."""
    index = np.array([1, 0, 1, 1, 0], np.int32)
    by_old = ds.image.crop_and_resize(IMAGE, BOXES, index, [3, 4])
    by_new = ds.image.crop_and_resize(IMAGE, BOXES, crop_size=[3, 4], box_indices=index,
                                      method="nearest", extrapolation_value=-1.0)
    with ds.Session() as sess:
        old, new = sess.run([by_old, by_new])
    np.testing.assert_array_equal(old, run_on("REF", crop_node(), IMAGE, BOXES, index, hw(3, 4)))
    np.testing.assert_array_equal(
        new, run_on("REF", crop_node(F32, "nearest", -1.0), IMAGE, BOXES, index, hw(3, 4)))
    with pytest.raises(ValueError, match="Cannot specify both 'box_ind' and 'box_indices'"):
        ds.image.crop_and_resize(IMAGE, BOXES, index, [3, 4], box_indices=index)


@pytest.mark.parametrize("call,error,message", [
    (lambda: ds.image.crop_and_resize(ph((2, 8, 3)), ph((1, 4)), [0], [2, 2]), ValueError,
     "4-D"),
    (lambda: ds.image.crop_and_resize(ph((1, 8, 8, 3)), ph((1, 3)), [0], [2, 2]), ValueError,
     "4 columns"),
    (lambda: ds.image.crop_and_resize(ph((1, 8, 8, 3)), ph((2, 4)), [0], [2, 2]), ValueError,
     "one index per box"),
    (lambda: ds.image.crop_and_resize(ph((1, 8, 8, 3)), ph((1, 4)), [0], [2, -4]), ValueError,
     "Dimension -4 must be >= 0$"),
    (lambda: ds.image.crop_and_resize(ph((1, 8, 8, 3)), ph((1, 4)), [0], [2, 2], "bicubic"),
     ValueError, "bilinear"),
    (lambda: ds.image.crop_and_resize(ph((1, 8, 8, 3), ds.bool_), ph((1, 4)), [0], [2, 2]),
     TypeError, "dtype bool"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_time_errors(graph, call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_crop_size_that_is_not_positive_builds_and_fails_when_run(graph):
    """As TF's shape function: 0 is a dimension of 0, -1 an unknown one; the kernel's
    InvalidArgumentError when the op runs."""
    crops = [ds.image.crop_and_resize(IMAGE, BOXES, BOX_IND, size) for size in ([0, 2], [3, -1])]
    assert [c.shape.as_list() for c in crops] == [[len(BOXES), 0, 2, 3], [len(BOXES), 3, None, 3]]
    with ds.Session() as sess:
        for c in crops:
            with pytest.raises(ds.errors.InvalidArgumentError, match="crop dimensions must be"):
                sess.run(c)


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("inputs,message", [
    ((IMAGE, BOXES, BOX_IND, hw(0, 2)), "crop dimensions must be positive"),
    ((IMAGE[0], BOXES, BOX_IND, hw(2, 2)), r"input image must be 4-D\[5,6,3\]"),
    ((IMAGE, BOXES[:, :3], BOX_IND, hw(2, 2)), "boxes must have 4 columns"),
    ((IMAGE, BOXES, BOX_IND[:3], hw(2, 2)), "box_index has incompatible shape"),
    ((IMAGE, BOXES, BOX_IND, hw(2, 2, 2)), "crop_size must have two elements"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_run_time_errors_name_the_node(device, inputs, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on(device, crop_node(), *inputs)
    assert info.value.node_name == "crop"


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("bad", [[0, 1, 2, 0, 1], [0, -1, 0, 0, 1]], ids=["past", "negative"])
def test_box_index_outside_the_batch_is_out_of_range_on_every_op(device, bad):
    """TF's RunIfBoxIndexIsValid: OutOfRangeError (not InvalidArgumentError), all three ops."""
    index = np.array(bad, np.int32)
    grads = np.ones((5, 2, 2, 3), np.float32)
    for node, inputs in [(crop_node(), (IMAGE, BOXES, index, hw(2, 2))),
                         (grad_image_node(), (grads, BOXES, index, np.array(IMAGE.shape, np.int32))),
                         (grad_boxes_node(), (grads, IMAGE, BOXES, index))]:
        with pytest.raises(ds.errors.OutOfRangeError,
                           match=r"box_index has values outside \[0, batch_size\)") as info:
            run_on(device, node, *inputs)
        assert info.value.node_name == node.name
