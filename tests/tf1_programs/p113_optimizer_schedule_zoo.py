"""TF1's less common optimizers and every tf.train learning-rate schedule: one small model
(a 2-layer MLP over numpy features and an embedding table looked up with repeated ids, so
the table's gradient is sparse) trained a few steps by Adadelta, Adagrad, AdagradDA,
ProximalGradientDescent, ProximalAdagrad, RMSProp (centered and not), Ftrl (power -0.5 and
0, l2 shrinkage), Nesterov momentum and Adam with epsilon=1 (beta1 a variable), each in its
own graph (every other one on resource variables), with losses, variables, slot names and
values; the schedules driven by a global step that minimize(global_step=...) increments;
ExponentialMovingAverage with num_updates, zero_debias and a fed decay; apply_gradients
with a None gradient and hand-built IndexedSlices, a sparse gradient made dense by
convert_to_tensor or kept sparse by identity; and the errors a user hits (no
global_step, piecewise lengths and dtypes, no variables, all-None gradients, a missing
slot, invalid optimizer arguments, an int variable averaged, two global steps)."""

import numpy as np


def _error(fn, *phrases):
    try:
        fn()
        return ["no error"]
    except Exception as e:  # noqa: BLE001 - the class and message are what is recorded
        return [type(e).__name__] + [p in str(e) for p in phrases]


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(8, 4)).astype(np.float32)
    ids_data = np.array([0, 2, 2, 5, 0, 1, 2, 2], dtype=np.int32)
    y_data = rng.normal(size=(8, 1)).astype(np.float32)
    init = {"table": rng.normal(0, 0.5, (6, 3)).astype(np.float32),
            "w1": rng.normal(0, 0.5, (7, 5)).astype(np.float32),
            "b1": np.zeros(5, np.float32),
            "w2": rng.normal(0, 0.5, (5, 1)).astype(np.float32)}

    optimizers = {
        "adadelta": lambda gs: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-4),
        "adagrad": lambda gs: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.5),
        "adagrad_da": lambda gs: tf.train.AdagradDAOptimizer(
            0.2, gs, initial_gradient_squared_accumulator_value=0.1,
            l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        "proximal_gd": lambda gs: tf.train.ProximalGradientDescentOptimizer(
            0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
        "proximal_adagrad": lambda gs: tf.train.ProximalAdagradOptimizer(
            0.1, initial_accumulator_value=0.1, l1_regularization_strength=0.05,
            l2_regularization_strength=0.1),
        "rmsprop_centered": lambda gs: tf.train.RMSPropOptimizer(
            0.01, decay=0.8, momentum=0.5, epsilon=1e-3, centered=True),
        "rmsprop": lambda gs: tf.train.RMSPropOptimizer(0.01, decay=0.9, epsilon=1e-3),
        "ftrl": lambda gs: tf.train.FtrlOptimizer(
            0.2, learning_rate_power=-0.5, initial_accumulator_value=0.1,
            l1_regularization_strength=0.05, l2_regularization_strength=0.01),
        "ftrl_fixed_shrinkage": lambda gs: tf.train.FtrlOptimizer(
            0.2, learning_rate_power=0.0, initial_accumulator_value=0.5,
            l1_regularization_strength=0.02, l2_regularization_strength=0.01,
            l2_shrinkage_regularization_strength=0.05),
        "nesterov": lambda gs: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
        "adam_eps1": lambda gs: tf.train.AdamOptimizer(
            0.05, beta1=tf.Variable(0.8, trainable=False, name="beta1"),
            beta2=tf.constant(0.99), epsilon=1.0),
    }
    for index, (key, make) in enumerate(optimizers.items()):
        with tf.Graph().as_default():   # every other one on resource variables
            gs = tf.train.get_or_create_global_step()
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            ids = tf.placeholder(tf.int32, [None], name="ids")
            with tf.variable_scope("model"):
                params = {k: tf.get_variable(k, initializer=v, use_resource=index % 2 == 1)
                          for k, v in init.items()}
            feats = tf.concat([x, tf.nn.embedding_lookup(params["table"], ids)], 1)
            hidden = tf.tanh(tf.matmul(feats, params["w1"]) + params["b1"])
            loss = tf.reduce_mean(tf.square(tf.matmul(hidden, params["w2"]) - y_data))
            opt = make(gs)
            train = opt.minimize(loss, global_step=gs)
            names = opt.get_slot_names()
            rec = {"slot_names": sorted(names),
                   "slot_vars": {k: [opt.get_slot(params[k], n).name for n in sorted(names)]
                                 for k in ("table", "w1")},
                   "variables": sorted(v.name for v in opt.variables()),
                   "no_slot": [opt.get_slot(gs, n) for n in sorted(names)]
                   + [opt.get_slot(params["w1"], "no_such_slot")]}
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                feed = {x: x_data, ids: ids_data}
                rec["losses"] = [float(sess.run([train, loss], feed)[1]) for _ in range(4)]
                rec["global_step"] = int(sess.run(gs))
                rec["params"] = sess.run(params)
                rec["slots"] = sess.run({"%s/%s" % (k, n): opt.get_slot(params[k], n)
                                         for k in ("table", "b1") for n in names})
                rec["zeros"] = {k: int(np.sum(v == 0.0)) for k, v in rec["params"].items()}
            out["opt_" + key] = rec

    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable([1.0, -2.0, 0.5], name="w")
        loss = tf.reduce_sum(tf.square(w - [0.5, 0.5, 0.5]), name="loss")
        gs_f = tf.cast(gs, tf.float32)
        sched = {
            "exp": tf.train.exponential_decay(0.1, gs, 4, 0.5),
            "exp_staircase": tf.train.exponential_decay(0.1, gs, 4, 0.5, staircase=True),
            "piecewise_int": tf.train.piecewise_constant(gs, [3, 7], [1.0, 0.5, 0.1]),
            "piecewise_float": tf.train.piecewise_constant(gs_f, [2.5, 6.5], [3, 2, 1]),
            "poly": tf.train.polynomial_decay(0.1, gs, 5, 0.01, power=2.0),
            "poly_cycle": tf.train.polynomial_decay(0.1, gs, 5, 0.01, power=1.0, cycle=True),
            "natural_exp": tf.train.natural_exp_decay(0.1, gs, 5, 0.5),
            "natural_exp_staircase": tf.train.natural_exp_decay(0.1, gs, 5, 0.5, True),
            "inverse_time": tf.train.inverse_time_decay(0.1, gs, 5, 0.5),
            "inverse_time_staircase": tf.train.inverse_time_decay(0.1, gs, 5, 0.5, True),
            "cosine": tf.train.cosine_decay(0.1, gs, 10, alpha=0.1),
            "cosine_restarts": tf.train.cosine_decay_restarts(0.1, gs, 3, t_mul=2.0,
                                                              m_mul=0.5, alpha=0.1),
            "linear_cosine": tf.train.linear_cosine_decay(0.1, gs, 10, num_periods=1.0,
                                                          alpha=0.1, beta=0.01),
        }
        out["schedule_dtypes"] = {k: v.dtype.name for k, v in sched.items()}
        train = tf.train.GradientDescentOptimizer(sched["exp_staircase"]).minimize(
            loss, global_step=gs)
        ema = tf.train.ExponentialMovingAverage(0.9, num_updates=gs)
        ema_decay = tf.placeholder_with_default(0.9, [], name="ema_decay")
        ema_debiased = tf.train.ExponentialMovingAverage(ema_decay, num_updates=gs,
                                                         zero_debias=True, name="debiased")
        ema_ops = [ema.apply([w, loss]), ema_debiased.apply([w, loss])]
        out["ema_names"] = [ema.average_name(w), ema.average_name(loss),
                            ema_debiased.average_name(loss), ema.average(w).name,
                            ema_debiased.average(loss).name, ema.average(gs) is None]
        out["ema_restore"] = {k: v.name for k, v in ema.variables_to_restore().items()}
        out["moving_average_variables"] = sorted(
            v.name for v in tf.moving_average_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            seen, averages = {}, []
            for step in range(13):
                if step in (0, 1, 3, 4, 5, 7, 9, 10, 12):
                    seen[str(step)] = sess.run(sched)
                sess.run(train)
                sess.run(ema_ops, {ema_decay: 0.5} if step == 2 else None)
                if step < 4:
                    averages.append(sess.run([ema.average(w), ema.average(loss),
                                              ema_debiased.average(loss)]))
            out["schedules"] = seen
            out["ema_values"] = averages
            out["w"] = sess.run(w)

        out["errors"] = {
            "no_global_step": _error(lambda: tf.train.exponential_decay(0.1, None, 4, 0.5)),
            "cosine_no_global_step": _error(lambda: tf.train.cosine_decay(0.1, None, 4)),
            "piecewise_lengths": _error(
                lambda: tf.train.piecewise_constant(gs, [3, 7], [1.0, 0.5]),
                "length of boundaries should be 1 less than the length of values"),
            "piecewise_boundary_dtype": _error(
                lambda: tf.train.piecewise_constant(gs, [2.5], [1.0, 0.5]),
                "Boundaries", "same dtype as x"),
            "piecewise_values_dtype": _error(
                lambda: tf.train.piecewise_constant(gs, [3], [1, 0.5]),
                "Values must have elements all with the same dtype"),
            "no_grads": _error(
                lambda: tf.train.AdagradOptimizer(0.1).apply_gradients([(None, w)]),
                "No gradients provided for any variable", "w:0"),
        }
    with tf.Graph().as_default():
        errors = out["errors"]
        errors["no_variables"] = _error(
            lambda: tf.train.RMSPropOptimizer(0.1).minimize(tf.constant(2.0) * 3.0),
            "No variables to optimize")
        errors["adagrad_zero_accumulator"] = _error(
            lambda: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0),
            "initial_accumulator_value must be positive")
        errors["proximal_adagrad_zero_accumulator"] = _error(
            lambda: tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0),
            "initial_accumulator_value must be positive")
        errors["ftrl_positive_power"] = _error(
            lambda: tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5),
            "learning_rate_power 0.500000 needs to be negative or zero")
        errors["ftrl_negative_l1"] = _error(
            lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0),
            "l1_regularization_strength", "needs to be positive or zero")
        errors["ftrl_negative_shrinkage"] = _error(
            lambda: tf.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=-0.1),
            "l2_shrinkage_regularization_strength")
        counter = tf.Variable(3, name="counter")
        errors["ema_int_variable"] = _error(
            lambda: tf.train.ExponentialMovingAverage(0.9).apply([counter]),
            "The variables must be half, float, or double", "counter")

        # apply_gradients skips a None gradient, and takes hand-built IndexedSlices with
        # repeated indices (summed) for a fed learning rate
        gs = tf.train.get_or_create_global_step()
        table = tf.Variable(init["table"], name="table")
        bias = tf.Variable([0.5, -0.5], name="bias")
        lr = tf.placeholder(tf.float32, [], name="lr")
        rows = tf.IndexedSlices(tf.constant([[1.0, 2.0, -1.0], [0.5, 0.5, 0.5],
                                             [-2.0, 1.0, 0.0]]),
                                tf.constant([4, 1, 4]), tf.constant([6, 3]))
        ftrl = tf.train.FtrlOptimizer(lr, l1_regularization_strength=0.1)
        adagrad = tf.train.AdagradOptimizer(lr)
        steps = [ftrl.apply_gradients([(rows, table), (None, bias)], global_step=gs),
                 adagrad.apply_gradients([(rows, table)])]
        # TF's convert_to_tensor makes a sparse gradient dense (every row shrinks), its
        # identity keeps it sparse (only the looked-up row moves)
        densified = tf.Variable(init["table"], name="densified")
        kept = tf.Variable(init["table"], name="kept")
        (g_dense, _), (g_kept, _) = tf.train.ProximalGradientDescentOptimizer(0.1).\
            compute_gradients(tf.reduce_sum(tf.square(tf.gather(densified, [1, 1])))
                              + tf.reduce_sum(tf.square(tf.gather(kept, [1, 1]))),
                              var_list=[densified, kept])
        steps.append(tf.train.ProximalGradientDescentOptimizer(
            lr, l1_regularization_strength=0.5).apply_gradients(
                [(tf.convert_to_tensor(g_dense), densified), (tf.identity(g_kept), kept)]))
        out["partial_slots"] = [ftrl.get_slot(bias, "accum") is None,
                                sorted(v.name for v in ftrl.variables()),
                                sorted(v.name for v in adagrad.variables())]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for rate in (0.5, 0.1):
                for step in steps:      # one at a time: both update the table
                    sess.run(step, {lr: rate})
            out["indexed_slices_table"] = sess.run(table)
            out["densified_and_kept"] = sess.run([densified, kept])
            out["indexed_slices_slots"] = sess.run(
                [ftrl.get_slot(table, "accum"), ftrl.get_slot(table, "linear"),
                 adagrad.get_slot(table, "accumulator")])
            out["bias_untouched"] = sess.run(bias)
            out["global_step_helper"] = [tf.train.global_step(sess, gs),
                                         tf.train.get_global_step() is gs]
    with tf.Graph().as_default():
        for step_name in ("step_a", "step_b"):    # two global steps: TF1 logs, gives None
            tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP,
                                 tf.Variable(0, trainable=False, name=step_name))
        out["several_global_steps"] = tf.train.get_global_step() is None
