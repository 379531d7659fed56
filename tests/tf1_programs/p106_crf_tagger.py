"""A BiLSTM-CRF tagger (NER-style) as TF1 users wrote it once tf.contrib.crf was gone: padded
token ids with sequence lengths, tf.nn.embedding_lookup, tf.nn.bidirectional_dynamic_rnn over
an LSTMCell and a peephole LSTMCell with num_proj, a dense projection to tag scores and a
transition matrix; the CRF written by hand after contrib's crf.py: the gold path score from a
flattened tf.gather of unary and binary scores (num_tags a Dimension; tf.batch_gather checks
the unary part), the log-partition by a forward tf.scan of reduce_logsumexp with tf.where
keeping padded steps and by contrib's CrfForwardRnnCell (an RNNCell subclass) run by
dynamic_rnn, a tf.cond on a one-step batch; Viterbi decoding in-graph (argmax backpointers,
tf.reverse_sequence, a reverse tf.scan with tf.gather batch_dims=1) checked against numpy;
Adam with tf.clip_by_global_norm, tf.metrics.accuracy weighted by the mask, and the
log-likelihood's gradients, compared with expected-count differences from a numpy
forward-backward.  Edge cases: sequence length 0, reduce_logsumexp of all -inf, argmax of
NaN scores, a scan initializer of another structure than fn returns, a scan over zero steps
of a result of unknown shape, reverse_sequence with lengths past the time axis, and one
length fed for a batch (reverse_sequence, dynamic_rnn)."""

import numpy as np


def _logsumexp(x, axis):
    top = x.max(axis=axis, keepdims=True)
    return np.squeeze(top, axis) + np.log(np.exp(x - top).sum(axis=axis))


def _marginals(emit, trans, n):
    """Numpy forward-backward over emit[:n]: token and pair marginals."""
    alpha, beta = [emit[0]], [np.zeros_like(emit[0])]
    for t in range(1, n):
        alpha.append(_logsumexp(alpha[-1][:, None] + trans, 0) + emit[t])
    for t in range(n - 1, 0, -1):
        beta.insert(0, _logsumexp(trans + (emit[t] + beta[0])[None, :], 1))
    log_z = _logsumexp(alpha[-1], 0)
    unary = np.exp(np.array(alpha) + np.array(beta) - log_z)
    pairs = sum(np.exp(alpha[t - 1][:, None] + trans + (emit[t] + beta[t])[None, :] - log_z)
                for t in range(1, n))
    return unary, pairs


