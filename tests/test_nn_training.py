"""End to end: ``ds.gradients`` and the optimizers through the nn ops.

A small convnet learns a synthetic task in every session type; the gradient of a whole
conv/pool/loss graph agrees with finite differences of the same session's forward pass;
the v1 cross entropy passes no gradient to its labels, as TF1's."""

from __future__ import annotations

import numpy as np

import devsession as ds
from kernel_cases import rng_for


def bars(rng, n):
    """8x8 images with a bright vertical (class 0) or horizontal (class 1) bar."""
    images = rng.uniform(0, 0.3, (n, 8, 8, 1)).astype(np.float32)
    labels = rng.integers(0, 2, n).astype(np.int32)
    for image, label, at in zip(images, labels, rng.integers(1, 7, n)):
        if label == 0:
            image[:, at, 0] += 1.0
        else:
            image[at, :, 0] += 1.0
    return images, labels


def test_a_small_convnet_learns(make_session):
    rng = rng_for("learns")
    images, labels = bars(rng, 32)
    x = ds.placeholder(ds.float32, (None, 8, 8, 1))
    y = ds.placeholder(ds.int32, (None,))
    k1 = ds.Variable((rng.standard_normal((3, 3, 1, 4)) * 0.3).astype(np.float32))
    b1 = ds.Variable(np.zeros(4, np.float32))
    k2 = ds.Variable((rng.standard_normal((3, 3, 4, 4)) * 0.3).astype(np.float32))
    w = ds.Variable((rng.standard_normal((16, 2)) * 0.3).astype(np.float32))
    h = ds.nn.relu(ds.nn.bias_add(ds.nn.conv2d(x, k1, 1, "SAME"), b1))
    h = ds.nn.max_pool(h, 2, 2, "SAME")                                          # 4x4x4
    h = ds.nn.elu(ds.nn.conv2d(h, k2, strides=2, padding="SAME"))                # 2x2x4
    logits = ds.matmul(ds.reshape(h, (-1, 16)), w)
    loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    loss = loss + 1e-4 * ds.nn.l2_loss(k1)
    train = ds.train.AdamOptimizer(0.05).minimize(loss)
    correct = ds.reduce_mean(ds.cast(ds.equal(ds.cast(ds.argmax(logits, 1), ds.int32), y),
                                     ds.float32))
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    feed = {x: images, y: labels}
    first = sess.run(loss, feed)
    for _ in range(60):
        sess.run(train, feed)
    last, accuracy = sess.run([loss, correct], feed)
    assert last < 0.2 * first, (first, last)
    assert accuracy == 1.0


def test_whole_graph_gradient_matches_finite_differences():
    rng = rng_for("whole")
    images = rng.standard_normal((2, 6, 6, 2))
    labels = np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]])
    kernel = rng.standard_normal((3, 3, 2, 3)) * 0.5
    x = ds.placeholder(ds.float64, (2, 6, 6, 2))
    k = ds.placeholder(ds.float64, (3, 3, 2, 3))
    h = ds.nn.avg_pool(ds.nn.leaky_relu(ds.nn.conv2d(x, k, 1, "SAME")), 3, 3, "VALID")  # 2x2x3
    logits = ds.reduce_mean(h, axis=[1, 2])
    loss = ds.reduce_sum(ds.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                    logits=logits))
    loss = loss + ds.nn.l2_loss(ds.nn.log_softmax(logits)) * 0.1
    dx, dk = ds.gradients(loss, [x, k])
    with ds.Session() as sess:
        got_dx, got_dk = sess.run([dx, dk], {x: images, k: kernel})

        def f(imgs, kern):
            return sess.run(loss, {x: imgs, k: kern})

        eps = 1e-6
        for value, got, which in ((images, got_dx, 0), (kernel, got_dk, 1)):
            numeric = np.zeros(value.shape)
            for i in range(value.size):
                plus, minus = value.copy(), value.copy()
                plus.reshape(-1)[i] += eps
                minus.reshape(-1)[i] -= eps
                args = [(plus, kernel), (minus, kernel)] if which == 0 else \
                    [(images, plus), (images, minus)]
                numeric.reshape(-1)[i] = (f(*args[0]) - f(*args[1])) / (2 * eps)
            np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-8)


def test_v1_cross_entropy_stops_the_gradient_to_labels():
    logits = ds.placeholder(ds.float32, (2, 3))
    labels = ds.placeholder(ds.float32, (2, 3))
    v1 = ds.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    v2 = ds.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    assert ds.gradients(v1, [labels])[0] is None
    assert ds.gradients(v2, [labels])[0] is not None
    assert ds.gradients(v1, [logits])[0] is not None


