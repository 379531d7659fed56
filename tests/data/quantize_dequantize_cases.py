"""The simulated quantizations tests/data/make_tf_quantize_dequantize.py records from
TensorFlow and tests/test_quantize_dequantize.py runs in devsession, written once against
the TF1 module each is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``): the
feeds, the placeholders they fill, and {name: tensor} of what is fetched (the outputs of
QuantizeAndDequantizeV2/V3/V4 and gradients through them)."""

import numpy as np


def feeds() -> dict:
    rng = np.random.default_rng(20261207)
    return {
        "x": np.concatenate([np.linspace(-1, 1, 9), rng.normal(size=11) * 0.7]).astype(
            np.float32).reshape(4, 5),
        "x64": rng.normal(size=(3, 4)),
        "lo": np.float32(-0.6), "hi": np.float32(0.9),
    }


def placeholders(tf) -> dict:
    return {
        "x": tf.placeholder(tf.float32, [4, 5], name="x"),
        "x64": tf.placeholder(tf.float64, [3, 4], name="x64"),
        "lo": tf.placeholder(tf.float32, [], name="lo"),
        "hi": tf.placeholder(tf.float32, [], name="hi"),
    }


def _v3(tf, x, lo, hi):
    """QuantizeAndDequantizeV3 (num_bits an input) has no Python function: TF's raw op,
    devsession's create_op."""
    if hasattr(tf, "raw_ops"):
        return tf.raw_ops.QuantizeAndDequantizeV3(input=x, input_min=lo, input_max=hi,
                                                   num_bits=tf.constant(5), range_given=True,
                                                   narrow_range=True)
    return tf.get_default_graph().create_op(
        "QuantizeAndDequantizeV3", [x, lo, hi, tf.constant(5)],
        {"range_given": True, "narrow_range": True}).outputs[0]


def all_ops(tf, p) -> dict:
    q = tf.quantization
    x, lo, hi = p["x"], p["lo"], p["hi"]
    weights = tf.constant(np.linspace(-1.0, 2.0, 20, dtype=np.float32).reshape(4, 5))
    v1_given = q.quantize_and_dequantize(x, lo, hi, range_given=True, num_bits=4)
    v2_given = q.quantize_and_dequantize_v2(x, lo, hi, range_given=True, num_bits=4)
    # per-channel ranges from the input (TF 2.21's kernels reject given per-channel ranges,
    # "input_min must be a scalar"; tests/test_quantize_dequantize.py checks ours apart)
    v2_channels = q.quantize_and_dequantize_v2(x, [-1.0] * 5, [1.0] * 5, num_bits=3, axis=1)
    v2_own = q.quantize_and_dequantize_v2(x, 0.0, 0.0)
    v3 = _v3(tf, x, lo, hi)
    return {
        "own_range": q.quantize_and_dequantize(x, 0.0, 0.0),
        "given": v1_given, "given_v2": v2_given,
        "half_up": q.quantize_and_dequantize(x, -1.0, 1.0, range_given=True, num_bits=3,
                                             round_mode="HALF_UP"),
        "narrow": q.quantize_and_dequantize(x, -1.0, 1.0, range_given=True, num_bits=3,
                                            narrow_range=True),
        "unsigned_given": q.quantize_and_dequantize(x, -1.0, 1.0, signed_input=False,
                                                    range_given=True, num_bits=3),
        "unsigned_own": q.quantize_and_dequantize(x, 0.0, 0.0, signed_input=False,
                                                  num_bits=5),
        "bits_16": q.quantize_and_dequantize(x, lo, hi, range_given=True, num_bits=16),
        "channels_own": q.quantize_and_dequantize(x, [0.0] * 4, [0.0] * 4, axis=0,
                                                  num_bits=4),
        "channels_v2": v2_channels,
        "float64": q.quantize_and_dequantize(p["x64"], -2.0, 1.5, range_given=True,
                                             num_bits=6),
        "v3": v3,
        "grad_v1": tf.gradients(tf.reduce_sum(v1_given * weights), x)[0],
        "grad_v2": tf.gradients(tf.reduce_sum(v2_given * weights), x)[0],
        "grad_v2_channels": tf.gradients(tf.reduce_sum(v2_channels * weights), x)[0],
        "grad_v2_own": tf.gradients(tf.reduce_sum(v2_own * weights), x)[0],
        "grad_v3": tf.gradients(tf.reduce_sum(v3 * weights), x)[0],
    }
