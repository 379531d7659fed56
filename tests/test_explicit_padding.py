"""TF's explicit padding of the convolutions (``padding`` a list of four [before, after]
pairs: padding "EXPLICIT" with 8 ``explicit_paddings``), for Conv2D, its gradient ops,
conv2d_transpose and the depthwise convolution:

* a GraphDef TensorFlow wrote (``tests/data/make_tf_explicit_padding.py``: TF's
  ``tf.gradients`` nodes and second derivatives, NCHW nodes) imports and computes TF's
  values, with TF's static shapes;
* the builders write TF's attrs (the pairs reordered for NCHW) and raise TF's errors;
* every device's kernels against the reference, and the reference against an oracle
  (the input zero-padded by numpy, then a VALID convolution); the CPU's direct paths
  where the padding fits them;
* the gradients against finite differences (float64); ds's export writes TF's attrs.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.kernels.registry import lookup_kernel
from devsession.tf_export import to_tf_graph_def
from gradient_check import check_op_gradient
from kernel_cases import DEVICES, F32, F64, I32, check_against_ref, make_node, rng_for
from tf_recorded import run_recorded, tf_static_shape

PADS = [[0, 0], [1, 2], [2, 1], [0, 0]]
FLAT = (0, 0, 1, 2, 2, 1, 0, 0)


# ------------------------------------------------------------ a GraphDef TF wrote

@pytest.fixture(scope="module")
def recorded():
    return run_recorded("tf_explicit_padding")


def test_tf_graph_def_runs_with_tfs_values(recorded):
    graph, names, values, data = recorded
    assert len(names) == 15
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5 * np.abs(want).max(),
                                   err_msg=name)


def test_tf_graph_def_keeps_tfs_attrs_and_static_shapes(recorded):
    graph, names, _, data = recorded
    for name in names:
        shape = graph.get_tensor_by_name(name).shape
        assert shape.is_compatible_with(tf_static_shape(data, name)), name
    explicit = {op.type for op in graph.get_operations()
                if op.attrs.get("padding") == "EXPLICIT"}
    assert explicit == {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                        "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                        "DepthwiseConv2dNativeBackpropFilter"}
    conv = graph.get_operation_by_name("conv_strided")
    assert tuple(conv.attrs["explicit_paddings"]) == (0, 0, 1, 2, 2, 0, 0, 0)
    assert graph.get_tensor_by_name("conv_wide:0").shape.as_list() == [None, 8, 9, 4]


# ------------------------------------------------------------ builders

def _ops(graph, op_type):
    return [op for op in graph.get_operations() if op.type == op_type]


def test_builders_write_tfs_attrs():
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [2, 5, 6, 3])
        f = ds.placeholder(ds.float32, [3, 3, 3, 4])
        fd = ds.placeholder(ds.float32, [3, 3, 3, 2])
        dy = ds.placeholder(ds.float32, [2, 6, 7, 4])
        built = {
            "Conv2D": ds.nn.conv2d(x, f, [1, 1, 1, 1], PADS),
            "Conv2DBackpropInput": ds.nn.conv2d_backprop_input([2, 5, 6, 3], f, dy,
                                                               [1, 1, 1, 1], PADS),
            "Conv2DBackpropFilter": ds.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy,
                                                                 [1, 1, 1, 1], PADS),
            "DepthwiseConv2dNative": ds.nn.depthwise_conv2d(x, fd, [1, 1, 1, 1], PADS),
        }
        transposed = ds.nn.conv2d_transpose(dy, f, [2, 5, 6, 3], [1, 1, 1, 1], PADS)
        native = ds.nn.depthwise_conv2d_native(x, fd, [1, 1, 1, 1], tuple(map(tuple, PADS)))
        separable = ds.nn.separable_conv2d(x, fd, ds.ones([1, 1, 6, 4]), [1, 1, 1, 1], PADS)
    for op_type, y in built.items():
        assert y.op.type == op_type
        assert y.op.attrs["padding"] == "EXPLICIT"
        assert tuple(y.op.attrs["explicit_paddings"]) == FLAT
    assert built["Conv2D"].shape.as_list() == [2, 6, 7, 4]
    assert transposed.op.type == "Conv2DBackpropInput" and transposed.shape == (2, 5, 6, 3)
    assert tuple(transposed.op.attrs["explicit_paddings"]) == FLAT
    assert native.shape.as_list() == [2, 6, 7, 6]
    assert separable.shape.as_list() == [2, 6, 7, 4]
    depthwise = separable.op.inputs[0].op
    assert depthwise.type == "DepthwiseConv2dNative"
    assert tuple(depthwise.attrs["explicit_paddings"]) == FLAT
    assert separable.op.attrs["padding"] == "VALID"     # the pointwise 1x1, as TF


def test_channels_first_pairs_are_reordered_for_the_nhwc_op():
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [2, 3, 5, 6])
        y = ds.nn.conv2d(x, ds.ones([3, 3, 3, 4]), [1, 1, 1, 1],
                         [[0, 0], [0, 0], [1, 2], [2, 1]], data_format="NCHW")
        d = ds.nn.depthwise_conv2d_native(x, ds.ones([3, 3, 3, 2]), [1, 1, 1, 1],
                                          [[0, 0], [0, 0], [1, 2], [2, 1]], "NCHW")
    assert y.shape.as_list() == [2, 4, 6, 7] and d.shape.as_list() == [2, 6, 6, 7]
    for op_type in ("Conv2D", "DepthwiseConv2dNative"):
        (op,) = _ops(graph, op_type)
        assert op.attrs["data_format"] == "NHWC"
        assert tuple(op.attrs["explicit_paddings"]) == FLAT


@pytest.mark.parametrize("padding,data_format,error,pattern", [
    ([[0, 0], [1, 2], [2, 1]], "NHWC", ValueError,
     r"When padding is a list, it must be of size 4\. Received: padding=\[\[0, 0\], \[1, 2\], "
     r"\[2, 1\]\] of size 3"),
    ([[0, 0], [1, 2, 3], [2, 1], [0, 0]], "NHWC", ValueError,
     r"each element of `padding` must be a list/tuple of size 2\. .* with element at index 1 "
     r"of size 3"),
    ([0, 0, 1, 2, 2, 1, 0, 0], "NHWC", ValueError,
     r"with element at index 0 of type <class 'int'>"),
    ("EXPLICIT", "NHWC", ValueError,
     r"'EXPLICIT' is not a valid value for `padding`\. To use explicit padding, `padding` "
     r"must be a list\."),
    ([[0, 0], [-1, 2], [2, 1], [0, 0]], "NHWC", ValueError,
     "All elements of explicit_paddings must be nonnegative"),
    ([[1, 0], [1, 2], [2, 1], [0, 0]], "NHWC", ValueError,
     "Nonzero explicit padding in the batch or depth dimensions is not supported"),
    ([[0, 0], [1, 2], [2, 1], [0, 1]], "NHWC", ValueError,
     "Nonzero explicit padding in the batch or depth dimensions is not supported"),
    ([[0, 0], [1, 0], [1, 2], [2, 1]], "NCHW", ValueError,
     "Nonzero explicit padding in the batch or depth dimensions is not supported"),
], ids=["three-pairs", "a-triple", "flat", "the-string", "negative", "batch", "channels",
        "nchw-channels"])
def test_builder_errors_are_tfs(padding, data_format, error, pattern):
    graph = ds.Graph()
    with graph.as_default():
        shape = [2, 5, 6, 3] if data_format == "NHWC" else [2, 3, 5, 6]
        x = ds.placeholder(ds.float32, shape)
        with pytest.raises(error, match=pattern):
            ds.nn.conv2d(x, ds.ones([3, 3, 3, 4]), [1, 1, 1, 1], padding,
                         data_format=data_format)
        with pytest.raises(error, match=pattern):
            ds.nn.depthwise_conv2d_native(x, ds.ones([3, 3, 3, 2]), [1, 1, 1, 1], padding,
                                          data_format)


def test_static_shapes_and_windows_that_do_not_fit():
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [None, 5, None, 3])
        f = ds.ones([3, 3, 3, 4])
        wide = ds.nn.conv2d(x, f, [1, 1, 1, 1], [[0, 0], [5, 5], [2, 1], [0, 0]])
        strided = ds.nn.conv2d(x, f, [1, 2, 2, 1], PADS)
        dilated = ds.nn.conv2d(x, f, [1, 1, 1, 1], PADS, dilations=[1, 2, 1, 1])
        assert wide.shape.as_list() == [None, 13, None, 4]      # TF's shapes
        assert strided.shape.as_list() == [None, 3, None, 4]
        assert dilated.shape.as_list() == [None, 4, None, 4]
        with pytest.raises(ValueError, match="negative dimension size.*EXPLICIT padding"):
            ds.nn.conv2d(x, ds.ones([9, 3, 3, 4]), [1, 1, 1, 1], PADS)
        with pytest.raises(TypeError, match="Expected string for argument 'padding'"):
            ds.nn.conv1d(ds.ones([2, 5, 3]), ds.ones([3, 3, 4]), 1, [[0, 0], [1, 2], [0, 0]])


def test_raw_attrs_tf_refuses_are_value_errors_at_build():
    graph = ds.Graph()
    with graph.as_default():
        x, f = ds.ones([2, 5, 6, 3]), ds.ones([3, 3, 3, 4])
        base = {"strides": (1, 1, 1, 1), "dilations": (1, 1, 1, 1), "data_format": "NHWC"}
        for attrs, pattern in [
                ({"padding": "EXPLICIT", "explicit_paddings": (0, 0, 1, 2, 2, 1)},
                 "must contain 8 values, but got: 6"),
                ({"padding": "EXPLICIT", "explicit_paddings": ()},
                 "must contain 8 values, but got: 0"),
                ({"padding": "SAME", "explicit_paddings": FLAT},
                 "must be empty if the padding attribute is not EXPLICIT")]:
            with pytest.raises(ValueError, match=pattern):
                graph.create_op("Conv2D", [x, f], {**base, **attrs})


# ------------------------------------------------------------ kernels

# (input shape, filter shape, stride, dilation, [top, bottom, left, right])
CASES = [
    ((2, 5, 6, 3), (3, 3, 3, 4), 1, 1, (1, 2, 2, 1)),
    ((2, 7, 6, 2), (3, 2, 2, 3), 2, 1, (0, 3, 1, 0)),
    ((1, 6, 6, 2), (3, 3, 2, 2), 1, 2, (2, 2, 0, 1)),
    ((2, 4, 5, 2), (3, 3, 2, 3), 1, 1, (4, 0, 1, 5)),    # wider than the window
    ((2, 4, 4, 5), (1, 1, 5, 3), 1, 1, (1, 0, 0, 2)),    # a 1x1 filter padded
    ((1, 1, 1, 2), (2, 2, 2, 2), 3, 1, (1, 1, 1, 1)),    # padding only, strided
    ((0, 4, 4, 2), (3, 3, 2, 2), 1, 1, (1, 1, 1, 1)),
    # stride 1 with >= 16 channels: the CPU's direct float32 input gradient, and not
    ((2, 6, 5, 16), (3, 2, 16, 8), 1, 1, (2, 0, 1, 1)),
    ((2, 6, 5, 16), (3, 2, 16, 8), 1, 1, (3, 1, 0, 2)),
]
CONV_OPS = ["Conv2D", "Conv2DBackpropInput", "Conv2DBackpropInputV2", "Conv2DBackpropFilter",
            "Conv2DBackpropFilterV2"]
DEPTHWISE_OPS = ["DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                 "DepthwiseConv2dNativeBackpropFilter"]


def explicit_attrs(stride, dilation, pads, depthwise=False):
    top, bottom, left, right = pads
    attrs = {"strides": (1, stride, stride, 1), "dilations": (1, dilation, dilation, 1),
             "padding": "EXPLICIT", "explicit_paddings": (0, 0, top, bottom, left, right, 0, 0)}
    return attrs if depthwise else {**attrs, "use_cudnn_on_gpu": True}


def _forward_of(op):
    return "DepthwiseConv2dNative" if op.startswith("Depthwise") else "Conv2D"


def op_case(op, case, dtype):
    """(node, inputs) of ``op`` for a case: the input or its sizes, the filter or its
    sizes, and an output gradient of the forward op's shape."""
    x_shape, f_shape, stride, dilation, pads = case
    depthwise = op.startswith("Depthwise")
    attrs = explicit_attrs(stride, dilation, pads, depthwise)
    rng = rng_for(op, case, dtype)
    x = rng.standard_normal(x_shape).astype(dtype)
    f = rng.standard_normal(f_shape).astype(dtype)
    forward = make_node(_forward_of(op), [dtype, dtype], dtype, attrs)
    dy = rng.standard_normal(lookup_kernel(forward.op, "REF")(forward)(x, f).shape)
    dy = dy.astype(dtype)
    if op in ("Conv2D", "DepthwiseConv2dNative"):
        return forward, (x, f)
    if op.endswith("V2"):
        return make_node(op, [dtype] * 3, dtype, attrs), (x, f, dy)
    if "Input" in op:
        return make_node(op, [I32, dtype, dtype], dtype, attrs), (np.array(x_shape, I32), f, dy)
    return make_node(op, [dtype, I32, dtype], dtype, attrs), (x, np.array(f_shape, I32), dy)


