"""Optimizers written as TF1 research code writes them: tf.train.Optimizer subclasses
through TF's semi-private API.  AdamW with decoupled weight decay (_create_slots with
_zeros_slot, beta powers made by _create_non_slot_variable and read back by
_get_non_slot_variable, _prepare with convert_to_tensor and _call_if_callable,
_apply_dense with tf.assign(use_locking=...) grouped, a two-argument
_apply_sparse(IndexedSlices, var) with scatter_add, _finish updating the beta powers,
_resource_apply_dense aliased), LARS (a trust ratio from tf.norm and tf.where, momentum
through _get_or_make_slot) and Lookahead wrapping another optimizer (slow weights from
_get_or_make_slot_with_initializer synced on the first step, a step counter, a tf.cond
on tf.equal(tf.mod(step, k), 0)).  A small MLP and an embedding table looked up with
repeated ids (a sparse gradient) on numpy data, trained a few steps each, with losses,
variables, slot values, slot names and variables(); and the errors of a subclass without
_apply_dense, or without _apply_sparse given a sparse gradient."""

import numpy as np


def _error(fn):
    try:
        fn()
        return ["no error"]
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return [type(e).__name__]


def _optimizers(tf):
    class AdamWOptimizer(tf.train.Optimizer):
        def __init__(self, learning_rate=0.01, beta1=0.9, beta2=0.999, epsilon=1e-8,
                     weight_decay=0.01, use_locking=False, name="AdamW"):
            super(AdamWOptimizer, self).__init__(use_locking, name)
            self._lr = learning_rate
            self._beta1 = beta1
            self._beta2 = beta2
            self._epsilon = epsilon
            self._wd = weight_decay

        def _get_beta_accumulators(self):
            graph = tf.get_default_graph()
            return (self._get_non_slot_variable("beta1_power", graph=graph),
                    self._get_non_slot_variable("beta2_power", graph=graph))

        def _create_slots(self, var_list):
            first_var = min(var_list, key=lambda x: x.name)
            self._create_non_slot_variable(initial_value=self._beta1, name="beta1_power",
                                           colocate_with=first_var)
            self._create_non_slot_variable(initial_value=self._beta2, name="beta2_power",
                                           colocate_with=first_var)
            for v in var_list:
                self._zeros_slot(v, "m", self._name)
                self._zeros_slot(v, "v", self._name)

        def _prepare(self):
            self._lr_t = tf.convert_to_tensor(self._call_if_callable(self._lr),
                                              name="learning_rate")
            self._beta1_t = tf.convert_to_tensor(self._call_if_callable(self._beta1),
                                                 name="beta1")
            self._beta2_t = tf.convert_to_tensor(self._beta2, name="beta2")
            self._eps_t = tf.convert_to_tensor(self._epsilon, name="epsilon")
            self._wd_t = tf.convert_to_tensor(self._wd, name="weight_decay")

        def _step_size(self, var):
            beta1_power, beta2_power = self._get_beta_accumulators()
            dtype = var.dtype.base_dtype
            lr = tf.cast(self._lr_t, dtype)
            return lr * tf.sqrt(1 - tf.cast(beta2_power, dtype)) / (
                1 - tf.cast(beta1_power, dtype))

        def _apply_dense(self, grad, var):
            dtype = var.dtype.base_dtype
            b1, b2 = tf.cast(self._beta1_t, dtype), tf.cast(self._beta2_t, dtype)
            m = self.get_slot(var, "m")
            v = self.get_slot(var, "v")
            m_t = tf.assign(m, b1 * m + (1 - b1) * grad, use_locking=self._use_locking)
            v_t = tf.assign(v, b2 * v + (1 - b2) * tf.square(grad),
                            use_locking=self._use_locking)
            step = self._step_size(var) * m_t / (tf.sqrt(v_t) + self._eps_t)
            decay = tf.cast(self._lr_t * self._wd_t, dtype) * var
            var_update = tf.assign_sub(var, step + decay, use_locking=self._use_locking)
            return tf.group(*[var_update, m_t, v_t])

        _resource_apply_dense = _apply_dense

        def _apply_sparse(self, grad, var):
            dtype = var.dtype.base_dtype
            b1, b2 = tf.cast(self._beta1_t, dtype), tf.cast(self._beta2_t, dtype)
            m = self.get_slot(var, "m")
            v = self.get_slot(var, "v")
            m_t = tf.assign(m, m * b1, use_locking=self._use_locking)
            with tf.control_dependencies([m_t]):
                m_t = tf.scatter_add(m, grad.indices, grad.values * (1 - b1),
                                     use_locking=self._use_locking)
            v_t = tf.assign(v, v * b2, use_locking=self._use_locking)
            with tf.control_dependencies([v_t]):
                v_t = tf.scatter_add(v, grad.indices, tf.square(grad.values) * (1 - b2),
                                     use_locking=self._use_locking)
            step = self._step_size(var) * m_t / (tf.sqrt(v_t) + self._eps_t)
            decay = tf.cast(self._lr_t * self._wd_t, dtype) * var
            var_update = tf.assign_sub(var, step + decay, use_locking=self._use_locking)
            return tf.group(*[var_update, m_t, v_t])

        def _finish(self, update_ops, name_scope):
            with tf.control_dependencies(update_ops):
                beta1_power, beta2_power = self._get_beta_accumulators()
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                                  use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                                  use_locking=self._use_locking)
            return tf.group(*update_ops + [update_beta1, update_beta2], name=name_scope)

    class LARSOptimizer(tf.train.Optimizer):
        def __init__(self, learning_rate, momentum=0.9, eeta=0.001, weight_decay=1e-4,
                     epsilon=0.0, use_locking=False, name="LARSOptimizer"):
            super(LARSOptimizer, self).__init__(use_locking, name)
            self._learning_rate = learning_rate
            self._momentum = momentum
            self._eeta = eeta
            self._weight_decay = weight_decay
            self._epsilon = epsilon

        def _create_slots(self, var_list):
            for v in var_list:
                self._get_or_make_slot(v, tf.zeros_like(v.initialized_value()), "momentum",
                                       self._name)

        def compute_lr(self, grad, var):
            w_norm = tf.norm(var, ord=2)
            g_norm = tf.norm(grad, ord=2)
            trust_ratio = tf.where(
                tf.greater(w_norm, 0),
                tf.where(tf.greater(g_norm, 0),
                         (self._eeta * w_norm / (g_norm + self._weight_decay * w_norm
                                                 + self._epsilon)), 1.0),
                1.0)
            scaled_lr = self._learning_rate * trust_ratio
            grad = grad + self._weight_decay * var
            return scaled_lr, grad

        def _apply_dense(self, grad, var):
            scaled_lr, grad = self.compute_lr(grad, var)
            mom = self.get_slot(var, "momentum")
            mom_t = tf.assign(mom, self._momentum * mom + scaled_lr * grad,
                              use_locking=self._use_locking)
            return tf.assign_sub(var, mom_t, use_locking=self._use_locking).op

    class LookaheadOptimizer(tf.train.Optimizer):
        def __init__(self, optimizer, k=3, alpha=0.5, use_locking=False, name="Lookahead"):
            super(LookaheadOptimizer, self).__init__(use_locking, name)
            self._optimizer = optimizer
            self._k = k
            self._alpha = alpha

        def _create_slots(self, var_list):
            self._optimizer._create_slots(var_list)
            first_var = min(var_list, key=lambda x: x.name)
            self._create_non_slot_variable(initial_value=0, name="la_step",
                                           colocate_with=first_var)
            for v in var_list:
                self._get_or_make_slot_with_initializer(
                    v, tf.zeros_initializer(), v.shape, v.dtype.base_dtype, "slow",
                    self._name)

        def _prepare(self):
            self._optimizer._prepare()
            self._alpha_t = tf.convert_to_tensor(self._alpha, name="alpha")

        def _apply_dense(self, grad, var):
            return self._optimizer._apply_dense(grad, var)

        def _finish(self, update_ops, name_scope):
            step = self._get_non_slot_variable("la_step", graph=tf.get_default_graph())
            with tf.control_dependencies(update_ops):
                inner = self._optimizer._finish(update_ops, "inner_finish")
            with tf.control_dependencies([inner]):
                step_t = tf.assign_add(step, 1, use_locking=self._use_locking)
            with tf.control_dependencies([step_t]):
                fast = [v.read_value() for v in self._vars]    # the values after the step
            pairs = [(self.get_slot(v, "slow"), v, f) for v, f in zip(self._vars, fast)]

            def first():
                return tf.group(*[tf.assign(s, f) for s, _, f in pairs])

            def sync():
                ops = []
                for s, v, f in pairs:
                    s_t = tf.assign(s, s + self._alpha_t * (f - s))
                    ops.append(tf.assign(v, s_t))
                return tf.group(*ops)

            synced = tf.cond(tf.equal(step_t, 1), first,
                             lambda: tf.cond(tf.equal(tf.mod(step_t, self._k), 0),
                                             sync, lambda: tf.no_op()))
            return tf.group(synced, name=name_scope)

        def apply_gradients(self, grads_and_vars, global_step=None, name=None):
            grads_and_vars = list(grads_and_vars)
            self._vars = [v for g, v in grads_and_vars if g is not None]
            return super(LookaheadOptimizer, self).apply_gradients(
                grads_and_vars, global_step=global_step, name=name)

    class NoDense(tf.train.Optimizer):
        def __init__(self):
            super(NoDense, self).__init__(False, "NoDense")

    class DenseOnly(tf.train.Optimizer):
        def __init__(self):
            super(DenseOnly, self).__init__(False, "DenseOnly")

        def _apply_dense(self, grad, var):
            return tf.assign_sub(var, 0.1 * grad)

    return AdamWOptimizer, LARSOptimizer, LookaheadOptimizer, NoDense, DenseOnly


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(8, 4)).astype(np.float32)
    ids_data = np.array([0, 2, 2, 5, 0, 1, 2, 2], dtype=np.int32)
    y_data = rng.normal(size=(8, 1)).astype(np.float32)
    init = {"table": rng.normal(0, 0.5, (6, 3)).astype(np.float32),
            "w1": rng.normal(0, 0.5, (7, 5)).astype(np.float32),
            "b1": np.full(5, 0.1, np.float32),
            "w2": rng.normal(0, 0.5, (5, 1)).astype(np.float32)}
    AdamW, LARS, Lookahead, NoDense, DenseOnly = _optimizers(tf)

    def model(with_table=True):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        ids = tf.placeholder(tf.int32, [None], name="ids")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        with tf.variable_scope("net"):
            table = tf.get_variable("table", initializer=init["table"])
            w1 = tf.get_variable("w1", initializer=init["w1"])
            b1 = tf.get_variable("b1", initializer=init["b1"])
            w2 = tf.get_variable("w2", initializer=init["w2"])
        emb = tf.nn.embedding_lookup(table, ids)
        feats = tf.concat([x, emb], 1) if with_table else tf.concat([x, x[:, :3]], 1)
        h = tf.nn.tanh(tf.matmul(feats, w1) + b1)
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
        feed = {x: x_data, ids: ids_data, y: y_data}
        vs = [table, w1, b1, w2] if with_table else [w1, b1, w2]
        return loss, feed, vs

    cases = {
        "adamw": (lambda: AdamW(learning_rate=lambda: 0.05, weight_decay=0.1), True, 4),
        "lars": (lambda: LARS(0.5, momentum=0.9, eeta=0.01, weight_decay=1e-3), False, 4),
        "lookahead": (lambda: Lookahead(AdamW(learning_rate=0.05, weight_decay=0.0), k=2,
                                        alpha=0.5), False, 5),
    }
    for key, (make, with_table, steps) in cases.items():
        graph = tf.Graph()
        with graph.as_default():
            loss, feed, vs = model(with_table)
            opt = make()
            train = opt.minimize(loss)
            out[key + "/train_op"] = train.name
            out[key + "/slot_names"] = sorted(opt.get_slot_names())
            slots = [(n, v) for n in sorted(opt.get_slot_names()) for v in vs
                     if opt.get_slot(v, n) is not None]
            out[key + "/slot_vars"] = [opt.get_slot(v, n).op.name for n, v in slots]
            out[key + "/variables"] = [v.op.name for v in opt.variables()]
            out[key + "/non_slot_without_graph"] = repr(opt._get_non_slot_variable("beta1_power"))
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                losses = []
                for step in range(steps):
                    losses.append(sess.run([loss, train], feed)[0])
                    vals = sess.run(vs)
                    for v, val in zip(vs, vals):
                        out["%s/%d/%s" % (key, step, v.op.name)] = val
                    for n, v in slots:
                        out["%s/%d/slot/%s" % (key, step, opt.get_slot(v, n).op.name)] = \
                            sess.run(opt.get_slot(v, n))
                out[key + "/losses"] = np.array(losses)
                out[key + "/others"] = [[v.op.name, sess.run(v)] for v in opt.variables()
                                        if v not in [opt.get_slot(u, n) for n, u in slots]]

    graph = tf.Graph()
    with graph.as_default():
        loss, feed, vs = model(True)
        out["errors/no_apply_dense"] = _error(lambda: NoDense().minimize(loss))
        out["errors/no_apply_sparse"] = _error(lambda: DenseOnly().minimize(loss))
        dense_loss = tf.reduce_sum(vs[1]) * 0.5
        out["errors/dense_only_dense_grad"] = _error(lambda: DenseOnly().minimize(dense_loss))
