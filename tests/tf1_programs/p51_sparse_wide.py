"""A wide (sparse linear) and deep (embedding) click model in TF1 style, with the sparse
API: a tf.sparse_placeholder fed a SparseTensorValue, tf.sparse_tensor_dense_matmul for the
linear part, tf.nn.embedding_lookup_sparse with a "mean" combiner for the embedding part,
tf.sparse_tensor_to_dense / tf.sparse_reduce_sum / tf.sparse.reorder for reporting,
tf.string_to_hash_bucket_fast to hash string ids, FTRL for the wide weights and Adagrad for
the deep ones (two optimizers on disjoint var_lists, grouped), and tf.py_func computing a
statistic in Python inside the graph."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    buckets, dim, batch = 10, 3, 4
    rows = [[1, 3], [0], [2, 5, 7], [9, 4]]
    indices = np.array([[r, k] for r, ids in enumerate(rows) for k in range(len(ids))],
                       np.int64)
    values = np.array([i for ids in rows for i in ids], np.int64)
    dense_shape = np.array([batch, 3], np.int64)
    labels_data = np.array([1, 0, 1, 0], np.float32)

    ids = tf.sparse_placeholder(tf.int64, name="ids")
    labels = tf.placeholder(tf.float32, [None], name="labels")
    one_hot = tf.SparseTensor(
        indices=tf.stack([ids.indices[:, 0], ids.values], axis=1),
        values=tf.ones_like(ids.values, dtype=tf.float32), dense_shape=[batch, buckets])
    one_hot = tf.sparse.reorder(one_hot)

    with tf.variable_scope("wide"):
        wide_w = tf.get_variable("w", initializer=rng.normal(0, 0.1, (buckets, 1)).astype(
            np.float32))
        wide = tf.squeeze(tf.sparse_tensor_dense_matmul(one_hot, wide_w), 1)
    with tf.variable_scope("deep"):
        table = tf.get_variable("embedding", initializer=rng.normal(
            0, 0.5, (buckets, dim)).astype(np.float32))
        embedded = tf.nn.embedding_lookup_sparse(table, ids, None, combiner="mean")
        deep_w = tf.get_variable("w", initializer=rng.normal(0, 0.5, (dim, 1)).astype(
            np.float32))
        deep = tf.squeeze(tf.matmul(embedded, deep_w), 1)
    logits = wide + deep
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels,
                                                                  logits=logits))
    wide_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="wide")
    deep_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="deep")
    train_op = tf.group(
        tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01).minimize(
            loss, var_list=wide_vars),
        tf.train.AdagradOptimizer(0.3).minimize(loss, var_list=deep_vars))

    def positive_rate(p):
        return np.array((p > 0.5).mean(), np.float32)
    rate = tf.py_func(positive_rate, [tf.sigmoid(logits)], tf.float32, stateful=False)
    hashed = tf.string_to_hash_bucket_fast(tf.constant(["user:7", "item:3", "user:7"]),
                                           buckets)

    feed = {ids: tf.SparseTensorValue(indices, values, dense_shape), labels: labels_data}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["one_hot_dense"] = sess.run(tf.sparse_tensor_to_dense(one_hot), feed)
        out["ids_per_row"] = sess.run(tf.sparse_reduce_sum(one_hot, axis=1), feed)
        losses = [sess.run([train_op, loss], feed)[1] for _ in range(6)]
        out["losses"] = np.array(losses)
        out["wide_w"] = sess.run(wide_w)[:, 0]
        out["embedding_row_9"] = sess.run(table)[9]
        out["positive_rate"] = sess.run(rate, feed)
        out["hashed"] = sess.run(hashed)
        out["embedded"] = sess.run(embedded, feed)
