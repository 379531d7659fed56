"""The CSV datasets tests/data/make_tf_csv_datasets.py records from TensorFlow and
tests/test_data_csv_datasets.py runs in devsession, written once against the TF1 module
each is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``), over the small
files in tests/data/csv/, and how both read a dataset out."""

import os

import numpy as np

CSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csv")


def path(name: str) -> str:
    return os.path.join(CSV, name)


def pipelines(tf) -> dict:
    """{name: (dataset, batches to read or None for all)}, every one unshuffled."""
    exp = tf.data.experimental
    make = exp.make_csv_dataset
    people = path("people.csv")
    both = path("people*.csv")
    return {
        "both_files": (make(both, 4, shuffle=False, num_epochs=1), None),
        "label_na": (make(people, 3, label_name="label", na_value="NA", shuffle=False,
                          num_epochs=1), None),
        "select_names": (make(people, 5, select_columns=["name", "id", "score"],
                              shuffle=False, num_epochs=1), None),
        "select_indices": (make(people, 4, select_columns=[4, 0, 6], label_name="name",
                                shuffle=False, num_epochs=1), None),
        "forever": (make(people, 3, shuffle=False), 5),
        "two_epochs": (make(people, 5, select_columns=["id"], shuffle=False,
                            num_epochs=2), None),
        "parallel_reads": (make([people, path("people2.csv")], 3, num_parallel_reads=2,
                                select_columns=["id", "name"], shuffle=False,
                                num_epochs=1), None),
        "column_defaults": (make(people, 4, column_defaults=[
            [0], tf.int64, [-1.0], tf.float64, ["?"], ["NA"], [0.5], [7]],
            shuffle=False, num_epochs=1), None),
        "no_header": (make(path("semi.csv"), 2, column_names=["x", "y", "z"],
                           field_delim=";", header=False, shuffle=False,
                           num_epochs=1), None),
        "semi_header": (make(path("semi.csv"), 2, field_delim=";", label_name="x",
                             shuffle=False, num_epochs=1), None),
        "ignore_errors": (make(path("bad.csv"), 2, column_defaults=[tf.int32, [0], [""]],
                               ignore_errors=True, shuffle=False, num_epochs=1), None),
        "gzip": (make(path("people2.csv.gz"), 2, compression_type="GZIP",
                      select_columns=["id", "score", "name"], shuffle=False,
                      num_epochs=1), None),
        "csv_dataset": (exp.CsvDataset(
            [people, path("people2.csv")],
            [tf.int32, tf.constant([0], tf.int64), [-1.0], tf.float64, [""]],
            header=True, select_cols=[0, 1, 2, 3, 4]), None),
        "csv_dataset_doc": (exp.CsvDataset(
            path("semi.csv"), [tf.float32, tf.constant([0.0], dtype=tf.float32)],
            select_cols=[0, 2], field_delim=";", header=True), None),
        "csv_dataset_na": (exp.CsvDataset(
            people, [[0], ["x"], [-1]], header=True, select_cols=[0, 4, 5],
            na_value="NA"), None),
    }


def build_errors(tf) -> dict:
    """{name: a call that TF rejects when the graph is built}."""
    make = tf.data.experimental.make_csv_dataset
    people = path("people.csv")
    return {
        "no_files": lambda: make(path("nothing*.csv"), 2),
        "empty_list": lambda: make([], 2),
        "empty_file": lambda: make(path("empty.csv"), 2),
        "other_header": lambda: make([people, path("otherhead.csv")], 2),
        "no_names": lambda: make(people, 2, header=False),
        "duplicate_names": lambda: make(people, 2, column_names=["a", "a", "b", "c", "d",
                                                                  "e", "f", "g"]),
        "unknown_column": lambda: make(people, 2, select_columns=["nope"]),
        "index_out_of_range": lambda: make(people, 2, select_columns=[8]),
        "duplicate_select": lambda: make(people, 2, select_columns=["id", 0]),
        "defaults_vs_select": lambda: make(people, 2, select_columns=["id"],
                                           column_defaults=[[0], [0]]),
        "bad_label": lambda: make(people, 2, label_name="nope"),
        "row_length": lambda: make(path("bad.csv"), 2),
        "zlib_probe": lambda: make(people, 2, compression_type="ZLIB"),
        "bad_compression": lambda: make(people, 2, compression_type="BZ2"),
    }


def run_errors(tf) -> dict:
    """{name: (dataset, batches read before the failing one)}: InvalidArgumentError."""
    exp = tf.data.experimental
    people = path("people.csv")
    return {
        "required_missing": (exp.CsvDataset(people, [tf.int32, tf.float32], header=True,
                                            select_cols=[0, 2]), 2),
        "too_many_fields": (exp.CsvDataset(people, [[0], [0]], header=True), 0),
        "too_few_fields": (exp.CsvDataset(path("bad.csv"), [[0], [""], [""]],
                                          header=True), 2),
        "not_a_number": (exp.CsvDataset(path("bad.csv"), [[0], [0], [""]],
                                        header=True), 1),
        "inferred_from_few_rows": (exp.make_csv_dataset(
            people, 1, select_columns=["big"], num_rows_for_inference=1,
            shuffle=False, num_epochs=1), 1),
        "empty_line": (exp.CsvDataset(path("bad.csv"), [[0], [""]], header=True,
                                      select_cols=[0, 1]), 4),
    }


def values(tf, dataset, count=None) -> list:
    """The first ``count`` elements of ``dataset`` (all: until OutOfRangeError)."""
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        while count is None or len(out) < count:
            try:
                out.append(sess.run(element))
            except tf.errors.OutOfRangeError:
                break
    return out


def plain(value):
    """An element as JSON holds it: dicts as [key, value] pairs in order, tuples as
    lists, arrays as {"dtype", "value"} (strings decoded)."""
    if isinstance(value, dict):
        return {"dict": [[k, plain(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind == "S":
        return {"dtype": "string", "value": np.vectorize(
            lambda b: b.decode(), otypes=[object])(array).tolist() if array.size else []}
    return {"dtype": array.dtype.name, "value": array.tolist()}


def static(dataset) -> list:
    """The dataset's element types and shapes, flattened, as strings."""
    types = tf_flatten(dataset.output_types)
    shapes = tf_flatten(dataset.output_shapes)
    return [[getattr(t, "name", str(t)), str(s.as_list())] for t, s in zip(types, shapes)]


def tf_flatten(structure) -> list:
    if isinstance(structure, dict):
        return [leaf for k in structure for leaf in tf_flatten(structure[k])]
    if isinstance(structure, tuple):
        return [leaf for v in structure for leaf in tf_flatten(v)]
    return [structure]
