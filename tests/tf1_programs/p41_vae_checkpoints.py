"""A variational autoencoder's training with checkpoints along the way: encoder to a
mean and a log-variance, the reparameterization with the noise fed, sigmoid cross
entropy reconstruction plus the KL term, Adam; a Saver that keeps the last two
checkpoints (max_to_keep) saved with global_step, then a fresh graph restoring the
latest one and decoding from it, and restoring an older one by its path."""

import os
import tempfile

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, data_dim, hidden, latent = 5, 6, 5, 2
    data = (rng.uniform(0, 1, (batch, data_dim)) > 0.5).astype(np.float32)
    eps = rng.standard_normal((6, batch, latent)).astype(np.float32)
    weights = {name: rng.standard_normal(shape).astype(np.float32) * 0.3 for name, shape in
               [("enc", (data_dim, hidden)), ("mu", (hidden, latent)),
                ("logvar", (hidden, latent)), ("dec", (latent, data_dim))]}
    ckpt_dir = tempfile.mkdtemp()

    def build():
        x = tf.placeholder(tf.float32, [None, data_dim], name="x")
        noise = tf.placeholder(tf.float32, [None, latent], name="noise")
        v = {k: tf.Variable(w, name=k) for k, w in weights.items()}
        h = tf.nn.softplus(tf.matmul(x, v["enc"]))
        mu, logvar = tf.matmul(h, v["mu"]), tf.matmul(h, v["logvar"])
        z = mu + tf.exp(0.5 * logvar) * noise
        logits = tf.matmul(z, v["dec"])
        recon = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits), 1)
        kl = -0.5 * tf.reduce_sum(1 + logvar - tf.square(mu) - tf.exp(logvar), 1)
        loss = tf.reduce_mean(recon + kl)
        step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
        decoded = tf.sigmoid(tf.matmul(noise, v["dec"]))
        return x, noise, loss, step, train, decoded

    with tf.Graph().as_default():
        x, noise, loss, step, train, decoded = build()
        saver = tf.train.Saver(max_to_keep=2)
        losses, paths = [], []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(6):
                losses.append(sess.run([train, loss], {x: data, noise: eps[i]})[1])
                if i % 2 == 1:
                    paths.append(saver.save(sess, os.path.join(ckpt_dir, "vae"),
                                            global_step=step))
            out["decoded_at_end"] = sess.run(decoded, {noise: eps[0]})
        out["losses"] = np.array(losses)
        out["saved_as"] = [os.path.basename(p) for p in paths]
        out["kept"] = [os.path.basename(p) for p in
                       tf.train.get_checkpoint_state(ckpt_dir).all_model_checkpoint_paths]
    with tf.Graph().as_default():
        x, noise, loss, step, train, decoded = build()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(ckpt_dir))
            out["restored_step"] = int(sess.run(step))
            out["decoded_restored"] = sess.run(decoded, {noise: eps[0]})
            saver.restore(sess, paths[1])
            out["older_step"] = int(sess.run(step))
            try:
                saver.restore(sess, paths[0])
                out["oldest_restore_fails"] = False
            except (tf.errors.NotFoundError, ValueError):    # TF: ValueError; API.md: NotFound
                out["oldest_restore_fails"] = True
    for name in os.listdir(ckpt_dir):
        os.remove(os.path.join(ckpt_dir, name))
    os.rmdir(ckpt_dir)
