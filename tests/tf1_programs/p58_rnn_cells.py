"""The RNN cell zoo of TF1 sequence models: LSTMCell with peepholes, a projection and cell
clipping, GRUCell, MultiRNNCell stacking them with a ResidualWrapper and a DropoutWrapper
(keep_prob 1), static_rnn over a list of steps and dynamic_rnn time-major with
sequence_length and a fed initial state, the state structures and their shapes, and the
gradient of a loss on the last outputs, applied with Adagrad."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, steps, depth, units = 3, 4, 5, 6
    inputs_data = rng.normal(size=(steps, batch, depth)).astype(np.float32)
    lengths_data = np.array([4, 2, 3], np.int32)
    counter = [0]

    def init(shape, dtype=None, partition_info=None):
        counter[0] += 1
        values = np.random.RandomState(counter[0]).uniform(-0.3, 0.3, shape)
        return tf.constant(values.astype(np.float32))

    inputs = tf.placeholder(tf.float32, [steps, None, depth], name="inputs")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    with tf.variable_scope("stack", initializer=init):
        lstm = tf.nn.rnn_cell.LSTMCell(units, use_peepholes=True, num_proj=depth,
                                       cell_clip=1.0, initializer=init)
        gru = tf.nn.rnn_cell.GRUCell(depth, kernel_initializer=init)
        cell = tf.nn.rnn_cell.MultiRNNCell([
            tf.nn.rnn_cell.DropoutWrapper(lstm, output_keep_prob=1.0),
            tf.nn.rnn_cell.ResidualWrapper(gru)])
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths,
                                           time_major=True, dtype=tf.float32)
    with tf.variable_scope("static", initializer=init):
        static_cell = tf.nn.rnn_cell.BasicRNNCell(units)
        initial = tf.placeholder(tf.float32, [None, units], name="initial")
        static_outputs, static_state = tf.nn.static_rnn(
            static_cell, tf.unstack(inputs, axis=0), initial_state=initial)
    loss = tf.reduce_mean(tf.square(outputs[-1])) + tf.reduce_mean(static_state)
    train_op = tf.train.AdagradOptimizer(0.5).minimize(loss)

    out["variables"] = [(v.op.name, v.shape.as_list()) for v in tf.trainable_variables()]
    out["lstm_states"] = [isinstance(s, tf.nn.rnn_cell.LSTMStateTuple) for s in state]
    out["lstm_state_shapes"] = [state[0].c.shape.as_list(), state[0].h.shape.as_list()]
    out["static_outputs"] = len(static_outputs)
    feed = {inputs: inputs_data, lengths: lengths_data,
            initial: rng.normal(size=(batch, units)).astype(np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first_outputs, first_state = sess.run([outputs, state], feed)
        out["outputs"] = first_outputs
        out["lstm_c"] = first_state[0].c
        out["gru_h"] = first_state[1]
        out["static_state"] = sess.run(static_state, feed)
        out["losses"] = np.array([sess.run([train_op, loss], feed)[1] for _ in range(4)])
