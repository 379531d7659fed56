"""Feature-column models that tests/data/make_tf_feature_columns.py records from
TensorFlow and tests/test_feature_column.py runs in devsession, written once against the
TF1 module each is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``).

Each case builds its own graph and returns what it ran: numpy arrays, and lists of
variable names.  Variables start from constant initializers (the linear models' zeros
are then assigned values), so TF's values and devsession's are comparable.
"""

import os
import tempfile

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _run(tf, fetches, feeds=None, steps=None):
    """Initialize variables and tables, run ``steps`` (a list of (op, fetches): the
    fetches read, then the op run), then ``fetches``."""
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        trace = []
        for op, watch in steps or []:
            trace.append(sess.run(list(watch), feeds))
            sess.run(op, feeds)
        out = sess.run(fetches, feeds)
    if any(trace):
        out["trace"] = np.array(trace, np.float32)
    return out


def _names(variables) -> list:
    return [v.name for v in variables]


@case
def numeric_and_bucketized(tf):
    fc = tf.feature_column
    with tf.Graph().as_default():
        price = fc.numeric_column("price", shape=(2,), normalizer_fn=lambda x: (x - 1.0) / 2.0)
        count = fc.numeric_column("count", dtype=tf.int64)
        age = fc.bucketized_column(fc.numeric_column("age"), [18.0, 30.0, 50.0])
        pair = fc.bucketized_column(fc.numeric_column("pair", shape=(2,)), [0.0, 1.0])
        features = {
            "price": tf.placeholder(tf.float32, (None, 2), name="price"),
            "count": tf.constant([3, 7, -1], tf.int64),
            "age": tf.constant([17.0, 18.0, 64.5]),
            "pair": tf.constant([[-1.0, 0.0], [0.5, 1.0], [2.0, 0.99]]),
        }
        columns_out = {}
        dense = fc.input_layer(features, [pair, price, age, count],
                               cols_to_output_tensors=columns_out)
        order = [c.name for c in sorted(columns_out, key=lambda c: c.name)]
        feeds = {features["price"]: np.array([[1, 2], [3, 5], [0, -1]], np.float32)}
        out = _run(tf, {"dense": dense}, feeds)
        out["order"] = order
        out["dense_shape"] = [d if isinstance(d, int) or d is None else d.value
                              for d in dense.shape.as_list()]
    return out


@case
def categorical_indicators(tf):
    fc = tf.feature_column
    with tf.Graph().as_default():
        columns = [
            fc.categorical_column_with_identity("id", 5, default_value=0),
            fc.categorical_column_with_identity("tag", 4),
            fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"],
                                                       num_oov_buckets=2),
            fc.categorical_column_with_vocabulary_list("size", [10, 20, 30], dtype=tf.int64),
            fc.categorical_column_with_vocabulary_list("shape", ["round", "square"],
                                                       default_value=1),
            fc.categorical_column_with_hash_bucket("word", 7),
            fc.categorical_column_with_hash_bucket("code", 5, dtype=tf.int64),
        ]
        features = {
            "id": tf.constant([[1, 3], [9, -1], [4, 4]], tf.int64),
            "tag": tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 3, 2], tf.int64),
                                   [3, 2]),
            "color": tf.constant([["red", "mauve"], ["blue", ""], ["", ""]]),
            "size": tf.constant([[20], [40], [10]], tf.int32),
            "shape": tf.constant(["square", "oval", "round"]),
            "word": tf.SparseTensor([[0, 0], [1, 0], [1, 1], [2, 2]],
                                    ["apple", "kiwi", "fig", "apple"], [3, 3]),
            "code": tf.constant([[123], [45678], [-1]], tf.int64),
        }
        dense = fc.input_layer(features, [fc.indicator_column(c) for c in columns])
        out = _run(tf, {"dense": dense})
    return out


