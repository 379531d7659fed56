"""``Dataset.list_files`` (``data/readers.py``, ``kernels/reference/dataset_readers.py``):
the files matching glob patterns, sorted or shuffled each epoch (seeded: repeatably), and
TF's error when nothing matches, raised when the iterator starts."""

from __future__ import annotations

import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from test_data import drain

NAMES = ["b.txt", "a.txt", "c.txt", "d.x.txt", ".hidden.txt", "e.csv"]


@pytest.fixture
def folder(tmp_path):
    for name in NAMES:
        (tmp_path / name).write_bytes(name.encode())
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f.txt").write_bytes(b"f")
    return tmp_path


def epochs(dataset, count=1, feed=None) -> list:
    """Each epoch's elements, for ``count`` starts of an initializable iterator."""
    iterator = dataset.make_initializable_iterator()
    out = []
    with ds.Session() as sess:
        for _ in range(count):
            sess.run(iterator.initializer, feed)
            out.append(drain(sess, iterator.get_next()))
    return out


def paths(folder, *names) -> list:
    return [str(folder / n).encode() for n in names]


def test_sorted_when_not_shuffled(folder):
    dataset = ds.data.Dataset.list_files(str(folder / "*.txt"), shuffle=False)
    assert dataset.output_types == ds.string and dataset.output_shapes.as_list() == []
    # as TF 2.21's MatchingFiles: sorted, "*" matches a leading dot, not a "/"
    assert epochs(dataset) == [paths(folder, ".hidden.txt", "a.txt", "b.txt", "c.txt",
                                     "d.x.txt")]


def test_a_list_of_patterns_is_sorted_as_one(folder):
    patterns = [str(folder / "c*"), str(folder / "[ab].txt"), str(folder / "sub/*"),
                str(folder / "c*")]
    # TF 2.21 sorts the matches of all the patterns together, keeping repeats
    assert epochs(ds.data.Dataset.list_files(patterns, shuffle=False)) == \
        [paths(folder, "a.txt", "b.txt", "c.txt", "c.txt", "sub/f.txt")]


def test_a_fed_pattern(folder):
    pattern = ds.placeholder(ds.string, [])
    dataset = ds.data.Dataset.list_files(pattern, shuffle=False)
    iterator = dataset.make_initializable_iterator()
    value = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer, {pattern: str(folder / "*.csv")})
        assert drain(sess, value) == paths(folder, "e.csv")
        sess.run(iterator.initializer, {pattern: str(folder / "?.txt")})
        assert drain(sess, value) == paths(folder, "a.txt", "b.txt", "c.txt")


def test_shuffled_by_default_and_repeatable_with_a_seed(folder):
    pattern = str(folder / "*")
    everything = sorted(paths(folder, *NAMES, "sub"))
    seeded = ds.data.Dataset.list_files(pattern, seed=7).repeat(3)
    first = epochs(seeded, count=2)
    assert first[0] == first[1]                          # the same at each start
    orders = [first[0][k * 7:(k + 1) * 7] for k in range(3)]
    assert all(sorted(o) == everything for o in orders)
    assert len({tuple(o) for o in orders}) > 1           # a new order each epoch
    assert epochs(ds.data.Dataset.list_files(pattern, seed=7).repeat(3)) == [first[0]]
    unseeded = epochs(ds.data.Dataset.list_files(pattern), count=6)
    assert all(sorted(e) == everything for e in unseeded)
    assert len({tuple(e) for e in unseeded}) > 1
    assert epochs(ds.data.Dataset.list_files(pattern, shuffle=True, seed=3)) == \
        epochs(ds.data.Dataset.list_files(pattern, seed=3))


def test_no_match_fails_the_iterators_start_naming_the_patterns(folder):
    patterns = [str(folder / "*.nope"), str(folder / "*.zip")]
    iterator = ds.data.Dataset.list_files(patterns).make_initializable_iterator()
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match=r"No files matched pattern: "
                           r".*\*\.nope, .*\*\.zip") as info:
            sess.run(iterator.initializer)
        assert info.value.node_name == iterator.initializer.name
    one_shot = ds.data.Dataset.list_files(patterns[0]).make_one_shot_iterator()
    with ds.Session() as sess, pytest.raises(InvalidArgumentError, match="No files matched"):
        sess.run(one_shot.get_next())
    # one pattern matching is enough
    assert epochs(ds.data.Dataset.list_files([patterns[0], str(folder / "e*")])) == \
        [paths(folder, "e.csv")]


def test_listed_files_read_by_interleave(folder):
    for name in ("x1.lines", "x2.lines"):
        (folder / name).write_bytes(f"{name}:0\n{name}:1\n".encode())
    dataset = ds.data.Dataset.list_files(str(folder / "*.lines"), shuffle=False) \
        .interleave(ds.data.TextLineDataset, cycle_length=2)
    assert epochs(dataset) == [[b"x1.lines:0", b"x2.lines:0", b"x1.lines:1",
                                b"x2.lines:1"]]


def test_bad_patterns_are_build_time_errors():
    with pytest.raises(TypeError, match="list_files: file_pattern must be a string"):
        ds.data.Dataset.list_files(ds.constant([1]))
    with pytest.raises(ValueError, match="scalar or a vector"):
        ds.data.Dataset.list_files(ds.placeholder(ds.string, [None, 2]))
