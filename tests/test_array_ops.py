"""The array family's kernels on every device against the numpy reference ("REF") and
against direct numpy formulas: gathers, segment sums, one-hot, AddN, slices and strided
slices (built by tensor indexing, so the builder's spec is what runs), the reshapes,
joins, tiles, pads and filled tensors; sizes 0, 1, 7 (and big ones where a kernel
computes), every dtype the op takes, and the runtime errors naming the node.

The same kernels over a numpy stand-in for cupy (``test_gpu_cupy_standin.py``) run at
the end, so the GPU modules' Python logic is exercised where there is no GPU.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import devsession as ds
from devsession.device_spec import Device
from devsession.errors import InvalidArgumentError
from devsession.kernels.registry import KernelNode, lookup_kernel
from kernel_cases import (ALL, BIG, DEVICES, F16, F32, F64, FLOATS, I32, I64, NUMERIC,
                          assert_same, check_against_ref, make_node, random_array, rng_for,
                          run_on)
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)

INDEX = [I32, I64]
SIZES = [0, 1, 7]


def node_for(tensor: ds.Tensor, name=None) -> KernelNode:
    """The KernelNode of the op that made ``tensor`` (built through the public API)."""
    op = tensor.op
    return KernelNode(name or op.name, op.type, dict(op.attrs),
                      tuple(t.dtype.np for t in op.inputs), tuple(None for _ in op.inputs),
                      tensor.dtype.np, None, output_dtypes=tuple(t.dtype.np for t in op.outputs))


def const_inputs(tensor: ds.Tensor) -> list:
    """The values of the Const inputs of ``tensor``'s op (shapes, begin/end...)."""
    return [t.op.attrs["value"] for t in tensor.op.inputs if t.op.type == "Const"]


# --- GatherV2 -------------------------------------------------------------------------------

