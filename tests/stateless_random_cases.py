"""The ``tf.random.stateless_*`` calls TensorFlow recorded
(tests/data/make_tf_stateless_random.py) and devsession rebuilds to compare node for node
(tests/test_stateless_random.py): one list, built with either API's ``random`` and
dtypes, in TF 2.x's builder spellings."""


def draws(api, seed, seed64, size, logits) -> dict:
    """key -> the draw; ``api`` is ``tensorflow`` or ``devsession``.  The order is the
    recorded graph's (TF names a repeated builder ``_1``, ``_2``... in order)."""
    r = api.random
    return {
        "uniform": r.stateless_uniform([3, 5], seed),
        "uniform_bounds": r.stateless_uniform([7], seed64, minval=-2.0, maxval=3.0),
        "uniform_f64": r.stateless_uniform([9], seed, dtype=api.float64),
        "uniform_f16": r.stateless_uniform([9], seed, dtype=api.float16),
        "uniform_dynamic": r.stateless_uniform(size, seed),
        "normal": r.stateless_normal([4, 3], seed, mean=1.0, stddev=2.0),
        "normal_f64": r.stateless_normal([5], seed64, dtype=api.float64),
        "normal_f16": r.stateless_normal([6], seed, dtype=api.float16),
        "truncated": r.stateless_truncated_normal([2, 9], seed),
        "truncated_f64": r.stateless_truncated_normal([7], seed, dtype=api.float64,
                                                      stddev=0.5),
        "int32": r.stateless_uniform([10], seed, minval=-3, maxval=17, dtype=api.int32),
        "int64": r.stateless_uniform([5], seed, minval=-2**40, maxval=2**41,
                                     dtype=api.int64),
        "full_int32": r.stateless_uniform([6], seed, minval=None, maxval=None,
                                          dtype=api.int32),
        "full_uint64": r.stateless_uniform([3], seed, minval=None, maxval=None,
                                           dtype=api.uint64),
        "categorical": r.stateless_categorical(logits, 6, seed),
        "categorical_i32": r.stateless_categorical(logits, 3, seed64, dtype=api.int32),
    }
