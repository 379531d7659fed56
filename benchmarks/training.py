"""Training-step workloads: what users of a TF1-style library mostly run.

Two models, each timed as one optimizer step (forward, backward, update) on a fixed batch:

* ``mlp_train``: batch 256, 784-1024-1024-10, ReLU, sparse softmax cross-entropy, plain
  SGD: about 2.9 GFLOP a step, all of it in BLAS (the bound).
* ``convnet_train``: TF's "Deep MNIST": batch 64, conv 5x5x32 + ReLU + 2x2 max-pool,
  conv 5x5x64 + ReLU + max-pool, dense 1024 + ReLU, dense 10, Adam.  The convolutions
  (forward, and the two backward ones) are most of the work.

The same graph builder runs with ``devsession`` and with ``tf.compat.v1`` (a ported
script only changes its import); JAX runs the same model written with ``jax.grad`` under
``jax.jit``, with TF1's SGD and Adam update rules.  Every contender starts from the same
weights, and its first step's loss (computed before that step's update, as
``sess.run([loss, train_op])`` does) is checked against numpy's; each timed call is one
more step, so the state advances as in a real training loop.
"""

from __future__ import annotations

import functools
import time

import numpy as np

from . import mlp
from .contenders import Contender, devsession_contenders
from .runner import error_row, measure
from .workload import Data, Workload

__all__ = ["mlp_train", "convnet_train", "mlp_data", "mlp_graph", "convnet_data",
           "convnet_graph", "measure_with"]

F32 = np.float32
ADAM = dict(learning_rate=1e-4, beta1=0.9, beta2=0.999, epsilon=1e-8)


# --- the models, as data ------------------------------------------------------------------

def mlp_data(batch, sizes):
    def make(rng) -> Data:
        x = rng.standard_normal((batch, sizes[0]), dtype=F32)
        labels = rng.integers(0, sizes[-1], batch).astype(np.int32)
        return Data((x, labels), ("x", "labels"), tuple(mlp.he_params(rng, sizes)))
    return make


def convnet_data(batch):
    def make(rng) -> Data:
        x = rng.random((batch, 28, 28, 1), dtype=F32)
        labels = rng.integers(0, 10, batch).astype(np.int32)
        shapes = [(5, 5, 1, 32), (32,), (5, 5, 32, 64), (64,), (7 * 7 * 64, 1024), (1024,),
                  (1024, 10), (10,)]
        params = tuple((rng.standard_normal(s, dtype=F32) * F32(0.1)) if len(s) > 1
                       else np.full(s, 0.1, F32) for s in shapes)
        return Data((x, labels), ("x", "labels"), params)
    return make


def mlp_graph(api, data, learning_rate=0.01):
    x = api.placeholder(api.float32, data.feeds[0].shape, name="x")
    labels = api.placeholder(api.int32, data.feeds[1].shape, name="labels")
    params = [api.Variable(p, name=f"p{k}") for k, p in enumerate(data.consts)]
    loss = api.reduce_mean(api.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=mlp.logits(x, params, api.matmul, api.nn.relu)))
    train = api.train.GradientDescentOptimizer(learning_rate).minimize(loss)
    return [loss, train], [x, labels]


def convnet_graph(api, data):
    x = api.placeholder(api.float32, data.feeds[0].shape, name="x")
    labels = api.placeholder(api.int32, data.feeds[1].shape, name="labels")
    w1, b1, w2, b2, w3, b3, w4, b4 = [api.Variable(p, name=f"p{k}")
                                      for k, p in enumerate(data.consts)]

    def conv_pool(h, w, b):
        h = api.nn.relu(api.nn.conv2d(h, w, strides=[1, 1, 1, 1], padding="SAME") + b)
        return api.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

    h = conv_pool(conv_pool(x, w1, b1), w2, b2)
    h = api.reshape(h, [-1, 7 * 7 * 64])
    h = api.nn.relu(api.matmul(h, w3) + b3)
    logits = api.matmul(h, w4) + b4
    loss = api.reduce_mean(api.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))
    train = api.train.AdamOptimizer(**ADAM).minimize(loss)
    return [loss, train], [x, labels]


# --- numpy: the first step's loss ---------------------------------------------------------

def _xent(logits, labels):
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_probs[np.arange(len(labels)), labels].mean()


def _mlp_loss(data):
    x, labels = (a.astype(np.float64) if a.dtype == F32 else a for a in data.feeds)
    params = [p.astype(np.float64) for p in data.consts]
    return np.float32(_xent(mlp.logits(x, params, np.matmul, mlp.np_relu), labels))


def _conv_same(x, w):
    k = w.shape[0]
    pad = (k - 1) // 2
    xp = np.pad(x, ((0, 0), (pad, k - 1 - pad), (pad, k - 1 - pad), (0, 0)))
    n, height, width, _ = x.shape
    cols = np.stack([xp[:, i:i + height, j:j + width, :] for i in range(k) for j in range(k)],
                    axis=3)                                   # n, h, w, k*k, c
    return cols.reshape(n, height, width, -1) @ w.reshape(-1, w.shape[-1])


def _pool(x):
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def _convnet_loss(data):
    x, labels = data.feeds[0].astype(np.float64), data.feeds[1]
    w1, b1, w2, b2, w3, b3, w4, b4 = (p.astype(np.float64) for p in data.consts)
    h = _pool(np.maximum(_conv_same(x, w1) + b1, 0))
    h = _pool(np.maximum(_conv_same(h, w2) + b2, 0))
    h = np.maximum(h.reshape(len(x), -1) @ w3 + b3, 0)
    return np.float32(_xent(h @ w4 + b4, labels))


# --- JAX: the same model, jax.grad under jax.jit ---------------------------------------------

