"""A multi-task model trained with the whole tf.losses module, as TF1 scripts used it: a
shared trunk (tf.layers.dense with an l2 kernel_regularizer) feeding a classification head
(softmax_cross_entropy with label_smoothing and [batch] / [batch, 1] weights,
sparse_softmax_cross_entropy with [batch, 1] labels), a regression head (mean_squared_error,
absolute_difference, huber_loss with delta), a multi-label head (sigmoid_cross_entropy with
label_smoothing and weights broadcast over the labels, log_loss with epsilon, hinge_loss)
and a metric-embedding head (cosine_distance by axis and by the deprecated dim,
mean_pairwise_squared_error); every loss under every tf.losses.Reduction, with weights that
hold zeros and weights that are all zero; loss_collection (the default, None, a custom
one), add_loss, get_losses(scope=...), the regularization losses and get_total_loss,
compute_weighted_loss; an uncertainty-weighted total (exp(-s) * L + s with learned
log-variances s) trained with Adam for a few steps, its gradients w.r.t. s; the dtypes TF1's
casts give (integer predictions to log_loss, float64, float16 logits, integer losses),
label_smoothing of placeholders of unknown classes, weights of unknown rank checked when
fed; and the errors a user hits (weights that do not broadcast, [batch, 1] weights on a
softmax loss, cosine_distance without axis or with axis and dim, an unknown reduction,
one-hot labels of another width, sparse labels of the logits' rank, one-hot labels to the
sparse loss); an evaluation with tf.metrics weighted by [batch, 1] weights, static and
fed through a placeholder of unknown rank."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, features, classes, targets, tags, embed = 6, 5, 4, 2, 3, 3
    x_data = rng.normal(size=(batch, features)).astype(np.float32)
    class_ids = rng.randint(0, classes, batch).astype(np.int64)
    onehot = np.eye(classes, dtype=np.float32)[class_ids]
    regress = rng.normal(size=(batch, targets)).astype(np.float32)
    multi = (rng.uniform(size=(batch, tags)) > 0.5).astype(np.float32)
    anchor = rng.normal(size=(batch, embed)).astype(np.float32)
    anchor /= np.linalg.norm(anchor, axis=1, keepdims=True)
    example_w = np.array([1.0, 0.0, 2.0, 0.5, 0.0, 1.0], np.float32)
    reductions = tf.losses.Reduction
    out["_tol"] = {}

    def init(*shape):
        return tf.constant_initializer(rng.normal(0, 0.4, shape))

    x = tf.placeholder(tf.float32, [None, features], name="x")
    l2 = lambda w: 1e-3 * tf.nn.l2_loss(w)
    with tf.variable_scope("trunk"):
        hidden = tf.layers.dense(x, 8, tf.nn.tanh, kernel_initializer=init(features, 8),
                                 kernel_regularizer=l2, name="shared")
    with tf.variable_scope("heads"):
        def head(units, name):
            return tf.layers.dense(hidden, units, kernel_initializer=init(8, units),
                                   kernel_regularizer=l2, name=name)
        class_logits, regression = head(classes, "classify"), head(targets, "regress")
        tag_logits, embedding = head(tags, "tags"), tf.nn.l2_normalize(head(embed, "embed"), 1)

    with tf.name_scope("task_losses"):
        task = [tf.losses.softmax_cross_entropy(onehot, class_logits, weights=example_w,
                                                label_smoothing=0.1),
                tf.losses.huber_loss(regress, regression, delta=0.5),
                tf.losses.sigmoid_cross_entropy(multi, tag_logits, label_smoothing=0.2,
                                                weights=example_w[:, None]),
                tf.losses.cosine_distance(anchor, embedding, axis=1)]
    sparse = tf.losses.sparse_softmax_cross_entropy(class_ids[:, None], class_logits,
                                                    weights=example_w[:, None],
                                                    loss_collection="aux_losses")
    tf.losses.add_loss(tf.reduce_mean(tf.square(regression)) * 0.0, "aux_losses")

    log_vars = tf.Variable(np.zeros(len(task), np.float32), name="log_vars")
    weighted = tf.add_n([tf.exp(-log_vars[i]) * loss + log_vars[i]
                         for i, loss in enumerate(task)])
    total = weighted + tf.losses.get_regularization_loss()
    task_grads = tf.gradients(total, log_vars)[0]
    train_op = tf.train.AdamOptimizer(0.05).minimize(total)

    out["losses_collection"] = [t.name for t in tf.losses.get_losses()]
    out["scoped_losses"] = [t.name for t in tf.losses.get_losses(scope="task_losses")]
    out["aux_collection"] = [t.name for t in tf.losses.get_losses(loss_collection="aux_losses")]
    out["regularization_names"] = [t.op.name for t in tf.losses.get_regularization_losses()]
    out["heads_regularization"] = len(tf.losses.get_regularization_losses(scope="heads"))
    total_loss = tf.losses.get_total_loss()
    no_reg_total = tf.losses.get_total_loss(add_regularization_losses=False, name="data_loss")
    out["total_names"] = [total_loss.op.name, no_reg_total.op.name]

    # every reduction on every loss, built outside the collections
    zero_w = np.zeros(batch, np.float32)
    pairs = {
        "softmax": lambda w, r: tf.losses.softmax_cross_entropy(
            onehot, class_logits, weights=w, reduction=r, loss_collection=None),
        "sparse": lambda w, r: tf.losses.sparse_softmax_cross_entropy(
            class_ids, class_logits, weights=w, reduction=r, loss_collection=None),
        "sigmoid": lambda w, r: tf.losses.sigmoid_cross_entropy(
            multi, tag_logits, weights=w[:, None], reduction=r, loss_collection=None),
        "mse": lambda w, r: tf.losses.mean_squared_error(
            regress, regression, weights=w[:, None], reduction=r, loss_collection=None),
        "absolute": lambda w, r: tf.losses.absolute_difference(
            regress, regression, weights=w[:, None], reduction=r, loss_collection=None),
        "huber": lambda w, r: tf.losses.huber_loss(
            regress, regression, weights=w[:, None], delta=0.3, reduction=r,
            loss_collection=None),
        "log_loss": lambda w, r: tf.losses.log_loss(
            multi, tf.sigmoid(tag_logits), weights=w[:, None], epsilon=1e-4, reduction=r,
            loss_collection=None),
        "hinge": lambda w, r: tf.losses.hinge_loss(
            multi, tag_logits, weights=w[:, None], reduction=r, loss_collection=None),
        "cosine_dim": lambda w, r: tf.losses.cosine_distance(
            anchor, embedding, dim=1, weights=w[:, None], reduction=r, loss_collection=None),
    }
    table = {name: [build(w, r) for r in reductions.all() for w in (example_w, zero_w)]
             for name, build in pairs.items()}
    pairwise = [tf.losses.mean_pairwise_squared_error(regress, regression, weights=w,
                                                      loss_collection=None)
                for w in (1.0, example_w[:, None], zero_w[:, None])]
    custom = tf.losses.compute_weighted_loss(tf.abs(regression - regress), weights=[[2.0, 0.0]],
                                             reduction=reductions.MEAN,
                                             loss_collection="custom")
    out["reduction_keys"] = list(reductions.all())
    out["none_shapes"] = {k: v[0].shape.as_list() for k, v in table.items()}
    out["custom_collection"] = [t.name for t in tf.get_collection("custom")]

    int_log_loss = tf.losses.log_loss(multi.astype(np.int32), tf.constant(
        multi.astype(np.int32)), weights=example_w[:, None], loss_collection=None)
    wide = tf.losses.mean_squared_error(regress.astype(np.float64), tf.cast(regression,
                                        tf.float64), loss_collection=None)
    half = tf.losses.softmax_cross_entropy(onehot, tf.cast(class_logits, tf.float16),
                                           loss_collection=None)
    counts = tf.losses.compute_weighted_loss(tf.constant([1, 2, 4]), loss_collection=None)
    fed_w = tf.placeholder(tf.float32, None, name="fed_weights")
    fed_loss = tf.losses.absolute_difference(regress, regression, weights=fed_w)
    fed_labels = tf.placeholder(tf.float32, [None, None], name="fed_onehot")
    fed_logits = tf.placeholder(tf.float32, [None, None], name="fed_logits")
    smoothed_fed = tf.losses.softmax_cross_entropy(fed_labels, fed_logits, label_smoothing=0.2,
                                                   loss_collection=None)
    eval_metrics = [tf.metrics.accuracy(class_ids, tf.argmax(class_logits, 1),
                                        weights=example_w[:, None]),
                    tf.metrics.mean_squared_error(regress, regression, weights=fed_w),
                    tf.metrics.recall(multi[:, 0], tf.sigmoid(tag_logits[:, 0]) > 0.45,
                                      weights=fed_w)]
    empty = tf.losses.get_regularization_loss(scope="none_here")
    out["empty_regularization"] = [empty.op.type, "regularization" in empty.op.name]
    out["loss_dtypes"] = [t.dtype.name for t in (int_log_loss, wide, half, counts)]

    def error(build):
        try:
            build()
            return "built"
        except (ValueError, TypeError) as e:
            return type(e).__name__
    out["errors"] = {
        "weights_not_broadcast": error(lambda: tf.losses.mean_squared_error(
            regress, regression, weights=np.ones((batch, 3), np.float32))),
        "cosine_no_axis": error(lambda: tf.losses.cosine_distance(anchor, embedding)),
        "bad_reduction": error(lambda: tf.losses.absolute_difference(
            regress, regression, reduction="mean")),
        "sparse_rank": error(lambda: tf.losses.sparse_softmax_cross_entropy(
            onehot.astype(np.int64), class_logits)),
        "cosine_axis_and_dim": error(lambda: tf.losses.cosine_distance(anchor, embedding,
                                                                       axis=1, dim=1)),
        "softmax_column_weights": error(lambda: tf.losses.softmax_cross_entropy(
            onehot, class_logits, weights=example_w[:, None])),
        "softmax_shapes": error(lambda: tf.losses.softmax_cross_entropy(multi, class_logits)),
        "sparse_onehot": error(lambda: tf.losses.sparse_softmax_cross_entropy(
            onehot, class_logits)),
    }

    tol = {"rtol": 2e-4, "atol": 2e-5}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: x_data}
        out["task_losses"] = np.array(sess.run(task, feed))
        out["sparse_aux"] = sess.run(sparse, feed)
        out["totals"] = np.array(sess.run([total_loss, no_reg_total,
                                           tf.losses.get_regularization_loss()], feed))
        out["log_var_grads"] = sess.run(task_grads, feed)
        for name, tensors in table.items():
            out["reduce_" + name] = sess.run(tensors, feed)
            out["_tol"]["reduce_" + name] = tol
        out["pairwise"] = np.array(sess.run(pairwise, feed))
        out["custom"] = sess.run(custom, feed)
        out["int_log_loss"] = sess.run(int_log_loss)
        out["other_dtypes"] = [float(v) for v in sess.run([wide, half], feed)]
        out["int_counts"] = sess.run(counts)
        out["smoothed_fed"] = sess.run(smoothed_fed, {fed_labels: onehot,
                                                      fed_logits: x_data[:, :classes]})
        fed = {}
        for shape in [(), (batch, 1), (1, targets), (targets,), (batch,)]:
            try:
                fed[str(shape)] = sess.run(fed_loss, {x: x_data, fed_w: np.ones(shape) * 0.5})
            except tf.errors.InvalidArgumentError:
                fed[str(shape)] = "InvalidArgumentError"
        out["fed_weights"] = fed
        sess.run(tf.local_variables_initializer())
        sess.run([update for _, update in eval_metrics], {x: x_data, fed_w: example_w[:, None]})
        out["eval_metrics"] = np.array(sess.run([value for value, _ in eval_metrics]))
        history = [sess.run([train_op, total, weighted], feed)[1:] for _ in range(6)]
        out["history"] = np.array(history)
        out["learned_log_vars"] = sess.run(log_vars)
        out["final_log_var_grads"] = sess.run(task_grads, feed)
    out["_tol"].update(dict.fromkeys(["task_losses", "totals", "pairwise", "history",
                                      "fed_weights", "eval_metrics"], tol))
    out["_tol"]["other_dtypes"] = {"rtol": 2e-3, "atol": 1e-3}      # one float16 loss
    out["_tol"].update(dict.fromkeys(["log_var_grads", "final_log_var_grads",
                                      "learned_log_vars"], {"rtol": 1e-3, "atol": 1e-4}))
