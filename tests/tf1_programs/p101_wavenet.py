"""A tiny WaveNet as TF1 users wrote it (ibab/tensorflow-wavenet style) on a synthetic
waveform: mu-law companding and its inverse, one-hot input, causal convolutions done the
classic ways (tf.pad on the left then conv1d VALID, the time_to_batch/batch_to_time reshape
trick, tf.nn.convolution with dilation_rate, tf.nn.atrous_conv2d; recorded to agree), gated
tanh * sigmoid units with 1x1 residual and skip convolutions, a sparse softmax loss over the
time steps with an L2 penalty, Adam under a staircase exponential_decay with
clip_by_global_norm, and a greedy "fast generation" loop keeping per-layer input queues in
non-trainable variables (tf.assign of a tf.concat of slices), checked against recomputing
the whole network, and a queue slot written in place (v[key].assign, tf.assign(v[key]));
and the errors, shapes and node names a user meets with conv1d and dilations."""

import numpy as np

Q, R, D, S = 16, 8, 8, 8      # quantization, residual, dilation and skip channels
DILATIONS = [1, 2, 4, 8]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return type(e).__name__
    return None


def main(tf, out):
    rng = np.random.RandomState(0)
    t = np.arange(64, dtype=np.float32) / 64.0
    wave = np.stack([0.6 * np.sin(2 * np.pi * 3 * t) + 0.3 * np.sin(2 * np.pi * 7 * t),
                     0.8 * np.sin(2 * np.pi * 5 * t + 1.0) * np.cos(2 * np.pi * t)])
    wave = (wave + 0.05 * rng.normal(size=wave.shape)).astype(np.float32)
    out["_tol"] = {k: {"rtol": 1e-3, "atol": 1e-4}
                   for k in ("losses", "global_norms", "final_logits", "fast_logits")}

    def mu_law_encode(audio):
        mu = tf.to_float(Q - 1)
        magnitude = tf.log1p(mu * tf.minimum(tf.abs(audio), 1.0)) / tf.log1p(mu)
        return tf.to_int32((tf.sign(audio) * magnitude + 1) / 2 * mu + 0.5)

    def mu_law_decode(output):
        mu = Q - 1
        signal = 2 * (tf.to_float(output) / mu) - 1
        return tf.sign(signal) * (1.0 / mu) * ((1 + mu) ** tf.abs(signal) - 1)

    def time_to_batch(value, dilation):
        with tf.name_scope("time_to_batch"):
            shape = tf.shape(value)
            pad_elements = dilation - 1 - (shape[1] + dilation - 1) % dilation
            padded = tf.pad(value, [[0, 0], [0, pad_elements], [0, 0]])
            reshaped = tf.reshape(padded, [-1, dilation, shape[2]])
            transposed = tf.transpose(reshaped, perm=[1, 0, 2])
            return tf.reshape(transposed, [shape[0] * dilation, -1, shape[2]])

    def batch_to_time(value, dilation):
        with tf.name_scope("batch_to_time"):
            shape = tf.shape(value)
            prepared = tf.reshape(value, [dilation, -1, shape[2]])
            transposed = tf.transpose(prepared, perm=[1, 0, 2])
            return tf.reshape(transposed, [tf.div(shape[0], dilation), -1, shape[2]])

    def causal_conv(value, filter_, dilation, method):
        width = tf.shape(value)[1]
        padded = tf.pad(value, [[0, 0], [dilation, 0], [0, 0]])    # filter width 2
        if method == "convolution":
            return tf.nn.convolution(padded, filter_, "VALID", dilation_rate=[dilation])
        if method == "atrous":
            return tf.squeeze(tf.nn.atrous_conv2d(tf.expand_dims(padded, 1),
                                                  tf.expand_dims(filter_, 0), dilation,
                                                  "VALID"), [1])
        if dilation == 1:
            return tf.nn.conv1d(padded, filter_, stride=1, padding="VALID")
        restored = batch_to_time(tf.nn.conv1d(time_to_batch(padded, dilation), filter_,
                                              stride=1, padding="VALID"), dilation)
        return tf.slice(restored, [0, 0, 0], [-1, width, -1])

    initial = {}

    def weight(name, shape):     # drawn once; the second network reuses the variable
        key = tf.get_variable_scope().name + "/" + name
        if key not in initial:
            initial[key] = (0.3 * rng.standard_normal(shape)).astype(np.float32)
        return tf.get_variable(name, initializer=initial[key])

    def network(samples, method):
        with tf.variable_scope("wavenet", reuse=tf.AUTO_REUSE):
            current = causal_conv(tf.one_hot(samples, Q), weight("causal", [2, Q, R]), 1,
                                  method)
            skips = []
            for i, d in enumerate(DILATIONS):
                with tf.variable_scope("layer%d" % i):
                    f = causal_conv(current, weight("filter", [2, R, D]), d, method)
                    g = causal_conv(current, weight("gate", [2, R, D]), d, method)
                    gated = tf.tanh(f) * tf.sigmoid(g)
                    skips.append(tf.nn.conv1d(gated, weight("skip", [1, D, S]), 1, "SAME"))
                    current = current + tf.nn.conv1d(gated, weight("dense", [1, D, R]), 1,
                                                     "SAME")
            hidden = tf.nn.relu(tf.nn.conv1d(tf.nn.relu(tf.add_n(skips)),
                                             weight("post1", [1, S, S]), 1, "SAME"))
            return tf.nn.conv1d(hidden, weight("post2", [1, S, Q]), 1, "SAME")

    audio = tf.placeholder(tf.float32, [None, None], name="audio")
    encoded = mu_law_encode(audio)
    decoded = mu_law_decode(encoded)
    logits = network(encoded[:, :-1], "time_to_batch")
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.reshape(encoded[:, 1:], [-1]), logits=tf.reshape(logits, [-1, Q])))
    variables = tf.trainable_variables()
    loss = xent + 1e-3 * tf.add_n([tf.nn.l2_loss(v) for v in variables])
    global_step = tf.train.get_or_create_global_step()
    learning_rate = tf.train.exponential_decay(0.02, global_step, 2, 0.5, staircase=True)
    optimizer = tf.train.AdamOptimizer(learning_rate)
    grads, norm = tf.clip_by_global_norm(tf.gradients(loss, variables), 0.12)
    train_op = optimizer.apply_gradients(zip(grads, variables), global_step=global_step)

    # the three dilated causal convolutions on the same input
    probe = tf.constant(rng.normal(size=(2, 13, R)).astype(np.float32))
    kernel = tf.constant(rng.normal(size=(2, R, D)).astype(np.float32))
    agree = []
    for d in DILATIONS:
        ways = [causal_conv(probe, kernel, d, m) for m in ("time_to_batch", "convolution",
                                                           "atrous")]
        agree.append(tf.reduce_max(tf.abs(tf.stack(ways[1:]) - ways[0])))
    slow_logits = network(encoded, "convolution")

    # fast generation: one step per run, each layer's past inputs in a queue variable
    sample = tf.placeholder(tf.int32, [2], name="sample")
    queues, pushes = [], []

    def fast_conv(x_t, w, dilation):
        queue = tf.Variable(tf.zeros([2, dilation, w.shape[1]]), trainable=False,
                            name="queue%d" % len(queues))
        y = tf.matmul(queue[:, 0, :], w[0]) + tf.matmul(x_t, w[1])
        with tf.control_dependencies([y]):
            pushes.append(tf.assign(queue, tf.concat([queue[:, 1:, :],
                                                      tf.expand_dims(x_t, 1)], 1)))
        queues.append(queue)
        return y

    with tf.variable_scope("wavenet", reuse=True):
        current = fast_conv(tf.one_hot(sample, Q), tf.get_variable("causal"), 1)
        skip_sum = 0.0
        for i, d in enumerate(DILATIONS):
            with tf.variable_scope("layer%d" % i):
                f = fast_conv(current, tf.get_variable("filter"), d)
                g = fast_conv(current, tf.get_variable("gate"), d)
                gated = tf.tanh(f) * tf.sigmoid(g)
                skip_sum += tf.matmul(gated, tf.get_variable("skip")[0])
                current = current + tf.matmul(gated, tf.get_variable("dense")[0])
        hidden = tf.nn.relu(tf.matmul(tf.nn.relu(skip_sum), tf.get_variable("post1")[0]))
        fast_step = tf.matmul(hidden, tf.get_variable("post2")[0])
    reset_queues = tf.variables_initializer(queues)

    out["conv_op_names"] = sorted(op.name for op in tf.get_default_graph().get_operations()
                                  if op.type == "Conv2D")
    x1 = tf.placeholder(tf.float32, [2, 64, Q])
    out["conv1d_in_channels"] = _error(lambda: tf.nn.conv1d(x1, tf.zeros([2, 5, D]), 1,
                                                            "VALID"))
    out["dilated_shapes"] = [tf.nn.convolution(x1, tf.zeros([2, Q, R]), p,
                                               dilation_rate=[4]).shape.as_list()
                             for p in ("SAME", "VALID")]
    out["dilated_unknown_time"] = tf.nn.convolution(
        tf.placeholder(tf.float32, [None, None, Q]), tf.zeros([2, Q, R]), "VALID",
        dilation_rate=[4]).shape.as_list()
    out["strides_and_dilation"] = _error(lambda: tf.nn.convolution(
        x1, tf.zeros([2, Q, R]), "VALID", strides=[2], dilation_rate=[2]))
    out["train_variables"] = len(variables)
    out["queue_trainable"] = [q in tf.trainable_variables() for q in queues[:2]]

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {audio: wave}
        codes, back, differences, out["probe_atrous"] = sess.run(
            [encoded, decoded, agree, ways[2]], feed)
        out["encoded"] = codes
        out["roundtrip_error"] = float(np.max(np.abs(back - np.clip(wave, -1, 1))))
        out["conv_ways_agree"] = [bool(v < 1e-5) for v in differences]
        history = []
        for _ in range(6):
            history.append(sess.run([loss, learning_rate, norm], feed))
            sess.run(train_op, feed)
        history = np.array(history)
        out["losses"], out["learning_rates"] = history[:, 0], history[:, 1]
        out["global_norms"] = history[:, 2]
        out["global_step"], final_logits = sess.run([global_step, logits], feed)
        out["final_logits"] = final_logits[:, -3:]

        seed = codes[:, :8]
        for step in range(seed.shape[1]):
            step_logits = sess.run([fast_step] + pushes, {sample: seed[:, step]})[0]
        fast, slow, generated = [], [], seed
        for _ in range(4):
            fast.append(np.argmax(step_logits, 1))
            full = sess.run(slow_logits, {encoded: generated})[:, -1]
            slow.append(np.argmax(full, 1))
            generated = np.concatenate([generated, fast[-1][:, None]], 1).astype(np.int32)
            step_logits = sess.run([fast_step] + pushes, {sample: fast[-1]})[0]
        out["fast_generated"] = np.array(fast, np.int32).T
        out["fast_matches_slow"] = bool(np.array_equal(fast, slow))
        out["fast_logits"] = step_logits
        out["fast_vs_slow_logits"] = bool(np.allclose(
            step_logits, sess.run(slow_logits, {encoded: generated})[:, -1], atol=1e-4))
        newest = sess.run(queues[-1][:, -1, :].assign(0.5))     # a slot written in place
        oldest = sess.run(tf.assign(queues[-1][:, 0], tf.ones([2, D])))
        out["queue_slot_writes"] = [newest[:, -1, :], oldest[:, 0], oldest[:, 1:-1]]
        sess.run(reset_queues)
        out["queues_reset"] = float(np.abs(sess.run(queues[-1])).sum())
