"""Knowledge distillation with two graphs and two sessions alive at once: a teacher MLP
trained in its own tf.Graph, saved (Saver, tf.train.export_meta_graph) and frozen
(convert_variables_to_constants), its graph then finalized; a student in a second graph
that brings the teacher in twice, by tf.train.import_meta_graph(import_scope="teacher",
input_map=...) restored through the returned saver (and through a Saver renaming the
imported variables to their checkpoint keys; a Saver of every variable is NotFoundError),
and by tf.import_graph_def of the frozen GraphDef (name="teacher", made unique), the two
agreeing in logits and input gradients; soft targets at temperature T behind
tf.stop_gradient, a T**2-scaled distillation loss plus tf.losses.softmax_cross_entropy with
label smoothing, Momentum on the student's variables only, the student saved alone; and the
errors of mixing the two graphs: ops and gradients across graphs, feeding, fetching, eval
and run in the other graph's session, sess.as_default() leaving the default graph alone,
tf.reset_default_graph() in a graph context, a finalized graph, a closed session."""

import os
import tempfile

import numpy as np

T = 3.0


def mlp(tf, x, rng, sizes, scope):
    h = x
    with tf.variable_scope(scope):
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            w = tf.get_variable("w%d" % i, initializer=rng.normal(
                0, 0.5, (n_in, n_out)).astype(np.float32))
            b = tf.get_variable("b%d" % i, initializer=np.zeros(n_out, np.float32))
            h = tf.nn.bias_add(tf.matmul(h, w), b)
            if i < len(sizes) - 2:
                h = tf.nn.relu(h)
        return tf.identity(h, name="logits")


