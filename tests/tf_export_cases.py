"""Models whose GraphDefs in TensorFlow's form (``devsession/tf_export.py``) TensorFlow
imported and ran once (``tests/data/make_tf_export.py``, which records them in
``tests/data/tf_export/``), rebuilt here by ``tests/test_tf_export.py`` to check that the
export has not drifted from what TF ran.

Every model is built from fixed numpy values (no random initializers), so it freezes to
the same Consts on every run.  ``CASES`` maps a name to a builder that fills the default
graph and returns a ``Case``; ``frozen(name)`` builds it and gives the GraphDef recorded.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import devsession as ds


@dataclasses.dataclass
class Case:
    feeds: dict            # placeholder name -> value
    outputs: list          # tensor names fetched ("probs:0")
    variables: bool = True  # frozen by convert_variables_to_constants, else to_tf_graph_def


def _normal(rng, *shape, scale=0.1) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def mlp() -> Case:
    """x -> MatMul + Add + Relu -> MatMul + BiasAdd -> Softmax, with a loss, Adam and a
    Saver that freezing leaves out."""
    rng = np.random.RandomState(11)
    x = ds.placeholder(ds.float32, (None, 20), name="x")
    labels = ds.placeholder(ds.int64, (None,), name="labels")
    w1, b1 = ds.Variable(_normal(rng, 20, 16), name="w1"), ds.Variable(_normal(rng, 16), name="b1")
    w2, b2 = ds.Variable(_normal(rng, 16, 10), name="w2"), ds.Variable(_normal(rng, 10), name="b2")
    hidden = ds.nn.relu(ds.matmul(x, w1) + b1, name="hidden")
    logits = ds.nn.bias_add(ds.matmul(hidden, w2), b2, name="logits")
    ds.nn.softmax(logits, name="probs")
    loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                        logits=logits))
    ds.train.AdamOptimizer(1e-3).minimize(loss)
    ds.train.Saver()
    return Case({"x": _normal(rng, 4, 20, scale=1.0)}, ["probs:0", "logits:0"])


def deep_mnist() -> Case:
    """TF's "Deep MNIST for experts" convnet, narrower: reshape, two 5x5 convs with ReLU
    and 2x2 max pools, a dense layer, dropout with a keep_prob placeholder, the readout,
    and the tutorial's cross entropy, Adam, accuracy."""
    rng = np.random.RandomState(12)

    def weight(*shape):
        return ds.Variable(np.clip(_normal(rng, *shape), -0.2, 0.2), name="weights")

    def bias(n):
        return ds.Variable(np.full(n, 0.1, np.float32), name="biases")

    x = ds.placeholder(ds.float32, (None, 784), name="x")
    y_ = ds.placeholder(ds.float32, (None, 10), name="y_")
    keep_prob = ds.placeholder(ds.float32, name="keep_prob")
    image = ds.reshape(x, [-1, 28, 28, 1])
    with ds.name_scope("conv1"):
        h = ds.nn.relu(ds.nn.conv2d(image, weight(5, 5, 1, 4), [1, 1, 1, 1], "SAME") + bias(4))
        h = ds.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    with ds.name_scope("conv2"):
        h = ds.nn.relu(ds.nn.conv2d(h, weight(5, 5, 4, 8), [1, 1, 1, 1], "SAME") + bias(8))
        h = ds.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    with ds.name_scope("fc1"):
        h = ds.nn.relu(ds.matmul(ds.reshape(h, [-1, 7 * 7 * 8]), weight(7 * 7 * 8, 32))
                       + bias(32))
        h = ds.nn.dropout(h, keep_prob)
    with ds.name_scope("fc2"):
        readout = ds.matmul(h, weight(32, 10)) + bias(10)
    y_conv = ds.identity(readout, name="y_conv")
    ds.nn.softmax(y_conv, name="probs")
    cross_entropy = ds.reduce_mean(
        ds.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y_conv))
    ds.train.AdamOptimizer(1e-4).minimize(cross_entropy)
    correct = ds.equal(ds.argmax(y_conv, 1), ds.argmax(y_, 1), name="correct")
    ds.reduce_mean(ds.cast(correct, ds.float32), name="accuracy")
    images = np.clip(rng.standard_normal((3, 784)), 0, None).astype(np.float32)
    onehot = np.eye(10, dtype=np.float32)[[3, 1, 4]]
    return Case({"x": images, "y_": onehot, "keep_prob": np.float32(1.0)},
                ["probs:0", "y_conv:0", "accuracy:0", "correct:0"])


