"""The ``tf.data.experimental`` transformations tests/data/make_tf_data_experimental.py
records from TensorFlow and tests/test_data_experimental.py runs in devsession, written
once against the TF1 module each is given (``tf``: ``tensorflow.compat.v1`` or
``devsession``).  Reading a dataset out: window_cases.values."""

import numpy as np


def pipelines(tf) -> dict:
    """{name: a dataset whose elements both sides read out in order}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    r = Dataset.range
    pairs = Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 10.0))
    choice = Dataset.from_tensor_slices(np.array([0, 1, 2, 1, 0, 0, 2, 2, 1, 0], np.int64))
    short = Dataset.from_tensor_slices(np.array([1, 1, 1, 0, 1, 0], np.int64))
    return {
        "shuffle_and_repeat_unseeded_count": r(4).apply(E.shuffle_and_repeat(1, 3)),
        "map_and_batch": r(7).apply(E.map_and_batch(lambda x: x * 2, 3)),
        "map_and_batch_drop": pairs.apply(E.map_and_batch(
            lambda x, y: (x + 1, y * 2.0), 2, drop_remainder=True)),
        "parallel_interleave": r(4).apply(E.parallel_interleave(
            lambda x: Dataset.from_tensor_slices(tf.range(x * 10, x * 10 + x + 1)),
            cycle_length=2, block_length=2)),
        "parallel_interleave_3": r(5).apply(E.parallel_interleave(
            lambda x: Dataset.from_tensor_slices(tf.range(x) + 100 * x),
            cycle_length=3)),
        "unbatch": Dataset.from_tensor_slices(np.arange(12).reshape(2, 3, 2)).apply(
            E.unbatch()),
        "ignore_errors": Dataset.from_tensor_slices([1.0, 0.0, 2.0, -1.0, 4.0]).map(
            lambda x: tf.debugging.check_numerics(tf.log(x), "bad")).apply(
            E.ignore_errors()),
        "enumerate_dataset": Dataset.from_tensor_slices([7.0, 8.0, 9.0]).apply(
            E.enumerate_dataset(start=5)),
        "counter": E.Counter(3, 4).take(4),
        "counter_down_int32": E.Counter(10, -3, dtype=tf.int32).take(3),
        "take_while": r(10).apply(E.take_while(lambda x: x < 4)),
        "scan": r(6).apply(E.scan(np.int64(0), lambda s, x: (s + x, s * 2))),
        "scan_tuple_state": pairs.apply(E.scan(
            (np.int64(1), np.float64(0.5)), lambda s, e: ((s[0] * 2, s[1] + e[1]), s[0] + e[0]))),
        "choose_from_datasets": E.choose_from_datasets(
            [r(3), r(10, 12), r(20, 25)], choice),
        "choose_skips_empty": E.choose_from_datasets([r(3), r(10, 12)], short),
        "choose_stop_on_empty": E.choose_from_datasets(
            [r(3), r(10, 12)], short, stop_on_empty_dataset=True),
        "prefetch_to_device": r(3).apply(E.prefetch_to_device("/cpu:0")),
        "copy_to_device": r(3).apply(E.copy_to_device("/cpu:0")),
    }


def cardinalities(tf) -> dict:
    """{name: a dataset whose cardinality both sides compute}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    r = Dataset.range
    return {
        "range": r(10), "batch": r(10).batch(3), "batch_drop": r(10).batch(3, True),
        "repeat": r(3).repeat(4), "repeat_forever": r(3).repeat(),
        "take_forever": r(3).repeat().take(7), "skip": r(10).skip(4),
        "skip_past": r(3).skip(5), "shard": r(10).shard(3, 1),
        "slices": Dataset.from_tensor_slices(np.zeros((6, 2))),
        "zip": Dataset.zip((r(4), r(7))), "concatenate": r(4).concatenate(r(2)),
        "filter": r(4).filter(lambda x: x > 1), "map": r(5).map(lambda x: x + 1), "scan": r(5).apply(E.scan(
            np.int64(0), lambda s, x: (s, x))), "take_while": r(5).take_while(lambda x: x < 2),
        "ignore_errors": r(3).apply(E.ignore_errors()), "cache": r(3).cache(),
        "padded_batch": r(5).padded_batch(2, []),
        "tensors": Dataset.from_tensors(1.0), "empty_repeat": r(0).repeat(),
        "shuffle_and_repeat": r(5).apply(E.shuffle_and_repeat(5, 2)),
        "counter": E.Counter(), "take_all": r(2).take(-1),
    }


def single_elements(tf) -> dict:
    """{name: a dataset for get_single_element}: values, or TF's error text."""
    Dataset = tf.data.Dataset
    return {
        "one": Dataset.from_tensors((np.int64(4), np.array([1.0, 2.0]))),
        "one_of_range": Dataset.range(3).skip(2).map(lambda x: x * 7),
        "empty": Dataset.range(3).skip(3),
        "two": Dataset.range(2),
    }
