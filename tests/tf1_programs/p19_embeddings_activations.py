"""embedding_lookup + one_hot, clip_by_value, leaky_relu/elu/softplus/log_softmax, a sparse update."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    table_init = rng.standard_normal((8, 4)).astype(np.float32)

    ids = tf.placeholder(tf.int32, [None, 3], name="ids")
    table = tf.Variable(table_init, name="embeddings")
    emb = tf.nn.embedding_lookup(table, ids)                      # [batch, 3, 4]
    pooled = tf.reduce_mean(emb, axis=1)                          # [batch, 4]
    gathered = tf.gather(table, [5, 0, 5])
    gathered_axis1 = tf.gather(table, [3, 1], axis=1)

    labels = tf.placeholder(tf.int32, [None])
    oh = tf.one_hot(labels, depth=4)
    oh_custom = tf.one_hot(labels, depth=4, on_value=5, off_value=-1, axis=0)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=oh,
                                                                     logits=pooled))
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

    a = tf.constant([-3.0, -0.5, 0.0, 0.5, 3.0])
    acts = {
        "clip": tf.clip_by_value(a, -1.0, 2.0),
        "clip_int": tf.clip_by_value(tf.constant([-5, 0, 5]), -2, 2),
        "leaky_relu_default": tf.nn.leaky_relu(a),
        "leaky_relu_0_1": tf.nn.leaky_relu(a, alpha=0.1),
        "elu": tf.nn.elu(a),
        "softplus": tf.nn.softplus(a),
        "log_softmax": tf.nn.log_softmax(tf.reshape(a, [1, 5])),
        "relu6_via_clip": tf.clip_by_value(tf.nn.relu(a * 4.0), 0.0, 6.0),
    }
    d_acts = tf.gradients(tf.reduce_sum(tf.nn.leaky_relu(a) + tf.nn.elu(a) + tf.nn.softplus(a)
                                        + tf.clip_by_value(a, -1.0, 2.0)), a)[0]

    out["emb_static_shape"] = emb.shape.as_list()
    out["one_hot_dtypes"] = [oh.dtype.name, oh_custom.dtype.name]
    feed = {ids: np.array([[0, 1, 2], [3, 3, 5], [4, 0, 0]], np.int32),
            labels: np.array([1, 3, 0], np.int32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["pooled"] = sess.run(pooled, feed)
        out["gathered"] = sess.run(gathered)
        out["gathered_axis1"] = sess.run(gathered_axis1)
        out["one_hot"] = sess.run(oh, feed)
        out["one_hot_custom"] = sess.run(oh_custom, feed)
        out["one_hot_out_of_range_row_is_zero"] = sess.run(tf.one_hot([7, -1, 2], 3))
        curve = []
        for _ in range(10):
            _, lv = sess.run([train, loss], feed)
            curve.append(float(lv))
        out["loss_curve"] = curve
        after = sess.run(table)
        out["unlooked_up_rows_unchanged"] = bool(np.array_equal(after[6:], table_init[6:]))
        out["table_after"] = after
        vals = sess.run(acts)
        for k in acts:
            out[k] = vals[k]
        out["activation_grads"] = sess.run(d_acts)
        try:
            sess.run(tf.gather(table, [8]))
            out["gather_out_of_range"] = "no error"
        except tf.errors.InvalidArgumentError as e:
            out["gather_out_of_range"] = type(e).__name__
