"""Meta-learning with second derivatives, as TF1 research code (cbfinn/maml) wrote it: a
tiny conv layer and an MLP whose weights are a dict of variables, an inner loop of SGD
steps built with tf.gradients (fast weights = w - alpha * grad), the meta-loss on query
data through the adapted weights, tf.map_fn over a batch of tasks and an outer Adam step,
so second derivatives flow through conv2d, bias_add, relu, tanh, matmul and the softmax
cross-entropies; first-order MAML (tf.stop_gradient on the inner gradients) beside it;
Hessian-vector products by double tf.gradients with grad_ys, tf.hessians, the gradient of
a gradient norm, sparse softmax cross-entropy's second derivative (TF 2.21 has one); and
the second derivatives TF gives no value for (a map_fn gradient's: TypeError; LRN's:
LookupError; ctc_loss's: PreventGradient's LookupError; resize_bilinear's: None)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    tasks, shots, classes, side = 3, 4, 3, 4
    inputa = rng.normal(size=(tasks, shots, side, side, 1)).astype(np.float32)
    inputb = rng.normal(size=(tasks, shots, side, side, 1)).astype(np.float32)
    labela = np.eye(classes, dtype=np.float32)[rng.randint(0, classes, (tasks, shots))]
    labelb = np.eye(classes, dtype=np.float32)[rng.randint(0, classes, (tasks, shots))]

    weights = {
        "conv1": tf.Variable(rng.normal(0, 0.5, (3, 3, 1, 2)).astype(np.float32), name="conv1"),
        "b_conv": tf.Variable(np.zeros(2, np.float32), name="b_conv"),
        "w1": tf.Variable(rng.normal(0, 0.3, (side * side * 2, 8)).astype(np.float32),
                          name="w1"),
        "b1": tf.Variable(np.zeros(8, np.float32), name="b1"),
        "w2": tf.Variable(rng.normal(0, 0.5, (8, classes)).astype(np.float32), name="w2"),
        "b2": tf.Variable(np.zeros(classes, np.float32), name="b2"),
    }
    keys = sorted(weights)

    def forward(inp, w):
        conv = tf.nn.conv2d(inp, w["conv1"], [1, 1, 1, 1], "SAME")
        hidden = tf.nn.relu(tf.nn.bias_add(conv, w["b_conv"]))
        flat = tf.reshape(hidden, [-1, side * side * 2])
        hidden = tf.tanh(tf.matmul(flat, w["w1"]) + w["b1"])
        return tf.matmul(hidden, w["w2"]) + w["b2"]

    def xent(logits, label, v1=False):
        if v1:
            return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
                labels=label, logits=logits))
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=label, logits=logits))

    def task_metalearn(first_order, inner_steps):
        def learn(inp):
            ina, la, inb, lb = inp
            fast = dict(weights)
            lossa = xent(forward(ina, fast), la)
            for step in range(inner_steps):
                loss = xent(forward(ina, fast), la, v1=step % 2 == 1)
                grads = dict(zip(keys, tf.gradients(loss, [fast[k] for k in keys])))
                if first_order:
                    grads = {k: tf.stop_gradient(g) for k, g in grads.items()}
                fast = {k: fast[k] - 0.4 * grads[k] for k in keys}
            lossb = xent(forward(inb, fast), lb)
            return lossa, lossb, tf.stack([tf.reduce_sum(tf.square(fast["w2"])),
                                           tf.reduce_sum(fast["conv1"])])
        return learn

    a_in = tf.placeholder(tf.float32, [tasks, shots, side, side, 1], name="inputa")
    b_in = tf.placeholder(tf.float32, [tasks, shots, side, side, 1], name="inputb")
    a_lab = tf.placeholder(tf.float32, [tasks, shots, classes], name="labela")
    b_lab = tf.placeholder(tf.float32, [tasks, shots, classes], name="labelb")
    elems = (a_in, a_lab, b_in, b_lab)
    lossesa, lossesb, fast_sums = tf.map_fn(task_metalearn(False, 2), elems,
                                            dtype=(tf.float32, tf.float32, tf.float32))
    _, fo_lossesb, _ = tf.map_fn(task_metalearn(True, 2), elems,
                                 dtype=(tf.float32, tf.float32, tf.float32))
    meta_loss = tf.reduce_mean(lossesb)
    fo_meta_loss = tf.reduce_mean(fo_lossesb)
    meta_grads = tf.gradients(meta_loss, [weights[k] for k in keys])
    fo_grads = tf.gradients(fo_meta_loss, [weights[k] for k in keys])
    optimizer = tf.train.AdamOptimizer(0.01)
    gvs = optimizer.compute_gradients(meta_loss, [weights[k] for k in keys])
    train_op = optimizer.apply_gradients([(tf.clip_by_value(g, -10, 10), v) for g, v in gvs])

    # the same second-order MAML, three inner steps, unrolled over two tasks in Python
    unrolled = [task_metalearn(False, 3)((a_in[t], a_lab[t], b_in[t], b_lab[t]))[1]
                for t in range(2)]
    unrolled_grad = tf.gradients(tf.add_n(unrolled) / 2.0, weights["w1"])[0]

    # Hessian-vector products, tf.hessians, the gradient of a gradient norm
    pre_loss = xent(forward(a_in[0], weights), a_lab[0])
    g_w2 = tf.gradients(pre_loss, weights["w2"])[0]
    probe = tf.constant(rng.normal(size=(8, classes)).astype(np.float32))
    hvp = tf.gradients(g_w2, weights["w2"], grad_ys=probe)[0]
    hvp_conv = tf.gradients(g_w2, weights["conv1"], grad_ys=probe)[0]
    small = tf.Variable(rng.normal(size=4).astype(np.float32), name="small")
    small_loss = tf.reduce_sum(tf.tanh(small) ** 2) + tf.reduce_prod(small)
    (hessian,) = tf.hessians(small_loss, small)
    grad_norm = tf.global_norm(tf.gradients(pre_loss, [weights[k] for k in keys]))
    grad_of_norm = tf.gradients(grad_norm, [weights["w2"], weights["b_conv"]])

    # sparse labels: TF 2.21 gives sparse softmax cross-entropy a second derivative
    logits_a = forward(tf.reshape(a_in, [-1, side, side, 1]), weights)
    sparse = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.argmax(tf.reshape(a_lab, [-1, classes]), 1), logits=logits_a))
    sparse_g = tf.gradients(sparse, weights["w2"])[0]
    sparse_hvp = tf.gradients(sparse_g, weights["w2"], grad_ys=probe)[0]

    errors = {}
    # a loop's gradient differentiated again from outside (an HVP through map_fn): TF1's
    # while loops raise TypeError (gradients inside the body, as MAML's, are fine)
    with tf.Graph().as_default():
        scale = tf.Variable([1.5, -0.5], name="scale")
        mapped = tf.map_fn(lambda row: tf.reduce_sum(tf.tanh(row * scale)), tf.ones([3, 2]))
        map_g = tf.gradients(tf.reduce_sum(mapped), scale)[0]
        try:
            tf.gradients(map_g, scale, grad_ys=tf.ones([2]))
            out["map_fn_second_order"] = "built"
        except TypeError as e:
            out["map_fn_second_order"] = [type(e).__name__, "while loops" in str(e)]
    images = tf.constant(rng.normal(size=(1, 3, 3, 4)).astype(np.float32))
    normed = tf.nn.lrn(images * small[0], 2)
    try:
        tf.gradients(tf.reduce_sum(tf.gradients(tf.reduce_sum(normed ** 2), small)[0]), small)
    except LookupError as e:
        errors["lrn"] = [type(e).__name__, "LRNGrad" in str(e)]
    seq_logits = tf.reshape(tf.tile(small, [12]), [4, 3, 4])
    ctc = tf.reduce_sum(tf.nn.ctc_loss(
        tf.SparseTensor([[0, 0], [1, 0], [2, 1]], [1, 2, 1], [3, 2]), seq_logits, [4, 4, 4]))
    try:
        tf.gradients(tf.gradients(ctc, small)[0], small)
    except LookupError as e:
        errors["ctc"] = [type(e).__name__, str(e).startswith("Gradient explicitly disabled")]
    resized = tf.image.resize_bilinear(images * small[1], [5, 5])
    resize_g = tf.gradients(tf.reduce_sum(resized ** 2), small)[0]
    errors["resize_second"] = tf.gradients(resize_g, small)[0] is None
    out["errors"] = errors

    feed = {a_in: inputa, b_in: inputb, a_lab: labela, b_lab: labelb}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first, fo = sess.run([meta_grads, fo_grads], feed)
        out["meta_grads"] = dict(zip(keys, first))
        out["first_order_grads"] = dict(zip(keys, fo))
        out["second_order_differs"] = bool(
            max(np.abs(s - f).max() for s, f in zip(first, fo)) > 1e-4)
        out["unrolled_grad"] = sess.run(unrolled_grad, feed)
        out["hvp"], out["hvp_conv"], out["hessian"] = sess.run([hvp, hvp_conv, hessian], feed)
        out["grad_of_norm"] = sess.run(grad_of_norm, feed)
        out["sparse_hvp"] = sess.run(sparse_hvp, feed)
        history, checksums = [], []
        for _ in range(5):
            _, la, lb, sums = sess.run([train_op, lossesa, lossesb, fast_sums], feed)
            history.append(np.concatenate([la, lb]))
            checksums.append(sums)
        out["history"] = np.array(history)
        out["adapted_checksums"] = np.array(checksums)
        out["final_meta_loss"] = sess.run(meta_loss, feed)
        final = sess.run([weights[k] for k in keys])
        out["final_w2"] = final[keys.index("w2")]
        out["weight_sums"] = np.array([np.abs(w).sum() for w in final])
