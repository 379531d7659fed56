"""A click-through-rate model as TF1 recommender code wrote it (DeepFM / Deep & Cross
Network): multi-hot categorical fields as SparseTensors (a tf.sparse_placeholder fed a
SparseTensorValue with weights, and one built in-graph from a -1-padded id matrix with
tf.where(tf.not_equal(ids, -1)) + tf.gather_nd), embedding_lookup_sparse under the "sum",
"mean" and "sqrtn" combiners, first-order weights by tf.sparse_tensor_dense_matmul, the FM
second-order term, a two-layer cross network (tf.tensordot, tf.matmul, tf.expand_dims), a
deep tower, FTRL (l1, l2, l2 shrinkage, learning_rate_power=-0.5) on the embeddings and
Adagrad on the towers grouped in one train op, tf.metrics.auc with careful interpolation
over two batches, the embedding gradients (IndexedSlices in TF: their dense values), the
rows the training touched and FTRL's accumulators; [batch, slot, id] ids, a table in two
shards ("div" and "mod"), the gradient with respect to the feature weights; and what a user
hits: an out-of-range id (the node TF names), a -1 id left in a plain lookup, sp_weights
that do not match sp_ids (at build and at run), safe_embedding_lookup_sparse over empty rows
and -1 ids (with and without default_id), tf.sparse.reorder before a lookup, predictions
outside [0, 1] for auc and auc's argument errors."""

import numpy as np


def error(fn, *phrases):
    """The error's class and whether its message has each phrase."""
    try:
        fn()
        return "no error"
    except Exception as e:  # noqa: BLE001 - the class and message are what is recorded
        return [type(e).__name__] + [p in str(e) for p in phrases]


