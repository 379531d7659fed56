"""Gradients through nested control flow, as TF1 models with data-dependent computation
wrote them (adaptive computation, iterative refinement, beam-like loops): a while_loop
whose body holds a cond and an inner while_loop, loop-invariant variables read in the
body, maximum_iterations, shape_invariants for a growing tensor, a TensorArray written in
the loop and read back in a second loop, tf.case and tf.switch_case with the index
computed in the loop, back_prop=False stopping gradients, and a training step through
it all with the gradients checked against a float64 numpy reimplementation."""

import numpy as np


def _numpy_forward(x, w, v, steps):
    """The loop of ``main`` in float64 numpy: (final state, the states written)."""
    state, written = x.copy(), []
    for i in range(steps):
        pre = state @ w
        state = np.tanh(pre) if pre.sum() > 0 else 0.5 * pre
        inner = state.copy()
        for _ in range(i + 1):
            inner = inner * v
        state = state + 0.1 * inner
        written.append(state)
    return state, written


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(2, 3)).astype(np.float32)
    w_init = rng.normal(0, 0.6, (3, 3)).astype(np.float32)
    v_init = rng.uniform(0.5, 1.0, 3).astype(np.float32)
    steps = 4

    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(w_init, name="w")
    v = tf.Variable(v_init, name="v")

    def body(i, state, ta):
        pre = tf.matmul(state, w)
        state = tf.cond(tf.reduce_sum(pre) > 0, lambda: tf.tanh(pre), lambda: 0.5 * pre)
        _, inner = tf.while_loop(lambda j, s: j < i + 1, lambda j, s: (j + 1, s * v),
                                 [0, state])
        state = state + 0.1 * inner
        return i + 1, state, ta.write(i, state)

    _, final, states_ta = tf.while_loop(
        lambda i, state, ta: i < steps, body,
        [0, x, tf.TensorArray(tf.float32, size=steps, clear_after_read=False)])
    states = states_ta.stack()                                   # steps, batch, 3

    # a second loop reading the TensorArray back, with a growing tensor
    def grow(k, acc):
        row = tf.reduce_sum(states_ta.read(k), 0, keepdims=True)
        return k + 1, tf.concat([acc, row], 0)
    _, grown = tf.while_loop(lambda k, acc: k < steps, grow,
                             [0, tf.zeros([0, 3])],
                             shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3])])

    # maximum_iterations stops a loop whose condition never fails
    _, capped = tf.while_loop(lambda n, s: True, lambda n, s: [n + 1, s * 1.5],
                              [0, tf.reduce_sum(final)], maximum_iterations=3)
    # a loop kept out of the gradients
    _, frozen = tf.while_loop(lambda n, s: n < 2, lambda n, s: (n + 1, s * w[0, 0]),
                              [0, tf.reduce_sum(final)], back_prop=False)

    branch = tf.cast(tf.reduce_sum(final) > 0, tf.int32) + tf.cast(
        tf.reduce_max(final) > 0.5, tf.int32)
    cased = tf.case([(tf.equal(branch, 0), lambda: tf.reduce_sum(final * 2.0)),
                     (tf.equal(branch, 1), lambda: tf.reduce_sum(tf.square(final)))],
                    default=lambda: tf.reduce_sum(tf.abs(final)), exclusive=True)
    switched = tf.switch_case(branch, [lambda: tf.reduce_mean(final),
                                       lambda: tf.reduce_max(final),
                                       lambda: tf.reduce_min(final)])

    loss = tf.reduce_sum(tf.square(final)) + tf.reduce_mean(grown) + 0.1 * cased \
        + 0.01 * capped
    grads = tf.gradients(loss, [w, v, x])
    frozen_grad = tf.gradients(frozen, [w])[0]
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: x_data}
        got = sess.run({"final": final, "states": states, "grown": grown, "capped": capped,
                        "frozen": frozen, "branch": branch, "cased": cased,
                        "switched": switched, "loss": loss}, feed)
        out.update(got)
        gw, gv, gx = sess.run(grads, feed)
        out["grad_w"], out["grad_v"], out["grad_x"] = gw, gv, gx
        out["frozen_grad_is_none"] = frozen_grad is None
        out["losses"] = np.array([sess.run([train, loss], feed)[1] for _ in range(5)])
        out["shapes"] = [grown.shape.as_list(), states.shape.as_list()]

    # the recorded values and gradients against numpy in float64 (a central difference
    # of the loss in w's first element: the loop's gradient is TF's own)
    final64, written = _numpy_forward(x_data.astype(np.float64), w_init.astype(np.float64),
                                      v_init.astype(np.float64), steps)
    out["numpy_final_close"] = bool(np.allclose(final64, got["final"], atol=1e-5))
    out["numpy_states_close"] = bool(np.allclose(np.stack(written), got["states"], atol=1e-5))
