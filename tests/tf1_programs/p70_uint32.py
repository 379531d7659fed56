"""uint32 tensors (hash codes, pixel counts, bit patterns): arithmetic that wraps,
casts, bit patterns of floats, bitwise ops, reductions, comparisons, a fed placeholder,
and the DType's properties; tf.dtypes.bool."""

import numpy as np


def main(tf, out):
    a = tf.constant([1, 4000000000, 7], dtype=tf.uint32)
    fed = tf.placeholder(tf.uint32, [None], name="codes")
    r = {
        "add_wraps": a + tf.constant(400000000, tf.uint32),
        "sub_wraps": a - 2,
        "mul_wraps": a * 3,
        "div": a // 2,
        "to_float": tf.cast(a, tf.float32),
        "to_int64": tf.cast(a, tf.int64),
        "from_int32": tf.cast(tf.constant([5, 70000]), tf.uint32),
        "float_bits": tf.bitcast(tf.constant([1.0, -2.5]), tf.uint32),
        "bits_to_float": tf.bitcast(tf.constant([1065353216], tf.uint32), tf.float32),
        "and": tf.bitwise.bitwise_and(a, 6),
        "or": tf.bitwise.bitwise_or(a, tf.constant(8, tf.uint32)),
        "xor": tf.bitwise.bitwise_xor(a, a // 3),
        "shift_left": tf.bitwise.left_shift(a, tf.constant(4, tf.uint32)),
        "shift_right": tf.bitwise.right_shift(a, tf.constant(3, tf.uint32)),
        "sum": tf.reduce_sum(tf.constant([3000000000, 3, 4], tf.uint32)),
        "max": tf.reduce_max(a),
        "min": tf.reduce_min(a),
        "greater": a > 5,
        "equal": tf.equal(a, tf.constant(7, tf.uint32)),
        "maximum": tf.maximum(a, 9),
        "fed_plus_one": fed + 1,
        "stacked": tf.stack([a, a]),
        "gathered": tf.gather(a, [2, 0]),
    }
    out["dtypes"] = {k: t.dtype.name for k, t in r.items()}
    with tf.Session() as sess:
        values = sess.run(r, {fed: np.array([4294967295, 0], np.uint32)})
    for key, value in values.items():
        out[key] = value
    u32 = tf.uint32
    out["properties"] = [u32.name, u32.size, int(u32.min), int(u32.max), u32.is_unsigned,
                         u32.is_integer, u32.as_datatype_enum, u32 == np.uint32]
    out["as_dtype"] = [tf.as_dtype("uint32").name, tf.as_dtype(np.uint32).name,
                       tf.dtypes.uint32.name]
    out["dtypes_bool"] = [tf.dtypes.bool.name, tf.dtypes.bool == tf.bool]
