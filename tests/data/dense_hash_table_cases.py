"""The DenseHashTable scripts tests/data/make_tf_dense_hash_table.py records from
TensorFlow 2.21 and tests/test_dense_hash_table.py runs in devsession, written once
against the TF1 module each is given (``tf``: ``tensorflow.compat.v1`` or
``devsession``).

A script is a list of steps run in order in one session on a fresh graph: ``(name,
what)``, ``what`` an op (run for its effect) or a tuple of tensors (fetched).  A step
that fails is recorded by its error's class and message; ``PHRASES`` names the part of
each message both must contain.  Tables are small (4 to 16 buckets) so that every
export, empty and deleted buckets included, is recorded whole; one table keeps TF's
default 2**17 buckets.
"""

import numpy as np


def _int64_table(tf, **kwargs):
    kwargs.setdefault("initial_num_buckets", 8)
    return tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=-1,
                                                 deleted_key=-2, **kwargs)


def _const(tf, values, dtype):
    return tf.constant(np.array(values), dtype)


def scalar_keys(tf):
    """Inserts, updates, removals, TF's probing over deleted buckets, and the errors of
    a key equal to the empty or deleted key."""
    t = _int64_table(tf)
    i64 = tf.int64

    def keys(v):
        return _const(tf, v, i64)
    lookup = t.lookup(keys([5, 13, 2, -7, 21, 29, 99]))
    return [
        ("export0", t.export()), ("size0", (t.size(),)),
        # 5, 13 and 29 start at bucket 5: 13 goes to 6, 29 to 6 + 2 = 0 (mod 8)
        ("insert", t.insert(keys([5, 13, 2, -7, 29]), keys([50, 130, 20, -70, 290]))),
        ("export1", t.export()), ("size1", (t.size(),)), ("lookup1", (lookup,)),
        ("scalar_lookup", (t.lookup(keys(7)), t.lookup(keys(2)))),
        ("remove", t.remove(keys([13, 42]))),
        ("export2", t.export()), ("size2", (t.size(),)), ("lookup2", (lookup,)),
        ("insert_into_deleted", t.insert(keys([21]), keys([210]))),
        ("export3", t.export()), ("size3", (t.size(),)),
        # 5 goes; 29 (bucket 5, probed to 6 then 0) is inserted again: TF takes the
        # first empty or deleted bucket, 5, so 29 is in two buckets and counted twice
        ("remove5", t.remove(keys([5]))), ("insert29", t.insert(keys([29]), keys([291]))),
        ("export4", t.export()), ("size4", (t.size(),)),
        ("lookup29", (t.lookup(keys([29])),)), ("remove29", t.remove(keys([29]))),
        ("export5", t.export()), ("size5", (t.size(),)),
        ("lookup29_again", (t.lookup(keys([29])),)),
        ("assign", t.insert_or_assign(keys([5, 2]), keys([55, 22]))),
        ("export6", t.export()), ("size6", (t.size(),)), ("lookup6", (lookup,)),
        ("insert_empty_key", t.insert(keys([3, -1]), keys([30, 0]))),
        ("after_insert_empty_key", (t.lookup(keys([3])), t.size())),
        ("insert_deleted_key", t.insert(keys([-2]), keys([0]))),
        ("lookup_empty_key", (t.lookup(keys([1, -1])),)),
        ("lookup_deleted_key", (t.lookup(keys([-2])),)),
        ("remove_empty_key", t.remove(keys([-1]))),
        ("remove_deleted_key", t.remove(keys([-2]))),
        ("lookup_matrix", (t.lookup(keys([[3, 5], [2, 1]])),)),
        ("insert_matrix", t.insert(keys([[8, 9]]), keys([[80, 90]]))),
    ]


def growth(tf):
    """The buckets double, as many times as one insert needs, when the entries would
    pass max_load_factor (0.8) of them; rehashing puts keys in TF's order (keys 12 apart,
    so that many share a bucket)."""
    t = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, 0.5, empty_key=0,
                                              deleted_key=-1, initial_num_buckets=4)
    steps = []
    for start, stop in ((1, 4), (4, 5), (5, 7), (7, 30), (100, 101)):
        k = np.arange(start, stop) * 12 + 1
        steps += [(f"insert_{start}_{stop}", t.insert(_const(tf, k, tf.int64),
                                                      _const(tf, k / 2, tf.float32))),
                  (f"export_{start}_{stop}", t.export()), (f"size_{start}_{stop}", (t.size(),))]
    steps += [("remove_some", t.remove(_const(tf, np.arange(3, 20) * 12 + 1, tf.int64))),
              ("after_remove", t.export()),
              ("insert_one", t.insert(_const(tf, [7 * 12 + 1], tf.int64),
                                      _const(tf, [9.0], tf.float32))),
              ("after_insert_one", t.export()),
              ("lookup", (t.lookup(_const(tf, np.arange(1, 41) * 12 + 1, tf.int64)),))]
    return steps


