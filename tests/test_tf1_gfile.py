"""``ds.gfile`` (TF1's ``tf.gfile``) and ``ds.io.gfile`` against the real file system in
``tmp_path``: every function, and the ``ds.errors`` class of each failure as TF's
(checked against TF 2.21's ``tf.compat.v1.gfile``; ``MkDir`` of an existing directory is
TF1's ``AlreadyExistsError``)."""

from __future__ import annotations

import errno
import os

import pytest

import devsession as ds
from devsession import errors
from devsession.io import gfile as G


@pytest.fixture
def tree(tmp_path):
    """tmp_path/d with a.txt ("hello\\nworld\\n"), b.bin, sub/ and sub/c.txt."""
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    (d / "a.txt").write_text("hello\nworld\n")
    (d / "b.bin").write_bytes(b"\x00\x01\x02")
    (d / "sub" / "c.txt").write_text("c")
    return d


def test_the_namespaces():
    assert ds.gfile is G and ds.io.gfile is G
    assert ds.gfile.Open is ds.gfile.GFile and ds.gfile.FastGFile is ds.gfile.GFile
    assert ds.io.gfile.exists is ds.gfile.Exists and ds.io.gfile.rmtree is G.DeleteRecursively


# --- GFile ---------------------------------------------------------------------------------

def test_reading_text_and_bytes(tree):
    with ds.gfile.GFile(str(tree / "a.txt")) as f:
        assert f.size() == 12
        assert f.readline() == "hello\n" and f.tell() == 6
        assert f.read() == "world\n" and f.read() == ""
        f.seek(0)
        assert list(f) == ["hello\n", "world\n"]
        f.seek(offset=2)
        assert f.read(3) == "llo"
        f.seek(-2, 2)
        assert f.readlines() == ["d\n"]
    assert ds.gfile.GFile(tree / "b.bin", "rb").read() == b"\x00\x01\x02"
    assert ds.gfile.GFile(tree / "a.txt", "rb").readlines() == [b"hello\n", b"world\n"]
    assert (ds.gfile.GFile(tree / "a.txt").name, ds.gfile.GFile(tree / "a.txt", "rb").mode) \
        == (str(tree / "a.txt"), "rb")


def test_writing_appending_and_flushing(tmp_path):
    path = str(tmp_path / "out.txt")
    with ds.gfile.GFile(path, "w") as f:
        f.write("abc")
        f.write(b"def")
        assert f.tell() == 6
        f.flush()
        assert open(path).read() == "abcdef" and f.size() == 6
    with ds.gfile.GFile(path, "a") as f:
        f.write("ghi")
    with ds.gfile.GFile(path, "wb") as f:
        f.write(b"x" + open(path, "rb").read())
    with ds.gfile.GFile(path, "ab") as f:
        f.write("!")
    assert open(path).read() == "x" + "abcdefghi" + "!"
    with ds.gfile.GFile(path, "r+") as f:
        f.seek(1)
        f.write("A")
        f.seek(0)
        assert f.read(3) == "xAb"


def test_a_gfile_opens_when_first_used_as_tfs(tmp_path):
    missing = ds.gfile.GFile(str(tmp_path / "missing.txt"))
    with pytest.raises(errors.NotFoundError, match="missing.txt; No such file or directory"):
        missing.read()
    with ds.gfile.GFile(str(tmp_path / "unwritten.txt"), "w"):
        pass
    assert not os.path.exists(tmp_path / "unwritten.txt")


def test_gfile_errors(tree, tmp_path):
    with pytest.raises(errors.InvalidArgumentError, match="mode is not 'r' or 'w'"):
        ds.gfile.GFile(tree / "a.txt", "x")
    with pytest.raises(errors.PermissionDeniedError, match="isn't open for writing"):
        ds.gfile.GFile(tree / "a.txt").write("x")
    with pytest.raises(errors.PermissionDeniedError, match="isn't open for reading"):
        ds.gfile.GFile(tmp_path / "new.txt", "w").read()
    with pytest.raises(errors.NotFoundError, match="nodir/x.txt; No such file"):
        ds.gfile.GFile(tmp_path / "nodir" / "x.txt", "w").write("x")
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        ds.gfile.GFile(tree).read()


# --- the functions -------------------------------------------------------------------------

