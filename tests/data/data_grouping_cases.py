"""The grouping transformations (``group_by_window``, ``bucket_by_sequence_length``)
tests/data/make_data_grouping.py records from TensorFlow and tests/test_data_grouping.py
runs in devsession, written once against the TF1 module each is given (``tf``:
``tensorflow.compat.v1`` or ``devsession``).  Reading a dataset out:
window_cases.values."""

import numpy as np


def pipelines(tf) -> dict:
    """{name: a dataset whose elements (in order) and output_shapes both sides read}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    r = Dataset.range
    pairs = Dataset.from_tensor_slices((np.arange(9), np.arange(9) * 10.0))
    table = Dataset.from_tensor_slices({"a": np.arange(7),
                                        "b": np.arange(14).reshape(7, 2)})
    # sequences of lengths 0..8, each filled with its length (int64, shape [None])
    sequences = r(9).map(lambda n: tf.fill([tf.cast(n, tf.int32)], n))
    lengths = np.array([1, 4, 3, 5, 6, 2, 0, 3, 7], np.int64)
    ragged = Dataset.from_tensor_slices(lengths).map(lambda n: tf.range(n) + 10 * n)
    labelled = ragged.map(lambda s: (s, tf.size(s)))
    length = lambda s, *_: tf.shape(s)[0]  # noqa: E731
    return {
        "window_size": r(10).apply(E.group_by_window(
            lambda x: x % 2, lambda k, w: w.batch(3), window_size=3)),
        "window_size_func": r(14).apply(E.group_by_window(
            lambda x: x % 3, lambda k, w: w.batch(10), window_size_func=lambda k: k + 1)),
        "flush_order": r(7).apply(E.group_by_window(
            lambda x: 2 - x % 3, lambda k, w: w.batch(9), window_size=5)),
        "key_in_reduce": r(11).apply(E.group_by_window(
            lambda x: x // 4, lambda k, w: w.batch(4).map(lambda b: (k, b)),
            window_size=2)),
        "window_one": r(4).apply(E.group_by_window(
            lambda x: x % 2, lambda k, w: w.batch(2), window_size=1)),
        "empty": r(0).apply(E.group_by_window(
            lambda x: x, lambda k, w: w.batch(2), window_size=2)),
        "method_tuple": pairs.group_by_window(
            lambda x, y: x % 3, lambda k, w: w.batch(2), window_size=2),
        "dict": table.apply(E.group_by_window(
            lambda e: e["a"] % 2, lambda k, w: w.map(lambda e: e["b"] * 2).batch(3),
            window_size=2)),
        "ragged_windows": ragged.apply(E.group_by_window(
            lambda s: tf.cast(tf.size(s) % 2, tf.int64),
            lambda k, w: w.padded_batch(2, [None]), window_size=3)),
        "ragged_take": ragged.apply(E.group_by_window(
            lambda s: tf.cast(tf.size(s) > 3, tf.int64),
            lambda k, w: w.skip(1).take(1), window_size=4)),
        "bucket_doc": Dataset.from_tensor_slices(np.array(
            [1, 4, 3, 5, 6, 2], np.int64)).map(lambda n: tf.range(n)).apply(
            E.bucket_by_sequence_length(length, [3, 5], [2, 2, 2])),
        "bucket": sequences.apply(E.bucket_by_sequence_length(
            length, [2, 4, 6], [2, 3, 2, 1])),
        "bucket_boundary": ragged.apply(E.bucket_by_sequence_length(
            length, [4, 8], [2, 2, 2], pad_to_bucket_boundary=True,
            padding_values=np.int64(-1))),
        "bucket_boundary_drop": ragged.apply(E.bucket_by_sequence_length(
            length, [4, 8], [2, 2, 2], pad_to_bucket_boundary=True,
            padding_values=np.int64(-1), drop_remainder=True)),
        "bucket_drop": sequences.apply(E.bucket_by_sequence_length(
            length, [3, 6], [2, 2, 2], drop_remainder=True)),
        "bucket_padded_shapes": ragged.bucket_by_sequence_length(
            length, [3], [3, 2], padded_shapes=[9]),
        "bucket_labelled": labelled.apply(E.bucket_by_sequence_length(
            length, [2, 5], [2, 2, 3], padding_values=(np.int64(-7), 0))),
        "bucket_no_padding": pairs.apply(E.bucket_by_sequence_length(
            lambda x, y: tf.cast(x, tf.int32), [4], [3, 2], no_padding=True)),
        "bucket_no_padding_drop": pairs.apply(E.bucket_by_sequence_length(
            lambda x, y: tf.cast(x, tf.int32), [4], [3, 2], no_padding=True,
            drop_remainder=True)),
    }


def reducers(tf) -> dict:
    """{name: a group_by_reducer dataset whose elements and output_shapes both sides
    read}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    r = Dataset.range
    total = E.Reducer(lambda k: np.int64(0), lambda s, x: s + x, lambda s: s)
    mean = E.Reducer(lambda k: (0.0, 0.0),
                     lambda s, e: (s[0] + e["v"], s[1] + 1.0),
                     lambda t, n: t / n)
    gather = E.Reducer(lambda k: tf.zeros([0], tf.int64),
                       lambda s, x: tf.concat([s, [x * 10]], 0),
                       lambda s: (s, tf.size(s)))
    values = Dataset.from_tensor_slices({"k": np.array([3, 1, 3, 2, 1, 3], np.int64),
                                         "v": np.array([1., 2., 3., 4., 5., 6.], np.float32)})
    return {
        "sum": r(10).apply(E.group_by_reducer(lambda x: 2 - x % 3, total)),
        "mean_dict": values.apply(E.group_by_reducer(lambda e: e["k"], mean)),
        "grow_state": r(9).apply(E.group_by_reducer(lambda x: x % 4, gather)),
        "key_uses_state": r(6).apply(E.group_by_reducer(
            lambda x: x // 2, E.Reducer(lambda k: k * 100, lambda s, x: s + x,
                                        lambda s: s))),
        "empty": r(0).apply(E.group_by_reducer(lambda x: x, total)),
    }


