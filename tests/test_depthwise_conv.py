"""Depthwise and separable convolutions: DepthwiseConv2dNative, its two gradient ops and
the builders ``ds.nn.depthwise_conv2d``, ``depthwise_conv2d_native`` and
``separable_conv2d``.

* TF 2.21's values, recorded once and written here as literals: the output channel
  order (``c * M + m``), SAME padding's odd element at the bottom/right, strides, a
  dilation, both gradients, and a NodeDef as TF writes it.
* The reference kernels against a plain numpy loop written here (no kernel code):
  SAME/VALID, strides 1 and 2 (and unequal), dilation 2, channel multipliers 1 and 3,
  sizes 1 and batch 0.
* Every device's kernels (``kernel_cases.DEVICES``: the CPU's numba loops, a GPU where
  there is one, and the CUDA module on the numpy stand-in for cupy) against the
  reference, with empty inputs and zero channels.
* Gradients against finite differences, the backprop ops' own gradients included, and
  a batch of unknown size (the shapes then come from a Shape op).
* ValueError when the graph is built, InvalidArgumentError naming the node at run time;
  ``separable_conv2d``'s value; a short training loop.
"""

from __future__ import annotations

import numpy as np
import pytest
from google.protobuf import text_format

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.ops.common import make_op
from devsession.ops.nn_depthwise import depthwise_attrs
from gradient_check import check_op_gradient
from kernel_cases import (DEVICES, F16, F32, F64, I32, check_against_ref, make_node, rng_for,
                          run_on)

FORWARD = "DepthwiseConv2dNative"
INPUT_GRAD = "DepthwiseConv2dNativeBackpropInput"
FILTER_GRAD = "DepthwiseConv2dNativeBackpropFilter"
OPS = [FORWARD, INPUT_GRAD, FILTER_GRAD]

# (input shape, filter shape [KH, KW, C, M], (stride h, stride w), padding, dilation)
CASES = [
    ((2, 5, 5, 3), (3, 3, 3, 1), (1, 1), "SAME", 1),
    ((2, 6, 7, 2), (3, 3, 2, 3), (2, 2), "SAME", 1),     # even height: padding uneven
    ((1, 7, 6, 2), (2, 3, 2, 3), (2, 2), "VALID", 1),
    ((1, 9, 8, 2), (3, 3, 2, 1), (1, 1), "SAME", 2),
    ((2, 9, 9, 3), (3, 2, 3, 3), (1, 1), "VALID", 2),
    ((1, 6, 7, 2), (3, 3, 2, 2), (1, 2), "SAME", 1),     # unequal strides (TF 2.21 takes them)
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1), "SAME", 1),
    ((1, 1, 1, 2), (3, 3, 2, 3), (2, 2), "SAME", 1),     # a window larger than the image
    ((0, 5, 5, 2), (3, 3, 2, 3), (1, 1), "SAME", 1),     # batch 0
]
EMPTY_CASES = [((2, 4, 4, 0), (3, 3, 0, 2), (1, 1), "SAME", 1),      # no channels
               ((2, 4, 4, 2), (3, 3, 2, 0), (2, 2), "SAME", 1),      # multiplier 0
               ((2, 0, 4, 2), (3, 3, 2, 2), (1, 1), "SAME", 1)]      # height 0


def attrs_of(case) -> dict:
    _, _, (sh, sw), padding, dilation = case
    return depthwise_attrs([1, sh, sw, 1], padding, "NHWC", dilation, "case")


