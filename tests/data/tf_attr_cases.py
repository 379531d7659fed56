"""Ops whose TensorFlow attrs devsession computes rather than keeps (type attrs, TF's
names for what devsession holds otherwise): the recorder (make_tf_attrs.py) asks
TensorFlow's ``op.get_attr`` for them, tests/test_tf_attrs.py devsession's."""

import numpy as np


def build(tf):
    """{case name: (op, [attr names])}."""
    x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
    i = tf.placeholder(tf.int64, [None], name="i")
    conv = tf.nn.conv2d(x, tf.ones([3, 3, 3, 4]), [1, 1, 1, 1], "SAME")
    total = tf.reduce_sum(conv, axis=1)
    biggest = tf.reduce_max(conv, axis=[1, 2], keepdims=True)
    added = tf.add_n([x, x, x])
    product = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_b=True)
    gathered = tf.gather(tf.ones([4, 2]), i)
    reshaped = tf.reshape(x, [-1, 192])
    padded = tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]])
    cast = tf.cast(i, tf.float32)
    shape = tf.shape(x, out_type=tf.int64)
    concat = tf.concat([x, x], axis=3)
    argmax = tf.argmax(total, axis=1)
    stacked = tf.stack([i, i])
    return {"conv": (conv.op, ["T"]), "sum": (total.op, ["T", "Tidx", "keep_dims"]),
            "max": (biggest.op, ["T", "Tidx", "keep_dims"]), "add_n": (added.op, ["N", "T"]),
            "matmul": (product.op, ["T"]),
            "gather": (gathered.op, ["Tparams", "Tindices", "Taxis"]),
            "reshape": (reshaped.op, ["T", "Tshape"]),
            "pad": (padded.op, ["T", "Tpaddings"]), "cast": (cast.op, ["SrcT", "DstT"]),
            "shape": (shape.op, ["T", "out_type"]), "concat": (concat.op, ["N", "T", "Tidx"]),
            "argmax": (argmax.op, ["T", "Tidx", "output_type"]),
            "stack": (stacked.op, ["N", "T", "axis"])}


def describe(value):
    """Plain JSON for what get_attr returned (a DType by its name, bytes as text)."""
    if hasattr(value, "as_numpy_dtype"):
        return ["dtype", value.name]
    if isinstance(value, bytes):
        return ["bytes", value.decode()]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [describe(v) for v in value]]
    if isinstance(value, (bool, np.bool_)):
        return ["bool", bool(value)]
    return [type(value).__name__, value]
