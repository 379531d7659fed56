"""TF1 training constructs whose random ops take their seeds from the graph's seed only, in
one list that tests/data/make_tf_seed_parity.py builds with TensorFlow
(``tensorflow.compat.v1``) and tests/test_seed_parity.py with devsession, to compare the
op seeds each builder takes and the values they draw.

Each case is built in a graph of its own after ``set_random_seed(1)`` alone, so every op
seed is TF 2's count of the ``get_seed`` calls before it: a builder that takes one seed
more or less than TF's shifts every seed after it.  ``build`` ends each case with a
``probe`` draw, whose seed is that count once the case is built, and returns the
tensors whose first run is compared (random draws of the ops TF's values are kept for).

``DIFFERS``: cases where devsession builds other seeded ops than TF on purpose (the
count still agrees, as the probe shows): the types of TF's ops not to look for among
devsession's (TF builds them and devsession does not, or seeds them otherwise), and why.
``ROUNDED``: values compared within a float32 rounding, not bit for bit, and why.
"""

import numpy as np

PROBE = "probe"


def _x(tf, shape, scale=10.0):
    return tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / scale)


def get_variable_default(tf):
    """get_variable's default initializer (glorot uniform), 2-D and 1-D."""
    tf.get_variable("w", [3, 4])
    tf.get_variable("b", [4])
    tf.get_variable("w2", [5, 2])
    return {}


def layers(tf):
    """tf.layers' kernels (glorot uniform) between layers that draw nothing."""
    x = _x(tf, [1, 5, 5, 2])
    y = tf.layers.conv2d(x, 3, 3, padding="same")
    y = tf.layers.batch_normalization(y, training=True)
    y = tf.layers.conv2d_transpose(y, 2, 3)
    y = tf.layers.separable_conv2d(y, 2, 3)
    y = tf.layers.dense(tf.layers.flatten(y), 4, activation=tf.nn.relu)
    tf.layers.Dense(2, kernel_initializer=tf.truncated_normal_initializer(stddev=0.1))(y)
    return {}


def initializers(tf):
    """The initializers TF1 programs pass to get_variable."""
    inits = {
        "vs": tf.variance_scaling_initializer(),
        "vs_avg_uniform": tf.variance_scaling_initializer(2.0, "fan_avg", "uniform"),
        "vs_normal": tf.variance_scaling_initializer(distribution="normal"),
        "glorot_normal": tf.glorot_normal_initializer(),
        "glorot_uniform": tf.glorot_uniform_initializer(),
        "he_normal": tf.initializers.he_normal(),
        "he_uniform": tf.initializers.he_uniform(),
        "lecun_normal": tf.initializers.lecun_normal(),
        "truncated": tf.truncated_normal_initializer(stddev=0.1),
        "uniform": tf.random_uniform_initializer(-1.0, 1.0),
        "normal": tf.random_normal_initializer(1.0, 2.0),
        "seeded_uniform": tf.random_uniform_initializer(seed=7),
        "orthogonal": tf.orthogonal_initializer(),
    }
    for name, init in inits.items():
        tf.get_variable(name, [5, 3], initializer=init)
    tf.get_variable("orthogonal_conv", [2, 2, 3, 4], initializer=tf.orthogonal_initializer())
    tf.Variable(tf.random_normal([3, 3]), name="from_normal")
    tf.Variable(tf.random_uniform([4], 0, 10, dtype=tf.int32), name="from_ints")
    return {}


def dropout(tf):
    """nn.dropout by keep_prob and rate (a rate of 0 counts a seed as TF's), layers'."""
    x = tf.ones([4, 5])
    training = tf.placeholder_with_default(True, [])
    layer = tf.layers.Dropout(0.5, seed=3)
    return {"keep": tf.nn.dropout(x, keep_prob=0.5),
            "rate": tf.nn.dropout(x, rate=0.25),
            "rate_zero": tf.nn.dropout(x, rate=0.0),
            "keep_one": tf.nn.dropout(x, keep_prob=1.0),
            "seeded": tf.nn.dropout(x, rate=0.5, seed=3),
            "noise_shape": tf.nn.dropout(x, rate=0.5, noise_shape=[4, 1]),
            "layer": tf.layers.dropout(x, 0.5, training=True),
            "layer_rate_zero": tf.layers.dropout(x, 0.0, training=True),
            "layer_off": tf.layers.dropout(x, 0.5, training=False),
            "layer_fed": tf.layers.dropout(x, 0.5, training=training),
            "seeded_layer": layer(x, training=True),
            "seeded_layer_again": layer(x, training=True)}


def image_augmentation(tf):
    """Random crops and flips of an image and of a batch, a bounding-box crop."""
    image = _x(tf, [4, 4, 3], 50.0)
    batch = _x(tf, [3, 4, 4, 3], 150.0)
    tf.image.sample_distorted_bounding_box([32, 32, 3], tf.constant([[[0.1, 0.1, 0.9, 0.9]]]))
    return {"crop": tf.random_crop(image, [2, 2, 3]),
            "flip_lr": tf.image.random_flip_left_right(image),
            "flip_ud": tf.image.random_flip_up_down(image),
            "batch_flip_lr": tf.image.random_flip_left_right(batch),
            "batch_flip_ud": tf.image.random_flip_up_down(batch),
            "brightness": tf.image.random_brightness(image, 0.2),
            "contrast": tf.image.random_contrast(image, 0.5, 1.5)}


