"""``ds.data.TextLineDataset`` (``data/readers.py``, ``io/plain_records.py``,
``kernels/reference/dataset_readers.py``): lines with TF's treatment of line endings,
compressed files, ``num_parallel_reads`` and errors naming the pipeline's node."""

from __future__ import annotations

import gzip
import zlib

import pytest

import devsession as ds
from devsession.errors import DataLossError, NotFoundError
from test_data import drain

# Files with tricky endings and the lines TF 2.21 produced for each
# (tf.compat.v1.data.TextLineDataset(path) in graph mode): every "\r" is dropped, not
# only one before "\n"; an empty line is b""; the text after the last "\n" is a line
# only if something is left of it once its "\r"s are gone.
TEXTS = {
    "mixed": (b"first\r\nsecond\n\nfourth\rstill\n\r\nlast",
              [b"first", b"second", b"", b"fourthstill", b"", b"last"]),
    "trailing_newline": (b"x\n", [b"x"]),
    "empty_file": (b"", []),
    "one_newline": (b"\n", [b""]),
    "lone_cr_at_end": (b"lone\r", [b"lone"]),
    "double_cr": (b"a\r\r\nb\n\n", [b"a", b"b", b""]),
    "only_cr": (b"\r", []),
    "only_crlf": (b"\r\n", [b""]),
    "crlf_at_end": (b"trail\r\n", [b"trail"]),
}


def lines_of(dataset, feed=None) -> list:
    iterator = dataset.make_initializable_iterator()
    with ds.Session() as sess:
        sess.run(iterator.initializer, feed)
        return drain(sess, iterator.get_next())


@pytest.fixture
def text_files(tmp_path) -> dict:
    paths = {}
    for name, (data, _) in TEXTS.items():
        paths[name] = str(tmp_path / f"{name}.txt")
        with open(paths[name], "wb") as f:
            f.write(data)
    return paths


def test_lines_as_tf_reads_them(text_files):
    dataset = ds.data.TextLineDataset(text_files["mixed"])
    assert dataset.output_types == ds.string and dataset.output_shapes.as_list() == []
    for name, (_, lines) in TEXTS.items():
        assert lines_of(ds.data.TextLineDataset(text_files[name])) == lines, name


def test_a_line_longer_than_a_read_chunk(tmp_path):
    path = tmp_path / "long.txt"
    long_line = b"ab" * 70000           # spans three 64 KiB reads
    path.write_bytes(long_line + b"\r\n" + b"\n".join([b"x"] * 5000) + b"\r\r")
    (got,) = lines_of(ds.data.TextLineDataset(str(path)).batch(6000))
    assert list(got) == [long_line] + [b"x"] * 5000


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files(tmp_path, compression):
    data, lines = TEXTS["mixed"]
    path = tmp_path / "mixed.txt.z"
    path.write_bytes(gzip.compress(data) if compression == "GZIP" else zlib.compress(data))
    assert lines_of(ds.data.TextLineDataset(str(path), compression_type=compression)) \
        == lines
    damaged = tmp_path / "damaged.z"
    damaged.write_bytes(path.read_bytes()[:-6])
    with pytest.raises(DataLossError, match="damaged.z: the compressed stream is corrupt"):
        lines_of(ds.data.TextLineDataset(str(damaged), compression_type=compression))


def test_fed_filenames_and_parallel_reads_in_tfs_order(text_files):
    names = ds.placeholder(ds.string, [None])
    files = [text_files["mixed"], text_files["double_cr"], text_files["trailing_newline"]]
    # TF 2.21's order for TextLineDataset(files, num_parallel_reads=2) over these files
    tf_order = [b"first", b"a", b"second", b"b", b"", b"", b"fourthstill", b"", b"x",
                b"last"]
    assert lines_of(ds.data.TextLineDataset(names, num_parallel_reads=2),
                    {names: files}) == tf_order
    assert lines_of(ds.data.TextLineDataset(names), {names: files}) == \
        TEXTS["mixed"][1] + TEXTS["double_cr"][1] + TEXTS["trailing_newline"][1]


def test_lines_through_map_and_batch(text_files):
    dataset = ds.data.TextLineDataset(text_files["mixed"]) \
        .filter(lambda line: ds.not_equal(line, "")).batch(2)
    assert [list(b) for b in lines_of(dataset)] == \
        [[b"first", b"second"], [b"fourthstill", b"last"]]


def test_a_missing_file_fails_get_next_naming_the_file_and_node(text_files, tmp_path):
    names = ds.placeholder(ds.string, [None])
    iterator = ds.data.TextLineDataset(names).make_initializable_iterator()
    line = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer, {names: [text_files["trailing_newline"],
                                                str(tmp_path / "nowhere.txt")]})
        assert sess.run(line) == b"x"
        with pytest.raises(NotFoundError, match="nowhere.txt; No such file") as info:
            sess.run(line)
        assert info.value.node_name == iterator.initializer.name


def test_bad_arguments_are_build_time_errors(text_files):
    with pytest.raises(TypeError, match="TextLineDataset: filenames must be a string"):
        ds.data.TextLineDataset(ds.constant([1, 2]))
    with pytest.raises(ValueError, match="Unknown TFRecord compression type 'LZ4'"):
        ds.data.TextLineDataset(text_files["mixed"], compression_type="LZ4")
    with pytest.raises(ValueError, match="num_parallel_reads must be positive"):
        ds.data.TextLineDataset(text_files["mixed"], num_parallel_reads=0)


def test_a_graph_def_with_a_line_reader_imports_and_runs(text_files):
    graph = ds.Graph()
    with graph.as_default():
        ds.data.TextLineDataset(text_files["mixed"]).skip(3).make_one_shot_iterator() \
            .get_next(name="line")
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    with ds.Session(graph=imported) as sess:
        assert sess.run("line:0") == b"fourthstill"
