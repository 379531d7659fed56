"""tf.nn.moments + tf.nn.batch_normalization with learned offset/scale, and their gradients."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch = (rng.standard_normal((16, 5)) * np.array([1.0, 2.0, 0.5, 3.0, 1.0])
             + np.array([0.0, 5.0, -2.0, 1.0, 10.0])).astype(np.float32)
    images = rng.uniform(0, 1, (4, 3, 3, 2)).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 5])
    mean, var = tf.nn.moments(x, axes=[0])
    mean_k, var_k = tf.nn.moments(x, axes=[0], keep_dims=True)
    gamma = tf.Variable(tf.ones([5]), name="gamma")
    beta = tf.Variable(tf.zeros([5]), name="beta")
    normed = tf.nn.batch_normalization(x, mean, var, offset=beta, scale=gamma,
                                       variance_epsilon=1e-3)
    plain = tf.nn.batch_normalization(x, mean, var, None, None, 1e-3)
    # regress the normalised batch onto a fixed per-row target: gamma and beta both matter
    target = tf.constant((np.linspace(-1.0, 1.0, 16)[:, None] * np.array([1.0, -2.0, 0.5, 0.0, 3.0])
                          + np.array([0.5, 0.0, -1.0, 2.0, 0.0])).astype(np.float32))
    loss = tf.reduce_mean(tf.square(normed - target))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    d_gamma, d_beta, d_x = tf.gradients(loss, [gamma, beta, x])

    img = tf.placeholder(tf.float32, [None, 3, 3, 2])
    m_img, v_img = tf.nn.moments(img, axes=[0, 1, 2])
    img_normed = tf.nn.batch_normalization(img, m_img, v_img, 0.5, 2.0, 1e-5)

    out["static_shapes"] = [mean.shape.as_list(), mean_k.shape.as_list(),
                            normed.shape.as_list(), m_img.shape.as_list()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: batch}
        out["mean"], out["var"] = sess.run([mean, var], feed)
        out["mean_keep_dims"] = sess.run(mean_k, feed)
        n = sess.run(normed, feed)
        out["normed_col_means"] = n.mean(axis=0)
        out["normed_col_stds"] = n.std(axis=0)
        out["normed_row0"] = n[0]
        out["plain_equals_normed_initially"] = bool(np.allclose(sess.run(plain, feed), n,
                                                                atol=1e-6))
        out["d_gamma"], out["d_beta"] = sess.run([d_gamma, d_beta], feed)
        out["d_x_row0"] = sess.run(d_x, feed)[0]
        for _ in range(20):
            sess.run(train, feed)
        out["gamma_after"], out["beta_after"] = sess.run([gamma, beta])
        out["loss_after"] = float(sess.run(loss, feed))
        out["img_mean_var"] = sess.run([m_img, v_img], {img: images})
        out["img_normed_pixel0"] = sess.run(img_normed, {img: images})[0, 0, 0]
