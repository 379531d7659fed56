"""int8/int16/uint8 arithmetic (wrapping), casts, string constants and placeholders."""

import numpy as np


def main(tf, out):
    i8 = tf.constant([100, -100, 27], dtype=tf.int8)
    i16 = tf.constant([300, -2, 1000], dtype=tf.int16)
    u8 = tf.constant(np.array([0, 200, 255], dtype=np.uint8))
    r = {
        "int8_add_wraps": i8 + tf.constant(100, dtype=tf.int8),
        "int8_mul": i8 * tf.constant(2, dtype=tf.int8),
        "int16_mul": i16 * 3,
        "int16_sum": tf.reduce_sum(i16),
        "uint8_sub_wraps": u8 - tf.constant(1, dtype=tf.uint8),
        "uint8_add_wraps": u8 + 100,
        "uint8_max": tf.reduce_max(u8),
        "uint8_to_float": tf.cast(u8, tf.float32) / 255.0,
        "float_to_uint8": tf.cast(tf.constant([0.0, 1.9, 254.6]), tf.uint8),
        "int8_to_int32": tf.cast(i8, tf.int32) * 2,
        "int16_div": tf.floordiv(i16, tf.constant(7, dtype=tf.int16)),
    }
    out["dtypes"] = {k: t.dtype.name for k, t in r.items()}

    hello = tf.constant("hello")
    words = tf.constant(["tensor", "flow", ""])
    fed = tf.placeholder(tf.string, shape=[], name="word")
    fed_vec = tf.placeholder(tf.string, shape=[None])
    same = tf.equal(hello, fed)
    vec_eq = tf.equal(words, fed_vec)
    differs = tf.not_equal(words, "flow")
    out["string_dtypes"] = [hello.dtype.name, words.dtype.name, fed.dtype.name, same.dtype.name]
    out["string_shapes"] = [hello.shape.as_list(), words.shape.as_list()]
    with tf.Session() as sess:
        vals = sess.run(r)
        for k in r:
            out[k] = vals[k]
        h = sess.run(hello)
        out["hello_type"] = type(h).__name__
        out["hello"] = h
        w = sess.run(words)
        out["words_array_dtype"] = str(w.dtype)
        out["words"] = [bytes(x) for x in w]
        out["fed_back"] = sess.run(tf.identity(fed), feed_dict={fed: "grüße"})
        out["equal_fed_str"] = sess.run(same, feed_dict={fed: "hello"})
        out["equal_fed_bytes"] = sess.run(same, feed_dict={fed: b"hellO"})
        out["vec_equal"] = sess.run(vec_eq, feed_dict={fed_vec: ["tensor", "FLOW", ""]})
        out["not_equal_scalar"] = sess.run(differs)
        out["unicode_constant"] = sess.run(tf.constant("π≈3.14"))