def sparse_value(tf, rows, values, width):
    idx = np.array([[r, j] for r, ids in enumerate(rows) for j in range(len(ids))], np.int64)
    return tf.SparseTensorValue(idx, np.array(values), [len(rows), width])


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, k, n_genre, n_tag, n_user = 6, 4, 10, 12, 7
    genre_rows = [[[1, 3], [0], [2, 5, 7], [3], [6, 1], [4, 0, 2]],
                  [[0, 7], [5], [1], [2, 3, 4], [6], [7, 1]]]
    tag_rows = [[[2, 9, -1], [0, -1, -1], [4, 4, 1], [7, -1, -1], [3, 5, -1], [8, -1, -1]],
                [[1, 6, -1], [9, 2, 0], [5, -1, -1], [3, 3, -1], [0, 7, -1], [4, -1, -1]]]
    users = [[0, 2, 4, 1, 3, 2], [1, 0, 3, 4, 2, 0]]
    dense_x = [rng.uniform(0, 1, (batch, 2)).astype(np.float32) for _ in range(2)]
    clicks = [np.array([1, 0, 1, 0, 0, 1], np.float32), np.array([0, 1, 1, 0, 1, 0],
                                                                  np.float32)]
    feeds = []
    genre = tf.sparse_placeholder(tf.int64, name="genre")
    genre_w = tf.sparse_placeholder(tf.float32, name="genre_weight")
    tag_ids = tf.placeholder(tf.int64, [None, 3], name="tag_ids")
    user = tf.placeholder(tf.int64, [None], name="user")
    dense = tf.placeholder(tf.float32, [None, 2], name="dense")
    label = tf.placeholder(tf.float32, [None], name="label")
    for b in range(2):
        weights = [rng.uniform(0.5, 2.0, len(r)).astype(np.float32) for r in genre_rows[b]]
        feeds.append({genre: sparse_value(tf, genre_rows[b], np.concatenate(genre_rows[b]),
                                          n_genre),
                      genre_w: sparse_value(tf, genre_rows[b], np.concatenate(weights),
                                            n_genre),
                      tag_ids: np.array(tag_rows[b]), user: np.array(users[b]),
                      dense: dense_x[b], label: clicks[b]})

    where = tf.where(tf.not_equal(tag_ids, -1))
    tags = tf.SparseTensor(where, tf.gather_nd(tag_ids, where),
                           tf.shape(tag_ids, out_type=tf.int64))
    user_sp = tf.SparseTensor(tf.stack([tf.range(tf.shape(user, out_type=tf.int64)[0]),
                                        tf.zeros_like(user)], 1), user, [batch, 1])
    with tf.variable_scope("embeddings"):
        v_genre = tf.get_variable("genre", initializer=rng.normal(0, 0.3, (n_genre, k))
                                  .astype(np.float32))
        v_tag = tf.get_variable("tag", initializer=rng.normal(0, 0.3, (n_tag, k))
                                .astype(np.float32))
        v_user = tf.get_variable("user", initializer=rng.normal(0, 0.3, (n_user, k))
                                 .astype(np.float32))
        w_genre = tf.get_variable("genre_linear", initializer=rng.normal(
            0, 0.1, (n_genre, 1)).astype(np.float32))
    fields = [tf.nn.embedding_lookup_sparse(v_genre, genre, genre_w, combiner="mean"),
              tf.nn.embedding_lookup_sparse(v_tag, tags, None, combiner="sqrtn"),
              tf.nn.embedding_lookup_sparse(v_user, user_sp, None, combiner="sum")]
    one_hot = tf.SparseTensor(tf.stack([genre.indices[:, 0], genre.values], 1),
                              genre_w.values, genre.dense_shape)
    linear = tf.squeeze(tf.sparse_tensor_dense_matmul(one_hot, w_genre), 1)
    stacked = tf.stack(fields, 1)                                   # [batch, 3, k]
    fm = 0.5 * tf.reduce_sum(tf.square(tf.reduce_sum(stacked, 1)) -
                             tf.reduce_sum(tf.square(stacked), 1), 1)

    x0 = tf.concat([tf.reshape(stacked, [-1, 3 * k]), dense], 1)
    d = 3 * k + 2
    with tf.variable_scope("tower"):
        cross_w0 = tf.get_variable("cross_w0", initializer=rng.normal(0, 0.2, d)
                                   .astype(np.float32))
        cross_w1 = tf.get_variable("cross_w1", initializer=rng.normal(0, 0.2, (d, 1))
                                   .astype(np.float32))
        cross_b = tf.get_variable("cross_b", [2, d], initializer=tf.zeros_initializer())
        deep_w = tf.get_variable("deep_w", initializer=rng.normal(0, 0.3, (d, 8))
                                 .astype(np.float32))
        deep_b = tf.get_variable("deep_b", [8], initializer=tf.constant_initializer(0.1))
        out_w = tf.get_variable("out_w", initializer=rng.normal(0, 0.3, (d + 8, 1))
                                .astype(np.float32))
        bias = tf.get_variable("bias", [], initializer=tf.zeros_initializer())
    x1 = x0 * tf.expand_dims(tf.tensordot(x0, cross_w0, axes=1), 1) + cross_b[0] + x0
    x2 = x0 * tf.matmul(x1, cross_w1) + cross_b[1] + x1
    deep = tf.nn.relu(tf.nn.bias_add(tf.matmul(x0, deep_w), deep_b))
    tower = tf.squeeze(tf.matmul(tf.concat([x2, deep], 1), out_w), 1)
    logits = tf.identity(bias + linear + fm + tower, name="logits")
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label,
                                                                  logits=logits))
    emb_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, "embeddings")
    tower_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, "tower")
    emb_grads = tf.gradients(loss, emb_vars)
    ftrl = tf.train.FtrlOptimizer(0.2, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                                  l1_regularization_strength=0.001,
                                  l2_regularization_strength=0.01,
                                  l2_shrinkage_regularization_strength=0.005)
    # every gradient first, then both updates (minimize twice would race the updates of
    # one optimizer with the other's gradients)
    grads_and_vars = ftrl.compute_gradients(loss, emb_vars + tower_vars)
    with tf.control_dependencies([g for g, _ in grads_and_vars]):
        train_op = tf.group(
            ftrl.apply_gradients(grads_and_vars[:len(emb_vars)]),
            tf.train.AdagradOptimizer(0.1).apply_gradients(grads_and_vars[len(emb_vars):]))
    auc, auc_update = tf.metrics.auc(label, tf.sigmoid(logits), num_thresholds=50,
                                     summation_method="careful_interpolation")

    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        before = sess.run(emb_vars)
        first_auc = sess.run(auc_update, feeds[0])
        out["tags_sparse"] = sess.run([tags.indices, tags.values], feeds[0])
        out["fields"], out["fm"], out["cross"] = sess.run([fields, fm, x2], feeds[0])
        out["linear"] = sess.run(linear, feeds[0])
        out["emb_grads"] = sess.run([tf.convert_to_tensor(g) for g in emb_grads], feeds[0])
        out["losses"] = np.array([sess.run([train_op, loss], feeds[s % 2])[1]
                                  for s in range(6)])
        after = sess.run(emb_vars)
        out["rows_touched"] = [np.flatnonzero(np.any(a != b0, 1)).tolist()
                               for a, b0 in zip(after, before)]
        out["genre_rows"] = after[0][[1, 3, 7]]
        out["user_table"], out["tower_out_w"] = after[2], sess.run(out_w)[:, 0]
        out["ftrl_slots"] = sorted(ftrl.get_slot_names())
        out["ftrl_user_accum"] = sess.run(ftrl.get_slot(v_user, "accum"))[:, 0]
        out["auc"] = [first_auc, sess.run(auc_update, feeds[1]), sess.run(auc)]

        # unordered ids reordered before the lookup; weights of the wrong length
        ids_in = tf.sparse_placeholder(tf.int64, name="ids_in")
        w_in = tf.sparse_placeholder(tf.float32, name="w_in")
        shuffled = tf.SparseTensorValue([[2, 0], [0, 1], [1, 0], [0, 0]], [7, 3, 0, 1], [3, 2])
        for combiner in ("sum", "mean", "sqrtn"):
            looked = tf.nn.embedding_lookup_sparse(v_genre, tf.sparse.reorder(ids_in),
                                                   tf.sparse.reorder(w_in), combiner=combiner)
            out["reordered_" + combiner] = sess.run(looked, {
                ids_in: shuffled, w_in: tf.SparseTensorValue(shuffled.indices,
                                                             [2.0, 0.5, 1.0, 3.0], [3, 2])})
        lookup = tf.nn.embedding_lookup_sparse(v_genre, ids_in, w_in, combiner="mean",
                                               name="genre_lookup")
        ordered = tf.SparseTensorValue([[0, 0], [0, 1], [1, 0]], [1, 3, 0], [2, 2])
        try:
            sess.run(lookup, {ids_in: tf.SparseTensorValue(ordered.indices, [1, 12, 0], [2, 2]),
                              w_in: tf.SparseTensorValue(ordered.indices, [1.0] * 3, [2, 2])})
        except tf.errors.OpError as e:
            out["out_of_range"] = [type(e).__name__, e.op.name, e.op.type,
                                   "12 is not in [0, 10)" in e.message]
        tag_lookup = tf.nn.embedding_lookup_sparse(v_tag, ids_in, None, combiner="sqrtn",
                                                   name="tag_lookup")
        try:                            # a -1 padding id left in: TF 2.21 reduces the table
            sess.run(tag_lookup, {ids_in: tf.SparseTensorValue(    # itself, no gather
                ordered.indices, [1, -1, 0], [2, 2])})
        except tf.errors.OpError as e:
            out["negative_id"] = [type(e).__name__, e.op.name, e.op.type,
                                  "Bad: indices[1] == -1 out of range [0, 12)" in e.message]
        out["weights_mismatch_static"] = error(
            lambda: tf.nn.embedding_lookup_sparse(
                v_genre, tf.SparseTensor([[0, 0], [1, 0]], tf.constant([1, 2], tf.int64),
                                         [2, 2]),
                tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1.0, 2.0, 3.0], [2, 2])),
            "are incompatible")
        summed = tf.nn.embedding_lookup_sparse(v_genre, ids_in, w_in, combiner="sum")
        out["weights_mismatch_run"] = error(lambda: sess.run(summed, {
            ids_in: ordered, w_in: tf.SparseTensorValue([[0, 0], [1, 0]], [1.0, 2.0], [2, 2])}),
            "Incompatible shapes")

        # empty rows and invalid ids
        padded = tf.SparseTensorValue([[0, 0], [0, 1], [2, 0], [3, 0], [3, 1]],
                                      [4, -1, -1, 6, 2], [4, 2])
        pad_w = tf.SparseTensorValue(padded.indices, [1.5, 2.0, 1.0, 0.5, 2.0], [4, 2])
        safe = {"plain": tf.nn.safe_embedding_lookup_sparse(v_genre, ids_in),
                "weighted_sqrtn": tf.nn.safe_embedding_lookup_sparse(
                    v_genre, ids_in, w_in, combiner="sqrtn"),
                "default_id": tf.nn.safe_embedding_lookup_sparse(
                    v_genre, ids_in, w_in, combiner="sum", default_id=5)}
        out["safe"] = sess.run(safe, {ids_in: padded, w_in: pad_w})
        # [batch, slot, id] ids: one embedding per (row, slot)
        ids3 = tf.sparse_placeholder(tf.int64, name="ids3")
        w3 = tf.sparse_placeholder(tf.float32, name="w3")
        slotted = tf.SparseTensorValue([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 2]],
                                       [3, 7, -1, 2, 9], [2, 2, 3])
        out["safe_rank3"] = sess.run(
            [tf.nn.safe_embedding_lookup_sparse(v_genre, ids3, w3, combiner="mean"),
             tf.nn.safe_embedding_lookup_sparse(v_genre, ids3, None, combiner="sqrtn",
                                                default_id=0)],
            {ids3: slotted, w3: tf.SparseTensorValue(slotted.indices,
                                                     [1.0, 2.0, 3.0, 0.5, 1.5], [2, 2, 3])})
        # the table in two shards (as a partitioner cuts it), looked up by "div" and "mod"
        shards = tf.split(v_genre, 2)
        sharded = [tf.nn.embedding_lookup_sparse(shards, ids_in, w_in, combiner="sqrtn",
                                                 partition_strategy="div"),
                   tf.nn.embedding_lookup_sparse([v_genre[0::2], v_genre[1::2]], ids_in, None,
                                                 combiner="mean", partition_strategy="mod")]
        sharded_feed = {ids_in: tf.SparseTensorValue([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]],
                                                     [1, 8, 5, 0, 9], [3, 3]),
                        w_in: tf.SparseTensorValue([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]],
                                                   [1.0, 2.0, 0.5, 1.0, 3.0], [3, 3])}
        out["sharded"] = sess.run(sharded, sharded_feed)
        out["sharded_grads"] = sess.run([tf.convert_to_tensor(g) for g in tf.gradients(
            tf.reduce_sum(tf.square(sharded[0])), shards)], sharded_feed)
        # how the loss moves with each (row, genre) weight
        out["feature_weight_grad"] = sess.run(tf.gradients(loss, genre_w.values)[0], feeds[0])

        scores = tf.placeholder(tf.float32, [None])
        bad_auc, bad_update = tf.metrics.auc(label, scores, name="bad_auc")
        sess.run(tf.local_variables_initializer())
        out["auc_out_of_range"] = error(lambda: sess.run(bad_update, {
            label: [1.0, 0.0, 1.0], scores: [0.3, 1.4, -0.2]}), "predictions must be in [0, 1]")
        out["auc_argument_errors"] = [
            error(lambda: tf.metrics.auc(label, scores, summation_method="simpson"),
                  "Invalid summation_method: simpson summation_method should be"),
            error(lambda: tf.metrics.auc(label, scores, curve="DET"),
                  "Curve must be either ROC or PR. Curve DET is unknown."),
            error(lambda: tf.metrics.auc(tf.constant([1.0, 0.0]), tf.constant([0.2, 0.3, 0.4])),
                  "Shapes (3,) and (2,) are incompatible")]
    out["_tol"] = {key: {"rtol": 2e-4, "atol": 2e-5} for key in (
        "losses", "genre_rows", "user_table", "tower_out_w", "auc")}