@case
def vocabulary_file(tf):
    fc = tf.feature_column
    folder = tempfile.mkdtemp()
    vocab = os.path.join(folder, "fruits.txt")
    with open(vocab, "w") as f:
        f.write("apple\nbanana\ncherry\ndate\n")
    with tf.Graph().as_default():
        columns = [
            fc.categorical_column_with_vocabulary_file("fruit", vocab, num_oov_buckets=3),
            fc.categorical_column_with_vocabulary_file("first", vocab, vocabulary_size=2),
        ]
        features = {"fruit": tf.constant([["cherry", "kiwi"], ["apple", "date"]]),
                    "first": tf.constant(["banana", "cherry"])}
        dense = fc.input_layer(features, [fc.indicator_column(c) for c in columns])
        out = _run(tf, {"dense": dense})
        out["num_buckets"] = np.array([c._num_buckets for c in columns], np.int64)
    os.remove(vocab)
    os.rmdir(folder)
    return out


def _embedding_table(rows, dim):
    return (np.arange(rows * dim, dtype=np.float32).reshape(rows, dim) - 4.0) / 8.0


@case
def embeddings(tf):
    fc = tf.feature_column
    with tf.Graph().as_default():
        words = fc.categorical_column_with_identity("words", 6)
        colors = fc.categorical_column_with_vocabulary_list("color", ["red", "green"])
        columns = [fc.embedding_column(words, 3, combiner=combiner,
                                       initializer=tf.constant_initializer(
                                           _embedding_table(6, 3)))
                   for combiner in ("mean",)]
        columns.append(fc.embedding_column(colors, 2, combiner="sqrtn",
                                           initializer=tf.constant_initializer(
                                               _embedding_table(2, 2))))
        features = {
            "words": tf.sparse_placeholder(tf.int64, name="words"),
            "color": tf.constant([["red", "green"], ["", ""], ["green", "green"]]),
        }
        dense = fc.input_layer(features, columns)
        ids = tf.SparseTensorValue([[0, 0], [0, 1], [0, 2], [2, 0]], [1, 4, 4, 5], [3, 3])
        out = _run(tf, {"dense": dense}, {features["words"]: ids})
        out["variables"] = _names(tf.global_variables())
        out["trainable"] = _names(tf.trainable_variables())
        out["model"] = _names(tf.get_collection(tf.GraphKeys.MODEL_VARIABLES))
    return out


@case
def embedding_combiners(tf):
    fc = tf.feature_column
    out = {}
    for combiner in ("mean", "sum", "sqrtn"):
        with tf.Graph().as_default():
            words = fc.categorical_column_with_hash_bucket("words", 5)
            column = fc.embedding_column(words, 2, combiner=combiner,
                                         initializer=tf.constant_initializer(
                                             _embedding_table(5, 2)))
            features = {"words": tf.SparseTensor(
                [[0, 0], [0, 1], [0, 3], [2, 1]], ["the", "cat", "sat", "mat"], [4, 4])}
            out[combiner] = _run(tf, {"dense": fc.input_layer(features, [column])})["dense"]
    return out


@case
def linear_models(tf):
    fc = tf.feature_column
    out = {}
    for combiner in ("sum", "mean", "sqrtn"):
        with tf.Graph().as_default():
            price = fc.numeric_column("price", shape=(2,))
            age = fc.bucketized_column(fc.numeric_column("age"), [20.0, 40.0])
            color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"],
                                                               num_oov_buckets=1)
            words = fc.categorical_column_with_identity("words", 4)
            features = {"price": tf.constant([[1.0, 2.0], [0.5, -1.0], [0.0, 0.0]]),
                        "age": tf.constant([[10.0], [25.0], [70.0]]),
                        "color": tf.constant(["g", "x", "r"]),
                        "words": tf.SparseTensor([[0, 0], [0, 1], [1, 0]],
                                                 tf.constant([1, 3, 2], tf.int64), [3, 2])}
            cols_to_vars = {}
            logits = fc.linear_model(features, [words, price, color, age], units=2,
                                     sparse_combiner=combiner, cols_to_vars=cols_to_vars)
            assigns = []
            for key, variables in sorted(cols_to_vars.items(),
                                         key=lambda kv: kv[0] if isinstance(kv[0], str)
                                         else kv[0].name):
                for v in variables:
                    shape = v.shape.as_list()
                    size = int(np.prod(shape))
                    assigns.append(tf.assign(v, np.linspace(-1.0, 1.0, size).reshape(shape)
                                             .astype(np.float32)))
            out[combiner] = _run(tf, {"logits": logits},
                                 steps=[(tf.group(*assigns), [])])["logits"]
            if combiner == "sum":
                out["variables"] = _names(tf.global_variables())
                out["trainable"] = _names(tf.trainable_variables())
                out["model"] = _names(tf.get_collection(tf.GraphKeys.MODEL_VARIABLES))
                out["cols_to_vars"] = sorted(
                    [k if isinstance(k, str) else k.name, _names(v)]
                    for k, v in cols_to_vars.items())
    return out