def string_vectors(tf):
    """String keys (TF's Hash64) to float32 vectors: value_shape is default_value's."""
    t = tf.lookup.experimental.DenseHashTable(tf.string, tf.float32, [0.0, 1.0],
                                              empty_key="", deleted_key="$",
                                              initial_num_buckets=4)
    words = ["a", "b", "c", "d", "emerson", "lake and palmer", "\u00e9t\u00e9"]
    values = np.arange(2 * len(words), dtype=np.float32).reshape(-1, 2)
    lookup = t.lookup(tf.constant(["a", "lake and palmer", "z", "\u00e9t\u00e9"]))
    return [
        ("insert", t.insert(tf.constant(words[:4]), tf.constant(values[:4]))),
        ("export1", t.export()), ("size1", (t.size(),)),
        ("insert_more", t.insert(tf.constant(words[4:]), tf.constant(values[4:]))),
        ("export2", t.export()), ("lookup", (lookup,)),
        ("scalar_lookup", (t.lookup(tf.constant("b")),)),
        ("remove", t.remove(tf.constant(["b", "emerson", "nothing"]))),
        ("export3", t.export()), ("size3", (t.size(),)), ("lookup3", (lookup,)),
        ("insert_deleted_key", t.insert(tf.constant(["$"]), tf.constant([[1.0, 2.0]]))),
        ("lookup_empty_key", (t.lookup(tf.constant([""])),)),
        ("insert_wrong_values", t.insert(tf.constant(["x", "y"]),
                                         tf.constant([1.0, 2.0]))),
    ]


def int32_default_buckets(tf):
    """int32 keys (negative ones hash sign-extended, as TF's static_cast<uint64>) in
    TF's default 2**17 buckets."""
    t = tf.lookup.experimental.DenseHashTable(tf.int32, tf.int32, 0,
                                              empty_key=2147483647, deleted_key=-2147483648)
    k = tf.constant([-3, -131075, 1, 131073, 7], tf.int32)
    return [("insert", t.insert(k, tf.constant([1, 2, 3, 4, 5], tf.int32))),
            ("export", t.export()), ("size", (t.size(),)), ("lookup", (t.lookup(k),))]


def vector_keys(tf):
    """Keys of shape [2] (the empty key's shape), hashed with TF's Hash64Combine."""
    t = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1,
                                              empty_key=[-1, -1], deleted_key=[-2, -2],
                                              initial_num_buckets=8)
    k = tf.constant([[1, 2], [3, 4], [2, 1], [-5, 6]], tf.int64)
    return [("insert", t.insert(k, tf.constant([12, 34, 21, 56], tf.int64))),
            ("export", t.export()), ("size", (t.size(),)),
            ("lookup", (t.lookup(tf.constant([[3, 4], [1, 1], [2, 1]], tf.int64)),)),
            ("remove", t.remove(tf.constant([[3, 4]], tf.int64))),
            ("export2", t.export()),
            ("lookup_one", (t.lookup(tf.constant([2, 1], tf.int64)),)),
            ("lookup_bad_shape", (t.lookup(tf.constant([1, 2, 3], tf.int64)),))]


def empty_and_one(tf):
    """A table with nothing in it, then one entry."""
    t = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float64, -1.5, empty_key=-1,
                                              deleted_key=-2, initial_num_buckets=4)
    k = tf.constant([3], tf.int64)
    return [("export0", t.export()), ("size0", (t.size(),)),
            ("lookup0", (t.lookup(tf.constant([0, 3], tf.int64)),)),
            ("remove0", t.remove(k)), ("export_removed", t.export()),
            ("insert", t.insert(k, tf.constant([0.25], tf.float64))),
            ("export1", t.export()), ("size1", (t.size(),)),
            ("lookup1", (t.lookup(tf.constant([0, 3], tf.int64)),))]


