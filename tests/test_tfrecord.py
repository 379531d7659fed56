"""TFRecord files (``ds.io``, ``devsession/io/tfrecord.py``): the files TensorFlow wrote
(tests/data/tf_records, made by make_records.py) read back record for record, ours
written byte for byte as TF's, and damaged files as DataLossError naming file and
offset.
"""

from __future__ import annotations

import json
import os
import struct

import pytest

import devsession as ds
from devsession.errors import DataLossError, NotFoundError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_records")
with open(os.path.join(HERE, "expected.json")) as _f:
    EXPECTED = json.load(_f)
RECORDS = [bytes.fromhex(r) for r in EXPECTED["records"]]
TF_FILES = {"": "records.tfrecord", "GZIP": "records.tfrecord.gz",
            "ZLIB": "records.tfrecord.zlib"}


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_reads_the_records_tensorflow_wrote(compression):
    path = os.path.join(HERE, TF_FILES[compression])
    assert list(ds.io.tf_record_iterator(path, ds.io.TFRecordOptions(compression))) == RECORDS
    assert list(ds.python_io.tf_record_iterator(path, compression)) == RECORDS


def test_writes_the_bytes_tensorflow_writes(tmp_path):
    path = str(tmp_path / "ours.tfrecord")
    with ds.python_io.TFRecordWriter(path) as writer:
        for record in RECORDS:
            writer.write(record)
    with open(path, "rb") as ours, open(os.path.join(HERE, TF_FILES[""]), "rb") as tf:
        assert ours.read() == tf.read()


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB",
                                         ds.io.TFRecordCompressionType.GZIP])
def test_compressed_files_round_trip(tmp_path, compression):
    path = str(tmp_path / "ours.tfrecord")
    writer = ds.io.TFRecordWriter(path, ds.io.TFRecordOptions(compression_type=compression))
    for record in RECORDS:
        writer.write(record)
    writer.close()
    assert list(ds.io.tf_record_iterator(path, ds.io.TFRecordOptions(compression))) == RECORDS
    with open(path, "rb") as f:         # really compressed (the records repeat a lot)
        assert len(f.read()) < 0.5 * sum(16 + len(r) for r in RECORDS)


def test_the_first_record_frames_as_tf_frames_it():
    with open(os.path.join(HERE, TF_FILES[""]), "rb") as f:
        data = f.read()
    # record 0 is empty: its length 0, the masked CRC of eight zero bytes, no data, the
    # masked CRC of nothing (0xa282ead8: crc32c("") is 0)
    length, length_crc, data_crc = struct.unpack_from("<QII", data)
    assert (length, data_crc) == (0, 0xA282EAD8)
    assert length_crc == ds.io.tfrecord.masked_crc32c(bytes(8))


def _damaged(tmp_path, at: int, value=None, cut=False) -> str:
    with open(os.path.join(HERE, TF_FILES[""]), "rb") as f:
        data = bytearray(f.read())
    if cut:
        data = data[:at]
    else:
        data[at] ^= value
    path = tmp_path / "damaged.tfrecord"
    path.write_bytes(bytes(data))
    return str(path)


# offsets of the records: 16 bytes of framing each, around 0, 1, 11, 256, 1000 bytes
OFFSETS = [0, 16, 33, 60, 332]


@pytest.mark.parametrize("at, where, what", [
    (OFFSETS[2] + 3, OFFSETS[2], "length's checksum"),           # a length byte
    (OFFSETS[2] + 9, OFFSETS[2], "length's checksum"),           # the length's CRC
    (OFFSETS[2] + 12 + 4, OFFSETS[2], "data's checksum"),        # a data byte
    (OFFSETS[4] + 12 + 1000 + 2, OFFSETS[4], "data's checksum"),  # the data's CRC
])
def test_a_corrupt_record_is_data_loss_naming_file_and_offset(tmp_path, at, where, what):
    path = _damaged(tmp_path, at, value=0x40)
    records = ds.io.tf_record_iterator(path)
    with pytest.raises(DataLossError, match=f"damaged.tfrecord: corrupted record .*{what}.* "
                                            f"at offset {where}"):
        list(records)


@pytest.mark.parametrize("cut, where", [(OFFSETS[3] + 5, OFFSETS[3]),
                                        (OFFSETS[3] + 40, OFFSETS[3]),
                                        (OFFSETS[4] + 16 + 999, OFFSETS[4])])
def test_a_truncated_file_is_data_loss_after_its_whole_records(tmp_path, cut, where):
    records = ds.io.tf_record_iterator(_damaged(tmp_path, cut, cut=True))
    assert [next(records) for _ in range(OFFSETS.index(where))] == RECORDS[:OFFSETS.index(where)]
    with pytest.raises(DataLossError, match=f"truncated record .* at offset {where}"):
        next(records)


def test_a_damaged_compressed_file_is_data_loss(tmp_path):
    for compression, suffix in (("GZIP", "gz"), ("ZLIB", "zlib")):
        with open(os.path.join(HERE, f"records.tfrecord.{suffix}"), "rb") as f:
            data = f.read()
        path = tmp_path / f"cut.{suffix}"
        path.write_bytes(data[:len(data) // 2])
        with pytest.raises(DataLossError, match=f"cut.{suffix}: "):
            list(ds.io.tf_record_iterator(str(path), compression))


def test_missing_files_and_directories_are_not_found(tmp_path):
    with pytest.raises(NotFoundError, match="nowhere.tfrecord; No such file"):
        list(ds.io.tf_record_iterator(str(tmp_path / "nowhere.tfrecord")))
    with pytest.raises(NotFoundError, match="No such file"):
        ds.io.TFRecordWriter(str(tmp_path / "no" / "dir.tfrecord"))


def test_an_unknown_compression_is_a_value_error():
    with pytest.raises(ValueError, match="Unknown TFRecord compression type 'BZIP2'"):
        ds.io.TFRecordOptions("BZIP2")


def test_an_empty_file_has_no_records(tmp_path):
    path = tmp_path / "empty.tfrecord"
    path.write_bytes(b"")
    for compression in ("", "ZLIB"):
        assert list(ds.io.tf_record_iterator(str(path), compression)) == []