GATHER_CASES = [((0, 3), (0,), 0), ((1,), (), 0), ((7,), (7,), 0), ((7, 3), (2, 3), 0),
                ((3, 4, 5), (4,), 1), ((3, 4, 5), (2, 2), -1), ((3, 4, 5), (0,), 0),
                ((2, 7), (9,), 1)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("params_shape, index_shape, axis", GATHER_CASES, ids=str)
def test_gather(device, dtype, params_shape, index_shape, axis):
    rng = rng_for("gather", params_shape, index_shape, axis)
    params = random_array(rng, params_shape, dtype)
    n = params_shape[axis]
    for index_dtype in INDEX:
        indices = rng.integers(0, max(n, 1), index_shape).astype(index_dtype)
        node = make_node("GatherV2", [dtype, index_dtype, I32], dtype)
        got = check_against_ref(device, node, params, indices, np.array(axis, I32))
        assert_same(got, np.take(params, indices, axis=axis))


@pytest.mark.parametrize("device", ["REF", *DEVICES])
@pytest.mark.parametrize("bad", [5, 3, -1])
def test_gather_index_out_of_range_names_the_node(device, bad):
    node = make_node("GatherV2", [F32, I64, I32], F32, name="lookup")
    indices = np.array([[0, 1], [bad, 2]], I64)
    with pytest.raises(InvalidArgumentError,
                       match=rf"lookup.*indices\[1,0\] = {bad} is not in \[0, 3\)") as info:
        run_on(device, node, np.ones((3, 2), F32), indices, np.array(0, I32))
    assert info.value.node_name == "lookup"
    with pytest.raises(InvalidArgumentError, match=r"axis in the range \[-2, 2\)"):
        run_on(device, node, np.ones((3, 2), F32), indices[:1], np.array(2, I32))


# --- UnsortedSegmentSum ----------------------------------------------------------------------

def segment_sum_formula(data, ids, n):
    out = np.zeros((n,) + data.shape[ids.ndim:], F64)
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
    for row, s in zip(rows, ids.reshape(-1)):
        if s >= 0:
            out[s] += row
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("data_shape, ids_shape, n", [
    ((0, 3), (0,), 4), ((1,), (1,), 1), ((7,), (7,), 3), ((7, 3), (7,), 5),
    ((2, 3, 4), (2, 3), 4), ((5, 2), (5,), 0)], ids=str)
def test_unsorted_segment_sum(device, dtype, data_shape, ids_shape, n):
    rng = rng_for("segment_sum", data_shape, n)
    data = random_array(rng, data_shape, dtype, low=-5, high=5)
    ids = rng.integers(-1, n, ids_shape)          # repeats, and -1 rows that are dropped
    for index_dtype in INDEX:
        node = make_node("UnsortedSegmentSum", [dtype, index_dtype, I32], dtype)
        got = check_against_ref(device, node, data, ids.astype(index_dtype),
                                np.array(n, I32))
        want = segment_sum_formula(data.astype(F64), ids, n)
        assert_same(got, want.astype(dtype), rtol=4e-3 if dtype == F16 else None)


@pytest.mark.parametrize("device", DEVICES)
def test_unsorted_segment_sum_big(device):
    rng = rng_for("segment_sum_big")
    data = random_array(rng, (BIG // 7, 7), F32)
    ids = rng.integers(-1, 50, BIG // 7).astype(I32)
    node = make_node("UnsortedSegmentSum", [F32, I32, I32], F32)
    got = check_against_ref(device, node, data, ids, np.array(50, I32), atol=2e-3)
    np.testing.assert_allclose(got, segment_sum_formula(data, ids, 50), atol=2e-3)


SMALL_INTS = [np.dtype(t) for t in (np.int8, np.int16, np.uint8, np.uint16)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", SMALL_INTS, ids=str)
def test_unsorted_segment_sum_of_small_integers_wraps(device, dtype):
    # CUDA has no atomicAdd for these: the totals go through int32 and wrap back as TF's
    info = np.iinfo(dtype)
    data = np.full((600, 2), info.max, dtype)
    ids = np.repeat(np.arange(3), 200).astype(I32)
    node = make_node("UnsortedSegmentSum", [dtype, I32, I32], dtype)
    got = check_against_ref(device, node, data, ids, np.array(3, I32))
    want = (np.full((3, 2), 200 * int(info.max)) % 2 ** (8 * dtype.itemsize))
    assert_same(got, want.astype(np.uint64).astype(dtype))


@pytest.mark.parametrize("device", ["REF", *DEVICES])
def test_segment_id_out_of_range_names_the_node(device):
    node = make_node("UnsortedSegmentSum", [F32, I32, I32], F32, name="scatter")
    with pytest.raises(InvalidArgumentError,
                       match=r"scatter.*segment_ids\[2\] = 4 is out of range \[0, 4\)") as info:
        run_on(device, node, np.ones((3, 2), F32), np.array([0, -1, 4], I32),
               np.array(4, I32))
    assert info.value.node_name == "scatter"
    with pytest.raises(InvalidArgumentError, match="does not start with"):
        run_on(device, node, np.ones((3, 2), F32), np.array([0, 1], I32), np.array(4, I32))


# --- OneHot, AddN -----------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_shape, depth, axis", [
    ((0,), 3, -1), ((1,), 1, -1), ((7,), 4, -1), ((7,), 4, 0), ((2, 3), 5, 1),
    ((2, 3), 5, 0), ((2, 3), 0, -1), ((), 3, -1)], ids=str)
def test_one_hot(device, dtype, index_shape, depth, axis):
    rng = rng_for("one_hot", index_shape, depth, axis)
    indices = rng.integers(-2, depth + 3, index_shape)   # out of range: all-off rows
    on, off = random_array(rng, (2,), dtype)
    for index_dtype in INDEX:
        node = make_node("OneHot", [index_dtype, I32, dtype, dtype], dtype, {"axis": axis})
        got = check_against_ref(device, node, indices.astype(index_dtype),
                                np.array(depth, I32), np.array(on), np.array(off))
        hot = np.moveaxis(np.equal.outer(indices, np.arange(depth)), -1,
                          indices.ndim if axis == -1 else axis)
        assert_same(got, np.where(hot, on, off).astype(dtype))


@pytest.mark.parametrize("device", DEVICES)
def test_one_hot_deeper_than_the_index_dtype(device):
    # a uint8 index never reaches position 300: no position may wrap onto it
    indices = np.array([0, 44, 255], np.uint8)
    node = make_node("OneHot", [np.dtype(np.uint8), I32, F32, F32], F32, {"axis": -1})
    got = check_against_ref(device, node, indices, np.array(300, I32),
                            np.array(1, F32), np.array(0, F32))
    assert_same(got, np.equal.outer(indices, np.arange(300)).astype(F32))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("count", [1, 2, 5])
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (2, 3)], ids=str)
def test_add_n(device, dtype, count, shape):
    rng = rng_for("add_n", dtype, count, shape)
    xs = [random_array(rng, shape, dtype) for _ in range(count)]
    node = make_node("AddN", [dtype] * count, dtype)
    got = check_against_ref(device, node, *xs)
    assert_same(got, np.sum([x.astype(F64) for x in xs], axis=0).astype(dtype))


@pytest.mark.parametrize("device", DEVICES)
def test_add_n_big_and_mismatched_shapes(device):
    rng = rng_for("add_n_big")
    xs = [random_array(rng, (BIG,), F32) for _ in range(3)]
    node = make_node("AddN", [F32] * 3, F32, name="total")
    assert_same(check_against_ref(device, node, *xs), xs[0] + xs[1] + xs[2])
    with pytest.raises(InvalidArgumentError, match=r"total.*\[7\], \[7\], \[6\]"):
        run_on(device, node, *[x[:7] for x in xs[:2]], xs[2][:6])


# --- slices -----------------------------------------------------------------------------------

INDEXING = [
    (np.s_[1:, ::2, 0], (3, 4, 5)), (np.s_[..., None, -1], (3, 4, 5)),
    (np.s_[::-1, 3:0:-2], (3, 4, 5)), (np.s_[None], (3, 4, 5)),
    (np.s_[1, ..., ::-3], (3, 4, 5)), (np.s_[-2:, None, 1:-1:2, None], (3, 4, 5)),
    (np.s_[:, -1], (0, 3)), (np.s_[5:], (7,)), (np.s_[-10:10:3], (7,)), (np.s_[0], (1,)),
    (np.s_[...], (7,)), (np.s_[::-1], (0,)), (np.s_[2], (7,)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("key, shape", INDEXING, ids=str)
def test_strided_slice_from_indexing(device, dtype, key, shape):
    x = random_array(rng_for("strided", shape), shape, dtype)
    with ds.Graph().as_default():
        sliced = ds.placeholder(ds.as_dtype(dtype), shape)[key]
        node = node_for(sliced)
        spec = const_inputs(sliced)
    assert sliced.op.type == "StridedSlice" and sliced.shape == x[key].shape
    got = check_against_ref(device, node, x, *spec)
    assert_same(got, x[key])
    # its gradient: zeros with the gradient written where the slice read
    dy = random_array(rng_for("strided_grad", shape), got.shape, dtype)
    grad_node = make_node("StridedSliceGrad", [I32] * 4 + [dtype], dtype, node.attrs)
    dx = check_against_ref(device, grad_node, np.array(shape, I32), *spec, dy)
    want = np.zeros(shape, dtype)
    want[key] = dy
    assert_same(dx, want)


@pytest.mark.parametrize("device", ["REF", *DEVICES])
def test_slice_errors_name_the_node(device):
    node = make_node("StridedSlice", [F32, I32, I32, I32], F32, {"shrink_axis_mask": 1},
                     name="pick")
    spec = [np.array([v], I32) for v in (3, 4, 1)]
    with pytest.raises(InvalidArgumentError, match="pick.*slice index 3 of dimension 0 out "
                                                   "of bounds") as info:
        run_on(device, node, np.ones(3, F32), *spec)
    assert info.value.node_name == "pick"
    node = make_node("Slice", [F32, I32, I32], F32, name="block")
    with pytest.raises(InvalidArgumentError, match=r"block.*size\[1\] in \[0, 1\]"):
        run_on(device, node, np.ones((2, 3), F32), np.array([0, 2], I32), np.array([1, 2], I32))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape, begin, size", [
    ((3, 4, 5), (0, 1, 2), (-1, 2, 3)), ((7,), (7,), (0,)), ((1,), (0,), (-1,)),
    ((0, 3), (0, 1), (0, -1)), ((), (), ())], ids=str)
def test_slice(device, dtype, shape, begin, size):
    x = random_array(rng_for("slice", shape), shape, dtype)
    node = make_node("Slice", [dtype, I32, I32], dtype)
    got = check_against_ref(device, node, x, np.array(begin, I32), np.array(size, I32))
    index = tuple(slice(b, None if n == -1 else b + n) for b, n in zip(begin, size))
    assert_same(got, x[index])


# --- reshapes, joins, tiles, pads, filled tensors -----------------------------------------------
# (op, attrs, extra host inputs, numpy formula) over inputs x of each shape; ``None``
# skips a shape the op cannot take.

def _pairs(x, before=1, after=2):
    return np.array([[min(before, d), min(after, d)] for d in x.shape], I32).reshape(-1, 2)


MOVEMENT = {
    "Reshape": ({}, lambda x: [np.array([-1, 1], I32)], lambda x, s: x.reshape(-1, 1)),
    "Squeeze": ({"squeeze_dims": ()}, lambda x: [], lambda x: np.squeeze(x)),
    "ExpandDims": ({}, lambda x: [np.array(-1, I32)], lambda x, d: x[..., None]),
    "Tile": ({}, lambda x: [np.array([2] + [1] * (x.ndim - 1) if x.ndim else [], I32)],
             lambda x, m: np.tile(x, m) if x.ndim else x.copy()),
    "Pad": ({}, lambda x: [_pairs(x)], lambda x, p: np.pad(x, p) if x.ndim else x),
    "MirrorPad": ({"mode": "SYMMETRIC"}, lambda x: [_pairs(x)],
                  lambda x, p: np.pad(x, p, mode="symmetric") if x.ndim else x),
    "Shape": ({}, lambda x: [], lambda x: np.array(x.shape, I32)),
    "Size": ({}, lambda x: [], lambda x: np.array(x.size, I32)),
    "Rank": ({}, lambda x: [], lambda x: np.array(x.ndim, I32)),
    "ZerosLike": ({}, lambda x: [], np.zeros_like),
    "OnesLike": ({}, lambda x: [], np.ones_like),
}
MOVEMENT_SHAPES = [(0,), (1,), (7,), (2, 1, 3), ()]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("op", sorted(MOVEMENT))
@pytest.mark.parametrize("shape", MOVEMENT_SHAPES, ids=str)
def test_data_movement(device, dtype, op, shape):
    attrs, extra, formula = MOVEMENT[op]
    x = np.asarray(random_array(rng_for(op, shape), shape, dtype))
    if op == "MirrorPad" and 0 in shape:
        return                    # nothing to mirror: the paddings must be 0 (see below)
    inputs = [x, *extra(x)]
    out_dtype = I32 if op in ("Shape", "Size", "Rank") else dtype
    node = make_node(op, [a.dtype for a in inputs], out_dtype, attrs)
    got = check_against_ref(device, node, *inputs)
    assert_same(got, np.asarray(formula(*inputs)).astype(out_dtype))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_pack_unpack_fill_padv2(device, dtype):
    rng = rng_for("pack", dtype)
    xs = [random_array(rng, (2, 3), dtype) for _ in range(3)]
    for axis in (0, 1, -1):
        pack = make_node("Pack", [dtype] * 3, dtype, {"axis": axis, "N": 3})
        packed = check_against_ref(device, pack, *xs)
        assert_same(packed, np.stack(xs, axis=axis))
        unpack = make_node("Unpack", [dtype], dtype, {"axis": axis, "num": 3})
        for got, want in zip(check_against_ref(device, unpack, packed), xs):
            assert_same(got, want)
    value = random_array(rng, (), dtype)
    fill = make_node("Fill", [I64, dtype], dtype)
    assert_same(check_against_ref(device, fill, np.array([2, 0, 3], I64), value),
                np.full((2, 0, 3), value))
    assert_same(check_against_ref(device, fill, np.array([4], I64), value), np.full(4, value))
    padv2 = make_node("PadV2", [dtype, I32, dtype], dtype)
    pairs = np.array([[1, 0], [2, 3]], I32)
    assert_same(check_against_ref(device, padv2, xs[0], pairs, value),
                np.pad(xs[0], pairs, constant_values=value))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + [I32])