def _tolerance(dtype, case):
    eps = float(np.finfo(dtype).eps)
    depth = case[1][0] * case[1][1] * max(case[1][2], case[1][3]) * 8
    return {"rtol": 64 * eps, "atol": 64 * eps * depth}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("op", CONV_OPS + DEPTHWISE_OPS)
def test_kernels_match_the_reference(device, op, case, dtype):
    node, inputs = op_case(op, case, dtype)
    check_against_ref(device, node, *inputs, **_tolerance(dtype, case))


def _valid(attrs):
    return {**attrs, "padding": "VALID", "explicit_paddings": ()}


@pytest.mark.parametrize("case", CASES[:6], ids=str)
@pytest.mark.parametrize("forward", ["Conv2D", "DepthwiseConv2dNative"])
def test_reference_is_a_valid_convolution_of_the_zero_padded_input(forward, case):
    node, (x, f) = op_case(forward, case, F64)
    top, bottom, left, right = case[4]
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    valid = make_node(forward, [F64, F64], F64, _valid(node.attrs))
    want = lookup_kernel(forward, "REF")(valid)(padded, f)
    np.testing.assert_allclose(lookup_kernel(forward, "REF")(node)(x, f), want, rtol=1e-12,
                               atol=1e-12)
    # the input gradient is the padded input's, cropped; the filter's is the same
    if forward == "Conv2D":
        dy = rng_for("dy", case).standard_normal(want.shape)
        grad = make_node("Conv2DBackpropInputV2", [F64] * 3, F64, node.attrs)
        grad_valid = make_node("Conv2DBackpropInputV2", [F64] * 3, F64, _valid(node.attrs))
        full = lookup_kernel(grad.op, "REF")(grad_valid)(padded, f, dy)
        np.testing.assert_allclose(
            lookup_kernel(grad.op, "REF")(grad)(x, f, dy),
            full[:, top:top + x.shape[1], left:left + x.shape[2]], rtol=1e-12, atol=1e-12)


