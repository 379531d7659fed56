"""``ds.image``: the resize ops (ResizeBilinear, ResizeNearestNeighbor and their gradient
ops) on every device (``kernel_cases.DEVICES``) against the reference kernels, and the
reference against values TensorFlow 2.21 computed; static shapes, build-time and
run-time errors naming the node; sessions on the CPU and the stand-in GPU; gradients
against finite differences; GraphDefs in TF's form; and the ``tf.image`` composites
(flips, crops, pads, dtype conversion, brightness, contrast, standardization,
grayscale) against TF 2.21's values, the random ones by their distribution, shapes and
seeded determinism.

Every literal marked "TF 2.21" below was computed by TensorFlow 2.21 (``tf.compat.v1``,
graph mode) on the inputs beside it; TensorFlow is not needed to run these tests.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.image import resize_bilinear_grad, resize_nearest_neighbor_grad
from gradient_check import check_op_gradient
from graph_building import ph
from kernel_cases import (DEVICES, F16, F32, F64, I32, I64, assert_same, check_against_ref,
                          make_node, random_array, rng_for, run_on)
import test_gpu_cupy_standin
from test_tf_graphdef import add_node, placeholder, run_imported, tf_const

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU

IMAGE_OPS = {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBilinearGrad",
             "ResizeNearestNeighborGrad"}
U8, I8, U16, I16 = (np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16))
FLAGS = [(False, False), (True, False), (False, True)]
FLAG_IDS = ["legacy", "align_corners", "half_pixel"]


def attrs(align=False, half=False) -> dict:
    return {"align_corners": align, "half_pixel_centers": half}


def resize_node(op, dtype, align=False, half=False, name=None):
    out = F32 if op == "ResizeBilinear" else dtype
    return make_node(op, [dtype, I32], out, attrs(align, half), name=name)


def bilinear_grad_node(dtype, align=False, half=False, name=None):
    return make_node("ResizeBilinearGrad", [F32, dtype], dtype, attrs(align, half), name=name)


def nearest_grad_node(dtype, align=False, half=False, name=None):
    return make_node("ResizeNearestNeighborGrad", [dtype, I32], dtype, attrs(align, half),
                     name=name)


def size(*hw) -> np.ndarray:
    return np.array(hw, np.int32)


# --- the reference against TF 2.21 ------------------------------------------------------------

X23 = np.array([[1, 2, 4], [8, 16, 32]], np.float32).reshape(1, 2, 3, 1)
X55 = np.arange(1, 26, dtype=np.int32).reshape(1, 5, 5, 1)
G35 = np.arange(1, 16, dtype=np.float32).reshape(1, 3, 5, 1)

# TF 2.21: ResizeBilinear(X23, [3, 5]) for each flag setting (legacy, align, half pixel)
TF_BILINEAR_UP = {
    (False, False): [[1.0, 1.600000023841858, 2.4000000953674316, 3.6000001430511475, 4.0],
                     [5.6666669845581055, 9.066666603088379, 13.600000381469727,
                      20.400001525878906, 22.666667938232422],
                     [8.0, 12.800000190734863, 19.200000762939453, 28.80000114440918, 32.0]],
    (True, False): [[1.0, 1.5, 2.0, 3.0, 4.0], [4.5, 6.75, 9.0, 13.5, 18.0],
                    [8.0, 12.0, 16.0, 24.0, 32.0]],
    (False, True): [[1.0, 1.4000000953674316, 2.0, 3.200000286102295, 4.0],
                    [4.5, 6.3000006675720215, 9.0, 14.400001525878906, 18.0],
                    [8.0, 11.200000762939453, 16.0, 25.60000228881836, 32.0]],
}
# TF 2.21: ResizeNearestNeighbor(X23, [3, 5])
TF_NEAREST_UP = {
    (False, False): [[1, 1, 2, 2, 4], [1, 1, 2, 2, 4], [8, 8, 16, 16, 32]],
    (True, False): [[1, 2, 2, 4, 4], [8, 16, 16, 32, 32], [8, 16, 16, 32, 32]],
    (False, True): [[1, 1, 2, 4, 4], [8, 8, 16, 32, 32], [8, 8, 16, 32, 32]],
}
# TF 2.21: ResizeNearestNeighbor(X55 int32, [2, 3]) and ResizeBilinear(X55 as uint8, [2, 3])
TF_NEAREST_DOWN = {(False, False): [[1, 2, 4], [11, 12, 14]],
                   (True, False): [[1, 3, 5], [21, 23, 25]],
                   (False, True): [[6, 8, 10], [16, 18, 20]]}
TF_BILINEAR_DOWN = {
    (False, False): [[1.0, 2.6666665077209473, 4.3333330154418945],
                     [13.5, 15.166666030883789, 16.83333396911621]],
    (True, False): [[1.0, 3.0, 5.0], [21.0, 23.0, 25.0]],
    (False, True): [[5.0833330154418945, 6.75, 8.416666030883789],
                    [17.58333396911621, 19.25, 20.91666603088379]],
}
# TF 2.21: ResizeBilinearGrad(G35, original_image=X23 as float64) and
# ResizeNearestNeighborGrad(G35 as int32, size=[2, 3])
TF_BILINEAR_GRAD = {
    (False, False): [[4.733333051204681, 8.533332288265228, 15.066666960716248],
                     [21.666666388511658, 28.666664600372314, 41.33333522081375]],
    (True, False): [[6.75, 14.0, 14.25], [21.75, 34.0, 29.25]],
    (False, True): [[7.29999990016222, 12.599998787045479, 15.100001469254494],
                    [23.299999922513962, 30.59999769926071, 31.100003838539124]],
}
TF_NEAREST_GRAD = {(False, False): [[16, 24, 15], [23, 27, 15]],
                   (True, False): [[1, 5, 9], [17, 40, 48]],
                   (False, True): [[3, 3, 9], [36, 21, 48]]}


@pytest.mark.parametrize("device", [pytest.param("REF", id="ref"), *DEVICES])
@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_tf_values(device, flags):
    def run(node, *inputs):
        return run_on(device, node, *inputs)[0, :, :, 0]

    up = run(resize_node("ResizeBilinear", F32, *flags), X23, size(3, 5))
    np.testing.assert_array_equal(up, np.array(TF_BILINEAR_UP[flags], np.float32))
    nearest = run(resize_node("ResizeNearestNeighbor", F32, *flags), X23, size(3, 5))
    np.testing.assert_array_equal(nearest, TF_NEAREST_UP[flags])
    down = run(resize_node("ResizeNearestNeighbor", I32, *flags), X55, size(2, 3))
    np.testing.assert_array_equal(down, TF_NEAREST_DOWN[flags])
    down = run(resize_node("ResizeBilinear", U8, *flags), X55.astype(U8), size(2, 3))
    np.testing.assert_array_equal(down, np.array(TF_BILINEAR_DOWN[flags], np.float32))
    grad = run(bilinear_grad_node(F64, *flags), G35, X23.astype(F64))
    np.testing.assert_allclose(grad, TF_BILINEAR_GRAD[flags], rtol=1e-7)
    if device == "REF":     # TF's own order of the float32 products and float64 sums
        np.testing.assert_array_equal(grad, TF_BILINEAR_GRAD[flags])
    grad = run(nearest_grad_node(I32, *flags), G35.astype(I32), size(2, 3))
    np.testing.assert_array_equal(grad, TF_NEAREST_GRAD[flags])


# TF 2.21: ResizeNearestNeighborGrad(arange(30) [1, 5, 6, 1], size=[3, 4]) with both flags
# (its kernel, unlike the resizes', does not refuse them)
TF_NEAREST_GRAD_BOTH = [[0, 1, 5, 9], [18, 20, 46, 54], [42, 44, 94, 102]]


@pytest.mark.parametrize("device", [pytest.param("REF", id="ref"), *DEVICES])
def test_nearest_grad_takes_both_flags_as_tf(device):
    grads = np.arange(30, dtype=F32).reshape(1, 5, 6, 1)
    got = run_on(device, nearest_grad_node(F32, True, True), grads, size(3, 4))
    np.testing.assert_array_equal(got[0, :, :, 0], TF_NEAREST_GRAD_BOTH)


# --- kernels: every device against the reference ----------------------------------------------

CASES = [((1, 1, 1, 1), (1, 1)), ((2, 3, 4, 3), (5, 7)), ((1, 5, 7, 2), (3, 4)),
         ((1, 4, 4, 1), (4, 4)), ((0, 3, 3, 2), (2, 2)), ((1, 1, 6, 3), (4, 1)),
         ((2, 7, 3, 5), (7, 9)), ((1, 13, 11, 3), (16, 8)), ((1, 40, 33, 3), (29, 61))]


def image_of(dtype, shape, key, specials=False):
    """Seeded values of ``dtype``: integers in [-100, 100) ([0, 100) unsigned), floats
    ~ N(0, 3), with NaN and infinities when ``specials``."""
    return random_array(rng_for("image", dtype, shape, key), shape, dtype, low=-100,
                        high=100, specials=specials)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
@pytest.mark.parametrize("shape,out", CASES, ids=str)
def test_resize_kernels(device, flags, shape, out):
    x = image_of(F32, shape, out, specials=True)
    bilinear = check_against_ref(device, resize_node("ResizeBilinear", F32, *flags), x,
                                 size(*out), rtol=0, atol=0)
    assert bilinear.shape == (shape[0], *out, shape[3])
    check_against_ref(device, resize_node("ResizeNearestNeighbor", F32, *flags), x, size(*out))
    g = image_of(F32, (shape[0], *out, shape[3]), "grad")
    scale = {"atol": 1e-5 * max(float(np.abs(g).sum(axis=(1, 2)).max(initial=0)), 1.0)}
    grad = check_against_ref(device, bilinear_grad_node(F32, *flags), g, x, **scale)
    assert grad.shape == shape
    check_against_ref(device, bilinear_grad_node(F64, *flags), g, x.astype(F64))
    check_against_ref(device, nearest_grad_node(F32, *flags), g, size(*shape[1:3]), **scale)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F16, F64, U8, I8, U16, I16, I32, I64], ids=str)
def test_resize_kernels_every_dtype(device, dtype):
    for shape, out in CASES[1:3]:
        x = image_of(dtype, shape, out)
        bilinear = check_against_ref(device, resize_node("ResizeBilinear", dtype), x,
                                     size(*out), rtol=0, atol=0)
        assert bilinear.dtype == F32
        nearest = check_against_ref(device, resize_node("ResizeNearestNeighbor", dtype, True),
                                    x, size(*out))
        assert nearest.dtype == dtype
        g = image_of(dtype, (shape[0], *out, shape[3]), "grad")
        check_against_ref(device, nearest_grad_node(dtype, False, True), g, size(*shape[1:3]),
                          rtol=1e-2, atol=1e-1)
        if dtype.kind == "f":
            back = check_against_ref(device, bilinear_grad_node(dtype), g.astype(F32), x,
                                     rtol=1e-2, atol=1e-2)
            assert back.dtype == dtype


@pytest.mark.parametrize("device", DEVICES)
def test_nearest_grad_integers_wrap_as_tf(device):
    g = np.full((1, 4, 4, 1), 100, np.int8)      # four pixels land on each of 2x2: 400
    got = run_on(device, nearest_grad_node(I8), g, size(2, 2))
    np.testing.assert_array_equal(got, np.full((1, 2, 2, 1), np.int8(400 - 512)))


@pytest.mark.parametrize("device", DEVICES)
def test_same_size_bilinear_is_a_cast_keeping_infinities(device):
    x = np.array([np.inf, -np.inf, np.nan, 2.5], np.float64).reshape(1, 2, 2, 1)
    got = run_on(device, resize_node("ResizeBilinear", F64, False, True), x, size(2, 2))
    np.testing.assert_array_equal(got, x.astype(F32))
    grown = run_on(device, resize_node("ResizeBilinear", F64), x, size(2, 3))
    assert np.isnan(grown[0, 0, 1, 0])                  # inf - inf between the corners


@pytest.mark.parametrize("device", [pytest.param("REF", id="ref"), *DEVICES])
@pytest.mark.parametrize("node,inputs,message", [
    (resize_node("ResizeBilinear", F32, True, True, name="rs"),
     (np.ones((1, 2, 2, 1), F32), size(3, 3)), "If half_pixel_centers is True, align_corners"),
    (resize_node("ResizeBilinear", F32, name="rs"), (np.ones((2, 2, 1), F32), size(3, 3)),
     r"input must be 4-dimensional\[2,2,1\]"),
    (resize_node("ResizeBilinear", F32, name="rs"), (np.ones((1, 2, 2, 0), F32), size(3, 3)),
     "image must have at least one channel"),
    (resize_node("ResizeNearestNeighbor", F32, name="rs"),
     (np.ones((1, 0, 2, 1), F32), size(3, 3)), "input image must be of non-zero size"),
    (resize_node("ResizeNearestNeighbor", F32, name="rs"),
     (np.ones((1, 2, 2, 1), F32), size(3, 3, 3)), r"shape_t must have two elements\[3\]"),
    (resize_node("ResizeBilinear", F32, name="rs"),
     (np.ones((1, 2, 2, 1), F32), np.ones((1, 2), np.int32)), "shape_t must be 1-dimensional"),
    (resize_node("ResizeBilinear", F32, name="rs"), (np.ones((1, 2, 2, 1), F32), size(0, 3)),
     "output dimensions must be positive"),
    (bilinear_grad_node(F32, name="bg"), (np.ones((2, 2, 1), F32), np.ones((1, 2, 2, 1), F32)),
     r"input_grad must be 4-dimensional\[2,2,1\]"),
    (bilinear_grad_node(F32, name="bg"), (np.ones((1, 0, 2, 1), F32), np.ones((1, 2, 2, 1), F32)),
     "resized dimensions must be positive"),
    (bilinear_grad_node(F32, name="bg"), (np.ones((1, 2, 2, 1), F32), np.ones((2, 2, 1), F32)),
     "original_image must be 4-dimensional"),
    (bilinear_grad_node(F32, name="bg"), (np.ones((1, 2, 2, 1), F32), np.ones((1, 2, 0, 1), F32)),
     "original dimensions must be positive"),
    (nearest_grad_node(F32, name="ng"), (np.ones((1, 2, 2, 1), F32), size(0, 2)),
     "shape_t's elements must be positive"),
    (nearest_grad_node(F32, name="ng"), (np.ones((2, 2, 1), F32), size(2, 2)),
     "input must be 4-dimensional"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_run_time_errors_name_the_node(device, node, inputs, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on(device, node, *inputs)
    assert info.value.node_name == node.name and f"'{node.name}'" in str(info.value)


@pytest.mark.parametrize("device", DEVICES)
def test_empty_batches_and_empty_gradients(device):
    got = run_on(device, resize_node("ResizeBilinear", F32), np.ones((0, 2, 3, 2), F32),
                 size(4, 1))
    assert got.shape == (0, 4, 1, 2)
    got = run_on(device, nearest_grad_node(F32), np.ones((2, 0, 3, 2), F32), size(4, 1))
    np.testing.assert_array_equal(got, np.zeros((2, 4, 1, 2), F32))


# --- building: static shapes and build-time errors ----------------------------------------------

def test_static_shapes_and_attrs(graph):
    x = ph((None, 32, 24, 3), name="x")
    small = ds.image.resize_bilinear(x, [16, 8], name="small")
    assert (small.op.type, small.op.name, small.dtype, small.shape.as_list()) == (
        "ResizeBilinear", "small", ds.float32, [None, 16, 8, 3])
    assert small.op.get_attr("align_corners") is False
    assert small.op.get_attr("half_pixel_centers") is False
    pixels = ph((2, 5, 5, 1), ds.uint8)
    near = ds.image.resize_nearest_neighbor(pixels, (3, 3), align_corners=True)
    assert (near.dtype, near.shape.as_list(), near.op.get_attr("align_corners")) == (
        ds.uint8, [2, 3, 3, 1], True)
    assert ds.image.resize_bilinear(pixels, [4, 4]).dtype == ds.float32
    fed = ds.image.resize_bilinear(x, ph((2,), ds.int32))
    assert fed.shape.as_list() == [None, None, None, 3]
    like = ds.image.resize_nearest_neighbor(x, ds.shape(ph((1, 7, 9, 1)))[1:3])
    assert like.shape.as_list() == [None, 7, 9, 3]
    assert ds.image.resize_bilinear(ph(None), [2, 3]).shape.as_list() == [None, 2, 3, None]
    assert near.op.inputs[1].dtype == ds.int32


def test_static_shapes_of_the_gradient_ops(graph):
    grads = ph((4, 6, 6, 3), name="g")
    image = ph((None, 3, 2, None), ds.float64, name="image")
    back = resize_bilinear_grad(grads, image, half_pixel_centers=True)
    assert (back.dtype, back.shape.as_list()) == (ds.float64, [4, 3, 2, 3])
    back = resize_nearest_neighbor_grad(ph((None, 6, 6, 2), ds.int32), [3, 4])
    assert (back.dtype, back.shape.as_list()) == (ds.int32, [None, 3, 4, 2])


@pytest.mark.parametrize("build,error,message", [
    (lambda: ds.image.resize_bilinear(ph((3, 4, 1)), [2, 2]), ValueError, "must be 4-D"),
    (lambda: ds.image.resize_bilinear(ph((1, 3, 4, 1)), [2, 2, 2]), ValueError,
     "vector of 2 elements"),
    (lambda: ds.image.resize_bilinear(ph((1, 3, 4, 1)), [-5, 2]), ValueError,
     "Dimension -5 must be >= 0$"),
    (lambda: ds.image.resize_bilinear(ph((1, 3, 4, 1)), ph((2,), ds.int64)), TypeError,
     "int32"),
    (lambda: ds.image.resize_nearest_neighbor(ph((1, 3, 4, 1), ds.bool), [2, 2]), TypeError,
     "dtype bool"),
    (lambda: ds.image.resize_bilinear(ph((1, 0, 4, 1)), [2, 2]), ValueError, "non-zero size"),
    (lambda: ds.image.resize_nearest_neighbor(ph((1, 3, 4, 0)), [2, 2]), ValueError,
     "at least one channel"),
    (lambda: resize_bilinear_grad(ph((1, 2, 2, 1), ds.float64), ph((1, 3, 3, 1))), TypeError,
     "float32"),
    (lambda: resize_bilinear_grad(ph((1, 2, 2, 1)), ph((1, 3, 3, 1), ds.int32)), TypeError,
     "original_image"),
    (lambda: resize_bilinear_grad(ph((1, 2, 2, 1)), ph((2, 3, 3, 1))), ValueError,
     "batch sizes"),
    (lambda: resize_nearest_neighbor_grad(ph((1, 2, 2, 1)), [3, -2]), ValueError,
     "Dimension -2 must be >= 0$"),
])
def test_build_time_errors(graph, build, error, message):
    with pytest.raises(error, match=message):
        build()


# --- sessions and gradients ---------------------------------------------------------------------

def test_a_size_that_is_not_positive_builds_and_fails_when_run(graph):
    """TF's shape function makes a size of 0 a dimension of 0 and -1 an unknown one; the
    kernel's InvalidArgumentError when the op runs (TF 2.21's shapes and messages)."""
    x = np.ones((1, 3, 4, 1), np.float32)
    ops = [ds.image.resize_bilinear(x, [0, 2]), ds.image.resize_nearest_neighbor(x, [-1, 2]),
           ds.image.resize_images(x, [2, 0]), resize_nearest_neighbor_grad(x, [0, 3])]
    assert [op.shape.as_list() for op in ops] == [[1, 0, 2, 1], [1, None, 2, 1],
                                                  [1, 2, 0, 1], [1, 0, 3, 1]]
    with ds.Session() as sess:
        for op, message in zip(ops, ["output dimensions"] * 3 + ["shape_t's elements"]):
            with pytest.raises(ds.errors.InvalidArgumentError, match=message + " must be posi"):
                sess.run(op)


def test_both_sampling_flags_build_and_fail_when_run():
    """TF checks align_corners with half_pixel_centers in the kernel, not the shape function:
    the graph builds, with its static shapes, and running the op is InvalidArgumentError
    (ResizeNearestNeighborGrad's kernel takes both: the test below)."""
    x = ds.placeholder(ds.float32, (1, 3, 4, 1), name="x")
    flags = {"align_corners": True, "half_pixel_centers": True}
    ops = [ds.image.resize_bilinear(x, [5, 6], name="bl", **flags),
           ds.image.resize_nearest_neighbor(x, [5, 6], name="nn", **flags),
           resize_bilinear_grad(ph((1, 5, 6, 1)), x, name="blg", **flags)]
    assert [op.shape.as_list() for op in ops] == [[1, 5, 6, 1]] * 2 + [[1, 3, 4, 1]]
    xv = np.ones((1, 3, 4, 1), F32)
    with ds.Session() as sess:
        for op in ops:
            feed = {x: xv, **{t: np.ones((1, 5, 6, 1), F32) for t in op.op.inputs[:1]
                              if t.op.type == "Placeholder" and t is not x}}
            with pytest.raises(ds.errors.InvalidArgumentError,
                               match="If half_pixel_centers is True, align_corners") as e:
                sess.run(op, feed)
            assert e.value.node_name == op.op.name



def test_resize_images_in_a_cpu_session_with_gradients():
    x = ds.placeholder(ds.float64, (None, None, None, 2), name="x")
    hw = ds.placeholder(ds.int32, (2,), name="hw")
    up = ds.image.resize_bilinear(x, hw, name="up")
    near = ds.image.resize_nearest_neighbor(x, [5, 3], half_pixel_centers=True, name="near")
    dx_up, dhw = ds.gradients(ds.reduce_sum(up * up), [x, hw])
    (dx_near,) = ds.gradients(ds.reduce_sum(near), [x])
    assert dhw is None
    xv = image_of(F64, (2, 3, 4, 2), "session")
    with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
        got_up, got_near, g_up, g_near = sess.run([up, near, dx_up, dx_near],
                                                  {x: xv, hw: [6, 5]})
        with pytest.raises(ds.errors.InvalidArgumentError, match="output dimensions") as e:
            sess.run(up, {x: xv, hw: [0, 5]})
        assert e.value.node_name == "up"
    ref = run_on("REF", resize_node("ResizeBilinear", F64), xv, size(6, 5))
    np.testing.assert_array_equal(got_up, ref)
    assert got_near.shape == (2, 5, 3, 2) and got_near.dtype == F64
    want = run_on("REF", bilinear_grad_node(F64), 2 * ref, xv)
    np.testing.assert_allclose(g_up, want, rtol=1e-6)
    counts = run_on("REF", nearest_grad_node(F64, False, True), np.ones_like(got_near),
                    size(3, 4))
    np.testing.assert_array_equal(g_near, counts)      # how often each pixel was copied


def test_on_the_stand_in_gpu(standin):
    x = ds.placeholder(ds.float32, (1, 3, 4, 2), name="x")
    with ds.device("gpu:0"):
        up = ds.image.resize_bilinear(x * 1.0, [5, 7], align_corners=True, name="up")
        near = ds.image.resize_nearest_neighbor(x * 1.0, [2, 9], name="near")
        (grad,) = ds.gradients(ds.reduce_sum(up) + ds.reduce_sum(near), [x])
        bad = ds.image.resize_bilinear(x, ds.placeholder(ds.int32, (2,), name="hw"),
                                       name="bad")
    xv = image_of(F32, (1, 3, 4, 2), "gpu")
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        got_up, got_near, got_grad = sess.run([up, near, grad], {x: xv})
        with pytest.raises(ds.errors.InvalidArgumentError, match="output dimensions") as e:
            sess.run(bad, {x: xv, "hw:0": [3, -1]})
        assert e.value.node_name == "bad"
    np.testing.assert_array_equal(got_up, run_on("REF", resize_node("ResizeBilinear", F32, True),
                                                 xv, size(5, 7)))
    np.testing.assert_array_equal(got_near, run_on("REF", resize_node("ResizeNearestNeighbor",
                                                                      F32), xv, size(2, 9)))
    want = (run_on("REF", bilinear_grad_node(F32, True), np.ones((1, 5, 7, 2), F32), xv)
            + run_on("REF", nearest_grad_node(F32), np.ones((1, 2, 9, 2), F32), size(3, 4)))
    np.testing.assert_allclose(got_grad, want, rtol=1e-5)


@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_gradients_against_finite_differences(flags):
    kw = attrs(*flags)
    image = image_of(F64, (2, 3, 4, 2), "fd") / 10
    # float32 outputs: a wide step (the map is linear, so only rounding limits it)
    check_op_gradient(lambda x, s: ds.image.resize_bilinear(x, s, **kw), [image, size(5, 3)],
                      no_gradient=(1,), eps=0.25, rtol=1e-4, atol=1e-4)
    check_op_gradient(lambda x, s: ds.image.resize_nearest_neighbor(x, s, **kw),
                      [image, size(2, 7)], no_gradient=(1,))
    check_op_gradient(lambda g, s: resize_nearest_neighbor_grad(g, s, **kw),
                      [image_of(F64, (1, 5, 2, 3), "fd-grad"), size(3, 4)], no_gradient=(1,))


def test_gradient_registrations(graph):
    from devsession.ops.registry import get_gradient

    assert get_gradient("ResizeBilinearGrad") is None         # as TF: not differentiable
    pixels = ph((1, 3, 3, 1), ds.uint8)
    resized = ds.image.resize_bilinear(pixels, [4, 4])
    assert get_gradient("ResizeBilinear")(resized.op, resized) == [None, None]
    unknown = ph(None)
    near = ds.image.resize_nearest_neighbor(unknown, [4, 4])
    (back, none) = get_gradient("ResizeNearestNeighbor")(near.op, near)
    assert none is None and back.op.type == "ResizeNearestNeighborGrad"
    assert back.op.inputs[1].op.type == "StridedSlice"          # shape(image)[1:3]


# --- TensorFlow's GraphDefs ----------------------------------------------------------------------

def test_tf_resize_nodes_import_and_run():
    gd = ds.GraphDef()
    placeholder(gd, "images", ds.uint8, shape=(None, None, None, 1))
    tf_const(gd, "size", [3, 5], np.int32)
    add_node(gd, "bilinear", "ResizeBilinear", ["images", "size"], T=ds.uint8,
             align_corners=False, half_pixel_centers=True)
    add_node(gd, "nearest", "ResizeNearestNeighbor", ["images", "size"], T=ds.uint8,
             align_corners=True, half_pixel_centers=False)
    add_node(gd, "grads", "ResizeBilinear", ["images", "size"], T=ds.uint8)
    add_node(gd, "back", "ResizeBilinearGrad", ["grads", "float_images"], T=ds.float32,
             align_corners=False, half_pixel_centers=False)
    add_node(gd, "float_images", "Cast", ["images"], SrcT=ds.uint8, DstT=ds.float32,
             Truncate=False)
    add_node(gd, "copied", "ResizeNearestNeighborGrad", ["nearest", "size_in"], T=ds.uint8,
             align_corners=True, half_pixel_centers=False)
    tf_const(gd, "size_in", [2, 3], np.int32)
    xv = X23.astype(U8)
    bilinear, nearest, copied = run_imported(gd, ["bilinear:0", "nearest:0", "copied:0"],
                                             {"images:0": xv})
    np.testing.assert_array_equal(bilinear[0, :, :, 0], TF_BILINEAR_UP[(False, True)])
    np.testing.assert_array_equal(nearest[0, :, :, 0], TF_NEAREST_UP[(True, False)])
    assert copied.dtype == U8 and int(copied.sum()) == int(nearest.sum())
    g = ds.Graph()
    ds.import_graph_def(gd, name="", graph=g)
    op = g.get_operation_by_name("bilinear")
    assert op.outputs[0].dtype == ds.float32 and op.outputs[0].shape.as_list() == [None, 3, 5, 1]
    assert op.get_attr("half_pixel_centers") is True and "T" not in op.attrs
    assert g.get_operation_by_name("back").outputs[0].shape.as_list() == [None, None, None, 1]


def test_resize_round_trips_through_a_graph_def():
    g = ds.Graph()
    with g.as_default():
        x = ds.constant(X23, name="x")
        ds.image.resize_bilinear(x, [3, 5], align_corners=True, name="up")
        ds.image.resize_nearest_neighbor(x, [3, 5], half_pixel_centers=True, name="near")
    imported = ds.Graph()
    ds.import_graph_def(g.as_graph_def(), name="", graph=imported)
    with ds.Session(graph=imported) as sess:
        up, near = sess.run(["up:0", "near:0"])
    np.testing.assert_array_equal(up[0, :, :, 0], TF_BILINEAR_UP[(True, False)])
    np.testing.assert_array_equal(near[0, :, :, 0], TF_NEAREST_UP[(False, True)])


# --- tf.image composites against TF 2.21 ---------------------------------------------------------

IMG = (np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3) * 4)     # [4, 5, 3] uint8
PX = np.array([0, 1, 127, 128, 254, 255], np.uint8)
FX = np.array([-0.5, 0.0, 0.25, 0.5, 0.999, 1.0, 1.5], np.float32)
IX = np.array([-2147483648, -5, 0, 16777215, 16777216, 2147483647], np.int32)
C = np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 7


