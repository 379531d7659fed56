"""TF1's seeded random ops (``multinomial``, ``random_gamma`` and ``random_poisson`` too) as a
program builds them, in one list that tests/data/make_tf_random_ops.py builds with
TensorFlow (``tensorflow.compat.v1``) and tests/test_random_ops_tf_values.py with
devsession, to compare value for value.

Only the graph's seed is set (``set_random_seed(1)``), so each op's seed comes from how
many seeds the graph gave before it, as TF 2 counts them; one op has its own seed."""

LAYERS = (6, 5, 3)      # the small classifier: inputs, hidden units, classes
BATCH = 8
LOGITS = [[0.0, 1.0, 2.0, -1.0], [3.0, 0.0, 0.0, float("-inf")], [0.1, 0.2, 0.3, 0.4]]
UNIGRAMS = [5.0, 1.0, 0.5, 3.0, 2.0, 8.0, 1.0, 1.0, 0.2, 4.0]


def draws(tf) -> dict:
    """key -> a random tensor (built in this order: the op seeds count on)."""
    ones = tf.ones([4, 5])
    return {
        "normal": tf.random_normal([3, 4]),
        "normal_scaled": tf.random_normal([5], mean=1.0, stddev=2.0),
        "normal_f64": tf.random_normal([3], dtype=tf.float64),
        "normal_f16": tf.random_normal([6], dtype=tf.float16),
        "uniform": tf.random_uniform([2, 5], -1.0, 3.0),
        "uniform_default": tf.random_uniform([7]),
        "uniform_f64": tf.random_uniform([3], dtype=tf.float64),
        "uniform_f16": tf.random_uniform([5], 0.5, 2.0, dtype=tf.float16),
        "uniform_tensor_bounds": tf.random_uniform([3], tf.constant(-2.0), tf.constant(2.0)),
        "truncated": tf.truncated_normal([4, 4], stddev=0.1),
        "truncated_f64": tf.truncated_normal([5], mean=3.0, dtype=tf.float64),
        "int32": tf.random_uniform([6], -5, 17, dtype=tf.int32),
        "int64": tf.random_uniform([4], -2**40, 2**41, dtype=tf.int64),
        "shuffle": tf.random_shuffle(tf.range(12)),
        "shuffle_rows": tf.random_shuffle(tf.reshape(tf.range(12), [4, 3])),
        "own_seed": tf.random_normal([3], seed=5),
        "long_truncated": tf.truncated_normal([5000]),
        "dropout": tf.nn.dropout(ones, rate=0.5),
        "multinomial": tf.multinomial(tf.constant(LOGITS), 5),
        "categorical_i32": tf.random.categorical(tf.constant(LOGITS), 3, dtype=tf.int32),
        "gamma": tf.random_gamma([3], [0.5, 1.0, 2.5, 40.0]),
        "gamma_beta_f64": tf.random_gamma([2, 2], 3.0, beta=2.0, dtype=tf.float64),
        "poisson": tf.random_poisson([2.0, 9.5, 30.0, 1e4], [4]),
        "poisson_i32": tf.random_poisson(7.0, [5], dtype=tf.int32),
    }


def classifier(tf, x, labels):
    """(loss, train_op, variables): a two-layer classifier whose weights TF1's usual
    initializers draw (glorot by get_variable, truncated normal, zeros), trained by SGD."""
    n_in, n_hidden, n_out = LAYERS
    w1 = tf.get_variable("w1", [n_in, n_hidden])                   # glorot uniform
    b1 = tf.Variable(tf.zeros([n_hidden]), name="b1")
    w2 = tf.Variable(tf.truncated_normal([n_hidden, n_out], stddev=0.5), name="w2")
    b2 = tf.get_variable("b2", [n_out], initializer=tf.random_normal_initializer(stddev=0.1))
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(hidden, w2) + b2
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return loss, train, {"w1": w1, "b1": b1, "w2": w2, "b2": b2}