def test_exists_isdirectory_listdirectory_stat(tree):
    assert ds.gfile.Exists(str(tree / "a.txt")) and ds.gfile.Exists(tree / "sub")
    assert not ds.gfile.Exists(tree / "zz")
    assert ds.gfile.IsDirectory(tree / "sub") and not ds.gfile.IsDirectory(tree / "a.txt")
    assert not ds.gfile.IsDirectory(tree / "zz")
    assert ds.gfile.ListDirectory(str(tree)) == ["a.txt", "b.bin", "sub"]
    stat = ds.gfile.Stat(tree / "a.txt")
    assert (stat.length, stat.is_directory) == (12, False)
    assert stat.mtime_nsec == os.stat(tree / "a.txt").st_mtime_ns
    assert ds.gfile.Stat(tree / "sub").is_directory


def test_listing_or_stating_what_is_missing_is_not_found(tree):
    with pytest.raises(errors.NotFoundError, match="Could not find directory .*zz"):
        ds.gfile.ListDirectory(tree / "zz")
    with pytest.raises(errors.NotFoundError, match="Could not find directory .*a.txt"):
        ds.gfile.ListDirectory(tree / "a.txt")
    with pytest.raises(errors.NotFoundError, match="zz; No such file or directory"):
        ds.gfile.Stat(tree / "zz")


def test_makedirs_and_mkdir(tree):
    ds.gfile.MakeDirs(str(tree / "x" / "y" / "z"))
    ds.gfile.MakeDirs(tree / "x" / "y")                # an existing directory is fine
    assert ds.gfile.IsDirectory(tree / "x" / "y" / "z")
    ds.gfile.MkDir(tree / "m")
    assert ds.gfile.IsDirectory(tree / "m")
    with pytest.raises(errors.AlreadyExistsError, match="m; File exists.*MakeDirs"):
        ds.gfile.MkDir(tree / "m")
    with pytest.raises(errors.NotFoundError, match="parent directory does not exist"):
        ds.gfile.MkDir(tree / "p" / "q")
    with pytest.raises(errors.FailedPreconditionError, match="a.txt is not a directory"):
        ds.gfile.MakeDirs(tree / "a.txt")


def test_remove_and_delete_recursively(tree):
    ds.gfile.Remove(tree / "b.bin")
    assert not os.path.exists(tree / "b.bin")
    with pytest.raises(errors.NotFoundError, match="b.bin; No such file"):
        ds.gfile.Remove(tree / "b.bin")
    with pytest.raises(errors.FailedPreconditionError, match="sub; Is a directory.*"
                                                             "DeleteRecursively"):
        ds.gfile.Remove(tree / "sub")
    ds.gfile.DeleteRecursively(tree / "a.txt")           # a file, as TF's
    ds.gfile.DeleteRecursively(str(tree))
    assert not os.path.exists(tree)
    with pytest.raises(errors.NotFoundError, match="not found"):
        ds.gfile.DeleteRecursively(tree)


def test_rename(tree):
    ds.gfile.Rename(tree / "a.txt", tree / "moved.txt")
    assert open(tree / "moved.txt").read() == "hello\nworld\n"
    with pytest.raises(errors.AlreadyExistsError, match="b.bin: file already exists.*"
                                                        "overwrite=True"):
        ds.gfile.Rename(tree / "moved.txt", tree / "b.bin")
    ds.gfile.Rename(tree / "moved.txt", tree / "b.bin", overwrite=True)
    assert open(tree / "b.bin").read() == "hello\nworld\n"
    with pytest.raises(errors.NotFoundError, match="moved.txt; No such file"):
        ds.gfile.Rename(tree / "moved.txt", tree / "elsewhere")
    ds.gfile.Rename(tree / "sub", tree / "sub2")
    assert ds.gfile.ListDirectory(tree / "sub2") == ["c.txt"]


def test_copy(tree):
    ds.gfile.Copy(tree / "a.txt", tree / "copy.txt")
    assert open(tree / "copy.txt").read() == "hello\nworld\n"
    with pytest.raises(errors.AlreadyExistsError, match="b.bin: file already exists"):
        ds.gfile.Copy(tree / "a.txt", tree / "b.bin")
    assert open(tree / "b.bin", "rb").read() == b"\x00\x01\x02"
    ds.gfile.Copy(tree / "a.txt", tree / "b.bin", overwrite=True)
    assert open(tree / "b.bin").read() == "hello\nworld\n"
    with pytest.raises(errors.NotFoundError, match="zz; No such file"):
        ds.gfile.Copy(tree / "zz", tree / "q")
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        ds.gfile.Copy(tree / "sub", tree / "sub3")
    assert not os.path.exists(tree / "sub3")


def test_glob(tree):
    (tree / ".hidden.txt").write_text("h")
    assert ds.gfile.Glob(str(tree / "*.txt")) == [str(tree / ".hidden.txt"),
                                                  str(tree / "a.txt")]
    assert ds.gfile.Glob([str(tree / "*.bin"), str(tree / "sub" / "*")]) == \
        [str(tree / "b.bin"), str(tree / "sub" / "c.txt")]
    assert ds.gfile.Glob(str(tree / "*.zz")) == []