def _viterbi(emit, trans):
    score, back = emit[0], []
    for t in range(1, len(emit)):
        total = score[:, None] + trans
        back.append(total.argmax(0))
        score = total.max(0) + emit[t]
    path = [int(score.argmax())]
    for bp in reversed(back):
        path.insert(0, int(bp[path[0]]))
    return path


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab, emb_dim, units, proj, tags, batch, max_time = 12, 5, 6, 4, 4, 4, 6
    lengths = np.array([6, 4, 1, 3], np.int32)
    words = rng.randint(1, vocab, (batch, max_time)).astype(np.int32)
    labels = rng.randint(0, tags, (batch, max_time)).astype(np.int32)
    for row, n in enumerate(lengths):
        words[row, n:], labels[row, n:] = 0, 0

    def init(shape, dtype=None, partition_info=None):
        return tf.constant(rng.uniform(-0.5, 0.5, shape).astype(np.float32))

    ids = tf.placeholder(tf.int32, [None, None], name="ids")
    gold = tf.placeholder(tf.int32, [None, None], name="tags")
    seq_len = tf.placeholder(tf.int32, [None], name="lengths")
    embedding = tf.get_variable("embedding", [vocab, emb_dim], initializer=init)
    fw = tf.nn.rnn_cell.LSTMCell(units, initializer=init, name="fw")
    bw = tf.nn.rnn_cell.LSTMCell(units, use_peepholes=True, num_proj=proj, initializer=init,
                                 name="bw")
    (out_fw, out_bw), (state_fw, state_bw) = tf.nn.bidirectional_dynamic_rnn(
        fw, bw, tf.nn.embedding_lookup(embedding, ids), sequence_length=seq_len,
        dtype=tf.float32)
    w_tag = tf.get_variable("w_tag", [units + proj, tags], initializer=init)
    b_tag = tf.get_variable("b_tag", [tags], initializer=tf.zeros_initializer())
    emissions = tf.tensordot(tf.concat([out_fw, out_bw], -1), w_tag, 1) + b_tag
    transitions = tf.get_variable("transitions", [tags, tags], initializer=init)

    def sequence_score(inputs, tag_indices, lengths):
        def single():
            pairs = tf.stack([tf.range(tf.shape(inputs)[0]), tag_indices[:, 0]], 1)
            score = tf.gather_nd(tf.squeeze(inputs, [1]), pairs)
            return tf.where(tf.less_equal(lengths, 0), tf.zeros_like(score), score)

        def multi():
            b, t, n = tf.unstack(tf.shape(inputs))
            offsets = tf.expand_dims(tf.range(b) * t * n, 1) + tf.expand_dims(tf.range(t) * n, 0)
            unary = tf.reshape(tf.gather(tf.reshape(inputs, [-1]),
                                         tf.reshape(offsets + tag_indices, [-1])), [b, t])
            masks = tf.sequence_mask(lengths, maxlen=t, dtype=tf.float32)
            num_tags = transitions.get_shape()[0]
            flat = tag_indices[:, :-1] * num_tags + tag_indices[:, 1:]
            binary = tf.gather(tf.reshape(transitions, [-1]), flat)
            return tf.reduce_sum(unary * masks, 1) + tf.reduce_sum(binary * masks[:, 1:], 1)
        return tf.cond(tf.equal(tf.shape(inputs)[1], 1), single, multi)

    def log_norm(inputs, lengths):
        first = tf.squeeze(tf.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

        def multi():
            rest = tf.transpose(inputs[:, 1:], [1, 0, 2])
            live = tf.transpose(tf.sequence_mask(lengths - 1, tf.shape(rest)[0]))

            def forward(alpha, step):
                x, keep = step
                new = tf.reduce_logsumexp(alpha[:, :, None] + transitions, axis=1) + x
                return tf.where(keep, new, alpha)   # TF1 where: a row per batch entry
            alphas = tf.scan(forward, (rest, live), initializer=first)
            return tf.reduce_logsumexp(alphas[-1], [1])
        norm = tf.cond(tf.equal(tf.shape(inputs)[1], 1),
                       lambda: tf.reduce_logsumexp(first, [1]), multi)
        return tf.where_v2(tf.less_equal(lengths, 0), 0.0, norm)

    def viterbi(inputs, lengths):
        def forward(carry, x):
            total = carry[0][:, :, None] + transitions
            return tf.reduce_max(total, [1]) + x, tf.argmax(total, 1, output_type=tf.int32)
        first = inputs[:, 0]
        scores, backs = tf.scan(forward, tf.transpose(inputs[:, 1:], [1, 0, 2]),
                                initializer=(first, tf.zeros_like(first, tf.int32)))
        mask = tf.sequence_mask(lengths - 1, tf.shape(backs)[0])[:, :, None]
        backs = tf.where_v2(mask, tf.transpose(backs, [1, 0, 2]), 0)
        last_score = tf.gather(tf.concat([first[:, None], tf.transpose(scores, [1, 0, 2])], 1),
                               tf.maximum(lengths - 1, 0), batch_dims=1)
        last_tag = tf.argmax(last_score, 1, output_type=tf.int32)
        backs = tf.reverse_sequence(backs, tf.maximum(lengths - 1, 0), seq_axis=1,
                                    batch_axis=0)
        path = tf.scan(lambda tag, bp: tf.gather(bp, tag, batch_dims=1),
                       tf.transpose(backs, [1, 0, 2]), initializer=last_tag)
        path = tf.concat([last_tag[:, None], tf.transpose(path)], 1)
        path = tf.reverse_sequence(path, lengths, seq_axis=1, batch_axis=0)
        return path * tf.sequence_mask(lengths, tf.shape(inputs)[1], tf.int32)

    class ForwardCell(tf.nn.rnn_cell.RNNCell):
        """contrib's CrfForwardRnnCell: the forward algorithm run by dynamic_rnn."""

        @property
        def state_size(self):
            return tags

        @property
        def output_size(self):
            return tags

        def __call__(self, inputs, state, scope=None):
            alpha = inputs + tf.reduce_logsumexp(state[:, :, None] + transitions[None], [1])
            return alpha, alpha

    _, last_alpha = tf.nn.dynamic_rnn(ForwardCell(), emissions[:, 1:],
                                      initial_state=emissions[:, 0],
                                      sequence_length=tf.maximum(seq_len - 1, 0), scope="crf")
    norm = log_norm(emissions, seq_len)
    log_likelihood = sequence_score(emissions, gold, seq_len) - norm
    loss = -tf.reduce_mean(log_likelihood)
    ll_grads = tf.gradients(tf.reduce_sum(log_likelihood), [transitions, emissions])
    unguarded = viterbi(emissions, seq_len)     # scans zero steps on a one-step batch
    decoded = tf.cond(tf.equal(tf.shape(emissions)[1], 1),
                      lambda: tf.argmax(emissions, 2, output_type=tf.int32) * tf.sequence_mask(
                          seq_len, 1, tf.int32), lambda: viterbi(emissions, seq_len))
    mask = tf.sequence_mask(seq_len, tf.shape(ids)[1])
    gold_unary = tf.reduce_sum(tf.where(mask, tf.squeeze(tf.batch_gather(
        emissions, gold[:, :, None]), 2), tf.zeros_like(emissions[:, :, 0])), 1)
    accuracy, accuracy_update = tf.metrics.accuracy(gold, decoded, weights=mask)
    optimizer = tf.train.AdamOptimizer(0.05)
    grads, params = zip(*optimizer.compute_gradients(loss))
    clipped, global_norm = tf.clip_by_global_norm(grads, 5.0)
    train_op = optimizer.apply_gradients(zip(clipped, params))
    out["variables"] = [(v.op.name, v.shape.as_list()) for v in params]
    out["static_shapes"] = [x.shape.as_list() for x in (emissions, log_likelihood, decoded)]

    feed = {ids: words, gold: labels, seq_len: lengths}
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        emit, trans, (g_trans, g_emit) = sess.run([emissions, transitions, ll_grads], feed)
        out["grad_transitions"], out["grad_emissions"] = g_trans, g_emit
        want_trans, want_emit = np.zeros_like(trans), np.zeros_like(emit)
        for row, n in enumerate(lengths):
            unary, pairs = _marginals(emit[row], trans, n)
            want_emit[row, np.arange(n), labels[row, :n]] += 1.0
            want_emit[row, :n] -= unary
            np.add.at(want_trans, (labels[row, :n - 1], labels[row, 1:n]), 1.0)
            want_trans -= pairs
        out["expected_counts"] = [want_trans, want_emit]
        history = []
        for _ in range(8):
            history.append(sess.run([train_op, loss, global_norm], feed)[1:])
        out["history"] = np.array(history)
        out["log_norms"] = sess.run([norm, tf.reduce_logsumexp(last_alpha, 1)], feed)
        out["gold_unary"] = sess.run(gold_unary, feed)
        out["transitions"] = sess.run(transitions)
        emit, trans, tags_out, _ = sess.run([emissions, transitions, decoded, accuracy_update],
                                            feed)
        out["decoded"] = tags_out
        out["numpy_viterbi"] = [_viterbi(emit[row, :n], trans) for row, n in enumerate(lengths)]
        out["accuracy"] = sess.run(accuracy)
        out["single_step"] = sess.run([log_likelihood, decoded],
                                      {ids: words[:, :1], gold: labels[:, :1],
                                       seq_len: [1, 1, 0, 1]})
        zero = {ids: words, gold: labels, seq_len: [5, 0, 2, 3]}
        outputs, states, ll, tags_zero = sess.run(
            [(out_fw, out_bw), (state_fw, state_bw), log_likelihood, decoded], zero)
        out["zero_length"] = {"outputs_row1": [o[1] for o in outputs],
                              "state_row1": [[s.c[1], s.h[1]] for s in states],
                              "log_likelihood": ll, "decoded": tags_zero}
        out["logsumexp_inf"] = sess.run(tf.reduce_logsumexp(
            tf.constant([[-np.inf, -np.inf], [0.0, -np.inf]]), 1))
        diverged = tf.constant([[0.5, np.nan, 2.0, 2.0], [np.nan] * 4])   # NaN scores
        picked, top = sess.run([tf.argmax(diverged, 1), tf.reduce_max(diverged, 1)])
        out["argmax_nan"] = [picked, np.isnan(top).tolist()]
        errors = {}
        try:
            tf.scan(lambda acc, x: (acc + x, acc), tf.constant([1.0, 2.0]), initializer=0.0)
            errors["scan_structure"] = None
        except (TypeError, ValueError) as e:
            errors["scan_structure"] = type(e).__name__
        try:
            sess.run(tf.reverse_sequence(tf.constant([[1, 2, 3]]), [4], seq_axis=1,
                                         batch_axis=0))
            errors["reverse_too_long"] = None
        except tf.errors.InvalidArgumentError as e:
            errors["reverse_too_long"] = type(e).__name__
        for key, fetch in (("reverse_lengths_count", tf.reverse_sequence(
                ids, seq_len, seq_axis=1, batch_axis=0)), ("rnn_lengths_count", out_fw)):
            try:    # one length for the whole batch
                sess.run(fetch, {ids: words, seq_len: lengths[:1]})
                errors[key] = None
            except tf.errors.InvalidArgumentError as e:
                errors[key] = type(e).__name__
        try:
            sess.run(unguarded, {ids: words[:, :1], seq_len: [1, 1, 0, 1]})
            errors["scan_zero_steps"] = None
        except tf.errors.OpError as e:      # TF: UnimplementedError, zero-size TensorArray
            errors["scan_zero_steps"] = type(e).__name__
        out["errors"] = errors
    out["_tol"] = {"grad_transitions": {"rtol": 1e-4, "atol": 1e-5},
                   "history": {"rtol": 2e-4, "atol": 1e-5},
                   "transitions": {"rtol": 2e-4, "atol": 2e-5}}
