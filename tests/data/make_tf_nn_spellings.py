"""Writes tf_nn_spellings.pb and tf_nn_spellings.npz (tests/tf_recorded.py's format) for
tests/test_nn_spellings.py: a GraphDef TensorFlow builds with TF1's pooling and
convolution spellings (max_pool1d/2d, the v2 and N-D ``pool``, ``convolution``,
``conv_transpose``...), the moment composites, MaxPoolWithArgmax (ties, both index
layouts, int32 and int64 argmax) and Dilation2D/erosion2d (SAME and VALID, strides,
rates), fed integers so windows tie.  Besides: ``value:erosion2d`` (its ReverseV2 kept out of the GraphDef), ``grad:<key>``, the gradients TF computed
(its gradient ops' values only), and ``name:<key>``, the tensor each key of ``outs`` is.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_nn_spellings.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

from graph_recording import fetch_entries

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

rng = np.random.default_rng(5)
feeds = {"x": rng.integers(-3, 4, (2, 7, 6, 3)).astype(np.float32),
         "x1": rng.standard_normal((2, 9, 3)).astype(np.float32),
         "x3": rng.standard_normal((2, 5, 6, 4, 3)).astype(np.float32),
         "f2": rng.standard_normal((3, 3, 3, 2)).astype(np.float32),
         "f1": rng.standard_normal((3, 3, 2)).astype(np.float32),
         "f3": rng.standard_normal((2, 2, 2, 3, 2)).astype(np.float32),
         "k": rng.integers(-2, 3, (3, 2, 3)).astype(np.float32),
         "y1": rng.standard_normal((2, 5, 2)).astype(np.float32),
         "y2": rng.standard_normal((2, 4, 3, 2)).astype(np.float32),
         "w": rng.random((2, 7, 6, 1)).astype(np.float32)}

graph = tf.Graph()
with graph.as_default():
    t = {k: tf.placeholder(tf.float32, v.shape, name=k) for k, v in feeds.items()}
    x = t["x"]
    argmax = tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    argmax_b = tf.nn.max_pool_with_argmax(x, [1, 2, 3, 1], [1, 1, 2, 1], "VALID",
                                          include_batch_in_index=True)
    dilated = tf.nn.dilation2d(x, t["k"], [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
    dilated_valid = tf.nn.dilation2d(x, t["k"], [1, 1, 2, 1], [1, 2, 1, 1], "VALID")
    counts, m_ss, v_ss, shift = tf.nn.sufficient_statistics(x, [0, 1], shift=0.5)
    outs = {
        "max_pool2d": tf.nn.max_pool2d(x, 3, 2, "SAME"),
        "avg_pool2d": tf.nn.avg_pool2d(x, [2, 3], 1, "VALID"),
        "max_pool1d": tf.nn.max_pool1d(t["x1"], 3, 2, "SAME"),
        "avg_pool1d": tf.nn.avg_pool1d(t["x1"], 2, 1, "SAME"),
        "max_pool_v2_3d": tf.nn.max_pool_v2(t["x3"], 2, 2, "VALID"),
        "avg_pool_v2_2d": tf.nn.avg_pool_v2(x, 2, 2, "SAME"),
        "pool_max_dilated": tf.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 3]),
        "pool_avg_dilated_1d": tf.nn.pool(t["x1"], [2], "AVG", "VALID", dilation_rate=[3]),
        "pool_avg_3d": tf.nn.pool(t["x3"], [2, 2, 2], "AVG", "SAME", strides=[1, 2, 2]),
        "pool_max_1d": tf.nn.pool(t["x1"], [3], "MAX", "SAME", strides=[2]),
        "convolution_2d": tf.nn.convolution(x, t["f2"], "SAME", dilation_rate=[2, 1]),
        "convolution_1d": tf.nn.convolution(t["x1"], t["f1"], "VALID", strides=[2]),
        "convolution_3d": tf.nn.convolution(t["x3"], t["f3"], "SAME", dilation_rate=2),
        "conv1d_transpose": tf.nn.conv1d_transpose(t["y1"], t["f1"], [2, 11, 3], 2, "VALID"),
        "conv_transpose": tf.nn.conv_transpose(t["y2"], t["f2"], [2, 7, 6, 3], 2, "SAME"),
        "argmax_output": argmax[0], "argmax_argmax": argmax[1],
        "argmax_b_output": argmax_b[0], "argmax_b_argmax": argmax_b[1],
        "dilation2d": dilated, "dilation2d_valid": dilated_valid,
        "ss_counts": counts, "ss_mean": m_ss, "ss_var": v_ss,
        "normalize_mean": tf.nn.normalize_moments(counts, m_ss, v_ss, shift)[0],
        "normalize_variance": tf.nn.normalize_moments(counts, m_ss, v_ss, None)[1],
        "weighted_mean": tf.nn.weighted_moments(x, [1, 2], t["w"])[0],
        "weighted_variance": tf.nn.weighted_moments(x, [1, 2], t["w"], keepdims=True)[1],
        "bn_global": tf.nn.batch_norm_with_global_normalization(
            x, tf.constant([0.5, 1.0, -1.0]), tf.constant([2.0, 0.5, 1.0]),
            tf.constant([0.1, 0.2, 0.3]), tf.constant([1.5, 2.0, 0.5]), 0.001, True),
    }
graph_def = graph.as_graph_def()
# erosion2d's ReverseV2 stays out of the GraphDef (devsession mirrors with a StridedSlice):
# only its values are kept (``value:erosion2d``, ``grad:erosion2d``).
with graph.as_default():
    eroded = tf.nn.erosion2d(x, t["k"], [1, 1, 1, 1], [1, 2, 2, 1], "SAME")

with graph.as_default():
    def weighted(y):
        return tf.reduce_sum(y * tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)),
                                         y.dtype))
    grads = {
        "argmax": tf.gradients(weighted(argmax[0]), x)[0],
        "argmax_b": tf.gradients(weighted(argmax_b[0]), x)[0],
        "dilation2d": tf.gradients(weighted(dilated), [x, t["k"]]),
        "dilation2d_valid": tf.gradients(weighted(dilated_valid), [x, t["k"]]),
        "erosion2d": tf.gradients(weighted(eroded), [x, t["k"]]),
    }

with tf.Session(graph=graph) as sess:
    feed = {t[k]: v for k, v in feeds.items()}
    values, grad_values, eroded_value = sess.run([outs, grads, eroded], feed)
data = {f"feed:{k}": v for k, v in feeds.items()}
data.update(fetch_entries(outs, values))
data["value:erosion2d"] = eroded_value
for key, value in grad_values.items():
    for i, v in enumerate(value if isinstance(value, list) else [value]):
        data[f"grad:{key}:{i}"] = v
with open(os.path.join(HERE, "tf_nn_spellings.pb"), "wb") as f:
    f.write(graph_def.SerializeToString())
np.savez(os.path.join(HERE, "tf_nn_spellings.npz"), **data)
print({k: t.op.type for k, t in outs.items()})
