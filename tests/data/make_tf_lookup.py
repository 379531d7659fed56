"""Records what TensorFlow 2.21's TF1 lookup tables give (tf.lookup.StaticHashTable,
StaticVocabularyTable's out-of-vocabulary buckets, the text-file initializers,
MutableHashTable) and tf.strings.to_hash_bucket_strong's buckets, into tf_lookup.json,
and a GraphDef holding two tables, into tf_lookup.pb (read by
tests/test_lookup_tables.py).  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_tf_lookup.py

The vocabulary file is tf_lookup_vocab.txt beside this script (tab-separated: word,
count, genre; its fourth line ends in \\r\\n).
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = os.path.join(HERE, "tf_lookup_vocab.txt")
WORDS = ["emerson", "lake", "palmer", "crimson", "king", "tarkus", "", "moon", "ELP",
         "black", "a much longer word than sixteen bytes", "Ünïcödé"]


def _plain(value):
    value = np.asarray(value)
    if value.dtype == object:
        return [v.decode("utf-8") if isinstance(v, bytes) else _plain(v)
                for v in value.tolist()] if value.ndim else value.item().decode("utf-8")
    return value.tolist()


def _error(sess, fetch, feed=None) -> dict:
    try:
        sess.run(fetch, feed)
    except tf.errors.OpError as e:
        lines = [line for line in e.message.split("\n") if line.strip()]
        detail = [line for line in lines if not line.strip().startswith("[[")][-1]
        return {"type": type(e).__name__, "message": detail.strip()}
    return {"type": None}


def static_tables(sess) -> dict:
    out = {}
    words = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["emerson", "lake", "palmer"], [10, 20, 30]), -1)
    ids = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([3, 1, 4], tf.int64),
                                            ["three", "one", "four"]), "UNK")
    floats = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([7, -2], tf.int32), [0.5, 2.5]), -1.0)
    out["before_init"] = {"size": int(sess.run(words.size())),
                          "lookup": _error(sess, words.lookup(tf.constant(["lake"])))}
    sess.run(tf.tables_initializer())
    out["string_to_int32"] = _plain(sess.run(words.lookup(tf.constant(
        [["emerson", "king"], ["palmer", "lake"]]))))
    out["int64_to_string"] = _plain(sess.run(ids.lookup(tf.constant([1, 2, 3, 4], tf.int64))))
    out["int32_to_float"] = _plain(sess.run(floats.lookup(tf.constant([-2, 7, 0], tf.int32))))
    out["sizes"] = [int(sess.run(t.size())) for t in (words, ids, floats)]
    again = tf.raw_ops.LookupTableImportV2(
        table_handle=words.resource_handle, keys=tf.constant(["king", "moon", "lake"]),
        values=tf.constant([1, 2, 3]))
    sess.run(again)          # an initialized table ignores as many entries again (TF
    # compares only the counts)...
    out["reinitialized"] = _plain(sess.run(words.lookup(tf.constant(["king", "lake"]))))
    fewer = tf.raw_ops.InitializeTableV2(table_handle=words.resource_handle,
                                         keys=tf.constant(["king"]), values=tf.constant([1]))
    out["reinitialized_other_size"] = _error(sess, fewer)     # ...and refuses others
    clash = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b", "a"], [1, 2, 3]), -1)
    out["duplicate_keys"] = _error(sess, clash.initializer)
    same = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 1]), -1)
    sess.run(same.initializer)
    out["duplicate_same_size"] = int(sess.run(same.size()))
    return out


def text_tables(sess) -> dict:
    out = {}
    index = tf.lookup.TextFileIndex
    whole = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        VOCAB, tf.string, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER), -1)
    columns = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        VOCAB, tf.string, 0, tf.int64, 1), -1)
    genres = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        VOCAB, tf.int64, index.LINE_NUMBER, tf.string, 2), "?")
    floats = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        VOCAB, tf.string, 0, tf.float32, 1, vocab_size=3), -1.0)
    wrong_size = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        VOCAB, tf.string, 0, tf.int64, 1, vocab_size=9), -1)
    bad_column = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        VOCAB, tf.string, 0, tf.int64, 2), -1)
    sess.run([t.initializer for t in (whole, columns, genres, floats)])
    keys = tf.constant(["emerson\t10\tprog", "crimson\t40\tprog", "lake", "crimson",
                        "king", "moon"])
    out["whole_line_to_line_number"] = _plain(sess.run(whole.lookup(keys)))
    out["column_0_to_column_1"] = _plain(sess.run(columns.lookup(keys)))
    out["line_number_to_column_2"] = _plain(sess.run(genres.lookup(
        tf.constant([0, 3, 4, 5], tf.int64))))
    out["vocab_size_3_floats"] = _plain(sess.run(floats.lookup(keys)))
    out["sizes"] = [int(sess.run(t.size())) for t in (whole, columns, genres, floats)]
    out["wrong_vocab_size"] = _error(sess, wrong_size.initializer)
    out["not_a_number"] = _error(sess, bad_column.initializer)
    return out


def vocabulary_tables(sess) -> dict:
    out = {}
    index = tf.lookup.TextFileIndex
    from_file = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        VOCAB, tf.string, 0, tf.int64, index.LINE_NUMBER), num_oov_buckets=3)
    from_tensors = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        ["emerson", "lake", "palmer"], tf.constant([0, 1, 2], tf.int64)), num_oov_buckets=7)
    int_keys = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([100, 200], tf.int64), tf.constant([0, 1], tf.int64)), num_oov_buckets=5)
    sess.run(tf.tables_initializer())
    words = tf.constant(WORDS)
    out["words"] = WORDS
    out["from_file_3_buckets"] = _plain(sess.run(from_file.lookup(words)))
    out["from_tensors_7_buckets"] = _plain(sess.run(from_tensors.lookup(words)))
    out["sizes"] = [int(sess.run(t.size())) for t in (from_file, from_tensors, int_keys)]
    out["int_keys"] = [100, 7, 200, -3, 123456789]
    out["int_keys_5_buckets"] = _plain(sess.run(int_keys.lookup(
        tf.constant(out["int_keys"], tf.int64))))
    return out


def mutable_tables(sess) -> dict:
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    out = {"size_empty": int(sess.run(table.size()))}
    sess.run(table.insert(tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64)))
    sess.run(table.insert(tf.constant(["b"]), tf.constant([20], tf.int64)))
    out["lookup"] = _plain(sess.run(table.lookup(tf.constant(["a", "b", "z"]))))
    out["size"] = int(sess.run(table.size()))
    keys, values = sess.run(table.export())
    out["export"] = sorted(zip(_plain(keys), _plain(values)))
    return out


def strong_buckets(sess) -> dict:
    out = {"words": WORDS}
    for key in ([1, 2], [0, 0], [2**62 + 5, 12345]):
        out[str(key)] = _plain(sess.run(tf.strings.to_hash_bucket_strong(
            WORDS, 1000, key)))
    out["big_buckets"] = _plain(sess.run(tf.strings.to_hash_bucket_strong(
        WORDS, 2**40, [7, 9])))
    return out


def graph_def() -> dict:
    """A graph with a KeyValueTensorInitializer'd vocabulary table (out-of-vocabulary
    buckets) and a text-file table whose file name is fed; its GraphDef and outputs."""
    with tf.Graph().as_default() as graph:
        words = tf.placeholder(tf.string, [None], name="words")
        vocab = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
            ["emerson", "lake", "palmer"], tf.constant([0, 1, 2], tf.int64)), 4)
        tf.identity(vocab.lookup(words), name="ids")
        filename = tf.placeholder(tf.string, [], name="vocab_file")
        counts = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            filename, tf.string, 0, tf.int64, 1), -1)
        tf.identity(counts.lookup(words), name="counts")
        tf.identity(counts.size(), name="size")
        tf.tables_initializer(name="init_all_tables")
        with tf.Session() as sess:
            sess.run("init_all_tables", {"vocab_file:0": VOCAB})
            feed = {"words:0": WORDS}
            ids, counts_, size = sess.run(["ids:0", "counts:0", "size:0"], feed)
        with open(os.path.join(HERE, "tf_lookup.pb"), "wb") as f:
            f.write(graph.as_graph_def().SerializeToString())
    return {"ids": _plain(ids), "counts": _plain(counts_), "size": int(size),
            "ops": sorted({n.op for n in graph.as_graph_def().node})}


def main():
    out = {}
    for name, record in (("static", static_tables), ("text", text_tables),
                         ("vocabulary", vocabulary_tables), ("mutable", mutable_tables),
                         ("strong", strong_buckets)):
        with tf.Graph().as_default(), tf.Session() as sess:
            out[name] = record(sess)
    out["graph_def"] = graph_def()
    with open(os.path.join(HERE, "tf_lookup.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True, ensure_ascii=False)


if __name__ == "__main__":
    main()
