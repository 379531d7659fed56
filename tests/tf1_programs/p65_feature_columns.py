"""A wide & deep click model with tf.feature_column and no estimator: placeholders fed a
batch (a SparseTensor of query words), input_layer over numeric, bucketized, indicator
and embedding columns, linear_model over categorical ones, trained a few steps with
FTRL-free SGD (wide) and Adagrad (deep); predictions, losses, variables."""

import os
import tempfile

import numpy as np


def main(tf, out):
    fc = tf.feature_column
    rng = np.random.RandomState(0)
    vocab_dir = tempfile.mkdtemp()
    vocab_path = os.path.join(vocab_dir, "devices.txt")
    with open(vocab_path, "w") as f:
        f.write("phone\ntablet\ndesktop\n")

    features = {
        "hour": tf.placeholder(tf.float32, [None], name="hour"),
        "price": tf.placeholder(tf.float32, [None, 2], name="price"),
        "device": tf.placeholder(tf.string, [None], name="device"),
        "query": tf.sparse_placeholder(tf.string, name="query"),
        "ad_id": tf.placeholder(tf.int64, [None, 1], name="ad_id"),
    }
    label = tf.placeholder(tf.float32, [None, 1], name="label")

    hour = fc.numeric_column("hour", normalizer_fn=lambda x: x / 24.0)
    hour_buckets = fc.bucketized_column(hour, [6.0, 12.0, 18.0])
    price = fc.numeric_column("price", shape=(2,))
    device = fc.categorical_column_with_vocabulary_file("device", vocab_path,
                                                        num_oov_buckets=1)
    query = fc.categorical_column_with_hash_bucket("query", 11)
    ad = fc.categorical_column_with_identity("ad_id", 6, default_value=0)

    query_init = rng.uniform(-0.5, 0.5, (11, 3)).astype(np.float32)
    ad_init = rng.uniform(-0.5, 0.5, (6, 2)).astype(np.float32)
    deep_columns = [
        hour, price, fc.indicator_column(device),
        fc.embedding_column(query, 3, combiner="sqrtn",
                            initializer=tf.constant_initializer(query_init)),
        fc.embedding_column(ad, 2, initializer=tf.constant_initializer(ad_init)),
    ]
    wide_columns = [hour_buckets, device, query, ad]

    deep_in = fc.input_layer(features, deep_columns)
    hidden = tf.layers.dense(deep_in, 4, activation=tf.nn.relu,
                             kernel_initializer=tf.constant_initializer(
                                 rng.uniform(-0.5, 0.5, (12, 4)).astype(np.float32)),
                             name="hidden")
    deep_logit = tf.layers.dense(hidden, 1, kernel_initializer=tf.constant_initializer(
        rng.uniform(-0.5, 0.5, (4, 1)).astype(np.float32)), name="deep_logit")
    wide_logit = fc.linear_model(features, wide_columns)
    logits = wide_logit + deep_logit
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label,
                                                                  logits=logits))
    wide_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, "linear_model")
    deep_vars = [v for v in tf.trainable_variables() if v not in wide_vars]
    train = tf.group(tf.train.GradientDescentOptimizer(0.3).minimize(loss, var_list=wide_vars),
                     tf.train.AdagradOptimizer(0.2).minimize(loss, var_list=deep_vars))

    feed = {
        features["hour"]: np.array([3.0, 9.5, 13.0, 22.0], np.float32),
        features["price"]: np.array([[1.0, 0.5], [2.0, 0.0], [0.5, 1.5], [3.0, 2.0]],
                                    np.float32),
        features["device"]: np.array([b"phone", b"watch", b"desktop", b"phone"]),
        features["query"]: tf.SparseTensorValue(
            [[0, 0], [0, 1], [2, 0], [3, 0], [3, 1], [3, 2]],
            np.array([b"cheap", b"flights", b"hotel", b"cheap", b"hotel", b"rome"]),
            [4, 3]),
        features["ad_id"]: np.array([[1], [4], [9], [2]], np.int64),
        label: np.array([[1.0], [0.0], [1.0], [0.0]], np.float32),
    }
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        out["deep_input"] = sess.run(deep_in, feed)
        losses = []
        for _ in range(5):
            losses.append(sess.run(loss, feed))
            sess.run(train, feed)
        out["losses"] = np.array(losses, np.float32)
        out["probabilities"] = sess.run(tf.sigmoid(logits), feed)
        out["variable_names"] = [v.name for v in tf.global_variables()]
        out["model_variables"] = [v.name for v in tf.model_variables()]
        for v in tf.get_collection(tf.GraphKeys.MODEL_VARIABLES):
            out["value:" + v.name] = sess.run(v)
    os.remove(vocab_path)
    os.rmdir(vocab_dir)
