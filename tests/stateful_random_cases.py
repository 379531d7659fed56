"""One op of each stateful random type (``ops/stateful_random.py``), built from the
public API, for tests/test_graph.py's coverage of every registered op."""

import devsession as ds
from devsession.ops import stateful_random


def one_of_each_stateful_random_op() -> list:
    gen = ds.random.Generator.from_seed(1)
    shape = ds.constant([2], ds.int64)
    return [gen.normal([2]), gen.binomial([2], [5.0], [0.5]),
            ds.random.Generator.from_non_deterministic_state().state,
            stateful_random.rng_skip(gen.state, 1, 2),
            stateful_random.stateful_standard_normal_v2(gen.state, 1, shape),
            stateful_random.stateful_uniform(gen.state, 1, shape),
            stateful_random.stateful_truncated_normal(gen.state, 1, shape),
            stateful_random.stateful_uniform_full_int(gen.state, 1, shape),
            stateful_random.stateful_uniform_int(gen.state, 1, shape, ds.constant(0, ds.int64),
                                                 ds.constant(5, ds.int64))]