@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("shape", [(1, 4), (3, 4, 5), (7,)], ids=str)
def test_mirror_pad_and_its_gradient(device, dtype, mode, shape):
    rng = rng_for("mirror", shape, mode)
    x = random_array(rng, shape, dtype)
    offset = 1 if mode == "REFLECT" else 0
    pairs = np.array([[d - offset, min(1, d - offset)] for d in shape], I32)
    node = make_node("MirrorPad", [dtype, I32], dtype, {"mode": mode})
    padded = check_against_ref(device, node, x, pairs)
    assert_same(padded, np.pad(x, pairs, mode=mode.lower()))
    # the gradient is the adjoint: <pad(x), dy> == <x, grad(dy)>
    dy = random_array(rng, padded.shape, dtype, low=-3, high=3)
    grad = make_node("MirrorPadGrad", [dtype, I32], dtype, {"mode": mode})
    dx = check_against_ref(device, grad, dy, pairs, rtol=1e-2 if dtype == F16 else None)
    assert dx.shape == x.shape
    np.testing.assert_allclose(np.sum(padded.astype(F64) * dy), np.sum(x.astype(F64) * dx),
                               rtol=1e-2 if dtype == F16 else 1e-5)


@pytest.mark.parametrize("device", ["REF", *DEVICES])
def test_movement_errors_name_the_node(device):
    cases = [
        (make_node("Squeeze", [F32], F32, {"squeeze_dims": (1,)}, name="sq"),
         (np.ones((2, 3), F32),), r"sq.*squeeze dim\[1\], expected a dimension of 1, got 3"),
        (make_node("Tile", [F32, I32], F32, name="tl"),
         (np.ones((2, 3), F32), np.array([2], I32)), r"tl.*multiples \[2\] must be 2"),
        (make_node("Pad", [F32, I32], F32, name="pd"),
         (np.ones((2, 3), F32), np.array([[1, -1], [0, 0]], I32)), "pd.*non-negative"),
        (make_node("MirrorPad", [F32, I32], F32, {"mode": "REFLECT"}, name="mp"),
         (np.ones((2, 3), F32), np.array([[2, 0], [0, 0]], I32)), "mp.*at most 1"),
        (make_node("Reshape", [F32, I32], F32, name="rs"),
         (np.ones((2, 3), F32), np.array([4, -1], I32)), r"rs.*\[2,3\].*\[4,-1\]"),
        (make_node("Pack", [F32, F32], F32, {"axis": 0}, name="pk"),
         (np.ones(2, F32), np.ones(3, F32)), r"pk.*\[2\], \[3\]"),
        (make_node("ExpandDims", [F32, I32], F32, name="ed"),
         (np.ones(2, F32), np.array(3, I32)), r"ed.*\[-2, 1\]"),
        (make_node("Fill", [I32, F32], F32, name="fl"),
         (np.array([-1], I32), np.array(1, F32)), "fl.*non-negative"),
    ]
    for node, inputs, pattern in cases:
        with pytest.raises(InvalidArgumentError, match=pattern) as info:
            run_on(device, node, *inputs)
        assert info.value.node_name == node.name


