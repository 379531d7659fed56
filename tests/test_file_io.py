"""TF's file ops: ``ds.read_file``, ``ds.write_file``, ``ds.matching_files`` (and their
``ds.io`` spellings), ``ds.train.match_filenames_once`` feeding a TF1 queue pipeline, and
their errors; a ``Variable`` of unknown shape (``validate_shape=False``), which
``match_filenames_once`` is."""

from __future__ import annotations


import numpy as np
import pytest

import devsession as ds
from devsession.errors import NotFoundError


@pytest.fixture
def files(tmp_path):
    for name in ("b.txt", "a.txt", ".hidden.txt", "c.dat"):
        (tmp_path / name).write_bytes(name.encode() * 2)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "d.txt").write_bytes(b"deeper")
    return tmp_path


def test_read_write_and_match_files(files, bounded_session):
    read = ds.read_file(str(files / "a.txt"))
    write = ds.io.write_file(str(files / "new" / "dir" / "out.bin"), read)
    matches = ds.matching_files(str(files / "*.txt"))
    several = ds.io.matching_files([str(files / "*.dat"), str(files / "?.txt")])
    none = ds.matching_files(str(files / "*.none"))
    assert (read.shape, matches.shape, write.type) == ((), (None,), "WriteFile")
    assert bounded_session.run(read) == b"a.txta.txt"
    bounded_session.run(write)
    assert (files / "new" / "dir" / "out.bin").read_bytes() == b"a.txta.txt"
    want = sorted(str(files / n).encode() for n in ("a.txt", "b.txt", ".hidden.txt"))
    assert bounded_session.run(matches).tolist() == want
    assert bounded_session.run(several).tolist() == sorted(
        str(files / n).encode() for n in ("a.txt", "b.txt", "c.dat"))
    got = bounded_session.run(none)
    assert (got.shape, got.dtype) == ((0,), object)
    overlapping = ds.matching_files([str(files / "a.*"), str(files / "*.txt")])
    assert bounded_session.run(overlapping).tolist() == sorted(     # as TF's: twice
        str(files / n).encode() for n in ("a.txt", "a.txt", "b.txt", ".hidden.txt"))


def test_a_missing_file_is_not_found_naming_the_path_and_node(files, bounded_session):
    read = ds.read_file(str(files / "absent.txt"), name="reader")
    with pytest.raises(NotFoundError, match="absent.txt; No such file") as caught:
        bounded_session.run(read)
    assert caught.value.node_name == "reader"


def test_file_ops_take_strings_of_the_right_rank():
    with pytest.raises((TypeError, ValueError), match="string is required"):
        ds.read_file(ds.constant(1.0))
    with pytest.raises((TypeError, ValueError), match="must be a scalar"):
        ds.read_file(["a", "b"])
    with pytest.raises((TypeError, ValueError), match="must be a scalar or a vector"):
        ds.matching_files([["a"]])


def test_match_filenames_once_feeds_a_tf1_reading_pipeline(files, bounded_session):
    names = ds.train.match_filenames_once(str(files / "[ab].txt"))
    assert (names.op.name, names.shape.rank) == ("matching_filenames", None)
    assert names in ds.local_variables() and names not in ds.global_variables()
    queue = ds.train.string_input_producer(names, num_epochs=1, shuffle=False)
    key, value = ds.WholeFileReader().read(queue)
    bounded_session.run(ds.local_variables_initializer())
    (files / "b2.txt").write_bytes(b"too late")        # matched once, at initialization
    coord = ds.train.Coordinator()
    threads = ds.train.start_queue_runners(bounded_session, coord=coord)
    got = [bounded_session.run([key, value]) for _ in range(2)]
    with pytest.raises(ds.errors.OutOfRangeError):
        bounded_session.run(value)
    coord.request_stop()
    coord.join(threads)
    assert got == [[str(files / "a.txt").encode(), b"a.txta.txt"],
                   [str(files / "b.txt").encode(), b"b.txtb.txt"]]


def test_a_variable_of_unknown_shape_takes_any_value(bounded_session):
    n = ds.placeholder(ds.int32, ())
    v = ds.Variable(ds.range(n), validate_shape=False, name="v")
    assert v.shape.rank is None
    bounded_session.run(v.initializer, {n: 3})
    np.testing.assert_array_equal(bounded_session.run(v), [0, 1, 2])
    bounded_session.run(ds.assign(v, [7, 8, 9, 10], validate_shape=False))
    np.testing.assert_array_equal(bounded_session.run(v), [7, 8, 9, 10])
    with pytest.raises(ValueError, match="fully defined shape"):
        ds.Variable(ds.range(n))
