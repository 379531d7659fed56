"""A GAN's training loop as TF1 tutorials write it: generator and discriminator built
by functions under variable scopes, the discriminator called twice (reuse through
tf.AUTO_REUSE), each network's variables picked by scope from the trainable collection,
two Adam optimizers each minimizing its loss over its own var_list, sigmoid cross
entropy against ones_like / zeros_like, leaky ReLU, and the noise fed (not drawn)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    noise_dim, data_dim, hidden, batch = 3, 4, 8, 6
    real = rng.standard_normal((5, batch, data_dim)).astype(np.float32) * 0.5 + 1.0
    noise = rng.uniform(-1, 1, (5, batch, noise_dim)).astype(np.float32)

    def dense(x, units, name):
        w = tf.get_variable(name + "_w", initializer=rng.standard_normal(
            (x.shape.as_list()[1], units)).astype(np.float32) * 0.3)
        b = tf.get_variable(name + "_b", [units], initializer=tf.zeros_initializer())
        return tf.matmul(x, w) + b

    def generator(z):
        with tf.variable_scope("generator"):
            h = tf.nn.leaky_relu(dense(z, hidden, "h"), alpha=0.2)
            return dense(h, data_dim, "out")

    def discriminator(x):
        with tf.variable_scope("discriminator", reuse=tf.AUTO_REUSE):
            h = tf.nn.leaky_relu(dense(x, hidden, "h"), alpha=0.2)
            return dense(h, 1, "out")

    x = tf.placeholder(tf.float32, [None, data_dim], name="x")
    z = tf.placeholder(tf.float32, [None, noise_dim], name="z")
    fake = generator(z)
    d_real, d_fake = discriminator(x), discriminator(fake)
    xent = tf.nn.sigmoid_cross_entropy_with_logits
    d_loss = tf.reduce_mean(xent(logits=d_real, labels=tf.ones_like(d_real))) + \
        tf.reduce_mean(xent(logits=d_fake, labels=tf.zeros_like(d_fake)))
    g_loss = tf.reduce_mean(xent(logits=d_fake, labels=tf.ones_like(d_fake)))
    tvars = tf.trainable_variables()
    d_vars = [v for v in tvars if v.name.startswith("discriminator/")]
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="generator")
    d_train = tf.train.AdamOptimizer(0.01, beta1=0.5).minimize(d_loss, var_list=d_vars)
    g_train = tf.train.AdamOptimizer(0.02, beta1=0.5).minimize(g_loss, var_list=g_vars)

    out["d_vars"] = [v.name for v in d_vars]
    out["g_vars"] = [v.name for v in g_vars]
    out["all_variables"] = sorted(v.op.name for v in tf.global_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        d_losses, g_losses = [], []
        for step in range(5):
            feed = {x: real[step], z: noise[step]}
            d_losses.append(sess.run([d_train, d_loss], feed)[1])
            g_losses.append(sess.run([g_train, g_loss], {z: noise[step]})[1])
        out["d_losses"] = np.array(d_losses)
        out["g_losses"] = np.array(g_losses)
        out["samples"] = sess.run(fake, {z: noise[0]})
        out["generator_out_w"] = sess.run(g_vars[2])
