"""A TF1 input pipeline as tutorials write it: tf.data slices of numpy arrays mapped,
filtered, batched and repeated, read by a one-shot iterator until OutOfRangeError; an
initializable iterator fed through placeholders and restarted; a reinitializable
iterator switching between a training and a validation dataset; padded_batch, zip and
concatenate; and a linear model trained from batches.  Shuffled orders are recorded only as order-free statistics
(TensorFlow's shuffle RNG is its own)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    features = rng.standard_normal((10, 3)).astype(np.float32)
    labels = np.arange(10, dtype=np.int64)

    dataset = tf.data.Dataset.from_tensor_slices((features, labels))
    dataset = dataset.map(lambda x, y: (x * 2.0, y + 1)).filter(lambda x, y: y % 3 != 0)
    dataset = dataset.batch(4).repeat(2)
    out["output_types"] = [t.name for t in dataset.output_types]
    out["output_shapes"] = [s.as_list() for s in dataset.output_shapes]
    x, y = dataset.make_one_shot_iterator().get_next()
    out["get_next_shapes"] = [x.shape.as_list(), y.shape.as_list()]
    batches = []
    with tf.Session() as sess:
        while True:
            try:
                batches.append(sess.run([x, y]))
            except tf.errors.OutOfRangeError:
                break
    out["batch_sizes"] = [len(b[1]) for b in batches]
    out["labels"] = np.concatenate([b[1] for b in batches])
    out["features"] = np.concatenate([b[0] for b in batches])

    source = tf.placeholder(tf.float32, [None, 3], name="source")
    scale = tf.placeholder(tf.float32, [], name="scale")
    fed = tf.data.Dataset.from_tensor_slices(source).map(lambda row: row * scale)
    fed_iterator = fed.shuffle(4, seed=7).batch(3, drop_remainder=True).make_initializable_iterator()
    fed_next = fed_iterator.get_next()
    out["fed_shape"] = fed_next.shape.as_list()
    with tf.Session() as sess:
        sums = []
        for rows, k in ((6, 1.0), (8, 10.0)):      # 8 rows: batches of 3 drop the last 2
            sess.run(fed_iterator.initializer, {source: features[:rows], scale: k})
            epoch = []
            while True:
                try:
                    epoch.append(sess.run(fed_next))
                except tf.errors.OutOfRangeError:
                    break
            sums.append([len(epoch), float(np.sum(epoch)) if rows == 6 else None])
        out["fed_epochs"] = sums

    train = tf.data.Dataset.from_tensor_slices(features[:8]).batch(4)
    valid = tf.data.Dataset.from_tensor_slices(features[8:]).batch(4)
    switch = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    use_train, use_valid = switch.make_initializer(train), switch.make_initializer(valid)
    rows = switch.get_next()
    with tf.Session() as sess:
        sess.run(use_valid)
        out["valid_first"] = sess.run(rows)
        sess.run(use_train)
        out["train_first"] = sess.run(rows)

    numbers = tf.data.Dataset.range(1, 6)
    ragged = numbers.map(lambda n: tf.fill(tf.reshape(tf.cast(n, tf.int32), [1]), n))
    padded = ragged.padded_batch(2, padded_shapes=[None], padding_values=tf.constant(-1, tf.int64))
    pairs_of = tf.data.Dataset.zip((numbers, tf.data.Dataset.from_tensor_slices(labels[:3])))
    chained = numbers.take(2).concatenate(tf.data.Dataset.range(40, 42))
    out["padded_shapes"] = padded.output_shapes.as_list()
    with tf.Session() as sess:
        for key, dataset in (("padded", padded), ("zipped", pairs_of), ("chained", chained)):
            value = tf.data.make_one_shot_iterator(dataset).get_next()
            got = []
            while True:
                try:
                    got.append(sess.run(value))
                except tf.errors.OutOfRangeError:
                    break
            out[key] = [list(g) if isinstance(g, tuple) else g for g in got]

    w_true = np.array([[1.5], [-2.0], [0.5]], np.float32)
    targets = features @ w_true + 0.25
    pairs = tf.data.Dataset.from_tensor_slices((features, targets)).batch(5).repeat(30)
    bx, by = tf.data.make_one_shot_iterator(pairs).get_next()
    w = tf.Variable(tf.zeros([3, 1]), name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(bx, w) + b - by))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        while True:
            try:
                losses.append(sess.run([step, loss])[1])
            except tf.errors.OutOfRangeError:
                break
        out["weights"] = sess.run([w, b])
    out["steps"] = len(losses)
    out["losses_every_10"] = np.array(losses[::10])
