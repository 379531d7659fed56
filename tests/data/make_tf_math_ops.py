"""Writes tf_math_ops.pb (a GraphDef TensorFlow builds with the TF1 math branch's ops:
Log1p ... DivNoNan, IsNan/IsInf/IsFinite, CheckNumerics, BroadcastTo, Print) and
tf_math_ops.npz (its feeds, TF's fetched values and static shapes), which
tests/test_math_ops.py imports and runs.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_math_ops.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, (None, 3), name="x")
    y = tf.placeholder(tf.float32, (None, 3), name="y")
    special = tf.placeholder(tf.float32, (4,), name="special")
    outs = {name: build(x) for name, build in (
        ("log1p", lambda v: tf.math.log1p(tf.abs(v))), ("expm1", tf.math.expm1),
        ("erf", tf.math.erf), ("erfc", tf.math.erfc), ("tan", tf.math.tan),
        ("asin", lambda v: tf.math.asin(v / 4)), ("acos", lambda v: tf.math.acos(v / 4)),
        ("atan", tf.math.atan), ("sinh", tf.math.sinh), ("cosh", tf.math.cosh))}
    outs.update({
        "atan2": tf.math.atan2(y, x), "xlogy": tf.math.xlogy(x, y),
        "div_no_nan": tf.math.divide_no_nan(x, y),
        "is_nan": tf.math.is_nan(special), "is_inf": tf.math.is_inf(special),
        "is_finite": tf.math.is_finite(special),
        "checked": tf.check_numerics(x * 2.0, "doubled"),
        "broadcast": tf.broadcast_to(x[:1], [2, 2, 3]),
        "printed": tf.Print(x, [x, "text"], message="x: ", summarize=2),
    })

feeds = {"x": np.array([[0.0, -1.5, 2.0], [0.5, 3.0, -0.25]], np.float32),
         "y": np.array([[0.0, 2.0, -1.0], [1.5, 0.0, np.nan]], np.float32),
         "special": np.array([1.0, np.nan, np.inf, -np.inf], np.float32)}
with tf.Session(graph=graph) as sess:
    values = sess.run(outs, {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()})
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_math_ops.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_math_ops.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in values.items()}, **static)
print(f"{len(outs)} fetches written")
