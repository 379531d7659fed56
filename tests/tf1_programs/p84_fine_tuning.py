"""Fine-tuning from a checkpoint, as TF1 transfer-learning scripts did it: a model
pretrained and saved (Saver with max_to_keep, last_checkpoints, get_checkpoint_state),
its checkpoint inspected (list_variables, load_variable, NewCheckpointReader's shape
map), then a new graph whose backbone lives under another scope restored from it three
ways (a Saver given a {checkpoint name: variable} dict, init_from_checkpoint with a
scope mapping, and assigning load_variable's arrays), a new head trained with the
backbone frozen (minimize's var_list), then everything fine-tuned with a smaller rate;
ExponentialMovingAverage shadows and a Saver built from variables_to_restore restoring
the averages into a fresh graph; restoring a name the checkpoint lacks."""

import os
import tempfile

import numpy as np


def _backbone(tf, x, rng_seed):
    rng = np.random.RandomState(rng_seed)
    w = tf.get_variable("w", initializer=rng.normal(0, 0.5, (4, 6)).astype(np.float32))
    b = tf.get_variable("b", initializer=np.zeros(6, np.float32))
    return tf.nn.relu(tf.matmul(x, w) + b)


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(16, 4)).astype(np.float32)
    y_data = (x_data[:, :2].sum(1) > 0).astype(np.int32)
    workdir = tempfile.mkdtemp()
    prefix = os.path.join(workdir, "pretrain", "model.ckpt")

    # --- pretraining: backbone "pretrain/features", a 2-way head, a few saved steps
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.int32, [None])
        with tf.variable_scope("pretrain"):
            with tf.variable_scope("features"):
                h = _backbone(tf, x, 1)
            logits = tf.layers.dense(h, 2, kernel_initializer=tf.constant_initializer(
                rng.normal(0, 0.5, (6, 2)).astype(np.float32)), name="head")
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.3).minimize(loss, global_step=step)
        saver = tf.train.Saver(max_to_keep=2)
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                losses.append(sess.run([train, loss], {x: x_data, y: y_data})[1])
                saver.save(sess, prefix, global_step=step)
            pretrained_w = sess.run("pretrain/features/w:0")
        out["pretrain_losses"] = np.array(losses)
        out["kept"] = [os.path.basename(p) for p in saver.last_checkpoints]
        state = tf.train.get_checkpoint_state(os.path.dirname(prefix))
        out["latest"] = os.path.basename(state.model_checkpoint_path)
        out["all_latest"] = [os.path.basename(p) for p in state.all_model_checkpoint_paths]

    latest = tf.train.latest_checkpoint(os.path.dirname(prefix))
    out["listed"] = sorted((name, list(shape)) for name, shape in tf.train.list_variables(latest))
    out["loaded_step"] = int(tf.train.load_variable(latest, "global_step"))
    out["loaded_w_matches"] = bool(np.array_equal(
        tf.train.load_variable(latest, "pretrain/features/w"), pretrained_w))
    reader = tf.train.NewCheckpointReader(latest)
    out["shape_map"] = sorted((k, list(v)) for k, v in reader.get_variable_to_shape_map().items())
    out["has_head"] = reader.has_tensor("pretrain/head/kernel")

    # --- fine-tuning: the backbone under "model/backbone", a new 3-way head
    y3_data = (x_data[:, 0] > 0).astype(np.int32) + (x_data[:, 1] > 0.5).astype(np.int32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.int32, [None])
        with tf.variable_scope("model"):
            with tf.variable_scope("backbone"):
                h = _backbone(tf, x, 7)               # other values: the restore sets them
            with tf.variable_scope("new_head"):
                logits = tf.layers.dense(h, 3, kernel_initializer=tf.constant_initializer(
                    rng.normal(0, 0.5, (6, 3)).astype(np.float32)))
        backbone = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, "model/backbone")
        head = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, "model/new_head")
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        train_head = tf.train.AdamOptimizer(0.1).minimize(loss, var_list=head)
        train_all = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
        ema = tf.train.ExponentialMovingAverage(0.8)
        with tf.control_dependencies([train_all]):
            train_all_ema = ema.apply(backbone + head)
        mapping = {v.op.name.replace("model/backbone", "pretrain/features"): v
                   for v in backbone}
        restore_backbone = tf.train.Saver(var_list=mapping)
        saver = tf.train.Saver()
        feed = {x: x_data, y: y3_data}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            restore_backbone.restore(sess, latest)
            out["restored_w_matches"] = bool(np.array_equal(sess.run(backbone[0]),
                                                            pretrained_w))
            out["frozen_losses"] = np.array(
                [sess.run([train_head, loss], feed)[1] for _ in range(4)])
            out["backbone_unchanged"] = bool(np.array_equal(sess.run(backbone[0]),
                                                            pretrained_w))
            tuned = []
            for _ in range(4):
                tuned.append(sess.run([train_all_ema, loss], feed)[1])
            out["tuned_losses"] = np.array(tuned)
            out["shadow_w"] = sess.run(ema.average(backbone[0]))
            out["tuned_w"] = sess.run(backbone[0])
            out["ema_names"] = sorted(ema.variables_to_restore(backbone + head))
            fine_tuned = saver.save(sess, os.path.join(workdir, "tuned", "model.ckpt"))

    # init_from_checkpoint: the same backbone restored by a scope mapping at initialization
    with tf.Graph().as_default():
        with tf.variable_scope("model/backbone"):
            _backbone(tf, tf.zeros([1, 4]), 9)
        tf.train.init_from_checkpoint(latest, {"pretrain/features/": "model/backbone/"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["init_from_checkpoint_w"] = sess.run("model/backbone/w:0")
            out["init_from_checkpoint_b"] = sess.run("model/backbone/b:0")

    # evaluation graph: the moving averages restored in place of the variables
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        with tf.variable_scope("model"):
            with tf.variable_scope("backbone"):
                h = _backbone(tf, x, 11)
            with tf.variable_scope("new_head"):
                logits = tf.layers.dense(h, 3)
        ema = tf.train.ExponentialMovingAverage(0.8)
        evaluator = tf.train.Saver(ema.variables_to_restore())
        with tf.Session() as sess:
            evaluator.restore(sess, fine_tuned)
            out["eval_w_is_shadow"] = sess.run("model/backbone/w:0")
            out["eval_logits"] = sess.run(logits, {x: x_data[:4]})

    # what a user hits: a name the checkpoint lacks
    with tf.Graph().as_default():
        v = tf.get_variable("not_in_checkpoint", [2])
        try:
            with tf.Session() as sess:
                tf.train.Saver([v]).restore(sess, latest)
            out["missing_error"] = None
        except tf.errors.NotFoundError:
            out["missing_error"] = "NotFoundError"
