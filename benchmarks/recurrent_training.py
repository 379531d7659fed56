"""An LSTM language model's training step, as TF1's PTB tutorial ("small" model) trains
one: token embedding, two ``LSTMCell`` layers stepped by ``tf.nn.dynamic_rnn`` over 35
steps of a batch of 32, a softmax over the vocabulary, sparse cross-entropy, gradients
clipped by their global norm, SGD.  Its products are small (a batch of 32 against
400x800 kernels, 70 of them forward) and its elementwise work is per step, so what bounds
it is how a library runs many small kernels in sequence, not BLAS speed.

The same graph builder runs with ``devsession`` and with ``tf.compat.v1``; JAX runs the
same model (``lax.scan`` over the steps) under ``jax.jit``.  Every contender starts from
the same weights (the LSTM kernels through ``LSTMCell(initializer=...)``, its biases
zero) and its first step's loss is checked against numpy's.
"""

from __future__ import annotations

import time

import numpy as np

from .contenders import Contender
from .training import measure_with
from .workload import Data, Workload

__all__ = ["lstm_train", "lstm_data", "lstm_graph"]

F32 = np.float32
LEARNING_RATE, MAX_GRAD_NORM, FORGET_BIAS = 1.0, 5.0, 1.0


def lstm_data(batch, steps, hidden, vocab, layers):
    def make(rng) -> Data:
        tokens = rng.integers(0, vocab, (batch, steps)).astype(np.int32)
        targets = rng.integers(0, vocab, (batch, steps)).astype(np.int32)

        def uniform(*shape):
            return rng.uniform(-0.1, 0.1, shape).astype(F32)
        consts = (uniform(vocab, hidden), *(uniform(2 * hidden, 4 * hidden)
                                            for _ in range(layers)),
                  uniform(hidden, vocab), np.zeros(vocab, F32))
        return Data((tokens, targets), ("tokens", "targets"), consts)
    return make


def lstm_graph(api, data):
    tokens = api.placeholder(api.int32, data.feeds[0].shape, name="tokens")
    targets = api.placeholder(api.int32, data.feeds[1].shape, name="targets")
    embedding, *kernels, softmax_w, softmax_b = data.consts
    hidden = embedding.shape[1]
    inputs = api.nn.embedding_lookup(api.Variable(embedding, name="embedding"), tokens)
    cells = [api.nn.rnn_cell.LSTMCell(hidden, forget_bias=FORGET_BIAS,
                                      initializer=api.constant_initializer(kernel))
             for kernel in kernels]
    outputs, _ = api.nn.dynamic_rnn(api.nn.rnn_cell.MultiRNNCell(cells), inputs,
                                    dtype=api.float32)
    logits = api.matmul(api.reshape(outputs, [-1, hidden]),
                        api.Variable(softmax_w, name="softmax_w")) + \
        api.Variable(softmax_b, name="softmax_b")
    loss = api.reduce_mean(api.nn.sparse_softmax_cross_entropy_with_logits(
        labels=api.reshape(targets, [-1]), logits=logits))
    variables = api.trainable_variables()
    grads, _ = api.clip_by_global_norm(api.gradients(loss, variables), MAX_GRAD_NORM)
    train = api.train.GradientDescentOptimizer(LEARNING_RATE).apply_gradients(
        zip(grads, variables))
    return [loss, train], [tokens, targets]


# --- numpy: the first step's loss -----------------------------------------------------------

def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lstm_loss(data):
    tokens, targets = data.feeds
    embedding, *kernels, softmax_w, softmax_b = (c.astype(np.float64) for c in data.consts)
    batch, hidden = tokens.shape[0], embedding.shape[1]
    layer_inputs = embedding[tokens]                            # batch, steps, hidden
    for kernel in kernels:
        c, h, outputs = np.zeros((batch, hidden)), np.zeros((batch, hidden)), []
        for t in range(tokens.shape[1]):
            i, j, f, o = np.split(np.concatenate([layer_inputs[:, t], h], 1) @ kernel, 4, 1)
            c = _sigmoid(f + FORGET_BIAS) * c + _sigmoid(i) * np.tanh(j)
            h = _sigmoid(o) * np.tanh(c)
            outputs.append(h)
        layer_inputs = np.stack(outputs, 1)
    logits = layer_inputs.reshape(-1, hidden) @ softmax_w + softmax_b
    shifted = logits - logits.max(1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    return np.float32(-log_probs[np.arange(len(logits)), targets.reshape(-1)].mean())


# --- JAX: the same model, lax.scan over the steps under jax.jit -----------------------------

def _jax_contender(jax, data):
    import jax.numpy as jnp
    from jax import lax

    start = time.perf_counter()

    def loss_fn(params, tokens, targets):
        embedding, cells, softmax_w, softmax_b = params
        layer_inputs = jnp.swapaxes(embedding[tokens], 0, 1)   # steps, batch, hidden
        zeros = jnp.zeros((tokens.shape[0], embedding.shape[1]), F32)
        for kernel, bias in cells:
            def step(state, x, kernel=kernel, bias=bias):
                c, h = state
                i, j, f, o = jnp.split(jnp.concatenate([x, h], 1) @ kernel + bias, 4, 1)
                c = jax.nn.sigmoid(f + FORGET_BIAS) * c + jax.nn.sigmoid(i) * jnp.tanh(j)
                h = jax.nn.sigmoid(o) * jnp.tanh(c)
                return (c, h), h
            _, layer_inputs = lax.scan(step, (zeros, zeros), layer_inputs)
        logits = jnp.swapaxes(layer_inputs, 0, 1).reshape(-1, embedding.shape[1]) @ \
            softmax_w + softmax_b
        log_probs = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(log_probs, targets.reshape(-1, 1), axis=1))

    grad_fn = jax.value_and_grad(loss_fn)

    @jax.jit
    def train_step(params, tokens, targets):
        loss, grads = grad_fn(params, tokens, targets)
        norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
        scale = MAX_GRAD_NORM / jnp.maximum(norm, MAX_GRAD_NORM)   # TF's clip_by_global_norm
        return jax.tree_util.tree_map(lambda p, g: p - LEARNING_RATE * scale * g,
                                      params, grads), loss

    embedding, *kernels, softmax_w, softmax_b = data.consts
    params = (embedding, [(k, np.zeros(k.shape[1], F32)) for k in kernels],   # LSTMCell's
              softmax_w, softmax_b)                                          # zero biases
    box = [jax.device_put(params)]
    feeds = tuple(jax.device_put(a) for a in data.feeds)

    def run():
        box[0], loss = train_step(box[0], *feeds)
        return loss
    return Contender("jax jit", "peer", run, sync=lambda r: r.block_until_ready(),
                     api="jit (value_and_grad, lax.scan)",
                     device=jax.devices()[0].platform.upper(),
                     setup_s=time.perf_counter() - start)


def lstm_train(batch: int = 32, steps: int = 35, hidden: int = 200, vocab: int = 1000,
               layers: int = 2, max_repeats: int | None = None) -> Workload:
    return Workload(
        name="lstm_train", title=f"LSTM language model training step (PTB small: "
        f"{layers}x{hidden} LSTMCell, {steps} steps, batch {batch}, vocab {vocab}, "
        f"clipped SGD)", unit="steps/s", work=1.0,
        make_data=lstm_data(batch, steps, hidden, vocab, layers),
        measure=measure_with(lstm_graph, _lstm_loss, jax_contender=_jax_contender),
        rtol=1e-4, atol=1e-5, max_repeats=max_repeats, stateful=True,
        params={"batch": batch, "steps": steps, "hidden": hidden, "vocab": vocab,
                "layers": layers})