# --- the GPU modules over the numpy stand-in for cupy ------------------------------------------

@pytest.fixture
def gpu_standin(standin, monkeypatch):  # noqa: F811  (the imported fixture)
    """The stand-in, with the numpy functions the array kernels call added."""
    cupy = sys.modules["cupy"]

    def wrapped(fn):
        return lambda *a, **k: np.asarray(fn(*a, **k)).view(cupy.ndarray)
    for name in ("take", "stack", "flip", "broadcast_to", "arange", "ones", "zeros"):
        monkeypatch.setattr(cupy, name, wrapped(getattr(np, name)), raising=False)
    return cupy


ARRAY_OPS = {"GatherV2", "UnsortedSegmentSum", "OneHot", "AddN", "Slice", "StridedSlice",
             "StridedSliceGrad", "Squeeze", "ExpandDims", "Pack", "Unpack", "Tile", "Pad",
             "PadV2", "MirrorPad", "MirrorPadGrad", "Shape", "Size", "Rank", "Fill",
             "ZerosLike", "OnesLike", "Reshape", "Split", "SplitV", "PlaceholderWithDefault"}


def test_gpu_kernels_over_the_standin(gpu_standin):
    from devsession.kernels.registry import registered_ops

    cupy = gpu_standin
    assert ARRAY_OPS <= registered_ops("GPU") and ARRAY_OPS <= registered_ops("CPU")
    rng = rng_for("standin array")
    x = random_array(rng, (3, 4, 5), F32)
    gpu = Device("GPU", 0)
    cases = [(f"{op} {shape}", make_node(op, [a.dtype for a in inputs],
                                         I32 if op in ("Shape", "Size", "Rank") else F32,
                                         MOVEMENT[op][0], device=gpu), inputs)
             for op in sorted(MOVEMENT) for shape in [(3, 4, 5), (0,)]
             for inputs in [[x.reshape(-1)[:int(np.prod(shape))].reshape(shape),
                             *MOVEMENT[op][1](np.zeros(shape))]]
             if not (op == "MirrorPad" and 0 in shape)]
    with ds.Graph().as_default():
        for key in (np.s_[1:, ::2, 0], np.s_[..., None, -1], np.s_[::-1]):
            sliced = ds.placeholder(ds.float32, x.shape)[key]
            cases.append((str(key), node_for(sliced), [x, *const_inputs(sliced)]))
    indices = np.array([[2, 0], [1, 2]], I64)
    cases += [
        ("gather", make_node("GatherV2", [F32, I64, I32], F32, device=gpu),
         [x, indices, np.array(1, I32)]),
        ("one_hot", make_node("OneHot", [I64, I32, F32, F32], F32, {"axis": 1}, device=gpu),
         [indices - 1, np.array(3, I32), np.array(2, F32), np.array(-1, F32)]),
        ("add_n", make_node("AddN", [F32] * 3, F32, device=gpu), [x, x, x * 2]),
        ("fill", make_node("Fill", [I32, F32], F32, device=gpu),
         [np.array([2, 3], I32), np.array(1.5, F32)]),
        ("pack", make_node("Pack", [F32, F32], F32, {"axis": 1}, device=gpu), [x, x]),
        ("padv2", make_node("PadV2", [F32, I32, F32], F32, device=gpu),
         [x, _pairs(x), np.array(7, F32)]),
        ("mirror grad", make_node("MirrorPadGrad", [F32, I32], F32, {"mode": "SYMMETRIC"},
                                  device=gpu), [x, np.array([[1, 1], [0, 1], [2, 1]], I32)]),
        ("slice", make_node("Slice", [F32, I32, I32], F32, device=gpu),
         [x, np.array([1, 0, 2], I32), np.array([-1, 2, 2], I32)]),
    ]
    for label, node, inputs in cases:
        want = lookup_kernel(node.op, "REF")(node)(*inputs)
        got = lookup_kernel(node.op, "GPU")(node)(*[cupy.asarray(a) for a in inputs])
        assert isinstance(got, cupy.ndarray), label
        assert_same(cupy.asnumpy(got), want)
    node = make_node("GatherV2", [F32, I64, I32], F32, name="on_gpu", device=gpu)
    with pytest.raises(InvalidArgumentError, match=r"on_gpu.*indices\[1,1\] = 5"):
        lookup_kernel("GatherV2", "GPU")(node)(cupy.asarray(x), cupy.asarray(indices * 0 + [
            [0, 0], [0, 5]]), np.array(0, I32))
