"""``ds.data.TextLineDataset`` and ``FixedLengthRecordDataset`` (``data/readers.py``,
``io/plain_records.py``, ``kernels/reference/dataset_readers.py``): lines with TF's
treatment of line endings, fixed-length records between a header and a footer (CIFAR-10's
binary files through ``decode_raw``), compressed files, ``num_parallel_reads`` and errors
naming the pipeline's node."""

from __future__ import annotations

import gzip
import zlib

import numpy as np
import pytest

import devsession as ds
from devsession.errors import DataLossError, InvalidArgumentError, NotFoundError
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


# --- FixedLengthRecordDataset and decode_raw ---------------------------------------------------

def write(path, data: bytes, compression=None) -> str:
    if compression == "GZIP":
        data = gzip.compress(data)
    elif compression == "ZLIB":
        data = zlib.compress(data)
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_records_between_header_and_footer(tmp_path, compression):
    path = write(tmp_path / "f.bin", b"HHabcdefghijFFF", compression)
    dataset = ds.data.FixedLengthRecordDataset(path, 2, header_bytes=2, footer_bytes=3,
                                               compression_type=compression)
    assert dataset.output_types == ds.string and dataset.output_shapes.as_list() == []
    assert lines_of(dataset) == [b"ab", b"cd", b"ef", b"gh", b"ij"]
    # no header or footer; an empty file has no records (as TF 2.21's)
    empty = write(tmp_path / "empty.bin", b"", compression)
    assert lines_of(ds.data.FixedLengthRecordDataset(
        [path, empty], 5, compression_type=compression)) == [b"HHabc", b"defgh", b"ijFFF"]


def test_fixed_length_files_fed_and_interleaved(tmp_path):
    a = write(tmp_path / "a.bin", b"a0a1a2")
    b = write(tmp_path / "b.bin", b"b0")
    names = ds.placeholder(ds.string, [None])
    assert lines_of(ds.data.FixedLengthRecordDataset(names, 2, num_parallel_reads=2),
                    {names: [a, b, a]}) == [b"a0", b"b0", b"a1", b"a2", b"a0", b"a1", b"a2"]


def test_a_body_not_a_whole_number_of_records(tmp_path):
    names = ds.placeholder(ds.string, [None])
    iterator = ds.data.FixedLengthRecordDataset(names, 3, header_bytes=2, footer_bytes=3) \
        .make_initializable_iterator()
    record = iterator.get_next()
    good = write(tmp_path / "good.bin", b"HHabcdefFFF")
    odd = write(tmp_path / "odd.bin", b"HHabcdefghijFFF")
    short = write(tmp_path / "short.bin", b"Habc")
    with ds.Session() as sess:
        sess.run(iterator.initializer, {names: [good, odd]})
        assert [sess.run(record), sess.run(record)] == [b"abc", b"def"]
        # TF 2.21's InvalidArgumentError, before the file's first record
        with pytest.raises(InvalidArgumentError, match=r'Excluding the header \(2 bytes\) '
                           r'and footer \(3 bytes\), input file ".*odd.bin" has body length '
                           r'10 bytes, which is not an exact multiple of the record length '
                           r'\(3 bytes\)\. Check record_bytes') as info:
            sess.run(record)
        assert info.value.node_name == iterator.initializer.name
        sess.run(iterator.initializer, {names: [short]})
        with pytest.raises(InvalidArgumentError, match=r'short.bin" is 4 bytes, shorter than '
                                                       r'its header \(2 bytes\) and footer'):
            sess.run(record)


def test_a_compressed_body_fails_at_its_end(tmp_path):
    path = write(tmp_path / "odd.gz", b"HHabcdefghijFFF", "GZIP")
    iterator = ds.data.FixedLengthRecordDataset(path, 3, 2, 3, compression_type="GZIP") \
        .make_one_shot_iterator()
    record = iterator.get_next()
    with ds.Session() as sess:
        # as TF 2.21: the whole records, then DataLossError
        assert [sess.run(record) for _ in range(3)] == [b"abc", b"def", b"ghi"]
        with pytest.raises(DataLossError, match="odd.gz\" has body length 10 bytes"):
            sess.run(record)


def test_a_missing_fixed_length_file(tmp_path):
    dataset = ds.data.FixedLengthRecordDataset(str(tmp_path / "nowhere.bin"), 4)
    with pytest.raises(NotFoundError, match="nowhere.bin; No such file"):
        lines_of(dataset)


