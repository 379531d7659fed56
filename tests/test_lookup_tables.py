"""TF1's lookup tables (ds.lookup): StaticHashTable from tensors and from a vocabulary
file, StaticVocabularyTable's out-of-vocabulary buckets, MutableHashTable, the
initializers' collection, TF's errors, tables in dataset functions, direct and cluster
sessions, and a GraphDef TensorFlow wrote; checked against TF 2.21's values
(tests/data/make_tf_lookup.py wrote tf_lookup.json and tf_lookup.pb)."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

import devsession as ds
from devsession.errors import FailedPreconditionError, InvalidArgumentError
from devsession.unsupported import UnsupportedTF1Error
from sessions import SESSION_MAKERS

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
VOCAB = os.path.join(DATA, "tf_lookup_vocab.txt")
with open(os.path.join(DATA, "tf_lookup.json"), encoding="utf-8") as _f:
    TF = json.load(_f)
INDEX = ds.lookup.TextFileIndex


@pytest.fixture
def graph():
    g = ds.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def sess(graph):
    with ds.Session(graph=graph) as s:
        yield s


def plain(value):
    """A fetched value as the recorder wrote it (strings decoded)."""
    value = np.asarray(value)
    if value.dtype == object:
        return np.vectorize(lambda b: b.decode("utf-8"), otypes=[object])(value).tolist()
    return value.tolist()


def kv_table(keys, values, default, key_dtype=None, value_dtype=None):
    return ds.lookup.StaticHashTable(ds.lookup.KeyValueTensorInitializer(
        ds.constant(keys, key_dtype), ds.constant(values, value_dtype)), default)


def text_table(key_dtype, key_index, value_dtype, value_index, default, **kwargs):
    return ds.lookup.StaticHashTable(ds.lookup.TextFileInitializer(
        VOCAB, key_dtype, key_index, value_dtype, value_index, **kwargs), default)


def assert_tf_error(info, recorded):
    assert type(info.value).__name__ == recorded["type"]
    assert info.value.message == recorded["message"]


# --- StaticHashTable from tensors ------------------------------------------------------------

def test_tables_map_keys_to_values_as_tf(graph, sess):
    tf = TF["static"]
    words = kv_table(["emerson", "lake", "palmer"], [10, 20, 30], -1)
    ids = kv_table([3, 1, 4], ["three", "one", "four"], "UNK", ds.int64)
    floats = kv_table([7, -2], [0.5, 2.5], -1.0)
    sess.run(ds.tables_initializer())
    got = sess.run(words.lookup(ds.constant([["emerson", "king"], ["palmer", "lake"]])))
    assert got.dtype == np.int32 and got.tolist() == tf["string_to_int32"]
    assert plain(sess.run(ids.lookup(ds.constant([1, 2, 3, 4], ds.int64)))) == \
        tf["int64_to_string"]
    assert sess.run(floats[ds.constant([-2, 7, 0])]).tolist() == tf["int32_to_float"]
    assert [sess.run(t.size()) for t in (words, ids, floats)] == tf["sizes"]


def test_the_table_ops_and_names_are_tfs(graph):
    table = kv_table(["a"], [1], -1)
    found, size = table.lookup(ds.constant(["a"])), table.size()
    assert table.resource_handle.op.type == "HashTableV2"
    assert table.resource_handle.op.attrs["shared_name"].startswith("hash_table_")
    assert (table.name, table.key_dtype, table.value_dtype) == ("hash_table", ds.string,
                                                                ds.int32)
    assert table.initializer.name == "key_value_init/LookupTableImportV2"
    assert found.op.name == "hash_table_Lookup/LookupTableFindV2" and found.shape == (1,)
    assert (size.op.type, size.dtype) == ("LookupTableSizeV2", ds.int64)
    assert ds.get_collection(ds.GraphKeys.TABLE_INITIALIZERS) == [table.initializer]


def test_tables_initializer_groups_the_initializers_or_is_a_no_op(graph):
    assert ds.tables_initializer().type == "NoOp"
    table = kv_table(["a"], [1], -1)
    init = ds.tables_initializer(name="tables")
    assert init.name == "tables" and table.initializer in init.control_inputs
    assert ds.initializers.tables_initializer is ds.tables_initializer


def test_reading_before_initializing_is_tfs_error_and_size_is_zero(graph, sess):
    tf = TF["static"]["before_init"]
    table = kv_table(["emerson", "lake", "palmer"], [10, 20, 30], -1)
    assert sess.run(table.size()) == tf["size"]
    with pytest.raises(FailedPreconditionError) as info:
        sess.run(table.lookup(ds.constant(["lake"])))
    assert_tf_error(info, tf["lookup"])


def test_initializing_again_keeps_the_table_unless_the_count_differs(graph, sess):
    tf = TF["static"]
    table = kv_table(["emerson", "lake", "palmer"], [10, 20, 30], -1)
    sess.run(table.initializer)
    handle = table.resource_handle
    sess.run(graph.create_op("LookupTableImportV2", [handle, ds.constant(["king", "moon",
                                                                            "lake"]),
                                                     ds.constant([1, 2, 3])], {}))
    assert sess.run(table.lookup(ds.constant(["king", "lake"]))).tolist() == \
        tf["reinitialized"]
    fewer = graph.create_op("InitializeTableV2", [handle, ds.constant(["king"]),
                                                  ds.constant([1])], {})
    with pytest.raises(FailedPreconditionError) as info:
        sess.run(fewer)
    assert_tf_error(info, tf["reinitialized_other_size"])


def test_a_key_given_two_values_is_tfs_error(graph, sess):
    tf = TF["static"]
    clash = kv_table(["a", "b", "a"], [1, 2, 3], -1)
    with pytest.raises(FailedPreconditionError) as info:
        sess.run(clash.initializer)
    assert_tf_error(info, tf["duplicate_keys"])
    same = kv_table(["a", "a"], [1, 1], -1)
    sess.run(same.initializer)
    assert sess.run(same.size()) == tf["duplicate_same_size"]


def test_wrong_dtypes_and_shapes_are_build_errors(graph):
    table = kv_table(["a"], [1], -1)
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be"):
        table.lookup(ds.constant([1, 2]))
    with pytest.raises(TypeError):
        ds.lookup.StaticHashTable(ds.lookup.KeyValueTensorInitializer(["a"], [1]), "x")
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        kv_table(["a"], [1, 2], -1)
    with pytest.raises(ValueError):
        kv_table(["a"], [1], [-1, -2])          # the default is a scalar


def test_sparse_keys_give_a_sparse_tensor(graph, sess):
    table = kv_table(["a", "b"], [1, 2], 0)
    keys = ds.SparseTensor([[0, 0], [1, 2]], ds.constant(["b", "z"]), [2, 3])
    got = table.lookup(keys)
    sess.run(table.initializer)
    value = sess.run(got)
    assert isinstance(got, ds.SparseTensor) and value.values.tolist() == [2, 0]
    assert value.indices.tolist() == [[0, 0], [1, 2]]


# --- text files ------------------------------------------------------------------------------

def test_vocabulary_files_read_as_tf(graph, sess):
    tf = TF["text"]
    whole = text_table(ds.string, INDEX.WHOLE_LINE, ds.int64, INDEX.LINE_NUMBER, -1)
    columns = text_table(ds.string, 0, ds.int64, 1, -1)
    genres = text_table(ds.int64, INDEX.LINE_NUMBER, ds.string, 2, "?")
    floats = text_table(ds.string, 0, ds.float32, 1, -1.0, vocab_size=3)
    sess.run(ds.tables_initializer())
    keys = ds.constant(["emerson\t10\tprog", "crimson\t40\tprog", "lake", "crimson", "king",
                        "moon"])
    assert sess.run(whole.lookup(keys)).tolist() == tf["whole_line_to_line_number"]
    assert sess.run(columns.lookup(keys)).tolist() == tf["column_0_to_column_1"]
    assert plain(sess.run(genres.lookup(ds.constant([0, 3, 4, 5], ds.int64)))) == \
        tf["line_number_to_column_2"]
    assert sess.run(floats.lookup(keys)).tolist() == tf["vocab_size_3_floats"]
    assert [sess.run(t.size()) for t in (whole, columns, genres, floats)] == tf["sizes"]


def test_text_file_initializers_are_tfs_ops(graph):
    table = text_table(ds.string, INDEX.WHOLE_LINE, ds.int64, INDEX.LINE_NUMBER, -1)
    init = table.initializer
    assert (init.type, init.name) == ("InitializeTableFromTextFileV2",
                                      "text_file_init/InitializeTableFromTextFileV2")
    assert (init.attrs["key_index"], init.attrs["value_index"], init.attrs["vocab_size"],
            init.attrs["delimiter"]) == (-2, -1, -1, "\t")
    assert table.resource_handle.op.attrs["shared_name"] == f"hash_table_{VOCAB}_-2_-1"
    assert ds.get_collection(ds.GraphKeys.ASSET_FILEPATHS)[0].op.name == \
        "text_file_init/asset_filepath"


def test_bad_vocabulary_files_are_tfs_errors(graph, sess):
    tf = TF["text"]
    with pytest.raises(InvalidArgumentError) as info:
        sess.run(text_table(ds.string, 0, ds.int64, 1, -1, vocab_size=9).initializer)
    assert re.sub(r"in \S+:", "in F:", info.value.message) == \
        re.sub(r"in \S+:", "in F:", tf["wrong_vocab_size"]["message"])
    with pytest.raises(InvalidArgumentError) as info:
        sess.run(text_table(ds.string, 0, ds.int64, 2, -1).initializer)
    assert_tf_error(info, tf["not_a_number"])
    with pytest.raises(ds.errors.NotFoundError):
        sess.run(ds.lookup.StaticHashTable(ds.lookup.TextFileInitializer(
            VOCAB + ".missing", ds.string, 0, ds.int64, 1), -1).initializer)


def test_text_file_initializer_checks_indexes_as_tf(graph):
    with pytest.raises(ValueError, match="must be int64"):
        ds.lookup.TextFileInitializer(VOCAB, ds.string, INDEX.LINE_NUMBER, ds.int64, 1)
    with pytest.raises(ValueError, match="integer or string"):
        ds.lookup.TextFileInitializer(VOCAB, ds.string, 0, ds.float32, INDEX.WHOLE_LINE)
    with pytest.raises(ValueError, match="vocab_size"):
        ds.lookup.TextFileInitializer(VOCAB, ds.string, 0, ds.int64, 1, vocab_size=0)
    with pytest.raises(ValueError, match="filename"):
        ds.lookup.TextFileInitializer("", ds.string, 0, ds.int64, 1)


# --- StaticVocabularyTable -------------------------------------------------------------------

def test_out_of_vocabulary_buckets_are_tfs(graph, sess):
    tf = TF["vocabulary"]
    from_file = ds.lookup.StaticVocabularyTable(ds.lookup.TextFileInitializer(
        VOCAB, ds.string, 0, ds.int64, INDEX.LINE_NUMBER), num_oov_buckets=3)
    from_tensors = ds.lookup.StaticVocabularyTable(ds.lookup.KeyValueTensorInitializer(
        ["emerson", "lake", "palmer"], ds.constant([0, 1, 2], ds.int64)), num_oov_buckets=7)
    int_keys = ds.lookup.StaticVocabularyTable(ds.lookup.KeyValueTensorInitializer(
        ds.constant([100, 200], ds.int64), ds.constant([0, 1], ds.int64)), num_oov_buckets=5)
    sess.run(ds.tables_initializer())
    words = ds.constant(tf["words"])
    assert sess.run(from_file.lookup(words)).tolist() == tf["from_file_3_buckets"]
    assert sess.run(from_tensors.lookup(words)).tolist() == tf["from_tensors_7_buckets"]
    assert sess.run(int_keys.lookup(ds.constant(tf["int_keys"], ds.int64))).tolist() == \
        tf["int_keys_5_buckets"]
    assert [sess.run(t.size()) for t in (from_file, from_tensors, int_keys)] == tf["sizes"]


def test_a_vocabulary_table_without_initializer_only_hashes(graph, sess):
    table = ds.lookup.StaticVocabularyTable(None, num_oov_buckets=7)
    got = sess.run(table.lookup(ds.constant(["emerson", "moon"])))
    want = sess.run(ds.strings.to_hash_bucket_fast(["emerson", "moon"], 7))
    assert got.tolist() == want.tolist() and sess.run(table.size()) == 7
    assert table.initializer.type == "NoOp"
    with pytest.raises(ValueError, match="num_oov_buckets"):
        ds.lookup.StaticVocabularyTable(None, 0)
    with pytest.raises(TypeError, match="value_dtype"):
        ds.lookup.StaticVocabularyTable(ds.lookup.KeyValueTensorInitializer(["a"], [1]), 2)


# --- MutableHashTable ------------------------------------------------------------------------

def test_mutable_tables_insert_lookup_export_as_tf(graph, sess):
    tf = TF["mutable"]
    table = ds.lookup.experimental.MutableHashTable(ds.string, ds.int64, -1)
    assert table.resource_handle.op.type == "MutableHashTableV2"
    assert table.resource_handle.op.attrs["use_node_name_sharing"] is True
    assert sess.run(table.size()) == tf["size_empty"]
    sess.run(table.insert(["a", "b", "c"], ds.constant([1, 2, 3], ds.int64)))
    sess.run(table.insert(["b"], ds.constant([20], ds.int64)))
    assert sess.run(table.lookup(["a", "b", "z"])).tolist() == tf["lookup"]
    assert sess.run(table.size()) == tf["size"]
    keys, values = sess.run(table.export())
    assert sorted(zip(plain(keys), values.tolist())) == [tuple(e) for e in tf["export"]]
    sess.run(table.remove(ds.constant(["a", "q"])))
    assert sess.run(table.size()) == 2
    with pytest.raises(UnsupportedTF1Error, match="tf.lookup.experimental.DatasetInitializer"):
        ds.lookup.experimental.DatasetInitializer


def test_a_saver_saves_and_restores_mutable_tables_as_tf1s(tmp_path):
    words = ds.lookup.experimental.MutableHashTable(ds.string, ds.int64, -1, name="words")
    counts = ds.lookup.experimental.MutableHashTable(ds.int64, ds.float32, 0.0, name="counts",
                                                     checkpoint=False)
    w = ds.Variable(3.0, name="w")
    fill = ds.group(words.insert(ds.constant(["a", "b\x00"]), ds.constant([1, 2], ds.int64)),
                    counts.insert(ds.constant([5], ds.int64), ds.constant([0.5])))
    saver = ds.train.Saver()
    with ds.Session() as sess:
        sess.run([w.initializer, fill])
        path = saver.save(sess, str(tmp_path / "model"))
        sess.run([words.remove(ds.constant(["a"])), words.insert(ds.constant(["c"]),
                                                                 ds.constant([3], ds.int64))])
        saver.restore(sess, path)
        assert sess.run(words.lookup(ds.constant(["a", "b\x00", "c"]))).tolist() == \
            [1, 2, -1]
    assert dict(ds.train.list_variables(path)) == {"w": [], "words-keys": [2],
                                                   "words-values": [2]}
    only_words = ds.train.Saver(ds.get_collection(ds.GraphKeys.SAVEABLE_OBJECTS))
    with ds.Session() as sess:
        only_words.restore(sess, path)
        assert sess.run(words.size()) == 2


# --- sessions, datasets, GraphDefs ------------------------------------------------------------

@pytest.mark.parametrize("make", sorted(SESSION_MAKERS))
def test_tables_run_in_direct_and_cluster_sessions(make):
    graph = ds.Graph()
    with graph.as_default():
        vocab = ds.lookup.StaticVocabularyTable(ds.lookup.TextFileInitializer(
            VOCAB, ds.string, 0, ds.int64, INDEX.LINE_NUMBER), num_oov_buckets=3)
        ids = vocab.lookup(ds.constant(TF["vocabulary"]["words"]))
        counts = ds.lookup.experimental.MutableHashTable(ds.string, ds.int64, 0)
        insert = counts.insert(["lake"], ds.constant([4], ds.int64))
        found = counts.lookup(["lake", "king"])
        init = ds.tables_initializer()
    session = SESSION_MAKERS[make](graph)
    try:
        session.run(init)
        session.run(insert)
        assert session.run(ids).tolist() == TF["vocabulary"]["from_file_3_buckets"]
        assert session.run(found).tolist() == [4, 0]
    finally:
        session.close()


def test_a_gpu_session_keeps_tables_on_the_cpu():
    from fake_gpu import fake_gpus
    from test_kernels import LOOKUP_OPS
    from test_string_ops import STRING_OPS

    with fake_gpus(1, without=LOOKUP_OPS | STRING_OPS), ds.Graph().as_default():
        table = kv_table(["a", "b"], [1.5, 2.5], 0.0)
        found = table.lookup(ds.constant(["b", "z"]))
        doubled = found * 2.0
        options = ds.SessionOptions(device="gpu:0", allow_soft_placement=True)
        with ds.Session(options=options) as sess:
            sess.run(ds.tables_initializer())
            assert sess.run(doubled).tolist() == [5.0, 0.0]
            placed = sess.placement()
    assert placed[found.op.name].endswith("CPU:0") and placed[doubled.op.name].endswith("GPU:0")
    assert placed[table.resource_handle.op.name].endswith("CPU:0")


def test_a_table_is_read_inside_a_dataset_map_function(graph, sess):
    table = kv_table(["emerson", "lake", "palmer"], [10, 20, 30], -1)
    dataset = ds.data.Dataset.from_tensor_slices(ds.constant(["lake", "moon", "emerson"]))
    get_next = dataset.map(lambda word: table.lookup(word) + 1).make_one_shot_iterator() \
        .get_next()
    sess.run(ds.tables_initializer())
    assert [sess.run(get_next) for _ in range(3)] == [21, 0, 11]


def test_a_graph_def_tensorflow_wrote_imports_and_runs(graph, sess):
    tf = TF["graph_def"]
    graph_def = ds.read_graph_def(os.path.join(DATA, "tf_lookup.pb"))
    ds.import_graph_def(graph_def, name="")
    assert {op.type for op in graph.get_operations()} == set(tf["ops"])
    sess.run("init_all_tables", {"vocab_file:0": VOCAB})
    feed = {"words:0": TF["vocabulary"]["words"]}
    ids, counts, size = sess.run(["ids:0", "counts:0", "size:0"], feed)
    assert (ids.tolist(), counts.tolist(), size) == (tf["ids"], tf["counts"], tf["size"])


def test_lookup_is_a_namespace_of_tf1s_names():
    assert {"StaticHashTable", "StaticVocabularyTable", "KeyValueTensorInitializer",
            "TextFileInitializer", "TextFileIndex"} <= set(dir(ds.lookup))
    with pytest.raises(UnsupportedTF1Error, match="tf.lookup.index_table_from_file"):
        ds.lookup.index_table_from_file


# --- tf.strings.to_hash_bucket_strong ---------------------------------------------------------

def test_strong_hash_buckets_are_tfs(graph, sess):
    tf = TF["strong"]
    for key in ([1, 2], [0, 0], [2**62 + 5, 12345]):
        got = sess.run(ds.strings.to_hash_bucket_strong(tf["words"], 1000, key))
        assert got.dtype == np.int64 and got.tolist() == tf[str(key)], key
    big = ds.string_to_hash_bucket_strong(ds.constant(tf["words"]), 2**40, [7, 9])
    assert (big.op.type, big.op.attrs["key"]) == ("StringToHashBucketStrong", (7, 9))
    assert sess.run(big).tolist() == tf["big_buckets"]
    with pytest.raises(ValueError, match="Key must have 2 elements"):
        ds.strings.to_hash_bucket_strong(["a"], 10, [1])
    with pytest.raises(ValueError, match="less than minimum 1"):
        ds.strings.to_hash_bucket_strong(["a"], 0, [1, 2])