def input_pipelines(tf):
    """Dataset shuffles, a map drawing in its function, iterators, shuffling queues."""
    data = tf.data.Dataset.range(10).shuffle(10).batch(10)
    tf.data.make_one_shot_iterator(data).get_next()
    mapped = tf.data.Dataset.range(4).map(lambda i: tf.random_uniform([2])).shuffle(4, seed=5)
    tf.data.make_initializable_iterator(mapped).get_next()
    tf.data.make_one_shot_iterator(tf.data.Dataset.range(3).repeat()).get_next()
    values = tf.constant(np.arange(20, dtype=np.float32))
    row = tf.train.slice_input_producer([values], shuffle=True)
    tf.train.shuffle_batch(row, batch_size=4, capacity=20, min_after_dequeue=5)
    tf.train.string_input_producer(["a", "b"], shuffle=True)
    return {}


def dynamic_rnn_dropout(tf):
    """An LSTM with dropout on its inputs, outputs and state over 3 steps, a dense layer
    after: TF builds the cell once, in its while loop."""
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(5), input_keep_prob=0.9,
                                         output_keep_prob=0.8, state_keep_prob=0.7)
    outputs, _ = tf.nn.dynamic_rnn(cell, _x(tf, [2, 3, 4]), dtype=tf.float32)
    tf.layers.dense(outputs[:, -1], 2)
    return {}


def dynamic_rnn_unknown_steps(tf):
    """A GRU with output dropout over a batch of any length: devsession's while loop,
    whose body's dropout (in the loop's function graph) takes an uncounted seed, the cell
    called once before it, to make its variables, taking TF's."""
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(5), output_keep_prob=0.8)
    outputs, _ = tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [None, None, 4]),
                                   dtype=tf.float32)
    tf.layers.dense(outputs[:, -1], 2)
    return {}


def static_and_bidirectional_rnn(tf):
    """static_rnn builds the cell per step, as TF's; a bidirectional dynamic_rnn."""
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(3), output_keep_prob=0.5)
    tf.nn.static_rnn(cell, tf.unstack(_x(tf, [2, 3, 4]), axis=1), dtype=tf.float32)
    with tf.variable_scope("bi"):
        fw, bw = (tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(3),
                                                output_keep_prob=0.5) for _ in range(2))
        tf.nn.bidirectional_dynamic_rnn(fw, bw, _x(tf, [2, 3, 4]), dtype=tf.float32)
    return {}


def sampling(tf):
    """categorical, the candidate samplers, the sampled losses, gamma and Poisson."""
    logits = tf.constant([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]])
    weights = tf.get_variable("w", [10, 4])
    biases = tf.get_variable("b", [10], initializer=tf.zeros_initializer())
    labels = tf.constant([[1], [2], [3]], dtype=tf.int64)
    tf.nn.sampled_softmax_loss(weights, biases, labels, _x(tf, [3, 4]), 3, 10)
    tf.nn.nce_loss(weights, biases, labels, _x(tf, [3, 4]), 3, 10)
    for sampler in (tf.nn.uniform_candidate_sampler, tf.nn.log_uniform_candidate_sampler,
                    tf.nn.learned_unigram_candidate_sampler):
        sampler(labels, 1, 3, True, 10)
    tf.random_gamma([3], 2.0)
    tf.random_poisson(3.0, [3])
    return {"categorical": tf.random.categorical(logits, 4),
            "multinomial": tf.multinomial(logits, 2)}


CASES = {f.__name__: f for f in (get_variable_default, layers, initializers, dropout,
                                 image_augmentation, input_pipelines, dynamic_rnn_dropout,
                                 dynamic_rnn_unknown_steps, static_and_bidirectional_rnn,
                                 sampling)}

_UNROLLED = ("devsession unrolls a dynamic_rnn of known length: its later steps' dropouts "
             "are ops TF's while loop does not have, their seeds uncounted")
DIFFERS = {
    "image_augmentation": (("SampleDistortedBoundingBoxV2",), "TF's sample_distorted_bounding_box takes no op seed (seed "
                               "0: unseeded); devsession's is seeded from the graph's, "
                               "uncounted, so its crops repeat per session"),
    "dynamic_rnn_dropout": ((), _UNROLLED),
    "static_and_bidirectional_rnn": ((), _UNROLLED),
    "sampling": (("ComputeAccidentalHits",), "devsession's sampled_softmax_loss removes "
                 "accidental hits with a select, no ComputeAccidentalHits op (it counts "
                 "the op's seed)"),
}
ROUNDED = {
    ("initializers", "orthogonal"): "the QR decomposition is numpy's, not Eigen's",
    ("initializers", "orthogonal_conv"): "the QR decomposition is numpy's, not Eigen's",
    ("image_augmentation", "brightness"): "the image's arithmetic rounds differently",
    ("image_augmentation", "contrast"): "the image's arithmetic rounds differently",
}


def build(tf, name) -> dict:
    """Case ``name`` in the default graph (already seeded), then the probe: the tensors
    to run."""
    fetches = dict(CASES[name](tf))
    fetches[PROBE] = tf.random_uniform([4], name=PROBE)
    return fetches


def built(tf, name) -> tuple:
    """``(graph, fetches, variables, init)``: case ``name`` in a new graph of ``tf``'s
    seeded with 1, as TF recorded it and devsession rebuilds it."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        fetches = build(tf, name)
        variables = tf.global_variables()
        init = tf.global_variables_initializer()
    return graph, fetches, variables, init


def seeded_ops(graph) -> list:
    """``(type, seed, seed2)`` of every op with seed attrs, in the order they were built."""
    found = []
    for op in graph.get_operations():
        try:
            found.append((op.type, int(op.get_attr("seed")), int(op.get_attr("seed2"))))
        except (ValueError, KeyError):
            continue
    return found