def test_glob_matches_hidden_files_without_include_hidden(tree, monkeypatch):
    """Python 3.10's glob has no include_hidden: Glob matches hidden files itself there."""
    (tree / ".hidden.txt").write_text("h")
    (tree / ".hid").mkdir()
    (tree / ".hid" / "x.txt").write_text("x")
    (tree / "sub" / ".c.txt").write_text("c")
    real_glob = G._glob.glob

    def glob_of_python_3_10(pattern, *, recursive=False):
        return real_glob(pattern, recursive=recursive)

    monkeypatch.setattr(G._glob, "glob", glob_of_python_3_10)
    monkeypatch.setattr(G, "_GLOB_HAS_INCLUDE_HIDDEN", False, raising=False)
    assert ds.gfile.Glob(str(tree / "*.txt")) == [str(tree / ".hidden.txt"),
                                                  str(tree / "a.txt")]
    assert ds.gfile.Glob(str(tree / "*" / "*.txt")) == [
        str(tree / ".hid" / "x.txt"), str(tree / "sub" / ".c.txt"),
        str(tree / "sub" / "c.txt")]
    assert ds.gfile.Glob(str(tree / "s?b" / "c.txt")) == [str(tree / "sub" / "c.txt")]
    assert ds.gfile.Glob(str(tree / "a.txt")) == [str(tree / "a.txt")]
    assert ds.gfile.Glob(str(tree / "*") + os.sep) == [str(tree / ".hid") + os.sep,
                                                   str(tree / "sub") + os.sep]
    assert ds.gfile.Glob(str(tree / "zz" / "*")) == []
    assert ds.gfile.Glob(str(tree / "[ab].*")) == [str(tree / "a.txt"), str(tree / "b.bin")]
    monkeypatch.chdir(tree)
    assert ds.gfile.Glob("*.txt") == [".hidden.txt", "a.txt"]


def test_walk(tree):
    (tree / "sub" / "deeper").mkdir()
    top = str(tree)
    sub = os.path.join(top, "sub")
    expected = [(top, ["sub"], ["a.txt", "b.bin"]), (sub, ["deeper"], ["c.txt"]),
                (os.path.join(sub, "deeper"), [], [])]
    assert list(ds.gfile.Walk(top)) == expected
    assert list(ds.gfile.Walk(top, in_order=False)) == expected[::-1]
    assert list(ds.io.gfile.walk(top, topdown=False)) == expected[::-1]
    assert list(ds.gfile.Walk(str(tree / "zz"))) == []


def test_walk_calls_onerror_for_a_listing_error_as_tfs(tree):
    errors_seen = []
    assert list(ds.io.gfile.walk(str(tree / "zz"), onerror=errors_seen.append)) == []
    assert [type(e) for e in errors_seen] == [errors.NotFoundError]
    assert "Could not find directory" in str(errors_seen[0])

    def abort(error):
        raise error

    with pytest.raises(errors.NotFoundError):       # re-raising aborts the walk (TF's doc)
        list(ds.io.gfile.walk(str(tree / "a.txt"), onerror=abort))


def test_a_disk_quota_is_resource_exhausted_as_a_full_disk():
    from devsession.io import local_files

    for code in (errno.ENOSPC, errno.EDQUOT):
        error = local_files.op_error(OSError(code, os.strerror(code)), "/x/f")
        assert type(error) is errors.ResourceExhaustedError
        assert str(error) == f"/x/f; {os.strerror(code)}"


def test_file_urls_are_local_paths(tree):
    assert ds.gfile.Exists("file://" + str(tree / "a.txt"))
    assert ds.gfile.GFile("file://" + str(tree / "a.txt")).read(5) == "hello"


@pytest.mark.parametrize("scheme", ["gs", "hdfs", "s3"])
def test_a_url_scheme_is_unimplemented_naming_it(scheme):
    url = f"{scheme}://bucket/model/checkpoint"
    for call in (lambda: ds.gfile.Exists(url), lambda: ds.gfile.GFile(url),
                 lambda: ds.gfile.MakeDirs(url), lambda: ds.gfile.Glob(url + "*")):
        with pytest.raises(errors.UnimplementedError,
                           match=f"File system scheme '{scheme}' not implemented "
                                 f"\\(file: '{url}.*local"):
            call()


def test_tfrecord_files_share_the_scheme_check(tmp_path):
    with pytest.raises(errors.UnimplementedError, match="scheme 'gs'"):
        ds.io.TFRecordWriter("gs://bucket/train.tfrecord")
