"""Quantization-aware training and an int8 export with TF1's core ops (no tf.contrib.quantize):
a small conv/dense classifier whose conv kernel goes through
fake_quant_with_min_max_vars_per_channel, dense weights through fake_quant_with_min_max_vars
(range from reduce_min/max, narrow_range), the input through fake_quant_with_min_max_args and
the activations through fake quantization over min/max variables moved by an exponential
moving average (assign under control_dependencies); a few Adam steps with an
ExponentialMovingAverage of the weights; the straight-through gradients w.r.t. inputs, min
and max; the nudged ranges, clamping and the errors users hit; then an export: a per-channel
int8 kernel by round/clip/cast with scales from reduce_max(abs), bitcast, the int8 model's
error against the float model, quantize_and_dequantize (and _v2's gradient), and
quantize/dequantize to qint8/quint8 (SCALED per tensor and per output channel,
MIN_COMBINED)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    images = rng.uniform(-1.2, 1.2, (8, 6, 6, 2)).astype(np.float32)
    labels = rng.randint(0, 3, 8).astype(np.int32)
    fq = tf.quantization

    x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="images")
    y = tf.placeholder(tf.int32, [None], name="labels")
    w_conv = tf.Variable(rng.normal(0, 0.4, (3, 3, 2, 4)).astype(np.float32), name="conv")
    w_dense = tf.Variable(rng.normal(0, 0.2, (36, 3)).astype(np.float32), name="dense")
    bias = tf.Variable(np.zeros(3, np.float32), name="bias")

    def activation_quant(t, name, decay=0.8):
        with tf.variable_scope(name):
            lo = tf.get_variable("min", initializer=-1.0, trainable=False)
            hi = tf.get_variable("max", initializer=1.0, trainable=False)
            update_lo = tf.assign(lo, decay * lo + (1 - decay) * tf.reduce_min(t))
            update_hi = tf.assign(hi, decay * hi + (1 - decay) * tf.reduce_max(t))
            with tf.control_dependencies([update_lo, update_hi]):
                return fq.fake_quant_with_min_max_vars(t, lo.read_value(), hi.read_value(),
                                                       num_bits=8), (lo, hi)

    def model(inputs, kernel, weights, quantize):
        if quantize:
            inputs = fq.fake_quant_with_min_max_args(inputs, min=-1.0, max=1.0, num_bits=8)
            kernel = fq.fake_quant_with_min_max_vars_per_channel(
                kernel, tf.reduce_min(kernel, [0, 1, 2]), tf.reduce_max(kernel, [0, 1, 2]),
                num_bits=8, narrow_range=True)
            weights = fq.fake_quant_with_min_max_vars(
                weights, tf.reduce_min(weights), tf.reduce_max(weights), num_bits=8,
                narrow_range=True)
        hidden = tf.nn.relu(tf.nn.conv2d(inputs, kernel, [1, 2, 2, 1], "SAME"))
        ranges = None
        if quantize:
            hidden, ranges = activation_quant(hidden, "act")
        logits = tf.matmul(tf.reshape(hidden, [-1, 36]), weights) + bias
        return logits, ranges

    logits, (act_min, act_max) = model(x, w_conv, w_dense, quantize=True)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                        logits=logits))
    grads = tf.gradients(loss, [w_conv, w_dense, bias])
    step = tf.train.AdamOptimizer(0.01).minimize(loss)
    ema = tf.train.ExponentialMovingAverage(0.5)      # the weights an export would take
    with tf.control_dependencies([step]):
        train_op = ema.apply([w_conv, w_dense])
    float_logits, _ = model(x, w_conv, w_dense, quantize=False)

    # the straight-through estimators, on values below, inside and above the range
    probe = tf.constant([-2.0, -0.5, 0.0, 0.3, 0.9, 1.7])
    upstream = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    lo_v, hi_v = tf.Variable(-1.0, name="lo"), tf.Variable(1.0, name="hi")
    vars_q = fq.fake_quant_with_min_max_vars(probe, lo_v, hi_v, num_bits=4)
    args_q = fq.fake_quant_with_min_max_args(probe, min=-1.0, max=1.0, num_bits=4)
    lo_c, hi_c = tf.constant([-1.0, 0.0]), tf.constant([1.0, 0.5])
    chan_in = tf.reshape(probe, [3, 2])
    chan_q = fq.fake_quant_with_min_max_vars_per_channel(chan_in, lo_c, hi_c)
    st_grads = tf.gradients(tf.reduce_sum(vars_q * upstream), [probe, lo_v, hi_v])
    st_args = tf.gradients(tf.reduce_sum(args_q * upstream), probe)[0]
    st_chan = tf.gradients(tf.reduce_sum(chan_q * tf.reshape(upstream, [3, 2])),
                           [chan_in, lo_c, hi_c])

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: images, y: labels}
        out["first_grads"] = sess.run(grads, feed)
        losses = [sess.run([train_op, loss], feed)[1] for _ in range(4)]
        out["losses"] = np.array(losses)
        out["act_range"] = np.array(sess.run([act_min, act_max]))
        out["ema_dense_sum"] = sess.run(tf.reduce_sum(ema.average(w_dense)))
        out["vars_q"], out["args_q"], out["chan_q"] = sess.run([vars_q, args_q, chan_q])
        out["st_grads"] = sess.run(st_grads)
        out["st_args"] = sess.run(st_args)
        out["st_chan"] = sess.run(st_chan)

        # edge cases: a range above 0 is nudged to hold 0; min == max; bad num_bits
        edge = tf.constant([-0.5, 0.0, 0.4, 1.0, 2.5, 9.0])
        out["nudged_up"] = sess.run(fq.fake_quant_with_min_max_args(edge, min=0.5, max=2.0))
        out["nudged_vars"] = sess.run(fq.fake_quant_with_min_max_vars(edge, 0.5, 2.0,
                                                                      num_bits=8))
        out["empty_range"] = sess.run(fq.fake_quant_with_min_max_vars(edge, 0.0, 0.0))
        for key, build in [
                ("args_min_eq_max", lambda: fq.fake_quant_with_min_max_args(edge, 1.0, 1.0)),
                ("args_bits_1", lambda: fq.fake_quant_with_min_max_args(edge, num_bits=1)),
                ("vars_bits_17", lambda: fq.fake_quant_with_min_max_vars(edge, -1.0, 1.0,
                                                                         num_bits=17))]:
            try:
                out[key] = sess.run(build()).tolist()
            except (ValueError, TypeError, tf.errors.OpError) as e:
                out[key] = type(e).__name__

        # export: per-channel int8 kernel, per-tensor int8 dense weights
        kernel, weights = sess.run([w_conv, w_dense])
        k_scale = tf.reduce_max(tf.abs(kernel), axis=[0, 1, 2]) / 127.0
        k_int8 = tf.cast(tf.clip_by_value(tf.round(kernel / k_scale), -127.0, 127.0), tf.int8)
        w_scale = tf.reduce_max(tf.abs(weights)) / 127.0
        w_int8 = tf.cast(tf.clip_by_value(tf.round(weights / w_scale), -127.0, 127.0), tf.int8)
        k_back = tf.cast(k_int8, tf.float32) * k_scale
        w_back = tf.cast(w_int8, tf.float32) * w_scale
        int8_logits, _ = model(x, k_back, w_back, quantize=False)
        got = sess.run({"int8": int8_logits, "float": float_logits, "k": k_int8,
                        "k_scale": k_scale, "k_bytes": tf.bitcast(k_int8, tf.uint8),
                        "scale_bits": tf.bitcast(k_scale, tf.int32)}, feed)
        out["k_int8_sum"] = int(np.abs(got["k"].astype(np.int64)).sum())
        out["k_int8_corner"] = got["k"][0, 0]
        out["k_scale"] = got["k_scale"]
        out["k_bytes_corner"] = got["k_bytes"][0, 0]
        out["scale_bits"] = got["scale_bits"]
        out["int8_max_error_small"] = bool(np.abs(got["int8"] - got["float"]).max() < 0.05)
        out["int8_max_error"] = float(np.abs(got["int8"] - got["float"]).max())
        out["same_argmax"] = bool((got["int8"].argmax(1) == got["float"].argmax(1)).all())

        qdq = fq.quantize_and_dequantize(weights, -0.5, 0.5, range_given=True, num_bits=8)
        qdq_auto = fq.quantize_and_dequantize(weights[:4, 0], 0.0, 0.0, signed_input=True,
                                              num_bits=4, range_given=False)
        out["qdq_max_error"] = float(np.abs(sess.run(qdq) - np.clip(weights, -0.5, 0.5)).max())
        out["qdq_auto"] = sess.run(qdq_auto)
        probe_v = tf.constant([-0.7, -0.2, 0.1, 0.45, 0.8])
        qdq_v2 = fq.quantize_and_dequantize_v2(probe_v, -0.5, 0.5, range_given=True,
                                               num_bits=4, narrow_range=True)
        out["qdq_v2"], out["qdq_v2_grad"] = sess.run(
            [qdq_v2, tf.gradients(tf.reduce_sum(qdq_v2 * [1.0, 2.0, 3.0, 4.0, 5.0]),
                                  probe_v)[0]])

        q8, q_min, q_max = tf.quantization.quantize(weights[:3, 0], -0.5, 0.5, tf.qint8,
                                                    mode="SCALED",
                                                    round_mode="HALF_TO_EVEN")
        u8 = tf.quantization.quantize(weights[:3, 0], -0.5, 0.5, tf.quint8,
                                      mode="MIN_COMBINED")
        out["q8_int"] = sess.run(tf.bitcast(q8, tf.int8))
        out["q8_range"] = sess.run([q_min, q_max])
        out["q8_back"] = sess.run(tf.quantization.dequantize(q8, q_min, q_max, mode="SCALED"))
        out["u8_back"] = sess.run(tf.quantization.dequantize(u8.output, u8.output_min,
                                                             u8.output_max,
                                                             mode="MIN_COMBINED"))
        k_max = tf.reduce_max(tf.abs(kernel), axis=[0, 1, 2])
        per_channel = tf.quantization.quantize(kernel, -k_max, k_max, tf.qint8, mode="SCALED",
                                               axis=3)
        k_ints, k_lo = sess.run([tf.bitcast(per_channel.output, tf.int8),
                                 per_channel.output_min])
        out["per_channel_ints_corner"], out["per_channel_min"] = k_ints[0, 0], k_lo
        out["per_channel_vs_manual"] = int(np.abs(k_ints.astype(np.int32)
                                                  - got["k"].astype(np.int32)).max())
        kernel_back = tf.quantization.dequantize(per_channel.output, per_channel.output_min,
                                                 per_channel.output_max, mode="SCALED", axis=3)
        out["per_channel_back_error"] = float(np.abs(sess.run(kernel_back) - kernel).max())
    out["_tol"] = {"int8_max_error": {"rtol": 0.0, "atol": 2e-3},
                   "per_channel_back_error": {"rtol": 1e-3, "atol": 1e-6},
                   "first_grads": {"rtol": 1e-3, "atol": 1e-5}}
