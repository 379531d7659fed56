"""Bad feature columns and bad uses of them, written once against the TF1 module each is
given: tests/data/make_tf_feature_columns.py records the error TensorFlow raises for
each (class name and message), tests/test_feature_column.py checks devsession's."""

ERRORS = {}


def error(fn):
    ERRORS[fn.__name__] = fn
    return fn


@error
def numeric_shape_zero(tf):
    tf.feature_column.numeric_column("x", shape=(2, 0))


@error
def numeric_shape_float(tf):
    tf.feature_column.numeric_column("x", shape=(2.0,))


@error
def numeric_string_dtype(tf):
    tf.feature_column.numeric_column("x", dtype=tf.string)


@error
def numeric_default_shape(tf):
    tf.feature_column.numeric_column("x", shape=(2,), default_value=[1.0, 2.0, 3.0])


@error
def numeric_normalizer_not_callable(tf):
    tf.feature_column.numeric_column("x", normalizer_fn=3)


@error
def numeric_key_not_string(tf):
    tf.feature_column.numeric_column(7)


@error
def bucketized_unsorted(tf):
    fc = tf.feature_column
    fc.bucketized_column(fc.numeric_column("x"), [1.0, 3.0, 2.0])


@error
def bucketized_empty(tf):
    fc = tf.feature_column
    fc.bucketized_column(fc.numeric_column("x"), [])


@error
def bucketized_not_numeric(tf):
    fc = tf.feature_column
    fc.bucketized_column(fc.categorical_column_with_identity("x", 3), [1.0])


@error
def bucketized_two_dimensional(tf):
    fc = tf.feature_column
    fc.bucketized_column(fc.numeric_column("x", shape=(2, 2)), [1.0])


@error
def identity_no_buckets(tf):
    tf.feature_column.categorical_column_with_identity("x", 0)


@error
def identity_default_out_of_range(tf):
    tf.feature_column.categorical_column_with_identity("x", 3, default_value=3)


@error
def vocabulary_list_empty(tf):
    tf.feature_column.categorical_column_with_vocabulary_list("x", [])


@error
def vocabulary_list_duplicates(tf):
    tf.feature_column.categorical_column_with_vocabulary_list("x", ["a", "b", "a"])


@error
def vocabulary_list_oov_and_default(tf):
    tf.feature_column.categorical_column_with_vocabulary_list(
        "x", ["a", "b"], default_value=0, num_oov_buckets=2)


@error
def vocabulary_list_dtype_mismatch(tf):
    tf.feature_column.categorical_column_with_vocabulary_list("x", ["a"], dtype=tf.int64)


@error
def vocabulary_file_missing(tf):
    tf.feature_column.categorical_column_with_vocabulary_file("x", "/no/such/vocab.txt")


@error
def vocabulary_file_empty_name(tf):
    tf.feature_column.categorical_column_with_vocabulary_file("x", "")


@error
def hash_bucket_zero(tf):
    tf.feature_column.categorical_column_with_hash_bucket("x", 0)


@error
def hash_bucket_float_dtype(tf):
    tf.feature_column.categorical_column_with_hash_bucket("x", 4, dtype=tf.float32)


@error
def indicator_of_numeric(tf):
    fc = tf.feature_column
    fc.indicator_column(fc.numeric_column("x"))


@error
def embedding_dimension_zero(tf):
    fc = tf.feature_column
    fc.embedding_column(fc.categorical_column_with_identity("x", 3), 0)


@error
def embedding_initializer_not_callable(tf):
    fc = tf.feature_column
    fc.embedding_column(fc.categorical_column_with_identity("x", 3), 2, initializer=0.5)


@error
def input_layer_categorical(tf):
    fc = tf.feature_column
    fc.input_layer({"x": tf.constant([[1]], tf.int64)},
                   [fc.categorical_column_with_identity("x", 3)])


@error
def input_layer_no_columns(tf):
    tf.feature_column.input_layer({"x": tf.constant([1.0])}, [])


@error
def input_layer_columns_dict(tf):
    fc = tf.feature_column
    tf.feature_column.input_layer({"x": tf.constant([1.0])}, {"x": fc.numeric_column("x")})