def test_cpu_direct_input_gradient_runs_only_where_the_padding_fits(monkeypatch):
    """The direct float32 input gradient pads dy by the window less the forward
    padding, so a padding wider than the window less one takes the packed path."""
    from devsession.kernels.cpu import conv_fused, register_gemm

    monkeypatch.setattr(register_gemm, "FORCE", True)
    if not register_gemm.usable():
        pytest.skip("register_gemm's kernels do not compile here (logged)")
    ran = []
    for name in ("_forward_direct", "_input_grad_direct", "_filter_grad_direct",
                 "_input_grad"):
        original = getattr(conv_fused, name)
        monkeypatch.setattr(conv_fused, name, lambda *a, _f=original, _n=name: (
            ran.append(_n), _f(*a)))
    for case, direct in ((CASES[-2], True), (CASES[-1], False)):
        ran.clear()
        for op in ("Conv2D", "Conv2DBackpropInputV2", "Conv2DBackpropFilterV2"):
            check_against_ref("CPU", *op_case(op, case, F32)[:1], *op_case(op, case, F32)[1],
                              **_tolerance(F32, case))
        middle = "_input_grad_direct" if direct else "_input_grad"
        assert ran == ["_forward_direct", middle, "_filter_grad_direct"], ran


@pytest.mark.parametrize("device", ["REF", "CPU"])
def test_run_time_errors_name_the_node(device):
    x, f = np.ones((2, 5, 6, 3), F32), np.ones((3, 3, 3, 4), F32)
    base = {"strides": (1, 1, 1, 1), "padding": "EXPLICIT"}
    for paddings, pattern in [((0, 0, 1, 2, 2, 1), "must contain 8 values, but got: 6"),
                              ((0, 0, -1, 2, 2, 1, 0, 0), "must be nonnegative"),
                              ((0, 0, 1, 2, 2, 1, 1, 0), "Nonzero explicit padding"),
                              ((0, 0, 0, 0, 0, 0, 0, 0), None)]:
        node = make_node("Conv2D", [F32, F32], F32, {**base, "explicit_paddings": paddings},
                         name="bad_node")
        small = np.ones((2, 2, 6, 3), F32)
        with pytest.raises(InvalidArgumentError, match=pattern or "does not fit") as info:
            lookup_kernel("Conv2D", device)(node)(x if pattern else small, f)
        assert info.value.node_name == "bad_node"


