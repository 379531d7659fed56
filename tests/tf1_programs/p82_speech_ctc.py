"""A DeepSpeech-style speech recogniser as TF1 code wrote it: utterances from a generator
through tf.data (per-utterance mean/variance normalisation by tf.numpy_function,
padded_batch with seq_len and -1-padded labels), a time-major bidirectional_dynamic_rnn
(LSTM forward, GRU backward, kernels from constant initializers), tf.nn.ctc_loss on labels
made sparse with tf.where + tf.gather_nd (and fed as a SparseTensorValue), its flags and
its gradient, a few Adadelta steps under a cosine-decayed rate (polynomial_decay beside
it), greedy and beam-search decoding with label error rates from tf.edit_distance, and the
debugging a user reaches for: check_numerics (forward and in the gradient) and
add_check_numerics_ops on a NaN, tf.Print / tf.print passing values through (tf.print
also into a file), a numpy WER through tf.py_func / tf.numpy_function, and the errors CTC
and py_func raise for what a user gets wrong."""

import os
import tempfile

import numpy as np


def _error(fn):
    """The class of what ``fn`` raised, its message and the name of the op it names."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        op = getattr(e, "op", None)
        return type(e).__name__, str(getattr(e, "message", e)), op.name if op else None
    return None, "", None


def _word_error_rate(decoded, truth):
    """Levenshtein distance in numpy over the summed reference length, as a WER script."""
    total = 0
    for hyp, ref in zip(decoded, truth):
        hyp, ref = hyp[hyp >= 0], ref[ref >= 0]
        row = np.arange(len(ref) + 1)
        for i, h in enumerate(hyp, 1):
            prev, row[0] = row.copy(), i
            for j, r in enumerate(ref, 1):
                row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (h != r))
        total += row[-1]
    return np.float32(total / np.sum(truth >= 0))


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, n_feat, units, classes = 3, 5, 4, 5   # the blank is classes - 1
    texts = [[0, 1, 1, 2], [3, 2], [2, 2]]
    utterances = [(rng.normal(1.0, 2.0, (n, n_feat)).astype(np.float32),
                   np.array(text, np.int32)) for n, text in zip([9, 7, 5], texts)]
    counter = [0]

    def init(shape, dtype=None, partition_info=None):
        counter[0] += 1
        return tf.constant(np.random.RandomState(counter[0]).uniform(
            -0.5, 0.5, shape).astype(np.float32))

    def normalize(features):      # per-utterance mean and variance normalisation, in numpy
        return ((features - features.mean(0)) / (features.std(0) + 1e-5)).astype(np.float32)

    def with_length(features, text):
        features = tf.numpy_function(normalize, [features], tf.float32)
        features.set_shape([None, n_feat])
        return features, tf.shape(features)[0], text

    dataset = tf.data.Dataset.from_generator(lambda: iter(utterances), (tf.float32, tf.int32),
                                             ([None, n_feat], [None])).map(with_length)
    dataset = dataset.padded_batch(batch, ([None, n_feat], [], [None]), (0.0, 0, -1))
    next_batch = tf.data.make_one_shot_iterator(dataset).get_next()
    x = tf.placeholder(tf.float32, [None, None, n_feat], name="features")
    seq_len = tf.placeholder(tf.int32, [None], name="seq_len")
    dense = tf.placeholder(tf.int32, [None, None], name="labels")
    where = tf.where(tf.not_equal(dense, -1))
    labels = tf.SparseTensor(where, tf.gather_nd(dense, where),
                             tf.shape(dense, out_type=tf.int64))
    time_major = tf.transpose(x, [1, 0, 2])
    with tf.variable_scope("birnn"):
        fw = tf.nn.rnn_cell.LSTMCell(units, initializer=init, name="fw")
        bw = tf.nn.rnn_cell.GRUCell(units, kernel_initializer=init, name="bw")
        (out_fw, out_bw), (state_fw, state_bw) = tf.nn.bidirectional_dynamic_rnn(
            fw, bw, time_major, sequence_length=seq_len, dtype=tf.float32, time_major=True)
        hidden = tf.concat([out_fw, out_bw], 2)
        w = tf.get_variable("w", initializer=init([2 * units, classes]))
        b = tf.get_variable("b", [classes], initializer=tf.zeros_initializer())
        logits = tf.reshape(tf.matmul(tf.reshape(hidden, [-1, 2 * units]), w) + b,
                            [-1, tf.shape(x)[0], classes])
    per_example = tf.nn.ctc_loss(labels, logits, seq_len)
    loss = tf.reduce_mean(per_example)
    mask = tf.sequence_mask(seq_len, tf.shape(x)[1], dtype=tf.float32)
    reversed_x = tf.reverse_sequence(x, seq_len, seq_axis=1, batch_axis=0)

    global_step = tf.train.get_or_create_global_step()
    rate = tf.train.cosine_decay(20.0, global_step, decay_steps=6, alpha=0.1)
    poly = tf.train.polynomial_decay(1.0, global_step, 4, end_learning_rate=0.01, power=2.0)
    cycled = tf.train.polynomial_decay(1.0, global_step, 2, end_learning_rate=0.1, cycle=True)
    checked = tf.debugging.check_numerics(loss, "ctc loss")
    grads = tf.gradients(checked, [logits, w])
    train_op = tf.train.AdadeltaOptimizer(rate, rho=0.9, epsilon=1e-6).minimize(
        checked, global_step=global_step)

    greedy, neg_logits = tf.nn.ctc_greedy_decoder(logits, seq_len)
    unmerged = tf.nn.ctc_greedy_decoder(logits, seq_len, merge_repeated=False)[0][0]
    beams, log_probs = tf.nn.ctc_beam_search_decoder(logits, seq_len, beam_width=6,
                                                     top_paths=2)
    decoded = tf.cast(greedy[0], tf.int32)
    ler = tf.reduce_mean(tf.edit_distance(decoded, labels))
    raw_distance = tf.edit_distance(decoded, labels, normalize=False)
    greedy_dense = tf.sparse.to_dense(greedy[0], default_value=-1)
    beam_dense = [tf.sparse_tensor_to_dense(p, default_value=-1) for p in beams]
    wer = tf.py_func(_word_error_rate, [greedy_dense, tf.cast(dense, tf.int64)], tf.float32)
    wer_np = tf.numpy_function(_word_error_rate, [greedy_dense, tf.cast(dense, tf.int64)],
                               tf.float32)
    counts = tf.py_func(lambda d, t: (np.sum(d >= 0, 1), np.sum(t >= 0, 1)),
                        [greedy_dense, dense], [tf.int64, tf.int64], stateful=False)
    printed = tf.Print(checked, [loss, seq_len], "loss, seq_len: ", summarize=4)
    log_file = os.path.join(tempfile.mkdtemp(), "log.txt")
    flat_mask = tf.reshape(tf.cast(mask, tf.int32), [-1])
    with tf.control_dependencies([tf.print("batch", tf.shape(x), "seq_len", seq_len, "mask",
                                           flat_mask, "decoded", greedy[0], summarize=2,
                                           output_stream="file://" + log_file),
                                  tf.print("step", global_step, "loss", loss)]):
        logged = tf.identity(printed)

    out["_tol"] = {k: {"rtol": 2e-4, "atol": 2e-5} for k in ("losses", "grad_w", "log_probs")}
    out["shapes"] = [state_fw.c.shape.as_list(), state_bw.shape.as_list(),
                     logits.shape.as_list(), greedy[0].dense_shape.shape.as_list()]
    out["add_check_in_loop"] = _error(tf.add_check_numerics_ops)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feats, lengths, truth = sess.run(next_batch)
        feed = {x: feats, seq_len: lengths, dense: truth}
        out["padded_batch"] = [feats[:, :, 0], lengths, truth]
        out["pipeline_end"] = _error(lambda: sess.run(next_batch))[0]
        out["sparse_labels"] = sess.run(labels, feed)
        out["mask_reversed"] = sess.run([mask, reversed_x[:, :, 0]], feed)
        out["per_example"], (out["grad_logits"], out["grad_w"]) = sess.run(
            [per_example, grads], feed)
        history = []
        for _ in range(6):
            history.append(sess.run([train_op, logged, rate, poly, cycled], feed)[1:])
        out["losses"] = np.array(history)
        run = sess.run([greedy_dense, neg_logits, beam_dense, log_probs, ler, raw_distance,
                        wer, wer_np, counts, tf.sparse.to_dense(unmerged, -1)], feed)
        (out["greedy"], out["neg_logits"], out["beams"], out["log_probs"], out["ler"],
         out["raw_distance"], out["wer"], out["wer_np"], out["counts"],
         out["unmerged"]) = run
        out["empty_truth"] = sess.run(tf.edit_distance(
            tf.SparseTensorValue([[0, 0], [1, 0]], np.array([1, 2]), [2, 1]),
            tf.SparseTensorValue([[0, 0]], np.array([1]), [2, 1])))
        fed = tf.SparseTensorValue([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]],
                                   np.array([1, 1, 3, 2, 2], np.int32), [3, 2])
        flags = {}
        for name, kwargs in [("collapse", dict(preprocess_collapse_repeated=True)),
                             ("no_merge", dict(ctc_merge_repeated=False)),
                             ("batch_major", dict(time_major=False))]:
            sparse = tf.sparse_placeholder(tf.int32)
            inputs = tf.transpose(logits, [1, 0, 2]) if name == "batch_major" else logits
            flags[name] = sess.run(tf.nn.ctc_loss(sparse, inputs, seq_len, **kwargs),
                                   {**feed, sparse: fed})
        out["ctc_flags"] = flags
        long_labels = np.array([[0, 1, 2, 3, 0, 1], [1, 2, -1, -1, -1, -1],
                                [0, 1, 2, 3, 0, 1]], np.int32)
        short = {**feed, seq_len: [9, 7, 3], dense: long_labels}
        name, message, _ = _error(lambda: sess.run(per_example, short))
        out["too_long"] = [name, "(required: 6, available: 3)" in message]
        ignoring = tf.nn.ctc_loss(labels, logits, seq_len, ignore_longer_outputs_than_inputs=True)
        out["ignored"] = sess.run([ignoring, tf.gradients(ignoring, logits)[0][:, 2]], short)
        out["seq_len_past_time"] = _error(
            lambda: sess.run(per_example, {**feed, seq_len: [10, 7, 5]}))[0]
        out["blank_label"] = sess.run(per_example, {
            **feed, dense: np.where(truth == 2, classes - 1, truth)})
        out["label_after_null"] = _error(lambda: sess.run(per_example, {
            **feed, dense: np.where(truth == 1, classes, truth)}))[0]
        nan_feats = np.where(np.arange(n_feat) == 2, np.nan, feats).astype(np.float32)
        name, message, op = _error(lambda: sess.run(checked, {**feed, x: nan_feats}))
        out["nan_features"] = [name, "ctc loss" in message, "NaN" in message, op]
        out["bad_py_func"] = [_error(lambda: sess.run(tf.py_func(
            lambda a: np.log(a[1000]), [seq_len], tf.float64), feed))[0],
            _error(lambda: sess.run(tf.py_func(
                lambda a: a * 0.5, [seq_len], tf.float32), feed))[0],
            _error(lambda: sess.run(tf.numpy_function(
                lambda a: a.reshape([2]), [seq_len], tf.int32), feed))[0]]
        probs = tf.placeholder(tf.float32, [None], name="probs")
        log_p = tf.log(probs, name="log_p")
        name, message, op = _error(lambda: sess.run(tf.debugging.check_numerics(
            log_p, "log of probs", name="check_log_p"), {probs: [0.5, -1.0]}))
        out["check_numerics"] = [name, "log of probs" in message, "NaN" in message, op]
        root = tf.sqrt(tf.debugging.check_numerics(probs, "before sqrt", name="check_probs"))
        name, message, op = _error(lambda: sess.run(tf.gradients(root, probs), {probs: [0.0]}))
        out["check_numerics_gradient"] = [name, "in gradient" in message, "Inf" in message, op]
    with tf.Graph().as_default():
        probs = tf.placeholder(tf.float32, [None], name="probs")
        entropy = -tf.reduce_sum(probs * tf.log(probs, name="log_p"), name="entropy")
        check = tf.add_check_numerics_ops()
        with tf.Session() as sess:
            out["checked_entropy"] = sess.run([entropy, check], {probs: [0.25, 0.75]})[0]
            name, message, op = _error(lambda: sess.run([entropy, check],
                                                        {probs: [0.5, -1.0]}))
        out["add_check_numerics"] = [name, "log_p" in message, "NaN" in message, op]
    with open(log_file) as f:
        out["print_file"] = f.read()
    os.remove(log_file)
    os.rmdir(os.path.dirname(log_file))
