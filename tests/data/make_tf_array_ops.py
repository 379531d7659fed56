"""Writes tf_array_ops.pb (a GraphDef TensorFlow builds with the array ops) and
tf_array_ops.npz (its inputs and the values TensorFlow computed), which
tests/test_array_ops.py imports and runs.  Run with TensorFlow installed (not a test):

    python tests/data/make_tf_array_ops.py

The graph holds array ops only (no arithmetic ops of other families), and its Const
values are re-encoded in TensorProto's ``tensor_content`` form (TF writes small
constants as ``int_val``/``float_val`` lists, which the GraphDef importer's own tests
cover): this fixture is about the array ops' names, inputs and attrs.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, (None, 4, 5), name="x")
    i = tf.placeholder(tf.int32, (3,), name="i")
    j = tf.placeholder(tf.int64, (2, 2), name="j")
    outs = {
        "gather": tf.gather(x, i, axis=1),
        "gather64": tf.gather(x, j),
        "onehot": tf.one_hot(i, 6),
        "onehot_axis0": tf.one_hot(j, 3, on_value=5, off_value=-1, axis=0),
        "addn": tf.add_n([x, x, x]),
        "slice": tf.slice(x, [0, 1, 2], [-1, 2, 3]),
        "index": x[1:, ::2, 0],
        "index_ellipsis": x[..., None, -1],
        "index_reverse": x[::-1, 3:0:-2],
        "squeeze": tf.squeeze(x[:, :1]),
        "squeeze_axis": tf.squeeze(x[:1, :, 2:3], axis=[2]),
        "expand": tf.expand_dims(x, 1),
        "stack": tf.stack([x, tf.zeros_like(x)], axis=1),
        "tile": tf.tile(x, [1, 2, 1]),
        "pad": tf.pad(x, [[0, 0], [1, 2], [0, 1]]),
        "pad_value": tf.pad(x, [[0, 0], [1, 2], [0, 1]], constant_values=3),
        "reflect": tf.pad(x, [[0, 0], [1, 2], [0, 1]], mode="REFLECT"),
        "symmetric": tf.pad(x, [[1, 1], [4, 2], [0, 5]], mode="SYMMETRIC"),
        "shape": tf.shape(x),
        "shape64": tf.shape(x, out_type=tf.int64),
        "size": tf.size(x),
        "fill": tf.fill(tf.shape(x), 1.5),
        "zeros_like": tf.zeros_like(x),
        "ones_like": tf.raw_ops.OnesLike(x=x),
        "clip": tf.clip_by_value(x, -0.5, 0.5),
        "reshape": tf.reshape(x, tf.stack([tf.shape(x)[0], -1])),
        "segment_sum": tf.math.unsorted_segment_sum(x, [0, 2, 0], 4),
        "slice_grad": tf.raw_ops.StridedSliceGrad(
            shape=tf.shape(x), begin=[1, 0, 0], end=[0, 0, 1], strides=[1, 2, 1],
            dy=x[1:, ::2, 0], begin_mask=2, end_mask=3, shrink_axis_mask=4),
        "mirror_grad": tf.raw_ops.MirrorPadGrad(
            input=x, paddings=[[0, 0], [1, 1], [1, 2]], mode="SYMMETRIC"),
    }
    parts = tf.unstack(x, axis=1)
    for k, t in enumerate(parts):
        outs[f"unstack_{k}"] = t

rng = np.random.default_rng(7)
feeds = {"x": rng.standard_normal((3, 4, 5)).astype(np.float32),
         "i": np.array([2, 0, 2], np.int32), "j": np.array([[1, 0], [2, 2]], np.int64)}
with tf.Session(graph=graph) as sess:
    values = sess.run(outs, {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()})
names = {k: t.name for k, t in outs.items()}
graph_def = graph.as_graph_def()
for node in graph_def.node:
    if node.op == "Const":
        value = tf.make_ndarray(node.attr["value"].tensor)
        tensor = node.attr["value"].tensor
        tensor.Clear()
        tensor.dtype = node.attr["dtype"].type
        for d in value.shape:
            tensor.tensor_shape.dim.add(size=d)
        tensor.tensor_content = np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<")).tobytes()
with open(os.path.join(HERE, "tf_array_ops.pb"), "wb") as f:
    f.write(graph_def.SerializeToString())
# TF's static shapes: -1 for an unknown dimension, [-2] for an unknown rank
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_array_ops.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in values.items()}, **static)
print(f"{len(outs)} fetches written")