def run_errors(tf) -> dict:
    """{name: a dataset whose reading fails at run time}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    ragged = Dataset.from_tensor_slices(np.array([1, 9, 3], np.int64)).map(tf.range)
    return {
        "window_size_zero": Dataset.range(3).apply(E.group_by_window(
            lambda x: x, lambda k, w: w.batch(2), window_size_func=lambda k: k - 1)),
        "past_boundary": ragged.apply(E.bucket_by_sequence_length(
            lambda s: tf.shape(s)[0], [4, 8], [1, 1, 1], pad_to_bucket_boundary=True)),
    }


def build_errors(tf) -> dict:
    """{name: a function building a dataset that fails when the graph is built}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    r = Dataset.range
    return {
        "both_sizes": lambda: r(3).apply(E.group_by_window(
            lambda x: x, lambda k, w: w, window_size=2, window_size_func=lambda k: k)),
        "no_size": lambda: r(3).apply(E.group_by_window(lambda x: x, lambda k, w: w)),
        "key_vector": lambda: r(3).apply(E.group_by_window(
            lambda x: tf.stack([x, x]), lambda k, w: w, window_size=2)),
        "key_int32": lambda: r(3).apply(E.group_by_window(
            lambda x: tf.cast(x, tf.int32), lambda k, w: w, window_size=2)),
        "reduce_tensor": lambda: r(3).apply(E.group_by_window(
            lambda x: x, lambda k, w: k, window_size=2)),
        "reducer_key_float": lambda: r(3).apply(E.group_by_reducer(
            lambda x: tf.cast(x, tf.float32),
            E.Reducer(lambda k: k, lambda s, x: s + x, lambda s: s))),
        "reducer_state_type": lambda: r(3).apply(E.group_by_reducer(
            lambda x: x, E.Reducer(lambda k: k, lambda s, x: tf.cast(s + x, tf.int32),
                                   lambda s: s))),
        "bucket_sizes": lambda: r(3).map(tf.range).apply(E.bucket_by_sequence_length(
            lambda s: tf.shape(s)[0], [3, 5], [2, 2])),
    }