def test_gradients_with_an_unknown_batch():
    x = ds.placeholder(ds.float32, (None, 6, 6, 1))
    k = ds.Variable(np.ones((3, 3, 1, 2), np.float32))
    h = ds.nn.max_pool(ds.nn.conv2d(x, k, 1, "SAME"), 2, 2, "VALID")       # V2 backprops
    y = ds.reduce_sum(ds.nn.avg_pool(h, 2, 1, "SAME"))                      # a Shape op
    dx, dk = ds.gradients(y, [x, k])
    assert dx.shape == (None, 6, 6, 1) and dk.shape == (3, 3, 1, 2)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for batch in (1, 3):
            got = sess.run(dx, {x: np.ones((batch, 6, 6, 1), np.float32)})
            assert got.shape == (batch, 6, 6, 1)


def test_dropout_of_a_batch_of_unknown_size_trains(make_session):
    # the Deep MNIST tutorial's `tf.nn.dropout(h_fc1, keep_prob)` on a (None, n) tensor
    x = ds.placeholder(ds.float32, (None, 400))
    keep = ds.placeholder(ds.float32, ())
    w = ds.Variable(np.ones((400, 1), np.float32), name="w")
    dropped = ds.nn.dropout(x, keep_prob=keep, seed=5)
    rows = ds.nn.dropout(x, rate=0.5, noise_shape=[None, 1], seed=6)   # whole rows
    loss = ds.reduce_sum(ds.matmul(dropped, w))
    grad, = ds.gradients(loss, [w])
    assert dropped.shape.as_list() == [None, 400] and rows.shape.as_list() == [None, 400]
    sess = make_session()
    sess.run(w.initializer)
    feed = {x: np.ones((3, 400), np.float32), keep: 0.5}
    out, g, whole = sess.run([dropped, grad, rows], feed)
    assert out.shape == (3, 400) and set(np.unique(out)) <= {0.0, 2.0}
    assert 0.4 < (out != 0).mean() < 0.6
    np.testing.assert_allclose(g[:, 0], out.sum(axis=0))
    assert all(len(set(row)) == 1 for row in whole)          # each row kept or dropped
    assert sess.run(dropped, {x: np.ones((5, 400), np.float32), keep: 0.5}).shape == (5, 400)


def test_the_deep_mnist_tutorial_runs_as_written(make_session):
    """TF1's "Deep MNIST for experts", its graph code verbatim: ``keep_prob`` is a
    placeholder of no shape, so the logits' rank comes only from dropout keeping its
    input's shape (TF1 sets it), and the v1 cross entropy takes them."""
    tf = ds

    def weight_variable(shape):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1))

    def bias_variable(shape):
        return tf.Variable(tf.constant(0.1, shape=shape))

    def conv2d(x, W):
        return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME')

    def max_pool_2x2(x):
        return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')

    x = tf.placeholder(tf.float32, shape=[None, 784])
    y_ = tf.placeholder(tf.float32, shape=[None, 10])
    x_image = tf.reshape(x, [-1, 28, 28, 1])
    W_conv1, b_conv1 = weight_variable([5, 5, 1, 32]), bias_variable([32])
    h_pool1 = max_pool_2x2(tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1))
    W_conv2, b_conv2 = weight_variable([5, 5, 32, 64]), bias_variable([64])
    h_pool2 = max_pool_2x2(tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))
    W_fc1, b_fc1 = weight_variable([7 * 7 * 64, 1024]), bias_variable([1024])
    h_fc1 = tf.nn.relu(tf.matmul(tf.reshape(h_pool2, [-1, 7 * 7 * 64]), W_fc1) + b_fc1)
    keep_prob = tf.placeholder(tf.float32)
    h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
    W_fc2, b_fc2 = weight_variable([1024, 10]), bias_variable([10])
    y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2
    cross_entropy = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv))
    train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy)
    correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    assert h_fc1_drop.shape.as_list() == [None, 1024] and y_conv.shape.as_list() == [None, 10]

    rng = rng_for("deep mnist")
    labels = np.arange(8) % 10
    images = rng.uniform(0, 0.2, (8, 784)).astype(np.float32)
    images[np.arange(8), labels * 70] = 1.0
    feed = {x: images, y_: np.eye(10, dtype=np.float32)[labels]}
    sess = make_session()
    sess.run(tf.global_variables_initializer())
    before = sess.run(cross_entropy, {**feed, keep_prob: 1.0})
    for _ in range(3):
        sess.run(train_step, {**feed, keep_prob: 0.5})
    after, acc = sess.run([cross_entropy, accuracy], {**feed, keep_prob: 1.0})
    assert after < before and 0.0 <= acc <= 1.0


def test_moments_reads_its_input_twice_not_three_times():
    # the mean, then the squared differences from it; the squeezed mean reuses the mean
    x = ds.placeholder(ds.float32, (None, 3, 4))
    mean, variance = ds.nn.moments(x, axes=[0, 1])
    readers = sorted(op.type for op in x.consumers())
    assert readers == ["Mean", "SquaredDifference"]
    assert mean.shape.as_list() == [4] and variance.shape.as_list() == [4]
