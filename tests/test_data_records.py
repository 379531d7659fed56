"""``ds.data.TFRecordDataset`` (``data/readers.py``, ``kernels/reference/
dataset_readers.py``): the records of files TF wrote (tests/data/tf_records), fed
filenames, TF's order for ``num_parallel_reads``, and read errors naming the node."""

from __future__ import annotations

import json
import os

import pytest

import devsession as ds
from devsession.errors import DataLossError, NotFoundError
from test_data import drain

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_records")
with open(os.path.join(HERE, "expected.json")) as _f:
    EXPECTED = json.load(_f)
RECORDS = [bytes.fromhex(r) for r in EXPECTED["records"]]
PLAIN = os.path.join(HERE, "records.tfrecord")


def records_of(dataset, feed=None, initializable=False) -> list:
    with ds.Session() as sess:
        if initializable:
            iterator = dataset.make_initializable_iterator()
            sess.run(iterator.initializer, feed)
        else:
            iterator = dataset.make_one_shot_iterator()
        return drain(sess, iterator.get_next())


def test_reads_the_records_tf_wrote_as_scalar_strings():
    dataset = ds.data.TFRecordDataset(PLAIN)
    assert dataset.output_types == ds.string and dataset.output_shapes.as_list() == []
    got = records_of(dataset)
    assert got == RECORDS
    assert all(isinstance(r, bytes) for r in got)


@pytest.mark.parametrize("compression, suffix", [("GZIP", ".gz"), ("ZLIB", ".zlib")])
def test_compressed_files(compression, suffix):
    dataset = ds.data.TFRecordDataset([PLAIN + suffix], compression_type=compression)
    assert records_of(dataset) == RECORDS


def test_filenames_fed_when_an_initializable_iterator_starts(tmp_path):
    other = str(tmp_path / "other.tfrecord")
    with ds.io.TFRecordWriter(other) as writer:
        writer.write(b"other")
    names = ds.placeholder(ds.string, [None])
    dataset = ds.data.TFRecordDataset(names).map(lambda r: ds.identity(r)).batch(4)
    iterator = dataset.make_initializable_iterator()
    batch = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer, {names: [PLAIN, other]})
        got = drain(sess, batch)
        sess.run(iterator.initializer, {names: [other]})
        again = drain(sess, batch)
    assert [list(b) for b in got] == [RECORDS[:4], [RECORDS[4], b"other"]]
    assert [list(b) for b in again] == [[b"other"]]


def test_num_parallel_reads_interleaves_files_in_tfs_order(tmp_path):
    counts = {"a": 3, "b": 5, "c": 2, "d": 4}
    paths = []
    for name, n in counts.items():
        paths.append(str(tmp_path / f"{name}.tfrecord"))
        with ds.io.TFRecordWriter(paths[-1]) as writer:
            for i in range(n):
                writer.write(f"{name}{i}")
    # TF 2.21 produced these orders (tf.data.TFRecordDataset(paths, num_parallel_reads=n)
    # over the same four files)
    tf_orders = {
        2: "a0 b0 a1 b1 a2 b2 b3 c0 b4 c1 d0 d1 d2 d3",
        3: "a0 b0 c0 a1 b1 c1 a2 b2 b3 d0 b4 d1 d2 d3",
    }
    for reads, order in tf_orders.items():
        got = records_of(ds.data.TFRecordDataset(paths, num_parallel_reads=reads))
        assert b" ".join(got).decode() == order
    assert b" ".join(records_of(ds.data.TFRecordDataset(paths))).decode() == \
        "a0 a1 a2 b0 b1 b2 b3 b4 c0 c1 d0 d1 d2 d3"


def test_a_missing_or_damaged_file_fails_get_next_naming_a_node(tmp_path):
    names = ds.placeholder(ds.string, [None])
    iterator = ds.data.TFRecordDataset(names).make_initializable_iterator()
    value = iterator.get_next(name="next_record")
    damaged = tmp_path / "damaged.tfrecord"
    with open(PLAIN, "rb") as f:
        damaged.write_bytes(f.read()[:40])
    with ds.Session() as sess:
        sess.run(iterator.initializer, {names: [PLAIN, str(tmp_path / "nowhere")]})
        assert [sess.run(value) for _ in RECORDS] == RECORDS
        with pytest.raises(NotFoundError, match="nowhere; No such file") as info:
            sess.run(value)
        # named as the pipeline's other errors are: by the node that started it
        assert info.value.node_name == iterator.initializer.name
        sess.run(iterator.initializer, {names: [str(damaged)]})
        assert sess.run(value) == RECORDS[0] and sess.run(value) == RECORDS[1]
        with pytest.raises(DataLossError, match="damaged.tfrecord: truncated record .* "
                                                "at offset 33"):
            sess.run(value)


def test_bad_arguments_are_build_time_errors():
    with pytest.raises(TypeError, match="string tensor"):
        ds.data.TFRecordDataset(ds.constant([1, 2]))
    with pytest.raises(ValueError, match="scalar or a vector"):
        ds.data.TFRecordDataset(ds.placeholder(ds.string, [None, 2]))
    with pytest.raises(ValueError, match="Unknown TFRecord compression type 'LZ4'"):
        ds.data.TFRecordDataset(PLAIN, compression_type="LZ4")
    with pytest.raises(ValueError, match="known when the graph is built"):
        ds.data.TFRecordDataset(PLAIN, compression_type=ds.placeholder(ds.string, []))


def test_a_graph_def_with_a_record_reader_imports_and_runs():
    graph = ds.Graph()
    with graph.as_default():
        ds.data.TFRecordDataset(PLAIN).take(2).make_one_shot_iterator().get_next(name="r")
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    with ds.Session(graph=imported) as sess:
        assert [sess.run("r:0") for _ in range(2)] == RECORDS[:2]