@error
def input_layer_duplicate_names(tf):
    fc = tf.feature_column
    fc.input_layer({"x": tf.constant([1.0])}, [fc.numeric_column("x"), fc.numeric_column("x")])


@error
def input_layer_missing_feature(tf):
    fc = tf.feature_column
    fc.input_layer({"x": tf.constant([1.0])}, [fc.numeric_column("y")])


@error
def input_layer_rank_zero(tf):
    fc = tf.feature_column
    fc.input_layer({"x": tf.constant(1.0)}, [fc.numeric_column("x")])


@error
def input_layer_sparse_numeric(tf):
    fc = tf.feature_column
    fc.input_layer({"x": tf.SparseTensor([[0, 0]], [1.0], [1, 1])}, [fc.numeric_column("x")])


@error
def input_layer_batch_mismatch(tf):
    fc = tf.feature_column
    fc.input_layer({"x": tf.constant([1.0, 2.0]), "y": tf.constant([1.0, 2.0, 3.0])},
                   [fc.numeric_column("x"), fc.numeric_column("y")])


@error
def identity_float_input(tf):
    fc = tf.feature_column
    fc.input_layer({"x": tf.constant([[1.0]])},
                   [fc.indicator_column(fc.categorical_column_with_identity("x", 3))])


@error
def vocabulary_list_int_for_strings(tf):
    fc = tf.feature_column
    column = fc.categorical_column_with_vocabulary_list("x", ["a", "b"])
    fc.input_layer({"x": tf.constant([[1]], tf.int64)}, [fc.indicator_column(column)])


@error
def hash_bucket_int_for_strings(tf):
    fc = tf.feature_column
    column = fc.categorical_column_with_hash_bucket("x", 3)
    fc.input_layer({"x": tf.constant([[1]], tf.int64)}, [fc.indicator_column(column)])


@error
def linear_model_not_a_column(tf):
    tf.feature_column.linear_model({"x": tf.constant([1.0])}, ["x"])


@error
def crossed_one_key(tf):
    tf.feature_column.crossed_column(["a"], 10)


@error
def crossed_no_buckets(tf):
    tf.feature_column.crossed_column(["a", "b"], 0)


@error
def crossed_key_not_a_column(tf):
    tf.feature_column.crossed_column(["a", 3], 10)


@error
def crossed_weighted_key(tf):
    fc = tf.feature_column
    ids = fc.weighted_categorical_column(fc.categorical_column_with_identity("x", 3), "w")
    crossed = fc.crossed_column([ids, "y"], 10)
    fc.input_layer({"x": tf.constant([[1]], tf.int64), "w": tf.constant([[1.0]]),
                    "y": tf.constant([["a"]])}, [fc.indicator_column(crossed)])


@error
def weighted_string_dtype(tf):
    fc = tf.feature_column
    fc.weighted_categorical_column(fc.categorical_column_with_identity("x", 3), "w",
                                   dtype=tf.string)


@error
def weighted_bad_weight_dtype(tf):
    fc = tf.feature_column
    column = fc.weighted_categorical_column(fc.categorical_column_with_identity("x", 3), "w")
    fc.linear_model({"x": tf.constant([[1]], tf.int64), "w": tf.constant([[1]], tf.int64)},
                    [column])


@error
def weighted_weight_key_taken(tf):
    fc = tf.feature_column
    column = fc.weighted_categorical_column(fc.categorical_column_with_identity("x", 3), "x")
    fc.make_parse_example_spec([column])


@error
def shared_embedding_bucket_mismatch(tf):
    fc = tf.feature_column
    fc.shared_embedding_columns([fc.categorical_column_with_identity("a", 3),
                                 fc.categorical_column_with_identity("b", 4)], 2)


@error
def shared_embedding_bad_dimension(tf):
    fc = tf.feature_column
    fc.shared_embedding_columns([fc.categorical_column_with_identity("a", 3)], 0)


@error
def parse_spec_not_a_column(tf):
    tf.feature_column.make_parse_example_spec(["x"])


@error
def parse_spec_conflict(tf):
    fc = tf.feature_column
    fc.make_parse_example_spec([fc.numeric_column("x"),
                                fc.categorical_column_with_identity("x", 3)])