def error(fn, *phrases):
    """The error's class and message, or whether the message has each phrase (where it
    shows tensors, whose repr is the library's own)."""
    try:
        fn()
        return "no error"
    except Exception as e:  # noqa: BLE001 - the class and message are what is recorded
        return [type(e).__name__] + ([p in str(e) for p in phrases] if phrases else [str(e)])


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(32, 4)).astype(np.float32)
    y_data = np.eye(3, dtype=np.float32)[np.argmax(x_data @ rng.normal(size=(4, 3)), 1)]
    batch = x_data[:5]

    with tempfile.TemporaryDirectory() as tmp:
        ckpt, meta = os.path.join(tmp, "teacher.ckpt"), os.path.join(tmp, "teacher.meta")
        teacher_graph = tf.Graph()
        with teacher_graph.as_default():
            tx = tf.placeholder(tf.float32, [None, 4], name="x")
            ty = tf.placeholder(tf.float32, [None, 3], name="y")
            t_logits = mlp(tf, tx, rng, [4, 16, 3], "net")
            t_loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
                labels=ty, logits=t_logits))
            t_train = tf.train.GradientDescentOptimizer(0.5).minimize(t_loss)
            t_init = tf.global_variables_initializer()
            saver = tf.train.Saver()
            out["default_inside"] = tf.get_default_graph() is teacher_graph
        out["default_outside"] = tf.get_default_graph() is teacher_graph
        teacher_sess = tf.Session(graph=teacher_graph)
        out["teacher_sess_graph"] = [teacher_sess.graph is teacher_graph,
                                     tx.graph is teacher_graph]
        teacher_sess.run(t_init)
        out["teacher_losses"] = np.array([teacher_sess.run(
            [t_train, t_loss], {tx: x_data, ty: y_data})[1] for _ in range(12)])
        saver.save(teacher_sess, ckpt, write_meta_graph=False)
        tf.train.export_meta_graph(meta, graph=teacher_graph, saver_def=saver.as_saver_def())
        frozen = tf.graph_util.convert_variables_to_constants(
            teacher_sess, teacher_graph.as_graph_def(), ["net/logits"])
        out["frozen_ops"] = sorted({n.op for n in frozen.node})
        teacher_graph.finalize()
        with teacher_graph.as_default():
            out["finalized_error"] = error(lambda: tf.constant(1.0))
            out["reset_in_graph"] = error(tf.reset_default_graph)
        out["teacher_logits"] = teacher_sess.run(t_logits, {tx: batch})
        again = saver.save(teacher_sess, os.path.join(tmp, "finalized.ckpt"))
        out["saved_after_finalize"] = os.path.basename(again)

        student_graph = tf.Graph()
        with student_graph.as_default():
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            y = tf.placeholder(tf.float32, [None, 3], name="y")
            restorer = tf.train.import_meta_graph(meta, import_scope="teacher",
                                                  input_map={"x:0": x})
            out["restore_op_name"] = restorer.saver_def.restore_op_name
            teacher_a = student_graph.get_tensor_by_name("teacher/net/logits:0")
            (teacher_b,) = tf.import_graph_def(frozen, input_map={"x:0": x},
                                               return_elements=["net/logits:0"],
                                               name="teacher")
            out["imported_names"] = [teacher_a.name, teacher_b.name]
            s_logits = mlp(tf, x, rng, [4, 6, 3], "student")
            soft = tf.nn.softmax(tf.stop_gradient(teacher_a) / T)
            distill = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
                labels=soft, logits=s_logits / T)) * T ** 2
            hard = tf.losses.softmax_cross_entropy(y, s_logits, label_smoothing=0.1)
            loss = 0.7 * distill + 0.3 * hard
            out["trainable_all"] = [v.name for v in tf.trainable_variables()]
            student_vars = tf.trainable_variables(scope="student")
            out["trainable_student"] = [v.name for v in student_vars]
            grads = tf.gradients(loss, tf.trainable_variables(scope="teacher") + student_vars)
            out["grad_is_none"] = [g is None for g in grads]
            train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, var_list=student_vars)
            out["losses_collection"] = [t.name for t in tf.losses.get_losses()]
            renamed = tf.train.Saver({v.op.name[len("teacher/"):]: v
                                      for v in tf.global_variables(scope="teacher")})
            everything = tf.train.Saver()
            out["slots"] = sorted(v.op.name for v in tf.global_variables()
                                  if "Momentum" in v.op.name)
            init = tf.global_variables_initializer()
            input_grads = [tf.gradients(tf.reduce_sum(t[:, 1]), x)[0]
                           for t in (teacher_a, teacher_b)]
            student_saver = tf.train.Saver(student_vars)
            correct = tf.equal(tf.argmax(s_logits, 1), tf.argmax(y, 1))
            accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
            out["cross_graph_op"] = error(lambda: tf.add(t_logits, s_logits),
                                           "must be from the same graph as")
            own_vars = teacher_graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)
            out["cross_graph_gradients"] = [
                error(lambda: tf.gradients(loss, own_vars), "must be from the same graph as"),
                error(lambda: tf.train.GradientDescentOptimizer(0.1).minimize(
                    loss, var_list=own_vars), "must be from the same graph as")]
        out["default_after"] = tf.get_default_graph() is student_graph
        with student_graph.as_default(), tf.Session() as plain:
            out["plain_session_graph"] = plain.graph is student_graph

        with tf.Session(graph=student_graph) as sess:
            out["with_session_default"] = [tf.get_default_graph() is student_graph,
                                           tf.get_default_session() is sess]
            sess.run(init)
            restorer.restore(sess, ckpt)
            a, b = sess.run([teacher_a, teacher_b], {x: batch})
            out["teacher_a"] = a
            out["a_b_max_diff_small"] = float(np.abs(a - b).max()) < 1e-5
            feed = {x: x_data, y: y_data}
            out["accuracy_before"] = sess.run(accuracy, feed)
            sess.run(init)
            renamed.restore(sess, ckpt)
            out["renamed_restore_same"] = bool(np.array_equal(
                sess.run(teacher_a, {x: batch}), a))
            try:
                everything.restore(sess, ckpt)
            except tf.errors.NotFoundError as e:
                out["restore_all_error"] = [type(e).__name__, "student/" in str(e)]
            out["student_losses"] = np.array([sess.run(
                [train, loss, distill, hard], feed)[1:] for _ in range(10)])
            out["accuracy_after"] = sess.run(accuracy, feed)
            out["student_logits"] = sess.run(s_logits, {x: batch})
            grad_a, grad_b = sess.run(input_grads, {x: batch})
            out["teacher_input_grads"] = grad_a
            out["input_grads_agree"] = bool(np.allclose(grad_a, grad_b, atol=1e-6))
            saved = student_saver.save(sess, os.path.join(tmp, "student.ckpt"))
            out["student_checkpoint"] = tf.train.list_variables(saved)
            out["eval_given_session"] = error(lambda: t_logits.eval({tx: batch}, session=sess))
            out["feed_other_graph"] = error(lambda: sess.run(s_logits, {tx: batch}),
                                            "Cannot interpret feed_dict key as Tensor: ",
                                            "is not an element of this graph")
            out["fetch_other_graph"] = error(lambda: sess.run(t_logits),
                                             "cannot be interpreted as a Tensor",
                                             "is not an element of this graph")
            with teacher_sess.as_default():
                out["eval_other_session"] = error(lambda: s_logits.eval({x: batch}))
                out["run_other_session"] = error(init.run)
                out["as_default_keeps_graph"] = tf.get_default_graph() is student_graph
        out["teacher_unchanged"] = bool(np.array_equal(
            teacher_sess.run(t_logits, {tx: batch}), out["teacher_logits"]))
        teacher_sess.close()
        out["closed_run"] = error(lambda: teacher_sess.run(t_logits, {tx: batch}))
    out["_tol"] = {"teacher_losses": {"rtol": 1e-5, "atol": 1e-6},
                   "student_losses": {"rtol": 1e-4, "atol": 1e-5}}
