"""The tf.random.Generator programs that make_tf_random_generator.py runs in TF 2.21 and
tests/test_random_generator.py runs in devsession: ``build(tf)`` with ``tf`` either
TensorFlow or devsession builds the same graph through ``tf.random`` and ``tf.constant``
alone, and returns the fetches in the order they are run, one ``sess.run`` each (the
state variables are initialized first).  Every draw reads and advances its generator's
state, so the order matters."""

import numpy as np


def build(tf):
    """[(name, fetch)]: draws of several generators, each followed by its state."""
    steps = []
    gen = tf.random.Generator.from_seed(1234)
    state = gen.state
    normal = gen.normal([2, 3])
    steps += [("normal", normal), ("state_1", state), ("normal_again", normal),
              ("state_2", state)]
    steps += [("uniform", gen.uniform([5])), ("uniform_range", gen.uniform(
        [2, 2], minval=-2.0, maxval=tf.constant(3.0))),
        ("uniform_int32", gen.uniform([7], minval=-3, maxval=9, dtype=tf.int32)),
        ("uniform_int64", gen.uniform([3], minval=2**40, maxval=2**41 + 7, dtype=tf.int64)),
        ("uniform_full_int", gen.uniform_full_int([3])),
        ("uniform_full_int32", gen.uniform([5], minval=None, maxval=None, dtype=tf.int32)),
        ("normal_float64", gen.normal([3], mean=1.0, stddev=2.0, dtype=tf.float64)),
        ("truncated", gen.truncated_normal([9], mean=-1.0, stddev=0.5)),
        ("truncated_float64", gen.truncated_normal([3], dtype=tf.float64)),
        ("uniform_half", gen.uniform([6], dtype=tf.float16)),
        ("empty", gen.normal([0, 4])), ("state_3", state),
        ("skip", gen.skip(10)), ("state_4", state),
        ("key", gen.key),
        ("make_seeds", gen.make_seeds(3)), ("state_5", state)]
    # split(2) draws the keys make_seeds(2) draws (TF's split fails in graph mode)
    keys = gen.make_seeds(2)
    steps += [("split_keys", keys), ("state_6", state)]
    steps += [("binomial", gen.binomial([3, 2], counts=[10.0, 50.0], probs=[0.3, 0.8])),
              ("state_7", state),
              ("binomial_big", gen.binomial([2], counts=tf.constant([100.0, 7.0], tf.float64),
                                            probs=tf.constant([0.4, 0.9], tf.float64),
                                            dtype=tf.float32)),
              ("state_8", state)]
    big = tf.random.Generator.from_seed(2**70 + 5)
    steps += [("big_state", big.state), ("big_uniform", big.uniform([5]))]
    vector = tf.random.Generator.from_seed([1, 2, 3, 4], alg="philox")
    steps += [("vector_state", vector.state), ("vector_full_int",
                                                vector.uniform_full_int([4], tf.int64))]
    keyed = tf.random.Generator.from_key_counter(key=5, counter=[7, 2**63 + 9], alg="philox")
    steps += [("keyed_state", keyed.state), ("keyed_normal", keyed.normal([5]))]
    stated = tf.random.Generator.from_state([-1, -1, 42], tf.random.Algorithm.PHILOX)
    steps += [("stated_uniform", stated.uniform([9])), ("stated_state", stated.state)]
    auto = tf.random.Generator.from_seed(77, alg=tf.random.Algorithm.AUTO_SELECT)
    steps += [("auto_state", auto.state), ("auto_normal", auto.normal([3])),
              ("auto_algorithm_state", auto.state)]
    threefry = tf.random.Generator.from_seed(5, alg="threefry")
    steps += [("threefry_state", threefry.state), ("threefry_skip", threefry.skip(3)),
              ("threefry_after", threefry.state)]
    reset = tf.random.Generator.from_seed(9)
    steps += [("reset_seed", _assignment(tf, lambda: reset.reset_from_seed(31))),
              ("reset_normal", reset.normal([2])),
              ("reset_key_counter", _assignment(tf, lambda: reset.reset_from_key_counter(
                  3, [4, 5]))),
              ("reset_uniform", reset.uniform([2])),
              ("reset_state", _assignment(tf, lambda: reset.reset(np.array([8, 0, 6])))),
              ("reset_after", reset.state)]
    return steps


def _assignment(tf, reset):
    """What ``reset()`` assigns, to run: TF's resets return nothing (their assignment is
    the AssignVariableOp they made), devsession's the assignment."""
    graph = tf.compat.v1.get_default_graph()
    before = len(graph.get_operations())
    made = reset()
    if made is None:
        made = [op for op in graph.get_operations()[before:]
                if op.type == "AssignVariableOp"][0]
    return made


def build_raw_ops(tf, raw):
    """[(name, fetch)]: TF's older stateful ops on a generator's variable (``raw`` makes
    them: TF's gen_stateful_random_ops, or devsession's ops), as TF 2.0's Generator
    built them; each draws at the state and advances it."""
    gen = tf.random.Generator.from_seed(4321)
    var = gen.state
    handle = getattr(var, "handle", var)
    alg = tf.constant(1, tf.int64)
    shape = tf.constant([5], tf.int64)
    return [("raw_normal", raw.stateful_standard_normal_v2(handle, alg, shape)),
            ("raw_state_1", var),
            ("raw_uniform", raw.stateful_uniform(handle, alg, shape, dtype=tf.float64)),
            ("raw_uniform_int", raw.stateful_uniform_int(
                handle, alg, shape, tf.constant(-5, tf.int64), tf.constant(5, tf.int64))),
            ("raw_full_int", raw.stateful_uniform_full_int(handle, alg, shape)),
            ("raw_truncated", raw.stateful_truncated_normal(handle, alg, shape)),
            ("raw_state_2", var),
            ("raw_skip", raw.rng_skip(handle, alg, tf.constant(3, tf.int64))),
            ("raw_state_3", var)]


def build_raw_algorithms(tf, raw):
    """[(name, fetch)]: TF's stateful ops given each algorithm number: Philox and auto
    select draw (the Binomial Philox only), ThreeFry and unknown numbers are errors."""
    gen = tf.random.Generator.from_seed(1)
    var = gen.state
    handle = getattr(var, "handle", var)
    shape = tf.constant([2], tf.int64)

    def alg(number, dtype=tf.int64):
        return tf.constant(number, dtype)
    return [("normal_threefry", raw.stateful_standard_normal_v2(handle, alg(2), shape)),
            ("normal_auto", raw.stateful_standard_normal_v2(handle, alg(3), shape)),
            ("normal_unknown", raw.stateful_standard_normal_v2(handle, alg(5), shape)),
            ("skip_auto", raw.rng_skip(handle, alg(3), tf.constant(2, tf.int64))),
            ("read_and_skip_unknown", raw.rng_read_and_skip(handle, alg(5, tf.int32),
                                                            tf.constant(2, tf.uint64))),
            ("binomial_threefry", raw.stateful_random_binomial(
                handle, alg(2), tf.constant([2, 1]), tf.constant([3.0]), tf.constant([0.5]))),
            ("algorithms_state", var)]
