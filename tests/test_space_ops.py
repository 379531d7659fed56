"""The space/depth ops (``devsession/ops/space_depth.py``): SpaceToDepth, DepthToSpace,
SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace and ExtractImagePatches, and
``nn.atrous_conv2d(_transpose)``.

The reference kernels against numpy references written here element by element (loops
over output positions, independent of the kernels' reshapes), and TF's documented
examples; every device's kernel (``kernel_cases.DEVICES``) against the reference, on
sizes 0, 1 and odd ones and every dtype; static shapes and TF's build-time
``ValueError``s; run-time ``InvalidArgumentError``s naming the node; sessions (NCHW,
fed shapes, the stand-in GPU); the atrous convolutions against a dilated-filter
reference and each other (one is the other's adjoint); and a GraphDef TensorFlow wrote
(``data/tf_space_ops.pb``, made by ``data/make_tf_space_ops.py``) imported and run with
TF's values.  Gradients are in test_gradients.py.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import devsession as ds
from kernel_cases import (DEVICES, F16, F32, F64, I32, I64, BOOL, check_against_ref,
                          make_node, random_array, rng_for, run_on)
import test_gpu_cupy_standin

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU

SPACE_OPS = frozenset({"SpaceToDepth", "DepthToSpace", "SpaceToBatchND", "BatchToSpaceND",
                       "SpaceToBatch", "BatchToSpace", "ExtractImagePatches"})
DTYPES = [F16, F32, F64, I32, I64, BOOL, np.dtype(np.uint8)]


# --- numpy references, one output element at a time -------------------------------------------

def space_to_depth_ref(x, b):
    n, h, w, c = x.shape
    out = np.zeros((n, h // b, w // b, b * b * c), x.dtype)
    for i, j, bi, bj in itertools.product(range(h // b), range(w // b), range(b), range(b)):
        out[:, i, j, (bi * b + bj) * c:(bi * b + bj + 1) * c] = x[:, i * b + bi, j * b + bj, :]
    return out


def depth_to_space_ref(x, b):
    n, h, w, c = x.shape
    d = c // (b * b)
    out = np.zeros((n, h * b, w * b, d), x.dtype)
    for i, j, bi, bj in itertools.product(range(h), range(w), range(b), range(b)):
        out[:, i * b + bi, j * b + bj, :] = x[:, i, j, (bi * b + bj) * d:(bi * b + bj + 1) * d]
    return out


def space_to_batch_ref(x, block, pads):
    """Output batch ``(offset index over the block grid) * n + k`` reads padded input
    ``[k, i1 * b1 + o1, ...]`` (TF's definition)."""
    m, n = len(block), x.shape[0]
    padded = np.zeros((n, *(d + a + e for d, (a, e) in zip(x.shape[1:m + 1], pads)),
                       *x.shape[m + 1:]), x.dtype)
    padded[(slice(None), *(slice(a, a + d) for d, (a, _) in zip(x.shape[1:m + 1], pads)))] = x
    grid = [p // b for p, b in zip(padded.shape[1:m + 1], block)]
    out = np.zeros((n * int(np.prod(block)), *grid, *x.shape[m + 1:]), x.dtype)
    for slot, offsets in enumerate(itertools.product(*(range(b) for b in block))):
        for k in range(n):
            for cell in itertools.product(*(range(g) for g in grid)):
                src = tuple(c * b + o for c, b, o in zip(cell, block, offsets))
                out[(slot * n + k, *cell)] = padded[(k, *src)]
    return out


def batch_to_space_ref(x, block, crops):
    m, product = len(block), int(np.prod(block))
    n, grid = x.shape[0] // product, x.shape[1:m + 1]
    whole = np.zeros((n, *(g * b for g, b in zip(grid, block)), *x.shape[m + 1:]), x.dtype)
    for slot, offsets in enumerate(itertools.product(*(range(b) for b in block))):
        for k in range(n):
            for cell in itertools.product(*(range(g) for g in grid)):
                dst = tuple(c * b + o for c, b, o in zip(cell, block, offsets))
                whole[(k, *dst)] = x[(slot * n + k, *cell)]
    return whole[(slice(None), *(slice(a, g * b - e) for g, b, (a, e)
                                 in zip(grid, block, crops)))]


def patches_ref(x, k, s, r, padding):
    """TF's ExtractImagePatches: output ``[n, i, j, (ki * kc + kj) * c + ch]`` reads input
    row ``i * sr - pad_top + ki * rr`` (zero outside), with TF's SAME padding."""
    n, h, w, c = x.shape

    def dim(size, kk, ss, rr):
        eff = (kk - 1) * rr + 1
        if padding == "VALID":
            return (size - eff) // ss + 1, 0
        out = -(-size // ss)
        return out, max((out - 1) * ss + eff - size, 0) // 2
    (oh, top), (ow, left) = dim(h, k[0], s[0], r[0]), dim(w, k[1], s[1], r[1])
    out = np.zeros((n, oh, ow, k[0] * k[1] * c), x.dtype)
    for i, j, ki, kj in itertools.product(range(oh), range(ow), range(k[0]), range(k[1])):
        row, col = i * s[0] - top + ki * r[0], j * s[1] - left + kj * r[1]
        if 0 <= row < h and 0 <= col < w:
            at = (ki * k[1] + kj) * c
            out[:, i, j, at:at + c] = x[:, row, col, :]
    return out


def reads_per_pixel(hw, k, s, r, padding):
    """[1, h, w, 1]: how many elements of ExtractImagePatches' output read each pixel."""
    index = counting((1, *hw, 1), I64)
    read = patches_ref(index, k, s, r, padding).reshape(-1)
    return np.bincount(read, minlength=index.size + 1)[1:].reshape(1, *hw, 1)


def counting(shape, dtype=F32):
    return np.arange(1, int(np.prod(shape)) + 1).reshape(shape).astype(dtype)


# --- kernel nodes -------------------------------------------------------------------------------

def depth_node(op, dtype, block, fmt="NHWC", name=None):
    return make_node(op, [dtype], dtype, {"block_size": block, "data_format": fmt}, name=name)


def nd_node(op, dtype, index=I32, name=None):
    return make_node(op, [dtype, index, index], dtype, name=name)


def square_node(op, dtype, block, name=None):
    return make_node(op, [dtype, I32], dtype, {"block_size": block}, name=name)


def patches_node(dtype, k, s, r, padding, name=None):
    return make_node("ExtractImagePatches", [dtype], dtype,
                     {"ksizes": (1, *k, 1), "strides": (1, *s, 1), "rates": (1, *r, 1),
                      "padding": padding}, name=name)


def ints(value, dtype=I32):
    return np.array(value, dtype)


# --- the reference kernels against the numpy references and TF's examples ---------------------

DEPTH_CASES = [((1, 2, 2, 1), 2), ((2, 4, 6, 3), 2), ((1, 6, 3, 2), 3), ((0, 4, 4, 2), 2),
               ((3, 0, 2, 1), 2), ((1, 2, 2, 0), 2), ((1, 1, 1, 1), 1)]


@pytest.mark.parametrize("shape,block", [c for c in DEPTH_CASES if c[1] > 1], ids=str)
def test_space_to_depth_and_back_against_the_references(shape, block):
    x = counting(shape)
    got = run_on("REF", depth_node("SpaceToDepth", F32, block), x)
    np.testing.assert_array_equal(got, space_to_depth_ref(x, block))
    back = run_on("REF", depth_node("DepthToSpace", F32, block), got)
    np.testing.assert_array_equal(back, depth_to_space_ref(got, block))
    np.testing.assert_array_equal(back, x)


def test_tfs_documented_examples():
    # array_ops.cc's docs: SpaceToDepth of [1, 4, 4, 1] with block 2
    x = np.array([[1, 2, 5, 6], [3, 4, 7, 8], [9, 10, 13, 14], [11, 12, 15, 16]],
                 F32).reshape(1, 4, 4, 1)
    np.testing.assert_array_equal(run_on("REF", depth_node("SpaceToDepth", F32, 2), x),
                                  np.arange(1, 17, dtype=F32).reshape(1, 2, 2, 4))
    # SpaceToBatchND example (4): [2, 2, 4, 1], block [2, 2], paddings [[0, 0], [2, 0]]
    x = np.arange(1, 17, dtype=F32).reshape(2, 2, 4, 1)
    got = run_on("REF", nd_node("SpaceToBatchND", F32), x, ints([2, 2]), ints([[0, 0], [2, 0]]))
    want = [[0, 1, 3], [0, 9, 11], [0, 2, 4], [0, 10, 12], [0, 5, 7], [0, 13, 15],
            [0, 6, 8], [0, 14, 16]]
    np.testing.assert_array_equal(got, np.array(want, F32).reshape(8, 1, 3, 1))
    back = run_on("REF", nd_node("BatchToSpaceND", F32), got, ints([2, 2]),
                  ints([[0, 0], [2, 0]]))
    np.testing.assert_array_equal(back, x)
    # SpaceToBatch (the 4-D op) example (4): block 2, no padding
    got = run_on("REF", square_node("SpaceToBatch", F32, 2), x, ints([[0, 0], [0, 0]]))
    want = [[1, 3], [9, 11], [2, 4], [10, 12], [5, 7], [13, 15], [6, 8], [14, 16]]
    np.testing.assert_array_equal(got, np.array(want, F32).reshape(8, 1, 2, 1))


ND_CASES = [
    ((2, 4, 6, 3), [2, 3], [[0, 0], [0, 0]]),
    ((1, 3, 5, 2), [2, 2], [[1, 0], [2, 1]]),
    ((3, 5), [5], [[0, 0]]),                                  # M = 1, nothing after it
    ((2, 2, 3, 2, 2), [1, 3, 2], [[0, 0], [1, 2], [1, 1]]),   # M = 3, a block of 1
    ((1, 1, 1, 1), [1, 1], [[0, 0], [0, 0]]),                 # every block 1: a copy
    ((0, 4, 2, 1), [2, 2], [[0, 0], [0, 0]]),                 # an empty batch
    ((2, 0, 2, 1), [2, 1], [[1, 1], [0, 0]]),                 # an empty, padded dimension
    ((2, 3), [], []),                                        # M = 0
]


@pytest.mark.parametrize("shape,block,pads", ND_CASES, ids=str)
def test_space_to_batch_nd_and_back_against_the_references(shape, block, pads):
    x = counting(shape)
    pads_array = ints(pads).reshape(len(block), 2)
    got = run_on("REF", nd_node("SpaceToBatchND", F32), x, ints(block), pads_array)
    np.testing.assert_array_equal(got, space_to_batch_ref(x, block, pads))
    back = run_on("REF", nd_node("BatchToSpaceND", F32, I64), got, ints(block, I64),
                  pads_array.astype(I64))
    np.testing.assert_array_equal(back, batch_to_space_ref(got, block, pads))
    np.testing.assert_array_equal(back, x)


@pytest.mark.parametrize("shape,block,crops", [
    ((8, 1, 3, 1), [2, 2], [[0, 0], [2, 0]]), ((6, 2, 2, 3), [3, 2], [[1, 2], [0, 3]]),
    ((4, 2, 1), [4], [[3, 5]]), ((4, 1, 1, 1), [2, 2], [[1, 1], [2, 0]])], ids=str)
def test_batch_to_space_nd_crops_against_the_reference(shape, block, crops):
    x = counting(shape)
    got = run_on("REF", nd_node("BatchToSpaceND", F32), x, ints(block), ints(crops))
    np.testing.assert_array_equal(got, batch_to_space_ref(x, block, crops))


PATCH_CASES = [
    ((1, 5, 5, 1), (3, 3), (1, 1), (1, 1), "VALID"), ((2, 5, 6, 3), (2, 3), (2, 1), (1, 1), "SAME"),
    ((1, 7, 7, 2), (2, 2), (1, 1), (2, 2), "VALID"), ((2, 6, 5, 2), (3, 2), (2, 3), (2, 1), "SAME"),
    ((1, 3, 3, 1), (1, 1), (1, 1), (2, 2), "VALID"), ((1, 4, 4, 1), (4, 4), (1, 1), (1, 1), "SAME"),
    ((0, 4, 4, 2), (2, 2), (1, 1), (1, 1), "SAME"), ((1, 4, 4, 0), (2, 2), (1, 1), (1, 1), "VALID"),
    ((1, 1, 1, 1), (1, 1), (1, 1), (1, 1), "VALID"),
]


@pytest.mark.parametrize("shape,k,s,r,padding", PATCH_CASES, ids=str)
def test_extract_image_patches_against_the_reference(shape, k, s, r, padding):
    x = counting(shape)
    got = run_on("REF", patches_node(F32, k, s, r, padding), x)
    np.testing.assert_array_equal(got, patches_ref(x, k, s, r, padding))


def test_tfs_extract_image_patches_example():
    # TF's docs: 10x10 image of 1..100, 3x3 patches, strides 5, rates 1, VALID
    x = np.arange(1, 101, dtype=F32).reshape(1, 10, 10, 1)
    got = run_on("REF", patches_node(F32, (3, 3), (5, 5), (1, 1), "VALID"), x)
    np.testing.assert_array_equal(got[0, 0, 0], [1, 2, 3, 11, 12, 13, 21, 22, 23])
    np.testing.assert_array_equal(got[0, 1, 1], [56, 57, 58, 66, 67, 68, 76, 77, 78])
    # with rates 2 the windows are 5 wide: [1, 3, 5, 21, 23, 25, 41, 43, 45]
    got = run_on("REF", patches_node(F32, (3, 3), (5, 5), (2, 2), "VALID"), x)
    np.testing.assert_array_equal(got[0, 0, 0], [1, 3, 5, 21, 23, 25, 41, 43, 45])


# --- every device against the reference ---------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_device_and_dtype(device, dtype):
    rng = rng_for("space", dtype)
    for shape, block in DEPTH_CASES[:-1]:
        x = random_array(rng, shape, dtype)
        for fmt in ("NHWC", "NCHW"):
            y = x if fmt == "NHWC" else np.ascontiguousarray(x.transpose(0, 3, 1, 2))
            got = check_against_ref(device, depth_node("SpaceToDepth", dtype, block, fmt), y)
            check_against_ref(device, depth_node("DepthToSpace", dtype, block, fmt), got)
    for shape, block, pads in ND_CASES:
        x = random_array(rng, shape, dtype)
        pads = ints(pads).reshape(len(block), 2)
        got = check_against_ref(device, nd_node("SpaceToBatchND", dtype), x, ints(block), pads)
        check_against_ref(device, nd_node("BatchToSpaceND", dtype, I64), got,
                          ints(block, I64), pads.astype(I64))
    x = random_array(rng, (2, 3, 5, 2), dtype)
    got = check_against_ref(device, square_node("SpaceToBatch", dtype, 2), x,
                            ints([[1, 0], [0, 1]]))
    check_against_ref(device, square_node("BatchToSpace", dtype, 2), got,
                      ints([[1, 0], [0, 1]]))
    if dtype != BOOL:                    # ExtractImagePatches takes real numbers
        for shape, k, s, r, padding in PATCH_CASES:
            check_against_ref(device, patches_node(dtype, k, s, r, padding),
                              random_array(rng, shape, dtype))


@pytest.mark.parametrize("device", DEVICES)
def test_a_big_tensor(device):
    x = random_array(rng_for("big"), (4, 64, 66, 33), F32)
    got = check_against_ref(device, depth_node("SpaceToDepth", F32, 2), x)
    assert got.shape == (4, 32, 33, 132)
    got = check_against_ref(device, nd_node("SpaceToBatchND", F32), x, ints([4, 3]),
                            ints([[0, 0], [1, 2]]))
    assert got.shape == (48, 16, 23, 33)
    check_against_ref(device, patches_node(F32, (3, 3), (2, 2), (2, 1), "SAME"), x)


# --- static shapes and build-time errors ------------------------------------------------------

def test_static_shapes(graph):
    x = ds.placeholder(ds.float32, (None, 4, 6, 3))
    assert ds.space_to_depth(x, 2).shape.as_list() == [None, 2, 3, 12]
    assert ds.depth_to_space(ds.space_to_depth(x, 2), 2).shape.as_list() == [None, 4, 6, 3]
    nchw = ds.placeholder(ds.float32, (2, 8, 4, None))
    assert ds.depth_to_space(nchw, 2, data_format="NCHW").shape.as_list() == [2, 2, 8, None]
    assert ds.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 0]]).shape.as_list() == \
        [None, 3, 2, 3]
    y = ds.placeholder(ds.float32, (6, None, 4, 5))
    assert ds.space_to_batch_nd(y, [2, 3], [[0, 0], [1, 1]]).shape.as_list() == \
        [36, None, 2, 5]
    assert ds.batch_to_space_nd(y, [2, 3], [[0, 1], [2, 3]]).shape.as_list() == \
        [1, None, 7, 5]
    unknown_block = ds.placeholder(ds.int32, (2,))
    assert ds.space_to_batch_nd(y, unknown_block, [[0, 0], [0, 0]]).shape.as_list() == \
        [None, None, None, 5]
    unknown_pads = ds.placeholder(ds.int64, (2, 2))
    assert ds.space_to_batch_nd(y, [2, 2], unknown_pads).shape.as_list() == \
        [24, None, None, 5]
    s2b = ds.space_to_batch(x, [[0, 0], [1, 1]], 2)
    assert (s2b.op.type, s2b.shape.as_list()) == ("SpaceToBatchND", [None, 2, 4, 3])
    assert ds.batch_to_space(s2b, [[0, 0], [1, 1]], block_size=2).shape.as_list() == \
        [None, 4, 6, 3]
    p = ds.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
    assert p.shape.as_list() == [None, 2, 6, 18]
    p = ds.image.extract_patches(x, [1, 3, 2, 1], [1, 1, 1, 1], [1, 1, 2, 1], "VALID")
    assert (p.op.type, p.shape.as_list()) == ("ExtractImagePatches", [None, 2, 4, 18])
    unknown = ds.placeholder(ds.float32)
    assert ds.space_to_depth(unknown, 2).shape.as_list() == [None] * 4
    assert ds.space_to_batch_nd(unknown, [2], [[0, 0]]).shape.ndims is None


