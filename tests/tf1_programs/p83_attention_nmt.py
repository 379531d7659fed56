"""An attention NMT model as TF1 tutorials without contrib wrote it, over batches whose
number of time steps is known only when fed (so every RNN is a while loop): a
bidirectional GRU encoder with sequence_length, a decoder stepped by tf.nn.raw_rnn
whose loop_fn reads teacher-forced inputs from a TensorArray and attends (Luong's dot
score) over the encoder's outputs with a padding mask, a loss masked by
tf.sequence_mask, gradients through the while loops clipped by their global norm and
applied with Adam; then a greedy decoder in a tf.while_loop writing its argmax ids into
a TensorArray, stopped by an end token or a length limit."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab, embed, units, batch = 7, 4, 5, 3
    end_token, max_decode = 1, 6
    source_data = rng.randint(2, vocab, (batch, 5)).astype(np.int32)
    source_lengths_data = np.array([5, 3, 4], np.int32)
    target_data = rng.randint(2, vocab, (batch, 4)).astype(np.int32)
    target_lengths_data = np.array([4, 2, 3], np.int32)
    target_data[np.arange(batch), target_lengths_data - 1] = end_token  # each ends with </s>
    counter = [0]

    def init(shape, dtype=None, partition_info=None):
        counter[0] += 1
        values = np.random.RandomState(counter[0]).uniform(-0.5, 0.5, shape)
        return tf.constant(values.astype(np.float32))

    source = tf.placeholder(tf.int32, [None, None], name="source")
    source_lengths = tf.placeholder(tf.int32, [None], name="source_lengths")
    target = tf.placeholder(tf.int32, [None, None], name="target")
    target_lengths = tf.placeholder(tf.int32, [None], name="target_lengths")
    batch_size = tf.shape(source)[0]

    with tf.variable_scope("nmt", initializer=init):
        embedding = tf.get_variable("embedding", [vocab, embed])
        encoder_inputs = tf.nn.embedding_lookup(embedding, source)
        (forward, backward), _ = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.GRUCell(units, kernel_initializer=init, name="fw"),
            tf.nn.rnn_cell.GRUCell(units, kernel_initializer=init, name="bw"),
            encoder_inputs, sequence_length=source_lengths, dtype=tf.float32)
        memory = tf.concat([forward, backward], 2)                 # batch, time, 2 units
        memory_mask = tf.sequence_mask(source_lengths, tf.shape(source)[1])
        decoder_cell = tf.nn.rnn_cell.LSTMCell(2 * units, initializer=init, name="decoder")
        w_out = tf.get_variable("w_out", [4 * units, vocab])

        def attend(queries):
            """Luong's dot attention of [batch, steps, 2 units] queries over the memory:
            (contexts, weights), padding masked out."""
            scores = tf.matmul(queries, memory, transpose_b=True)   # batch, steps, time
            mask = tf.tile(tf.expand_dims(memory_mask, 1), [1, tf.shape(queries)[1], 1])
            weights = tf.nn.softmax(tf.where(mask, scores, tf.fill(tf.shape(scores), -1e9)))
            return tf.matmul(weights, memory), weights

        def logits_of(queries):
            contexts, weights = attend(queries)
            return tf.tensordot(tf.concat([queries, contexts], 2), w_out, 1), weights

        # teacher forcing: the decoder reads <s> (token 0) then the target shifted right
        decoder_inputs = tf.concat([tf.zeros([batch_size, 1], tf.int32), target[:, :-1]], 1)
        inputs_ta = tf.TensorArray(tf.float32, size=tf.shape(target)[1])
        inputs_ta = inputs_ta.unstack(tf.transpose(
            tf.nn.embedding_lookup(embedding, decoder_inputs), [1, 0, 2]))

        def loop_fn(time, cell_output, cell_state, loop_state):
            finished = time >= target_lengths
            next_input = tf.cond(tf.reduce_all(finished),
                                 lambda: tf.zeros([batch_size, embed]),
                                 lambda: inputs_ta.read(time))
            if cell_output is None:
                return (finished, next_input, decoder_cell.zero_state(batch_size, tf.float32),
                        None, None)
            return finished, next_input, cell_state, cell_output, None

        outputs_ta, final_state, _ = tf.nn.raw_rnn(decoder_cell, loop_fn)
        decoder_outputs = tf.transpose(outputs_ta.stack(), [1, 0, 2])   # batch, time, units
        logits, attention = logits_of(decoder_outputs)

    target_mask = tf.sequence_mask(target_lengths, tf.shape(target)[1], dtype=tf.float32)
    crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logits)
    loss = tf.reduce_sum(crossent * target_mask) / tf.to_float(batch_size)
    variables = tf.trainable_variables()
    gradients = tf.gradients(loss, variables)
    clipped, global_norm = tf.clip_by_global_norm(gradients, 1.0)
    train_op = tf.train.AdamOptimizer(0.05).apply_gradients(zip(clipped, variables))

    # greedy decoding: a while_loop feeding back its own argmax, stopped by end tokens
    def decode_step(time, inputs, state, finished, ids_ta):
        output, state = decoder_cell(inputs, state)
        step_logits, _ = logits_of(tf.expand_dims(output, 1))
        ids = tf.where(finished, tf.fill([batch_size], end_token),
                       tf.argmax(step_logits[:, 0], 1, output_type=tf.int32))
        return (time + 1, tf.nn.embedding_lookup(embedding, ids), state,
                finished | tf.equal(ids, end_token), ids_ta.write(time, ids))

    with tf.variable_scope("nmt", reuse=True):
        _, _, _, decoded_finished, ids_ta = tf.while_loop(
            lambda time, inputs, state, finished, ids_ta:
                (time < max_decode) & ~tf.reduce_all(finished),
            decode_step,
            [0, tf.nn.embedding_lookup(embedding, tf.zeros([batch_size], tf.int32)),
             decoder_cell.zero_state(batch_size, tf.float32),
             tf.zeros([batch_size], tf.bool),
             tf.TensorArray(tf.int32, size=0, dynamic_size=True)])
        decoded = tf.transpose(ids_ta.stack())

    out["variables"] = [(v.op.name, v.shape.as_list()) for v in variables]
    out["memory_shape"] = memory.shape.as_list()
    out["logits_shape"] = logits.shape.as_list()
    feed = {source: source_data, source_lengths: source_lengths_data,
            target: target_data, target_lengths: target_lengths_data}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run({"memory": memory, "attention": attention, "logits": logits,
                          "final_c": final_state.c, "global_norm": global_norm,
                          "embedding_grad": tf.convert_to_tensor(gradients[0])}, feed)
        out.update({f"first_{k}": v for k, v in first.items()})
        out["losses"] = np.array([sess.run([train_op, loss], feed)[1] for _ in range(40)])
        out["decoded"], out["decoded_finished"] = sess.run([decoded, decoded_finished], feed)
        # a shorter batch of another length runs the same graph
        short = {source: source_data[:2, :2], source_lengths: [2, 1],
                 target: target_data[:2, :3], target_lengths: [3, 1]}
        out["short_loss"], out["short_logits"] = sess.run([loss, logits], short)
    out["_tol"] = {"losses": {"rtol": 1e-3, "atol": 1e-4}}
