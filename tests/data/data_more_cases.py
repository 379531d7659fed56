"""``unique``, ``assert_cardinality``, ``from_list`` and ``with_options`` /
``options()`` cases tests/data/make_data_more.py records from TensorFlow and
tests/test_data_more.py runs in devsession, written once against the TF1 module each is
given (``tf``: ``tensorflow.compat.v1`` or ``devsession``).  Reading a dataset out:
window_cases.values."""

import numpy as np


def pipelines(tf) -> dict:
    """{name: a dataset whose elements (in order) and output_shapes both sides read}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    words = Dataset.from_tensor_slices([b"b", b"a", b"b", b"c", b"a", b""])
    return {
        "unique_int64": Dataset.from_tensor_slices(
            np.array([3, 1, 3, 2, 1, 3, 0], np.int64)).apply(E.unique()),
        "unique_int32_method": Dataset.from_tensor_slices(
            np.array([5, 5, -1, 5, 7], np.int32)).unique(),
        "unique_strings": words.apply(E.unique()),
        "unique_empty": Dataset.range(0).apply(E.unique()),
        "assert_cardinality": Dataset.range(4).apply(E.assert_cardinality(4)),
        "assert_cardinality_zero": Dataset.range(0).apply(E.assert_cardinality(0)),
        "from_list_scalars": E.from_list([1, 2, 3]),
        "from_list_tuples": E.from_list([(1, b"a"), (2, b"b")]),
        "from_list_ragged": E.from_list([np.zeros([2], np.float32),
                                         np.ones([3], np.float32)]),
        "from_list_dicts": E.from_list([{"x": 1.5, "y": [1, 2]}, {"x": 2.5, "y": [3, 4]}]),
        "with_options": Dataset.range(3).with_options(tf.data.Options()).map(
            lambda x: x * 2),
    }


def cardinalities(tf) -> dict:
    E, Dataset = tf.data.experimental, tf.data.Dataset
    return {
        "assert_cardinality": Dataset.range(4).filter(lambda x: x > 0).apply(
            E.assert_cardinality(3)),
        "assert_cardinality_batch": Dataset.range(9).filter(lambda x: x > 0).apply(
            E.assert_cardinality(8)).batch(3),
        "from_list": E.from_list([1, 2, 3, 4]),
        "unique": Dataset.range(4).apply(E.unique()),
        "with_options": Dataset.range(5).with_options(tf.data.Options()),
    }


def run_errors(tf) -> dict:
    E, Dataset = tf.data.experimental, tf.data.Dataset
    return {
        "too_few": Dataset.range(2).apply(E.assert_cardinality(3)),
        "too_many": Dataset.range(5).apply(E.assert_cardinality(3)),
        "too_many_infinite": Dataset.range(5).apply(E.assert_cardinality(
            E.INFINITE_CARDINALITY)),
    }


def build_errors(tf) -> dict:
    E, Dataset = tf.data.experimental, tf.data.Dataset
    return {
        "unique_float": lambda: Dataset.from_tensor_slices([1.0, 2.0]).apply(E.unique()),
        "from_list_empty": lambda: E.from_list([]),
        "from_list_not_list": lambda: E.from_list((1, 2)),
        "option_type": lambda: setattr(tf.data.Options().threading,
                                       "private_threadpool_size", 1.5),
        "option_unknown": lambda: setattr(tf.data.Options(), "nonexistent", 1),
        "options_immutable": lambda: setattr(
            Dataset.range(2).options(), "deterministic", False),
    }


def options(tf) -> dict:
    """{name: a dataset whose options() both sides describe}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    first = tf.data.Options()
    first.experimental_optimization.map_parallelization = True
    first.threading.private_threadpool_size = 4
    first.experimental_distribute.auto_shard_policy = E.AutoShardPolicy.DATA
    second = tf.data.Options()
    second.experimental_deterministic = False
    second.experimental_threading.private_threadpool_size = 8
    second.autotune.cpu_budget = 2
    third = tf.data.Options()
    third.experimental_distribute.auto_shard_policy = E.AutoShardPolicy.OFF
    third.experimental_slack = True
    third.experimental_optimization.map_fusion = True
    a = Dataset.range(3).with_options(first)
    b = Dataset.range(4).with_options(third)
    return {
        "none": Dataset.range(3),
        "one": a,
        "merged": a.map(lambda x: x + 1).with_options(second),
        "zip": Dataset.zip((a, b)),
        "concatenate": b.concatenate(a).batch(2),
        "through_interleave": a.interleave(lambda x: b, cycle_length=1),
    }


