"""Gradients of the nn ops (``devsession/ops/nn_grad.py``) against float64 finite
differences (``gradient_check.check_op_gradient``): each op's gradient function, with
random gradients on every output (both outputs of the cross entropies)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops import nn_conv
from devsession.ops.elementwise import rsqrt, squared_difference
from devsession.ops.registry import get_gradient
from gradient_check import check_op_gradient
from devsession.kernels.registry import lookup_kernel
from kernel_cases import F64, make_node, rng_for

CONV = [((2, 5, 5, 2), (3, 3, 2, 3), 1, "SAME", 1), ((1, 6, 5, 2), (3, 2, 2, 2), 2, "SAME", 1),
        ((2, 5, 6, 1), (2, 3, 1, 2), 2, "VALID", 1), ((1, 6, 6, 2), (3, 3, 2, 1), 1, "SAME", 2),
        ((2, 3, 3, 2), (1, 1, 2, 2), 1, "VALID", 1)]
POOL = [((2, 5, 5, 2), 2, 2, "SAME"), ((1, 6, 5, 2), 3, 1, "VALID"), ((1, 5, 4, 1), 3, 2, "SAME")]


def normal(key, shape, scale=1.0):
    return rng_for(*key).standard_normal(shape) * scale


def distinct(key, shape):
    """Values at least 0.05 apart, so no finite-difference step changes a window's max."""
    values = rng_for(*key).permutation(int(np.prod(shape))) * 0.1
    return values.reshape(shape) - values.mean()


@pytest.mark.parametrize("case", CONV, ids=str)
def test_conv2d_gradient(case):
    x_shape, f_shape, stride, padding, dilation = case
    check_op_gradient(
        lambda x, f: ds.nn.conv2d(x, f, strides=stride, padding=padding, dilations=dilation),
        [normal(("cx", case), x_shape), normal(("cf", case), f_shape)])


@pytest.mark.parametrize("sized", [True, False])
def test_conv_backprop_ops_gradients(sized):
    x_shape, f_shape, stride, padding, dilation = CONV[1]
    attrs = nn_conv.conv_attrs(stride, padding, "NHWC", dilation, "grad")
    x, f = normal(("bx",), x_shape), normal(("bf",), f_shape)
    dy_shape = (1, 3, 3, 2)

    def input_grad(f, dy):
        if sized:
            return ds.nn.conv2d_backprop_input(list(x_shape), f, dy, stride, padding,
                                               dilations=dilation)
        xt = ds.constant(x)
        return ds.get_default_graph().create_op("Conv2DBackpropInputV2", [xt, f, dy],
                                                attrs).outputs[0]

    def filter_grad(x, dy):
        if sized:
            return ds.nn.conv2d_backprop_filter(x, list(f_shape), dy, stride, padding,
                                                dilations=dilation)
        ft = ds.constant(f)
        return ds.get_default_graph().create_op("Conv2DBackpropFilterV2", [x, ft, dy],
                                                attrs).outputs[0]

    dy = normal(("bdy",), dy_shape)
    check_op_gradient(input_grad, [f, dy])
    check_op_gradient(filter_grad, [x, dy])


@pytest.mark.parametrize("case", POOL, ids=str)
def test_pool_gradients(case):
    shape, k, stride, padding = case
    check_op_gradient(lambda x: ds.nn.max_pool(x, k, stride, padding),
                      [distinct(("mp", case), shape)])
    check_op_gradient(lambda x: ds.nn.avg_pool(x, k, stride, padding),
                      [normal(("ap", case), shape)])


def test_max_pool_grad_gradients():
    shape, k, stride, padding = POOL[0]
    attrs = {"ksize": (1, k, k, 1), "strides": (1, stride, stride, 1), "padding": padding}
    x = distinct(("mpg",), shape)
    y = lookup_kernel("MaxPool", "REF")(make_node("MaxPool", [F64], F64, attrs))(x)

    def op(op_type):
        return lambda a, b, c: ds.get_default_graph().create_op(op_type, [a, b, c],
                                                                attrs).outputs[0]
    check_op_gradient(op("MaxPoolGrad"), [x, y, normal(("mpg dy",), y.shape)],
                      no_gradient=(0, 1))
    check_op_gradient(op("MaxPoolGradGrad"), [x, y, normal(("mpgg",), shape)],
                      no_gradient=(0, 1))


