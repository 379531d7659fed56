"""Writes tf_conv3d.pb (a frozen GraphDef TensorFlow builds with 3-D convolutions and
pooling: Conv3D -- SAME with odd and even padding, strides, a dilation, VALID, NCDHW,
1x1x1 --, conv3d_transpose, MaxPool3D, AvgPool3D, and the gradient ops
Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3DGrad, MaxPool3DGradGrad and
AvgPool3DGrad with constant shapes, filters as Const nodes) and tf_conv3d.npz (its feeds,
TF's fetched values and static shapes), which tests/test_conv3d.py imports and runs.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_conv3d.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(3)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


X_SHAPE = (2, 4, 5, 6, 2)       # depth even, height odd, width even
F1, F2, F3 = normal(3, 3, 3, 2, 3), normal(2, 3, 2, 2, 4), normal(2, 2, 2, 2, 2)
F_T = normal(3, 3, 3, 2, 3)     # conv3d_transpose: [KD, KH, KW, out 2, in 3]
POOL = dict(ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="SAME")
S2 = dict(strides=[1, 2, 2, 3, 1], padding="SAME")

graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, (None,) + X_SHAPE[1:], name="x")
    small = tf.placeholder(tf.float32, (2, 2, 3, 3, 3), name="small")
    dy2 = tf.placeholder(tf.float32, (2, 2, 3, 2, 4), name="dy2")
    dy_pool = tf.placeholder(tf.float32, (2, 2, 3, 3, 2), name="dy_pool")
    dx_like = tf.placeholder(tf.float32, X_SHAPE, name="dx_like")
    f1, f2, f3 = (tf.constant(f, name=n) for f, n in ((F1, "f1"), (F2, "f2"), (F3, "f3")))
    max_pooled = tf.nn.max_pool3d(x, name="max_pool_same", **POOL)
    outs = {
        "conv_same": tf.nn.conv3d(x, f1, [1, 1, 1, 1, 1], "SAME", name="conv_same"),
        "conv_strided": tf.nn.conv3d(x, f2, name="conv_strided", **S2),
        "conv_dilated": tf.nn.conv3d(x, f3, [1, 1, 1, 1, 1], "VALID",
                                     dilations=[1, 2, 1, 2, 1], name="conv_dilated"),
        "conv_ncdhw": tf.nn.conv3d(tf.transpose(x, [0, 4, 1, 2, 3]), f1, [1, 1, 1, 2, 1],
                                   "SAME", data_format="NCDHW", name="conv_ncdhw"),
        "conv_1x1": tf.nn.conv3d(x, tf.constant(normal(1, 1, 1, 2, 3)), [1, 1, 1, 1, 1],
                                 "VALID", name="conv_1x1"),
        "transposed": tf.nn.conv3d_transpose(small, tf.constant(F_T), [2, 4, 5, 6, 2],
                                             [1, 2, 2, 2, 1], "SAME", name="transposed"),
        "max_pool_same": max_pooled,
        "max_pool_valid": tf.nn.max_pool3d(x, [1, 3, 3, 3, 1], [1, 1, 2, 1, 1], "VALID",
                                           name="max_pool_valid"),
        "avg_pool_same": tf.nn.avg_pool3d(x, [1, 3, 3, 3, 1], [1, 2, 2, 2, 1], "SAME",
                                          name="avg_pool_same"),
        "avg_pool_valid": tf.nn.avg_pool3d(x, [1, 2, 3, 2, 1], [1, 2, 1, 2, 1], "VALID",
                                           name="avg_pool_valid"),
        "input_grad": tf.raw_ops.Conv3DBackpropInputV2(
            input_sizes=tf.constant(X_SHAPE), filter=f2, out_backprop=dy2,
            name="input_grad", **S2),
        "filter_grad": tf.raw_ops.Conv3DBackpropFilterV2(
            input=x, filter_sizes=tf.constant([2, 3, 2, 2, 4]), out_backprop=dy2,
            name="filter_grad", **S2),
        "max_pool_grad": tf.raw_ops.MaxPool3DGrad(orig_input=x, orig_output=max_pooled,
                                                  grad=dy_pool, name="max_pool_grad", **POOL),
        "max_pool_grad_grad": tf.raw_ops.MaxPool3DGradGrad(
            orig_input=x, orig_output=max_pooled, grad=dx_like, name="max_pool_grad_grad",
            **POOL),
        "avg_pool_grad": tf.raw_ops.AvgPool3DGrad(orig_input_shape=tf.constant(X_SHAPE),
                                                  grad=dy_pool, name="avg_pool_grad", **POOL),
    }

feeds = {"x": normal(*X_SHAPE), "small": normal(2, 2, 3, 3, 3), "dy2": normal(2, 2, 3, 2, 4),
         "dy_pool": normal(2, 2, 3, 3, 2), "dx_like": normal(*X_SHAPE)}
with tf.Session(graph=graph) as sess:
    values = sess.run(outs, {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()})
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_conv3d.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_conv3d.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in values.items()}, **static)
