"""Integer/float division spellings, mod, rounding, sign, rsqrt, reciprocal, logical ops."""

import numpy as np


def main(tf, out):
    ai = tf.constant([7, -7, 7, -7, 0])
    bi = tf.constant([2, 2, -2, -2, 3])
    af = tf.constant([7.0, -7.0, 7.0, -7.0, 0.0])
    bf = tf.constant([2.0, 2.0, -2.0, -2.0, 3.0])
    xs = tf.constant([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.2, -0.7])
    p = tf.constant([True, True, False, False])
    q = tf.constant([True, False, True, False])

    r = {
        "div_int_floors": tf.div(ai, bi),
        "div_float": tf.div(af, bf),
        "floordiv_int": tf.floordiv(ai, bi),
        "floor_div_int": tf.floor_div(ai, bi),
        "floordiv_float": tf.floordiv(af, bf),
        "slashslash_int": ai // bi,
        "truncatediv_int": tf.truncatediv(ai, bi),
        "mod_int": tf.mod(ai, bi),
        "percent_float": af % bf,
        "truediv_int_is_float64": ai / bi,
        "divide_float": tf.divide(af, bf),
        "sign": tf.sign(xs),
        "floor": tf.floor(xs),
        "ceil": tf.ceil(xs),
        "round_half_to_even": tf.round(xs),
        "rsqrt": tf.rsqrt(tf.constant([1.0, 4.0, 0.25])),
        "reciprocal": tf.reciprocal(tf.constant([2.0, -4.0, 0.5])),
        "sign_int": tf.sign(ai),
        "abs_int": tf.abs(ai),
        "negative": tf.negative(ai),
        "pow_int": tf.pow(tf.constant([2, 3]), 3),
        "pow_float": tf.pow(tf.constant([4.0, 9.0]), 0.5),
        "sqrt_log_exp": tf.log(tf.exp(tf.sqrt(tf.constant([4.0, 16.0])))),
        "square_int": tf.square(ai),
        "min_max": tf.minimum(tf.maximum(xs, -1.0), 1.0),
        "subtract": tf.subtract(ai, 1),
        "logical_and": tf.logical_and(p, q),
        "logical_or": tf.logical_or(p, q),
        "logical_not": tf.logical_not(p),
        "logical_xor": tf.logical_xor(p, q),
        "and_operator": p & q,
        "or_operator": p | q,
        "invert_operator": ~p,
        "xor_operator": p ^ q,
        "where_select": tf.where(p, tf.constant([1, 2, 3, 4]), tf.constant([-1, -2, -3, -4])),
        "cast_float_to_int_truncates": tf.cast(xs, tf.int32),
        "cast_bool_to_float": tf.cast(p, tf.float32),
    }
    out["dtypes"] = {k: t.dtype.name for k, t in r.items()}
    with tf.Session() as sess:
        vals = sess.run(r)
    for k in r:
        out[k] = vals[k]