# ------------------------------------------------------------ gradients

GRAD_CASES = [((2, 4, 5, 2), (3, 2, 2, 3), 1, 1, (1, 2, 2, 0)),
              ((1, 5, 4, 2), (2, 3, 2, 2), 2, 1, (3, 0, 1, 2)),
              ((1, 5, 5, 1), (2, 2, 1, 2), 1, 2, (0, 1, 2, 1))]


def _pairs(pads):
    top, bottom, left, right = pads
    return [[0, 0], [top, bottom], [left, right], [0, 0]]


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_conv2d_gradients_match_finite_differences(case):
    x_shape, f_shape, stride, dilation, pads = case
    rng = rng_for("grad", case)
    x, f = rng.standard_normal(x_shape), rng.standard_normal(f_shape)
    strides, rate, padding = [1, stride, stride, 1], [1, dilation, dilation, 1], _pairs(pads)
    y = check_op_gradient(lambda v, w: ds.nn.conv2d(v, w, strides, padding, dilations=rate),
                          [x, f])
    dy = rng.standard_normal(
        lookup_kernel("Conv2D", "REF")(make_node("Conv2D", [F64, F64], F64, explicit_attrs(
            stride, dilation, pads)))(x, f).shape)
    check_op_gradient(lambda w, d: ds.nn.conv2d_backprop_input(
        list(x_shape), w, d, strides, padding, dilations=rate), [f, dy])
    check_op_gradient(lambda v, d: ds.nn.conv2d_backprop_filter(
        v, list(f_shape), d, strides, padding, dilations=rate), [x, dy])
    assert y[0].shape == x_shape