@case
def wide_and_deep_training(tf):
    """A few steps of a wide (linear_model, FTRL-free: plain SGD) and deep (embedding
    input_layer, Adagrad) model on a tf.data batch, as an estimator-free training loop
    would build it."""
    fc = tf.feature_column
    with tf.Graph().as_default():
        data = {"age": np.array([23.0, 41.0, 35.0, 67.0], np.float32),
                "city": np.array(["paris", "rome", "oslo", "paris"]),
                "items": np.array([[1, 2], [3, -1], [0, 0], [2, 3]], np.int64),
                "label": np.array([[1.0], [0.0], [1.0], [0.0]], np.float32)}
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(4).repeat()
        features = tf.data.make_one_shot_iterator(dataset).get_next()
        labels = features.pop("label")
        age = fc.numeric_column("age", normalizer_fn=lambda x: x / 50.0)
        age_buckets = fc.bucketized_column(age, [30.0, 50.0])
        city = fc.categorical_column_with_vocabulary_list("city", ["paris", "rome"],
                                                          num_oov_buckets=1)
        items = fc.categorical_column_with_identity("items", 4)
        wide = fc.linear_model(features, [age_buckets, city, items])
        deep_in = fc.input_layer(features, [
            age, fc.embedding_column(city, 2, initializer=tf.constant_initializer(
                _embedding_table(3, 2))),
            fc.embedding_column(items, 3, combiner="sqrtn",
                                initializer=tf.constant_initializer(_embedding_table(4, 3)))])
        kernel = tf.constant(np.linspace(-0.5, 0.5, 6).reshape(6, 1).astype(np.float32))
        logits = wide + tf.matmul(deep_in, kernel)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels,
                                                                      logits=logits))
        wide_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, "linear_model")
        deep_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, "input_layer")
        train = tf.group(
            tf.train.GradientDescentOptimizer(0.5).minimize(loss, var_list=wide_vars),
            tf.train.AdagradOptimizer(0.3).minimize(loss, var_list=deep_vars))
        variables = tf.trainable_variables()
        out = _run(tf, {v.name: v for v in variables}, steps=[(train, [loss])] * 4)
        out["names"] = _names(variables)
    return out


@case
def safe_embedding_lookup(tf):
    """``nn.safe_embedding_lookup_sparse`` itself: weights (a non-positive weight dropped
    unless the combiner is "sum"), invalid ids, ids of rank 3, ``default_id``."""
    out = {}
    with tf.Graph().as_default():
        table = tf.constant(_embedding_table(5, 2))
        ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [3, 2]],
                              tf.constant([1, 3, -1, 2, 4, 0], tf.int64), [5, 3])
        weights = tf.SparseTensor(ids.indices, [2.0, 0.5, 1.0, -1.0, 3.0, 0.0], ids.dense_shape)
        fetches = {}
        for combiner in ("sum", "mean", "sqrtn"):
            fetches[f"weighted_{combiner}"] = tf.nn.safe_embedding_lookup_sparse(
                table, ids, weights, combiner=combiner)
            fetches[f"plain_{combiner}"] = tf.nn.safe_embedding_lookup_sparse(
                [table], ids, combiner=combiner)
        fetches["default_id"] = tf.nn.safe_embedding_lookup_sparse(
            table, ids, combiner="mean", default_id=3)
        deep = tf.SparseTensor([[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 1]],
                               tf.constant([0, 1, 2, 3], tf.int64), [2, 3, 2])
        fetches["rank3"] = tf.nn.safe_embedding_lookup_sparse(table, deep, combiner="sum")
        out = _run(tf, fetches)
        out["rank3_static"] = [None if d is None else int(d)
                               for d in fetches["rank3"].shape.as_list()]
    return out


