"""A small capsule network (Sabour et al. 2017, "Dynamic Routing Between Capsules") as TF1
code wrote it: a conv2d + ReLU, primary capsules as a second conv reshaped to
[batch, caps, dim] and squashed (tf.norm with keepdims and an epsilon), prediction vectors
u_hat by tf.tile/tf.expand_dims and a tf.matmul with a 5-D weight (and the same by
tf.einsum, also with an ellipsis), dynamic routing by agreement for 3 iterations as a
Python loop with tf.stop_gradient on u_hat in the inner iterations (the reference code's
trick) and again as a tf.while_loop carrying the logits b (the agreement a 5-D matmul
with transpose_a; gradients flow through the loop), tf.nn.softmax over axis 2 (also
spelled dim=2, and of the reference code's 5-D b), the margin loss on one_hot labels,
masking by the true label for a small reconstruction decoder (tf.layers.dense, sigmoid,
squared errors scaled by 0.0005) and by the predicted class at test time, Adam for a few
steps; and the edges a user hits: tf.norm's ord values and axis tuples, tf.einsum
equation errors, softmax over an axis out of range, axis and dim (keepdims and
keep_dims) given together, the squash of an all-zero vector with and without the
epsilon (and its gradient)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, size, classes = 4, 12, 3
    types, caps_dim, out_dim = 4, 4, 6
    images = rng.uniform(0, 1, (batch, size, size, 1)).astype(np.float32)
    labels = np.int32([0, 2, 1, 2])
    n_caps = 4 * 4 * types                    # 12 -3-> 10 -3/2-> 4: a 4x4 grid of capsules

    x = tf.placeholder(tf.float32, [None, size, size, 1], name="images")
    y = tf.placeholder(tf.int32, [None], name="labels")
    k1 = tf.Variable(rng.normal(0, 0.3, (3, 3, 1, 8)).astype(np.float32), name="conv1")
    k2 = tf.Variable(rng.normal(0, 0.2, (3, 3, 8, types * caps_dim)).astype(np.float32),
                     name="primary_caps")
    w = tf.Variable(rng.normal(0, 0.1, (1, n_caps, classes, out_dim, caps_dim))
                    .astype(np.float32), name="W")

    def squash(s, axis=-1, epsilon=1e-9):
        norm = tf.norm(s, axis=axis, keepdims=True)
        return tf.square(norm) / (1.0 + tf.square(norm)) * s / (norm + epsilon)

    conv1 = tf.nn.relu(tf.nn.conv2d(x, k1, [1, 1, 1, 1], "VALID"))
    primary = tf.nn.conv2d(conv1, k2, [1, 2, 2, 1], "VALID")
    u = squash(tf.reshape(primary, [-1, n_caps, caps_dim]))
    n = tf.shape(x)[0]
    u_tiled = tf.tile(tf.expand_dims(tf.expand_dims(u, 2), -1), [1, 1, classes, 1, 1])
    u_hat = tf.squeeze(tf.matmul(tf.tile(w, [n, 1, 1, 1, 1]), u_tiled), [-1])
    u_hat_einsum = tf.einsum("bid,ijkd->bijk", u, w[0])
    u_hat_ellipsis = tf.einsum("...d,...kod->...ko", u, w[0])
    u_hat_stopped = tf.stop_gradient(u_hat, name="stop_gradient")

    b = tf.zeros([n, n_caps, classes])
    for r in range(3):
        c = tf.nn.softmax(b, axis=2)
        if r < 2:
            v = squash(tf.reduce_sum(c[..., None] * u_hat_stopped, 1))
            b = b + tf.reduce_sum(u_hat_stopped * v[:, None], -1)
        else:
            v = squash(tf.reduce_sum(c[..., None] * u_hat, 1))
    coupling = c

    def routing_body(i, logits):
        v_loop = squash(tf.reduce_sum(tf.nn.softmax(logits, dim=2)[..., None] * u_hat, 1))
        v_tiled = tf.tile(v_loop[:, None, :, :, None], [1, n_caps, 1, 1, 1])
        agreement = tf.matmul(u_hat[..., None], v_tiled, transpose_a=True)   # [b, i, j, 1, 1]
        return i + 1, logits + agreement[..., 0, 0]
    _, b_loop = tf.while_loop(lambda i, logits: i < 2, routing_body,
                              [tf.constant(0), tf.zeros([n, n_caps, classes])])
    v_while = squash(tf.reduce_sum(tf.nn.softmax(b_loop, axis=2)[..., None] * u_hat, 1))

    def margin_loss(v_caps):
        lengths = tf.sqrt(tf.reduce_sum(tf.square(v_caps), -1) + 1e-9)
        t = tf.one_hot(y, classes)
        per_class = (t * tf.square(tf.maximum(0.0, 0.9 - lengths)) +
                     0.5 * (1.0 - t) * tf.square(tf.maximum(0.0, lengths - 0.1)))
        return tf.reduce_mean(tf.reduce_sum(per_class, 1)), lengths
    margin, lengths = margin_loss(v)
    margin_while, lengths_while = margin_loss(v_while)

    masked = tf.reshape(v * tf.one_hot(y, classes)[..., None], [-1, classes * out_dim])
    hidden = tf.layers.dense(masked, 16, tf.nn.relu, kernel_initializer=tf.constant_initializer(
        rng.normal(0, 0.3, (classes * out_dim, 16)).astype(np.float32)), name="decoder1")
    recon = tf.layers.dense(hidden, size * size, tf.sigmoid,
                            kernel_initializer=tf.constant_initializer(
                                rng.normal(0, 0.3, (16, size * size)).astype(np.float32)),
                            name="decoder2")
    squared = tf.reduce_sum(tf.square(recon - tf.reshape(x, [-1, size * size])), 1)
    recon_loss = 0.0005 * tf.reduce_mean(squared)
    loss = margin + recon_loss
    grads = tf.gradients(loss, [w, k2, k1])
    while_grads = tf.gradients(margin_while, [w, k2])
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)

    out["static_shapes"] = [t.shape.as_list() for t in [u, u_tiled, u_hat, u_hat_einsum, v,
                                                         b_loop, lengths, masked, recon]]
    feed = {x: images, y: labels}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run({"u_hat": u_hat, "u_hat_einsum": u_hat_einsum, "c": coupling,
                        "lengths": lengths, "lengths_while": lengths_while, "margin": margin,
                        "margin_while": margin_while, "recon_loss": recon_loss}, feed)
        matmul_u_hat, ellipsis = got.pop("u_hat"), sess.run(u_hat_ellipsis, feed)
        out["einsum_matches_matmul"] = [bool(np.allclose(matmul_u_hat, other, atol=1e-6))
                                        for other in (got.pop("u_hat_einsum"), ellipsis)]
        out.update({"step0_" + key: value for key, value in got.items()})
        out["step0_grads"] = sess.run(grads, feed)
        out["step0_while_grads"] = sess.run(while_grads, feed)
        history = []
        for _ in range(5):
            history.append(sess.run([train_op, margin, recon_loss], feed)[1:])
        out["history"] = np.array(history)
        # at test time the decoder is masked by the predicted class, not the label
        predicted = tf.argmax(lengths, 1)
        paper_b = tf.reshape(b_loop, [-1, n_caps, classes, 1, 1])     # the reference's b_IJ
        out["final_lengths"], out["predictions"], out["paper_c"] = sess.run(
            [lengths, predicted, tf.nn.softmax(paper_b, axis=2)[0, :3, :, 0, 0]], feed)
        out["masked_by_prediction"] = sess.run(tf.norm(
            v * tf.one_hot(predicted, classes)[..., None], axis=(1, 2), keep_dims=True), feed)

        m = tf.constant([[3.0, -4.0], [1.0, 2.0]])
        out["norms"] = sess.run([tf.norm(m), tf.norm(m, ord=1), tf.norm(m, ord=np.inf),
                                 tf.norm(m, ord=3.0, axis=1), tf.norm(m, axis=[0, 1]),
                                 tf.norm(m, ord="fro", axis=(0, 1), keepdims=True),
                                 tf.norm(m, ord=1, axis=(0, 1)),
                                 tf.norm(m, ord=np.inf, axis=(-2, -1)),
                                 tf.norm(m, ord="euclidean", axis=0, keepdims=True)])
        zero = tf.placeholder(tf.float32, [1, 3])
        zero_norm = tf.norm(zero, axis=-1, keepdims=True)
        zero_squash = sess.run([squash(zero), squash(zero, epsilon=0.0),
                                tf.gradients(tf.reduce_sum(squash(zero)), zero)[0],
                                tf.gradients(zero_norm, zero)[0]],
                               {zero: np.zeros((1, 3), np.float32)})
        out["zero_squash"] = [np.isnan(z).tolist() for z in zero_squash]
        out["zero_squash_values"] = [np.nan_to_num(z) for z in zero_squash]
    for name, build in [
            ("norm_ord0_error", lambda: tf.norm(m, ord=0)),
            ("norm_matrix_ord3_error", lambda: tf.norm(m, ord=3, axis=(0, 1))),
            ("norm_axis_error", lambda: tf.norm(m, axis=[0, 1, 2])),
            ("einsum_operands_error", lambda: tf.einsum("bid,ijkd->bijk", u)),
            ("einsum_dims_error", lambda: tf.einsum("bid,ijd->bij", u, w[0])),
            ("einsum_output_error", lambda: tf.einsum("ij,jk->iz", m, m)),
            ("softmax_axis_error", lambda: tf.nn.softmax(tf.zeros([2, 3, 4]), axis=3)),
            ("softmax_dim_error", lambda: tf.nn.softmax(tf.zeros([2, 3]), dim=-3)),
            ("softmax_axis_and_dim_error", lambda: tf.nn.softmax(m, axis=1, dim=1)),
            ("norm_keepdims_twice_error", lambda: tf.norm(m, axis=1, keepdims=True,
                                                          keep_dims=True))]:
        try:
            build()
            out[name] = None
        except (ValueError, TypeError, IndexError, tf.errors.OpError) as error:
            out[name] = type(error).__name__
    out["_tol"] = {**dict.fromkeys(["step0_grads", "step0_while_grads"],
                                   {"rtol": 1e-3, "atol": 1e-6}),
                   "history": {"rtol": 1e-3, "atol": 1e-6},
                   "final_lengths": {"rtol": 1e-3, "atol": 1e-6}}