@pytest.mark.parametrize("case", GRAD_CASES[:2], ids=str)
def test_depthwise_gradients_match_finite_differences(case):
    x_shape, f_shape, stride, _, pads = case
    rng = rng_for("depthwise grad", case)
    x, f = rng.standard_normal(x_shape), rng.standard_normal(f_shape)
    strides, padding = [1, stride, stride, 1], _pairs(pads)
    y = ds.Graph()
    with y.as_default():
        out = ds.nn.depthwise_conv2d_native(ds.constant(x), ds.constant(f), strides, padding)
        with ds.Session() as sess:
            dy = rng.standard_normal(sess.run(out).shape)
    check_op_gradient(lambda v, w: ds.nn.depthwise_conv2d_native(v, w, strides, padding),
                      [x, f])
    check_op_gradient(lambda w, d: ds.nn.depthwise_conv2d_native_backprop_input(
        list(x_shape), w, d, strides, padding), [f, dy])
    check_op_gradient(lambda v, d: ds.nn.depthwise_conv2d_native_backprop_filter(
        v, list(f_shape), d, strides, padding), [x, dy])


def test_gradient_ops_carry_the_padding():
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [2, 5, 6, 3])
        f = ds.ones([3, 3, 3, 4])
        ds.gradients(ds.reduce_sum(ds.nn.conv2d(x, f, [1, 1, 1, 1], PADS)), [x, f])
    grads = _ops(graph, "Conv2DBackpropInputV2") + _ops(graph, "Conv2DBackpropFilterV2")
    assert len(grads) == 2
    for op in grads:
        assert op.attrs["padding"] == "EXPLICIT"
        assert tuple(op.attrs["explicit_paddings"]) == FLAT


