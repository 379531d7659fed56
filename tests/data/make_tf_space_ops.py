"""Writes tf_space_ops.pb (a GraphDef TensorFlow builds with the space/depth ops:
SpaceToDepth, DepthToSpace, SpaceToBatchND, BatchToSpaceND, the 4-D SpaceToBatch and
BatchToSpace, ExtractImagePatches, an atrous convolution as TF 1.15 built it (Conv2D
between SpaceToBatchND and BatchToSpaceND: ``with_space_to_batch``), TF's
``atrous_conv2d_transpose`` and a Multinomial) and tf_space_ops.npz (its feeds, TF's
fetched values and static shapes, as tests/tf_recorded.py reads them), which
tests/test_space_ops.py imports and runs.  Besides: ``grad:<name>``, the gradients TF
computed for the ops (its gradient graphs use ops devsession builds differently, so only
the values are kept), ``sample:<name>``, one of TF's Multinomial draws (random: only
its shape, dtype and classes are compared), and ``name:<key>``, the tensor each fetch
of the script's ``outs`` is.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_space_ops.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, (None, 6, 4, 3), name="x")
    f = tf.placeholder(tf.float32, (3, 3, 3, 2), name="f")
    y = tf.placeholder(tf.float32, (2, 6, 4, 2), name="y")
    logits = tf.placeholder(tf.float32, (2, 4), name="logits")
    s2d = tf.space_to_depth(x, 2)
    s2b = tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]])
    patches_same = tf.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1],
                                            "SAME")
    outs = {
        "space_to_depth": s2d,
        "depth_to_space": tf.depth_to_space(s2d, 2),
        "space_to_batch_nd": s2b,
        "batch_to_space_nd": tf.batch_to_space_nd(
            s2b, tf.constant([2, 2], tf.int64), tf.constant([[1, 0], [0, 1]], tf.int64)),
        "space_to_batch_v1": tf.raw_ops.SpaceToBatch(input=x, paddings=[[0, 0], [1, 1]],
                                                     block_size=2),
        "batch_to_space_v1": tf.raw_ops.BatchToSpace(input=s2b, crops=[[1, 1], [0, 0]],
                                                     block_size=2),
        "space_to_batch_tf1": tf.space_to_batch(x, [[0, 2], [1, 1]], block_size=2),
        "patches_same": patches_same,
        "patches_valid": tf.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 2, 1],
                                                  [1, 2, 1, 1], "VALID"),
        # TF 1.15's atrous_conv2d: Conv2D between SpaceToBatchND and BatchToSpaceND
        "atrous_s2b": tf.nn.with_space_to_batch(
            x, [2, 2], "SAME",
            lambda value, num_spatial_dims, padding: tf.nn.conv2d(value, f, [1, 1, 1, 1],
                                                                  padding),
            filter_shape=[3, 3]),
        "atrous_transpose": tf.nn.atrous_conv2d_transpose(y, f, [2, 6, 4, 3], 2, "SAME"),
        "atrous_transpose_valid": tf.nn.atrous_conv2d_transpose(
            tf.placeholder_with_default(tf.ones((2, 2, 2, 2)), (2, 2, 2, 2),
                                        name="small"), f, [2, 6, 6, 3], 2, "VALID"),
    }
    sample = tf.random.categorical(logits, 7, seed=3, name="draw")
graph_def = graph.as_graph_def()        # before the gradients, whose ops are TF's own

with graph.as_default():
    grads = {
        "space_to_depth": tf.gradients(tf.reduce_sum(s2d * s2d), x)[0],
        "space_to_batch_nd": tf.gradients(tf.reduce_sum(s2b * s2b * s2b), x)[0],
        "patches_same": tf.gradients(tf.reduce_sum(patches_same * patches_same), x)[0],
        "atrous_conv2d": tf.gradients(tf.reduce_sum(tf.square(tf.nn.atrous_conv2d(
            x, f, 2, "SAME"))), [x, f]),
    }

rng = np.random.default_rng(11)
feeds = {"x": rng.standard_normal((2, 6, 4, 3)).astype(np.float32),
         "f": rng.standard_normal((3, 3, 3, 2)).astype(np.float32),
         "y": rng.standard_normal((2, 6, 4, 2)).astype(np.float32),
         "logits": np.array([[0.0, 1.0, -np.inf, 2.0], [3.0, 3.0, 3.0, -np.inf]], np.float32)}
with tf.Session(graph=graph) as sess:
    feed = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()}
    values, grad_values, drawn = sess.run([outs, grads, sample], feed)
names = {k: t.name for k, t in outs.items()}
print({k: t.op.type for k, t in outs.items()})
used = {n.op for n in graph_def.node}
print(sorted(used))
with open(os.path.join(HERE, "tf_space_ops.pb"), "wb") as out:
    out.write(graph_def.SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
flat_grads = {}
for k, v in grad_values.items():
    if isinstance(v, list):
        flat_grads.update({f"grad:{k}:{i}": g for i, g in enumerate(v)})
    else:
        flat_grads[f"grad:{k}"] = v
np.savez(os.path.join(HERE, "tf_space_ops.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in values.items()}, **static, **flat_grads,
         **{f"sample:{sample.name}": drawn},
         **{f"name:{k}": np.array(t.name) for k, t in outs.items()})
print(f"{len(outs)} fetches, {len(flat_grads)} gradients written")
