"""``ds.image.resize_bicubic`` / ``resize_area`` (ResizeBicubic, ResizeBicubicGrad,
ResizeArea), ``resize_images`` with BICUBIC and AREA and ``resize_image_with_pad``: the
reference and every device (``kernel_cases.DEVICES``, the stand-in GPU included)
against TensorFlow 2.21's values (``tests/data/make_tf_image_boxes.py``: legacy,
align_corners and half_pixel_centers sampling, up and down, 1x1, uint8 and float64
inputs, the bicubic gradient), the devices against the reference on other shapes, the
gradient against finite differences, static shapes and TF's errors.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient
from graph_building import ph
from kernel_cases import DEVICES, F32, F64, I32, check_against_ref, make_node, run_on

RESAMPLE_OPS = {"ResizeBicubic", "ResizeBicubicGrad", "ResizeArea"}
TF = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_image_boxes.npz"))
SMALL, AREA_IN, U8 = TF["in/resize/small"], TF["in/resize/area_in"], TF["in/resize/u8"]
ALL_DEVICES = [pytest.param("REF", id="ref"), *DEVICES]
FLAGS = {"legacy": (False, False), "align": (True, False), "half": (False, True)}
SIZES = [(7, 9), (3, 2), (4, 5), (1, 1), (2, 8)]


def bicubic_node(tag="legacy", dtype=F32, name="bicubic"):
    align, half = FLAGS[tag]
    return make_node("ResizeBicubic", [dtype, I32], F32,
                     {"align_corners": align, "half_pixel_centers": half}, name=name)


def bicubic_grad_node(tag="legacy", dtype=F32, name="bicubic_grad"):
    align, half = FLAGS[tag]
    return make_node("ResizeBicubicGrad", [F32, dtype], dtype,
                     {"align_corners": align, "half_pixel_centers": half}, name=name)


def area_node(align=False, dtype=F32, name="area"):
    return make_node("ResizeArea", [dtype, I32], F32, {"align_corners": align}, name=name)


def hw(*values):
    return np.array(values, np.int32)


# --- against TensorFlow -----------------------------------------------------------------------

@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("tag", FLAGS)
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_bicubic_as_tf(device, tag, size):
    key = f"bicubic/{tag}_{size[0]}x{size[1]}"
    np.testing.assert_array_equal(run_on(device, bicubic_node(tag), SMALL, hw(*size)), TF[key])
    grads = run_on(device, bicubic_grad_node(tag), TF[f"in/{key}/w"], SMALL)
    if device == "REF":                   # TF's scatter order: exact
        np.testing.assert_array_equal(grads, TF[f"{key}/grad"])
    np.testing.assert_allclose(grads, TF[f"{key}/grad"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("tag", FLAGS)
def test_bicubic_of_uint8_as_tf(device, tag):
    got = run_on(device, bicubic_node(tag, np.uint8), U8, hw(3, 10))
    np.testing.assert_array_equal(got, TF[f"bicubic/{tag}_u8"])


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [(3, 4), (7, 9), (2, 3), (5, 7), (1, 1), (10, 3)], ids=str)
def test_area_as_tf(device, align, size):
    got = run_on(device, area_node(align), AREA_IN, hw(*size))
    np.testing.assert_array_equal(got, TF[f"area/{align}_{size[0]}x{size[1]}"])


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("align", [False, True])
def test_area_of_uint8_and_float64_as_tf(device, align):
    got = run_on(device, area_node(align, np.uint8), U8, hw(3, 4))
    np.testing.assert_array_equal(got, TF[f"area/{align}_u8"])
    got = run_on(device, area_node(align, F64), AREA_IN.astype(F64), hw(4, 6))
    np.testing.assert_array_equal(got, TF[f"area/{align}_f64"])


def test_bicubic_gradient_in_a_graph_as_tf():
    small = ds.constant(SMALL)
    ups, grads = [], []
    for tag, (align, half) in FLAGS.items():
        up = ds.image.resize_bicubic(small, [7, 9], align_corners=align,
                                     half_pixel_centers=half)
        ups.append(up)
        grads.append(ds.gradients(ds.reduce_sum(up * TF[f"in/bicubic/{tag}_7x9/w"]),
                                  small)[0])
    assert grads[0].op.type == "ResizeBicubicGrad"
    with ds.Session() as sess:
        got = sess.run(ups + grads)
    for k, tag in enumerate(FLAGS):
        np.testing.assert_array_equal(got[k], TF[f"bicubic/{tag}_7x9"])
        np.testing.assert_allclose(got[3 + k], TF[f"bicubic/{tag}_7x9/grad"], rtol=1e-6,
                                   atol=1e-6)


def test_resize_images_bicubic_and_area_as_tf():
    method = ds.image.ResizeMethod
    small = ds.constant(SMALL)
    outs = {"bicubic": ds.image.resize_images(small, (7, 3), method.BICUBIC),
            "area": ds.image.resize_images(small, (3, 3), method.AREA),
            "bicubic_3d_align": ds.image.resize_images(small[0], (6, 6), method.BICUBIC,
                                                       align_corners=True)}
    assert outs["bicubic"].op.type == "ResizeBicubic" and outs["area"].op.type == "ResizeArea"
    assert outs["bicubic_3d_align"].shape.as_list() == [6, 6, 2]
    assert ds.image.resize_images(small, (4, 5), "area") is small     # TF1's shortcut
    with ds.Session() as sess:
        got = sess.run(outs)
    for key, value in got.items():
        np.testing.assert_array_equal(value, TF[f"resize_images/{key}"], err_msg=key)


# --- devices against the reference ------------------------------------------------------------

CASES = [((2, 5, 6, 3), (9, 4)), ((1, 1, 1, 1), (3, 2)), ((3, 7, 4, 2), (1, 5)),
         ((1, 13, 11, 3), (16, 9)), ((0, 4, 4, 1), (3, 3)), ((1, 3, 17, 2), (2, 3))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape,size", CASES, ids=str)
@pytest.mark.parametrize("tag", FLAGS)
def test_kernels_against_the_reference(device, shape, size, tag):
    rng = np.random.default_rng(sum(shape) + sum(size))
    image = rng.normal(0, 3, shape).astype(F32)
    up = check_against_ref(device, bicubic_node(tag), image, hw(*size), rtol=0, atol=0)
    assert up.shape == (shape[0], *size, shape[3])
    grads = rng.normal(0, 1, up.shape).astype(F32)
    for dtype in (F32, F64):
        check_against_ref(device, bicubic_grad_node(tag, dtype), grads, image.astype(dtype),
                          rtol=1e-5, atol=1e-5)
    check_against_ref(device, area_node(tag == "align"), image, hw(*size), rtol=0, atol=0)
    check_against_ref(device, area_node(tag == "align", np.int16),
                      (image * 100).astype(np.int16), hw(*size), rtol=0, atol=0)


def test_bicubic_gradient_against_finite_differences():
    rng = np.random.default_rng(11)
    image = rng.normal(0, 1, (2, 5, 4, 2))
    for align, half in FLAGS.values():
        # float32 output, linear in the image: a wide step (only rounding limits it)
        check_op_gradient(lambda x: ds.image.resize_bicubic(x, [7, 3], align, None, half),
                          [image], eps=0.25, rtol=1e-4, atol=1e-4)
    check_op_gradient(lambda x: ds.image.resize_bicubic(ds.cast(x, ds.float32), [3, 6]),
                      [image.astype(F32)], eps=0.25, rtol=1e-4, atol=1e-4)


def test_static_shapes_and_gradient_registrations(graph):
    from devsession.ops.registry import get_gradient

    up = ds.image.resize_bicubic(ph((None, 8, 8, 3), ds.uint8), [5, 6])
    assert up.shape.as_list() == [None, 5, 6, 3] and up.dtype == ds.float32
    assert get_gradient("ResizeBicubic")(up.op, up) == [None, None]   # integer images
    area = ds.image.resize_area(ph((2, 8, 8, 1)), ph((2,), ds.int32), align_corners=True)
    assert area.shape.as_list() == [2, None, None, 1] and area.op.get_attr("align_corners")
    for no_gradient in ("ResizeArea", "ResizeBicubicGrad"):     # TF registers none
        with pytest.raises(LookupError):
            get_gradient(no_gradient)
    x = ds.ones([1, 4, 4, 1])
    with pytest.raises(LookupError, match="ResizeArea"):
        ds.gradients(ds.image.resize_area(x, [2, 2]), x)
    image = ph((1, 4, 4, 2), ds.float64)
    back = get_gradient("ResizeBicubic")(ds.image.resize_bicubic(image, [3, 3]).op,
                                         ph((1, 3, 3, 2)))[0]
    assert back.op.type == "ResizeBicubicGrad" and back.dtype == ds.float64
    assert back.shape.as_list() == [1, 4, 4, 2]


@pytest.mark.parametrize("call,error,message", [
    (lambda: ds.image.resize_bicubic(ph((3, 4, 1)), [2, 2]), ValueError, "must be 4-D"),
    (lambda: ds.image.resize_area(ph((1, 3, 4, 1)), [-3, 2]), ValueError, "-3 must be >= 0$"),
    (lambda: ds.image.resize_area(ph((1, 3, 4, 1), ds.bool_), [2, 2]), TypeError,
     "dtype bool"),
    (lambda: ds.image.resize_bicubic(ph((1, 3, 4, 1)), ph((2,), ds.int64)), TypeError,
     "int32"),
    (lambda: ds.image.resize_images(ph((2, 2, 1)), [2, 2], method=7), ValueError,
     "not implemented: 7"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_time_errors(graph, call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_both_sampling_flags_build_and_fail_when_run():
    """As TF: ResizeBicubic and its gradient with align_corners and half_pixel_centers build
    (TF's kernels, not its shape functions, refuse them) and raise InvalidArgumentError."""
    image = ds.placeholder(ds.float32, (1, 4, 5, 2), name="image")
    up = ds.image.resize_bicubic(image, [7, 9], align_corners=True, half_pixel_centers=True,
                                 name="up")
    (back,) = ds.gradients(ds.reduce_sum(up), [image])
    assert up.shape.as_list() == [1, 7, 9, 2] and back.shape.as_list() == [1, 4, 5, 2]
    with ds.Session() as sess:
        for fetch in (up, back):
            with pytest.raises(ds.errors.InvalidArgumentError,
                               match="If half_pixel_centers is True, align_corners"):
                sess.run(fetch, {image: SMALL[:1]})


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("node,inputs,message", [
    (bicubic_node(), (SMALL[0], hw(2, 2)), r"input must be 4-dimensional\[4,5,2\]"),
    (bicubic_node(), (SMALL, hw(2, 0)), "output dimensions must be positive"),
    (area_node(), (SMALL, hw(2, 2, 2)), "shape_t must have two elements"),
    (area_node(), (SMALL[:, :0], hw(2, 2)), "input image must be of non-zero size"),
    (bicubic_grad_node(), (SMALL, SMALL[..., :1]), "same batch size and channels"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_run_time_errors_name_the_node(device, node, inputs, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on(device, node, *inputs)
    assert info.value.node_name == node.name


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_area_of_a_single_row_with_align_corners_as_tf(device):
    # TF 2.21 stretches a side of one pixel as without align_corners (whose scale is 0)
    got = run_on(device, area_node(True), np.full((1, 1, 1, 1), 2, F32), hw(3, 2))
    want = np.array([2, 2, 2, 2, 1.9999999, 1.9999999], F32).reshape(1, 3, 2, 1)
    np.testing.assert_array_equal(got, want)


# --- resize_image_with_pad --------------------------------------------------------------------

PAD_IN = TF["in/pad/in"]


def test_resize_image_with_pad_as_tf():
    sizes = ((5, 5), (8, 3), (4, 6), (9, 13), (2, 2))
    image = ds.constant(PAD_IN)
    outs = {f"{h}x{w}": ds.image.resize_image_with_pad(image, h, w) for h, w in sizes}
    outs["nearest_4d"] = ds.image.resize_image_with_pad(image[None], 7, 7,
                                                        ds.image.ResizeMethod.NEAREST_NEIGHBOR)
    for h, w in sizes:
        assert outs[f"{h}x{w}"].shape.as_list() == [h, w, 1]
    assert outs["nearest_4d"].shape.as_list() == [1, 7, 7, 1]
    fed = ds.placeholder(ds.float32, (None, None, 1))
    target = ds.placeholder(ds.int32, ()), ds.placeholder(ds.int32, ())
    dynamic = ds.image.resize_image_with_pad(fed, *target)
    with ds.Session() as sess:
        got = sess.run(outs)
        got["dynamic"] = sess.run(dynamic, {fed: PAD_IN, target[0]: 9, target[1]: 13})
    for key, value in got.items():
        np.testing.assert_array_equal(value, TF[f"pad/{key if key != 'dynamic' else '9x13'}"],
                                      err_msg=key)


def test_resize_image_with_pad_of_a_size_known_at_run_time_divides_as_tfs_grappler():
    """A constant target divides as TF's session does, by a product with the float32
    reciprocal (5 * (1/6) = 0.8333334): a 5x5 image fitted to 6x6 is 5x5 (floor of
    5.9999995) padded, as TF 2.21 gives; fed targets divide (6x6, as the static shape)."""
    image = np.arange(75, dtype=np.float32).reshape(5, 5, 3)
    fed = ds.placeholder(ds.float32, (None, None, 3))
    size = ds.placeholder(ds.int32, ()), ds.placeholder(ds.int32, ())
    by_constant = ds.image.resize_image_with_pad(fed, 6, 6)
    by_feed = ds.image.resize_image_with_pad(fed, *size)
    static = ds.image.resize_image_with_pad(ds.constant(image), 6, 6)
    with ds.Session() as sess:
        got = sess.run(by_constant, {fed: image})
        fed_size = sess.run(by_feed, {fed: image, size[0]: 6, size[1]: 6})
        np.testing.assert_array_equal(fed_size, sess.run(static))
    np.testing.assert_array_equal(got, np.pad(image, ((0, 1), (0, 1), (0, 0))))
    assert fed_size[0, :, 0].tolist() == [0.0, 2.5, 5.0, 7.5, 10.0, 12.0]


def test_resize_image_with_pad_errors(graph):
    with pytest.raises(ValueError, match="target_width must be > 0"):
        ds.image.resize_image_with_pad(ph((4, 6, 1)), 3, 0)
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        ds.image.resize_image_with_pad(ph((4, 6)), 3, 3)
    with pytest.raises(ValueError, match="inner 3 dims"):
        ds.image.resize_image_with_pad(ph((4, 0, 1)), 3, 3)
    fed, image = ds.placeholder(ds.int32, ()), ph((4, 6, 1))
    padded = ds.image.resize_image_with_pad(image, fed, 3)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="target_height must be > 0"):
            sess.run(padded, {fed: 0, image: PAD_IN})
