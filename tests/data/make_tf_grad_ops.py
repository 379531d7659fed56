"""Writes tf_grad_ops.pb and tf_grad_ops.npz (tests/tf_recorded.py's format) for
tests/test_tf_grad_ops.py: a training GraphDef TensorFlow's ``tf.gradients`` wrote, with
its gradient op types (ReluGrad, Relu6Grad, EluGrad, SeluGrad, LeakyReluGrad,
SoftplusGrad, SoftsignGrad, SigmoidGrad, TanhGrad, RsqrtGrad, SqrtGrad, ReciprocalGrad,
InvGrad, BroadcastGradientArgs, ConcatOffset, FusedBatchNormGrad/V2/V3 training and
inference, PreventGradient) and second derivatives, over placeholders with a None
batch (so broadcasting gradients sum over axes computed at run time), an MLP and a
convnet (weights fed), and TF's values.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_grad_ops.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_math_ops, gen_nn_ops
from graph_recording import record_fetches

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

rng = np.random.default_rng(7)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


feeds = {"x": normal(4, 3) * 3, "dy": normal(4, 3), "pos": np.abs(normal(4, 3)) + 0.2,
         "bias": normal(3), "img": normal(2, 5, 5, 3), "img_nchw": normal(2, 3, 4, 4),
         "gamma": normal(3) + 1, "beta": normal(3), "w1": normal(3, 8) * 0.5,
         "b1": normal(8), "w2": normal(8, 2) * 0.5, "labels": np.array([0, 1, 1, 0], np.int32),
         "f": normal(3, 3, 3, 4) * 0.3, "w": normal(36, 2) * 0.3,
         "moving_mean": normal(3), "moving_var": np.abs(normal(3)) + 0.5}
feeds["x"].reshape(-1)[:2] = 0.0            # features at the kinks
feeds["x"].reshape(-1)[2] = 6.0

graph = tf.Graph()
with graph.as_default():
    batch = {"x", "dy", "pos", "img", "img_nchw", "labels"}
    t = {k: tf.placeholder(tf.as_dtype(v.dtype), (None,) + v.shape[1:] if k in batch
                           else v.shape, name=k) for k, v in feeds.items()}
    x, dy, pos = t["x"], t["dy"], t["pos"]
    outs = {}
    activations = {"relu": tf.nn.relu, "relu6": tf.nn.relu6, "elu": tf.nn.elu,
                   "selu": tf.nn.selu, "leaky_relu": lambda v: tf.nn.leaky_relu(v, 0.1),
                   "softplus": tf.nn.softplus, "softsign": tf.nn.softsign,
                   "sigmoid": tf.sigmoid, "tanh": tf.tanh}
    for name, fn in activations.items():
        (g,) = tf.gradients(fn(x), x, grad_ys=dy)
        outs[f"d_{name}"] = g
        if name not in ("softsign",):          # TF has no gradient for SoftsignGrad
            outs[f"dd_{name}"] = tf.gradients(g, [x, dy], grad_ys=dy * 0.5)[1]
        if name in ("sigmoid", "tanh", "elu", "selu", "softplus"):
            outs[f"ddx_{name}"] = tf.gradients(g, x, grad_ys=dy * 0.5)[0]
    for name, fn in {"rsqrt": tf.math.rsqrt, "sqrt": tf.sqrt,
                     "reciprocal": tf.math.reciprocal}.items():
        (g,) = tf.gradients(fn(pos), pos, grad_ys=dy)
        outs[f"d_{name}"] = g
        outs[f"ddx_{name}"], outs[f"dd_{name}"] = tf.gradients(g, [pos, dy], grad_ys=dy * 0.5)
    outs["inv_grad"] = gen_math_ops.inv_grad(tf.math.reciprocal(pos), dy)
    softplus_grad = gen_nn_ops.softplus_grad(dy, x)     # TF's own gradient uses Sigmoid
    outs["softplus_grad"] = softplus_grad
    outs["ddx_softplus_grad"], outs["dd_softplus_grad"] = tf.gradients(
        softplus_grad, [x, dy], grad_ys=dy * 0.5)
    # broadcasting with a None batch: BroadcastGradientArgs, Sum over run-time axes
    y = (x + t["bias"]) * t["bias"] - tf.maximum(x, t["bias"]) / (pos + t["bias"] ** 2)
    outs["d_bias"], outs["d_x"] = tf.gradients(tf.reduce_sum(y * dy), [t["bias"], x])
    outs["d_concat"] = tf.gradients(tf.concat([x, pos * 2], 0) ** 2, pos)[0]   # ConcatOffset
    outs["d_transpose"] = tf.gradients(tf.transpose(x) * tf.transpose(dy), x)[0]
    outs["d_mean_keep"] = tf.gradients(tf.reduce_mean(x * pos, 1, keepdims=True) ** 2, x)[0]
    # fused batch norms: training and inference, NHWC and NCHW; V1/V2 grads directly
    for fmt, key in (("NHWC", "img"), ("NCHW", "img_nchw")):
        for training in (True, False):
            stats = {} if training else {"mean": t["moving_mean"], "variance": t["moving_var"]}
            yb = tf.nn.fused_batch_norm(t[key], t["gamma"], t["beta"], data_format=fmt,
                                        is_training=training, epsilon=0.01, **stats)[0]
            grads = tf.gradients(yb * yb, [t[key], t["gamma"], t["beta"]])
            for what, g in zip(("x", "scale", "offset"), grads):
                outs[f"bn_{fmt}_{'train' if training else 'infer'}_d{what}"] = g
    mean, var = tf.nn.moments(t["img"], [0, 1, 2])
    for version, grad_op in (("v1", gen_nn_ops.fused_batch_norm_grad),
                             ("v2", gen_nn_ops.fused_batch_norm_grad_v2)):
        for i, g in enumerate(grad_op(t["img"] * 0.5, t["img"], t["gamma"], mean, var,
                                      epsilon=0.001)[:3]):
            outs[f"bn_grad_{version}_{i}"] = g
    outs["prevent_gradient"] = tf.raw_ops.PreventGradient(input=x * 2, message="no")
    # an MLP and a convnet, weights fed
    hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, t["w1"]), t["b1"]))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=t["labels"], logits=tf.matmul(hidden, t["w2"])))
    for key, g in zip(("w1", "b1", "w2"), tf.gradients(loss, [t["w1"], t["b1"], t["w2"]])):
        outs[f"mlp_d{key}"] = g
    conv = tf.nn.conv2d(t["img"], t["f"], [1, 1, 1, 1], "SAME")
    gamma4, beta4 = tf.ones([4]), tf.zeros([4])
    act = tf.nn.relu(tf.nn.fused_batch_norm(conv, gamma4, beta4)[0])
    pooled = tf.nn.max_pool(act[:, :4, :4, :], [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    logits = tf.matmul(tf.reshape(pooled, [-1, 16]), t["w"][:16])
    xent = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.one_hot(t["labels"][:2], 2), logits=logits))
    for key, g in zip(("f", "w"), tf.gradients(xent, [t["f"], t["w"]])):
        outs[f"convnet_d{key}"] = g
graph_def = record_fetches(HERE, "tf_grad_ops", graph, outs, t, feeds, tf)
print(len(outs), "fetches;", sorted({n.op for n in graph_def.node if "Grad" in n.op or n.op in (
    "BroadcastGradientArgs", "ConcatOffset", "PreventGradient")}))
