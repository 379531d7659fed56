"""A tiny sequence-to-sequence model with the loops TF1 code writes by hand: an encoder
run with tf.scan, a decoder trained with teacher forcing through tf.map_fn over time, and
greedy decoding in a tf.while_loop that writes each step's token into a tf.TensorArray
(stack, and the loop's final state), tf.foldl for a running sum, and the gradient of the
training loss through scan and map_fn applied with RMSProp."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab, units, src_len, tgt_len, batch = 7, 5, 4, 3, 2
    source = rng.randint(1, vocab, (batch, src_len)).astype(np.int32)
    target = rng.randint(1, vocab, (batch, tgt_len)).astype(np.int32)

    def weight(name, shape):
        return tf.get_variable(name, initializer=rng.uniform(-0.5, 0.5, shape).astype(
            np.float32))

    embedding = weight("embedding", (vocab, units))
    w_enc, w_dec, w_out = (weight("w_enc", (2 * units, units)),
                           weight("w_dec", (2 * units, units)), weight("w_out", (units, vocab)))

    def cell(w):
        return lambda h, x: tf.tanh(tf.matmul(tf.concat([h, x], 1), w))

    src = tf.placeholder(tf.int32, [batch, src_len], name="source")
    tgt = tf.placeholder(tf.int32, [batch, tgt_len], name="target")
    src_time_major = tf.transpose(tf.nn.embedding_lookup(embedding, src), [1, 0, 2])
    encoder_states = tf.scan(cell(w_enc), src_time_major,
                             initializer=tf.zeros([batch, units]))
    context = encoder_states[-1]

    go = tf.zeros([batch], tf.int32)
    decoder_inputs = tf.concat([go[:, None], tgt[:, :-1]], 1)
    inputs_time_major = tf.transpose(tf.nn.embedding_lookup(embedding, decoder_inputs),
                                     [1, 0, 2])
    decoder_states = tf.scan(cell(w_dec), inputs_time_major, initializer=context)
    logits = tf.map_fn(lambda h: tf.matmul(h, w_out), decoder_states)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.transpose(tgt), logits=logits))
    train_op = tf.train.RMSPropOptimizer(0.05, decay=0.9, momentum=0.5).minimize(loss)

    def decode_step(t, h, token, tokens):
        h = cell(w_dec)(h, tf.nn.embedding_lookup(embedding, token))
        token = tf.argmax(tf.matmul(h, w_out), axis=1, output_type=tf.int32)
        return t + 1, h, token, tokens.write(t, token)

    _, final_h, _, decoded = tf.while_loop(
        lambda t, *_: t < tgt_len, decode_step,
        [tf.constant(0), context, go, tf.TensorArray(tf.int32, size=tgt_len)])
    greedy = tf.transpose(decoded.stack())
    total = tf.foldl(lambda acc, x: acc + x, tf.range(1, 5), initializer=10)

    out["encoder_states_shape"] = encoder_states.shape.as_list()
    out["logits_shape"] = logits.shape.as_list()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {src: source, tgt: target}
        out["before"] = sess.run(greedy, feed)
        losses = [sess.run([train_op, loss], feed)[1] for _ in range(12)]
        out["losses"] = np.array(losses)
        out["after"] = sess.run(greedy, feed)
        out["final_h"] = sess.run(final_h, feed)
        out["foldl"] = sess.run(total)
        out["target"] = target
