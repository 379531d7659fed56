"""The random sources of tf.data whose values TF decides for a seed: ``RandomDataset``
and ``sample_from_datasets``' selector (tests/data/make_tf_data_random.py records TF's,
tests/test_data_random_tf_values.py compares devsession's).  Shared by both so that they
build the same graph: ``sources`` builds its datasets in order in one graph of graph seed
1, the unseeded ones taking op seeds from the graph's count (a ``sample_from_datasets``
left with one dataset takes none)."""

import numpy as np
from random_ops_cases import drain  # noqa: F401  (tests/: every element an iterator gives)

GRAPH_SEED = 1


def sources(tf) -> dict:
    """key -> a finite dataset of int64 scalars (or vectors: ``random_batched``)."""
    E, D = tf.data.experimental, tf.data.Dataset
    r = D.range
    return {
        "random": E.RandomDataset(7).take(20),
        "random_graph_seed": E.RandomDataset().take(10),
        "random_repeated": E.RandomDataset(3).take(4).repeat(2),
        "random_batched": E.RandomDataset(11).batch(3).take(4),
        "sample_three": E.sample_from_datasets([r(0, 100), r(100, 200), r(200, 300)],
                                               [0.2, 0.3, 0.5], seed=5).take(60),
        "sample_uniform": E.sample_from_datasets([r(0, 50), r(100, 150)], seed=1).take(60),
        "sample_graph_seed": E.sample_from_datasets([r(10), r(100, 110)], [0.6, 0.4]),
        "sample_one_left": E.sample_from_datasets([r(3), r(100, 103)], [1.0, 0.0]),
        "sample_zero_weight": E.sample_from_datasets([r(5), r(100, 105), r(200, 205)],
                                                     [0.5, 0.0, 0.5], seed=2),
        "sample_float64": E.sample_from_datasets(
            [r(20), r(100, 120)], np.array([0.7, 0.3], np.float64), seed=4),
        "sample_tensor_weights": E.sample_from_datasets(
            [r(0, 30), r(100, 130), r(200, 230)], tf.constant([0.1, 0.0, 0.9]), seed=6).take(50),
        "sample_stop_on_empty": E.sample_from_datasets(
            [r(4), r(100, 140)], [0.5, 0.5], seed=8, stop_on_empty_dataset=True),
        "random_last": E.RandomDataset().take(5),
    }