def shuffles(tf) -> dict:
    """key -> a dataset whose order TF's ShuffleDataset decides (built in a graph of its
    own, all before any iterator: a one-shot iterator takes an op seed too)."""
    d = tf.data.Dataset
    return {
        "shuffle_epochs": d.range(10).shuffle(10, seed=3).repeat(3),
        "shuffle_small_buffer": d.range(20).shuffle(5, seed=3),
        "shuffle_fixed": d.range(10).shuffle(10, seed=3, reshuffle_each_iteration=False)
                          .repeat(2),
        "shuffle_big_buffer": d.range(7).shuffle(100, seed=9),
        "shuffle_graph_seed": d.range(12).shuffle(6).repeat(2),
        "shuffle_batched": d.range(16).shuffle(8, seed=4).batch(4),
        "repeat_then_shuffle": d.range(5).repeat(3).shuffle(4, seed=2),
        "slices": d.from_tensor_slices(tf.constant(
            [[i, 10 * i] for i in range(12)])).shuffle(5, seed=7).batch(3),
    }


def drain(tf, session, next_element) -> list:
    """Every element an iterator gives, as lists of Python numbers."""
    values = []
    while True:
        try:
            values.append(session.run(next_element).tolist())
        except tf.errors.OutOfRangeError:
            return values


def samplers(tf) -> dict:
    """key -> a candidate sampler's (sampled, true expected counts, sampled expected
    counts) whose classes TF's Philox stream decides (built in a graph of its own; the
    learned unigram samplers learn from the labels run after run)."""
    labels = tf.constant([[1], [5], [7], [5]], tf.int64)
    nn = tf.nn
    return {
        "log_uniform_unique": nn.log_uniform_candidate_sampler(labels, 1, 8, True, 50),
        "log_uniform": nn.log_uniform_candidate_sampler(labels, 1, 6, False, 1000000,
                                                        seed=4),
        "uniform_unique": nn.uniform_candidate_sampler(labels, 1, 9, True, 10),
        "uniform": nn.uniform_candidate_sampler(labels, 1, 5, False, 1000),
        "uniform_power_of_two": nn.uniform_candidate_sampler(labels, 1, 5, False, 64),
        "learned_unigram_unique": nn.learned_unigram_candidate_sampler(labels, 1, 6, True,
                                                                       12),
        "learned_unigram": nn.learned_unigram_candidate_sampler(labels, 1, 8, False, 9,
                                                                seed=3),
        "fixed_unigram": nn.fixed_unigram_candidate_sampler(
            labels, 1, 10, False, 10, unigrams=UNIGRAMS, distortion=0.75),
        "fixed_unigram_reserved": nn.fixed_unigram_candidate_sampler(
            labels, 1, 6, True, 12, unigrams=UNIGRAMS, num_reserved_ids=2, seed=2),
    }


def crops(tf) -> dict:
    """key -> a seeded ``sample_distorted_bounding_box``'s (begin, size, bboxes), TF's
    crops (built in a graph of its own)."""
    boxes = tf.constant([[[0.1, 0.2, 0.8, 0.9]]], tf.float32)
    sample = tf.image.sample_distorted_bounding_box
    return {
        "covering": sample([240, 320, 3], boxes, seed=5, min_object_covered=0.3),
        "narrow": sample([100, 57, 3], boxes, seed=7, seed2=2, aspect_ratio_range=[0.5, 2.0],
                         area_range=[0.05, 0.9], max_attempts=20),
        "whole_image": sample([64, 64, 3], tf.zeros([1, 0, 4]), seed=3,
                              use_image_if_no_bounding_boxes=True, min_object_covered=0.9),
    }


SAMPLER_OUTPUTS = ("classes", "true_counts", "counts")
CROP_OUTPUTS = ("begin", "size", "bboxes")


def runs_of(session, outputs: dict, names: tuple, prefix: str, runs: int = 3) -> dict:
    """``{"<prefix>:<key>:<name>:<run>": value}`` over ``runs`` runs of ``outputs`` (key
    -> a tuple of tensors, their names ``names``)."""
    found = {}
    for run in range(runs):
        for key, values in session.run(outputs).items():
            for name, value in zip(names, values):
                found[f"{prefix}:{key}:{name}:{run}"] = value
    return found
