"""Frozen ``tf.keras.applications`` graphs TensorFlow wrote import and run as in TF, and
the grouped Conv2D they need (Keras's ``Conv2D(groups=G)``: RegNet, ConvNeXt).

The graphs and TF's outputs were recorded by tests/data/make_tf_keras_applications.py
(TF 2.21, tf_keras, inference mode): MobileNet whole, and small stacks of the other
applications' own blocks (MobileNetV2/V3, EfficientNet/V2, ConvNeXt, RegNet, ResNet,
DenseNet, NASNet) that together hold every op the zoo's frozen graphs use.

A grouped convolution runs group ``i``'s input channels through the ``i``-th slice of
the filter's out-channels; here its values come from a numpy loop over the groups,
on every device (the reference kernels, numba's, the CUDA ones on the cupy stand-in),
forward and both gradients, with TF's static and run-time errors.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from gradient_check import check_op_gradient
from kernel_cases import DEVICES, F32, F64, make_node, run_on

DATA = Path(__file__).parent / "data"
RECORDED = np.load(DATA / "tf_keras_applications.npz")
MODELS = ["mobilenet", "mobilenet_v2_v3", "efficientnets", "convnext_regnet",
          "resnet_densenet_nasnet"]


def frozen(name: str) -> ds.GraphDef:
    gd = ds.GraphDef()
    gd.ParseFromString((DATA / f"tf_keras_applications_{name}.pb").read_bytes())
    return gd


# ------------------------------------------------------------------ the recorded models

@pytest.mark.parametrize("name", MODELS)
def test_frozen_keras_application_runs_as_in_tensorflow(name):
    graph = ds.Graph()
    ds.import_graph_def(frozen(name), name="", graph=graph)
    want = RECORDED[f"{name}/y"]
    with ds.Session(graph=graph, options=ds.SessionOptions(device="cpu")) as sess:
        got = sess.run(str(RECORDED[f"{name}/output"]),
                       {str(RECORDED[f"{name}/input"]): RECORDED[f"{name}/x"]})
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())


def test_convnext_and_regnet_blocks_hold_grouped_convolutions():
    """What the recording is there for: Conv2Ds whose input has several groups of the
    filter's in-channels (ConvNeXt's depthwise one: as many groups as channels)."""
    graph = ds.Graph()
    ds.import_graph_def(frozen("convnext_regnet"), name="", graph=graph)
    groups = [op.inputs[0].shape.dims[3] // op.inputs[1].shape.dims[2]
              for op in graph.get_operations() if op.type == "Conv2D"]
    assert [g for g in groups if g > 1] == [16, 4, 2]     # ConvNeXt's, the X and Y blocks'


# ------------------------------------------------------------------ grouped Conv2D values

def conv_attrs(stride=1, padding="SAME", dilation=1):
    return {"strides": (1, stride, stride, 1), "padding": padding,
            "dilations": (1, dilation, dilation, 1), "data_format": "NHWC",
            "explicit_paddings": ()}


def by_groups(x, f, dy, conv, stride, padding, dilation):
    """(y, dx, df) of a grouped convolution from devsession's reference Conv2D and its
    gradients on each group, computed apart in numpy and joined."""
    groups = x.shape[3] // f.shape[2]
    c, o = f.shape[2], f.shape[3] // groups
    ys, dxs, dfs = [], [], []
    for i in range(groups):
        xi, fi = x[..., i * c:(i + 1) * c], f[..., i * o:(i + 1) * o]
        y, dx, df = conv(np.ascontiguousarray(xi), np.ascontiguousarray(fi),
                         None if dy is None else np.ascontiguousarray(dy[..., i * o:(i + 1) * o]),
                         stride, padding, dilation)
        ys.append(y), dxs.append(dx), dfs.append(df)
    return (np.concatenate(ys, -1), None if dy is None else np.concatenate(dxs, -1),
            None if dy is None else np.concatenate(dfs, -1))


def dense_conv(x, f, dy, stride, padding, dilation):
    """One ungrouped Conv2D with its VJPs, in float64 numpy (im2col over SAME/VALID)."""
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    eh, ew = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w // stride)
        ph, pw = max((oh - 1) * stride + eh - h, 0), max((ow - 1) * stride + ew - w, 0)
        top, left = ph // 2, pw // 2
    else:
        oh, ow, ph, pw, top, left = (h - eh) // stride + 1, (w - ew) // stride + 1, 0, 0, 0, 0
    padded = np.zeros((n, h + ph, w + pw, c))
    padded[:, top:top + h, left:left + w] = x
    cols = np.zeros((n, oh, ow, kh, kw, c))
    for i in range(kh):
        for j in range(kw):
            cols[:, :, :, i, j] = padded[:, i * dilation:i * dilation + (oh - 1) * stride + 1:stride,
                                         j * dilation:j * dilation + (ow - 1) * stride + 1:stride]
    y = np.einsum("nhwijc,ijco->nhwo", cols, f)
    if dy is None:
        return y, None, None
    df = np.einsum("nhwijc,nhwo->ijco", cols, dy)
    dcols = np.einsum("nhwo,ijco->nhwijc", dy, f)
    dpadded = np.zeros_like(padded)
    for i in range(kh):
        for j in range(kw):
            dpadded[:, i * dilation:i * dilation + (oh - 1) * stride + 1:stride,
                    j * dilation:j * dilation + (ow - 1) * stride + 1:stride] += dcols[:, :, :, i, j]
    return y, dpadded[:, top:top + h, left:left + w], df


# (input shape, filter shape, stride, padding, dilation): groups of 2, 3, as many as
# channels (depthwise, a multiplier of 2), one channel per group, a batch of 0 and 1
GROUPED = [((2, 7, 6, 6), (3, 3, 2, 9), 1, "SAME", 1),
           ((1, 8, 7, 4), (3, 3, 2, 4), 2, "SAME", 1),
           ((2, 9, 9, 4), (3, 3, 1, 8), 1, "VALID", 2),
           ((1, 5, 5, 5), (1, 1, 1, 5), 1, "SAME", 1),
           ((0, 5, 5, 4), (3, 3, 2, 2), 1, "SAME", 1),
           ((1, 1, 1, 6), (1, 1, 3, 4), 1, "VALID", 1)]


def grouped_case(case, dtype=F64):
    x_shape, f_shape, stride, padding, dilation = case
    rng = np.random.default_rng(sum(x_shape) + sum(f_shape))
    x = rng.standard_normal(x_shape)
    f = rng.standard_normal(f_shape)
    y, _, _ = by_groups(x, f, None, dense_conv, stride, padding, dilation)
    dy = rng.standard_normal(y.shape)
    want = by_groups(x, f, dy, dense_conv, stride, padding, dilation)
    return [a.astype(dtype) for a in (x, f, dy)], want, conv_attrs(stride, padding, dilation)


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
@pytest.mark.parametrize("case", GROUPED, ids=lambda c: f"{c[0]}x{c[1]}")
def test_grouped_conv2d_and_its_gradients_are_per_group_convolutions(device, case):
    (x, f, dy), (y, dx, df), attrs = grouped_case(case)
    runs = {"Conv2D": ((x, f), y), "Conv2DBackpropInputV2": ((x, f, dy), dx),
            "Conv2DBackpropFilterV2": ((x, f, dy), df),
            "Conv2DBackpropInput": ((np.array(x.shape, np.int32), f, dy), dx),
            "Conv2DBackpropFilter": ((x, np.array(f.shape, np.int32), dy), df)}
    for op, (inputs, want) in runs.items():
        node = make_node(op, [a.dtype for a in inputs], F64, attrs)
        got = run_on(device, node, *inputs)
        assert got.shape == want.shape, (op, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=op)


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
def test_grouped_conv2d_in_float32(device):
    (x, f, _), (y, _, _), attrs = grouped_case(GROUPED[0], F32)
    got = run_on(device, make_node("Conv2D", [F32, F32], F32, attrs), x, f)
    assert got.dtype == F32
    np.testing.assert_allclose(got, y, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", [GROUPED[0], GROUPED[2]], ids=["groups", "depthwise"])
def test_grouped_conv2d_with_a_folded_bias_and_relu(case):
    """Conv2D + BiasAdd + Relu, as Keras writes a Conv2D(groups=G, use_bias=True,
    activation="relu"): the CPU's fold of the three runs each group with its share of
    the bias (with one channel a group, the depthwise loop then the bias)."""
    (x, f, _), (y, _, _), _ = grouped_case(case, F32)
    _, _, stride, padding, dilation = case
    bias = np.linspace(-1, 1, f.shape[3]).astype(F32)
    graph = ds.Graph()
    with graph.as_default():
        xp = ds.placeholder(ds.float32, x.shape)
        out = ds.nn.relu(ds.nn.bias_add(
            ds.nn.conv2d(xp, f, stride, padding, dilations=dilation), bias))
    with ds.Session(graph=graph, options=ds.SessionOptions(device="cpu")) as sess:
        got = sess.run(out, {xp: x})
    np.testing.assert_allclose(got, np.maximum(y + bias, 0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", [GROUPED[1], GROUPED[2]], ids=["strided", "dilated"])
def test_grouped_conv2d_gradient_matches_finite_differences(case):
    (x, f, _), _, _ = grouped_case(case)
    _, _, stride, padding, dilation = case
    check_op_gradient(lambda a, b: ds.nn.conv2d(a, b, stride, padding, dilations=dilation),
                      [x, f])


def test_grouped_conv2d_trains_through_gradients():
    """ds.gradients of a loss through a grouped Conv2D: both gradients' static shapes are
    the operands' (not one group's) and their values are the per-group ones."""
    (x, f, dy), (y, dx, df), _ = grouped_case(GROUPED[0])
    graph = ds.Graph()
    with graph.as_default():
        xp, fp = ds.placeholder(ds.float64, x.shape), ds.placeholder(ds.float64, f.shape)
        conv = ds.nn.conv2d(xp, fp, 1, "SAME")
        gx, gf = ds.gradients(ds.reduce_sum(conv * dy), [xp, fp])
    assert conv.shape == y.shape and gx.shape == x.shape and gf.shape == f.shape
    with ds.Session(graph=graph, options=ds.SessionOptions(device="cpu")) as sess:
        got = sess.run([gx, gf], {xp: x, fp: f})
    np.testing.assert_allclose(got[0], dx, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[1], df, rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------ TF's errors

@pytest.mark.parametrize("x_shape, f_shape, match", [
    ((2, 5, 5, 7), (3, 3, 2, 8),
     r"Depth of input \(7\) is not a multiple of input depth of filter \(2\)"),
    ((2, 5, 5, 6), (3, 3, 2, 8),
     r"Depth of output \(8\) is not a multiple of the number of groups \(3\)"),
    ((2, 5, 5, 6), (3, 3, 0, 8), "Depth of filter must not be 0"),
], ids=["input-depth", "output-depth", "empty-filter"])
def test_grouped_conv2d_shapes_tf_refuses_are_value_errors(x_shape, f_shape, match):
    with ds.Graph().as_default():
        with pytest.raises(ValueError, match=match):
            ds.nn.conv2d(ds.placeholder(ds.float32, x_shape),
                         ds.placeholder(ds.float32, f_shape), 1, "SAME")


def test_depthwise_conv2d_still_needs_equal_channels():
    with ds.Graph().as_default():
        with pytest.raises(ValueError, match="in-channels differ"):
            ds.nn.depthwise_conv2d_native(ds.placeholder(ds.float32, (1, 5, 5, 4)),
                                          ds.placeholder(ds.float32, (3, 3, 2, 1)),
                                          [1, 1, 1, 1], "SAME")


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
@pytest.mark.parametrize("op, x_shape, f_shape, match", [
    ("Conv2D", (2, 5, 5, 7), (3, 3, 2, 8),
     "input depth must be evenly divisible by filter depth: 7 vs 2"),
    ("Conv2D", (2, 5, 5, 6), (3, 3, 2, 8),
     "output depth must be evenly divisible by number of groups: 8 vs 3"),
    ("Conv2DBackpropFilterV2", (2, 5, 5, 6), (3, 3, 2, 8),
     "output depth must be evenly divisible by number of groups: 8 vs 3"),
], ids=["input-depth", "output-depth", "filter-gradient"])
def test_grouped_conv2d_run_time_errors_are_tf_s(device, op, x_shape, f_shape, match):
    x, f = np.ones(x_shape, F32), np.ones(f_shape, F32)
    inputs = (x, f) if op == "Conv2D" else (x, f, np.ones((2, 5, 5, 8), F32))
    node = make_node(op, [F32] * len(inputs), F32, conv_attrs(), name="grouped")
    with pytest.raises(InvalidArgumentError, match=match) as info:
        run_on(device, node, *inputs)
    assert info.value.node_name == "grouped"


def test_unknown_channels_are_checked_when_the_graph_runs():
    graph = ds.Graph()
    with graph.as_default():
        xp = ds.placeholder(ds.float32, (None, 5, 5, None))
        conv = ds.nn.conv2d(xp, np.ones((3, 3, 2, 4), F32), 1, "SAME")
    assert conv.shape.as_list() == [None, 5, 5, 4]
    with ds.Session(graph=graph, options=ds.SessionOptions(device="cpu")) as sess:
        assert sess.run(conv, {xp: np.ones((1, 5, 5, 4), F32)}).shape == (1, 5, 5, 4)
        with pytest.raises(InvalidArgumentError, match="evenly divisible by filter depth: 3 vs 2"):
            sess.run(conv, {xp: np.ones((1, 5, 5, 3), F32)})

