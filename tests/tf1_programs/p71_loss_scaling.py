"""Mixed-precision training's loss scaling (NVIDIA's TF1 scripts): a dynamic loss scale
that grows after good steps and halves on an overflow while the step is skipped (no
update, no global step, Adam's beta powers held), a fixed one, the optimizer
enable_mixed_precision_graph_rewrite wraps, checkpoints of the loss scale, and the
errors TF raises."""

import os
import tempfile

import numpy as np


def _model(tf, rng):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    y = tf.placeholder(tf.float32, [4, 1], name="y")
    w = tf.Variable((0.5 * rng.standard_normal((3, 1))).astype(np.float32), name="w")
    b = tf.Variable(np.zeros(1, np.float32), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    return x, y, w, b, loss


def main(tf, out):
    rng = np.random.RandomState(0)
    xs = rng.standard_normal((4, 3)).astype(np.float32)
    ys = rng.standard_normal((4, 1)).astype(np.float32)
    bad = xs.copy()
    bad[1, 2] = np.inf                   # its gradient overflows

    # a dynamic scale with Adam: grows every 2 good steps, halves on the overflow
    graph = tf.Graph()
    with graph.as_default():
        x, y, w, b, loss = _model(tf, rng)
        scale = tf.mixed_precision.DynamicLossScale(initial_loss_scale=64.0,
                                                    increment_period=2, multiplier=4.0)
        step = tf.train.get_or_create_global_step()
        opt = tf.mixed_precision.MixedPrecisionLossScaleOptimizer(
            tf.train.AdamOptimizer(0.05), scale)
        train = opt.minimize(loss, global_step=step)
        beta1_power = [v for v in tf.global_variables() if v.op.name.endswith("beta1_power")][0]
        out["dynamic_variables"] = sorted(v.op.name for v in tf.global_variables())
        out["trainable"] = sorted(v.op.name for v in tf.trainable_variables())
        out["optimizer_variables"] = sorted(v.op.name for v in opt.variables())
        out["train_op"] = [train.name, train.type]
        out["config"] = scale.get_config()
        out["repr"] = repr(scale)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            trace = []
            for feed in (xs, xs, bad, xs, xs, bad, bad, xs):
                sess.run(train, {x: feed, y: ys})
                trace.append(sess.run([w, b, scale(), step, beta1_power]))
            out["dynamic_trace"] = trace
            folder = tempfile.mkdtemp()
            path = saver.save(sess, os.path.join(folder, "model"))
            out["checkpoint_scale"] = tf.train.load_variable(path, "current_loss_scale")
            out["checkpoint_good_steps"] = tf.train.load_variable(path, "good_steps")
            for name in os.listdir(folder):
                os.remove(os.path.join(folder, name))
            os.rmdir(folder)

    # the scale never drops below 1; the largest float32 is not multiplied past
    graph = tf.Graph()
    with graph.as_default():
        x, y, w, b, loss = _model(tf, rng)
        low = tf.mixed_precision.DynamicLossScale(initial_loss_scale=2.0,
                                                  increment_period=1, multiplier=4.0)
        train = tf.mixed_precision.MixedPrecisionLossScaleOptimizer(
            tf.train.GradientDescentOptimizer(0.01), low).minimize(loss)
        high = tf.mixed_precision.DynamicLossScale(initial_loss_scale=3e38,
                                                   increment_period=1, multiplier=4.0)
        grow = high.update([tf.constant([1.0])])[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            scales = []
            for feed in (bad, bad, xs):
                sess.run(train, {x: feed, y: ys})
                scales.append(sess.run(low()))
            sess.run(grow)
            out["scale_bounds"] = [scales, sess.run(high())]

    # a fixed scale: the same steps as without one (scaling by 2^k is exact)
    for key, scaling in (("fixed", 128), ("plain", None)):
        graph = tf.Graph()
        with graph.as_default():
            x, y, w, b, loss = _model(tf, np.random.RandomState(1))
            sgd = tf.train.GradientDescentOptimizer(0.1)
            if scaling is not None:
                sgd = tf.train.experimental.MixedPrecisionLossScaleOptimizer(sgd, scaling)
                out["fixed_repr"] = repr(sgd._loss_scale)
                grads = sgd.compute_gradients(loss)
                out["fixed_grad_types"] = [g.op.type for g, _ in grads]
            train = sgd.minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(train, {x: xs, y: ys})
                out[key] = sess.run([w, b])

    # the rewrite's wrapper, with its default dynamic scale
    graph = tf.Graph()
    with graph.as_default():
        x, y, w, b, loss = _model(tf, np.random.RandomState(2))
        opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(
            tf.train.MomentumOptimizer(0.1, 0.9))
        out["rewrite_wrapper"] = [type(opt).__name__, repr(opt._loss_scale), opt.get_name()]
        train = opt.minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for feed in (xs, bad, xs):
                sess.run(train, {x: feed, y: ys})
            out["rewrite_trace"] = sess.run([w, b, opt._loss_scale()])
        errors = []
        for make in (lambda: tf.train.experimental.enable_mixed_precision_graph_rewrite(opt),
                     lambda: tf.mixed_precision.MixedPrecisionLossScaleOptimizer(3, "dynamic"),
                     lambda: tf.mixed_precision.FixedLossScale(0.5),
                     lambda: tf.mixed_precision.MixedPrecisionLossScaleOptimizer(
                         tf.train.GradientDescentOptimizer(0.1), "static"),
                     lambda: tf.mixed_precision.MixedPrecisionLossScaleOptimizer(
                         tf.train.GradientDescentOptimizer(0.1), None)):
            try:
                make()
                errors.append(None)
            except ValueError as e:
                errors.append(str(e).split(".")[0])
        out["errors"] = errors
    tf.train.experimental.disable_mixed_precision_graph_rewrite()
    out["namespaces"] = [tf.mixed_precision.experimental.DynamicLossScale is
                         tf.mixed_precision.DynamicLossScale,
                         tf.train.experimental.FixedLossScale is
                         tf.mixed_precision.FixedLossScale]
