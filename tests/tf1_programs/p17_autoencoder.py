"""An 8-3-8 sigmoid autoencoder on one-hot codes, trained with Adam."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    data = np.eye(8, dtype=np.float32)
    enc_w = (0.5 * rng.standard_normal((8, 3))).astype(np.float32)
    dec_w = (0.5 * rng.standard_normal((3, 8))).astype(np.float32)

    # 200 Adam steps: compare the trained values a little more loosely than one-step values
    out["_tol"] = {k: {"rtol": 1e-3, "atol": 1e-4}
                   for k in ("loss_every_20_steps", "final_loss", "codes", "recon_diag")}
    x = tf.placeholder(tf.float32, [None, 8])
    with tf.variable_scope("encoder"):
        we = tf.get_variable("w", initializer=enc_w)
        be = tf.get_variable("b", shape=[3], initializer=tf.zeros_initializer())
        code = tf.sigmoid(tf.matmul(x, we) + be)
    with tf.variable_scope("decoder"):
        wd = tf.get_variable("w", initializer=dec_w)
        bd = tf.get_variable("b", shape=[8], initializer=tf.zeros_initializer())
        recon = tf.nn.sigmoid(tf.matmul(code, wd) + bd)
    loss = tf.reduce_mean(tf.reduce_sum(tf.square(recon - x), axis=1))
    step = tf.train.AdamOptimizer(0.05).minimize(loss)

    out["variable_names"] = [v.name for v in tf.trainable_variables()]
    out["code_static_shape"] = code.shape.as_list()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        curve = []
        for i in range(200):
            _, lv = sess.run([step, loss], {x: data})
            if i % 20 == 0:
                curve.append(float(lv))
        out["loss_every_20_steps"] = curve
        out["final_loss"] = float(sess.run(loss, {x: data}))
        out["codes"] = sess.run(code, {x: data})
        recon_v = sess.run(recon, {x: data})
        out["recon_diag"] = np.diag(recon_v)