@case
def crossed_columns(tf):
    """crossed_column over raw string and integer features (dense, sparse, rank 1) and
    over bucketized and vocabulary columns, nested, with its own hash_key: the hashed
    ids (through an indicator), an embedding and a linear model of them."""
    fc = tf.feature_column
    with tf.Graph().as_default():
        age = fc.bucketized_column(fc.numeric_column("age"), [20.0, 40.0])
        color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"],
                                                           num_oov_buckets=1)
        words_x_tag = fc.crossed_column(["words", "tag"], 20)
        age_x_color = fc.crossed_column([age, color], 15, hash_key=12345)
        nested = fc.crossed_column([age_x_color, "code"], 11)
        features = {
            "words": tf.SparseTensor([[0, 0], [0, 1], [2, 0], [3, 1]],
                                     ["deep", "wide", "learning", "models"], [4, 2]),
            "tag": tf.constant(["news", "sport", "news", "tech"]),
            "age": tf.constant([[15.0], [25.0], [45.0], [30.0]]),
            "color": tf.constant([["r"], ["g"], ["x"], ["b"]]),
            "code": tf.constant([[3, 4], [5, 6], [-7, 8], [0, 1]], tf.int64),
        }
        dense = fc.input_layer(features, [
            fc.indicator_column(words_x_tag), fc.indicator_column(age_x_color),
            fc.indicator_column(nested),
            fc.embedding_column(words_x_tag, 2, initializer=tf.constant_initializer(
                _embedding_table(20, 2)))])
        cols_to_vars = {}
        logits = fc.linear_model(features, [words_x_tag, age_x_color, nested],
                                 cols_to_vars=cols_to_vars)
        assigns = [tf.assign(v, np.linspace(-1.0, 1.0, int(np.prod(v.shape.as_list())))
                             .reshape(v.shape.as_list()).astype(np.float32))
                   for vs in cols_to_vars.values() for v in vs]
        out = _run(tf, {"dense": dense, "logits": logits},
                   steps=[(tf.group(*assigns), [])])
        out["names"] = [c.name for c in (words_x_tag, age_x_color, nested)]
        out["variables"] = _names(tf.global_variables())
    return out


@case
def weighted_columns(tf):
    """weighted_categorical_column with dense float weights (zeros left out) and sparse
    integer weights, through indicator, embedding (each combiner) and linear_model."""
    fc = tf.feature_column
    with tf.Graph().as_default():
        ids = fc.categorical_column_with_identity("ids", 5)
        by_freq = fc.weighted_categorical_column(ids, "freq")
        words = fc.categorical_column_with_vocabulary_list("words", ["a", "b", "c"])
        by_count = fc.weighted_categorical_column(words, "count", dtype=tf.int64)
        features = {
            "ids": tf.constant([[1, 3], [4, 4], [0, 2]], tf.int64),
            "freq": tf.constant([[0.5, 2.0], [1.0, 3.0], [0.25, 1.5]]),
            "words": tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["b", "c", "a"], [3, 2]),
            "count": tf.SparseTensor([[0, 0], [1, 0], [1, 1]],
                                     tf.constant([3, 1, 2], tf.int64), [3, 2]),
        }
        columns = [fc.indicator_column(by_freq), fc.indicator_column(by_count)]
        for combiner in ("mean", "sqrtn", "sum"):
            columns.append(fc.embedding_column(
                by_freq if combiner != "sum" else by_count, 2, combiner=combiner,
                initializer=tf.constant_initializer(
                    _embedding_table(5 if combiner != "sum" else 3, 2))))
        out = {}
        for i, column in enumerate(columns):
            out[f"dense_{i}"] = fc.input_layer(features, [column])
        cols_to_vars = {}
        logits = fc.linear_model(features, [by_freq, by_count], sparse_combiner="mean",
                                 cols_to_vars=cols_to_vars)
        assigns = [tf.assign(v, np.linspace(-1.0, 1.0, int(np.prod(v.shape.as_list())))
                             .reshape(v.shape.as_list()).astype(np.float32))
                   for vs in cols_to_vars.values() for v in vs]
        out["logits"] = logits
        out = _run(tf, out, steps=[(tf.group(*assigns), [])])
        out["names"] = [by_freq.name, by_count.name]
        out["variables"] = _names(tf.global_variables())
    return out