def _jax_forward(jnp, lax, kind, params, x):
    if kind == "mlp":
        return mlp.logits(x, params, jnp.matmul, lambda h: jnp.maximum(h, 0))
    w1, b1, w2, b2, w3, b3, w4, b4 = params

    def conv_pool(h, w, b):
        h = lax.conv_general_dilated(h, w, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        h = jnp.maximum(h + b, 0)
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")

    h = conv_pool(conv_pool(x, w1, b1), w2, b2).reshape(x.shape[0], -1)
    h = jnp.maximum(h @ w3 + b3, 0)
    return h @ w4 + b4


def _jax_contender(jax, kind, data):
    import jax.numpy as jnp
    from jax import lax

    start = time.perf_counter()

    def loss_fn(params, x, labels):
        logits = _jax_forward(jnp, lax, kind, params, x)
        log_probs = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))

    grad_fn = jax.value_and_grad(loss_fn)

    if kind == "mlp":
        @jax.jit
        def step(state, x, labels):
            params, = state
            loss, grads = grad_fn(params, x, labels)
            return ([p - F32(0.01) * g for p, g in zip(params, grads)],), loss
        state = ([jax.device_put(p) for p in data.consts],)
    else:
        lr, b1, b2, eps = (F32(ADAM[k]) for k in ("learning_rate", "beta1", "beta2",
                                                   "epsilon"))

        @jax.jit
        def step(state, x, labels):       # TF1's Adam: bias correction folded into lr_t
            params, m, v, t = state
            loss, grads = grad_fn(params, x, labels)
            t = t + 1
            lr_t = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
            v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
            params = [p - lr_t * mi / (jnp.sqrt(vi) + eps) for p, mi, vi in zip(params, m, v)]
            return (params, m, v, t), loss
        zeros = [jnp.zeros_like(p) for p in data.consts]
        state = ([jax.device_put(p) for p in data.consts], zeros, list(zeros), F32(0))

    feeds = tuple(jax.device_put(a) for a in data.feeds)
    box = [state]

    def run():
        box[0], loss = step(box[0], *feeds)
        return loss
    return Contender("jax jit", "peer", run, sync=lambda r: r.block_until_ready(),
                     api="jit (value_and_grad)", device=jax.devices()[0].platform.upper(),
                     setup_s=time.perf_counter() - start)


# --- measuring ---------------------------------------------------------------------------------

def _tf1_contender(tf, graph_fn, data):
    v1 = tf.compat.v1
    start = time.perf_counter()
    graph = tf.Graph()
    with graph.as_default():
        fetches, placeholders = graph_fn(v1, data)
        init = v1.global_variables_initializer()
    sess = v1.Session(graph=graph)
    sess.run(init)
    step = sess.make_callable(fetches, placeholders)
    return Contender("tf1", "peer", functools.partial(step, *data.feeds),
                     to_host=lambda r: np.asarray(r[0]), api="make_callable", device="CPU",
                     setup_s=time.perf_counter() - start, close=sess.close)


def _measure(kind, graph_fn, reference):
    return measure_with(graph_fn, reference, jax_kind=kind)


def measure_with(graph_fn, reference, peers=("tf1", "jax"), jax_kind=None,
                 jax_contender=None):
    """A workload's ``measure``: devsession on each target and the ``peers`` (TF1 with
    the same graph builder, JAX with ``jax_kind``'s model, or ``jax_contender(jax,
    data)``'s) each advancing a step per call; the first result is checked against
    ``reference(data)``."""
    def measure_training(workload, context):
        data = workload.make_data(np.random.default_rng(context.seed))
        contenders, failed = [], []
        for target in context.targets:
            try:
                contenders += devsession_contenders(
                    workload, data, target, context, graph_fn, initialize=True,
                    to_host=lambda r: np.asarray(r[0]))
            except Exception as e:
                failed.append(error_row(f"devsession {target.label}", "ours", e,
                                        requested=target.label))
        builders = {"tf1": lambda m: _tf1_contender(m, graph_fn, data),
                    "jax": lambda m: (jax_contender(m, data) if jax_contender else
                                      _jax_contender(m, jax_kind, data))}
        for peer in context.available_peers():
            if peer.name in builders and peer.name in peers:
                try:
                    contenders.append(builders[peer.name](peer.module))
                except Exception as e:
                    failed.append(error_row(peer.name, "peer", e))
        return measure(workload, contenders, reference(data), context) + failed
    return measure_training


def mlp_train(batch: int = 256, sizes: tuple = (784, 1024, 1024, 10),
              max_repeats: int | None = None) -> Workload:
    flops = 3 * 2 * batch * sum(a * b for a, b in zip(sizes[:-1], sizes[1:]))
    return Workload(
        name="mlp_train", title=f"MLP training step (SGD), batch {batch}, "
        f"{'-'.join(map(str, sizes))}, sparse xent", unit="steps/s", work=1.0,
        make_data=mlp_data(batch, sizes), measure=_measure("mlp", mlp_graph, _mlp_loss),
        rtol=1e-4, atol=1e-5, max_repeats=max_repeats, stateful=True,
        params={"batch": batch, "sizes": list(sizes), "gflop_per_step": flops / 1e9})


def convnet_train(batch: int = 64, max_repeats: int | None = None) -> Workload:
    return Workload(
        name="convnet_train", title=f"Deep MNIST convnet training step (Adam), batch {batch}",
        unit="steps/s", work=1.0, make_data=convnet_data(batch),
        measure=_measure("convnet", convnet_graph, _convnet_loss), rtol=1e-4, atol=1e-5,
        max_repeats=max_repeats, stateful=True, params={"batch": batch})
