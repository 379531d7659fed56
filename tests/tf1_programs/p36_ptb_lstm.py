"""The PTB language model's training loop (TF1's ptb_word_lm shape): an embedding, two
stacked LSTM layers (MultiRNNCell of BasicLSTMCell with a DropoutWrapper), dynamic_rnn
from a zero state, a softmax over the vocabulary, gradients clipped by their global norm,
SGD with a learning rate held in a variable and changed by assign, and the final state
of one batch fed back as the initial state of the next (LSTMStateTuple feeds)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab, size, steps, batch, layers = 11, 6, 5, 3, 2
    words = rng.randint(0, vocab, (4, batch, steps + 1)).astype(np.int32)

    inputs = tf.placeholder(tf.int32, [batch, steps], name="inputs")
    targets = tf.placeholder(tf.int32, [batch, steps], name="targets")
    init = tf.random_uniform_initializer(-0.1, 0.1, seed=3)
    with tf.variable_scope("Model", initializer=tf.constant_initializer(0.05)):
        embedding = tf.get_variable(
            "embedding", initializer=rng.uniform(-0.1, 0.1, (vocab, size)).astype(np.float32))
        embedded = tf.nn.embedding_lookup(embedding, inputs)

        def make_cell():
            cell = tf.nn.rnn_cell.BasicLSTMCell(size, forget_bias=0.0, state_is_tuple=True)
            return tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=1.0)

        cell = tf.nn.rnn_cell.MultiRNNCell([make_cell() for _ in range(layers)],
                                           state_is_tuple=True)
        initial_state = cell.zero_state(batch, tf.float32)
        outputs, final_state = tf.nn.dynamic_rnn(cell, embedded, initial_state=initial_state)
        output = tf.reshape(outputs, [-1, size])
        softmax_w = tf.get_variable(
            "softmax_w", initializer=rng.uniform(-0.3, 0.3, (size, vocab)).astype(np.float32))
        softmax_b = tf.get_variable("softmax_b", [vocab], dtype=tf.float32)
        logits = tf.reshape(tf.nn.xw_plus_b(output, softmax_w, softmax_b), [batch, steps, vocab])
        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits)
        cost = tf.reduce_sum(tf.reduce_mean(losses, axis=0))

    lr = tf.Variable(0.0, trainable=False, name="lr")
    new_lr = tf.placeholder(tf.float32, [], name="new_learning_rate")
    lr_update = tf.assign(lr, new_lr)
    tvars = tf.trainable_variables()
    grads, global_norm = tf.clip_by_global_norm(tf.gradients(cost, tvars), 0.5)
    optimizer = tf.train.GradientDescentOptimizer(lr)
    train_op = optimizer.apply_gradients(zip(grads, tvars),
                                         global_step=tf.train.get_or_create_global_step())

    out["trainable"] = [v.op.name for v in tvars]
    out["state_structure"] = [type(s).__name__ for s in final_state]
    out["state_shapes"] = [[s.c.shape.as_list(), s.h.shape.as_list()] for s in final_state]
    init_op = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init_op)
        sess.run(lr_update, {new_lr: 1.0})
        state = sess.run(initial_state)
        costs, norms = [], []
        for epoch, decay in enumerate((1.0, 0.5)):
            sess.run(lr_update, {new_lr: decay})
            for b in range(words.shape[0]):
                feed = {inputs: words[b, :, :-1], targets: words[b, :, 1:]}
                for i, (c, h) in enumerate(initial_state):
                    feed[c] = state[i].c
                    feed[h] = state[i].h
                c_, n_, state, _ = sess.run([cost, global_norm, final_state, train_op], feed)
                costs.append(c_)
                norms.append(n_)
        out["costs"] = np.array(costs)
        out["global_norms"] = np.array(norms)
        out["final_state_h"] = state[-1].h
        out["lr"] = sess.run(lr)
        out["global_step"] = int(sess.run(tf.train.get_global_step()))
        out["softmax_b"] = sess.run(softmax_b)
