"""The CIFAR-10 tutorial's inference and loss (TF1's cifar10.py, shrunk): conv, relu,
max pool, local response normalization (tf.nn.lrn with its constants), a second conv,
lrn before the pool, dense layers with weight decay in the 'losses' collection,
exponentially decayed SGD and a moving average of the loss; values and losses."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    images = tf.constant(rng.uniform(0, 1, (4, 12, 12, 3)).astype(np.float32))
    labels = tf.constant(np.array([1, 0, 3, 2], np.int64))

    def weights(name, shape, stddev, wd):
        var = tf.Variable((rng.standard_normal(shape) * stddev).astype(np.float32), name=name)
        if wd:
            tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), wd))
        return var
    conv1 = tf.nn.relu(tf.nn.conv2d(images, weights("w1", (3, 3, 3, 8), 0.2, 0.0),
                                    [1, 1, 1, 1], "SAME") + 0.1)
    pool1 = tf.nn.max_pool(conv1, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
    conv2 = tf.nn.relu(tf.nn.conv2d(norm1, weights("w2", (3, 3, 8, 8), 0.2, 0.0),
                                    [1, 1, 1, 1], "SAME") + 0.1)
    norm2 = tf.nn.local_response_normalization(conv2, 2, bias=2.0, alpha=0.1, beta=0.5)
    pool2 = tf.nn.max_pool(norm2, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    flat = tf.reshape(pool2, [4, -1])
    local3 = tf.nn.relu(tf.matmul(flat, weights("w3", (72, 16), 0.1, 0.004)) + 0.1)
    logits = tf.matmul(local3, weights("w4", (16, 4), 0.1, 0.0))
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))
    tf.add_to_collection("losses", xent)
    total = tf.add_n(tf.get_collection("losses"), name="total_loss")
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.1, step, 2, 0.5, staircase=True)
    averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
    average_op = averages.apply([total])
    with tf.control_dependencies([average_op]):
        train = tf.train.GradientDescentOptimizer(lr).minimize(total, global_step=step)
    norm_grad = tf.gradients(tf.reduce_sum(norm1 * norm1), pool1)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["norms"] = sess.run([norm1, norm2])
        out["norm_grad"] = sess.run(norm_grad)
        out["losses"] = np.array([sess.run([train, total])[1] for _ in range(5)])
        out["average"] = sess.run(averages.average(total))