def test_bias_add_grad_gradient():
    for data_format, shape in [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 2, 2))]:
        check_op_gradient(
            lambda dy: ds.get_default_graph().create_op(
                "BiasAddGrad", [dy], {"data_format": data_format}).outputs[0],
            [normal(("bag", data_format), shape)])


def test_avg_pool_grad_gradient():
    shape, k, stride, padding = POOL[0]
    check_op_gradient(
        lambda dy: ds.get_default_graph().create_op(
            "AvgPoolGrad", [ds.constant(np.array(shape, np.int32)), dy],
            {"ksize": (1, k, k, 1), "strides": (1, stride, stride, 1), "padding": padding}
        ).outputs[0],
        [normal(("apg",), (2, 3, 3, 2))])


def test_softmax_family_gradients():
    x = normal(("logits",), (3, 5), 2.0)
    labels = rng_for("dist").dirichlet(np.ones(5), 3)
    check_op_gradient(lambda t: ds.nn.log_softmax(t), [x])
    check_op_gradient(lambda t, y: ds.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=t),
                      [x, labels])
    sparse = np.array([4, 0, 2], np.int64)
    check_op_gradient(lambda t, y: ds.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                                  logits=t),
                      [x, sparse], no_gradient=(1,))
    check_op_gradient(lambda t: ds.nn.l2_loss(t), [x])


def test_bias_add_gradient():
    for data_format, shape, channels in [("NHWC", (2, 3, 4), 4), ("NCHW", (2, 3, 2, 2), 3)]:
        check_op_gradient(lambda v, b: ds.nn.bias_add(v, b, data_format=data_format),
                          [normal(("v", data_format), shape), normal(("b",), (channels,))])


def test_activation_gradients():
    x = normal(("act",), (4, 6), 2.0)
    x[np.abs(x) < 0.01] = 0.5               # keep finite differences off the kinks
    check_op_gradient(lambda t: ds.nn.leaky_relu(t, alpha=0.3), [x])
    check_op_gradient(lambda t: ds.nn.elu(t), [x])
    check_op_gradient(lambda t: ds.nn.softplus(t), [x])
    check_op_gradient(rsqrt, [np.abs(x) + 0.5])
    check_op_gradient(lambda t: ds.nn.selu(t), [x])
    check_op_gradient(lambda t: ds.nn.softsign(t), [x])
    wide = x * 3                            # reaches past 6, off the kinks at 0 and 6
    wide[np.abs(wide - 6) < 0.05] = 5.0
    check_op_gradient(lambda t: ds.nn.relu6(t), [wide])


def test_squared_difference_gradient_undoes_broadcasting():
    check_op_gradient(lambda a, b: squared_difference(a, b),
                      [normal(("sa",), (4, 3)), normal(("sb",), (1, 3))])
    check_op_gradient(lambda a, b: squared_difference(a, b),
                      [normal(("sa",), (3,)), normal(("sb",), (2, 3))])


def test_gradient_ops_are_tensorflows():
    x = ds.placeholder(ds.float32, (None, 8, 8, 2))
    f = ds.placeholder(ds.float32, (3, 3, 2, 4))
    y = ds.nn.conv2d(x, f, 1, "SAME")
    dy = ds.placeholder(ds.float32, (None, 8, 8, 4))
    dx, df = get_gradient("Conv2D")(y.op, dy)
    assert (dx.op.type, df.op.type) == ("Conv2DBackpropInputV2", "Conv2DBackpropFilterV2")
    assert dx.shape == (None, 8, 8, 2) and df.shape == (3, 3, 2, 4)
    pooled = ds.nn.max_pool(y, 2, 2, "SAME")
    (dp,) = get_gradient("MaxPool")(pooled.op, ds.placeholder(ds.float32, (None, 4, 4, 4)))
    assert dp.op.type == "MaxPoolGrad" and dp.shape == (None, 8, 8, 4)
    loss = ds.nn.sparse_softmax_cross_entropy_with_logits(
        labels=ds.placeholder(ds.int32, (None,)), logits=ds.placeholder(ds.float32, (None, 3)))
    d_logits, d_labels = get_gradient(loss.op.type)(loss.op, ds.placeholder(ds.float32, (None,)),
                                                    None)
    assert d_labels is None and d_logits.shape == (None, 3)
