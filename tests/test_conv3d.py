"""3-D convolution and pooling: Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2,
MaxPool3D, AvgPool3D, MaxPool3DGrad, MaxPool3DGradGrad, AvgPool3DGrad, the ``ds.nn``
builders and the ``ds.layers`` 3-D layers.

* TF 2.21's values (tests/data/make_tf_conv3d.py): a frozen GraphDef TF wrote, imported
  and run (SAME with odd and even padding, strides, a dilation, VALID, NCDHW, 1x1x1, the
  transposed convolution, both poolings and every gradient op), and the same values
  from graphs ``ds.nn`` and ``ds.gradients`` build.
* The reference kernels against plain numpy loops written here (no kernel code), the
  gradient kernels as adjoints of the forward ones.
* Every device's kernels (the CPU's, a GPU where there is one, the CUDA module on the
  numpy stand-in) against the reference, empty inputs and float16 included.
* Gradients against finite differences (float64; MaxPool3D, float32 only as TF's op,
  in float32), second derivatives through the backprop ops.
* ValueError when the graph is built, as TF1; TF's run-time refusals naming the node.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError, UnimplementedError
from devsession.ops.common import make_op
from gradient_check import check_op_gradient
from kernel_cases import (DEVICES, F16, F32, F64, I32, check_against_ref, make_node, rng_for,
                          run_on)
from tf_recorded import run_recorded, tf_static_shape

CONV_OPS = ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")
POOL_OPS = ("MaxPool3D", "AvgPool3D", "MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3DGrad")
COVERED = frozenset(CONV_OPS + POOL_OPS)


def run(fetches, feeds=None):
    with ds.Session() as sess:
        return sess.run(fetches, feeds)


# ------------------------------------------------------------------- numpy oracles

def _geometry(sizes, window, strides, dilations, padding):
    """Per spatial dimension: (out, padding before), TF's SAME (odd element at the end)."""
    result = []
    for n, k, s, d in zip(sizes, window, strides, dilations):
        span = (k - 1) * d + 1
        out = -(-n // s) if padding == "SAME" else (n - span) // s + 1
        result.append((out, max((out - 1) * s + span - n, 0) // 2 if padding == "SAME" else 0))
    return result


def numpy_conv3d(x, f, strides, padding, dilations=(1, 1, 1)):
    """NDHWC, float64: out[n, o, :] sums x[n, i, :] @ f[k] over the taps inside."""
    geometry = _geometry(x.shape[1:4], f.shape[:3], strides, dilations, padding)
    outs = [o for o, _ in geometry]
    y = np.zeros((x.shape[0], *outs, f.shape[4]))
    for at in itertools.product(*(range(o) for o in outs)):
        for tap in itertools.product(*(range(k) for k in f.shape[:3])):
            where = [a * s - p + t * d for a, s, (_, p), t, d in
                     zip(at, strides, geometry, tap, dilations)]
            if all(0 <= w < n for w, n in zip(where, x.shape[1:4])):
                y[(slice(None), *at)] += x[(slice(None), *where)].astype(np.float64) @ f[tap]
    return y


def numpy_pool3d(x, window, strides, padding, reduce):
    """NDHWC, float64: ``reduce`` over the elements of each window inside the input."""
    geometry = _geometry(x.shape[1:4], window, strides, (1, 1, 1), padding)
    outs = [o for o, _ in geometry]
    y = np.zeros((x.shape[0], *outs, x.shape[4]))
    if x.shape[0] == 0:
        return y
    for at in itertools.product(*(range(o) for o in outs)):
        box = tuple(slice(max(a * s - p, 0), min(a * s - p + k, n)) for a, s, (_, p), k, n in
                    zip(at, strides, geometry, window, x.shape[1:4]))
        y[(slice(None), *at)] = reduce(x[(slice(None), *box)].reshape(x.shape[0], -1,
                                                                      x.shape[4]), axis=1)
    return y


def conv_attrs(strides, padding, dilations=(1, 1, 1), data_format="NDHWC"):
    if data_format == "NDHWC":
        return {"strides": (1, *strides, 1), "padding": padding, "data_format": data_format,
                "dilations": (1, *dilations, 1)}
    return {"strides": (1, 1, *strides), "padding": padding, "data_format": data_format,
            "dilations": (1, 1, *dilations)}


def pool_attrs(window, strides, padding, data_format="NDHWC"):
    if data_format == "NDHWC":
        return {"ksize": (1, *window, 1), "strides": (1, *strides, 1), "padding": padding,
                "data_format": data_format}
    return {"ksize": (1, 1, *window), "strides": (1, 1, *strides), "padding": padding,
            "data_format": data_format}


# --------------------------------------------------------------- TF 2.21's values

def test_a_frozen_graph_tensorflow_wrote_imports_and_runs():
    graph, names, values, data = run_recorded("tf_conv3d")
    for name, value in zip(names, values):
        np.testing.assert_allclose(value, data[f"fetch:{name}"], rtol=1e-5, atol=2e-5,
                                   err_msg=name)
        ours = graph.get_tensor_by_name(name).shape
        assert ours.is_compatible_with(value.shape), name
        if name != "conv_dilated:0":
            assert ours.as_list() == tf_static_shape(data, name).as_list(), name
    # TF's shape function gets a dilated Conv3D's static shape wrong ([?,2,3,5,2]); its
    # kernel (and ours, statically too) gives [2,2,4,4,2].
    assert graph.get_tensor_by_name("conv_dilated:0").shape.as_list() == [None, 2, 4, 4, 2]
    assert {op.type for op in graph.get_operations()} >= COVERED


def test_builders_and_gradients_give_tensorflows_values():
    graph, names, values, data = run_recorded("tf_conv3d")
    with ds.Session(graph=graph) as sess:
        f1, f2, f3 = sess.run(["f1:0", "f2:0", "f3:0"])
    want = {name[:-2]: data[f"fetch:{name}"] for name in names}
    xv, dy2, dy_pool = data["feed:x"], data["feed:dy2"], data["feed:dy_pool"]
    x = ds.constant(xv)
    strided = ds.nn.conv3d(x, f2, [1, 2, 2, 3, 1], "SAME")
    max_pooled = ds.nn.max_pool3d(x, [2, 2, 2], 2, "SAME")
    averaged = ds.nn.avg_pool3d(x, [1, 3, 3, 3, 1], [1, 2, 2, 2, 1], "SAME")
    f2_t = ds.constant(f2)
    strided_t = ds.nn.conv3d(x, f2_t, [1, 2, 2, 3, 1], "SAME")
    dx, df = ds.gradients(strided_t, [x, f2_t], grad_ys=dy2)
    assert (dx.op.type, df.op.type) == ("Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")
    got = run({
        "conv_same": ds.nn.conv3d(x, f1, [1, 1, 1, 1, 1], "SAME"),
        "conv_strided": strided,
        "conv_dilated": ds.nn.conv3d(x, filters=f3, strides=[1] * 5, padding="VALID",
                                     dilations=[1, 2, 1, 2, 1]),
        "conv_ncdhw": ds.nn.conv3d(ds.transpose(x, [0, 4, 1, 2, 3]), f1, [1, 1, 1, 2, 1],
                                   "SAME", data_format="NCDHW"),
        "transposed": ds.nn.conv3d_transpose(data["feed:small"], want_filter_t(graph),
                                             [2, 4, 5, 6, 2], [1, 2, 2, 2, 1], "SAME"),
        "max_pool_same": max_pooled,
        "max_pool_valid": ds.nn.max_pool3d(x, 3, [1, 1, 2, 1, 1], "VALID"),
        "avg_pool_same": averaged,
        "avg_pool_valid": ds.nn.avg_pool3d(x, [2, 3, 2], [2, 1, 2], "VALID"),
        "input_grad": dx, "filter_grad": df,
        "max_pool_grad": ds.gradients(max_pooled, x, grad_ys=dy_pool)[0],
        "avg_pool_grad": ds.gradients(ds.nn.avg_pool3d(x, 2, 2, "SAME"), x,
                                      grad_ys=dy_pool)[0],
        "filter_grad_v2": ds.nn.conv3d_backprop_filter_v2(x, [2, 3, 2, 2, 4], dy2,
                                                          [1, 2, 2, 3, 1], "SAME"),
    })
    want["filter_grad_v2"] = want["filter_grad"]
    for key, value in got.items():
        np.testing.assert_allclose(value, want[key], rtol=1e-5, atol=2e-5, err_msg=key)


def want_filter_t(graph):
    """conv3d_transpose's filter, a Const of the recorded graph."""
    op = next(op for op in graph.get_operations() if op.type == "Conv3DBackpropInputV2"
              and op.name == "transposed")
    with ds.Session(graph=graph) as sess:
        return sess.run(op.inputs[1])


def test_nodes_are_named_and_attributed_as_tensorflows():
    x = ds.placeholder(ds.float32, (None, 4, 4, 4, 2))
    y = ds.nn.conv3d(x, np.ones((2, 2, 2, 2, 3), F32), [1, 1, 1, 1, 1], "SAME")
    t = ds.nn.conv3d_transpose(y, np.ones((2, 2, 2, 2, 3), F32), [1, 4, 4, 4, 2],
                               [1, 1, 1, 1, 1])
    p, a = ds.nn.max_pool3d(x, 2, 2, "SAME"), ds.nn.avg_pool3d(x, 2, 2, "VALID")
    assert [(n.op.name, n.op.type) for n in (y, t, p, a)] == [
        ("Conv3D", "Conv3D"), ("conv3d_transpose", "Conv3DBackpropInputV2"),
        ("MaxPool3D", "MaxPool3D"), ("AvgPool3D", "AvgPool3D")]
    assert y.shape.as_list() == [None, 4, 4, 4, 3] and t.shape.as_list() == [1, 4, 4, 4, 2]
    assert p.op.attrs["ksize"] == (1, 2, 2, 2, 1)
    node = next(n for n in ds.get_default_graph().as_graph_def().node if n.name == "Conv3D")
    assert set(node.attr) >= {"strides", "padding", "data_format", "dilations"}
    assert ds.nn.conv3d_backprop_filter is ds.nn.conv3d_backprop_filter_v2


# ------------------------------------------------------------ reference vs numpy loops

# (input shape NDHWC, filter shape, strides, padding, dilations)
CASES = [
    ((2, 4, 5, 3, 2), (3, 3, 2, 2, 3), (1, 1, 1), "SAME", (1, 1, 1)),  # odd and even pads
    ((1, 6, 5, 7, 2), (2, 3, 3, 2, 2), (2, 2, 3), "SAME", (1, 1, 1)),
    ((1, 5, 6, 4, 1), (2, 2, 3, 1, 2), (2, 1, 2), "VALID", (1, 1, 1)),
    ((1, 5, 6, 5, 2), (2, 2, 2, 2, 1), (1, 1, 1), "SAME", (2, 1, 2)),  # dilations
    ((2, 6, 5, 5, 1), (2, 3, 2, 1, 2), (1, 1, 1), "VALID", (2, 2, 1)),
    ((1, 1, 1, 1, 1), (1, 1, 1, 1, 1), (1, 1, 1), "SAME", (1, 1, 1)),  # sizes 1
    ((1, 1, 2, 1, 2), (3, 3, 3, 2, 2), (2, 2, 2), "SAME", (1, 1, 1)),  # window > input
    ((0, 3, 3, 3, 2), (2, 2, 2, 2, 3), (1, 1, 1), "SAME", (1, 1, 1)),  # batch 0
]
EMPTY_CASES = [((2, 3, 3, 3, 0), (2, 2, 2, 0, 2), (1, 1, 1), "SAME", (1, 1, 1)),
               ((2, 3, 3, 3, 2), (2, 2, 2, 2, 0), (1, 1, 1), "SAME", (1, 1, 1)),
               ((2, 0, 3, 3, 2), (2, 2, 2, 2, 2), (1, 1, 1), "SAME", (1, 1, 1))]
POOL_CASES = [  # (input shape, window, strides, padding)
    ((2, 4, 5, 3, 2), (2, 2, 2), (2, 2, 2), "SAME"),
    ((1, 5, 6, 4, 3), (3, 3, 3), (1, 2, 1), "SAME"),
    ((1, 5, 6, 4, 1), (2, 3, 2), (2, 1, 2), "VALID"),
    ((1, 1, 1, 1, 2), (1, 1, 1), (1, 1, 1), "VALID"),
    ((1, 2, 1, 3, 1), (3, 3, 3), (2, 2, 2), "SAME"),
    ((0, 3, 3, 3, 2), (2, 2, 2), (1, 1, 1), "SAME"),
]


def _channels_first(a):
    return np.ascontiguousarray(np.moveaxis(a, 4, 1))


@pytest.mark.parametrize("data_format", ["NDHWC", "NCDHW"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_reference_convolution_matches_a_numpy_loop(case, data_format):
    x_shape, f_shape, strides, padding, dilations = case
    rng = rng_for("conv3d loop", case)
    x, f = rng.standard_normal(x_shape), rng.standard_normal(f_shape)
    want = numpy_conv3d(x, f, strides, padding, dilations)
    attrs = conv_attrs(strides, padding, dilations, data_format)
    layout = _channels_first if data_format == "NCDHW" else (lambda a: a)
    got = run_on("REF", make_node("Conv3D", [F64, F64], F64, attrs), layout(x), f)
    np.testing.assert_allclose(got, layout(want), rtol=1e-12, atol=1e-12)
    # The gradients are the adjoints of that map: <y(x), dy> = <x, dx(dy)> = <f, df(dy)>.
    dy = rng.standard_normal(want.shape)
    sizes = np.array(layout(x).shape, np.int32)
    dx = run_on("REF", make_node("Conv3DBackpropInputV2", [I32, F64, F64], F64, attrs),
                sizes, f, layout(dy))
    df = run_on("REF", make_node("Conv3DBackpropFilterV2", [F64, I32, F64], F64, attrs),
                layout(x), np.array(f_shape, np.int32), layout(dy))
    assert (dx.shape, df.shape) == (layout(x).shape, f_shape)
    np.testing.assert_allclose(np.sum(dx * layout(x)), np.sum(want * dy), rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(np.sum(df * f), np.sum(want * dy), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("data_format", ["NDHWC", "NCDHW"])
@pytest.mark.parametrize("case", POOL_CASES, ids=str)
def test_reference_pooling_matches_a_numpy_loop(case, data_format):
    x_shape, window, strides, padding = case
    rng = rng_for("pool3d loop", case)
    x = rng.permutation(np.arange(np.prod(x_shape), dtype=F32)).reshape(x_shape)  # no ties
    attrs = pool_attrs(window, strides, padding, data_format)
    layout = _channels_first if data_format == "NCDHW" else (lambda a: a)
    for op, reduce in (("MaxPool3D", np.max), ("AvgPool3D", np.mean)):
        want = numpy_pool3d(x, window, strides, padding, reduce)
        got = run_on("REF", make_node(op, [F32], F32, attrs), layout(x))
        np.testing.assert_allclose(got, layout(want), rtol=1e-6)
    # MaxPool3DGrad routes dy to the maxima, AvgPool3DGrad spreads it: adjoints again
    y = numpy_pool3d(x, window, strides, padding, np.max).astype(F32)
    dy = rng.standard_normal(y.shape).astype(F32)
    dx = run_on("REF", make_node("MaxPool3DGrad", [F32, F32, F32], F32, attrs), layout(x),
                layout(y), layout(dy))
    probe = rng.standard_normal(x.shape).astype(F32)
    picked = run_on("REF", make_node("MaxPool3DGradGrad", [F32, F32, F32], F32, attrs),
                    layout(x), layout(y), layout(probe))
    np.testing.assert_allclose(np.sum(dx * layout(probe)), np.sum(picked * layout(dy)),
                               rtol=1e-4, atol=1e-4)
    if x.size:   # each window's maximum gets its gradient, once
        np.testing.assert_allclose(np.sum(dx), np.sum(dy), rtol=1e-4, atol=1e-4)
    mean = numpy_pool3d(probe, window, strides, padding, np.mean)
    spread = run_on("REF", make_node("AvgPool3DGrad", [I32, F32], F32, attrs),
                    np.array(layout(x).shape, np.int32), layout(dy))
    np.testing.assert_allclose(np.sum(spread * layout(probe)), np.sum(mean * dy), rtol=1e-4,
                               atol=1e-4)


def test_max_pool_grad_goes_to_the_first_maximum_and_a_nan_wins():
    x = np.zeros((1, 2, 2, 2, 1), F32)
    x[0, 0, 1, 0, 0] = x[0, 1, 0, 1, 0] = 1          # a tie: the first in (d, h, w) order
    attrs = pool_attrs((2, 2, 2), (2, 2, 2), "VALID")
    node = make_node("MaxPool3DGrad", [F32, F32, F32], F32, attrs)
    dx = run_on("REF", node, x, np.ones((1, 1, 1, 1, 1), F32), np.full((1, 1, 1, 1, 1), 5, F32))
    assert dx.reshape(-1).tolist() == [0, 0, 5, 0, 0, 0, 0, 0]
    x[0, 1, 1, 1, 0] = np.nan
    assert np.isnan(run_on("REF", make_node("MaxPool3D", [F32], F32, attrs), x)).all()
    dx = run_on("REF", node, x, np.ones((1, 1, 1, 1, 1), F32), np.full((1, 1, 1, 1, 1), 5, F32))
    assert dx.reshape(-1).tolist() == [0, 0, 0, 0, 0, 0, 0, 5]


# ---------------------------------------------------------- every device vs reference

def conv_inputs(op, case, dtype, data_format="NDHWC"):
    x_shape, f_shape, strides, padding, dilations = case
    rng = rng_for(op, case, dtype, data_format)
    x = (rng.standard_normal(x_shape) * 3).astype(dtype)
    f = (rng.standard_normal(f_shape) * 3).astype(dtype)
    attrs = conv_attrs(strides, padding, dilations, data_format)
    layout = _channels_first if data_format == "NCDHW" else (lambda a: a)
    if op == "Conv3D":
        return make_node(op, [dtype, dtype], dtype, attrs), (layout(x), f)
    y_shape = numpy_conv3d(x[:0], f, strides, padding, dilations).shape[1:]
    dy = layout((rng.standard_normal(x_shape[:1] + y_shape) * 3).astype(dtype))
    if op == "Conv3DBackpropInputV2":
        return (make_node(op, [I32, dtype, dtype], dtype, attrs),
                (np.array(layout(x).shape, np.int32), f, dy))
    return (make_node(op, [dtype, I32, dtype], dtype, attrs),
            (layout(x), np.array(f_shape, np.int32), dy))


def pool_inputs(op, case, dtype, data_format="NDHWC"):
    x_shape, window, strides, padding = case
    rng = rng_for(op, case, dtype, data_format)
    x = (rng.standard_normal(x_shape) * 3).astype(dtype)
    attrs = pool_attrs(window, strides, padding, data_format)
    layout = _channels_first if data_format == "NCDHW" else (lambda a: a)
    y = numpy_pool3d(x, window, strides, padding, np.max).astype(dtype)
    dy = (rng.standard_normal(y.shape) * 3).astype(dtype)
    if op in ("MaxPool3D", "AvgPool3D"):
        return make_node(op, [dtype], dtype, attrs), (layout(x),)
    if op == "MaxPool3DGrad":
        return make_node(op, [dtype] * 3, dtype, attrs), (layout(x), layout(y), layout(dy))
    if op == "MaxPool3DGradGrad":
        grad = (rng.standard_normal(x_shape) * 3).astype(dtype)
        return make_node(op, [dtype] * 3, dtype, attrs), (layout(x), layout(y), layout(grad))
    return (make_node(op, [I32, dtype], dtype, attrs),
            (np.array(layout(x).shape, np.int32), layout(dy)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", CASES + EMPTY_CASES, ids=str)
def test_convolution_kernels_match_the_reference(device, case, dtype):
    eps = float(np.finfo(dtype).eps)
    for op in CONV_OPS:
        node, inputs = conv_inputs(op, case, dtype)
        check_against_ref(device, node, *inputs, rtol=64 * eps, atol=64 * eps * 27 * 100)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", POOL_CASES, ids=str)
def test_pooling_kernels_match_the_reference(device, case, dtype):
    for op in POOL_OPS:
        node, inputs = pool_inputs(op, case, dtype)
        check_against_ref(device, node, *inputs, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_kernels_in_ncdhw_and_float16(device):
    for op in CONV_OPS:
        check_against_ref(device, *_flat(conv_inputs(op, CASES[1], F32, "NCDHW")),
                          rtol=1e-5, atol=1e-4)
        check_against_ref(device, *_flat(conv_inputs(op, CASES[0], F16)), rtol=5e-3, atol=0.2)
    for op in POOL_OPS:
        check_against_ref(device, *_flat(pool_inputs(op, POOL_CASES[1], F32, "NCDHW")),
                          rtol=1e-6, atol=1e-5)
        check_against_ref(device, *_flat(pool_inputs(op, POOL_CASES[0], F16)), rtol=5e-3,
                          atol=1e-2)


def _flat(node_and_inputs):
    node, inputs = node_and_inputs
    return (node, *inputs)


@pytest.mark.parametrize("device", DEVICES)
def test_a_convolution_over_several_chunks_of_images(device, monkeypatch):
    """The CPU packs a few images at a time: a batch over several chunks sums right."""
    import devsession.kernels.cpu.conv3d as cpu_conv3d

    monkeypatch.setattr(cpu_conv3d, "CHUNK_ELEMENTS", 500)
    case = ((5, 4, 4, 3, 2), (2, 2, 2, 2, 3), (1, 1, 1), "SAME", (1, 1, 1))
    for op in CONV_OPS:
        check_against_ref(device, *_flat(conv_inputs(op, case, F64)))


# ------------------------------------------------------------------------- gradients

def normal(key, shape):
    return rng_for("conv3d grad", key).standard_normal(shape)


GRAD_CASES = [((1, 3, 4, 3, 2), (2, 3, 2, 2, 2), (1, 1, 1), "SAME", (1, 1, 1)),
              ((2, 4, 3, 4, 1), (2, 2, 2, 1, 2), (2, 1, 2), "SAME", (1, 1, 1)),
              ((1, 5, 3, 4, 1), (2, 1, 2, 1, 2), (1, 1, 1), "VALID", (2, 1, 2))]


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_convolution_gradient_matches_finite_differences(case):
    x_shape, f_shape, strides, padding, dilations = case
    check_op_gradient(
        lambda x, f: ds.nn.conv3d(x, f, [1, *strides, 1], padding,
                                  dilations=[1, *dilations, 1]),
        [normal(("x", case), x_shape), normal(("f", case), f_shape)])


def test_channels_first_gradient_matches_finite_differences():
    check_op_gradient(
        lambda x, f: ds.nn.conv3d(x, f, [1, 1, 2, 1, 2], "SAME", data_format="NCDHW"),
        [normal(("xc",), (1, 2, 3, 4, 3)), normal(("fc",), (2, 2, 2, 2, 2))])


def test_the_backprop_ops_gradients_match_finite_differences():
    """Second derivatives: each backprop op is linear in its two tensor inputs."""
    case = GRAD_CASES[1]
    attrs = conv_attrs(*case[2:4], case[4])
    x, f = normal(("bx",), case[0]), normal(("bf",), case[1])
    dy = normal(("bdy",), (2, 2, 3, 2, 2))
    check_op_gradient(lambda f, dy: make_op("Conv3DBackpropInputV2",
                                            [ds.constant(np.array(case[0], np.int32)), f, dy],
                                            attrs), [f, dy])
    check_op_gradient(lambda x, dy: make_op("Conv3DBackpropFilterV2",
                                            [x, ds.constant(np.array(case[1], np.int32)), dy],
                                            attrs), [x, dy])


@pytest.mark.parametrize("case", POOL_CASES[:5], ids=str)
def test_pooling_gradients_match_finite_differences(case):
    x_shape, window, strides, padding = case
    size, step = [1, *window, 1], [1, *strides, 1]
    check_op_gradient(lambda x: ds.nn.avg_pool3d(x, size, step, padding),
                      [normal(("avg", case), x_shape)])
    # MaxPool3D takes float32 only, as TF's: distinct values (ties 0.01 apart at least)
    values = rng_for("max grad", case).permutation(np.prod(x_shape)).reshape(x_shape)
    check_op_gradient(lambda x: ds.nn.max_pool3d(x, size, step, padding),
                      [(values * 0.01).astype(F32)], eps=1e-3, rtol=1e-3, atol=1e-3)


def test_pooling_gradient_ops_gradients_match_finite_differences():
    case = POOL_CASES[0]
    attrs = pool_attrs(*case[1:])
    x = (rng_for("pg").permutation(np.prod(case[0])).reshape(case[0]) * 0.01).astype(F32)
    y = numpy_pool3d(x, *case[1:], np.max).astype(F32)
    sizes = np.array(case[0], np.int32)
    check_op_gradient(lambda dy: make_op("AvgPool3DGrad", [ds.constant(sizes), dy], attrs),
                      [normal(("apg",), y.shape)])
    for op, grad_shape in (("MaxPool3DGrad", y.shape), ("MaxPool3DGradGrad", x.shape)):
        check_op_gradient(lambda g: make_op(op, [ds.constant(x), ds.constant(y), g], attrs),
                          [normal((op,), grad_shape).astype(F32)], eps=1e-2, rtol=1e-3,
                          atol=1e-3)


def test_gradients_of_a_batch_of_unknown_size():
    """The shapes the gradient ops need come from a Shape op at run time."""
    xv = normal(("unknown",), (3, 4, 5, 4, 2))
    f = ds.constant(normal(("unknown f",), (2, 2, 2, 2, 3)))
    x = ds.placeholder(ds.float64, (None, 4, 5, 4, 2))
    y = ds.nn.avg_pool3d(ds.nn.conv3d(x, f, [1, 2, 2, 1, 1], "SAME"), 2, 1, "SAME")
    assert y.shape.as_list() == [None, 2, 3, 4, 3]
    dx, df = ds.gradients(ds.reduce_sum(y * y), [x, f])
    got_dx, got_df = run([dx, df], {x: xv})
    known = ds.constant(xv)
    y_known = ds.nn.avg_pool3d(ds.nn.conv3d(known, f, [1, 2, 2, 1, 1], "SAME"), 2, 1, "SAME")
    want_dx, want_df = run(ds.gradients(ds.reduce_sum(y_known * y_known), [known, f]))
    np.testing.assert_allclose(got_dx, want_dx, rtol=1e-12)
    np.testing.assert_allclose(got_df, want_df, rtol=1e-12)


# ---------------------------------------------------------------------------- errors

X5, F5 = np.ones((1, 4, 4, 4, 2), F32), np.ones((2, 2, 2, 2, 3), F32)


@pytest.mark.parametrize("build,match", [
    (lambda: ds.nn.conv3d(X5, np.ones((2, 2, 2, 3, 3), F32), [1] * 5, "SAME"),
     r"Depth of input \(2\)"),
    (lambda: ds.nn.conv3d(np.ones((1, 4, 4, 4, 0), F32), np.ones((2, 2, 2, 0, 3), F32),
                          [1] * 5, "SAME"), "Depth of filter must not be 0"),
    (lambda: ds.nn.conv3d(np.ones((1, 2, 4, 4, 2), F32), np.ones((3, 2, 2, 2, 3), F32),
                          [1] * 5, "VALID"), "Negative dimension size caused by subtracting 3"),
    (lambda: ds.nn.conv3d(X5, F5, [1, 1, 1, 1], "SAME"), "length 4"),
    (lambda: ds.nn.conv3d(X5, F5, [1, 0, 1, 1, 1], "SAME"), "strides must be >= 1"),
    (lambda: ds.nn.conv3d(X5, F5, [1] * 5, "SAME", dilations=[1, 0, 1, 1, 1]),
     "dilations must be >= 1"),
    (lambda: ds.nn.conv3d(X5, F5, [1] * 5, "FULL"), "padding"),
    (lambda: ds.nn.conv3d(np.ones((1, 4, 4, 2), F32), F5, [1] * 5, "SAME"),
     "must be rank 5, but is rank 4"),
    (lambda: ds.nn.conv3d(X5, F5, [1] * 5, "SAME", data_format="NHWC"), "NCDHW"),
    (lambda: ds.nn.conv3d(np.ones((1, 4, 2, 4, 4), F32), F5, [1] * 5, "SAME",
                          data_format="NCDHW"), r"Depth of input \(4\)"),
    (lambda: ds.nn.max_pool3d(X5, [1, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
     "ksize should be of length 1, 3 or 5"),
    (lambda: ds.nn.max_pool3d(X5, [1, 5, 2, 2, 1], [1] * 5, "VALID"),
     "Negative dimension size caused by subtracting 5 from 4"),
    (lambda: ds.nn.avg_pool3d(X5, 2, [1, 0, 1, 1, 1], "SAME"), "strides must be >= 1"),
    (lambda: ds.nn.conv3d_transpose(np.ones((1, 2, 2, 2, 2), F32), F5, [1, 4, 4, 4, 2],
                                    [1, 2, 2, 2, 1]), "do not match the filter's last"),
    (lambda: ds.nn.conv3d_transpose(np.ones((1, 2, 2, 2, 3), F32), F5, [1, 4, 4, 4, 5],
                                    [1, 2, 2, 2, 1]), "has 5 channels but the filter makes 2"),
], ids=["channels", "no-channels", "valid-too-small", "strides-length", "stride-0",
        "dilation-0", "padding", "rank", "format", "ncdhw-channels", "ksize-length",
        "pool-valid-too-small", "pool-stride-0", "transpose-in-channels",
        "transpose-out-channels"])
def test_bad_graphs_are_value_errors_when_built(build, match):
    with pytest.raises(ValueError, match=match):
        build()


@pytest.mark.parametrize("build", [
    lambda p: ds.nn.conv3d(X5, F5, [1] * 5, p),
    lambda p: ds.nn.max_pool3d(X5, 2, 2, p),
    lambda p: ds.nn.avg_pool3d(X5, 2, 2, p),
    lambda p: ds.nn.conv3d_transpose(X5, np.ones((2, 2, 2, 3, 2), F32), [1, 4, 4, 4, 3],
                                     [1] * 5, p),
    lambda p: ds.nn.convolution(X5, F5, p),
    lambda p: ds.nn.pool(X5, [2, 2, 2], "AVG", p),
    lambda p: ds.nn.conv2d(X5[0], F5[0], [1] * 4, p),
    lambda p: ds.nn.max_pool(X5[0], 2, 2, p),
], ids=["conv3d", "max_pool3d", "avg_pool3d", "conv3d_transpose", "convolution", "pool",
        "conv2d", "max_pool"])
def test_padding_is_upper_case_as_tensorflows_attr(build):
    """TF checks the padding attr against "SAME"/"VALID" as spelled: a lower-case "same"
    (the tf.layers spelling) given to tf.nn is a ValueError when built."""
    for padding in ("SAME", b"VALID"):
        build(padding)
    for padding in ("same", "valid", "Same"):
        with pytest.raises(ValueError, match="padding"):
            build(padding)


def test_strides_are_a_list_for_conv3d_and_a_sequence_for_conv3d_transpose():
    """conv3d (and its filter backprop) pass strides and dilations to the op as they are:
    an int or an array is TypeError, as TF's op-def check.  conv3d_transpose takes an int
    or 1, 3 or 5 of them, as TF's builder (spatial ones, NDHWC or NCDHW)."""
    for bad in (1, np.ones(5, np.int64)):
        with pytest.raises(TypeError, match="Expected list for 'strides'"):
            ds.nn.conv3d(X5, F5, bad, "SAME")
        with pytest.raises(TypeError, match="Expected list for 'strides'"):
            ds.nn.conv3d_backprop_filter_v2(X5, [2, 2, 2, 2, 3], np.ones((1, 4, 4, 4, 3), F32),
                                            bad, "SAME")
    with pytest.raises(TypeError, match="Expected list for 'dilations'"):
        ds.nn.conv3d(X5, F5, [1] * 5, "SAME", dilations=1)
    x = np.arange(16, dtype=F32).reshape(1, 2, 2, 2, 2)
    f = np.random.RandomState(0).normal(size=(2, 2, 2, 3, 2)).astype(F32)
    ys = [ds.nn.conv3d_transpose(x, f, [1, 4, 4, 4, 3], s)
          for s in (2, [2], [2, 2, 2], [1, 2, 2, 2, 1])]
    assert [y.op.get_attr("strides") for y in ys] == [[1, 2, 2, 2, 1]] * 4
    first = ds.nn.conv3d_transpose(x.transpose(0, 4, 1, 2, 3), f, [1, 3, 4, 4, 4], [1, 2, 1],
                                   data_format="NCDHW")
    assert first.op.get_attr("strides") == [1, 1, 1, 2, 1]
    with pytest.raises(ValueError, match="strides should be of length 1, 3 or 5"):
        ds.nn.conv3d_transpose(x, f, [1, 4, 4, 4, 3], [2, 2])


def test_max_pool3d_takes_float16_and_float32_only_as_tensorflows():
    with pytest.raises(TypeError, match="float64"):
        ds.nn.max_pool3d(np.ones((1, 2, 2, 2, 1)), 2, 2, "SAME")
    with pytest.raises(TypeError, match="int32"):
        ds.nn.avg_pool3d(np.ones((1, 2, 2, 2, 1), np.int32), 2, 2, "SAME")


@pytest.mark.parametrize("build,error,match", [
    (lambda x: ds.nn.conv3d(x, F5, [2, 1, 1, 1, 1], "SAME", name="bad"), UnimplementedError,
     "strides in the batch and depth dimensions"),
    (lambda x: ds.nn.conv3d(x, F5, [1] * 5, "SAME", dilations=[1, 1, 1, 1, 2], name="bad"),
     InvalidArgumentError, "dilations rates in the batch and depth"),
    (lambda x: ds.nn.max_pool3d(x, [2, 2, 2, 2, 1], 1, "SAME", name="bad"),
     UnimplementedError, "not yet supported on the batch dimension"),
    (lambda x: ds.nn.avg_pool3d(x, 2, [1, 1, 1, 1, 2], "SAME", name="bad"),
     UnimplementedError, "not yet supported on the depth dimension"),
    (lambda x: ds.nn.max_pool3d(x, [1, 0, 2, 2, 1], 1, "SAME", name="bad"),
     InvalidArgumentError, "ksize must be positive"),
    # TF's shape function reads the sizes only: an output_shape that the input and
    # strides cannot make (4 by stride 2 SAME is 7 or 8, not 9) builds, then fails.
    (lambda x: ds.nn.conv3d_transpose(x, np.ones((2, 2, 2, 3, 2), F32), [1, 9, 8, 8, 3],
                                      [1, 2, 2, 2, 1], name="bad"),
     InvalidArgumentError, "out_backprop"),
], ids=["batch-stride", "channel-dilation", "pool-batch", "pool-channels", "ksize-0",
        "transpose-shape"])
def test_what_tensorflows_kernels_refuse_fails_when_run(build, error, match):
    x = ds.placeholder(ds.float32, (1, 4, 4, 4, 2))
    y = build(x)
    with pytest.raises(error, match=match) as info:
        run(y, {x: X5})
    assert info.value.node_name == "bad"


def test_shapes_known_only_at_run_time_are_invalid_argument_errors_naming_the_node():
    x = ds.placeholder(ds.float32, None)
    y = ds.nn.conv3d(x, F5, [1] * 5, "VALID", name="c3")
    with pytest.raises(InvalidArgumentError, match="in-channels") as info:
        run(y, {x: np.ones((1, 4, 4, 4, 3), F32)})
    assert info.value.node_name == "c3"
    with pytest.raises(InvalidArgumentError, match="does not fit") as info:
        run(y, {x: np.ones((1, 1, 4, 4, 2), F32)})
    assert info.value.node_name == "c3"
    with pytest.raises(InvalidArgumentError, match="5-dimensional"):
        run(y, {x: np.ones((4, 4, 4, 2), F32)})


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
def test_kernel_errors_name_the_node(device):
    attrs = conv_attrs((1, 1, 1), "SAME")
    bad = make_node("Conv3DBackpropInputV2", [I32, F32, F32], F32, attrs, name="bad_node")
    with pytest.raises(InvalidArgumentError, match=r"out_backprop has shape \[1,3,3,3,1\], "
                                                   r"expected \[1,3,3,3,2\]") as info:
        run_on(device, bad, np.array([1, 3, 3, 3, 1], np.int32), np.ones((2, 2, 2, 1, 2), F32),
               np.ones((1, 3, 3, 3, 1), F32))
    assert info.value.node_name == "bad_node"


# ---------------------------------------------------------------------------- layers

def test_conv3d_and_pooling_layers():
    rng = rng_for("layers 3d")
    xv = rng.standard_normal((2, 6, 5, 4, 3)).astype(F32)
    x = ds.placeholder(ds.float32, (None, 6, 5, 4, 3))
    layer = ds.layers.Conv3D(4, (3, 2, 2), strides=(2, 1, 1), padding="same",
                             activation=ds.nn.relu)
    y = layer(x)
    z = ds.layers.conv3d(y, 2, 2, dilation_rate=(1, 2, 1), name="second")
    pooled = ds.layers.MaxPooling3D(2, 2, padding="same")(z)
    averaged = ds.layers.average_pooling3d(z, (1, 2, 2), 1)
    up = ds.layers.Conv3DTranspose(3, (2, 3, 2), strides=(2, 1, 2), padding="valid")(pooled)
    assert [v.name for v in layer.variables] == ["conv3d/kernel:0", "conv3d/bias:0"]
    assert layer.kernel.shape.as_list() == [3, 2, 2, 3, 4]
    assert y.shape.as_list() == [None, 3, 5, 4, 4]
    assert z.shape.as_list() == [None, 2, 3, 3, 2]
    assert pooled.shape.as_list() == [None, 1, 2, 2, 2] and pooled.op.type == "MaxPool3D"
    assert averaged.shape.as_list() == [None, 2, 2, 2, 2] and averaged.op.type == "AvgPool3D"
    assert up.shape.as_list() == [None, 2, 4, 4, 3]
    assert up.op.inputs[0].op.type == "Conv3DBackpropInputV2"
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got = sess.run({"y": y, "z": z, "pooled": pooled, "averaged": averaged, "up": up,
                        "kernel": layer.kernel, "bias": layer.bias,
                        "kernel2": ds.get_default_graph().get_tensor_by_name(
                            "second/kernel:0")}, {x: xv})
    want_y = np.maximum(numpy_conv3d(xv, got["kernel"], (2, 1, 1), "SAME") + got["bias"], 0)
    np.testing.assert_allclose(got["y"], want_y, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["z"], numpy_conv3d(got["y"], got["kernel2"], (1, 1, 1),
                                                      "VALID", (1, 2, 1)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["pooled"], numpy_pool3d(got["z"], (2, 2, 2), (2, 2, 2),
                                                           "SAME", np.max), rtol=1e-6)
    np.testing.assert_allclose(got["averaged"], numpy_pool3d(got["z"], (1, 2, 2), (1, 1, 1),
                                                             "VALID", np.mean), rtol=1e-5)
    assert got["up"].shape == (2, 2, 4, 4, 3)


def test_layers_refuse_bad_formats_and_sizes():
    x = ds.placeholder(ds.float32, (1, 4, 4, 4, 2))
    with pytest.raises(ValueError, match="'channels_last' or 'channels_first'"):
        ds.layers.conv3d(x, 2, 2, data_format="NCDHW")
    with pytest.raises(ValueError, match="kernel_size"):
        ds.layers.conv3d(x, 2, (2, 2))
    with pytest.raises(ValueError, match="strides > 1 together with dilation_rate > 1"):
        ds.layers.conv3d(x, 2, 2, strides=2, dilation_rate=2)


def test_training_a_3d_filter_lowers_the_loss():
    rng = rng_for("conv3d training")
    volumes = rng.standard_normal((6, 5, 5, 5, 2)).astype(F32)
    target_filter = rng.standard_normal((3, 3, 3, 2, 1)).astype(F32) * 0.3
    targets = numpy_conv3d(volumes, target_filter, (1, 1, 1), "SAME").astype(F32)
    f = ds.Variable(np.zeros((3, 3, 3, 2, 1), F32), name="filter")
    y = ds.nn.conv3d(volumes, f, [1] * 5, "SAME")
    loss = ds.reduce_mean(ds.square(y - targets))
    train = ds.train.GradientDescentOptimizer(0.05).minimize(loss)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        losses = [sess.run([train, loss])[1] for _ in range(40)]
    assert losses[-1] < 0.05 * losses[0], losses
