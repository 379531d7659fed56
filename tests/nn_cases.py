"""One op of each type the nn family adds (ops/nn.py, ops/nn_conv.py and the two math ops
of ops/elementwise.py's nn block), for the tests that walk every registered op
(test_graph.py, test_graph_def.py); ``NN_OPS`` names the ops whose kernels the nn suites
check against the reference (test_nn_ops.py, test_nn_conv.py), for test_kernels.py's
coverage test."""

from __future__ import annotations

import numpy as np

import devsession as ds
from devsession.ops.registry import get_gradient

NN_OPS = frozenset({
    "LogSoftmax", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
    "L2Loss", "BiasAdd", "BiasAddGrad", "LeakyRelu", "Elu", "Softplus", "SquaredDifference",
    "Relu6", "Selu", "Softsign",
    "Rsqrt", "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropInputV2", "Conv2DBackpropFilter",
    "Conv2DBackpropFilterV2", "MaxPool", "AvgPool", "MaxPoolGrad", "MaxPoolGradGrad",
    "AvgPoolGrad", "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter", "LRN", "LRNGrad",
    # test_conv3d.py checks these
    "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "MaxPool3D", "AvgPool3D",
    "MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3DGrad",
    # test_window_argmax.py checks these
    "MaxPoolWithArgmax", "MaxPoolGradWithArgmax", "MaxPoolGradGradWithArgmax", "Dilation2D",
    "Dilation2DBackpropInput", "Dilation2DBackpropFilter"})


def one_of_each_nn_op() -> list:
    """Built from placeholders of their own; the gradient-only ops are what the gradient
    functions build."""
    from devsession.ops.elementwise import rsqrt, squared_difference

    images = ds.placeholder(ds.float32, (2, 6, 6, 3), name="images")
    kernel = ds.constant(np.ones((3, 3, 3, 4), np.float32), name="kernel")
    logits = ds.placeholder(ds.float32, (2, 5), name="logits")
    conv = ds.nn.conv2d(images, kernel, [1, 1, 1, 1], "SAME")
    pooled = ds.nn.max_pool(conv, 2, 2, "VALID")
    averaged = ds.nn.avg_pool(conv, 3, 2, "SAME")
    biased = ds.nn.bias_add(conv, ds.constant(np.zeros(4, np.float32)))
    dx_v1 = ds.nn.conv2d_backprop_input([2, 6, 6, 3], kernel, conv, [1, 1, 1, 1], "SAME")
    dk_v1 = ds.nn.conv2d_backprop_filter(images, [3, 3, 3, 4], conv, [1, 1, 1, 1], "SAME")
    dx, dk = get_gradient("Conv2D")(conv.op, conv)
    (dpool,) = get_gradient("MaxPool")(pooled.op, pooled)
    channels = [ds.constant(np.ones(4, np.float32)) for _ in range(4)]
    normalized_locally = ds.nn.lrn(conv, 2, alpha=0.1, beta=0.75)
    depthwise = ds.nn.depthwise_conv2d(images, ds.constant(np.ones((3, 3, 3, 2), np.float32)),
                                       [1, 1, 1, 1], "SAME")
    normalized = ds.nn.fused_batch_norm(conv, *channels[:2], mean=channels[2],
                                        variance=channels[3], is_training=False)
    older = [ds.get_default_graph().create_op(op, [conv] + channels).outputs[0]
             for op in ("FusedBatchNorm", "FusedBatchNormV2")]
    volumes = ds.placeholder(ds.float32, (2, 4, 4, 4, 3), name="volumes")
    conv3d = ds.nn.conv3d(volumes, ds.constant(np.ones((2, 2, 2, 3, 2), np.float32)),
                          [1, 1, 1, 1, 1], "SAME")
    max3d, avg3d = ds.nn.max_pool3d(conv3d, 2, 2, "VALID"), ds.nn.avg_pool3d(conv3d, 2, 1, "SAME")
    (dmax3d,) = get_gradient("MaxPool3D")(max3d.op, max3d)
    volume_ops = [conv3d, *get_gradient("Conv3D")(conv3d.op, conv3d), dmax3d,
                  get_gradient("MaxPool3DGrad")(dmax3d.op, dmax3d)[2],
                  get_gradient("AvgPool3D")(avg3d.op, avg3d)[0]]
    return [*normalized, *older, *volume_ops, *window_argmax_ops(images),
        ds.nn.log_softmax(logits), ds.nn.l2_loss(logits), ds.nn.leaky_relu(logits, 0.1),
        ds.nn.elu(logits), ds.nn.softplus(logits), squared_difference(logits, logits),
        rsqrt(logits), ds.nn.relu6(logits), ds.nn.selu(logits), ds.nn.softsign(logits),
        ds.nn.softmax_cross_entropy_with_logits_v2(labels=ds.nn.softmax(logits), logits=logits),
        ds.nn.sparse_softmax_cross_entropy_with_logits(
            labels=ds.placeholder(ds.int64, (2,), name="classes"), logits=logits),
        biased, get_gradient("BiasAdd")(biased.op, biased)[1], dx_v1, dk_v1, dx, dk, dpool,
        get_gradient("MaxPoolGrad")(dpool.op, dpool)[2],
        get_gradient("AvgPool")(averaged.op, averaged)[0],
        depthwise, *get_gradient("DepthwiseConv2dNative")(depthwise.op, depthwise),
        normalized_locally, get_gradient("LRN")(normalized_locally.op, normalized_locally)[0],
    ]


def window_argmax_ops(images) -> list:
    """MaxPoolWithArgmax and Dilation2D with each of their gradient ops."""
    pooled, argmax = ds.nn.max_pool_with_argmax(images, 2, 2, "SAME")
    (dpool,) = get_gradient("MaxPoolWithArgmax")(pooled.op, pooled, None)
    dilated = ds.nn.dilation2d(images, ds.constant(np.zeros((2, 2, 3), np.float32)),
                               [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
    return [pooled, argmax, dpool, get_gradient("MaxPoolGradWithArgmax")(dpool.op, dpool)[1],
            dilated, *get_gradient("Dilation2D")(dilated.op, dilated)]