def described(options) -> dict:
    """The options set to other than their defaults, by name (enums by name)."""
    out = {}
    default = type(options)()
    for name in sorted(n for n in dir(type(options))
                       if isinstance(getattr(type(options), n), property)):
        if name.startswith("experimental_") and name[len("experimental_"):] in (
                "deterministic", "threading"):
            continue
        value = getattr(options, name)
        if hasattr(value, "_options"):
            nested = described(value)
            if nested:
                out[name] = nested
        elif value != getattr(default, name):
            out[name] = value.name if hasattr(value, "name") else value
    return out


def tables(tf) -> dict:
    """{name: a function building (a table filled from a dataset, the keys both sides
    look up)} (one table a graph: tables_initializer runs them all)."""
    E, Dataset = tf.data.experimental, tf.data.Dataset

    def words():
        return Dataset.from_tensor_slices([b"emerson", b"lake", b"palmer"])

    def pairs():
        return Dataset.zip((Dataset.from_tensor_slices(np.array([7, 3, 5], np.int64)),
                            Dataset.from_tensor_slices([b"seven", b"three", b"five"])))

    def look():
        return tf.constant([b"lake", b"palmer", b"emerson", b"king", b"crimson"])

    def ints(*values):
        return tf.constant(np.array(values, np.int64))
    return {
        "index": lambda: (E.index_table_from_dataset(words()), look()),
        "index_oov": lambda: (E.index_table_from_dataset(words(), num_oov_buckets=3),
                              look()),
        "index_vocab_size": lambda: (E.index_table_from_dataset(
            words(), vocab_size=2, default_value=-5), look()),
        "index_vocab_size_short": lambda: (E.index_table_from_dataset(
            words(), vocab_size=5), look()),
        "duplicate": lambda: (E.index_table_from_dataset(
            words().concatenate(words())), look()),
        "pairs": lambda: (E.table_from_dataset(pairs(), default_value=b"?",
                                               key_dtype=tf.int64), ints(3, 4, 5, 7)),
        "empty": lambda: (E.index_table_from_dataset(Dataset.from_tensor_slices(
            np.zeros([0], np.int64)), key_dtype=tf.int64), ints(0, 1)),
        "initializer": lambda: (tf.lookup.StaticHashTable(
            E.DatasetInitializer(pairs()), b"-"), ints(5, 6)),
    }


def table_errors(tf) -> dict:
    E, Dataset = tf.data.experimental, tf.data.Dataset
    r = Dataset.range
    return {
        "not_pairs": lambda: E.table_from_dataset(Dataset.zip((r(2), r(2), r(2)))),
        "vector_keys": lambda: E.table_from_dataset(Dataset.zip((r(2).batch(1), r(2)))),
        "string_values_no_default": lambda: E.table_from_dataset(
            Dataset.zip((r(2), r(2).map(tf.as_string)))),
        "negative_oov": lambda: E.index_table_from_dataset(r(2), num_oov_buckets=-1),
        "zero_vocab": lambda: E.index_table_from_dataset(r(2), vocab_size=0),
        "float_keys": lambda: E.index_table_from_dataset(r(2), key_dtype=tf.float32),
    }