def numpy_depthwise(x, f, strides, padding, dilation):
    """Output channel c * M + m at (oh, ow) sums x[ih, iw, c] * f[i, j, c, m] over the
    taps inside the image; SAME pads the odd element at the bottom/right (float64)."""
    n, h, w, channels = x.shape
    kh, kw, _, multiplier = f.shape
    sizes = []
    for size, k, s in ((h, kh, strides[0]), (w, kw, strides[1])):
        span = (k - 1) * dilation + 1
        out = -(-size // s) if padding == "SAME" else (size - span) // s + 1
        before = max((out - 1) * s + span - size, 0) // 2 if padding == "SAME" else 0
        sizes.append((out, before))
    (oh, top), (ow, left) = sizes
    y = np.zeros((n, oh, ow, channels * multiplier))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    r, c = i * strides[0] - top + a * dilation, j * strides[1] - left + b * dilation
                    if 0 <= r < h and 0 <= c < w:
                        taps = x[:, r, c, :, None].astype(np.float64) * f[a, b].astype(np.float64)
                        y[:, i, j, :] += taps.reshape(n, channels * multiplier)
    return y


def run(fetches, feeds=None):
    with ds.Session() as sess:
        return sess.run(fetches, feeds)


# --------------------------------------------------------------- TF 2.21's values

# All recorded once with TF 2.21 (tensorflow-cpu, tf.compat.v1.nn.depthwise_conv2d and
# tf.gradients), from these integer inputs: exact in float32.
X1 = np.arange(18, dtype=F32).reshape(1, 3, 3, 2)
F1 = (np.arange(16) % 5 - 2).astype(F32).reshape(2, 2, 2, 2)
TF_Y1 = [[[10, 16, 1, -24], [12, 16, -1, -28], [2, 16, -22, -6]],       # SAME, stride 1:
         [[16, 16, -5, -36], [18, 16, -7, -40], [-4, 22, -34, -6]],     # channels c * 2 + m,
         [[4, -40, -15, 13], [4, -46, -17, 15], [-32, -16, 0, 17]]]     # padding below/right
X2 = np.arange(16, dtype=F32).reshape(1, 4, 4, 1)
F2 = (np.arange(18) % 4 - 1).astype(F32).reshape(3, 3, 1, 2)
DY2 = np.arange(1, 9, dtype=F32).reshape(1, 2, 2, 2)
TF_Y2 = [[[-5, 40], [1, 40]], [[4, 70], [0, 50]]]                      # SAME, stride 2
TF_DX2 = [[-1, 5, -4, 11], [5, -1, 16, -3], [-6, 22, -16, 34], [17, -5, 40, -7]]
TF_DF2 = [[[116, 136], [132, 156], [52, 64]], [[180, 216], [196, 236], [76, 96]],
          [[38, 56], [42, 62], [10, 20]]]
X3 = np.arange(25, dtype=F32).reshape(1, 5, 5, 1)
F3 = np.array([1, -1, 2, 3], F32).reshape(2, 2, 1, 1)
TF_Y3 = [[54, 59, 64], [79, 84, 89], [104, 109, 114]]                  # VALID, rate 2
# TF's NodeDefs of `y = tf.nn.depthwise_conv2d_native(x, f, [1, 2, 2, 1], "SAME")`
TF_NODES = [
    'name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: '
    '"shape" value { shape { dim { size: -1 } dim { size: 4 } dim { size: 4 } dim { size: 2 '
    '} } } }',
    'name: "f" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" '
    'value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } dim { '
    'size: 2 } dim { size: 1 } } tensor_content: "\\000\\000\\200?\\000\\000\\200\\277\\000'
    '\\000\\000@\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000@@\\000\\000\\000\\300\\000'
    '\\000\\200?" } } }',
    'name: "y" op: "DepthwiseConv2dNative" input: "x" input: "f" attr { key: "T" value { '
    'type: DT_FLOAT } } attr { key: "data_format" value { s: "NHWC" } } attr { key: '
    '"dilations" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "explicit_paddings" '
    'value { list { } } } attr { key: "padding" value { s: "SAME" } } attr { key: "strides" '
    'value { list { i: 1 i: 2 i: 2 i: 1 } } }',
]
TF_NODES_Y = [[[-16, 37], [-12, 49]], [[0, 85], [4, 97]]]              # for x = arange(32)


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
def test_kernels_give_tensorflows_values(device):
    def node(op, case_attrs):
        return make_node(op, [F32, F32], F32, case_attrs)

    same1 = depthwise_attrs(1, "SAME", "NHWC", 1, "tf")
    same2 = depthwise_attrs(2, "SAME", "NHWC", 1, "tf")
    valid_rate2 = depthwise_attrs(1, "VALID", "NHWC", 2, "tf")
    np.testing.assert_array_equal(run_on(device, node(FORWARD, same1), X1, F1)[0], TF_Y1)
    np.testing.assert_array_equal(run_on(device, node(FORWARD, same2), X2, F2)[0], TF_Y2)
    dx = run_on(device, make_node(INPUT_GRAD, [I32, F32, F32], F32, same2),
                np.array(X2.shape, np.int32), F2, DY2)
    np.testing.assert_array_equal(dx[0, :, :, 0], TF_DX2)
    df = run_on(device, make_node(FILTER_GRAD, [F32, I32, F32], F32, same2),
                X2, np.array(F2.shape, np.int32), DY2)
    np.testing.assert_array_equal(df[:, :, 0, :], TF_DF2)
    np.testing.assert_array_equal(run_on(device, node(FORWARD, valid_rate2), X3, F3)[0, :, :, 0],
                                  TF_Y3)


def test_builders_and_gradients_give_tensorflows_values():
    x2, f2 = ds.constant(X2), ds.constant(F2)
    y2 = ds.nn.depthwise_conv2d(x2, f2, [1, 2, 2, 1], "SAME")
    dx, df = ds.gradients(y2, [x2, f2], grad_ys=DY2)
    assert (dx.op.type, df.op.type) == (INPUT_GRAD, FILTER_GRAD)
    y1 = ds.nn.depthwise_conv2d(X1, F1, [1, 1, 1, 1], "SAME")
    y3 = ds.nn.depthwise_conv2d(X3, F3, [1, 1, 1, 1], "VALID", rate=[2, 2])
    got = run([y1, y2, dx, df, y3])
    for value, want in zip(got, [TF_Y1, TF_Y2, TF_DX2, TF_DF2, TF_Y3]):
        np.testing.assert_array_equal(np.squeeze(value), np.squeeze(want))


def test_a_node_tensorflow_wrote_imports_and_runs():
    gd = ds.GraphDef()
    for text in TF_NODES:
        text_format.Parse(text, gd.node.add())
    g = ds.Graph()
    ds.import_graph_def(gd, name="", graph=g)
    y = g.get_tensor_by_name("y:0")
    assert y.shape.as_list() == [None, 2, 2, 2]
    with ds.Session(graph=g) as sess:
        got = sess.run(y, {"x:0": np.arange(32, dtype=F32).reshape(1, 4, 4, 2)})
    np.testing.assert_array_equal(got[0], TF_NODES_Y)


def test_graphs_name_nodes_and_write_attrs_as_tensorflow():
    y = ds.nn.depthwise_conv2d(X1, F1, [1, 1, 1, 1], "SAME")
    s = ds.nn.separable_conv2d(X1, F1, np.ones((1, 1, 4, 3), F32), [1, 1, 1, 1], "SAME")
    native = ds.nn.depthwise_conv2d_native(X1, F1, [1, 1, 1, 1], "VALID")
    assert (y.op.name, y.op.type) == ("depthwise", FORWARD)
    assert [t.op.name for t in y.op.inputs] == ["depthwise/tensor_in", "depthwise/filter_in"]
    assert (s.op.name, s.op.type, s.op.inputs[0].op.name) == (
        "separable_conv2d", "Conv2D", "separable_conv2d/depthwise")
    assert native.op.name == FORWARD and native.shape.as_list() == [1, 2, 2, 4]
    node = next(n for n in ds.get_default_graph().as_graph_def().node if n.name == "depthwise")
    assert set(node.attr) == {"strides", "padding", "data_format", "dilations",
                              "explicit_paddings"}


# ------------------------------------------------------------ reference vs numpy loops

@pytest.mark.parametrize("case", CASES, ids=str)
def test_reference_matches_a_numpy_loop(case):
    x_shape, f_shape, strides, padding, dilation = case
    rng = rng_for("depthwise loop", case)
    x, f = rng.standard_normal(x_shape), rng.standard_normal(f_shape)
    want = numpy_depthwise(x, f, strides, padding, dilation)
    got = run_on("REF", make_node(FORWARD, [F64, F64], F64, attrs_of(case)), x, f)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # The gradients are the adjoints of that map: <y(x), dy> = <x, dx(dy)> = <f, df(dy)>.
    dy = rng.standard_normal(want.shape)
    dx = run_on("REF", make_node(INPUT_GRAD, [I32, F64, F64], F64, attrs_of(case)),
                np.array(x_shape, np.int32), f, dy)
    df = run_on("REF", make_node(FILTER_GRAD, [F64, I32, F64], F64, attrs_of(case)),
                x, np.array(f_shape, np.int32), dy)
    assert (dx.shape, df.shape) == (x_shape, f_shape)
    np.testing.assert_allclose(np.sum(dx * x), np.sum(want * dy), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.sum(df * f), np.sum(want * dy), rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------- every device vs reference

def inputs_for(op, case, dtype):
    x_shape, f_shape = case[:2]
    rng = rng_for(op, case, dtype)
    x = (rng.standard_normal(x_shape) * 3).astype(dtype)
    f = (rng.standard_normal(f_shape) * 3).astype(dtype)
    if op == FORWARD:
        return make_node(op, [dtype, dtype], dtype, attrs_of(case)), (x, f)
    y_shape = numpy_depthwise(x[:0], f, *case[2:]).shape[1:]
    dy = (rng.standard_normal(x_shape[:1] + y_shape) * 3).astype(dtype)
    if op == INPUT_GRAD:
        return (make_node(op, [I32, dtype, dtype], dtype, attrs_of(case)),
                (np.array(x_shape, np.int32), f, dy))
    return (make_node(op, [dtype, I32, dtype], dtype, attrs_of(case)),
            (x, np.array(f_shape, np.int32), dy))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", CASES + EMPTY_CASES, ids=str)
def test_kernels_match_the_reference(device, case, dtype):
    eps = float(np.finfo(dtype).eps)
    for op in OPS:
        node, inputs = inputs_for(op, case, dtype)
        check_against_ref(device, node, *inputs, rtol=64 * eps, atol=64 * eps * 9 * 100)


@pytest.mark.parametrize("device", DEVICES)
def test_kernels_in_float16(device):
    for op in OPS:
        node, inputs = inputs_for(op, CASES[1], F16)
        check_against_ref(device, node, *inputs, rtol=5e-3, atol=0.1)


@pytest.mark.parametrize("device", DEVICES)
def test_a_large_filter_gradient_sums_over_every_thread_block(device):
    """More output rows than the CPU has threads, split into unequal blocks."""
    case = ((5, 13, 11, 4), (3, 3, 4, 2), (1, 1), "SAME", 1)
    node, inputs = inputs_for(FILTER_GRAD, case, F64)
    check_against_ref(device, node, *inputs)


# ------------------------------------------------------------------------- gradients

def normal(key, shape):
    return rng_for("depthwise grad", key).standard_normal(shape)


GRAD_CASES = [((1, 5, 4, 2), (3, 3, 2, 2), (1, 1), "SAME", 1),
              ((2, 6, 5, 2), (3, 2, 2, 1), (2, 2), "SAME", 1),
              ((1, 7, 6, 1), (2, 2, 1, 3), (1, 1), "VALID", 2)]


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_gradient_matches_finite_differences(case):
    x_shape, f_shape, (sh, sw), padding, dilation = case
    check_op_gradient(
        lambda x, f: ds.nn.depthwise_conv2d_native(x, f, [1, sh, sw, 1], padding,
                                                   dilations=[1, dilation, dilation, 1]),
        [normal(("x", case), x_shape), normal(("f", case), f_shape)])


def test_the_backprop_ops_gradients_match_finite_differences():
    """Second derivatives: each backprop op is linear in its two tensor inputs."""
    case = GRAD_CASES[1]
    x_shape, f_shape = (np.array(shape, np.int32) for shape in case[:2])
    attrs = attrs_of(case)
    x, f = normal(("bx",), case[0]), normal(("bf",), case[1])
    dy = normal(("bdy",), (2, 3, 3, 2))
    check_op_gradient(lambda f, dy: make_op(INPUT_GRAD, [ds.constant(x_shape), f, dy],
                                            attrs), [f, dy])
    check_op_gradient(lambda x, dy: make_op(FILTER_GRAD, [x, ds.constant(f_shape), dy],
                                            attrs), [x, dy])


def test_gradients_of_a_batch_of_unknown_size():
    """The shapes the gradient ops need come from a Shape op at run time."""
    rng = rng_for("unknown batch")
    xv, fv = rng.standard_normal((3, 6, 5, 2)), rng.standard_normal((3, 3, 2, 2))
    x = ds.placeholder(ds.float64, (None, 6, 5, 2))
    f = ds.constant(fv)
    y = ds.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "SAME")
    assert y.shape.as_list() == [None, 3, 3, 4]
    dx, df = ds.gradients(ds.reduce_sum(y * y), [x, f])
    assert dx.op.inputs[0].op.type == "Shape"
    got_dx, got_df = run([dx, df], {x: xv})
    known = ds.constant(xv)
    y_known = ds.nn.depthwise_conv2d(known, f, [1, 2, 2, 1], "SAME")
    want_dx, want_df = run(ds.gradients(ds.reduce_sum(y_known * y_known), [known, f]))
    np.testing.assert_allclose(got_dx, want_dx, rtol=1e-12)
    np.testing.assert_allclose(got_df, want_df, rtol=1e-12)


# ---------------------------------------------------------------------------- errors

@pytest.mark.parametrize("build,match", [
    (lambda: ds.nn.depthwise_conv2d(np.ones((1, 5, 5, 2), F32), np.ones((3, 3, 3, 1), F32),
                                    [1, 1, 1, 1], "SAME"), "in-channels differ"),
    (lambda: ds.nn.depthwise_conv2d(np.ones((1, 2, 2, 1), F32), np.ones((3, 3, 1, 1), F32),
                                    [1, 1, 1, 1], "VALID"), "negative dimension"),
    (lambda: ds.nn.depthwise_conv2d(np.ones((1, 5, 5, 1), F32), np.ones((3, 3, 1, 1), F32),
                                    [2, 1, 1, 1], "SAME"), "batch and channel"),
    (lambda: ds.nn.depthwise_conv2d_native(np.ones((1, 5, 5, 1), F32),
                                           np.ones((3, 3, 1, 1), F32), [1, 1, 1, 1], "SAME",
                                           dilations=[1, 1, 1, 2]), "batch and channel"),
    (lambda: ds.nn.depthwise_conv2d_native(np.ones((1, 5, 5, 1), F32),
                                           np.ones((3, 3, 1, 1), F32), [1, 1, 1, 1], "SAME",
                                           data_format="NCDHW"), "NHWC"),
    (lambda: ds.nn.depthwise_conv2d(np.ones((1, 5, 5, 1), F32), np.ones((3, 3, 1, 1), F32),
                                    [1, 1, 1, 1], "FULL"), "padding"),
    (lambda: ds.nn.depthwise_conv2d(np.ones((1, 5, 5, 1), F32), np.ones((3, 3, 1), F32),
                                    [1, 1, 1, 1], "SAME"), "4-dimensional"),
    (lambda: ds.nn.depthwise_conv2d(np.ones((1, 5, 5, 1), F32), np.ones((3, 3, 1, 1), F32),
                                    [1, 2, 2, 1], "SAME", rate=2), "strides of 1"),
    (lambda: ds.nn.depthwise_conv2d(np.ones((1, 5, 5, 1), F32), np.ones((3, 3, 1, 1), F32),
                                    [1, 1, 1, 1], "SAME", rate=2, dilations=2), "not both"),
    (lambda: ds.nn.separable_conv2d(np.ones((1, 5, 5, 2), F32), np.ones((3, 3, 2, 2), F32),
                                    np.ones((2, 1, 4, 3), F32), [1, 1, 1, 1], "SAME"),
     r"\[1, 1, in, out\]"),
    (lambda: ds.nn.separable_conv2d(np.ones((1, 5, 5, 2), F32), np.ones((3, 3, 2, 2), F32),
                                    np.ones((1, 1, 3, 3), F32), [1, 1, 1, 1], "SAME"),
     r"Depth of input \(4\) is not a multiple of input depth of filter \(3\)"),
], ids=["channels", "valid-too-small", "batch-stride", "channel-dilation", "nchw", "padding",
        "filter-rank", "rate-and-stride", "rate-and-dilations", "pointwise-not-1x1",
        "pointwise-channels"])
def test_bad_graphs_are_value_errors_when_built(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_integer_inputs_are_type_errors():
    with pytest.raises(TypeError, match="float"):
        ds.nn.depthwise_conv2d_native(np.ones((1, 5, 5, 1), np.int32),
                                      np.ones((3, 3, 1, 1), np.int32), [1, 1, 1, 1], "SAME")


def test_shapes_known_only_at_run_time_are_invalid_argument_errors_naming_the_node():
    x = ds.placeholder(ds.float32, None)
    y = ds.nn.depthwise_conv2d(x, np.ones((3, 3, 2, 1), F32), [1, 1, 1, 1], "VALID",
                               name="dw")
    with pytest.raises(InvalidArgumentError, match="in-channels") as info:
        run(y, {x: np.ones((1, 5, 5, 3), F32)})
    assert info.value.node_name == "dw"
    with pytest.raises(InvalidArgumentError, match="does not fit") as info:
        run(y, {x: np.ones((1, 2, 5, 2), F32)})
    assert info.value.node_name == "dw"


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
def test_kernel_errors_name_the_node(device):
    attrs = depthwise_attrs(1, "SAME", "NHWC", 1, "bad")
    bad_dy = make_node(INPUT_GRAD, [I32, F32, F32], F32, attrs, name="bad_node")
    with pytest.raises(InvalidArgumentError, match=r"out_backprop has shape \[1,4,4,1\], "
                                                   r"expected \[1,4,4,2\]") as info:
        run_on(device, bad_dy, np.array([1, 4, 4, 1], np.int32), np.ones((3, 3, 1, 2), F32),
               np.ones((1, 4, 4, 1), F32))
    assert info.value.node_name == "bad_node"
    rank = make_node(FORWARD, [F32, F32], F32, attrs, name="bad_node")
    with pytest.raises(InvalidArgumentError, match="4-dimensional"):
        run_on(device, rank, np.ones((4, 4, 1), F32), np.ones((3, 3, 1, 2), F32))


# ------------------------------------------------------------ separable, training

@pytest.mark.parametrize("strides,padding,rate", [(1, "SAME", 1), (2, "VALID", 1),
                                                  (1, "SAME", 2)], ids=str)
def test_separable_conv2d_is_depthwise_then_pointwise(strides, padding, rate):
    rng = rng_for("separable", strides, padding, rate)
    x = rng.standard_normal((2, 7, 6, 3))
    depthwise_f, pointwise_f = rng.standard_normal((3, 3, 3, 2)), rng.standard_normal((1, 1, 6, 4))
    y = ds.nn.separable_conv2d(x, depthwise_f, pointwise_f, [1, strides, strides, 1], padding,
                               rate=[rate, rate])
    depthwise = numpy_depthwise(x, depthwise_f, (strides, strides), padding, rate)
    want = np.einsum("nhwc,co->nhwo", depthwise, pointwise_f[0, 0])
    assert y.shape.as_list() == list(want.shape)
    np.testing.assert_allclose(run(y), want, rtol=1e-10, atol=1e-10)


def test_training_a_depthwise_filter_lowers_the_loss():
    rng = rng_for("depthwise training")
    images = rng.standard_normal((8, 6, 6, 2)).astype(F32)
    target_filter = rng.standard_normal((3, 3, 2, 2)).astype(F32)
    targets = numpy_depthwise(images, target_filter, (1, 1), "SAME", 1).astype(F32)
    f = ds.Variable(np.zeros((3, 3, 2, 2), F32), name="filter")
    y = ds.nn.depthwise_conv2d(images, f, [1, 1, 1, 1], "SAME")
    loss = ds.reduce_mean(ds.square(y - targets))
    train = ds.train.GradientDescentOptimizer(0.5).minimize(loss)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        losses = [sess.run([train, loss])[1] for _ in range(30)]
        learned = sess.run(f)
    assert losses[-1] < 0.05 * losses[0], losses
    np.testing.assert_allclose(learned, target_filter, atol=0.3)
