"""Sparse tensors in trained TF1 models (recommenders, bag-of-words, factorization
machines): a tf.sparse_placeholder fed a SparseTensorValue with unordered indices and put in
order by tf.sparse.reorder, the sparse algebra (reshape, slice, concat with
expand_nonconcat_dim, sparse_add with a threshold and sparse + dense, the reductions,
sparse_softmax, maximum/minimum, retain, fill_empty_rows, to_indicator, sparse_merge),
tf.sparse_tensor_dense_matmul with its adjoint flags and its gradients with respect to the
values and the dense matrix, embedding_lookup_sparse with weights under each combiner,
safe_embedding_lookup_sparse over empty rows and a default id, the sparse_segment
reductions with num_segments and their gradients, a factorization machine trained a few
steps with FTRL and Adagrad (IndexedSlices gradients: the rows no example touches stay as
they were), and the errors a user hits: out-of-order and out-of-bounds indices, mismatched
shapes."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    # a 4 x 6 bag of words, indices deliberately out of order (row 2 is empty)
    indices = np.array([[1, 4], [0, 2], [3, 0], [0, 5], [1, 1], [3, 3]], np.int64)
    values = rng.uniform(0.5, 2.0, 6).astype(np.float32)
    sp = tf.sparse_placeholder(tf.float32, name="bag")
    feed = {sp: tf.SparseTensorValue(indices, values, [4, 6])}
    ordered = tf.sparse.reorder(sp)
    dense_of = tf.sparse_tensor_to_dense

    other = tf.SparseTensor([[0, 2], [1, 0], [2, 3], [3, 3]],
                            tf.constant([-0.2, 1.5, 0.7, -2.0]), [4, 6])
    reshaped = tf.sparse_reshape(ordered, [-1, 3])
    sliced = tf.sparse_slice(ordered, [0, 1], [3, 4])
    narrow = tf.SparseTensor([[0, 0], [2, 1]], tf.constant([9.0, 8.0]), [3, 2])
    concat = tf.sparse_concat(1, [ordered, narrow], expand_nonconcat_dim=True)
    summed = tf.sparse_add(ordered, other, thresh=0.25)
    plus_dense = tf.sparse_add(ordered, tf.ones([4, 6]))
    row_sums = tf.sparse_reduce_sum(ordered, axis=1)
    sum_sparse = tf.sparse_reduce_sum_sparse(ordered, axis=0, keepdims=True)
    row_max = tf.sparse_reduce_max(ordered, axis=1, keepdims=True)
    softmax = tf.sparse_softmax(ordered)
    maximum = tf.sparse_maximum(ordered, tf.SparseTensor(indices=ordered.indices,
                                                         values=ordered.values * 0 + 1.0,
                                                         dense_shape=ordered.dense_shape))
    minimum = tf.sparse_minimum(ordered, tf.sparse.reorder(other))
    retained = tf.sparse_retain(ordered, tf.greater(ordered.values, 1.4))
    filled, empty_rows = tf.sparse_fill_empty_rows(ordered, -1.0)
    ids_sp = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0]],
                             tf.constant([2, 5, 0, 2], tf.int64), [4, 2])
    indicator = tf.sparse.to_indicator(ids_sp, 6)
    merged = tf.sparse_merge(ids_sp, tf.SparseTensor(ids_sp.indices,
                                                     tf.constant([0.5, 1.0, 2.0, 3.0]),
                                                     ids_sp.dense_shape), 6)
    with tf.Session() as sess:
        got = sess.run({
            "ordered_indices": ordered.indices, "reshaped": dense_of(reshaped),
            "reshaped_shape": reshaped.dense_shape, "sliced": dense_of(sliced),
            "concat": dense_of(concat), "concat_shape": concat.dense_shape,
            "sum_thresh": dense_of(summed), "sum_thresh_nnz": tf.size(summed.values),
            "plus_dense": plus_dense, "row_sums": row_sums,
            "sum_sparse": dense_of(sum_sparse), "sum_sparse_indices": sum_sparse.indices,
            "row_max": row_max, "softmax": dense_of(softmax),
            "maximum": dense_of(maximum), "minimum": dense_of(minimum),
            "retained": retained.indices, "filled": dense_of(filled),
            "filled_indices": filled.indices, "empty_rows": empty_rows,
            "indicator": indicator, "merged": dense_of(merged)}, feed)
        out.update({"sparse_" + k: v for k, v in got.items()})

        # feature dropout while training only (a cond returning a SparseTensor) and a
        # loop carrying one, its values decayed
        training = tf.placeholder_with_default(False, [])
        kept = tf.cond(training, lambda: tf.sparse_retain(
            ordered, tf.equal(ordered.indices[:, 1] % 2, 0)), lambda: ordered)
        _, decayed = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.SparseTensor(
            s.indices, s.values * 0.5, s.dense_shape)), [tf.constant(0), ordered])
        out["cond_static_shape"] = [str(kept.get_shape()), str(kept.indices.get_shape())]
        out["cond_training"] = sess.run(dense_of(kept), {training: True, **feed})
        out["cond_eval"] = sess.run(kept, feed).indices
        out["loop_decayed"] = sess.run(dense_of(decayed), feed)

        # sparse x dense matmul with the adjoint flags, and its gradients
        order = np.lexsort((indices[:, 1], indices[:, 0]))
        sp_vals = tf.Variable(values[order], name="sp_vals")
        a = tf.SparseTensor(indices[order], sp_vals, [4, 6])
        b = tf.Variable(rng.normal(size=(6, 3)).astype(np.float32), name="b")
        bt = tf.Variable(rng.normal(size=(3, 4)).astype(np.float32), name="bt")
        prod = tf.sparse_tensor_dense_matmul(a, b)
        prod_t = tf.sparse_tensor_dense_matmul(a, bt, adjoint_a=True, adjoint_b=True)
        loss_mm = tf.reduce_sum(tf.square(prod)) + tf.reduce_sum(tf.sin(prod_t))
        sess.run(tf.variables_initializer([sp_vals, b, bt]))
        out["matmul"], out["matmul_adjoint"] = sess.run([prod, prod_t])
        out["matmul_grads"] = sess.run(tf.gradients(loss_mm, [sp_vals, b, bt]))
        # a complex operand: its adjoint is the conjugate transpose (grad_ys must be given)
        cplx = tf.SparseTensor([[0, 1], [1, 0], [2, 2]],
                               tf.constant([1 + 2j, 3 - 1j, 2j], tf.complex64), [3, 3])
        cb = tf.constant((rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))).astype(
            np.complex64))
        for adjoint_a, adjoint_b in ((True, False), (False, True)):
            cprod = tf.sparse_tensor_dense_matmul(cplx, cb if adjoint_a else tf.transpose(cb),
                                                  adjoint_a=adjoint_a, adjoint_b=adjoint_b)
            grads = tf.gradients(cprod, [cplx.values, cb], grad_ys=tf.ones_like(cprod) * 1j)
            key = "complex_adjoint_" + ("a" if adjoint_a else "b")
            out[key] = [np.stack([v.real, v.imag]) for v in sess.run([cprod] + grads)]

        # embedding lookups over weighted sparse ids
        table = tf.Variable(rng.normal(size=(6, 3)).astype(np.float32), name="table")
        weights = tf.SparseTensor(ids_sp.indices, tf.constant([1.0, 2.0, 0.5, 3.0]),
                                  ids_sp.dense_shape)
        sess.run(table.initializer)
        for combiner in ("sum", "mean", "sqrtn"):
            emb = tf.nn.embedding_lookup_sparse(table, ids_sp, weights, combiner=combiner)
            out["lookup_" + combiner] = sess.run(emb)
            out["lookup_grad_" + combiner] = sess.run(
                tf.convert_to_tensor(tf.gradients(tf.reduce_sum(emb * emb), table)[0]))
        out["lookup_unweighted"] = sess.run(
            tf.nn.embedding_lookup_sparse(table, ids_sp, None, combiner="sum"))
        with_neg = tf.SparseTensor(ids_sp.indices, tf.constant([2, -1, 0, 2], tf.int64),
                                   ids_sp.dense_shape)
        out["safe_lookup"] = sess.run(tf.nn.safe_embedding_lookup_sparse(table, with_neg))
        out["safe_lookup_default"] = sess.run(tf.nn.safe_embedding_lookup_sparse(
            table, ids_sp, weights, combiner="sum", default_id=4))

        # segment reductions over selected rows and their gradients
        data = tf.Variable(rng.normal(size=(5, 2)).astype(np.float32), name="data")
        sel = tf.constant([0, 2, 2, 4, 1])
        seg = tf.constant([0, 0, 1, 3, 3])
        sess.run(data.initializer)
        for name, fn in (("sum", tf.sparse_segment_sum), ("mean", tf.sparse_segment_mean),
                         ("sqrt_n", tf.sparse_segment_sqrt_n)):
            r = fn(data, sel, seg, num_segments=5)
            out["segment_" + name] = sess.run(r)
            out["segment_grad_" + name] = sess.run(tf.convert_to_tensor(
                tf.gradients(tf.reduce_sum(r * r), data)[0]))
        out["segment_sum_plain"] = sess.run(tf.sparse_segment_sum(data, sel, seg))

    # a factorization machine over one-hot fields, trained by FTRL and by Adagrad
    n_feat, k = 10, 3
    rows = [[0, 3, 7], [1, 3], [0, 5, 8], [2, 7]]
    fm_idx = np.array([[r, j] for r, ids in enumerate(rows) for j in range(len(ids))],
                      np.int64)
    fm_ids = np.array([i for ids in rows for i in ids], np.int64)
    fm_x = np.array([1.0, 0.5, 2.0, 1.0, 1.5, 1.0, 0.5, 1.0, 2.0, 1.0], np.float32)
    labels = np.array([1.0, 0.0, 1.0, 0.0], np.float32)
    w0 = rng.normal(0, 0.1, (n_feat, 1)).astype(np.float32)
    v0 = rng.normal(0, 0.1, (n_feat, k)).astype(np.float32)
    for opt_name, make_opt in (("ftrl", lambda: tf.train.FtrlOptimizer(
            0.1, l1_regularization_strength=0.001, l2_regularization_strength=0.01)),
            ("adagrad", lambda: tf.train.AdagradOptimizer(0.2))):
        with tf.Graph().as_default():
            ids = tf.sparse_placeholder(tf.int64, name="ids")
            xs = tf.sparse_placeholder(tf.float32, name="xs")
            y = tf.placeholder(tf.float32, [None])
            w = tf.get_variable("w", initializer=w0)
            v = tf.get_variable("v", initializer=v0)
            bias = tf.get_variable("bias", [], initializer=tf.zeros_initializer())
            linear = tf.squeeze(tf.nn.embedding_lookup_sparse(w, ids, xs, combiner="sum"), 1)
            sum_vx = tf.nn.embedding_lookup_sparse(v, ids, xs, combiner="sum")
            sq = tf.SparseTensor(xs.indices, tf.square(xs.values), xs.dense_shape)
            sum_v2x2 = tf.nn.embedding_lookup_sparse(tf.square(v), ids, sq, combiner="sum")
            pair = 0.5 * tf.reduce_sum(tf.square(sum_vx) - sum_v2x2, axis=1)
            logits = bias + linear + pair
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y,
                                                                          logits=logits))
            grad_w, grad_v = tf.gradients(loss, [w, v])
            train = make_opt().minimize(loss)
            fm_feed = {ids: tf.SparseTensorValue(fm_idx, fm_ids, [4, 3]),
                       xs: tf.SparseTensorValue(fm_idx, fm_x, [4, 3]), y: labels}
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                # TF's grad_w is IndexedSlices (devsession's dense, carrying its rows)
                dense_w, dense_v = sess.run([tf.convert_to_tensor(grad_w), grad_v], fm_feed)
                out[opt_name + "_grad_rows"] = np.flatnonzero(np.any(dense_w != 0, axis=1))
                out[opt_name + "_grad_v"] = dense_v
                out[opt_name + "_losses"] = np.array(
                    [sess.run([train, loss], fm_feed)[1] for _ in range(5)])
                w1, v1 = sess.run([w, v])
                untouched = [4, 6, 9]    # no example has these features
                out[opt_name + "_untouched_w_same"] = bool(np.array_equal(w1[untouched],
                                                                          w0[untouched]))
                out[opt_name + "_untouched_v_same"] = bool(np.array_equal(v1[untouched],
                                                                          v0[untouched]))
                out[opt_name + "_touched_v"] = v1[[0, 3, 7]]
                out[opt_name + "_w"] = w1[:, 0]
                out[opt_name + "_bias"] = sess.run(bias)

    # the errors a user hits
    def error(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the class is what the program records
            return type(e).__name__
        return None

    def int64_counts():       # TF has no int64 kernel (a graph of its own: TF's session
        with tf.Graph().as_default():       # fails every later run of a graph holding it)
            counts = tf.SparseTensor([[0, 1]], tf.constant([3], tf.int64), [1, 2])
            with tf.Session() as sess:
                sess.run(tf.sparse_tensor_dense_matmul(counts, tf.ones([2, 1], tf.int64)))

    with tf.Graph().as_default():
        unordered = tf.sparse_placeholder(tf.float32)
        ids = tf.placeholder(tf.int32, [None])
        segs = tf.placeholder(tf.int32, [None])
        dense = tf.ones([6, 2])
        bad = tf.SparseTensorValue([[0, 5], [0, 1]], [1.0, 2.0], [2, 6])
        oob = tf.SparseTensorValue([[0, 1], [3, 1]], [1.0, 2.0], [2, 6])
        complex_sp = tf.SparseTensor([[0, 0]], tf.constant([1j], tf.complex64), [2, 2])
        with tf.Session() as sess:
            out["errors"] = {
                "to_dense_unordered": error(lambda: sess.run(
                    tf.sparse_tensor_to_dense(unordered), {unordered: bad})),
                "to_dense_out_of_bounds": error(lambda: sess.run(
                    tf.sparse_tensor_to_dense(unordered), {unordered: oob})),
                "matmul_out_of_bounds": error(lambda: sess.run(
                    tf.sparse_tensor_dense_matmul(unordered, dense), {unordered: oob})),
                "segment_unsorted": error(lambda: sess.run(
                    tf.sparse_segment_sum(dense, ids, segs), {ids: [0, 1], segs: [1, 0]})),
                "segment_index_out_of_bounds": error(lambda: sess.run(
                    tf.sparse_segment_sum(dense, ids, segs), {ids: [0, 9], segs: [0, 0]})),
                "matmul_shape_mismatch": error(lambda: tf.sparse_tensor_dense_matmul(
                    tf.SparseTensor([[0, 0]], [1.0], [2, 6]), tf.ones([5, 2]))),
                "add_shape_mismatch": error(lambda: sess.run(tf.sparse_add(
                    tf.SparseTensor([[0, 0]], [1.0], [2, 6]),
                    tf.SparseTensor([[0, 0]], [1.0], [3, 6])))),
                "dense_shape_rank": error(lambda: tf.SparseTensor([[0, 0]], [1.0], [2, 6, 1])),
                "matmul_int64_counts": error(int64_counts),
                "reduce_sum_bool": error(lambda: tf.sparse_reduce_sum(
                    tf.SparseTensor([[0, 1]], [True], [1, 2]))),
                "reduce_max_complex": error(lambda: tf.sparse_reduce_max(complex_sp, 1)),
                "maximum_complex": error(lambda: tf.sparse_maximum(complex_sp, complex_sp)),
                "complex_grad_without_grad_ys": error(lambda: tf.gradients(
                    tf.sparse_reduce_sum(complex_sp), complex_sp.values)),
                "reshape_size": error(lambda: sess.run(tf.sparse_reshape(
                    tf.SparseTensor([[0, 0]], [1.0], [2, 6]), [5, -1]))),
            }
            # no error here: the values come back in row-major order, not lined up with
            # the unsorted indices
            out["softmax_unsorted"] = sess.run(tf.sparse_softmax(unordered), {unordered: bad})
            out["reordered_fixes_it"] = sess.run(
                tf.sparse_tensor_to_dense(tf.sparse.reorder(unordered)), {unordered: bad})
