"""``ds.lookup.experimental.DenseHashTable`` against what TensorFlow 2.21 gave for the
same scripts (tests/data/tf_dense_hash_table.npz and .json, recorded by
tests/data/make_tf_dense_hash_table.py from tests/data/dense_hash_table_cases.py):
every lookup, size and export (the buckets, empty and deleted ones included, in TF's
order: its hashing, probing and growth), value vectors and vector keys, string keys,
TF's default 2**17 buckets, an empty and a one-entry table, and TF's errors by class
and message; dtype errors when the graph is built; a GraphDef TensorFlow wrote; a Saver
round trip, a checkpoint TensorFlow wrote restored; the table shared by its node's name,
and placed on a cluster task with every op on it."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import dense_hash_table_cases as cases
from sessions import local_cluster
from tf_recorded import DATA

TF = np.load(os.path.join(DATA, "tf_dense_hash_table.npz"))
with open(os.path.join(DATA, "tf_dense_hash_table.json")) as _f:
    RECORDED = json.load(_f)


def _run(script: str) -> dict:
    with ds.Graph().as_default():
        steps = cases.SCRIPTS[script](ds)
        with ds.Session() as sess:
            return cases.run_script(ds, sess, steps)


@pytest.mark.parametrize("script", sorted(cases.SCRIPTS))
def test_each_step_gives_tfs_values_and_errors(script):
    ours = _run(script)
    for step, result in ours.items():
        where = f"{script}/{step}"
        if where in RECORDED["errors"]:
            cls, message = RECORDED["errors"][where]
            assert isinstance(result, tuple), f"{where}: TF raised {cls}, we gave {result}"
            assert result[1] == cls, (where, result)
            phrase = cases.PHRASES[(script, step)]
            assert phrase in message, where          # the phrase is TF's
            assert phrase in result[2], (where, result[2])
            continue
        assert not isinstance(result, tuple), f"{where}: {result}"
        wanted = [TF[k] for k in sorted(TF.files) if k.rsplit("/", 1)[0] == where]
        assert len(result) == len(wanted), where
        for ours_value, tfs in zip(result, wanted):
            if ours_value.dtype == object:
                ours_value = ours_value.astype(bytes)
            assert ours_value.dtype == tfs.dtype, where
            np.testing.assert_array_equal(ours_value, tfs, err_msg=where)


def test_every_recorded_step_is_run():
    recorded = {k.rsplit("/", 1)[0] for k in TF.files} | set(RECORDED["errors"])
    ran = {f"{script}/{step}" for script in cases.SCRIPTS
           for step, what in cases.SCRIPTS[script](ds)
           if isinstance(what, tuple) or f"{script}/{step}" in RECORDED["errors"]}
    assert ran == recorded - {"saved/export", "graph/found", "graph/export"}


def test_a_graph_def_tensorflow_wrote_imports_and_runs():
    g = ds.Graph()
    with g.as_default():
        ds.import_graph_def(ds.read_graph_def(os.path.join(DATA, "tf_dense_hash_table.pb")),
                            name="")
    with ds.Session(graph=g) as sess:
        sess.run("insert/LookupTableInsertV2")
        found, keys, values = sess.run(["found:0", "exported/LookupTableExportV2:0",
                                        "exported/LookupTableExportV2:1"])
    np.testing.assert_array_equal(found, TF["graph/found/0"])
    np.testing.assert_array_equal(keys, TF["graph/export/0"])
    np.testing.assert_array_equal(values, TF["graph/export/1"])


@pytest.mark.parametrize("case", sorted(cases.build_errors(ds)))
def test_dtype_mismatches_are_tfs_build_errors(case):
    cls, message = RECORDED["build_errors"][case]
    with ds.Graph().as_default():
        with pytest.raises((TypeError, ValueError)) as caught:
            cases.build_errors(ds)[case]()
    assert type(caught.value).__name__ == cls, (case, caught.value)
    if case == "remove_string_keys":
        assert str(caught.value) == message


def test_the_table_op_and_names_are_tfs():
    t = ds.lookup.experimental.DenseHashTable(ds.int64, ds.float32, [1.0, 2.0],
                                              empty_key=-1, deleted_key=-2)
    op = t.resource_handle.op
    assert op.type == "MutableDenseHashTableV2" and op.name == "MutableDenseHashTable"
    assert [i.op.name for i in op.inputs] == ["empty_key", "deleted_key"]
    assert op.get_attr("value_shape") == [2] and op.get_attr("use_node_name_sharing")
    assert t.lookup(ds.constant([3], ds.int64)).shape.as_list() == [1, 2]
    keys, values = t.export()
    assert keys.shape.as_list() == [None, 1] and values.shape.as_list() == [None, 2]
    assert t.insert(ds.constant([1], ds.int64), ds.constant([[1.0, 2.0]])).name == \
        "MutableDenseHashTable_lookup_table_insert/LookupTableInsertV2"


def _filled_table():
    table, fill = cases.saved_table(ds)
    return table, fill


def test_a_saver_round_trip_gives_the_buckets_back(tmp_path):
    table, fill = _filled_table()
    keys, values = table.export()
    saver = ds.train.Saver()
    with ds.Session() as sess:
        sess.run(fill)
        saved = sess.run([keys, values])
        np.testing.assert_array_equal(saved[0], TF["saved/export/0"])
        np.testing.assert_array_equal(saved[1], TF["saved/export/1"])
        path = saver.save(sess, str(tmp_path / "model"))
        sess.run(table.insert(ds.constant([99, 100, 101, 102], ds.int64),
                              ds.constant([9.0, 9.0, 9.0, 9.0])))
        assert sess.run(table.size()) == 9
        saver.restore(sess, path)
        restored = sess.run([keys, values])
        assert sess.run(table.size()) == 5
        assert sess.run(table.lookup(ds.constant([1, 2, 30, 99], ds.int64))).tolist() == \
            [0.5, -1.0, 5.5, -1.0]
    for a, b in zip(restored, saved):
        np.testing.assert_array_equal(a, b)
    stored = ds.train.list_variables(path)
    assert {name: shape for name, shape in stored} == {
        name: shape for name, (_, shape) in RECORDED["checkpoint"].items()}


def test_a_checkpoint_tensorflow_wrote_restores_the_table():
    table, _ = _filled_table()
    saver = ds.train.Saver()
    with ds.Session() as sess:
        saver.restore(sess, os.path.join(DATA, "tf_dense_hash_table_ckpt", "model"))
        got = sess.run(table.export())
        assert sess.run(table.size()) == 5
    np.testing.assert_array_equal(got[0], TF["saved/export/0"])
    np.testing.assert_array_equal(got[1], TF["saved/export/1"])


def test_a_string_table_saves_and_restores(tmp_path):
    t = ds.lookup.experimental.DenseHashTable(ds.string, ds.int64, -1, empty_key="",
                                              deleted_key="$", initial_num_buckets=4,
                                              name="words")
    insert = t.insert(ds.constant(["a", "b\x00", "\x00"]), ds.constant([1, 2, 3], ds.int64))
    saver = ds.train.Saver()
    with ds.Session() as sess:
        sess.run(insert)
        before = sess.run(t.export())
        path = saver.save(sess, str(tmp_path / "words"))
        sess.run(t.remove(ds.constant(["a"])))
        saver.restore(sess, path)
        after = sess.run(t.export())
        assert sess.run(t.lookup(ds.constant(["a", "b\x00", "\x00", "b"]))).tolist() == \
            [1, 2, 3, -1]
    assert after[0].tolist() == before[0].tolist()


def test_tables_with_checkpoint_false_are_not_saved():
    ds.lookup.experimental.DenseHashTable(ds.int64, ds.int64, 0, -1, -2, checkpoint=False)
    assert ds.get_collection(ds.GraphKeys.SAVEABLE_OBJECTS) == []
    with pytest.raises(ValueError, match="No variables to save"):
        ds.train.Saver()


def test_two_sessions_of_a_server_share_the_table_by_its_node_name():
    server = local_cluster()[0]
    g = ds.Graph()
    with g.as_default():
        t = ds.lookup.experimental.DenseHashTable(ds.int64, ds.int64, -1, -1, -2,
                                                  initial_num_buckets=4)
        insert = t.insert(ds.constant([7], ds.int64), ds.constant([70], ds.int64))
        found = t.lookup(ds.constant([7], ds.int64))
    ds.reset(ds.SessionOptions(target=server.target))
    with ds.Session(server.target, graph=g) as first:
        first.run(insert)
    with ds.Session(server.target, graph=g) as second:
        assert second.run(found).tolist() == [70]


def test_a_table_made_on_another_task_is_used_there():
    here, there = "/job:worker/task:0", "/job:worker/task:1"
    target = local_cluster()[0].target
    g = ds.Graph()
    with g.as_default():
        with ds.device(there):
            t = ds.lookup.experimental.DenseHashTable(ds.string, ds.float32, [0.0, 0.0],
                                                      empty_key="", deleted_key="$",
                                                      initial_num_buckets=4)
        with ds.device(here):
            insert = t.insert(ds.constant(["x", "y", "z", "w"]),
                              ds.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]))
            remove = t.remove(ds.constant(["y"]))
            found = t.lookup(ds.constant(["w", "y", "x"]))
            total = ds.reduce_sum(found)
            size, (keys, _) = t.size(), t.export()
    for op in (insert, remove, found.op, size.op, keys.op):
        assert op.device.startswith(there), op.name
    assert total.op.device.startswith(here)
    ds.reset(ds.SessionOptions(target=target))
    with ds.Session(target, graph=g) as sess:
        sess.run(insert)
        sess.run(remove)
        assert sess.run(found).tolist() == [[7.0, 8.0], [0.0, 0.0], [1.0, 2.0]]
        assert sess.run([total, size]) == [18.0, 3]
        assert sess.run(keys).shape == (8, 1)


def test_importing_buckets_takes_a_power_of_two_of_them():
    t = ds.lookup.experimental.DenseHashTable(ds.int64, ds.int64, -1, -1, -2,
                                              initial_num_buckets=4)
    good = ds.get_default_graph().create_op("LookupTableImportV2", [
        t.resource_handle, ds.constant([[-1], [9], [-2], [-1]], ds.int64),
        ds.constant([[0], [90], [0], [0]], ds.int64)])
    bad = ds.get_default_graph().create_op("LookupTableImportV2", [
        t.resource_handle, ds.constant([[9], [-1], [-1]], ds.int64),
        ds.constant([[90], [0], [0]], ds.int64)])
    with ds.Session() as sess:
        sess.run(good)
        assert sess.run([t.size(), t.lookup(ds.constant([9], ds.int64))])[0] == 1
        with pytest.raises(ds.errors.InvalidArgumentError, match="power of 2, got: 3"):
            sess.run(bad)
