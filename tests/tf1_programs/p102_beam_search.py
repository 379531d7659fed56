"""A tiny GRU decoder trained with teacher forcing (tf.nn.rnn_cell.GRUCell run by
tf.nn.dynamic_rnn with sequence_length, a tf.sequence_mask'ed mean of the sparse softmax
cross-entropy, Adam), then decoded in-graph with a beam search written as TF1 users wrote it
without tf.contrib: a tf.while_loop over time carrying the beam log-probs, the cell state of
batch*beam rows, TensorArrays of the chosen ids and parents and a finished mask; log_softmax
scores added with broadcasting, finished beams extended only with EOS (tf.where, tf.one_hot
with -inf off values), top_k over beam*vocab with a GNMT length penalty, parents and words by
floordiv/floormod, the state reordered with tf.gather on offset flat indices, and the
sequences backtracked with a reverse tf.while_loop and a reverse tf.scan.  Beam 1 is greedy
decoding; beam 9, wider than the vocabulary, fills its first step with -inf ties (lower index
first).  Edge cases: top_k with k past the last dimension, ties in top_k, a while_loop whose
loop variable changes shape, without and with shape_invariants, and token ids fed to the RNN
without their embedding."""

import numpy as np

GO, EOS = 0, 1


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab, units, emb_dim, feat_dim, batch, max_time = 7, 8, 4, 3, 4, 5
    lengths = np.array([5, 3, 4, 2], np.int32)
    targets = rng.randint(2, vocab, (batch, max_time)).astype(np.int32)
    for row, n in enumerate(lengths):
        targets[row, n - 1], targets[row, n:] = EOS, GO
    features = rng.normal(size=(batch, feat_dim)).astype(np.float32)

    def init(shape, dtype=None, partition_info=None):
        return tf.constant(rng.uniform(-0.6, 0.6, shape).astype(np.float32))

    embedding = tf.get_variable("embedding", [vocab, emb_dim], initializer=init)
    w_init = tf.get_variable("w_init", [feat_dim, units], initializer=init)
    w_out = tf.get_variable("w_out", [units, vocab], initializer=init)
    b_out = tf.get_variable("b_out", [vocab], initializer=tf.zeros_initializer())
    cell = tf.nn.rnn_cell.GRUCell(units, kernel_initializer=init, name="gru")

    feats = tf.placeholder(tf.float32, [None, feat_dim], name="features")
    tgt = tf.placeholder(tf.int32, [None, None], name="targets")
    tgt_len = tf.placeholder(tf.int32, [None], name="lengths")
    start = tf.tanh(tf.matmul(feats, w_init))
    inputs = tf.concat([tf.fill([tf.shape(tgt)[0], 1], GO), tgt[:, :-1]], 1)
    outputs, last = tf.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(embedding, inputs),
                                      sequence_length=tgt_len, initial_state=start)
    logits = tf.tensordot(outputs, w_out, 1) + b_out
    mask = tf.sequence_mask(tgt_len, tf.shape(tgt)[1], dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tgt, logits=logits)
    l2 = tf.add_n([tf.nn.l2_loss(v) for v in cell.trainable_variables if "kernel" in v.name])
    loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask) + 1e-3 * l2
    params = tf.trainable_variables()
    grads = [tf.convert_to_tensor(g) for g in tf.gradients(loss, params)]
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)

    def penalty(length, alpha=0.6):
        return tf.pow((5.0 + tf.to_float(length)) / 6.0, alpha)

    def beam_search(beam, max_len=7):
        batch = tf.shape(start)[0]
        state = tf.reshape(tf.tile(start[:, None, :], [1, beam, 1]), [batch * beam, units])
        scores = tf.tile(tf.constant([[0.0] + [-np.inf] * (beam - 1)]), [batch, 1])
        eos_only = tf.one_hot(EOS, vocab, on_value=0.0, off_value=-np.inf)
        offsets = tf.range(batch)[:, None] * beam

        def step(t, scores, state, tokens, finished, length, ids, parents):
            output, state = cell(tf.nn.embedding_lookup(embedding, tokens), state)
            log_p = tf.nn.log_softmax(tf.matmul(output, w_out) + b_out)
            log_p = tf.reshape(log_p, [batch, beam, vocab])
            done = tf.tile(finished[:, :, None], [1, 1, vocab])
            log_p = tf.where(done, tf.zeros_like(log_p) + eos_only, log_p)
            total = scores[:, :, None] + log_p
            grown = length + tf.cast(tf.logical_not(finished), tf.int32)
            ranked = tf.reshape(total / penalty(grown)[:, :, None], [batch, beam * vocab])
            _, top = tf.nn.top_k(ranked, k=beam)
            parent, word = tf.floordiv(top, vocab), tf.floormod(top, vocab)
            body_shapes[beam] = [x.shape.as_list() for x in (output, log_p, total, ranked, top)]
            state = tf.gather(state, tf.reshape(parent + offsets, [-1]))
            pairs = tf.stack([tf.tile(tf.range(batch)[:, None], [1, beam]), parent], 2)
            finished = tf.logical_or(tf.gather_nd(finished, pairs), tf.equal(word, EOS))
            return (t + 1, tf.batch_gather(tf.reshape(total, [batch, -1]), top), state,
                    tf.reshape(word, [-1]), finished, tf.batch_gather(grown, parent),
                    ids.write(t, word), parents.write(t, parent))

        t, scores, _, _, finished, length, ids, parents = tf.while_loop(
            lambda t, s, h, w, finished, *_: tf.logical_and(
                t < max_len, tf.logical_not(tf.reduce_all(finished))),
            step, [0, scores, state, tf.fill([batch * beam], GO),
                   tf.zeros([batch, beam], tf.bool), tf.zeros_like(scores, tf.int32),
                   tf.TensorArray(tf.int32, size=0, dynamic_size=True),
                   tf.TensorArray(tf.int32, size=0, dynamic_size=True)])
        ids, parents = ids.stack(), parents.stack()
        final = scores / penalty(length)
        best = tf.argmax(final, 1, output_type=tf.int32)

        def back(t, at, seq):
            pairs = tf.stack([tf.range(batch), at], 1)
            return t - 1, tf.gather_nd(parents[t], pairs), seq.write(t, tf.gather_nd(
                ids[t], pairs))
        _, _, best_seq = tf.while_loop(lambda t, *_: t >= 0, back,
                                       [t - 1, best, tf.TensorArray(tf.int32, size=t)])
        words, _ = tf.scan(
            lambda acc, x: (tf.batch_gather(x[0], acc[1]),
                            tf.gather(x[1], acc[1], batch_dims=1)),
            (ids, parents), initializer=(tf.zeros([batch, beam], tf.int32),
                                         tf.tile(tf.range(beam)[None], [batch, 1])),
            reverse=True)
        return {"steps": t, "scores": scores, "final": final, "ids": ids,
                "parents": parents, "finished": finished, "lengths": length,
                "best": tf.transpose(best_seq.stack()), "beams": tf.transpose(words, [1, 2, 0])}

    def greedy(max_len=7):
        def step(t, state, token, finished, seq):
            output, state = cell(tf.nn.embedding_lookup(embedding, token), state)
            token = tf.argmax(tf.matmul(output, w_out) + b_out, 1, output_type=tf.int32)
            token = tf.where(finished, tf.ones_like(token) * EOS, token)
            return t + 1, state, token, finished | tf.equal(token, EOS), seq.write(t, token)
        go = tf.fill(tf.shape(start)[:1], GO)
        seq = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, _, _, _, seq = tf.while_loop(
            lambda t, h, w, finished, s: ~tf.reduce_all(finished), step,
            (0, start, go, tf.zeros_like(go, tf.bool), seq),
            maximum_iterations=max_len, back_prop=False)
        return tf.transpose(seq.stack())

    body_shapes = {}
    searches = {1: beam_search(1), 3: beam_search(3), 9: beam_search(9)}   # 9 > vocab
    out["body_shapes"] = body_shapes[3]
    greedy_seq = greedy()
    out["variables"] = [(v.op.name, v.shape.as_list()) for v in params]
    out["static_shapes"] = {key: value.shape.as_list() for key, value in searches[3].items()}
    feed = {feats: features, tgt: targets, tgt_len: lengths}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["first_grads"] = sess.run(grads, feed)
        out["losses"] = np.array([sess.run([train_op, loss], feed)[1] for _ in range(12)])
        out["last_state"] = sess.run(last, feed)
        for beam, search in searches.items():
            for key, value in sess.run(search, feed).items():
                out["beam%d_%s" % (beam, key)] = value
        out["greedy"] = sess.run(greedy_seq, feed)
        out["greedy_is_beam1"] = bool(np.array_equal(out["greedy"], out["beam1_best"]))
        out["beam3_first_two"] = sess.run(searches[3]["best"], {feats: features[:2]})

        values, indices = sess.run(tf.nn.top_k([[1.0, 3.0, 3.0, 2.0, 3.0],
                                                [0.0, 0.0, -1.0, 0.0, 5.0]], k=3))
        out["ties"] = [values, indices]
        errors = {}

        def error(key, build):
            try:
                build()
                errors[key] = None
            except (TypeError, ValueError, tf.errors.InvalidArgumentError) as e:
                errors[key] = type(e).__name__

        def grow(i, seq):
            return i + 1, tf.concat([seq, seq[-1:] * 2], 0)
        row = tf.placeholder(tf.float32, [None, None])
        error("top_k_static", lambda: tf.nn.top_k(tf.constant([[1.0, 2.0]]), k=3))
        error("top_k_fed", lambda: sess.run(tf.nn.top_k(row, k=3), {row: [[1.0, 2.0]]}))
        error("while_shape", lambda: tf.while_loop(lambda i, seq: i < 3, grow,
                                                   [0, tf.constant([1])]))
        # with maximum_iterations, a list of loop vars against the body's tuple
        error("while_list_vs_tuple", lambda: tf.while_loop(
            lambda i, seq: i < 3, grow, [0, tf.constant([1])], maximum_iterations=2,
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])]))
        # the token ids fed to the cell without their embedding lookup
        error("rnn_int_inputs", lambda: tf.nn.dynamic_rnn(
            cell, inputs[:, :, None], sequence_length=tgt_len, initial_state=start,
            scope="ids"))
        out["errors"] = errors
        _, grown = tf.while_loop(lambda i, seq: i < 3, grow, [0, tf.constant([1])],
                                 shape_invariants=[tf.TensorShape([]),
                                                   tf.TensorShape([None])])
        out["grown"] = sess.run(grown)
        out["grown_shape"] = grown.shape.as_list()
    out["_tol"] = {"first_grads": {"rtol": 2e-4, "atol": 1e-6}}
