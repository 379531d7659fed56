"""Adam's update with its gradient's product folded in (``optimizer/gemm_updates.py``,
``_MatMulApplyAdam``, ``kernels/cpu/training.adam_product_update``): where it applies,
where it must not, and that training is the same as with the product and update apart,
on register_gemm's kernels and on the fallback."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.kernels.cpu import register_gemm, training
from devsession.ops.training import MATMUL_ADAM
from devsession.runtime import tiered

F32 = np.float32
ADAM = dict(learning_rate=0.01, beta1=0.9, beta2=0.999, epsilon=1e-7)
FORMS = {  # the layer, with w of shape (64, 96) and x's shape
    "x @ w": (lambda x, w: ds.matmul(x, w), (48, 64)),
    "x @ w.T": (lambda x, w: ds.matmul(x, w, transpose_b=True), (48, 96)),
    "w @ x": (lambda x, w: ds.matmul(w, x), (96, 48)),
    "w.T @ x": (lambda x, w: ds.matmul(w, x, transpose_a=True), (64, 48)),
}


@pytest.fixture(params=["register_gemm", "fallback"])
def kernels(request, monkeypatch):
    """Both ways the folded kernel runs: register_gemm's blocks (forced on any x86-64)
    and the product and update apart inside it."""
    if request.param == "register_gemm":
        monkeypatch.setattr(register_gemm, "FORCE", True)
        if not register_gemm.usable():
            pytest.skip("register_gemm's kernels do not compile here (logged)")
    else:
        monkeypatch.setattr(register_gemm, "_ENABLED", False)
    return request.param


def model(form="x @ w", dtype=F32, steps_fetch=None):
    rng = np.random.default_rng(3)
    layer, x_shape = FORMS[form]
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(dtype, x_shape, name="x")
        w = ds.Variable((rng.standard_normal((64, 96)) * 0.1).astype(dtype), name="w")
        out = layer(x, w)
        loss = ds.reduce_mean(ds.square(out - 0.5))
        opt = ds.train.AdamOptimizer(**ADAM)
        grads = opt.compute_gradients(loss, var_list=[w])
        train = opt.apply_gradients(grads)
        init = ds.global_variables_initializer()
    data = rng.standard_normal(x_shape).astype(dtype)
    return g, x, loss, train, init, w, grads[0][0], data


def train(fusion, form="x @ w", steps=6, dtype=F32):
    g, x, loss, train_op, init, w, _, data = model(form, dtype)
    options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
    with ds.Session(graph=g, options=options) as sess:
        sess.run(init)
        losses = [sess.run([loss, train_op], {x: data})[0] for _ in range(steps)]
        plan = sess._prepare((x,), (loss,), (train_op,)).plan
        return np.array(losses), sess.run(w), [s for s in plan.steps if s.op_type == MATMUL_ADAM]


@pytest.mark.parametrize("form", FORMS)
def test_the_update_folds_and_training_matches_the_ops_apart(kernels, form):
    losses, w, (fold,) = train(True, form)
    apart, w_apart, none = train(False, form)
    assert not none
    assert [op for _, op in fold.members] == ["MatMul", "ApplyAdam"]
    np.testing.assert_allclose(losses, apart, rtol=1e-5)
    np.testing.assert_allclose(w, w_apart, rtol=1e-5, atol=1e-6)
    assert losses[-1] < losses[0]


def test_a_gradient_fetched_or_read_elsewhere_and_double_precision_stay_apart():
    g, x, loss, train_op, init, w, grad, data = model()
    with g.as_default():
        norm = ds.global_norm([grad])
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(init)
        for fetches in ((grad,), (norm,)):
            plan = sess._prepare((x,), fetches, (train_op,)).plan
            assert not [s for s in plan.steps if s.op_type == MATMUL_ADAM]
        fetched = sess.run([grad, train_op], {x: data})[0]
        assert fetched.shape == (64, 96) and np.abs(fetched).sum() > 0
    assert not train(True, dtype=np.float64)[2]


def test_a_traced_step_names_both_nodes():
    g, x, loss, train_op, init, w, grad, data = model()
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(init)
        metadata = ds.RunMetadata()
        sess.run([loss, train_op], {x: data}, options=ds.RunOptions(trace=True),
                 run_metadata=metadata)
    kernels = {s.node: s.kernel for s in metadata.step_stats}
    update = [n for n in kernels if n.endswith("ApplyAdam")][0]
    assert kernels[update] == update and kernels[grad.op.name] == update


def _tf1_adam(var, m, v, grad, t, lr, beta1, beta2, eps, nesterov):
    lr_t = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    step = (grad * (1 - beta1) + beta1 * m) if nesterov else m
    return var - lr_t * step / (np.sqrt(v) + eps), m, v


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("shape", [(1000, 300, 40), (7, 21, 3), (130, 17, 1), (0, 5, 4)],
                         ids=["parallel, blocks with a tail", "serial", "narrow", "empty"])
def test_blocks_update_as_tf1s_adam_with_the_whole_gradient(kernels, shape, nesterov):
    rows, n, k = shape
    rng = np.random.default_rng(rows + n)
    var, m, v = (rng.standard_normal((rows, n)).astype(F32) for _ in range(3))
    v = np.abs(v)
    a = rng.standard_normal((k, rows)).astype(F32).T            # a transposed view
    b = rng.standard_normal((k, n)).astype(F32)
    want = _tf1_adam(var.astype(np.float64), m, v, a.astype(np.float64) @ b, 3, 0.01, 0.9,
                     0.999, 1e-7, nesterov)
    hyper = [np.array(h, F32) for h in (0.9 ** 3, 0.999 ** 3, 0.01, 0.9, 0.999, 1e-7)]
    training.adam_product_update(var, m, v, *hyper, a, b, nesterov)
    for got, expected in zip((var, m, v), want):
        np.testing.assert_allclose(got, expected, rtol=2e-4, atol=2e-5)


def test_warming_a_plan_compiles_the_fold_and_leaves_the_variables_alone():
    g, x, loss, train_op, init, w, grad, data = model()
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(init)
        (step,) = [s for s in sess._prepare((x,), (loss,), (train_op,)).plan.steps
                   if s.op_type == MATMUL_ADAM]
        before = sess.run(w)
        warm = tiered._warmable_kernel(step, scratch_kernel=None)
        warm(*[np.zeros(3, F32)] * len(step.inputs))
        np.testing.assert_array_equal(sess.run(w), before)


def test_the_parallel_driver_never_loads_the_serial_ones_cached_code(tmp_path):
    """numba's disk cache keys compiled code by function and signature, not by
    ``parallel``: had both drivers one Python function, a process that compiled the
    serial one first would hand its body to the parallel one in the next process
    (seen: the convnet's Adam fold at 7.1 ms instead of 3.3)."""
    import os
    import subprocess
    import sys

    def run(code):
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    prelude = ("import numpy as np\n"
               "from devsession.kernels.cpu import training as t, register_gemm as r\n"
               "r.FORCE = True\n"
               "assert r.usable()\n")
    call = ("var, m, v = (np.zeros((12, 16), np.float32) for _ in range(3))\n"
            "a, b = np.ones((12, 3), np.float32), np.ones((3, 16), np.float32)\n"
            "f = np.float32\n"
            "t.{driver}(r.tile_address(), a.ctypes.data, 3, 1, b.ctypes.data, 16, 3, var, m,"
            " v, f(1e-3), f(0.9), f(0.1), f(1e-3), f(1e-8), False, 6, 2)\n"
            "print(len(t.{driver}.stats.cache_hits))\n")
    assert run(prelude + call.format(driver="_adam_product_serial")) == "0"
    assert run(prelude + call.format(driver="_adam_product_parallel")) == "0"
    assert run(prelude + call.format(driver="_adam_product_parallel")) == "1"   # its own
