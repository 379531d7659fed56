"""TF1's ``tf.gfile`` (``ds.gfile``) and TF2's lowercase ``tf.io.gfile`` names
(``ds.io.gfile``): files and directories on the local file system, with TF's errors.

    if ds.gfile.Exists(FLAGS.train_dir):
        ds.gfile.DeleteRecursively(FLAGS.train_dir)
    ds.gfile.MakeDirs(FLAGS.train_dir)
    with ds.gfile.GFile(path, "w") as f:
        f.write(text)

Errors are ``ds.errors`` classes, as TF's POSIX file system gives them
(``local_files.py``): a missing file or directory is ``NotFoundError``; ``MkDir`` of an
existing path and ``Rename``/``Copy`` onto an existing file without ``overwrite`` are
``AlreadyExistsError``; ``Remove`` of a directory, or a file where a directory should
be, ``FailedPreconditionError``; a URL scheme (gs://, hdfs://, s3://) is
``UnimplementedError`` naming it: only local files (and file:// URLs) are supported.

A ``GFile`` opens its file when first read or written, as TF's: a missing file is
``NotFoundError`` at the first read, and ``GFile(path, "w")`` never written creates
nothing.  Text modes read ``str``; binary modes ("rb", "wb"...) read ``bytes``; both
write either.  ``tell``/``seek`` count bytes.  ``ListDirectory``, ``Walk`` and
``Glob`` return sorted names (TF's order is unspecified).
"""

from __future__ import annotations

import collections
import fnmatch
import glob as _glob
import os
import shutil
import sys

from ..errors import (AlreadyExistsError, FailedPreconditionError, InvalidArgumentError,
                      NotFoundError, PermissionDeniedError)
from .local_files import local_path, op_error, open_local

__all__ = ["GFile", "Open", "FastGFile", "Exists", "IsDirectory", "ListDirectory",
           "MakeDirs", "MkDir", "Remove", "DeleteRecursively", "Rename", "Copy", "Glob",
           "Stat", "Walk", "FileStatistics",
           "exists", "isdir", "listdir", "makedirs", "mkdir", "remove", "rmtree", "rename",
           "copy", "glob", "stat", "walk", "join", "get_registered_schemes"]

_MODES = ("r", "w", "a", "r+", "w+", "a+")

# glob.glob's include_hidden is new in Python 3.11; before, Glob matches names itself.
_GLOB_HAS_INCLUDE_HIDDEN = sys.version_info >= (3, 11)


class GFile:
    """TF's file object: ``read``, ``readline``, ``readlines``, iteration, ``write``,
    ``seek``, ``tell``, ``size``, ``flush``, ``close``, and a context manager.  Raises
    ``InvalidArgumentError`` for a mode other than r, w, a, r+, w+, a+ (each with an
    optional "b")."""

    def __init__(self, name, mode: str = "r"):
        self._path = local_path(name)
        self._mode = mode
        if mode.replace("b", "") not in _MODES:
            raise InvalidArgumentError(f"GFile({self._path!r}, mode={mode!r}): mode is "
                                       f"not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+' "
                                       f"(optionally with 'b').")
        self._binary = "b" in mode
        self._file = None

    @property
    def name(self) -> str:
        return self._path

    @property
    def mode(self) -> str:
        return self._mode

    def _opened(self, for_writing: bool):
        plain = self._mode.replace("b", "")
        if for_writing and plain == "r":
            raise PermissionDeniedError(f"{self._path}: File isn't open for writing "
                                        f"(opened with mode {self._mode!r}; use 'w' or 'a').")
        if not for_writing and plain in ("w", "a"):
            raise PermissionDeniedError(f"{self._path}: File isn't open for reading "
                                        f"(opened with mode {self._mode!r}; use 'r' or "
                                        f"'{plain}+').")
        if self._file is None:
            self._file = open_local(self._path, plain + "b")
        return self._file

    def _text(self, data: bytes):
        return data if self._binary else data.decode("utf-8")

    def read(self, n: int = -1):
        """Up to ``n`` bytes (all that is left when ``n`` is -1)."""
        return self._text(self._opened(False).read(-1 if n is None else n))

    def readline(self):
        """The next line, with its newline; empty at the end."""
        return self._text(self._opened(False).readline())

    def readlines(self) -> list:
        return [self._text(line) for line in self._opened(False).readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, data):
        """Writes ``data`` (``str`` or ``bytes`` in any mode)."""
        self._opened(True).write(data.encode("utf-8") if isinstance(data, str) else data)

    def seek(self, offset=None, whence: int = 0, position=None):
        """Moves to byte ``offset`` (``position``, TF's older name) from ``whence``."""
        offset = position if offset is None else offset
        self._opened(self._mode.replace("b", "") in ("w", "a")).seek(offset, whence)

    def tell(self) -> int:
        return self._opened(self._mode.replace("b", "") in ("w", "a")).tell()

    def size(self) -> int:
        """The file's length in bytes (after flushing what was written)."""
        if self._file is not None:
            self._file.flush()
        return Stat(self._path).length

    def seekable(self) -> bool:
        return True

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<GFile {self._path!r} mode={self._mode!r}>"


