"""A DeepMind-style DQN training script: an online and a target Q-network built by one
function under two variable scopes (a tf.layers.conv2d torso on 8x8 uint8 frames scaled
to [0, 1], dense layers), Q(s, a) picked with gather_nd and with one_hot + reduce_sum
(also in float64), double-DQN targets (the online argmax on next states valued by the
target net, stop_gradient, (1 - done) * gamma), a weighted huber_loss for prioritized
replay (and its reduction variants), epsilon-greedy acting with epsilon from
polynomial_decay and the uniforms fed from numpy, compute_gradients (None for the target
net) filtered and clipped with clip_by_global_norm, hard and Polyak target updates,
TD-error priorities fed back into a numpy replay buffer; trained with centered RMSProp
and again with Adam; summaries (with families) parsed back, Variable.load, a Saver of the
online variables by name (restored into the target net too), periodic checkpoints
played back through import_meta_graph; the networks again as tf.make_template
(Dopamine's way); and the errors a user hits: an action out of range, a loss of
mismatched shapes, no gradients at all, one variable saved under two names."""

import os
import tempfile

import numpy as np

ACTIONS, GAMMA, TAU = 3, 0.9, 0.25


def _q_network(tf, frames, seed):
    rng = np.random.RandomState(seed)

    def init(*shape):
        return tf.constant_initializer(rng.normal(0, 0.3, shape).astype(np.float32))
    torso = tf.layers.conv2d(frames, 4, 3, strides=2, padding="same", activation=tf.nn.relu,
                             kernel_initializer=init(3, 3, 1, 4), name="conv")
    hidden = tf.layers.dense(tf.layers.flatten(torso), 16, activation=tf.nn.relu,
                             kernel_initializer=init(64, 16), name="hidden")
    return tf.layers.dense(hidden, ACTIONS, kernel_initializer=init(16, ACTIONS), name="q")