@case
def shared_embeddings(tf):
    """shared_embedding_columns: two columns (one weighted) looking up one variable, its
    name and collection, and a few training steps of the shared table."""
    fc = tf.feature_column
    with tf.Graph().as_default():
        query = fc.categorical_column_with_identity("query", 6)
        title = fc.categorical_column_with_identity("title", 6)
        weighted = fc.weighted_categorical_column(title, "title_weight")
        shared = fc.shared_embedding_columns(
            [weighted, query], 3, combiner="sum",
            initializer=tf.constant_initializer(_embedding_table(6, 3)))
        other = fc.shared_embedding_columns(
            [query, title], 2, shared_embedding_collection_name="pair",
            initializer=tf.constant_initializer(_embedding_table(6, 2)))
        features = {
            "query": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 5, 2], tf.int64),
                                     [3, 2]),
            "title": tf.constant([[0, 1], [2, -1], [5, 5]], tf.int64),
            "title_weight": tf.constant([[1.0, 0.5], [2.0, 0.0], [0.25, 4.0]]),
        }
        dense = fc.input_layer(features, shared)
        pair = fc.input_layer(features, other)
        loss = (tf.reduce_sum(dense * np.linspace(-1.0, 1.0, 6).astype(np.float32)) ** 2
                + tf.reduce_sum(pair))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        variables = tf.global_variables()
        out = _run(tf, {"dense": dense, "pair": pair, "tables": variables},
                   steps=[(train, [loss])] * 3)
        out["tables"] = {v.name.replace("/", "|"): t
                         for v, t in zip(variables, out["tables"])}
        out["names"] = [c.name for c in shared + other]
        out["variables"] = _names(variables)
        out["collections"] = [_names(tf.get_collection(n)) for n in
                              ("query_title_weighted_by_title_weight_shared_embedding",
                               "pair")]
    return out


def _spec_text(spec) -> list:
    """A parse spec as comparable lists: key, kind, dtype and (FixedLen) shape/default."""
    rows = []
    for key, value in sorted(spec.items()):
        row = [key, type(value).__name__, value.dtype.name]
        if hasattr(value, "shape"):
            default = value.default_value
            row += [list(value.shape), None if default is None else np.asarray(default).tolist()]
        rows.append(row)
    return rows


@case
def parse_example_specs(tf):
    """make_parse_example_spec of every kind of column, and tf.parse_example with it
    feeding input_layer from serialized Examples."""
    fc = tf.feature_column
    price = fc.numeric_column("price", shape=(2,), default_value=(0.5, 1.5))
    age = fc.bucketized_column(fc.numeric_column("age", dtype=tf.int64), [30])
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g"])
    ids = fc.categorical_column_with_identity("ids", 4)
    columns = [price, age, fc.indicator_column(color),
               fc.embedding_column(ids, 2, initializer=tf.constant_initializer(
                   _embedding_table(4, 2))),
               fc.weighted_categorical_column(ids, "ids_weight", dtype=tf.int64),
               fc.categorical_column_with_hash_bucket("word", 10, dtype=tf.int64),
               fc.crossed_column(["tag", color], 7)]
    spec = fc.make_parse_example_spec(columns)

    def example(price_values, age_value, colors, id_values):
        feature = {"age": tf.train.Feature(int64_list=tf.train.Int64List(value=[age_value])),
                   "color": tf.train.Feature(bytes_list=tf.train.BytesList(value=colors)),
                   "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=id_values))}
        if price_values:
            feature["price"] = tf.train.Feature(
                float_list=tf.train.FloatList(value=price_values))
        return tf.train.Example(features=tf.train.Features(feature=feature)
                                ).SerializeToString()

    with tf.Graph().as_default():
        serialized = [example([1.0, 2.0], 25, [b"g"], [1, 3]), example([], 40, [], [2])]
        parse_spec = {k: v for k, v in fc.make_parse_example_spec(columns[:4]).items()}
        parsed = tf.parse_example(serialized, parse_spec)
        dense = fc.input_layer(parsed, columns[:4])
        out = _run(tf, {"dense": dense})
    out["spec"] = _spec_text(spec)
    return out