def tensor_ops() -> Case:
    """The ops whose devsession attrs are TF inputs (reductions, arg reductions, concat,
    transpose, reshape, softmax over an inner axis, random draws), and gather, strided
    slices, casts, batch norms and friends."""
    rng = np.random.RandomState(13)
    x = ds.placeholder(ds.float32, (4, 6), name="x")
    ids = ds.placeholder(ds.int32, (5,), name="ids")
    u = ds.placeholder(ds.float32, None, name="u")                 # unknown rank
    v = ds.Variable(_normal(rng, 4, 6, scale=1.0), name="v")
    out = {}

    def put(name, tensor):
        out[name] = ds.identity(tensor, name=f"out_{name}")

    put("sum_all", ds.reduce_sum(x))
    put("mean_keep", ds.reduce_mean(x, axis=1, keepdims=True))
    put("max_last", ds.reduce_max(x, axis=-1))
    put("min_0", ds.reduce_min(x, 0))
    put("prod", ds.reduce_prod(x[:, :2] + 1.0, axis=[0, 1]))
    put("all", ds.reduce_all(x > -1.0, axis=1))
    put("any", ds.reduce_any(x > 1.0, axis=0, keepdims=True))
    put("sum_unknown", ds.reduce_sum(u))
    put("mean_unknown_last", ds.reduce_mean(u, axis=-1))
    put("reshape", ds.reshape(x, [3, -1]))
    put("transpose", ds.transpose(x))
    put("transpose_3d", ds.transpose(ds.reshape(x, [2, 3, 4]), [1, 2, 0]))
    put("concat", ds.concat([x, x * 2.0], 0))
    put("concat_last", ds.concat([x, v], -1))
    put("concat_one", ds.concat([x], 1))
    put("gather", ds.gather(x, ids % 4))
    put("gather_axis1", ds.gather(x, ids, axis=1))
    put("slices", ds.concat([x[1:3, ::2], ds.reshape(x[..., 0], [2, 2]),
                             ds.reshape(x[1][:4], [2, 2])], 1))
    put("cast_int", ds.cast(x * 3.0, ds.int32))
    put("cast_f64", ds.cast(ids, ds.float64))
    put("argmax", ds.argmax(x, 1))
    put("argmin", ds.argmin(x, 0, output_type=ds.int32))
    put("softmax", ds.nn.softmax(x))
    put("softmax_0", ds.nn.softmax(x, axis=0))
    put("log_softmax", ds.nn.log_softmax(x))
    mean, variance = ds.nn.moments(x, axes=[0])
    put("batch_norm", ds.nn.batch_normalization(x, mean, variance, offset=0.5, scale=2.0,
                                                variance_epsilon=1e-3))
    images = ds.reshape(x, [1, 2, 2, 6])
    scale, offset = ds.constant(_normal(rng, 6, scale=1.0)), ds.constant(_normal(rng, 6))
    put("fused_batch_norm", ds.nn.fused_batch_norm(
        images, scale, offset, mean=ds.constant(_normal(rng, 6)),
        variance=ds.constant(np.abs(_normal(rng, 6, scale=1.0))), is_training=False)[0])
    pieces = ds.split(x, 3, axis=1)
    put("split_stack", ds.stack([pieces[0], pieces[2]], axis=1))
    put("unstack_add_n", ds.add_n(ds.unstack(x)))
    put("tile_pad", ds.pad(ds.tile(x[:1], [2, 1]), [[1, 0], [0, 2]]))
    put("expand_squeeze", ds.squeeze(ds.expand_dims(x, 0), [0]))
    put("one_hot", ds.one_hot(ids % 6, 6))
    put("where", ds.where(x > 0.0, x, -x))
    put("top_k", ds.nn.top_k(x, 2)[0])
    put("matmul", ds.matmul(x, v, transpose_b=True))
    stacked = ds.reshape(x, [2, 2, 6])                  # TF's BatchMatMulV2
    put("matmul_batched", ds.matmul(stacked, stacked, transpose_b=True))
    pairs = ds.complex(stacked, 1.0 - stacked)
    put("matmul_complex_transposed", ds.matmul(pairs, pairs, transpose_a=True))
    check = ds.Assert(ds.reduce_all(ds.is_finite(x)), [x], message="x must be finite")
    with ds.control_dependencies([check]):
        put("asserted", ds.identity(x))
        put("read_after", ds.identity(v))                # a read under control inputs
    # random draws, checked by what is certain of them
    put("uniform_in_bounds", ds.reduce_all(ds.logical_and(
        ds.random_uniform([5, 3], minval=2.0, maxval=5.0, seed=1) >= 2.0,
        ds.random_uniform([5, 3], minval=2.0, maxval=5.0, seed=2) < 5.0)))
    put("uniform_int_in_bounds", ds.logical_and(
        ds.reduce_all(ds.random_uniform([7], minval=3, maxval=9, dtype=ds.int64, seed=3) >= 3),
        ds.reduce_all(ds.random_uniform(ds.shape(ids), minval=-4, maxval=0, dtype=ds.int32,
                                        seed=4) < 0)))
    put("normal_shape", ds.shape(ds.random_normal([2, 5], mean=2.0, stddev=3.0, seed=5)))
    put("truncated_in_bounds", ds.reduce_all(ds.abs(
        ds.truncated_normal(ds.shape(x), mean=-1.0, stddev=0.5, seed=6) + 1.0) <= 1.0))
    feeds = {"x": _normal(rng, 4, 6, scale=1.0), "ids": np.array([5, 0, 3, 3, 1], np.int32),
             "u": _normal(rng, 2, 3, 2, scale=1.0)}
    return Case(feeds, [f"{t.name}" for t in out.values()])


