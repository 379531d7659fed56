"""A sparsely-gated mixture-of-experts layer (Shazeer et al. 2017) trained in TF1: noisy
top-k gating with the noise fed from numpy (softplus noise scale, tf.math.top_k, the
softmax over the top k scattered back with tf.scatter_nd, and the same gates as a one_hot
sum), dispatch by tf.dynamic_partition of (example, expert) pairs (tf.where + tf.gather as
the alternative), one small relu layer per expert in its own variable_scope, combined with
tf.dynamic_stitch and tf.math.unsorted_segment_sum weighted by the gates, the same layer
computed densely with the experts' weights stacked (tf.einsum and a batched matmul), a
gated expert bias through a SparseTensor of dispatch weights and sparse_dense_matmul, the
load-balancing losses (importance and the smooth load from the normal CDF, cv_squared by
tf.nn.moments), Switch-Transformer capacity (exclusive cumsum of one-hot assignments, a
tf.less mask dropping overflow), bincount and unsorted_segment_max per expert, gradients
at step 0 (a starved expert's are zeros), Adam on the gate and Adagrad on the experts for a
few steps, and the errors a user hits: a partition id out of range, a scatter_nd index out
of range, top_k with k larger than the last dimension, a float64 Normal given a Python
scale (float32), a gradient through bincount's weights (TF has none); dynamic_stitch
with a duplicate index (the later one wins)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, dim, hidden, experts, k = 10, 4, 5, 4, 2
    x_data = rng.normal(size=(batch, dim)).astype(np.float32)
    y_data = rng.normal(size=(batch, 1)).astype(np.float32)
    noise_data = rng.normal(size=(batch, experts)).astype(np.float32)
    starved = noise_data.copy()
    starved[:, 3] = -50.0                       # expert 3 is never in anyone's top k

    x = tf.placeholder(tf.float32, [None, dim], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    noise = tf.placeholder(tf.float32, [None, experts], name="noise")
    with tf.variable_scope("gating"):
        w_gate = tf.get_variable("w_gate", initializer=rng.normal(
            0, 0.5, (dim, experts)).astype(np.float32))
        w_noise = tf.get_variable("w_noise", initializer=rng.normal(
            0, 0.3, (dim, experts)).astype(np.float32))
    clean = tf.matmul(x, w_gate)
    noise_std = tf.nn.softplus(tf.matmul(x, w_noise)) + 1e-2
    noisy = clean + noise * noise_std
    top_values, top_indices = tf.math.top_k(noisy, k + 1)
    top_k_gates = tf.nn.softmax(top_values[:, :k])
    rows = tf.tile(tf.range(tf.shape(x)[0])[:, None], [1, k])
    gates = tf.scatter_nd(tf.stack([rows, top_indices[:, :k]], axis=2), top_k_gates,
                          tf.shape(noisy))
    gates_one_hot = tf.reduce_sum(tf.one_hot(top_indices[:, :k], experts) *
                                  top_k_gates[:, :, None], axis=1)

    # the smooth load: the probability each expert stays in the top k under new noise
    threshold_if_in = top_values[:, k:k + 1]
    threshold_if_out = top_values[:, k - 1:k]
    prob_if_in = tf.distributions.Normal(0.0, 1.0).cdf((clean - threshold_if_in) / noise_std)
    prob_if_out = 0.5 * (1.0 + tf.erf((clean - threshold_if_out) / noise_std / np.sqrt(2.0)))
    load = tf.reduce_sum(tf.where(tf.greater(noisy, threshold_if_in), prob_if_in,
                                  prob_if_out), 0)
    importance = tf.reduce_sum(gates, 0)

    def cv_squared(v):
        mean, variance = tf.nn.moments(v, axes=[0])
        return variance / (tf.square(mean) + 1e-10)

    # dispatch: the (example, expert) pairs with a nonzero gate, partitioned by expert
    pairs = tf.cast(tf.where(tf.greater(gates, 0.0)), tf.int32)
    example_index, expert_index = pairs[:, 0], pairs[:, 1]
    pair_gates = tf.gather_nd(gates, pairs)
    parts = tf.dynamic_partition(example_index, expert_index, experts)
    part_gates = tf.dynamic_partition(pair_gates, expert_index, experts)
    positions = tf.dynamic_partition(tf.range(tf.shape(pairs)[0]), expert_index, experts)
    by_where = [tf.gather(example_index, tf.where(tf.equal(expert_index, e))[:, 0])
                for e in range(experts)]
    w1s, w2s, expert_outputs = [], [], []
    for e in range(experts):
        with tf.variable_scope("expert_%d" % e):
            w1s.append(tf.get_variable("w1", initializer=rng.normal(
                0, 0.5, (dim, hidden)).astype(np.float32)))
            w2s.append(tf.get_variable("w2", initializer=rng.normal(
                0, 0.5, (hidden, 1)).astype(np.float32)))
        hidden_e = tf.nn.relu(tf.matmul(tf.gather(x, parts[e]), w1s[e]))
        expert_outputs.append(tf.matmul(hidden_e, w2s[e]) * part_gates[e][:, None])
    stitched = tf.dynamic_stitch(positions, expert_outputs)
    combined = tf.math.unsorted_segment_sum(stitched, example_index, tf.shape(x)[0])
    dense_hidden = tf.nn.relu(tf.einsum("bd,edh->beh", x, tf.stack(w1s)))
    dense_out = tf.matmul(tf.transpose(dense_hidden, [1, 0, 2]), tf.stack(w2s))  # [e, b, 1]
    dense_combined = tf.einsum("be,eb->b", gates, dense_out[:, :, 0])[:, None]
    expert_bias = tf.get_variable("expert_bias", initializer=np.float32([[0.1], [-0.2],
                                                                         [0.3], [0.0]]))
    dispatch = tf.sparse.SparseTensor(tf.cast(pairs, tf.int64), pair_gates,
                                      tf.cast(tf.shape(gates), tf.int64))
    prediction = combined + tf.sparse.sparse_dense_matmul(dispatch, expert_bias)
    balance = cv_squared(importance) + cv_squared(load)
    loss = tf.reduce_mean(tf.square(prediction - y)) + 0.1 * balance

    # Switch-Transformer capacity: each example to its best expert, overflow dropped
    capacity = 2
    best = tf.argmax(gates, 1, output_type=tf.int32)
    assigned = tf.one_hot(best, experts)
    position = tf.reduce_sum(tf.math.cumsum(assigned, axis=0, exclusive=True) * assigned, 1)
    kept = tf.less(position, capacity)
    counts = tf.math.bincount(best, minlength=experts)
    token_order = tf.argsort(best, stable=True)          # tokens grouped by expert
    grouped = tf.math.segment_sum(tf.gather(x, token_order), tf.gather(best, token_order))
    max_gate = tf.math.unsorted_segment_max(tf.reduce_max(gates, 1), best, experts)

    gate_vars, expert_vars = [w_gate, w_noise], w1s + w2s + [expert_bias]
    grads = tf.gradients(loss, gate_vars + expert_vars)
    dense_grads = tf.gradients(tf.reduce_sum(tf.square(dense_combined - y)), w1s + w2s)
    train_op = tf.group(tf.train.AdamOptimizer(0.05).minimize(loss, var_list=gate_vars),
                        tf.train.AdagradOptimizer(0.2).minimize(loss, var_list=expert_vars))

    out["static_shapes"] = [str(t.shape) for t in [
        top_values, gates, parts[0], stitched, combined, dense_out, tf.sparse.to_dense(dispatch),
        prediction, counts, max_gate]]
    feed = {x: x_data, y: y_data, noise: noise_data}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run({"gates": gates, "gates_one_hot": gates_one_hot, "load": load,
                        "importance": importance, "balance": balance, "parts": parts,
                        "by_where": by_where, "combined": combined, "dense": dense_combined,
                        "sparse_to_dense": tf.sparse.to_dense(dispatch), "stitched": stitched,
                        "token_order": token_order, "grouped": grouped,
                        "position": position, "kept": kept, "counts": counts,
                        "max_gate": max_gate}, feed)
        out.update({"step0_" + key: value for key, value in got.items()})
        out["step0_grads"] = sess.run(grads, feed)
        out["step0_dense_grads"] = sess.run(dense_grads, feed)
        starved_feed = {x: x_data, y: y_data, noise: starved}
        out["starved_parts"] = sess.run(parts, starved_feed)
        out["starved_grads"], out["starved_max_gate"] = sess.run([grads[2:], max_gate],
                                                                 starved_feed)
        history = []
        for _ in range(5):
            _, step_loss, step_balance, step_counts = sess.run(
                [train_op, loss, balance, counts], feed)
            history.append([step_loss, step_balance])
            out.setdefault("counts_per_step", []).append(step_counts)
        out["history"] = np.array(history)
        out["final_load"] = sess.run(load, feed)
        empty = {x: x_data[:0], y: y_data[:0], noise: noise_data[:0]}    # a batch of none
        out["empty_batch"] = sess.run([parts, combined, counts, max_gate, grads[2]], empty)

        out["stitch_duplicate"] = sess.run(tf.dynamic_stitch(
            [[0, 1], [1, 2]], [[1.0, 2.0], [3.0, 4.0]]))
        ids = tf.placeholder(tf.int32, [None])
        indices = tf.placeholder(tf.int32, [None, 1])
        row = tf.placeholder(tf.float32, [1, None])
        for name, fetch, run_feed in [
                ("partition_id_error", tf.dynamic_partition([1.0, 2.0, 3.0], ids, 2),
                 {ids: [0, 2, 1]}),
                ("scatter_nd_error", tf.scatter_nd(indices, [1.0, 2.0], [4]),
                 {indices: [[1], [4]]}),
                ("top_k_run_error", tf.math.top_k(row, 3), {row: [[1.0, 2.0]]})]:
            try:
                sess.run(fetch, run_feed)
                out[name] = None
            except tf.errors.OpError as error:
                out[name] = type(error).__name__
    for name, build in [("top_k_build_error", lambda: tf.math.top_k(tf.zeros([2, 3]), 4)),
                        ("normal_float64_error", lambda: tf.distributions.Normal(
                            tf.zeros([3], tf.float64), 1.0)),       # 1.0 is float32
                        ("bincount_gradient_error", lambda: tf.gradients(tf.math.bincount(
                            best, weights=tf.reduce_max(gates, 1)), w_gate))]:
        try:
            build()
            out[name] = None
        except (ValueError, TypeError, LookupError, tf.errors.OpError) as error:
            out[name] = type(error).__name__
    out["_tol"] = {"history": {"rtol": 1e-3, "atol": 1e-5},
                   "final_load": {"rtol": 1e-3, "atol": 1e-5}}
