"""Ops whose TensorFlow attrs devsession computes rather than keeps (type attrs, TF's
names for what devsession holds otherwise), the attrs devsession keeps in its own forms
(strings, tuples, shapes, arrays: TF's are bytes, lists and protos) and the defaults
TF's op fills in: the recorder (make_tf_attrs.py) asks TensorFlow's ``op.get_attr`` for
them, tests/test_tf_attrs.py devsession's."""

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
    return {**_own_forms(tf, x, i),
            "conv": (conv.op, ["T"]), "sum": (total.op, ["T", "Tidx", "keep_dims"]),
            "max": (biggest.op, ["T", "Tidx", "keep_dims"]), "add_n": (added.op, ["N", "T"]),
            "matmul": (product.op, ["T"]),
            "gather": (gathered.op, ["Tparams", "Tindices", "Taxis"]),
            "reshape": (reshaped.op, ["T", "Tshape"]),
            "pad": (padded.op, ["T", "Tpaddings"]), "cast": (cast.op, ["SrcT", "DstT"]),
            "shape": (shape.op, ["T", "out_type"]), "concat": (concat.op, ["N", "T", "Tidx"]),
            "argmax": (argmax.op, ["T", "Tidx", "output_type"]),
            "stack": (stacked.op, ["N", "T", "axis"])}


def _own_forms(tf, x, i):
    """Attrs devsession holds in Python's forms, and TF's defaults."""
    weights = tf.get_variable("w", [3, 3, 3, 4])
    with tf.colocate_with(weights):
        read = tf.identity(weights, name="read")
    conv = tf.nn.conv2d(x, weights, [1, 2, 2, 1], "VALID", name="conv_own")
    pool = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", name="pool")
    const = tf.constant([[1.5, 2.0], [3.0, -4.0]], name="const")
    strings = tf.constant(["a", "bc"], name="strings")
    product = tf.matmul(const, const, transpose_a=True, name="product")
    cast = tf.cast(x, tf.int32, name="cast_own")
    sliced = x[1:, ..., 0]
    checked = tf.debugging.check_numerics(const, "bad const", name="checked")
    uniform = tf.random.uniform([2], seed=3, name="uniform")
    queue = tf.FIFOQueue(4, [tf.float32], name="queue")
    image = tf.summary.image("image", tf.zeros([1, 4, 4, 3]))    # a tensor attr's default
    return {"placeholder": (x.op, ["dtype", "shape"]),
            "variable": (weights.op, ["dtype", "shape", "container", "shared_name"]),
            "read": (read.op, ["T", "_class"]),
            "conv_own": (conv.op, ["strides", "padding", "data_format", "dilations",
                                   "explicit_paddings", "use_cudnn_on_gpu"]),
            "pool": (pool.op, ["ksize", "strides", "padding", "data_format"]),
            "const": (const.op, ["dtype", "value"]), "strings": (strings.op, ["value"]),
            "product": (product.op, ["transpose_a", "transpose_b"]),
            "cast_own": (cast.op, ["Truncate"]),
            "slice": (sliced.op, ["begin_mask", "end_mask", "ellipsis_mask",
                                  "shrink_axis_mask", "new_axis_mask"]),
            "checked": (checked.op, ["message"]),
            "uniform": (uniform.op, ["seed", "seed2", "dtype"]),
            "queue": (queue.queue_ref.op, ["capacity", "component_types", "shapes",
                                           "container"]),
            "image_summary": (image.op, ["bad_color", "max_images"])}


def describe(value, to_array=None):
    """Plain JSON for what get_attr returned (a DType by its name, bytes as text, a shape
    proto by its dims, a tensor proto by the array ``to_array`` makes of it)."""
    if hasattr(value, "unknown_rank"):
        return ["TensorShapeProto", None if value.unknown_rank else
                [d.size for d in value.dim]]
    if hasattr(value, "tensor_content"):
        array = to_array(value)
        dtype = "string" if array.dtype.kind in "OS" else str(array.dtype)
        return ["TensorProto", dtype, list(array.shape),
                [v.decode() if isinstance(v, bytes) else v for v in array.ravel().tolist()]]
    if hasattr(value, "as_numpy_dtype"):
        return ["dtype", value.name]
    if isinstance(value, bytes):
        return ["bytes", value.decode()]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [describe(v, to_array) for v in value]]
    if isinstance(value, (bool, np.bool_)):
        return ["bool", bool(value)]
    return [type(value).__name__, value]