def test_bad_sizes_are_build_time_errors():
    with pytest.raises(ValueError, match="record_bytes: expected at least 1, got 0"):
        ds.data.FixedLengthRecordDataset("f.bin", 0)
    with pytest.raises(ValueError, match="footer_bytes: expected at least 0, got -1"):
        ds.data.FixedLengthRecordDataset("f.bin", 4, footer_bytes=-1)
    with pytest.raises(ValueError, match="header_bytes: expected a Python int"):
        ds.data.FixedLengthRecordDataset("f.bin", 4, header_bytes=ds.placeholder(ds.int64))


def test_cifar_like_binary_file_through_decode_raw_and_batch(tmp_path):
    """CIFAR-10's binary layout: a label byte, then 3x32x32 image bytes (CHW), read as
    TF1's tutorials read it."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 10, size=5, dtype=np.uint8)
    images = rng.integers(0, 256, size=(5, 3, 32, 32), dtype=np.uint8)
    data = b"".join(bytes([label]) + image.tobytes() for label, image in zip(labels, images))
    path = write(tmp_path / "data_batch_1.bin", data)

    def parse(record):
        raw = ds.io.decode_raw(record, ds.uint8)
        label = ds.cast(raw[0], ds.int32)
        image = ds.transpose(ds.reshape(raw[1:], [3, 32, 32]), [1, 2, 0])
        return ds.cast(image, ds.float32) / 255.0, label

    dataset = ds.data.FixedLengthRecordDataset([path], 1 + 32 * 32 * 3).map(parse).batch(2)
    assert dataset.output_shapes[0].as_list() == [None, 32, 32, 3]
    batches = lines_of(dataset)
    assert [len(b[1]) for b in batches] == [2, 2, 1]
    got_images = np.concatenate([b[0] for b in batches])
    got_labels = np.concatenate([b[1] for b in batches])
    assert got_labels.dtype == np.int32 and list(got_labels) == list(labels)
    np.testing.assert_array_equal(got_images,
                                  images.transpose(0, 2, 3, 1).astype(np.float32) / 255.0)


def test_decode_raw_as_tf_decodes():
    data = ds.placeholder(ds.string, [None])
    little, big = ds.io.decode_raw(data, ds.int16), ds.decode_raw(data, ds.int16,
                                                                  little_endian=False)
    assert little.shape.as_list() == [None, None] and little.dtype == ds.int16
    with ds.Session() as sess:
        got = sess.run([little, big], {data: [b"\x01\x02\x03\x04", b"\xff\xff\x00\x80"]})
        # TF 2.21's values for the same bytes
        np.testing.assert_array_equal(got[0], [[513, 1027], [-1, -32768]])
        np.testing.assert_array_equal(got[1], [[258, 772], [-1, 128]])
        floats = sess.run(ds.io.decode_raw(np.float32([1.5, -2.0]).tobytes(), ds.float32))
        np.testing.assert_array_equal(floats, [1.5, -2.0])
        assert sess.run(ds.io.decode_raw(ds.constant([[b"ab"], [b"cd"]]), ds.uint8)) \
            .tolist() == [[[97, 98]], [[99, 100]]]
        assert sess.run(little, {data: []}).shape == (0, 0)
        with pytest.raises(InvalidArgumentError, match="Input to DecodeRaw has length 3 "
                                                       "that is not a multiple of 2, the "
                                                       "size of int16"):
            sess.run(little, {data: [b"abc"]})
        with pytest.raises(InvalidArgumentError, match="DecodeRaw requires input strings to "
                                                       "all be the same size, but element 1 "
                                                       "has size 2 != 4") as info:
            sess.run(little, {data: [b"abcd", b"ab"]})
        assert info.value.node_name == little.op.name


def test_decode_raw_arguments():
    with pytest.raises(TypeError, match="out_type must be one of"):
        ds.io.decode_raw(ds.constant(b"ab"), ds.bool)
    with pytest.raises(ds.UnsupportedTF1Error if hasattr(ds, "UnsupportedTF1Error") else
                       AttributeError, match="fixed_length"):
        ds.io.decode_raw(ds.constant(b"ab"), ds.uint8, fixed_length=4)
    assert ds.decode_raw(bytes=ds.constant(b"ab"), out_type=ds.uint8).shape.as_list() == [None]