def optionals(tf) -> dict:
    """{name: an optional whose has_value and get_value both sides run three times
    (an iterator's optional advances the iterator each run)}."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    pairs = Dataset.from_tensor_slices((np.arange(2), np.array([[1., 2.], [3., 4.]])))
    words = Dataset.from_tensor_slices([[b"a", b"b"], [b"c", b"d"]]).take(1)
    full = E.Optional.from_value({"a": tf.constant(3), "b": (tf.constant([1.0]),)})
    return {
        "steps": tf.data.make_one_shot_iterator(pairs).get_next_as_optional(),
        "strings": E.get_next_as_optional(tf.data.make_one_shot_iterator(words)),
        "full": full,
        "empty": E.Optional.empty(full.element_spec),
    }


def writes(tf, folder: str) -> dict:
    """{name: (the op writing a dataset to a TFRecord file, the file)}."""
    import os

    E, Dataset = tf.data.experimental, tf.data.Dataset
    records = Dataset.from_tensor_slices([b"alpha", b"", b"gamma" * 40]).map(lambda r: r)
    out = {}
    for name, compression, dataset in (("plain", None, records), ("gzip", "GZIP", records),
                                       ("zlib", "ZLIB", records),
                                       ("empty", "", records.take(0))):
        path = os.path.join(folder, f"{name}.tfrecord")
        out[name] = (E.TFRecordWriter(path, compression).write(dataset), path)
    return out


def write_errors(tf) -> dict:
    E, Dataset = tf.data.experimental, tf.data.Dataset
    return {
        "numbers": lambda: E.TFRecordWriter("x.tfrecord").write(Dataset.range(3)),
        "not_a_dataset": lambda: E.TFRecordWriter("x.tfrecord").write([b"a"]),
    }


def _skewed(tf, zeros: int, ones: int) -> tuple:
    """(a dataset of (index, class) pairs, ``zeros`` of class 0 then ``ones`` of class 1,
    shuffled; the class function ``rejection_resample`` takes)."""
    labels = np.array([0] * zeros + [1] * ones, np.int64)
    count = zeros + ones
    skewed = tf.data.Dataset.from_tensor_slices((np.arange(count), labels)).shuffle(
        count, seed=2)

    def label(x, y):
        return tf.cast(y, tf.int32)
    return skewed, label


def resamplings(tf, seed: int) -> dict:
    """{name: a rejection_resample dataset}: 900 elements of class 0 and 100 of class 1
    (shuffled) resampled to half and half, the class distribution estimated or given;
    and two whose draws cannot matter (m 0: only accepted elements, m 1: the input)."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    skewed, label = _skewed(tf, 900, 100)
    return {
        "estimated": skewed.apply(E.rejection_resample(label, [0.5, 0.5], seed=seed)),
        "given": skewed.rejection_resample(label, [0.5, 0.5], initial_dist=[0.9, 0.1],
                                           seed=seed),
        "only_accepted": Dataset.range(6).apply(E.rejection_resample(
            lambda x: tf.cast(x % 2, tf.int32), [0.0, 1.0], initial_dist=[0.5, 0.5],
            seed=seed)),
        "as_it_is": Dataset.range(6).apply(E.rejection_resample(
            lambda x: tf.cast(x % 3, tf.int32), [0.25, 0.25, 0.5],
            initial_dist=[0.25, 0.25, 0.5], seed=seed)),
    }


def graph_seeded_resamplings(tf) -> dict:
    """{name: a dataset}, built in this order in one graph of graph seed 1 with no op
    seeds: each filter's op seed its function's first, each mixing's the graph's count
    (a RandomDataset after them shows it); the filter alone where ``target`` has a 0; a
    repeat (the filter's stream goes on; each pass's shuffle moves on)."""
    E, Dataset = tf.data.experimental, tf.data.Dataset
    skewed, label = _skewed(tf, 90, 30)
    return {
        "estimated": skewed.apply(E.rejection_resample(label, [0.5, 0.5])),
        "filtered_only": Dataset.range(30).apply(E.rejection_resample(
            lambda x: tf.cast(x % 3, tf.int32), [0.0, 0.3, 0.7], initial_dist=[1 / 3] * 3)),
        "given_repeated": skewed.rejection_resample(
            label, [0.5, 0.5], initial_dist=[0.75, 0.25]).repeat(2),
        "random_after": E.RandomDataset().take(3),
    }


def sparse_batches(tf) -> dict:
    """{name: a dense_to_sparse_batch dataset whose SparseTensors both sides read}."""
    E, r = tf.data.experimental, tf.data.Dataset.range

    def filled(x):
        return tf.fill([tf.cast(x, tf.int32)], x)
    return {
        "vectors": r(5).map(filled).apply(E.dense_to_sparse_batch(2, [6])),
        "unknown": r(5).map(filled).apply(E.dense_to_sparse_batch(3, [None])),
        "matrix": r(3).map(lambda x: tf.fill([tf.cast(x, tf.int32) + 1, 2], x)).apply(
            E.dense_to_sparse_batch(2, [4, 2])),
        "repeated": r(3).map(filled).apply(E.dense_to_sparse_batch(3, [2])).repeat(2),
        "too_big": r(5).map(filled).apply(E.dense_to_sparse_batch(2, [3])),
    }


def jsonable(value):
    """A plain element (window_cases.plain) with its bytes as text, as JSON holds it."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value.decode() if isinstance(value, bytes) else value