Open = GFile
FastGFile = GFile

FileStatistics = collections.namedtuple("FileStatistics",
                                        ["length", "mtime_nsec", "is_directory"])


def Exists(path) -> bool:
    """Whether ``path`` exists (a file or a directory)."""
    return os.path.exists(local_path(path))


def IsDirectory(path) -> bool:
    """Whether ``path`` is a directory (False if it does not exist)."""
    return os.path.isdir(local_path(path))


def ListDirectory(path) -> list:
    """The names in directory ``path`` (not "." or ".."), sorted.  Raises
    ``NotFoundError`` if ``path`` is not a directory, as TF's."""
    path = local_path(path)
    if not os.path.isdir(path):
        raise NotFoundError(f"Could not find directory {path}")
    return sorted(os.listdir(path))


def MakeDirs(path):
    """Creates directory ``path`` and its missing parents; an existing directory is
    fine.  Raises ``FailedPreconditionError`` if a file stands in the way."""
    path = local_path(path)
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise FailedPreconditionError(f"{path} is not a directory (a file of that name "
                                      f"exists; remove it or choose another path)") from None
    except OSError as e:
        raise op_error(e, path) from None


def MkDir(path):
    """Creates directory ``path``.  Raises ``AlreadyExistsError`` if it exists (TF1's
    POSIX file system), ``NotFoundError`` if its parent does not (``MakeDirs`` creates
    parents)."""
    path = local_path(path)
    try:
        os.mkdir(path)
    except FileExistsError as e:
        raise op_error(e, path, "use MakeDirs to accept an existing directory") from None
    except FileNotFoundError as e:
        raise op_error(e, path, "its parent directory does not exist; MakeDirs creates "
                                "parents") from None
    except OSError as e:
        raise op_error(e, path) from None


def Remove(path):
    """Deletes file ``path``.  Raises ``NotFoundError`` if it does not exist,
    ``FailedPreconditionError`` if it is a directory (``DeleteRecursively`` deletes
    directories)."""
    path = local_path(path)
    try:
        os.remove(path)
    except IsADirectoryError as e:
        raise op_error(e, path, "use DeleteRecursively for a directory") from None
    except OSError as e:
        raise op_error(e, path) from None


def DeleteRecursively(path):
    """Deletes directory ``path`` and everything under it (or ``path``, a file).
    Raises ``NotFoundError`` if it does not exist."""
    path = local_path(path)
    if not os.path.lexists(path):
        raise NotFoundError(f"{path} not found (nothing to delete)")
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    except OSError as e:
        raise op_error(e, e.filename or path) from None


def _check_target(new, overwrite: bool):
    if not overwrite and os.path.exists(new):
        raise AlreadyExistsError(f"{new}: file already exists (pass overwrite=True to "
                                 f"replace it)")


def Rename(oldname, newname, overwrite: bool = False):
    """Moves ``oldname`` to ``newname``.  Raises ``AlreadyExistsError`` if ``newname``
    exists and not ``overwrite``, ``NotFoundError`` if ``oldname`` does not exist."""
    old, new = local_path(oldname), local_path(newname)
    if not os.path.lexists(old):
        raise NotFoundError(f"{old}; No such file or directory")
    _check_target(new, overwrite)
    try:
        os.replace(old, new)
    except OSError as e:
        raise op_error(e, old) from None


