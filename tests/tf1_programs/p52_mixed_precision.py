"""Mixed-precision training as TF1 scripts wrote it by hand before tf.train.experimental:
float32 master weights cast to tf.half for the forward pass (a custom getter on the variable
scope, the NVIDIA OpenSeq2Seq pattern), the loss computed in float32, a static loss scale
multiplied in and divided out of the gradients, tf.is_finite over all gradients deciding by
tf.cond whether to apply them, and tf.double for a float64 metric."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    # float16 products round where TF's and devsession's kernels order sums differently
    out["_tol"] = {k: {"rtol": 2e-3, "atol": 1e-3} for k in ("losses", "w2")}
    x_data = rng.normal(size=(16, 4)).astype(np.float16)
    y_data = rng.randint(0, 3, 16).astype(np.int32)

    def float32_master(getter, name, *args, **kwargs):
        var = getter(name, *args, **kwargs)
        return tf.cast(var, tf.half) if var.dtype.base_dtype == tf.float32 else var

    x = tf.placeholder(tf.half, [None, 4], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    with tf.variable_scope("model", custom_getter=float32_master):
        w1 = tf.get_variable("w1", initializer=rng.normal(0, 0.5, (4, 8)).astype(np.float32))
        b1 = tf.get_variable("b1", [8], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", initializer=rng.normal(0, 0.5, (8, 3)).astype(np.float32))
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(hidden, w2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=tf.cast(logits, tf.float32)))
    scale = 128.0
    variables = tf.trainable_variables()
    grads = tf.gradients(loss * scale, variables)
    grads = [tf.cast(g, tf.float32) / scale for g in grads]
    finite = tf.reduce_all([tf.reduce_all(tf.is_finite(g)) for g in grads])
    optimizer = tf.train.MomentumOptimizer(0.1, 0.9)
    train_op = tf.cond(finite,
                       lambda: tf.group(optimizer.apply_gradients(zip(grads, variables))),
                       tf.no_op)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y),
                                      tf.double))

    out["variable_dtypes"] = [v.dtype.base_dtype.name for v in variables]
    out["logits_dtype"] = logits.dtype.name
    out["grad_dtypes"] = [g.dtype.name for g in grads]
    out["accuracy_dtype"] = accuracy.dtype.name
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(8):
            sess.run(train_op, {x: x_data, y: y_data})
            losses.append(sess.run(loss, {x: x_data, y: y_data}))
        out["losses"] = np.array(losses)
        out["w2"] = sess.run(variables[2])
        out["accuracy"] = sess.run(accuracy, {x: x_data, y: y_data})
        out["finite"] = sess.run(finite, {x: x_data, y: y_data})