def _train(tf, out, tag, make_optimizer, workdir):
    rng = np.random.RandomState(1)
    frames = rng.randint(0, 256, (40, 8, 8, 1)).astype(np.uint8)   # the "environment"
    state = tf.placeholder(tf.uint8, [None, 8, 8, 1], name="state")
    next_state = tf.placeholder(tf.uint8, [None, 8, 8, 1], name="next_state")
    action = tf.placeholder(tf.int32, [None], name="action")
    reward = tf.placeholder(tf.float32, [None], name="reward")
    done = tf.placeholder(tf.float32, [None], name="done")
    is_weights = tf.placeholder(tf.float32, [None], name="is_weights")
    uniform = tf.placeholder(tf.float32, [None], name="uniform")
    random_action = tf.placeholder(tf.int32, [None], name="random_action")

    with tf.variable_scope("online"):
        q = _q_network(tf, tf.cast(state, tf.float32) / 255.0, 2)
    with tf.variable_scope("online", reuse=True):
        q_next_online = _q_network(tf, tf.cast(next_state, tf.float32) / 255.0, 2)
    with tf.variable_scope("target"):
        q_next_target = _q_network(tf, tf.cast(next_state, tf.float32) / 255.0, 3)
    tf.add_to_collection("q_values", q)
    online_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="online")
    target_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="target")

    rows = tf.range(tf.shape(action)[0])
    q_sa = tf.gather_nd(q, tf.stack([rows, action], axis=1))
    q_sa_one_hot = tf.reduce_sum(q * tf.one_hot(action, ACTIONS, 1.0, 0.0), axis=1)
    q_sa_64 = tf.reduce_sum(tf.cast(q, tf.float64) * tf.one_hot(
        action, ACTIONS, on_value=1.0, off_value=0.0, dtype=tf.float64), axis=1)
    best_next = tf.argmax(q_next_online, axis=1, output_type=tf.int32)
    next_value = tf.gather_nd(q_next_target, tf.stack([rows, best_next], axis=1))
    target = tf.stop_gradient(reward + (1.0 - done) * GAMMA * next_value)
    td_error = target - q_sa
    priorities = tf.abs(td_error) + 1e-3
    loss = tf.losses.huber_loss(target, q_sa, weights=is_weights, delta=1.0)
    variants = {r: tf.losses.huber_loss(target, q_sa, weights=is_weights, delta=0.5,
                                        reduction=getattr(tf.losses.Reduction, r),
                                        loss_collection=None)
                for r in ("NONE", "SUM", "MEAN", "SUM_OVER_BATCH_SIZE")}

    global_step = tf.train.get_or_create_global_step()
    epsilon = tf.train.polynomial_decay(1.0, global_step, 4, end_learning_rate=0.1)
    greedy = tf.argmax(q, axis=1, output_type=tf.int32)
    act = tf.where(uniform < epsilon, random_action, greedy)

    optimizer = make_optimizer()
    grads_and_vars = optimizer.compute_gradients(loss)
    out[tag + "_none_grads"] = [v.op.name for g, v in grads_and_vars if g is None]
    grads_and_vars = [(g, v) for g, v in grads_and_vars if g is not None]
    clipped, norm = tf.clip_by_global_norm([g for g, _ in grads_and_vars], 1.0)
    train_op = optimizer.apply_gradients(zip(clipped, [v for _, v in grads_and_vars]),
                                         global_step=global_step)
    hard_sync = tf.group(*[t.assign(o) for t, o in zip(target_vars, online_vars)])
    soft_sync = tf.group(*[t.assign(TAU * o + (1 - TAU) * t)
                           for t, o in zip(target_vars, online_vars)])
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("epsilon", epsilon, family="explore")
    tf.summary.histogram("q values", q, family="q")
    summaries = tf.summary.merge_all()
    saver = tf.train.Saver({v.op.name: v for v in online_vars})
    periodic = tf.train.Saver(max_to_keep=2)
    into_target = tf.train.Saver({o.op.name: t for o, t in zip(online_vars, target_vars)})

    buffer = {"s": [], "a": [], "r": [], "s2": [], "d": [], "p": []}
    history, acted = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out[tag + "_initial_q"] = sess.run(q, {state: frames[:3]})
        for t in range(8):           # acting: one transition per step into the buffer
            a = sess.run(act, {state: frames[t:t + 1], uniform: [rng.uniform()],
                               random_action: [rng.randint(ACTIONS)]})[0]
            acted.append(int(a))
            buffer["s"].append(frames[t]), buffer["s2"].append(frames[t + 1])
            buffer["a"].append(a), buffer["r"].append(1.0 if a == t % ACTIONS else -0.5)
            buffer["d"].append(float(t % 4 == 3)), buffer["p"].append(1.0)
            if t < 2:
                continue
            p = np.array(buffer["p"]) ** 0.6
            p /= p.sum()
            idx = rng.choice(len(p), 4, p=p)
            w = (len(p) * p[idx]) ** -0.4
            feed = {state: np.array(buffer["s"])[idx], action: np.array(buffer["a"])[idx],
                    reward: np.array(buffer["r"], np.float32)[idx],
                    next_state: np.array(buffer["s2"])[idx],
                    done: np.array(buffer["d"], np.float32)[idx], is_weights: w / w.max()}
            if t == 2:
                sess.run(hard_sync)
                out[tag + "_first"] = sess.run(
                    {"q_sa": q_sa, "one_hot": q_sa_one_hot, "float64": q_sa_64,
                     "target": target, "norm": norm, "grads": clipped, "variants": variants},
                    feed)
            _, l, prio, n, eps = sess.run([train_op, loss, priorities, norm, epsilon], feed)
            for i, pr in zip(idx, prio):
                buffer["p"][i] = float(pr)
            history.append([l, n, eps])
            if t % 2:
                sess.run(soft_sync)
            if t % 3 == 0:
                periodic.save(sess, os.path.join(workdir, tag, "dqn"), global_step=global_step)
        summary = tf.Summary.FromString(sess.run(summaries, feed))
        out[tag + "_summary"] = {v.tag: [v.simple_value, v.histo.num, v.histo.min, v.histo.max]
                                 for v in summary.value}
        out[tag + "_kept"] = [os.path.basename(p) for p in periodic.last_checkpoints]
        target_vars[0].load(np.zeros((3, 3, 1, 4), np.float32), sess)
        out[tag + "_loaded"] = float(np.abs(sess.run(target_vars[0])).sum())
        out[tag + "_global_step"] = tf.train.global_step(sess, global_step)
        greedy_before = sess.run(greedy, {state: frames[20:26]})
        out[tag + "_history"] = np.array(history)
        out[tag + "_acted"] = acted
        out[tag + "_step"] = int(sess.run(global_step))
        out[tag + "_epsilon_end"] = sess.run(tf.train.polynomial_decay(1.0, 100, 4, 0.1))
        out[tag + "_target_w"] = sess.run(target_vars[-2])
        path = saver.save(sess, os.path.join(workdir, tag + ".ckpt"))
        trained = sess.run(online_vars)
        sess.run([v.initializer for v in online_vars])
        saver.restore(sess, path)
        into_target.restore(sess, path)
        out[tag + "_restored"] = all(np.array_equal(a, b) for a, b in zip(
            trained, sess.run(online_vars)))
        out[tag + "_target_is_online"] = all(np.array_equal(a, b) for a, b in zip(
            trained, sess.run(target_vars)))
        out[tag + "_one_hot_out_of_range"] = sess.run(q_sa_one_hot, {
            state: frames[:2], action: [1, ACTIONS]})[1]
        try:
            sess.run(q_sa, {state: frames[:2], action: [0, ACTIONS]})
        except tf.errors.InvalidArgumentError:
            out[tag + "_gather_error"] = "InvalidArgumentError"
    out[tag + "_var_names"] = [v.op.name for v in online_vars]
    out[tag + "_sync_ops"] = sorted(op.name for op in hard_sync.control_inputs)
    latest = tf.train.latest_checkpoint(os.path.join(workdir, tag))
    with tf.Graph().as_default() as graph:      # the trained agent played from its checkpoint
        player = tf.train.import_meta_graph(latest + ".meta")
        with tf.Session() as sess:
            player.restore(sess, latest)
            q_played = tf.get_collection("q_values")[0]
            out[tag + "_played"] = [os.path.basename(latest), q_played.name, sess.run(
                tf.argmax(q_played, 1), {graph.get_tensor_by_name("state:0"): frames[20:26]})]
    out[tag + "_greedy_before"] = greedy_before