def Copy(oldpath, newpath, overwrite: bool = False):
    """Copies file ``oldpath`` to ``newpath``.  Raises ``AlreadyExistsError`` if
    ``newpath`` exists and not ``overwrite``, ``NotFoundError`` if ``oldpath`` does not
    exist, ``FailedPreconditionError`` if it is a directory."""
    old, new = local_path(oldpath), local_path(newpath)
    if os.path.isdir(old):
        raise FailedPreconditionError(f"{old}; Is a directory (Copy copies files only)")
    if not os.path.exists(old):
        raise NotFoundError(f"{old}; No such file or directory")
    _check_target(new, overwrite)
    try:
        shutil.copyfile(old, new)
    except OSError as e:
        raise op_error(e, e.filename or new) from None


def Glob(pattern) -> list:
    """The paths matching ``pattern`` (a glob, or a list of them), sorted; hidden
    files match too, as TF's MatchingFiles."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else pattern
    return sorted({path for p in patterns for path in _glob_with_hidden(local_path(p))})


def _glob_with_hidden(pattern: str) -> list:
    """``glob.glob(pattern, include_hidden=True)``, also where ``glob`` lacks
    ``include_hidden`` (Python 3.10): then each wildcard component is matched with
    ``fnmatch`` against every name ``os.listdir`` gives, dot-files included."""
    if _GLOB_HAS_INCLUDE_HIDDEN:
        return _glob.glob(pattern, include_hidden=True)
    if not _glob.has_magic(pattern):
        return [pattern] if os.path.lexists(pattern) else []
    dirname, basename = os.path.split(pattern)
    if dirname == pattern:                      # a root: nothing left to match
        return [pattern] if os.path.lexists(pattern) else []
    parents = _glob_with_hidden(dirname) if _glob.has_magic(dirname) else [dirname]
    found = []
    for parent in parents:
        if not basename:                        # "pattern/": directories only
            if os.path.isdir(parent):
                found.append(os.path.join(parent, ""))
        elif _glob.has_magic(basename):
            try:
                names = os.listdir(parent or os.curdir)
            except OSError:
                continue
            found.extend(os.path.join(parent, n) for n in fnmatch.filter(names, basename))
        elif os.path.lexists(os.path.join(parent, basename)):
            found.append(os.path.join(parent, basename))
    return found


def Stat(path) -> FileStatistics:
    """``length`` (bytes), ``mtime_nsec`` and ``is_directory`` of ``path``.  Raises
    ``NotFoundError`` if it does not exist."""
    path = local_path(path)
    try:
        info = os.stat(path)
    except OSError as e:
        raise op_error(e, path) from None
    return FileStatistics(info.st_size, info.st_mtime_ns, os.path.isdir(path))


def Walk(top, in_order: bool = True, onerror=None):
    """``(dirname, subdirectory names, file names)`` for ``top`` and every directory
    under it, parents first (``in_order``) or last.  A directory that cannot be listed
    (``top`` missing, or a file) is skipped; ``onerror``, when given, is called first
    with its ``NotFoundError`` (raising from it aborts the walk)."""
    top = local_path(top)
    try:
        names = ListDirectory(top)
    except NotFoundError as e:
        # TF calls onerror, then fails on its unbound listing (an UnboundLocalError);
        # its docstring means what os.walk does: skip the directory.
        if onerror is not None:
            onerror(e)
        return
    subdirs = [n for n in names if os.path.isdir(os.path.join(top, n))]
    files = [n for n in names if n not in subdirs]
    if in_order:
        yield top, subdirs, files
    for subdir in subdirs:
        yield from Walk(os.path.join(top, subdir), in_order, onerror)
    if not in_order:
        yield top, subdirs, files


# TF2's tf.io.gfile names
exists, isdir, listdir, makedirs, mkdir = Exists, IsDirectory, ListDirectory, MakeDirs, MkDir
remove, rmtree, rename, copy, glob, stat = Remove, DeleteRecursively, Rename, Copy, Glob, Stat


def walk(top, topdown: bool = True, onerror=None):
    """TF2's ``tf.io.gfile.walk`` (``Walk`` with ``topdown`` for ``in_order``)."""
    return Walk(top, in_order=topdown, onerror=onerror)


def join(path, *paths) -> str:
    return os.path.join(path, *paths)


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("gfile", name)


def get_registered_schemes() -> list:
    """The URL schemes these functions read: plain paths ("") and "file" (TF's also has
    "ram" and "gs")."""
    return ["file", ""]