# ------------------------------------------------------------ export

def test_export_writes_tfs_attrs_and_round_trips():
    graph = ds.Graph()
    rng = rng_for("export")
    x_value = rng.standard_normal((2, 5, 6, 3)).astype(F32)
    with graph.as_default():
        x = ds.placeholder(ds.float32, [2, 5, 6, 3], name="x")
        f = ds.constant(rng.standard_normal((3, 3, 3, 4)).astype(F32), name="f")
        y = ds.nn.conv2d(x, f, [1, 1, 1, 1], PADS, name="y")
        with ds.Session() as sess:
            want = sess.run(y, {x: x_value})
    (node,) = [n for n in to_tf_graph_def(graph).node if n.name == "y"]
    assert node.attr["padding"].s == b"EXPLICIT"
    assert tuple(node.attr["explicit_paddings"].list.i) == FLAT
    back = ds.Graph()
    with back.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
        with ds.Session() as sess:
            np.testing.assert_array_equal(sess.run("y:0", {"x:0": x_value}), want)


def test_conv2d_transpose_batch_is_out_backprops_as_tfs():
    """TF's Conv2DBackpropInput takes its static batch from ``out_backprop`` (unknown when
    that is, whatever ``input_sizes`` says), its channels from the filter where the sizes
    do not say."""
    graph = ds.Graph()
    with graph.as_default():
        dy = ds.placeholder(ds.float32, [None, 8, 6, 4])
        k = ds.zeros([3, 3, 2, 4])
        same = ds.nn.conv2d_transpose(dy, k, [4, 8, 6, 2], [1, 1, 1, 1], "SAME")
        explicit = ds.nn.conv2d_backprop_input([4, 7, 6, 2], k, dy, [1, 1, 1, 1],
                                               [[0, 0], [1, 2], [0, 2], [0, 0]])
        known = ds.nn.conv2d_backprop_input([3, 7, 6, 2], k, ds.zeros([3, 8, 6, 4]),
                                            [1, 1, 1, 1], [[0, 0], [1, 2], [0, 2], [0, 0]])
    assert same.shape.as_list() == [None, 8, 6, 2]
    assert explicit.shape.as_list() == [None, 7, 6, 2]
    assert known.shape.as_list() == [3, 7, 6, 2]