def layers() -> Case:
    """tf.layers as a TF1 script uses them, frozen for inference: conv2d, batch norm
    (inference), max pooling, flatten, dense, dropout (not training)."""
    rng = np.random.RandomState(14)

    def init(*shape):
        return ds.constant_initializer(_normal(rng, *shape, scale=0.3))

    x = ds.placeholder(ds.float32, (None, 6, 6, 2), name="images")
    h = ds.layers.conv2d(x, 3, 3, padding="same", kernel_initializer=init(3, 3, 2, 3),
                         bias_initializer=init(3))
    h = ds.layers.batch_normalization(h, training=False, fused=True,
                                      gamma_initializer=init(3), beta_initializer=init(3),
                                      moving_mean_initializer=init(3))
    h = ds.layers.max_pooling2d(ds.nn.relu(h), 2, 2)
    h = ds.layers.dense(ds.layers.flatten(h), 5, activation=ds.nn.tanh,
                        kernel_initializer=init(27, 5), bias_initializer=init(5))
    h = ds.layers.dropout(h, rate=0.5, training=False)
    ds.identity(ds.layers.dense(h, 3, kernel_initializer=init(5, 3)), name="logits")
    return Case({"images": _normal(rng, 2, 6, 6, 2, scale=1.0)}, ["logits:0"])


def no_variables() -> Case:
    """A graph without variables, exported with ``to_tf_graph_def`` of the whole graph."""
    a = ds.placeholder(ds.float32, (None, 3), name="a")
    ds.identity(ds.reduce_logsumexp(a, axis=1) - ds.reduce_max(a), name="out")
    return Case({"a": np.arange(6, dtype=np.float32).reshape(2, 3) / 4}, ["out:0"],
                variables=False)


def control_flow() -> Case:
    """ds.cond with two results and a cond nested in a branch, and ds.while_loop whose
    body reads a variable and a tensor it captures and holds a cond: TF 2's functional
    If and While in the export, each branch, cond and body a function of its library."""
    rng = np.random.RandomState(13)
    x = ds.placeholder(ds.float32, (None, 4), name="x")
    training = ds.placeholder_with_default(False, (), name="training")
    steps = ds.placeholder_with_default(3, (), name="steps")
    w = ds.Variable(_normal(rng, 4, 4, scale=0.5), name="w")
    scale = ds.Variable(np.float32(1.5), name="scale")
    h, s = ds.cond(training, lambda: (x * scale, ds.reduce_sum(x)),
                   lambda: (x - 1.0, ds.cond(ds.reduce_mean(x) > 0, lambda: ds.reduce_max(x),
                                             lambda: ds.reduce_min(x))), name="mode")
    ds.identity(h, name="h")

    def body(i, a):
        a = ds.tanh(ds.matmul(a, w)) + s
        return i + 1, ds.cond(ds.equal(i % 2, 0), lambda: a * 0.5, lambda: a)

    _, out = ds.while_loop(lambda i, a: i < steps, body, [0, h], name="loop")
    ds.identity(out, name="out")
    return Case({"x": _normal(rng, 3, 4, scale=1.0), "training": np.array(True)},
                ["out:0", "h:0"])


CASES = {"mlp": mlp, "deep_mnist": deep_mnist, "tensor_ops": tensor_ops, "layers": layers,
         "no_variables": no_variables, "control_flow": control_flow}


def build(name: str) -> tuple[ds.Graph, Case]:
    graph = ds.Graph()
    with graph.as_default():
        case = CASES[name]()
    return graph, case


def frozen(name: str):
    """(graph, case, the model's GraphDef in TF's form): frozen with
    ``graph_util.convert_variables_to_constants``, or the whole graph's
    ``to_tf_graph_def`` for a case without variables."""
    from devsession.tf_export import to_tf_graph_def

    graph, case = build(name)
    if not case.variables:
        return graph, case, to_tf_graph_def(graph)
    with graph.as_default(), ds.Session(graph=graph) as sess:
        sess.run(ds.global_variables_initializer())
        graph_def = ds.graph_util.convert_variables_to_constants(
            sess, graph.as_graph_def(), [name.split(":")[0] for name in case.outputs])
    return graph, case, graph_def


def run_devsession(graph: ds.Graph, case: Case) -> list:
    """The model's outputs for its feeds, computed by devsession from ``graph``
    (variables initialized)."""
    with graph.as_default(), ds.Session(graph=graph) as sess:
        if case.variables:
            sess.run(ds.global_variables_initializer())
        return sess.run(case.outputs, {f"{k}:0": v for k, v in case.feeds.items()})
