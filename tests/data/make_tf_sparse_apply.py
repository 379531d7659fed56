"""Records TensorFlow 2.21's SparseApply<X> kernels, into tf_sparse_apply.pb/.npz
(reference variables) and tf_sparse_apply_resource.pb/.npz (resource variables: TF's
ResourceSparseApply<X>), read by tests/test_sparse_apply.py.  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_tf_sparse_apply.py

One graph holds every case under its own name scope ``<case>/``: a variable ``var`` (and
its slots), placeholders ``<case>/grad`` and ``<case>/indices`` for the rows of an
IndexedSlices gradient.  "raw" cases call the op itself (``tf.raw_ops``), so repeated
indices reach the kernel (TF applies them one after another); "optimizer" cases are TF1's
optimizers' ``apply_gradients`` of an IndexedSlices (which sum repeated rows first:
Unique, UnsortedSegmentSum).  The npz holds ``indices:<k>`` (the batches: rows left
out, repeated, none), ``grad:<case>:<k>``, ``after:<case>:<k>:<variable>`` (every
variable of the case after step k), ``op:<case>`` (the op type the case must run).
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))
BATCHES = [[0, 4, 1], [2, 2, 5], [5], [1, 3, 1, 1], [], [0, 5]]
SHAPE = (6, 3)

# case -> (op, slots and their initial values, scalars, attrs, variable shape, index dtype)
RAW_CASES = {
    "momentum": ("SparseApplyMomentum", {"accum": 0.0}, {"lr": 0.05, "momentum": 0.9}, {},
                 SHAPE, "int32"),
    "momentum_nesterov": ("SparseApplyMomentum", {"accum": 0.2}, {"lr": 0.05, "momentum": 0.9},
                          {"use_nesterov": True}, (6, 2, 2), "int64"),
    "momentum_1d": ("SparseApplyMomentum", {"accum": 0.0}, {"lr": 0.05, "momentum": 0.9}, {},
                    (6,), "int32"),
    "adagrad": ("SparseApplyAdagrad", {"accum": 0.1}, {"lr": 0.1}, {}, SHAPE, "int32"),
    "adagrad_no_slots": ("SparseApplyAdagrad", {"accum": 0.5}, {"lr": 0.1},
                         {"update_slots": False}, SHAPE, "int64"),
    "adagrad_v2": ("SparseApplyAdagradV2", {"accum": 0.1}, {"lr": 0.1, "epsilon": 0.01}, {},
                   SHAPE, "int32"),
    "rms_prop": ("SparseApplyRMSProp", {"ms": 1.0, "mom": 0.0},
                 {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-6}, {}, SHAPE, "int32"),
    "centered_rms_prop": ("SparseApplyCenteredRMSProp", {"mg": 0.0, "ms": 1.0, "mom": 0.0},
                          {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 0.1}, {}, SHAPE,
                          "int32"),
    "adadelta": ("SparseApplyAdadelta", {"accum": 0.0, "accum_update": 0.0},
                 {"lr": 1.0, "rho": 0.95, "epsilon": 1e-6}, {}, SHAPE, "int32"),
    "ftrl": ("SparseApplyFtrl", {"accum": 0.1, "linear": 0.0},
             {"lr": 0.1, "l1": 0.05, "l2": 0.02, "lr_power": -0.5}, {}, SHAPE, "int32"),
    "ftrl_1d": ("SparseApplyFtrl", {"accum": 0.1, "linear": 0.0},
                {"lr": 0.1, "l1": 0.05, "l2": 0.02, "lr_power": -0.5}, {}, (6,), "int64"),
    "ftrl_v2": ("SparseApplyFtrlV2", {"accum": 0.1, "linear": 0.0},
                {"lr": 0.1, "l1": 0.05, "l2": 0.02, "l2_shrinkage": 0.03, "lr_power": -0.7},
                {}, SHAPE, "int32"),
    "proximal_adagrad": ("SparseApplyProximalAdagrad", {"accum": 0.1},
                         {"lr": 0.1, "l1": 0.05, "l2": 0.02}, {}, SHAPE, "int32"),
    "proximal_adagrad_no_l1": ("SparseApplyProximalAdagrad", {"accum": 0.1},
                               {"lr": 0.1, "l1": 0.0, "l2": 0.02}, {}, SHAPE, "int32"),
    "proximal_gradient_descent": ("SparseApplyProximalGradientDescent", {},
                                  {"alpha": 0.1, "l1": 0.05, "l2": 0.02}, {}, SHAPE, "int32"),
}
# case -> (TF1 optimizer, its arguments, the SparseApply op it writes)
OPTIMIZER_CASES = {
    "opt_momentum": ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9},
                     "SparseApplyMomentum"),
    "opt_adagrad": ("AdagradOptimizer", {"learning_rate": 0.1}, "SparseApplyAdagrad"),
    "opt_rms_prop": ("RMSPropOptimizer", {"learning_rate": 0.05, "momentum": 0.5},
                     "SparseApplyRMSProp"),
    "opt_centered_rms_prop": ("RMSPropOptimizer", {"learning_rate": 0.05, "centered": True},
                              "SparseApplyCenteredRMSProp"),
    "opt_adadelta": ("AdadeltaOptimizer", {"learning_rate": 1.0, "rho": 0.9, "epsilon": 1e-6},
                     "SparseApplyAdadelta"),
    "opt_ftrl": ("FtrlOptimizer", {"learning_rate": 0.1, "l1_regularization_strength": 0.01},
                 "SparseApplyFtrl"),
    "opt_ftrl_v2": ("FtrlOptimizer", {"learning_rate": 0.1, "l2_regularization_strength": 0.01,
                                      "l2_shrinkage_regularization_strength": 0.02},
                    "SparseApplyFtrlV2"),
    "opt_proximal_adagrad": ("ProximalAdagradOptimizer", {
        "learning_rate": 0.1, "l1_regularization_strength": 0.01,
        "l2_regularization_strength": 0.02}, "SparseApplyProximalAdagrad"),
    "opt_proximal_gradient_descent": ("ProximalGradientDescentOptimizer", {
        "learning_rate": 0.05, "l1_regularization_strength": 0.01,
        "l2_regularization_strength": 0.02}, "SparseApplyProximalGradientDescent"),
}
# TF2's default, resource variables: the optimizers write ResourceSparseApply<X>
RESOURCE_CASES = {name: OPTIMIZER_CASES[name] for name in ("opt_momentum", "opt_adagrad")}


def initial(shape, seed):
    return (np.random.default_rng(seed).standard_normal(shape) * 0.5).astype(np.float32)


def raw_case(name, use_resource):
    op, slots, scalars, attrs, shape, index_dtype = RAW_CASES[name]
    var = tf.Variable(initial(shape, len(name)), name="var", use_resource=use_resource)
    slot_vars = [tf.Variable(np.full(shape, value, np.float32), name=slot,
                             use_resource=use_resource) for slot, value in slots.items()]
    grad = tf.placeholder(tf.float32, (None,) + shape[1:], name="grad")
    indices = tf.placeholder(index_dtype, (None,), name="indices")
    # a reference variable's op takes the variable, a resource one's its handle
    inputs = {"var": var.handle if use_resource else var}
    inputs.update((slot, v.handle if use_resource else v) for slot, v in zip(slots, slot_vars))
    inputs.update({k: tf.constant(v, tf.float32, name=k) for k, v in scalars.items()})
    raw = getattr(tf.raw_ops, f"Resource{op}" if use_resource else op)
    step = raw(grad=grad, indices=indices, **inputs, **attrs)
    return step, op, shape


def optimizer_case(name, cases, use_resource):
    optimizer, kwargs, op = cases[name]
    var = tf.Variable(initial(SHAPE, len(name)), name="var", use_resource=use_resource)
    grad = tf.placeholder(tf.float32, (None,) + SHAPE[1:], name="grad")
    indices = tf.placeholder(tf.int32, (None,), name="indices")
    slices = tf.IndexedSlices(grad, indices, tf.constant(SHAPE))
    step = getattr(tf.train, optimizer)(**kwargs).apply_gradients([(slices, var)])
    return step, op, SHAPE


def record(stem, builders, resource):
    out = {f"indices:{k}": np.array(b, np.int64) for k, b in enumerate(BATCHES)}
    graph = tf.Graph()
    with graph.as_default():
        steps = {}
        for name, build in builders.items():
            with tf.variable_scope(name):
                steps[name] = build()
        init = tf.global_variables_initializer()
    graph_def = graph.as_graph_def()
    types = {node.op for node in graph_def.node}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for name, (step, op, shape) in steps.items():
            want = f"Resource{op}" if resource else op
            assert want in types, (name, want)
            out[f"op:{name}"] = np.array(want)
            out[f"step:{name}"] = np.array(getattr(step, "op", step).name)
            variables = [v for v in graph.get_collection("variables")
                         if v.op.name.startswith(f"{name}/")]
            rng = np.random.default_rng(len(name) + 100)
            for k, batch in enumerate(BATCHES):
                grad = rng.standard_normal((len(batch),) + shape[1:]).astype(np.float32)
                out[f"grad:{name}:{k}"] = grad
                sess.run(step, {f"{name}/grad:0": grad, f"{name}/indices:0": batch})
                for v, value in zip(variables, sess.run(variables)):
                    out[f"after:{name}:{k}:{v.op.name}"] = value
    with open(os.path.join(HERE, f"{stem}.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    np.savez_compressed(os.path.join(HERE, f"{stem}.npz"), **out)


def main():
    tf.disable_resource_variables()
    record("tf_sparse_apply", {
        **{name: (lambda n=name: raw_case(n, False)) for name in RAW_CASES},
        **{name: (lambda n=name: optimizer_case(n, OPTIMIZER_CASES, False))
           for name in OPTIMIZER_CASES}}, resource=False)
    record("tf_sparse_apply_resource", {
        **{name: (lambda n=name: optimizer_case(n, RESOURCE_CASES, True))
           for name in RESOURCE_CASES},
        "adagrad_v2": lambda: raw_case("adagrad_v2", True)}, resource=True)


if __name__ == "__main__":
    main()