def run(fetches, feed=None):
    with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
        return sess.run(fetches, feed)


def test_resizing_images_as_tf():
    image = ds.constant(IMG)
    built = {
        "bilinear": ds.image.resize_images(image, [3, 4]),
        "nearest": ds.image.resize_images(image, [6, 7], ds.image.ResizeMethod.NEAREST_NEIGHBOR,
                                          align_corners=True),
        "aspect": ds.image.resize_images(image, [8, 8], preserve_aspect_ratio=True),
        "batch": ds.image.resize(ds.constant(IMG[None]), ds.constant([2, 2]), method="nearest"),
    }
    assert built["bilinear"].dtype == ds.float32 and built["nearest"].dtype == ds.uint8
    assert built["aspect"].shape.as_list() == [6, 8, 3]          # TF 2.21 infers [6, 8, 3]
    assert built["batch"].shape.as_list() == [1, 2, 2, 3]
    same = ds.image.resize_images(image, [4, 5])                  # TF1 skips same-size resizes
    assert same.dtype == ds.uint8 and same.op.type == "Squeeze"
    got = run(built)
    # TF 2.21: channel 0 of resize_images(IMG, [3, 4]) and channel 1 of the nearest one
    np.testing.assert_array_equal(got["bilinear"][..., 0], [[0, 15, 30, 45], [80, 95, 110, 125],
                                                            [160, 175, 190, 205]])
    np.testing.assert_array_equal(got["nearest"][..., 1], [
        [4, 16, 16, 28, 40, 40, 52], [64, 76, 76, 88, 100, 100, 112],
        [64, 76, 76, 88, 100, 100, 112], [124, 136, 136, 148, 160, 160, 172],
        [124, 136, 136, 148, 160, 160, 172], [184, 196, 196, 208, 220, 220, 232]])
    assert got["aspect"].shape == (6, 8, 3)
    np.testing.assert_array_equal(got["batch"][0], IMG[::2][:, [0, 2]])  # scales 2 and 2.5
    fed = ds.placeholder(ds.float32, (None, None, 3))
    hw = ds.placeholder(ds.int32, (2,))
    keep = ds.image.resize_images(fed, hw, preserve_aspect_ratio=True)
    assert keep.shape.as_list() == [None, None, 3]
    assert run(keep, {fed: IMG.astype(np.float32), hw: [8, 8]}).shape == (6, 8, 3)
    sizes = [np.array([4.0, 5.0]), [np.int64(4), 5], [ds.constant(4), 5]]   # as TF: built
    assert [ds.image.resize_images(fed, s).shape.as_list() for s in sizes] == \
        [[4, 5, 3]] * 3


