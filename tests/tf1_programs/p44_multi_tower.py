"""The TF1 multi-GPU training pattern of cifar10_multi_gpu_train.py, on a machine with no
GPU (allow_soft_placement puts the towers on the CPU): variables pinned to /cpu:0 by a
device function, one tower per "/gpu:N" under tf.name_scope('tower_N') reusing the
variables (variable_scope reuse after the first tower), tf.add_to_collection('losses')
with weight decay, per-tower gradients averaged with expand_dims/concat/reduce_mean,
Momentum with Nesterov, a learning rate from piecewise_constant, and
tf.train.ExponentialMovingAverage of the losses for reporting."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    towers, batch, features, hidden, classes = 2, 4, 6, 5, 3
    images = rng.normal(size=(5, towers * batch, features)).astype(np.float32)
    labels = rng.randint(0, classes, (5, towers * batch)).astype(np.int32)

    def variable_on_cpu(name, value, wd=None):
        with tf.device("/cpu:0"):
            var = tf.get_variable(name, initializer=value.astype(np.float32))
        if wd is not None:
            tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), wd,
                                                       name="weight_loss"))
        return var

    def inference(x):
        with tf.variable_scope("hidden"):
            w = variable_on_cpu("weights", rng.normal(0, 0.5, (features, hidden)), wd=0.01)
            b = variable_on_cpu("biases", np.full(hidden, 0.1))
            h = tf.nn.relu(tf.matmul(x, w) + b, name="activation")
        with tf.variable_scope("softmax_linear"):
            w = variable_on_cpu("weights", rng.normal(0, 0.5, (hidden, classes)), wd=0.0)
            b = variable_on_cpu("biases", np.zeros(classes))
            return tf.add(tf.matmul(h, w), b, name="logits")

    def tower_loss(scope, x, y):
        logits = inference(x)
        xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits), name="cross_entropy")
        tf.add_to_collection("losses", xent)
        losses = tf.get_collection("losses", scope)
        return tf.add_n(losses, name="total_loss")

    def average_gradients(tower_grads):
        averaged = []
        for grad_and_vars in zip(*tower_grads):
            grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
            grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
            averaged.append((grad, grad_and_vars[0][1]))
        return averaged

    x_all = tf.placeholder(tf.float32, [towers * batch, features], name="images")
    y_all = tf.placeholder(tf.int32, [towers * batch], name="labels")
    with tf.device("/cpu:0"):
        global_step = tf.train.get_or_create_global_step()
        rate = tf.train.piecewise_constant(global_step, [2, 4], [0.1, 0.05, 0.01])
        optimizer = tf.train.MomentumOptimizer(rate, 0.9, use_nesterov=True)
        x_split = tf.split(x_all, towers)
        y_split = tf.split(y_all, towers)
        tower_grads, tower_losses = [], []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(towers):
                with tf.device("/gpu:%d" % i):
                    with tf.name_scope("tower_%d" % i) as scope:
                        loss = tower_loss(scope, x_split[i], y_split[i])
                        tf.get_variable_scope().reuse_variables()
                        tower_grads.append(optimizer.compute_gradients(loss))
                        tower_losses.append(loss)
        grads = average_gradients(tower_grads)
        apply_op = optimizer.apply_gradients(grads, global_step=global_step)
        averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
        with tf.control_dependencies([apply_op]):
            train_op = averages.apply(tower_losses)

    out["variables"] = [v.op.name for v in tf.global_variables()]
    out["tower_loss_names"] = [l.op.name for l in tower_losses]
    out["losses_in_collection"] = len(tf.get_collection("losses"))
    out["tower0_losses"] = len(tf.get_collection("losses", "tower_0"))
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        history = []
        for step in range(5):
            _, l0, l1, lr = sess.run([train_op] + tower_losses + [rate],
                                     {x_all: images[step], y_all: labels[step]})
            history.append([l0, l1, lr])
        out["history"] = np.array(history)
        out["averaged_losses"] = np.array(sess.run([averages.average(l) for l in tower_losses]))
        out["weights"] = sess.run(tf.trainable_variables())
        out["step"] = sess.run(global_step)
