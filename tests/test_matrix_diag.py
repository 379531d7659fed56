"""TF's batched diagonal ops with bands of diagonals (devsession/ops/diagonals.py,
kernels/reference/diagonals.py): MatrixDiag, MatrixDiagPart, MatrixSetDiag and their V2
and V3 forms, as tf.linalg.diag / diag_part / set_diag (tf.matrix_diag...) build them.

* A GraphDef TensorFlow 2.21 wrote (tests/data/make_tf_matrix_diag.py: every op type in
  bands, alignments, paddings, shapes, batches; TF's gradient graphs of them, of
  tf.linalg.cholesky and of tf.linalg.inv) imports and computes TF's values and shapes.
* Values against a loop oracle written from TF's documented formula, for the four
  alignments, over dtypes; sizes 0 and 1.
* TF's build-time ValueErrors and run-time InvalidArgumentErrors naming the node.
* Gradients against finite differences in float64.
* Kernels: the CPU's and the GPU's (on the cupy stand-in, or a GPU) against the
  reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.common import make_op
from gradient_check import check_op_gradient
from kernel_cases import BOOL, DEVICES, F16, F32, F64, I32, I64, check_against_ref, make_node
from tf_recorded import run_recorded, tf_static_shape

COVERED = {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3", "MatrixDiagPart", "MatrixDiagPartV2",
           "MatrixDiagPartV3", "MatrixSetDiagV2"}
ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
InvalidArgumentError = ds.errors.InvalidArgumentError


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


# --- the oracle: TF's documented formula, one element at a time -----------------------------

def _offset(d, rows, cols, max_len, align):
    length = min(rows + min(0, d), cols - max(0, d))
    left = (d >= 0 and align in ("LEFT_LEFT", "LEFT_RIGHT")) or \
        (d <= 0 and align in ("LEFT_LEFT", "RIGHT_LEFT"))
    return 0 if left else max_len - length


def oracle_part(x, lo, hi, padding=0, align="RIGHT_LEFT"):
    rows, cols = x.shape[-2:]
    max_len = min(rows + min(hi, 0), cols - max(lo, 0))
    out = np.full(x.shape[:-2] + (hi - lo + 1, max_len), padding, x.dtype)
    for m in range(hi - lo + 1):
        d = hi - m
        off = _offset(d, rows, cols, max_len, align)
        for n in range(max_len):
            i, j = n - off + max(-d, 0), n - off + max(d, 0)
            if 0 <= i < rows and 0 <= j < cols:
                out[..., m, n] = x[..., i, j]
    return out[..., 0, :] if lo == hi else out


def oracle_set(x, diag, lo, hi, align="RIGHT_LEFT"):
    rows, cols = x.shape[-2:]
    max_len = diag.shape[-1]
    diag = diag[..., None, :] if lo == hi else diag
    out = x.copy()
    for i in range(rows):
        for j in range(cols):
            d = j - i
            if lo <= d <= hi:
                out[..., i, j] = diag[..., hi - d, j - max(d, 0) +
                                      _offset(d, rows, cols, max_len, align)]
    return out


# --- TensorFlow's graph -----------------------------------------------------------------------

def test_tf_graph_imports_and_computes_tf_values():
    graph, names, values, data = run_recorded("tf_matrix_diag")
    types = {op.type for op in graph.get_operations() if "Diag" in op.type}
    assert types >= COVERED | {"MatrixSetDiag", "MatrixSetDiagV3"}
    assert len(names) == 65
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-13, err_msg=name)
        ours, theirs = graph.get_tensor_by_name(name).shape, tf_static_shape(data, name)
        assert ours.is_compatible_with(theirs), name
        if "Diag" in graph.get_tensor_by_name(name).op.type:
            assert ours.dims == theirs.dims, name
    gradients = {str(data[k]) for k in data if k.startswith("key:grad_")}
    assert {"grad_cholesky", "grad_inverse"} <= {k[4:] for k in data if k.startswith("key:")}
    assert len(gradients) == 14


# --- values -----------------------------------------------------------------------------------

BANDS = [(0, 0), (1, 1), (-2, -2), (-1, 1), (-2, 0), (0, 3), (1, 2), (-3, -1)]


@pytest.mark.parametrize("align", ALIGNS)
@pytest.mark.parametrize("band", BANDS, ids=str)
def test_diag_part_set_diag_and_diag_as_the_formula(band, align):
    lo, hi = band
    rng = np.random.default_rng(abs(hash((band, align))) % 2**32)
    x = rng.standard_normal((2, 4, 5))
    part = ds.matrix_diag_part(x, k=band, padding_value=-7.0, align=align)
    want = oracle_part(x, lo, hi, -7.0, align)
    assert (part.op.type, part.shape) == ("MatrixDiagPartV3", want.shape)
    np.testing.assert_array_equal(run(part), want)
    diag = rng.standard_normal(want.shape)
    y = ds.matrix_set_diag(x, diag, k=band, align=align)
    assert (y.op.type, y.shape) == ("MatrixSetDiagV3", x.shape)
    np.testing.assert_array_equal(run(y), oracle_set(x, diag, lo, hi, align))
    m = ds.matrix_diag(diag, k=band, num_rows=4, num_cols=5, padding_value=2.5, align=align)
    assert (m.op.type, m.shape) == ("MatrixDiagV3", x.shape)
    np.testing.assert_array_equal(run(m), oracle_set(np.full(x.shape, 2.5), diag, lo, hi,
                                                     align))


@pytest.mark.parametrize("dtype", [F16, F32, I32, I64, BOOL], ids=str)
def test_dtypes_and_default_sizes(dtype):
    d = (np.arange(1, 7).reshape(2, 3) % 2).astype(dtype) if dtype == BOOL else \
        np.arange(1, 7, dtype=dtype).reshape(2, 3)
    m = ds.linalg.diag(d, k=1)                      # square, just big enough
    assert (m.op.type, m.op.name, m.shape, m.dtype) == ("MatrixDiagV3", "diag", (2, 4, 4),
                                                        ds.as_dtype(dtype))
    np.testing.assert_array_equal(run(m), oracle_set(np.zeros((2, 4, 4), dtype), d, 1, 1))
    back = ds.linalg.diag_part(m, k=1)
    assert (back.op.name, back.shape) == ("diag_part", (2, 3))
    np.testing.assert_array_equal(run(back), d)
    tall = ds.matrix_diag(d, k=-1, num_cols=3)      # rows from the diagonal: 4
    assert tall.shape == (2, 4, 3)
    np.testing.assert_array_equal(run(tall), oracle_set(np.zeros((2, 4, 3), dtype), d, -1, -1))
    s = ds.linalg.set_diag(run(m), d[:, :2], k=-2)
    assert s.op.name == "set_diag"
    np.testing.assert_array_equal(run(s), oracle_set(run(m), d[:, :2], -2, -2))


def test_aliases_sizes_zero_and_one():
    assert ds.linalg.diag is ds.matrix_diag and ds.linalg.diag_part is ds.matrix_diag_part
    assert ds.linalg.set_diag is ds.matrix_set_diag
    assert run(ds.matrix_diag(np.zeros((2, 0)))).shape == (2, 0, 0)
    assert run(ds.matrix_diag_part(np.zeros((0, 3, 3)), k=(-1, 1))).shape == (0, 3, 3)
    assert run(ds.matrix_diag_part(np.zeros((3, 0)))).shape == (0,)
    assert run(ds.matrix_set_diag(np.zeros((0, 2)), np.zeros(0))).shape == (0, 2)
    np.testing.assert_array_equal(run(ds.matrix_diag([[5.0]], k=(0, 0))), [[[5.0]]])
    np.testing.assert_array_equal(run(ds.matrix_diag_part([[5.0]], k=(0, 0))), [5.0])
    np.testing.assert_array_equal(run(ds.matrix_diag([[1, 2], [3, 0]], k=(-1, 0))),
                                  [[1, 0], [3, 2]])


def test_v1_and_v2_ops_pack_left_left_as_tf():
    x = np.arange(12.0).reshape(3, 4)
    k = ds.constant([-1, 2])
    pad = ds.constant(9.0, ds.float64)
    v2 = make_op("MatrixDiagPartV2", [ds.constant(x), k, pad])
    np.testing.assert_array_equal(run(v2), oracle_part(x, -1, 2, 9.0, "LEFT_LEFT"))
    d = oracle_part(x, -1, 2, 0.0, "LEFT_LEFT")
    set_v2 = make_op("MatrixSetDiagV2", [ds.constant(np.zeros((3, 4))), ds.constant(d), k])
    np.testing.assert_array_equal(run(set_v2), oracle_set(np.zeros((3, 4)), d, -1, 2,
                                                          "LEFT_LEFT"))
    diag_v2 = make_op("MatrixDiagV2", [ds.constant(d), k, ds.constant(3), ds.constant(4), pad])
    np.testing.assert_array_equal(run(diag_v2), oracle_set(np.full((3, 4), 9.0), d, -1, 2,
                                                           "LEFT_LEFT"))
    v1 = make_op("MatrixDiag", [ds.constant(x)])
    assert v1.shape == (3, 4, 4)
    np.testing.assert_array_equal(run(v1), np.stack([np.diag(r) for r in x]))
    part_v1 = make_op("MatrixDiagPart", [ds.constant(x)])
    assert part_v1.shape == (3,)
    np.testing.assert_array_equal(run(part_v1), np.diagonal(x))


# --- static shapes and errors -----------------------------------------------------------------

def test_static_shapes_as_tf():
    p = ds.placeholder(ds.float32, (None, 3, 5))
    assert ds.matrix_diag_part(p, k=(-1, 2)).shape.as_list() == [None, 4, 3]
    assert ds.matrix_diag_part(ds.placeholder(ds.float32, (2, None, 5)),
                               k=(1, 2)).shape.as_list() == [2, 2, None]
    k = ds.placeholder(ds.int32, (2,))
    assert ds.matrix_diag_part(p, k=k).shape.ndims is None
    assert ds.matrix_diag(p, k=k).shape.ndims is None
    assert ds.matrix_diag(p, k=(-1, 1)).shape.as_list() == [None, 5, 5]
    assert ds.matrix_diag(p, k=1, num_rows=7).shape.as_list() == [None, 3, 7, 6]
    rows = ds.placeholder(ds.int32, ())
    assert ds.matrix_diag(p, num_rows=rows, num_cols=5).shape.as_list() == [None, 3, None, 5]
    assert ds.matrix_set_diag(ds.placeholder(ds.float32, (None, None, None)),
                              ds.placeholder(ds.float32, (4, 2, 3)), k=(0, 1)).shape.as_list() \
        == [4, None, None]
    assert ds.matrix_set_diag(p, ds.placeholder(ds.float32), k=k).shape.as_list() == \
        [None, 3, 5]


@pytest.mark.parametrize("build,text", [
    (lambda: ds.matrix_diag_part(np.zeros((3, 4)), k=(1, 0)),
     "lower_diag_index is greater than upper_diag_index"),
    (lambda: ds.matrix_diag_part(np.zeros((3, 4)), k=[1, 2, 3]),
     "one or two elements. It has 3 elements"),
    (lambda: ds.matrix_diag_part(np.zeros((3, 4)), k=4), "lower_diag_index is out of bound"),
    (lambda: ds.matrix_diag_part(np.zeros((3, 4)), k=(-1, 4)),
     "upper_diag_index is out of bound"),
    (lambda: ds.matrix_diag_part(np.zeros(3)), "at least rank 2 but is rank 1"),
    (lambda: ds.matrix_diag_part(np.zeros((3, 4)), k=[[1]]), "at most rank 1 but is rank 2"),
    (lambda: ds.matrix_diag_part(np.zeros((3, 4)), align="UP"),
     "Attr 'align' of 'MatrixDiagPartV3' Op passed string 'UP' not in"),
    (lambda: ds.matrix_diag(np.zeros((2, 3)), k=(0, 2)),
     "The number of rows of `diagonal` doesn't match"),
    (lambda: ds.matrix_diag(np.zeros((2, 3)), k=(0, 1), num_rows=1), "num_rows is too small"),
    (lambda: ds.matrix_diag(np.zeros(3), num_cols=2), "num_cols is too small"),
    (lambda: ds.matrix_diag(np.zeros(3), num_rows=4, num_cols=5), "not consistent"),
    (lambda: ds.matrix_diag(3.0), "at least rank 1 but is rank 0"),
    (lambda: ds.matrix_set_diag(np.zeros((3, 4)), np.zeros(3), k=(0, 1)),
     "must be rank 2 but is rank 1"),
    (lambda: ds.matrix_set_diag(np.zeros((3, 4)), np.zeros((2, 3)), k=4),
     "must be rank 1 but is rank 2"),
    (lambda: ds.matrix_set_diag(np.zeros((3, 4)), np.zeros((2, 2)), k=(0, 1)), "needs"),
    (lambda: ds.matrix_set_diag(np.zeros((2, 3)), [1.0, 2.0, 3.0]), "needs"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_errors_as_tf(build, text):
    with pytest.raises(ValueError, match=text.replace("(", r"\(").replace("[", r"\[")):
        build()


def _fed(value, dtype=ds.float32):
    p = ds.placeholder(dtype)
    return p, {p: np.asarray(value, dtype.np)}


@pytest.mark.parametrize("build,text", [
    (lambda x, k: ds.matrix_diag_part(x, k=k, name="node"),
     "lower_diag_index is out of bound: 3. It must be between -2 and 3"),
    (lambda x, k: ds.matrix_set_diag(x, x, k=k, name="node"),
     "lower_diag_index is out of bound: 3 It must be between -2 and 3"),
    (lambda x, k: ds.matrix_diag(x, k=k, num_rows=1, name="node"),
     "The number of rows is too small."),
], ids=["part", "set", "diag"])
def test_run_time_band_errors_name_the_node(build, text):
    x, feed = _fed(np.zeros((2, 3)))
    k, feed_k = _fed(3, ds.int32)
    with pytest.raises(InvalidArgumentError, match=text.replace(".", r"\.")) as info:
        run(build(x, k), {**feed, **feed_k})
    assert info.value.node_name == "node"


def test_run_time_errors_as_tf():
    x, feed = _fed(np.zeros((3, 4)))
    k, _ = _fed(0, ds.int32)
    cases = [
        (ds.matrix_diag_part(x, k=k), {k: np.array([2, 1], np.int32)},
         "lower_diag_index must not be larger than upper_diag_index: 2 > 1"),
        (ds.matrix_diag_part(x, k=k), {k: np.array([0, 1, 2], np.int32)},
         "diag_index must have only one or two elements, received 3 elements."),
        (ds.matrix_diag_part(x, k=k), {k: np.zeros((1, 1), np.int32)},
         r"diag_index must be a scalar or vector, received shape: \[1,1\]"),
        (ds.matrix_set_diag(x, x, k=k), {k: np.zeros(0, np.int32)},
         "diag_index must have at least one element"),
        (ds.matrix_diag(x, k=k), {k: np.array([0, 1], np.int32)},
         "The number of diagonals provided in the input does not match"),
        (ds.matrix_set_diag(x, x, k=k), {k: np.array([0, 1], np.int32)},
         "The number of diagonals provided in `diag` is not consistent"),
        (ds.matrix_set_diag(x, x[0], k=k), {k: np.array(0, np.int32)},
         r"Expected diagonal shape: \[3\]"),
        (ds.matrix_diag(x[0], k=k, num_rows=5, num_cols=5), {k: np.array(0, np.int32)},
         "The number of rows or columns is not consistent"),
    ]
    for y, extra, text in cases:
        with pytest.raises(InvalidArgumentError, match=text) as info:
            run(y, {**feed, **extra})
        assert info.value.node_name == y.op.name
    v, feed_v = _fed(np.zeros(3))
    with pytest.raises(InvalidArgumentError, match=r"input must be at least 2-dim, received "
                                                   r"shape: \[3\]"):
        run(ds.matrix_diag_part(v), feed_v)
    s, feed_s = _fed(5.0)
    with pytest.raises(InvalidArgumentError, match="diagonal must be at least 1-dim"):
        run(ds.matrix_diag(s), feed_s)


# --- gradients --------------------------------------------------------------------------------

@pytest.mark.parametrize("align", ALIGNS)
def test_gradients_against_finite_differences(align):
    rng = np.random.default_rng(ALIGNS.index(align))
    x = rng.standard_normal((2, 3, 4))
    for band in [(-1, 2), (1, 1), (-2, 0)]:
        part = oracle_part(x, *band)
        check_op_gradient(lambda t, b=band: ds.matrix_diag_part(t, k=b, align=align), [x])
        check_op_gradient(lambda t, b=band: ds.matrix_diag(t, k=b, num_rows=3, num_cols=4,
                                                           align=align), [part])
        check_op_gradient(lambda t, u, b=band: ds.matrix_set_diag(t, u, k=b, align=align),
                          [x, rng.standard_normal(part.shape)])


def test_v1_v2_gradients_against_finite_differences():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4))
    band = oracle_part(x, -1, 2, 0.0, "LEFT_LEFT")
    def k():
        return ds.constant([-1, 2])

    def pad():
        return ds.constant(0.0, ds.float64)
    check_op_gradient(lambda t: make_op("MatrixDiagPartV2", [t, k(), pad()]), [x])
    check_op_gradient(lambda t: make_op("MatrixDiagV2", [t, k(), ds.constant(3),
                                                         ds.constant(4), pad()]), [band])
    check_op_gradient(lambda t, u: make_op("MatrixSetDiagV2", [t, u, k()]), [x, band])
    check_op_gradient(lambda t: make_op("MatrixDiag", [t]), [x[0]])
    check_op_gradient(lambda t: make_op("MatrixDiagPart", [t]), [x])
    check_op_gradient(lambda t, u: make_op("MatrixSetDiag", [t, u]), [x, x[:, :, 0]])
    # an unknown matrix shape: the part's gradient sets the band of zeros
    p = ds.placeholder(ds.float64, (2, None, None))
    g = ds.gradients(ds.reduce_sum(ds.sin(ds.matrix_diag_part(p, k=(-1, 1)))), p)[0]
    np.testing.assert_allclose(run(g, {p: x}), oracle_set(np.zeros_like(x), np.cos(
        oracle_part(x, -1, 1)), -1, 1), rtol=1e-12)


# --- kernels on every device against the reference ---------------------------------------------

def _check(device, op, dtypes_in, dtype_out, *inputs, align=None):
    node = make_node(op, dtypes_in, dtype_out, {"align": align} if align else None)
    return check_against_ref(device, node, *inputs)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F16, F32, F64, I32, I64, BOOL], ids=str)
def test_kernels_against_the_reference(device, dtype):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((2, 3, 5)) * 5).astype(dtype)
    pad = np.array(1, dtype)
    for k, align in [(np.array(0, I32), "RIGHT_LEFT"), (np.array([-1, 2], I32), "LEFT_RIGHT"),
                     (np.array([1, 3], I32), "RIGHT_RIGHT"), (np.array([-2], I32), None)]:
        v3 = align or "LEFT_LEFT"
        got = _check(device, "MatrixDiagPartV3", [dtype, I32, dtype], dtype, x, k, pad,
                     align=v3)
        _check(device, "MatrixDiagPartV2", [dtype, I32, dtype], dtype, x, k, pad)
        _check(device, "MatrixSetDiagV3", [dtype, dtype, I32], dtype, x, got, k, align=v3)
        _check(device, "MatrixSetDiagV2", [dtype, dtype, I32], dtype, x, got, k)
        rows, cols = np.array(3, I32), np.array(5, I32)
        _check(device, "MatrixDiagV3", [dtype, I32, I32, I32, dtype], dtype, got, k, rows,
               cols, pad, align=v3)
        _check(device, "MatrixDiagV2", [dtype, I32, I32, I32, dtype], dtype, got, k,
               np.array(-1, I32), np.array(-1, I32), pad)
    _check(device, "MatrixDiag", [dtype], dtype, x)
    _check(device, "MatrixDiagPart", [dtype], dtype, x)
    _check(device, "MatrixDiagPart", [dtype], dtype, x[:, :0])