@pytest.mark.parametrize("call,message", [
    (lambda: ds.image.resize_images(ph(None), [2, 2]), "contains no shape"),
    (lambda: ds.image.resize_images(ph((2, 2)), [2, 2]), "3 or 4 dimensions"),
    (lambda: ds.image.resize_images(ph((2, 2, 1)), [2, 2, 2]), "2 elements"),
    (lambda: ds.image.resize_images(ph((2, 2, 1)), [2, 2], "lanczos3"),
     "not implemented: lanczos3"),
    (lambda: ds.image.resize_images(ph((2, 2, 1)), [2, 2], method=7), "not implemented: 7"),
    # TF's int32 conversion refuses Python floats, whole ones too (a numpy array converts)
    (lambda: ds.image.resize_images(ph((2, 2, 1)), [4.0, 4.0]), "1-D int32 Tensor"),
    (lambda: ds.image.resize_images(ph((2, 2, 1)), [np.float32(4), 4],
                                    ds.image.ResizeMethod.AREA),
     "1-D int32 Tensor"),
])
def test_resize_images_errors(graph, call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_flips_crops_and_pads_as_tf():
    image = ds.constant(IMG)
    got = run({
        "lr": ds.image.flip_left_right(image), "ud": ds.image.flip_up_down(image[None]),
        "centre": ds.image.central_crop(image, 0.5),
        "centre4": ds.image.central_crop(image[None], 0.33),
        "crop": ds.image.crop_to_bounding_box(image, 1, 2, 2, 3),
        "pad": ds.image.pad_to_bounding_box(image, 1, 2, 6, 8),
        "wide": ds.image.resize_image_with_crop_or_pad(image, 3, 8),
        "tall": ds.image.resize_with_crop_or_pad(image[None], 7, 2),
    })
    np.testing.assert_array_equal(got["lr"], IMG[:, ::-1])
    np.testing.assert_array_equal(got["ud"], IMG[None, ::-1])
    # TF 2.21 (channel 0, 0, 2, 2, 0, 0 of each)
    np.testing.assert_array_equal(got["centre"][..., 0], [[72, 84, 96], [132, 144, 156]])
    np.testing.assert_array_equal(got["centre4"][0, ..., 0], [[72, 84, 96], [132, 144, 156]])
    np.testing.assert_array_equal(got["crop"][..., 2], [[92, 104, 116], [152, 164, 176]])
    np.testing.assert_array_equal(got["pad"][..., 2], [
        [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 8, 20, 32, 44, 56, 0], [0, 0, 68, 80, 92, 104, 116, 0],
        [0, 0, 128, 140, 152, 164, 176, 0], [0, 0, 188, 200, 212, 224, 236, 0],
        [0, 0, 0, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(got["wide"][..., 0], [[0, 0, 12, 24, 36, 48, 0, 0],
                                                        [0, 60, 72, 84, 96, 108, 0, 0],
                                                        [0, 120, 132, 144, 156, 168, 0, 0]])
    np.testing.assert_array_equal(got["tall"][0, ..., 0], [[0, 0], [12, 24], [72, 84],
                                                           [132, 144], [192, 204], [0, 0],
                                                           [0, 0]])


def test_crops_and_pads_with_fed_sizes_check_at_run_time():
    image = ds.placeholder(ds.uint8, (None, None, 3))
    top, height = ds.placeholder(ds.int32, ()), ds.placeholder(ds.int32, ())
    crop = ds.image.crop_to_bounding_box(image, top, 1, height, 2)
    padded = ds.image.pad_to_bounding_box(image, top, 0, 9, 5)
    centre = ds.image.central_crop(image, ds.placeholder_with_default(0.5, ()))
    assert crop.shape.as_list() == [None, 2, 3] and padded.shape.as_list() == [9, 5, 3]
    with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
        np.testing.assert_array_equal(sess.run(crop, {image: IMG, top: 1, height: 3}),
                                      IMG[1:4, 1:3])
        np.testing.assert_array_equal(sess.run(padded, {image: IMG, top: 2})[2:6], IMG)
        np.testing.assert_array_equal(sess.run(centre, {image: IMG}), IMG[1:3, 1:4])
        with pytest.raises(ds.errors.InvalidArgumentError, match="height must be >= target"):
            sess.run(crop, {image: IMG, top: 2, height: 3})
        with pytest.raises(ds.errors.InvalidArgumentError, match="height must be <= target"):
            sess.run(padded, {image: IMG, top: 6})


@pytest.mark.parametrize("call,message", [
    (lambda: ds.image.central_crop(ph((4, 4, 1)), 0.0), r"within \(0, 1\]"),
    (lambda: ds.image.central_crop(ph((4, 4)), 0.5), "3 or 4 dimensions"),
    (lambda: ds.image.crop_to_bounding_box(ph((4, 4, 1)), 2, 0, 3, 2), "height must be >="),
    (lambda: ds.image.crop_to_bounding_box(ph((4, 4, 1)), -1, 0, 3, 2), "offset_height"),
    (lambda: ds.image.pad_to_bounding_box(ph((4, 4, 1)), 0, 1, 5, 4), "width must be <="),
    (lambda: ds.image.resize_image_with_crop_or_pad(ph((4, 4, 1)), 0, 4), "target_height"),
    (lambda: ds.image.flip_left_right(ph((4, 4))), "3 or 4 dimensions"),
    (lambda: ds.image.flip_up_down(ph((0, 4, 1))), "must be > 0"),
    (lambda: ds.image.grayscale_to_rgb(ph((4, 4, 3))), "should be size 1"),
    (lambda: ds.image.rgb_to_grayscale(ph((4, 4, 2))), "3 channels"),
    (lambda: ds.image.random_crop(ph((4, 4, 3)), [5, 2, 3]), "value.shape >= size"),
    (lambda: ds.image.random_brightness(ph((4, 4, 3)), -0.1), "non-negative"),
    (lambda: ds.image.random_contrast(ph((4, 4, 3)), 0.5, 0.5), "upper must be > lower"),
])
def test_composite_build_errors(graph, call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_convert_image_dtype_as_tf():
    c = ds.image.convert_image_dtype
    got = run({
        "u8_f32": c(PX, ds.float32), "u8_i32": c(PX, ds.int32), "u8_f16": c(PX, ds.float16),
        "i32_u8": c(IX, ds.uint8), "i32_u8_sat": c(IX, ds.uint8, saturate=True),
        "i32_i16": c(IX, ds.int16), "f32_u8_sat": c(FX, ds.uint8, saturate=True),
        "f32_i32_sat": c(FX, ds.int32, saturate=True), "f32_i16": c(FX[1:6], ds.int16),
        "f32_f64": c(FX, ds.float64), "same": c(FX, ds.float32),
    })
    # TF 2.21
    want = {
        "u8_f32": np.array([0.0, 0.003921568859368563, 0.49803924560546875, 0.501960813999176,
                            0.9960784912109375, 1.0], np.float32),
        "u8_i32": np.array([0, 8388608, 1065353216, 1073741824, 2130706432, 2139095040],
                           np.int32),
        "u8_f16": np.array([0.0, 0.0039215087890625, 0.498046875, 0.501953125, 0.99609375,
                            1.0], np.float16),
        "i32_u8": np.array([0, 255, 0, 1, 2, 255], np.uint8),
        "i32_u8_sat": np.array([0, 0, 0, 1, 2, 255], np.uint8),
        "i32_i16": np.array([-32768, -1, 0, 255, 256, 32767], np.int16),
        "f32_u8_sat": np.array([0, 0, 63, 127, 255, 255, 255], np.uint8),
        "f32_i32_sat": np.array([-1073741824, 0, 536870912, 1073741824, 2145336192,
                                 2147483520, 2147483520], np.int32),
        "f32_i16": np.array([0, 8191, 16383, 32734, 32767], np.int16),
        "f32_f64": FX.astype(np.float64), "same": FX,
    }
    for key, value in want.items():
        assert got[key].dtype == value.dtype, key
        np.testing.assert_array_equal(got[key], value, err_msg=key)
    with pytest.raises(AttributeError, match="floating point or integer"):
        c(PX, ds.bool)


def test_brightness_contrast_standardization_and_grayscale_as_tf():
    got = run({
        "up": ds.image.adjust_brightness(PX, 0.1), "down": ds.image.adjust_brightness(PX, -0.3),
        "f32": ds.image.adjust_brightness(FX, 0.1),
        "f64": ds.image.adjust_brightness(FX.astype(np.float64), 0.1),
        "contrast": ds.image.adjust_contrast(C, 1.5),
        "contrast_u8": ds.image.adjust_contrast(IMG[:2, :3], 2.0),
        "std": ds.image.per_image_standardization(IMG[:2, :2]),
        "flat": ds.image.per_image_standardization(np.full((2, 2, 1), 3.0, np.float32)),
        "std_batch": ds.image.per_image_standardization(np.stack([C, C * 3])),
        "gray_u8": ds.image.rgb_to_grayscale(IMG[:2, :2]),
        "gray": ds.image.rgb_to_grayscale(np.array([[[0.2, 0.4, 0.6], [1.0, 0.0, 0.5]]],
                                                   np.float32)),
        "rgb": ds.image.grayscale_to_rgb(np.array([[[1], [2]]], np.int32)),
    })
    # TF 2.21
    np.testing.assert_array_equal(got["up"], np.array([25, 26, 152, 153, 255, 255], np.uint8))
    np.testing.assert_array_equal(got["down"], np.array([0, 0, 50, 51, 177, 178], np.uint8))
    f = [-0.4000000059604645, 0.10000000149011612, 0.3499999940395355, 0.6000000238418579,
         1.0989999771118164, 1.100000023841858, 1.600000023841858]
    np.testing.assert_array_equal(got["f32"], np.array(f, np.float32))
    np.testing.assert_array_equal(got["f64"], np.array(f, np.float64))  # via float32, as TF
    assert_same(got["contrast"], np.array([
        [[-0.3571428060531616, -0.21428567171096802], [0.07142859697341919, 0.2142857313156128],
         [0.5, 0.6428571939468384]],
        [[0.9285714626312256, 1.0714285373687744], [1.3571429252624512, 1.5],
         [1.7857142686843872, 1.9285714626312256]]], np.float32), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got["contrast_u8"], np.array([
        [[0, 0, 0], [0, 0, 0], [6, 10, 14]], [[78, 82, 86], [102, 106, 110], [126, 130, 134]]],
        np.uint8))
    assert_same(got["std"], np.array([
        [[-1.3000541925430298, -1.1700488328933716, -1.0400433540344238],
         [-0.9100379347801208, -0.7800325155258179, -0.6500270962715149]],
        [[0.6500270962715149, 0.7800325155258179, 0.9100379347801208],
         [1.0400433540344238, 1.1700488328933716, 1.3000541925430298]]], np.float32))
    np.testing.assert_array_equal(got["flat"], np.zeros((2, 2, 1), np.float32))
    first = [[-1.5932551622390747, -1.303572416305542], [-1.0138895511627197,
             -0.7242069244384766], [-0.43452414870262146, -0.14484141767024994]]
    second = [[0.1448412984609604, 0.4345240294933319], [0.7242068648338318,
              1.0138894319534302], [1.3035722970962524, 1.5932549238204956]]
    assert_same(got["std_batch"][0], np.array([first, second], np.float32), rtol=1e-6)
    assert_same(got["std_batch"][1], np.array([first, second], np.float32), rtol=1e-6)
    np.testing.assert_array_equal(got["gray_u8"], np.array([[[3], [15]], [[63], [75]]], np.uint8))
    assert_same(got["gray"], np.array([[[0.3629800081253052], [0.35590001940727234]]],
                                      np.float32))
    np.testing.assert_array_equal(got["rgb"], [[[1, 1, 1], [2, 2, 2]]])


def test_composites_are_differentiable():
    x = ds.placeholder(ds.float32, (2, 4, 5, 3))
    y = ds.image.per_image_standardization(ds.image.resize_images(
        ds.image.flip_left_right(ds.image.central_crop(x, 0.8)), [6, 6]))
    (dx,) = ds.gradients(ds.reduce_sum(y * y), [x])
    assert dx is not None and dx.shape.as_list() == [2, 4, 5, 3]
    value = run(dx, {x: image_of(F32, (2, 4, 5, 3), "chain")})
    assert np.isfinite(value).all() and np.abs(value).sum() > 0


# --- random augmentation: distribution, shapes, seeded determinism ------------------------------

def test_random_flips():
    image = ds.constant(IMG)
    batch = ds.constant(np.stack([IMG] * 64))
    one = ds.image.random_flip_left_right(image, seed=3)
    many = ds.image.random_flip_up_down(batch, seed=4)
    assert one.shape.as_list() == [4, 5, 3] and many.shape.as_list() == [64, 4, 5, 3]
    with ds.Session() as sess:
        ones = [sess.run(one) for _ in range(60)]
        flipped_many = sess.run(many)
    flipped = [np.array_equal(o, IMG[:, ::-1]) for o in ones]
    assert all(f or np.array_equal(o, IMG) for f, o in zip(flipped, ones))
    assert 12 <= sum(flipped) <= 48
    per_image = [np.array_equal(o, IMG[::-1]) for o in flipped_many]
    assert all(f or np.array_equal(o, IMG) for f, o in zip(per_image, flipped_many))
    assert 12 <= sum(per_image) <= 52
    with ds.Session() as sess:                          # the same draws in a new session
        again = [sess.run(one) for _ in range(60)]
    assert all(np.array_equal(a, b) for a, b in zip(ones, again))


def test_random_crop():
    value = ds.placeholder(ds.float32, (6, 7, 3))
    crop = ds.image.random_crop(value, [3, 4, 3], seed=1)
    assert crop.shape.as_list() == [3, 4, 3]
    data = np.arange(6 * 7 * 3, dtype=np.float32).reshape(6, 7, 3)
    seen = set()
    with ds.Session() as sess:
        for _ in range(40):
            got = sess.run(crop, {value: data})
            top, left = divmod(int(got[0, 0, 0]) // 3, 7)
            np.testing.assert_array_equal(got, data[top:top + 3, left:left + 4])
            seen.add((top, left))
        with pytest.raises(ds.errors.InvalidArgumentError, match="Need value.shape >= size"):
            fed = ds.placeholder(ds.float32, (None, None, 3))
            sess.run(ds.image.random_crop(fed, [3, 4, 3]), {fed: data[:2]})
    assert len(seen) >= 6 and all(0 <= t <= 3 and 0 <= s <= 3 for t, s in seen)


def test_random_brightness_and_contrast():
    image = ds.constant(C)
    bright = ds.image.random_brightness(image, 0.25, seed=5)
    contrast = ds.image.random_contrast(image, 0.5, 1.5, seed=6)
    with ds.Session() as sess:
        draws = [sess.run([bright, contrast]) for _ in range(20)]
    mean = C.mean(axis=(0, 1), keepdims=True)
    deltas, factors = [], []
    for b, c in draws:
        delta = b - C
        np.testing.assert_allclose(delta, delta.flat[0], atol=1e-6)   # one delta per image
        deltas.append(float(delta.flat[0]))
        factors.append(float(((c - mean) / (C - mean))[0, 0, 0]))
    assert all(-0.25 <= d < 0.25 for d in deltas) and np.std(deltas) > 0.03
    assert all(0.5 - 1e-5 <= f < 1.5 + 1e-5 for f in factors) and np.std(factors) > 0.1


def test_unsupported_image_symbols_name_themselves():
    from devsession.unsupported import UnsupportedTF1Error

    assert "image" in ds.__all__ and ds.image.resize_images is ds.image.resize
    with pytest.raises(UnsupportedTF1Error, match=r"tf\.image\.decode_webp is not supported"):
        ds.image.decode_webp
    assert not hasattr(ds.image, "generate_bounding_box_proposals")
