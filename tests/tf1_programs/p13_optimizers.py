"""Momentum (plain and Nesterov), Adam with global_step, compute/apply_gradients, slot names."""

import numpy as np


def main(tf, out):
    target = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    weights = np.array([1.0, 4.0, 0.25], dtype=np.float32)
    start = np.array([0.0, 0.0, 3.0], dtype=np.float32)

    def quadratic(name):
        w = tf.Variable(start, name=name)
        return w, tf.reduce_sum(weights * tf.square(w - target))

    w_m, loss_m = quadratic("w_momentum")
    w_n, loss_n = quadratic("w_nesterov")
    w_a, loss_a = quadratic("w_adam")
    w_c, loss_c = quadratic("w_clipped")
    global_step = tf.Variable(0, trainable=False, name="global_step")

    opt_m = tf.train.MomentumOptimizer(0.05, momentum=0.9)
    step_m = opt_m.minimize(loss_m, var_list=[w_m])
    step_n = tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True).minimize(
        loss_n, var_list=[w_n])
    step_a = tf.train.AdamOptimizer(learning_rate=0.1).minimize(
        loss_a, global_step=global_step, var_list=[w_a])

    opt_c = tf.train.GradientDescentOptimizer(0.1)
    grads_and_vars = opt_c.compute_gradients(loss_c, var_list=[w_c])
    clipped = [(tf.clip_by_value(g, -1.0, 1.0), v) for g, v in grads_and_vars]
    step_c = opt_c.apply_gradients(clipped)

    out["grads_and_vars"] = [[g is not None, v.name] for g, v in grads_and_vars]
    out["momentum_slot_names"] = opt_m.get_slot_names()
    out["variable_names"] = sorted(v.name for v in tf.global_variables())
    out["trainable_names"] = sorted(v.name for v in tf.trainable_variables())
    out["global_step_dtype"] = global_step.dtype.base_dtype.name

    try:
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1.0) * 2.0)
        out["no_variables_error"] = "no error"
    except ValueError as e:
        out["no_variables_error"] = type(e).__name__

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        curves = {"momentum": [], "nesterov": [], "adam": [], "clipped": []}
        for step in range(30):
            lm, ln, la, lc = sess.run([loss_m, loss_n, loss_a, loss_c])
            if step % 5 == 0:
                for key, val in zip(curves, (lm, ln, la, lc)):
                    curves[key].append(float(val))
            sess.run([step_m, step_n, step_a, step_c])
        out["loss_curves"] = curves
        out["final"] = sess.run({"momentum": w_m, "nesterov": w_n, "adam": w_a,
                                 "clipped": w_c})
        out["global_step"] = sess.run(global_step)
        out["momentum_slot_value"] = sess.run(opt_m.get_slot(w_m, "momentum"))
        out["first_clipped_grad"] = sess.run(clipped[0][0], {w_c: start})