def _templates(tf, out):
    """Dopamine's way: the networks as tf.make_template, the target's not trainable; the
    online template called on states and next states shares its variables."""
    rng = np.random.RandomState(4)
    states = tf.constant(rng.randint(0, 256, (4, 8, 8, 1)).astype(np.float32) / 255.0)

    def network(frames, seed, trainable=True):
        init = tf.constant_initializer(np.random.RandomState(seed).normal(
            0, 0.3, (64, ACTIONS)).astype(np.float32))
        torso = tf.layers.conv2d(frames, 4, 3, strides=2, padding="same",
                                 activation=tf.nn.relu, trainable=trainable,
                                 kernel_initializer=tf.constant_initializer(0.05))
        return tf.layers.dense(tf.layers.flatten(torso), ACTIONS, kernel_initializer=init,
                               trainable=trainable)

    online = tf.make_template("Online", network, seed=5)
    target = tf.make_template("Target", network, seed=6, trainable=False)
    q, q_next, q_target = online(states), online(states[::-1]), target(states[::-1])
    sync = tf.group(*[t.assign(o) for t, o in zip(target.global_variables,
                                                  online.global_variables)])
    out["template_names"] = [q.name, q_next.name, q_target.name, online.variable_scope.name]
    out["template_trainable"] = [v.op.name for v in tf.trainable_variables()]
    out["template_target_vars"] = [v.op.name for v in target.global_variables]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(q_target)
        sess.run(sync)
        out["template_q"] = sess.run([q, q_next]) + [before, sess.run(q_target)]


def main(tf, out):
    with tempfile.TemporaryDirectory() as workdir:
        with tf.Graph().as_default():
            _train(tf, out, "rmsprop", lambda: tf.train.RMSPropOptimizer(
                0.01, decay=0.95, momentum=0.0, epsilon=0.01, centered=True), workdir)
        with tf.Graph().as_default():
            _train(tf, out, "adam", lambda: tf.train.AdamOptimizer(0.01), workdir)
            x = tf.placeholder(tf.float32, [None, 3])
            y = tf.placeholder(tf.float32, [None, 2])
            errors = {}
            for key, fn in {
                    "huber_shapes": lambda: tf.losses.huber_loss(tf.zeros([4, 3]),
                                                                 tf.zeros([4, 2])),
                    "huber_fed_shapes": lambda: tf.losses.huber_loss(x, y),
                    "no_gradients": lambda: tf.train.AdamOptimizer(0.1).apply_gradients(
                        [(None, v) for v in tf.trainable_variables()]),
                    "empty_saver": lambda: tf.train.Saver(var_list={}),
                    "saver_one_var_twice": lambda: tf.train.Saver(
                        {"online": tf.trainable_variables()[0],
                         "target": tf.trainable_variables()[0]})}.items():
                try:
                    fn()
                    errors[key] = None
                except Exception as e:  # noqa: BLE001 - the class is what the program records
                    errors[key] = type(e).__name__
            out["errors"] = errors
        with tf.Graph().as_default():
            _templates(tf, out)
    out["_tol"] = {k: {"rtol": 2e-4, "atol": 2e-5}
                   for k in ("rmsprop_history", "adam_history", "rmsprop_first", "adam_first",
                             "rmsprop_target_w", "adam_target_w", "rmsprop_summary",
                             "adam_summary", "template_q")}