def bad_tables(tf):
    """Tables TF refuses when their op first runs."""
    same = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, 0, empty_key=-1,
                                                 deleted_key=-1, name="same_keys")
    odd = _int64_table(tf, initial_num_buckets=6, name="six_buckets")
    two = _int64_table(tf, initial_num_buckets=2, name="two_buckets")
    shapes = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, 0, empty_key=[-1, -1],
                                                   deleted_key=-2, name="shapes")
    return [("same_keys", (same.size(),)), ("six_buckets", (odd.size(),)),
            ("two_buckets", (two.size(),)), ("shapes_differ", (shapes.size(),))]


SCRIPTS = {"scalar_keys": scalar_keys, "growth": growth, "string_vectors": string_vectors,
           "int32_default_buckets": int32_default_buckets, "vector_keys": vector_keys,
           "empty_and_one": empty_and_one, "bad_tables": bad_tables}

# What each failing step's message says, in TF's words: {(script, step): phrase}
PHRASES = {
    ("scalar_keys", "insert_empty_key"): "Using the empty_key as a table key is not allowed",
    ("scalar_keys", "insert_deleted_key"):
        "Using the deleted_key as a table key is not allowed",
    ("scalar_keys", "lookup_empty_key"): "Using the empty_key as a table key is not allowed",
    ("scalar_keys", "lookup_deleted_key"):
        "Using the deleted_key as a table key is not allowed",
    ("scalar_keys", "remove_empty_key"): "Using the empty_key as a table key is not allowed",
    ("scalar_keys", "remove_deleted_key"):
        "Using the deleted_key as a table key is not allowed",
    ("scalar_keys", "lookup_matrix"): "Expected key shape [2] got [2,2]",
    ("scalar_keys", "insert_matrix"): "Expected key shape [1] got [1,2]",
    ("string_vectors", "insert_deleted_key"):
        "Using the deleted_key as a table key is not allowed",
    ("string_vectors", "lookup_empty_key"): "Using the empty_key as a table key is not allowed",
    ("string_vectors", "insert_wrong_values"): "Expected shape [2,2] for value, got [2]",
    ("vector_keys", "lookup_bad_shape"): "must end with the table's key shape [2]",
    # one vector key alone: TF reads its first dimension as the count of keys
    ("vector_keys", "lookup_one"): "Expected key shape [2,2] got [2]",
    ("bad_tables", "same_keys"): "Empty and deleted keys cannot be equal",
    ("bad_tables", "six_buckets"): "Number of buckets must be at least 4 and a power of 2, got: 6",
    ("bad_tables", "two_buckets"): "Number of buckets must be at least 4 and a power of 2, got: 2",
    ("bad_tables", "shapes_differ"): "Empty and deleted keys must have same shape",
}


def run_script(tf, sess, steps) -> dict:
    """{step name: list of arrays, or ("error", class name, message)} of ``steps``."""
    out = {}
    for name, what in steps:
        try:
            if isinstance(what, tuple):
                out[name] = [np.asarray(v) for v in sess.run(list(what))]
            else:
                sess.run(what)
                out[name] = []
        except tf.errors.OpError as e:
            out[name] = ("error", type(e).__name__, e.message)
    return out


def build_errors(tf) -> dict:
    """{case: a function building something TF refuses}: dtypes that do not match."""
    def table():
        return _int64_table(tf)
    return {
        "lookup_int32_keys": lambda: table().lookup(tf.constant([1], tf.int32)),
        "insert_float_values": lambda: table().insert(tf.constant([1], tf.int64),
                                                      tf.constant([1.5], tf.float32)),
        "remove_string_keys": lambda: table().remove(tf.constant(["a"])),
        "empty_key_of_another_dtype": lambda: tf.lookup.experimental.DenseHashTable(
            tf.int64, tf.int64, 0, empty_key="a", deleted_key="b"),
        "default_value_string": lambda: tf.lookup.experimental.DenseHashTable(
            tf.int64, tf.int64, "x", empty_key=-1, deleted_key=-2),
    }


def saved_table(tf):
    """(table, insert op) of the table the Saver cases save: 6 entries, one removed."""
    t = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, -1.0, empty_key=-1,
                                              deleted_key=-2, initial_num_buckets=8,
                                              name="saved")
    insert = t.insert(tf.constant([1, 2, 3, 10, 20, 30], tf.int64),
                      tf.constant([0.5, 1.5, 2.5, 3.5, 4.5, 5.5], tf.float32))
    with tf.control_dependencies([insert]):
        remove = t.remove(tf.constant([2], tf.int64))
    return t, remove
