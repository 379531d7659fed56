"""Feature engineering inside the graph for a time-series regression, with TF's array
manipulation ops: lagged copies by tf.roll, a quantile bucketing by tf.sort + tf.searchsorted,
category counts by tf.unique_with_counts, a calendar grid by tf.meshgrid and tf.repeat,
ranks by tf.argsort, tf.ensure_shape on a fed batch, tf.where_v2 broadcasting, and a linear
model over those features trained with RMSProp."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    length = 24
    series = np.cumsum(rng.normal(size=length)).astype(np.float32)
    categories = rng.randint(0, 4, length).astype(np.int32)

    series_in = tf.placeholder(tf.float32, [None], name="series")
    values = tf.ensure_shape(series_in, [length])
    kinds = tf.placeholder(tf.int32, [length], name="kinds")
    lags = tf.stack([tf.roll(values, shift=k, axis=0) for k in (1, 2, 3)], axis=1)
    edges = tf.sort(values)[::6][1:]
    bucket = tf.searchsorted(edges, values, side="right")
    one_hot_bucket = tf.one_hot(bucket, 4)
    kind_values, kind_index, kind_counts = tf.unique_with_counts(kinds)
    kind_frequency = tf.cast(tf.gather(kind_counts, kind_index), tf.float32) / length
    days, hours = tf.meshgrid(tf.range(4), tf.range(6), indexing="ij")
    calendar = tf.cast(tf.reshape(hours, [-1]), tf.float32) / 6.0
    weekly = tf.repeat(tf.constant([0.0, 1.0, 0.0, 1.0]), 6)
    clipped = tf.where_v2(values > 0.0, values, 0.0)
    features = tf.concat([lags, one_hot_bucket, kind_frequency[:, None], calendar[:, None],
                          weekly[:, None], clipped[:, None]], axis=1)[3:]
    target = values[3:]

    w = tf.Variable(tf.zeros([11, 1]), name="w")
    b = tf.Variable(0.0, name="b")
    prediction = tf.squeeze(tf.matmul(features, w), 1) + b
    loss = tf.reduce_mean(tf.square(prediction - target))
    train_op = tf.train.RMSPropOptimizer(0.05).minimize(loss)
    ranks = tf.argsort(tf.argsort(values, direction="DESCENDING"))

    feed = {series_in: series, kinds: categories}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["features_shape"] = list(sess.run(tf.shape(features), feed))
        out["first_features"] = sess.run(features, feed)[:3]
        out["buckets"] = sess.run(bucket, feed)
        out["kinds"] = sess.run([kind_values, kind_counts], feed)
        out["days_hours"] = sess.run([days, hours])
        out["ranks"] = sess.run(ranks, feed)
        out["losses"] = np.array([sess.run([train_op, loss], feed)[1] for _ in range(10)])
        try:
            sess.run(values, {series_in: series[:5]})
        except tf.errors.InvalidArgumentError:
            out["ensure_shape_error"] = "InvalidArgumentError"
