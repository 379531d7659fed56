"""A Neural Turing Machine-lite on a tiny copy task, as TF1 research code (the NTM and DNC
implementations) wrote it: an LSTMCell controller stepped by hand inside tf.scan, its
projection tf.split into read/write head parameters; content addressing by cosine
similarity, interpolation, a circular-convolution shift (tf.roll, and by hand with
tf.concat of slices), sharpening with tf.pow; erase/add writes and reads by batched
matmuls; the scan carries (memory, read and write weightings, LSTM state, read vector).
Trained with centered RMSProp with momentum and tf.clip_by_global_norm; gradients reach the
initial memory through the scan.  Then a DNC-style allocation weighting (top_k sort,
exclusive cumprod, unsorted by invert_permutation with gather and batch_gather), a reversed
nested scan, and the errors a user hits with roll, invert_permutation and pow (NaN for a
negative base to a fractional power; an integer to a negative power is an error)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, length, bits, slots, width, units = 2, 3, 3, 6, 4, 8
    steps = 2 * length + 1
    inputs = np.zeros((batch, steps, bits + 1), np.float32)
    targets = np.zeros((batch, steps, bits), np.float32)
    pattern = rng.randint(0, 2, (batch, length, bits)).astype(np.float32)
    inputs[:, :length, :bits] = pattern
    inputs[:, length, bits] = 1.0                       # the delimiter
    targets[:, length + 1:] = pattern
    mask = np.array([0.0] * (length + 1) + [1.0] * length, np.float32)

    x = tf.placeholder(tf.float32, [None, steps, bits + 1], name="x")
    y = tf.placeholder(tf.float32, [None, steps, bits], name="y")
    n = tf.shape(x)[0]
    memory0 = tf.Variable(rng.uniform(-0.5, 0.5, (slots, width)).astype(np.float32),
                          name="memory0")
    in_dim = bits + 1 + width
    cell = tf.nn.rnn_cell.LSTMCell(units, initializer=tf.constant_initializer(
        rng.normal(0, 0.3, (in_dim + units, 4 * units)).astype(np.float32)))
    cell(tf.zeros([1, in_dim]), cell.zero_state(1, tf.float32))  # built outside the scan
    head_sizes = [width, 1, 1, 3, 1] * 2 + [width, width]
    w_heads = tf.Variable(rng.normal(0, 0.3, (units, sum(head_sizes))).astype(np.float32),
                          name="heads")
    w_out = tf.Variable(rng.normal(0, 0.3, (units + width, bits)).astype(np.float32),
                        name="output")

    def shift_by_hand(w, s):
        left = tf.concat([w[:, 1:], w[:, :1]], 1)       # roll by -1
        right = tf.concat([w[:, -1:], w[:, :-1]], 1)    # roll by +1
        return tf.reduce_sum(tf.stack([left, w, right], 2) * s[:, None, :], 2)

    def address(key, beta, gate, shift, gamma, previous, memory):
        unit_memory = tf.nn.l2_normalize(memory, axis=2)
        unit_key = tf.nn.l2_normalize(key, axis=1)[:, None, :]
        similarity = tf.squeeze(tf.matmul(unit_key, unit_memory, transpose_b=True), 1)
        content = tf.nn.softmax(tf.nn.softplus(beta) * similarity)
        g = tf.sigmoid(gate)
        gated = g * content + (1 - g) * previous
        s = tf.nn.softmax(shift)
        rolled = tf.stack([tf.roll(gated, shift=k, axis=1) for k in (-1, 0, 1)], 2)
        shifted = tf.reduce_sum(rolled * s[:, None, :], 2)
        sharp = tf.pow(shifted, 1 + tf.nn.softplus(gamma))
        return sharp / (tf.reduce_sum(sharp, 1, keepdims=True) + 1e-8), shifted, \
            shift_by_hand(gated, s)

    def step(carry, x_t):
        memory, read_w, write_w, state, read = carry
        h, new_state = cell(tf.concat([x_t, read], 1), state)
        parts = tf.split(tf.matmul(h, w_heads), head_sizes, axis=1)
        read_w, _, _ = address(*parts[:5], read_w, memory)
        write_w, shifted, by_hand = address(*parts[5:10], write_w, memory)
        erase, add = tf.sigmoid(parts[10]), tf.tanh(parts[11])
        memory = memory * (1 - tf.matmul(write_w[:, :, None], erase[:, None, :]))
        memory += tf.matmul(write_w[:, :, None], add[:, None, :])
        read = tf.squeeze(tf.matmul(read_w[:, None, :], memory), 1)
        with tf.control_dependencies([tf.assert_near(shifted, by_hand, atol=1e-6)]):
            read = tf.identity(read)
        return memory, read_w, write_w, new_state, read

    start = tf.one_hot(tf.zeros([n], tf.int32), slots)
    initial = (tf.tile(memory0[None], [n, 1, 1]), start, start, cell.zero_state(n, tf.float32),
               tf.zeros([n, width]))
    memories, read_ws, write_ws, states, reads = tf.scan(
        step, tf.transpose(x, [1, 0, 2]), initializer=initial)
    features = tf.reshape(tf.concat([states.h, reads], 2), [-1, units + width])
    logits = tf.transpose(tf.reshape(tf.matmul(features, w_out), [steps, -1, bits]), [1, 0, 2])
    xent = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_sum(tf.reduce_mean(xent, [0, 2]) * mask) / length
    kernel = cell.trainable_variables[0]
    params = [memory0, kernel, w_heads, w_out]
    grads = tf.gradients(loss, params)
    clipped, norm = tf.clip_by_global_norm(grads, 10.0)
    optimizer = tf.train.RMSPropOptimizer(0.05, momentum=0.9, centered=True)
    train_op = optimizer.apply_gradients(zip(clipped, params))
    out["scan_shapes"] = [t.shape.as_list() for t in (memories, read_ws, states.c, reads)]
    out["state_is_tuple"] = type(states).__name__

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: inputs, y: targets}
        first = sess.run({"memory0": grads[0], "kernel": grads[1], "norm": norm}, feed)
        out["first_grads"] = first
        out["losses"] = np.array([sess.run([train_op, loss], feed)[1] for _ in range(4)])
        final = sess.run({"memory": memories[-1], "read_w": read_ws[-1],
                          "write_w": write_ws[-1], "probs": tf.sigmoid(logits)}, feed)
        out["final"] = final
        out["weightings_sum_to_one"] = bool(np.allclose(final["write_w"].sum(1), 1, atol=1e-5))
        out["trained_memory0"] = sess.run(memory0)

    # A DNC usage update and allocation weighting, one step.
    usage_prev = tf.constant(rng.uniform(0.05, 0.95, (batch, slots)).astype(np.float32))
    write_prev = tf.nn.softmax(tf.constant(rng.normal(size=(batch, slots)).astype(np.float32)))
    usage = tf.placeholder_with_default(usage_prev + write_prev - usage_prev * write_prev,
                                        [None, slots])
    negated, free_list = tf.nn.top_k(-usage, k=slots)
    sorted_usage = -negated
    sorted_allocation = (1 - sorted_usage) * tf.math.cumprod(sorted_usage, axis=1,
                                                             exclusive=True)
    inverse = tf.map_fn(tf.invert_permutation, free_list)
    allocation = tf.batch_gather(sorted_allocation, inverse)
    flat = tf.gather(tf.reshape(sorted_allocation, [-1]),
                     inverse + tf.range(tf.shape(usage)[0])[:, None] * slots)
    allocation_grad = tf.gradients(tf.reduce_sum(allocation * tf.range(1.0, slots + 1.0)),
                                   usage)[0]

    # reversed nested scan: discounted returns and a reverse running max
    rewards = tf.constant([1.0, 0.0, 2.0, -1.0])
    scores = tf.constant([[1, 5], [3, 2], [2, 4], [0, 1]])
    returns, maxima = tf.scan(lambda acc, e: (e[0] + 0.9 * acc[0], tf.maximum(acc[1], e[1])),
                              (rewards, scores), initializer=(0.0, tf.constant([-9, -9])),
                              reverse=True)

    def error(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the class is what the program records
            return type(e).__name__
        return None

    grid = tf.reshape(tf.range(12), [3, 4])
    shift_in = tf.placeholder(tf.int32, [None])
    rolls = {"both": tf.roll(grid, shift=[1, -1], axis=[0, 1]),
             "manip": tf.manip.roll(grid, shift=tf.constant(-2), axis=1),
             "same_axis_twice": tf.roll(grid, shift=[1, 2], axis=[1, 1]),
             "fed": tf.roll(grid, shift=shift_in, axis=[0, 1])}
    out["roll_build_error"] = error(lambda: tf.roll(grid, shift=[1, 2], axis=[0]))
    perm = tf.placeholder(tf.int32, [None])
    inverted = tf.invert_permutation(perm)
    base = tf.placeholder(tf.float32, [4])
    power = tf.pow(base, 0.5)
    exponent = tf.constant(2.0)
    squared = tf.pow(base, exponent)
    pow_grads = tf.gradients(tf.reduce_sum(squared), [base, exponent])
    wrong_axis = tf.math.cumprod(usage, axis=2, exclusive=True)    # builds, as TF's
    int_exponent = tf.placeholder(tf.int32, [None])
    int_power = tf.pow(tf.constant([2, 3]), int_exponent)

    with tf.Session() as sess:
        out["allocation"] = sess.run({"free_list": free_list, "allocation": allocation,
                                      "flat": flat, "usage_grad": allocation_grad})
        out["allocation_fed"] = sess.run(allocation, {usage: [[0.5, 0.1, 0.9, 0.3, 0.7, 0.2]]})
        out["reverse_scan"] = sess.run([returns, maxima,
                                        tf.gradients(tf.reduce_sum(returns * rewards), rewards)])
        out["rolls"] = sess.run({k: v for k, v in rolls.items() if k != "fed"})
        out["roll_fed"] = sess.run(rolls["fed"], {shift_in: [2, 1]})
        out["inverted"] = sess.run(inverted, {perm: [2, 0, 3, 1]})
        run_errors = {}
        for name, fetch, feed in (("roll_lengths", rolls["fed"], {shift_in: [1, 2, 3]}),
                                  ("not_a_permutation", inverted, {perm: [0, 0, 2]}),
                                  ("out_of_range", inverted, {perm: [0, 3, 1]}),
                                  ("int_negative_power", int_power, {int_exponent: [-1, 2]}),
                                  ("cumprod_axis", wrong_axis, None)):
            try:
                sess.run(fetch, feed)
            except tf.errors.OpError as e:
                run_errors[name] = type(e).__name__
        out["run_errors"] = run_errors
        values = np.array([-2.0, 0.0, 4.0, -0.5], np.float32)
        root, square = sess.run([power, squared], {base: values})
        out["pow_negative_base"] = [np.isnan(root), np.nan_to_num(root, nan=-1.0), square]
        out["pow_grads"] = sess.run(pow_grads, {base: values})
        out["int_power"] = sess.run(int_power, {int_exponent: [3, 0]})
    out["_tol"] = {"first_grads": {"rtol": 1e-3, "atol": 1e-6},
                   "losses": {"rtol": 1e-4, "atol": 1e-6},
                   "final": {"rtol": 1e-3, "atol": 1e-5},
                   "trained_memory0": {"rtol": 1e-3, "atol": 1e-5}}
