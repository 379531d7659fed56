"""Variable-length sequence input with tf.data, as TF1 NLP scripts build it: a Python
generator through Dataset.from_generator (output_types/output_shapes), filter, map to
(tokens, length), shard, interleave of two sources, zip with labels, padded_batch with
padded_shapes and padding_values, take/skip/cache/prefetch, unbatch, enumerate, take_while
and apply, and an initializable iterator's output_types/output_shapes; then a masked mean-embedding classifier trained on the
padded batches until OutOfRangeError ends each epoch."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    lengths = rng.randint(1, 6, 20)
    sentences = [list(rng.randint(1, 9, n)) for n in lengths]
    labels_data = (np.array([sum(s) for s in sentences]) % 2).astype(np.int64)

    def generate():
        for s in sentences:
            yield np.array(s, np.int32)

    sentences_ds = tf.data.Dataset.from_generator(generate, output_types=tf.int32,
                                                  output_shapes=tf.TensorShape([None]))
    pairs = sentences_ds.map(lambda s: (s, tf.size(s)))
    labels_ds = tf.data.Dataset.from_tensor_slices(labels_data)
    dataset = tf.data.Dataset.zip((pairs, labels_ds)).filter(
        lambda pair, label: pair[1] > 1)
    dataset = dataset.cache().padded_batch(
        4, padded_shapes=(([None], []), []), padding_values=((0, 0), tf.constant(0, tf.int64)))
    dataset = dataset.prefetch(2)
    iterator = dataset.make_initializable_iterator()
    (tokens, length), label = iterator.get_next()

    evens = tf.data.Dataset.range(10).shard(2, 0)
    mixed = tf.data.Dataset.from_tensor_slices([[1, 2], [10, 20]]).interleave(
        lambda pair: tf.data.Dataset.from_tensor_slices(pair).repeat(2), cycle_length=2,
        block_length=1)
    window = tf.data.Dataset.range(10).skip(2).take(5).batch(2, drop_remainder=True)
    rows = (tf.data.Dataset.from_tensor_slices(np.arange(12).reshape(3, 2, 2))
            .unbatch().enumerate(start=5).take_while(lambda i, row: i < 9)
            .apply(lambda d: d.map(lambda i, row: i * 100 + tf.cast(row[1], tf.int64))))

    table = tf.Variable(rng.normal(0, 0.5, (9, 4)).astype(np.float32), name="embedding")
    w = tf.Variable(rng.normal(0, 0.5, (4, 2)).astype(np.float32), name="w")
    mask = tf.sequence_mask(length, tf.shape(tokens)[1], dtype=tf.float32)
    embedded = tf.nn.embedding_lookup(table, tokens) * mask[:, :, None]
    mean = tf.reduce_sum(embedded, 1) / tf.cast(length, tf.float32)[:, None]
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=label, logits=tf.matmul(mean, w)))
    train_op = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

    (token_type, length_type), label_type = dataset.output_types
    out["output_types"] = [token_type.name, length_type.name, label_type.name]
    (token_shape, length_shape), label_shape = dataset.output_shapes
    out["output_shapes"] = [s.as_list() for s in (token_shape, length_shape, label_shape)]

    def drain(sess, t):
        got = []
        iterator_next = tf.data.make_one_shot_iterator(t).get_next()
        while True:
            try:
                got.append(sess.run(iterator_next))
            except tf.errors.OutOfRangeError:
                return got

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(iterator.initializer)
        first_tokens, first_length, first_label = sess.run([tokens, length, label])
        out["first_batch"] = [first_tokens, first_length, first_label]
        losses = []
        for epoch in range(3):
            sess.run(iterator.initializer)
            while True:
                try:
                    losses.append(sess.run([train_op, loss])[1])
                except tf.errors.OutOfRangeError:
                    break
        out["losses"] = np.array(losses)
        out["shard"] = drain(sess, evens)
        out["interleave"] = drain(sess, mixed)
        out["window"] = drain(sess, window)
        out["unbatch_enumerate_take_while"] = drain(sess, rows)