@pytest.mark.parametrize("build,message", [
    (lambda x: ds.space_to_depth(x, 2), "Dimension size must be evenly divisible by 2 but is 5"),
    (lambda x: ds.space_to_depth(x, 1), "Attr 'block_size' of 'SpaceToDepth' Op passed 1 less"),
    (lambda x: ds.depth_to_space(x, 2), "Dimension size must be evenly divisible by 4 but is 3"),
    (lambda x: ds.space_to_depth(x[0], 2), "Shape must be rank 4 but is rank 3"),
    (lambda x: ds.space_to_depth(x, 2, data_format="NCHW_VECT_C"), "data_format"),
    (lambda x: ds.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]),
     "Dimension size must be evenly divisible by 2 but is 5"),
    (lambda x: ds.space_to_batch_nd(x, [2, 2], [[0, 1], [-1, 0]]), "paddings cannot be negative"),
    (lambda x: ds.space_to_batch_nd(x, [0, 2], [[0, 1], [0, 0]]), "block_shape must be positive"),
    (lambda x: ds.space_to_batch_nd(x, [[2, 2]], [[0, 1], [0, 0]]),
     "block_shape must have rank 1"),
    (lambda x: ds.space_to_batch_nd(x, [2, 2], [[0, 1]]), r"paddings must have shape \[2, 2\]"),
    (lambda x: ds.space_to_batch_nd(x, [1, 1, 1, 1], [[0, 0]] * 4),
     "Shape must be at least rank 5 but is rank 4"),
    (lambda x: ds.batch_to_space_nd(x, [2, 1], [[0, 0], [0, 0]]),
     "Dimension size must be evenly divisible by 2 but is 3"),
    (lambda x: ds.batch_to_space_nd(x, [3, 1], [[8, 8], [0, 0]]),
     "Negative dimension size caused by cropping"),
    (lambda x: ds.batch_to_space_nd(x, [3, 1], [[0, -1], [0, 0]]), "crops cannot be negative"),
    (lambda x: ds.space_to_batch(x, [[0, 0], [0, 1]], 2), "evenly divisible by 2 but is 5"),
    (lambda x: ds.space_to_batch(x, [[0, 1], [0, 0]]), "block_size"),
    (lambda x: ds.extract_image_patches(x, [1, 7, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
     "Computed output size would be negative"),
    (lambda x: ds.extract_image_patches(x, [1, 2, 2, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                        "VALID"),
     "requires the ksizes attribute to contain 4 values, but got: 5"),
    (lambda x: ds.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 0, 1, 1], "VALID"),
     "rates is out of range"),
    (lambda x: ds.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL"),
     "padding must be 'SAME' or 'VALID'"),
    (lambda x: ds.nn.atrous_conv2d(x, np.ones((3, 3, 3, 1), F32), 0, "SAME"),
     "all values of `dilation_rate` must be positive"),
    (lambda x: ds.nn.atrous_conv2d_transpose(x, np.ones((3, 3, 1, 2), F32), [3, 5, 6, 1], 2,
                                             "SAME"),
     "value's input channels does not match filters' input channels, 3 != 2"),
    (lambda x: ds.nn.atrous_conv2d_transpose(x, np.ones((3, 3, 1, 3), F32), [3, 5, 6, 2], 2,
                                             "SAME"),
     "output_shape does not match filter's output channels, 2 != 1"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_time_errors_are_value_errors(graph, build, message):
    x = ds.placeholder(ds.float32, (3, 5, 6, 3), name="x")
    with pytest.raises(ValueError, match=message):
        build(x)


def test_index_operands_must_be_integers(graph):
    x = ds.placeholder(ds.float32, (2, 4, 4, 1))
    with pytest.raises(TypeError, match="must be an int32 or int64"):
        ds.space_to_batch_nd(x, ds.constant([2.0, 2.0]), [[0, 0], [0, 0]])
    with pytest.raises(TypeError, match="real number"):
        ds.extract_image_patches(x > 0, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")


# --- run-time errors --------------------------------------------------------------------------

@pytest.mark.parametrize("device", [pytest.param("REF", id="ref"), *DEVICES])
@pytest.mark.parametrize("node,inputs,message", [
    (depth_node("SpaceToDepth", F32, 2, name="s2d"), (np.ones((1, 4, 3, 1), F32),),
     "Image width 3 and height 4 should be divisible by block_size: 2"),
    (depth_node("SpaceToDepth", F32, 2, name="s2d"), (np.ones((4, 4, 1), F32),),
     "Input rank should be: 4 instead of: 3"),
    (depth_node("DepthToSpace", F32, 2, name="d2s"), (np.ones((1, 2, 2, 6), F32),),
     "Input depth dimension 6 should be divisible by: 4"),
    (nd_node("SpaceToBatchND", F32, name="s2b"),
     (np.ones((1, 5, 4, 1), F32), ints([2, 2]), ints([[0, 0], [0, 0]])),
     r"padded_shape\[0\]=5 is not divisible by block_shape\[0\]=2"),
    (nd_node("SpaceToBatchND", F32, name="s2b"),
     (np.ones((1, 4, 4, 1), F32), ints([2, -2]), ints([[0, 0], [0, 0]])),
     "All values in block_shape must be positive, got value, -2 at index 1"),
    (nd_node("SpaceToBatchND", F32, name="s2b"),
     (np.ones((1, 4, 4, 1), F32), ints([2, 2]), ints([[0, -1], [0, 0]])),
     "Paddings must be non-negative"),
    (nd_node("SpaceToBatchND", F32, name="s2b"),
     (np.ones((1, 4, 4, 1), F32), ints([2, 2]), ints([[0, 0]])),
     r"paddings should have shape \[2, 2\] instead of \[1,2\]"),
    (nd_node("SpaceToBatchND", F32, name="s2b"),
     (np.ones((4, 4), F32), ints([2, 2]), ints([[0, 0], [0, 0]])),
     "input rank should be >= 3 instead of 2"),
    (nd_node("BatchToSpaceND", F32, name="b2s"),
     (np.ones((3, 2, 2, 1), F32), ints([2, 1]), ints([[0, 0], [0, 0]])),
     r"Input batch dimension \(3\) is not divisible by product of block sizes \(2\)"),
    (nd_node("BatchToSpaceND", F32, name="b2s"),
     (np.ones((4, 2, 2, 1), F32), ints([2, 2]), ints([[3, 2], [0, 0]])),
     r"cropped_shape\[0\]=-1 must be non-negative"),
    (nd_node("BatchToSpaceND", F32, name="b2s"),
     (np.ones((4, 2, 2, 1), F32), ints([[2, 2]]), ints([[0, 0], [0, 0]])),
     "block_shape rank should be 1 instead of 2"),
    (square_node("SpaceToBatch", F32, 2, name="s2b4"),
     (np.ones((1, 4, 4), F32), ints([[0, 0], [0, 0]])), "Input rank should be: 4"),
    (square_node("BatchToSpace", F32, 1, name="b2s4"),
     (np.ones((1, 4, 4, 1), F32), ints([[0, 0], [0, 0]])), "Block size should be > 1: 1"),
    (patches_node(F32, (3, 3), (1, 1), (1, 1), "VALID", name="patches"),
     (np.ones((1, 1, 5, 1), F32),), "does not fit"),
    (patches_node(F32, (2, 2), (1, 1), (1, 1), "VALID", name="patches"),
     (np.ones((2, 5, 1), F32),), "must be 4-dimensional"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_run_time_errors_name_the_node(device, node, inputs, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on(device, node, *inputs)
    assert info.value.node_name == node.name and f"'{node.name}'" in str(info.value)


@pytest.mark.parametrize("device", [pytest.param("REF", id="ref"), *DEVICES])
def test_patches_of_a_window_up_to_a_stride_past_the_input_are_none(device):
    """TF's GetWindowedOutputSize, ``(size - effective + stride) / stride`` toward zero:
    a VALID window up to ``stride`` pixels past the input gives 0 patches (the shapes
    TF 2.21 printed); Conv2D and MaxPool refuse it."""
    x = np.ones((1, 4, 5, 2), F32)
    for k, s, r, want in [((5, 3), (1, 1), (1, 1), (1, 0, 3, 30)),
                          ((3, 3), (2, 1), (2, 1), (1, 0, 3, 18)),
                          ((7, 3), (4, 1), (1, 1), (1, 0, 3, 42))]:
        got = run_on(device, patches_node(F32, k, s, r, "VALID"), x)
        assert got.shape == want, (k, s, r)


def test_patches_output_size_is_tfs_even_past_the_input(graph):
    x = ds.placeholder(ds.float32, (1, 16, 16, 2))
    shape = ds.image.extract_patches(x, [1, 20, 1, 1], [1, 3, 1, 1], [1, 1, 1, 1],
                                     "VALID").shape.as_list()
    assert shape == [1, 0, 16, 40]                     # TF: (16 - 20 + 3) / 3 is 0
    assert ds.extract_image_patches(x, [1, 9, 1, 1], [1, 1, 1, 1], [1, 2, 1, 1],
                                    "VALID").shape.as_list() == [1, 0, 16, 18]
    with pytest.raises(ValueError, match=r"negative: -1 \[input_size: 16, effective_filter_"
                                         r"size: 18, stride: 1\]"):
        ds.extract_image_patches(x, [1, 18, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    patches = ds.extract_image_patches(x, [1, 17, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    grad = ds.gradients(ds.reduce_sum(patches), x)[0]
    with ds.Session() as sess:
        got, back = sess.run([patches, grad], {x: np.ones((1, 16, 16, 2), F32)})
    assert got.shape == (1, 0, 16, 34) and back.tolist() == np.zeros((1, 16, 16, 2)).tolist()


def test_patches_across_batch_or_depth_build_and_are_unimplemented_at_run(graph):
    """TF's shape function reads the spatial sizes only (TF 2.21 built each of these as
    [2, 3, 5, 18]); its kernel refuses anything but 1 in the batch and depth dimensions."""
    x = ds.constant(np.ones((2, 5, 6, 3), F32))
    one, space = [1, 1, 1, 1], [1, 3, 2, 1]
    built = {"ksizes": ds.image.extract_patches(x, [2, 3, 2, 1], one, one, "VALID"),
             "strides": ds.image.extract_patches(x, space, [1, 1, 1, 2], one, "VALID"),
             "rates": ds.extract_image_patches(x, space, one, [2, 1, 1, 1], "VALID")}
    assert [p.shape.as_list() for p in built.values()] == [[2, 3, 5, 18]] * 3
    with ds.Session() as sess:
        for attr, patches in built.items():
            with pytest.raises(ds.errors.UnimplementedError,
                               match=f"Only support {attr} across space"):
                sess.run(patches)


def test_shapes_known_only_at_run_time(graph):
    x = ds.placeholder(ds.float32, (None, None, None, None), name="x")
    block = ds.placeholder(ds.int32, (2,), name="block")
    pads = ds.placeholder(ds.int32, (2, 2), name="pads")
    s2d = ds.space_to_depth(x, 2, name="s2d")
    s2b = ds.space_to_batch_nd(x, block, pads, name="s2b")
    b2s = ds.batch_to_space_nd(s2b, block, pads)
    xv = counting((2, 4, 6, 3))
    with ds.Session() as sess:
        got, back = sess.run([s2b, b2s], {x: xv, block: [2, 3], pads: [[1, 1], [0, 3]]})
        np.testing.assert_array_equal(got, space_to_batch_ref(xv, [2, 3], [[1, 1], [0, 3]]))
        np.testing.assert_array_equal(back, xv)
        with pytest.raises(ds.errors.InvalidArgumentError, match="should be divisible") as e:
            sess.run(s2d, {x: counting((1, 3, 4, 1))})
        assert e.value.node_name == "s2d"
        with pytest.raises(ds.errors.InvalidArgumentError, match="not divisible") as e:
            sess.run(s2b, {x: xv, block: [5, 1], pads: [[0, 0], [0, 0]]})
        assert e.value.node_name == "s2b"


# --- sessions ------------------------------------------------------------------------------------

def test_nchw_is_the_nhwc_rearrangement_between_transposes(graph):
    x = ds.placeholder(ds.float64, (2, 6, 4, 2))
    nchw = ds.transpose(x, [0, 3, 1, 2])
    down = ds.space_to_depth(nchw, 2, data_format="NCHW")
    up = ds.depth_to_space(down, 2, data_format="NCHW")
    xv = counting((2, 6, 4, 2), F64)
    with ds.Session() as sess:
        got_down, got_up = sess.run([down, up], {x: xv})
    np.testing.assert_array_equal(got_down, space_to_depth_ref(xv, 2).transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(got_up, xv.transpose(0, 3, 1, 2))


def test_fetches_are_new_arrays_even_where_nothing_moves(graph):
    x = ds.placeholder(ds.float32, (1, 2, 2, 1))
    outs = [ds.space_to_batch_nd(x, [1, 1], [[0, 0], [0, 0]]),
            ds.batch_to_space_nd(x, [1, 1], [[0, 0], [0, 0]]), ds.space_to_depth(x, 2),
            ds.extract_image_patches(x, [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")]
    xv = counting((1, 2, 2, 1))
    with ds.Session() as sess:
        for got in sess.run(outs, {x: xv}):
            assert not np.shares_memory(got, xv)
            got[...] = 0
    assert xv.sum() == 10


def test_on_the_stand_in_gpu(standin):
    x = ds.placeholder(ds.float32, (2, 4, 6, 3), name="x")
    with ds.device("gpu:0"):
        s2d = ds.space_to_depth(x * 1.0, 2)
        s2b = ds.space_to_batch_nd(x * 1.0, [2, 3], ds.placeholder(ds.int32, (2, 2), "pads"))
        patches = ds.extract_image_patches(x * 1.0, [1, 2, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1],
                                           "SAME")
        (grad,) = ds.gradients(ds.reduce_sum(patches * patches), [x])
    xv = counting((2, 4, 6, 3)) / 10
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        got = sess.run([s2d, s2b, patches, grad], {x: xv, "pads:0": [[0, 0], [0, 0]]})
    np.testing.assert_array_equal(got[0], space_to_depth_ref(xv, 2))
    np.testing.assert_array_equal(got[1], space_to_batch_ref(xv, [2, 3], [[0, 0], [0, 0]]))
    want = patches_ref(xv, (2, 2), (2, 1), (1, 2), "SAME")
    np.testing.assert_array_equal(got[2], want)
    # d sum(p^2)/dx: 2 x times the number of patch elements that read each pixel
    np.testing.assert_allclose(got[3], 2 * xv * reads_per_pixel((4, 6), (2, 2), (2, 1),
                                                                (1, 2), "SAME"), rtol=1e-6)


# --- the atrous convolutions ------------------------------------------------------------------

def dilated_conv_ref(x, f, rate, padding):
    """Conv2D of stride 1 with the filter's taps ``rate`` apart: TF's SAME pads the
    effective window ``(k - 1) * rate + 1`` (the odd element at the end)."""
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    eh, ew = (kh - 1) * rate + 1, (kw - 1) * rate + 1
    if padding == "SAME":
        top, left = (eh - 1) // 2, (ew - 1) // 2
        oh, ow = h, w
    else:
        top = left = 0
        oh, ow = h - eh + 1, w - ew + 1
    out = np.zeros((n, oh, ow, o), np.float64)
    for i, j, a, b in itertools.product(range(oh), range(ow), range(kh), range(kw)):
        row, col = i - top + a * rate, j - left + b * rate
        if 0 <= row < h and 0 <= col < w:
            out[:, i, j, :] += x[:, row, col, :] @ f[a, b]
    return out


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("rate", [1, 2, 3])
def test_atrous_conv2d_and_its_transpose(graph, padding, rate):
    rng = rng_for("atrous", padding, rate)
    xv, fv = rng.standard_normal((2, 9, 8, 3)), rng.standard_normal((3, 2, 3, 4))
    x, f = ds.constant(xv), ds.constant(fv)
    y = ds.nn.atrous_conv2d(x, f, rate, padding, name="atrous")
    assert (y.op.type, y.op.get_attr("dilations")) == ("Conv2D", [1, rate, rate, 1])
    dy = ds.placeholder(ds.float64, y.shape, name="dy")
    back = ds.nn.atrous_conv2d_transpose(dy, f, [2, 9, 8, 3], rate, padding)
    dyv = rng.standard_normal(y.shape.as_list())
    with ds.Session() as sess:
        got, got_back = sess.run([y, back], {dy: dyv})
    np.testing.assert_allclose(got, dilated_conv_ref(xv, fv, rate, padding), rtol=1e-10)
    # the transpose is the adjoint: <conv(x), dy> == <x, conv_transpose(dy)>
    assert got_back.shape == xv.shape
    np.testing.assert_allclose((got * dyv).sum(), (xv * got_back).sum(), rtol=1e-10)


# --- a GraphDef TensorFlow wrote ------------------------------------------------------------------

def test_a_graph_def_written_by_tensorflow_runs_with_tfs_values_and_shapes():
    from tf_recorded import run_recorded, tf_static_shape

    graph, names, values, data = run_recorded("tf_space_ops")
    assert len(names) == 12
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg=name)
        got_shape, want_shape = graph.get_tensor_by_name(name).shape, tf_static_shape(data, name)
        assert got_shape == want_shape, (name, got_shape, want_shape)
    # TF's Multinomial imports and draws from the same classes (its values are TF's RNG's)
    (key,) = [k for k in data if k.startswith("sample:")]
    with ds.Session(graph=graph) as sess:
        drawn = sess.run(key[7:], {"logits:0": data["feed:logits"]})
    assert (drawn.dtype, drawn.shape) == (data[key].dtype, data[key].shape)
    for row, tf_row, finite in zip(drawn, data[key], [{0, 1, 3}, {0, 1, 2}]):
        assert set(row.tolist()) <= finite and set(tf_row.tolist()) <= finite


def test_devsessions_builders_give_tfs_values():
    """The builders (not TF's graph) on the recorded feeds: atrous_conv2d (TF 1.15's
    SpaceToBatchND around a Conv2D) and its transpose, TF1's space_to_batch, and the
    gradients TF computed."""
    from tf_recorded import DATA

    data = np.load(f"{DATA}/tf_space_ops.npz")
    xv, fv, yv = (data[f"feed:{k}"] for k in "xfy")
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, (None, 6, 4, 3))
        f = ds.constant(fv)
        s2d = ds.space_to_depth(x, 2)
        s2b = ds.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]])
        patches = ds.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
        atrous = ds.nn.atrous_conv2d(x, f, 2, "SAME")
        outs = [atrous, ds.nn.atrous_conv2d_transpose(yv, f, [2, 6, 4, 3], 2, "SAME"),
                ds.nn.atrous_conv2d_transpose(np.ones((2, 2, 2, 2), np.float32), f,
                                              [2, 6, 6, 3], 2, "VALID"),
                ds.space_to_batch(x, [[0, 2], [1, 1]], block_size=2)]
        grads = [ds.gradients(ds.reduce_sum(s2d * s2d), x)[0],
                 ds.gradients(ds.reduce_sum(s2b * s2b * s2b), x)[0],
                 ds.gradients(ds.reduce_sum(patches * patches), x)[0],
                 *ds.gradients(ds.reduce_sum(ds.square(atrous)), [x, f])]
        with ds.Session() as sess:
            got, got_grads = sess.run([outs, grads], {x: xv})
    names = {"atrous_s2b": 0, "atrous_transpose": 1, "atrous_transpose_valid": 2,
             "space_to_batch_tf1": 3}
    for key, index in names.items():
        recorded = data[f"fetch:{data[f'name:{key}']}"]
        np.testing.assert_allclose(got[index], recorded, rtol=1e-5, atol=1e-5, err_msg=key)
    for key, value in zip(["space_to_depth", "space_to_batch_nd", "patches_same",
                           "atrous_conv2d:0", "atrous_conv2d:1"], got_grads):
        np.testing.assert_allclose(value, data[f"grad:{key}"], rtol=1e-4, atol=1e-4,
                                   err_msg=key)
