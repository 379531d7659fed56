"""A one-block causal Transformer language model in TF1 graph style (the shape of the
"attention is all you need" tutorials written for TF1): sinusoidal position encodings,
layer normalisation written out with tf.nn.moments, multi-head self-attention through
reshape/transpose and tf.einsum, a causal mask from tf.linalg.band_part, residual
connections, a feed-forward block of tf.layers.dense, label-smoothed
tf.losses.softmax_cross_entropy, and Adam with the Noam warm-up schedule (rsqrt of the step)
fed through a global step."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab, model, heads, length, batch = 9, 8, 2, 5, 3
    depth = model // heads
    data = rng.randint(0, vocab, (4, batch, length + 1)).astype(np.int32)

    tokens = tf.placeholder(tf.int32, [None, length], name="tokens")
    targets = tf.placeholder(tf.int32, [None, length], name="targets")

    def dense_init(rows, cols):
        return tf.constant_initializer(rng.uniform(-0.4, 0.4, (rows, cols)))

    def layer_norm(x, scope):
        with tf.variable_scope(scope):
            mean, variance = tf.nn.moments(x, axes=[-1], keep_dims=True)
            gain = tf.get_variable("gain", [model], initializer=tf.ones_initializer())
            bias = tf.get_variable("bias", [model], initializer=tf.zeros_initializer())
            return (x - mean) * tf.rsqrt(variance + 1e-6) * gain + bias

    def split_heads(x):
        x = tf.reshape(x, [-1, length, heads, depth])
        return tf.transpose(x, [0, 2, 1, 3])

    positions = np.arange(length)[:, None] / np.power(
        10000.0, 2 * (np.arange(model)[None, :] // 2) / model)
    encoding = tf.constant(np.where(np.arange(model) % 2 == 0, np.sin(positions),
                                    np.cos(positions)).astype(np.float32))

    with tf.variable_scope("transformer"):
        table = tf.get_variable(
            "embedding", initializer=rng.normal(0, 0.5, (vocab, model)).astype(np.float32))
        x = tf.gather(table, tokens) * np.sqrt(model) + encoding
        with tf.variable_scope("attention"):
            h = layer_norm(x, "norm")
            qkv = tf.layers.dense(h, 3 * model, use_bias=False, name="qkv",
                                  kernel_initializer=dense_init(model, 3 * model))
            q, k, v = [split_heads(t) for t in tf.split(qkv, 3, axis=-1)]
            scores = tf.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(depth)
            causal = tf.linalg.band_part(tf.ones([length, length]), -1, 0)
            scores = scores * causal - 1e9 * (1.0 - causal)
            weights = tf.nn.softmax(scores, axis=-1)
            attended = tf.transpose(tf.matmul(weights, v), [0, 2, 1, 3])
            attended = tf.reshape(attended, [-1, length, model])
            x = x + tf.layers.dense(attended, model, name="output",
                                    kernel_initializer=dense_init(model, model))
        with tf.variable_scope("feed_forward"):
            h = layer_norm(x, "norm")
            h = tf.layers.dense(h, 2 * model, activation=tf.nn.relu, name="inner",
                                kernel_initializer=dense_init(model, 2 * model))
            x = x + tf.layers.dense(h, model, name="outer",
                                    kernel_initializer=dense_init(2 * model, model))
        logits = tf.matmul(tf.reshape(layer_norm(x, "final_norm"), [-1, model]), table,
                           transpose_b=True)
    labels = tf.one_hot(tf.reshape(targets, [-1]), vocab)
    loss = tf.losses.softmax_cross_entropy(labels, logits, label_smoothing=0.1)

    global_step = tf.train.get_or_create_global_step()
    step = tf.cast(global_step + 1, tf.float32)
    rate = 0.5 * model ** -0.5 * tf.minimum(tf.rsqrt(step), step * 3.0 ** -1.5)
    train_op = tf.train.AdamOptimizer(rate, beta1=0.9, beta2=0.98, epsilon=1e-9).minimize(
        loss, global_step=global_step)

    out["trainable"] = [(v.op.name, v.shape.as_list()) for v in tf.trainable_variables()]
    out["losses_collection"] = len(tf.get_collection(tf.GraphKeys.LOSSES))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["attention_weights"] = sess.run(weights, {tokens: data[0, :, :-1]})
        losses, rates = [], []
        for i in range(8):
            batch_data = data[i % 4]
            _, l, r = sess.run([train_op, loss, rate],
                               {tokens: batch_data[:, :-1], targets: batch_data[:, 1:]})
            losses.append(l)
            rates.append(r)
        out["losses"] = np.array(losses)
        out["rates"] = np.array(rates)
        out["global_step"] = sess.run(global_step)
        out["embedding"] = sess.run(table)
