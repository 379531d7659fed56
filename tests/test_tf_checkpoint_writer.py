"""TensorFlow's checkpoint format written by devsession (``train/tf_checkpoint_writer.py``):
the bytes TF's own ``SaveV2`` writes for the same tensors (tests/data/tf_bundle, made by
make_tf_bundle.py there), read back by devsession's reader (``TFCheckpoint``) and
restored by ``ds.train.Saver``.

Checked once by hand with TensorFlow 2.21 (/work/peers/bin/python), not in the tests:
``tf.train.load_checkpoint`` and ``NewCheckpointReader`` read what the writer wrote (45
tensors of five dtypes, a scalar, 40 of 300x300), and for 20,004 tensors the writer's
``.index`` (470,550 bytes, two data blocks) and data file are byte-identical to
``tf.raw_ops.SaveV2``'s."""

import os
import struct

import numpy as np
import pytest

import devsession as ds
from devsession.errors import DataLossError, UnimplementedError
from devsession.train import tf_checkpoint_writer as writer
from devsession.train.tf_checkpoint import TFCheckpoint, is_tf_checkpoint

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_bundle")


def _recorded_tensors() -> dict:
    npz = np.load(os.path.join(DATA, "tensors.npz"))
    return {name.replace("|", "/"): npz[name] for name in npz.files}


def test_the_bundle_is_byte_for_byte_what_tensorflow_writes(tmp_path):
    prefix = str(tmp_path / "model")
    writer.write_tf_checkpoint(prefix, _recorded_tensors())
    for suffix in (".index", ".data-00000-of-00001"):
        with open(os.path.join(DATA, "model" + suffix), "rb") as f:
            expected = f.read()
        with open(prefix + suffix, "rb") as f:
            assert f.read() == expected, suffix
    assert sorted(os.listdir(tmp_path)) == ["model.data-00000-of-00001", "model.index"]


def test_what_it_writes_reads_back_with_every_dtype_and_shape(tmp_path):
    tensors = _recorded_tensors()
    prefix = str(tmp_path / "ckpt")
    writer.write_tf_checkpoint(prefix, tensors)
    assert is_tf_checkpoint(prefix)
    reader = TFCheckpoint(prefix)
    assert reader.names() == sorted(tensors)
    for name, value in tensors.items():
        value = np.asarray(value)
        got = reader.tensor(name)
        assert (got.dtype, got.shape) == (value.dtype, value.shape), name
        np.testing.assert_array_equal(got, value, err_msg=name)
        assert reader.shape(name) == list(value.shape)


def test_an_index_of_many_blocks_reads_back(tmp_path):
    """Small blocks: many data blocks, index keys that are LevelDB's separators."""
    entries = [(f"k{i:04d}/{'x' * (i % 7)}".encode(), bytes([i % 256]) * (i % 5))
               for i in range(300)]
    table = writer.build_table(entries, block_size=64)
    from devsession.train.tf_checkpoint import _table_entries

    assert list(_table_entries(table, "t")) == entries
    assert table.count(b"\x00" * 4) > 20       # restart arrays of many blocks
    with pytest.raises(ValueError, match="strictly increasing"):
        writer.build_table([(b"b", b""), (b"a", b"")])


def test_leveldb_separators():
    assert writer._shortest_separator(b"abcd", b"abzz") == b"abd"
    assert writer._shortest_separator(b"abc", b"abd") == b"abc"     # no room between
    assert writer._shortest_separator(b"ab", b"abc") == b"ab"       # a prefix
    assert writer._short_successor(b"\xff\xffa") == b"\xff\xffb"
    assert writer._short_successor(b"\xff") == b"\xff"


def test_a_saver_restores_what_the_writer_wrote(tmp_path):
    graph = ds.Graph()
    with graph.as_default():
        w = ds.Variable(np.zeros((2, 3), np.float32), name="w")
        step = ds.Variable(np.int64(0), name="global_step")
        saver = ds.train.Saver()
        with ds.Session(graph=graph) as sess:
            sess.run(ds.global_variables_initializer())
            trained = np.arange(6, dtype=np.float32).reshape(2, 3)
            writer.write_tf_checkpoint(str(tmp_path / "m"), {"w": trained,
                                                            "global_step": np.int64(9)})
            saver.restore(sess, str(tmp_path / "m"))
            np.testing.assert_array_equal(sess.run(w), trained)
            assert sess.run(step) == 9


def test_corruption_is_caught_by_the_checksums_it_wrote(tmp_path):
    prefix = str(tmp_path / "m")
    writer.write_tf_checkpoint(prefix, {"a": np.arange(4, dtype=np.float32),
                                        "b": np.ones(3, np.int32)})
    data = writer.data_file_name(prefix)
    raw = bytearray(open(data, "rb").read())
    raw[2] ^= 1
    open(data, "wb").write(bytes(raw))
    reader = TFCheckpoint(prefix)
    np.testing.assert_array_equal(reader.tensor("b"), [1, 1, 1])
    with pytest.raises(DataLossError, match="'a'.*corrupt"):
        reader.tensor("a")
    index = bytearray(open(prefix + ".index", "rb").read())
    index[5] ^= 1
    open(prefix + ".index", "wb").write(bytes(index))
    with pytest.raises(DataLossError, match="CRC-32C"):
        TFCheckpoint(prefix)


def test_the_footer_and_header_are_tensorflows(tmp_path):
    prefix = str(tmp_path / "m")
    writer.write_tf_checkpoint(prefix, {})
    table = open(prefix + ".index", "rb").read()
    assert struct.unpack("<Q", table[-8:])[0] == 0xDB4775248B80FB57
    assert table[-48 + 6:-8] == b"\x00" * (40 - 6)      # two 3-byte handles, zero-padded
    assert TFCheckpoint(prefix).names() == []
    assert os.path.getsize(writer.data_file_name(prefix)) == 0


def test_strings_are_unimplemented_and_nothing_is_written(tmp_path):
    with pytest.raises(UnimplementedError, match="'words'.*not strings"):
        writer.write_tf_checkpoint(str(tmp_path / "m"), {"words": np.array([b"a"])})
    assert os.listdir(tmp_path) == []


def test_a_second_write_replaces_the_checkpoint_and_leaves_no_temporaries(tmp_path):
    prefix = str(tmp_path / "m")
    writer.write_tf_checkpoint(prefix, {"a": np.zeros(2, np.float32)})
    writer.write_tf_checkpoint(prefix, {"a": np.ones(3, np.float32)})
    np.testing.assert_array_equal(TFCheckpoint(prefix).tensor("a"), [1, 1, 1])
    assert sorted(os.listdir(tmp_path)) == ["m.data-00000-of-00001", "m.index"]
