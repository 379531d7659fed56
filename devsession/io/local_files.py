"""The local file system as TF's file system layer reports it: a path (str, bytes,
``os.PathLike`` or a ``file://`` URL) made a local path, and an ``OSError`` made the
``ds.errors`` class TF's POSIX file system gives for its errno (``IOError`` in TF's
``core/platform``): ENOENT is ``NotFoundError``, EEXIST ``AlreadyExistsError``, EISDIR
and ENOTDIR ``FailedPreconditionError``, EACCES ``PermissionDeniedError``...

devsession reads local files only: a path with another URL scheme (gs://, hdfs://,
s3://) is ``UnimplementedError`` naming the scheme, as TF's for a scheme it has no file
system for.  ``gfile``, ``tfrecord`` and ``plain_records`` share these.
"""

from __future__ import annotations

import errno
import os
import re

from ..errors import (AlreadyExistsError, FailedPreconditionError, InvalidArgumentError,
                      NotFoundError, OpError, PermissionDeniedError, ResourceExhaustedError,
                      UnimplementedError, UnknownError)

__all__ = ["local_path", "op_error", "open_local"]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")

_BY_ERRNO = {
    errno.ENOENT: NotFoundError, errno.EEXIST: AlreadyExistsError,
    errno.EACCES: PermissionDeniedError, errno.EPERM: PermissionDeniedError,
    errno.EROFS: PermissionDeniedError, errno.EISDIR: FailedPreconditionError,
    errno.ENOTDIR: FailedPreconditionError, errno.ENOTEMPTY: FailedPreconditionError,
    errno.EBUSY: FailedPreconditionError, errno.ENOSPC: ResourceExhaustedError,
    errno.EDQUOT: ResourceExhaustedError,
    errno.EMFILE: ResourceExhaustedError, errno.EFBIG: ResourceExhaustedError,
    errno.EINVAL: InvalidArgumentError, errno.ENAMETOOLONG: InvalidArgumentError,
}


def local_path(path) -> str:
    """``path`` as a local path string.  Raises ``UnimplementedError`` for a URL scheme
    other than file://."""
    path = os.fsdecode(os.fspath(path))
    match = _SCHEME.match(path)
    if match is None:
        return path
    if match.group(1).lower() == "file":
        return path[len(match.group(0)):] or "/"
    raise UnimplementedError(
        f"File system scheme '{match.group(1)}' not implemented (file: '{path}'): "
        f"devsession reads and writes local files only; copy the data to a local path "
        f"first.")


def op_error(error: OSError, path, hint: str = "") -> OpError:
    """The ``ds.errors`` class for ``error`` (TF's errno mapping), its message naming
    ``path`` as TF's ("path; No such file or directory"), then ``hint``."""
    cls = _BY_ERRNO.get(error.errno, UnknownError)
    reason = error.strerror or str(error)
    return cls(f"{os.fsdecode(path)}; {reason}" + (f" ({hint})" if hint else ""))


def open_local(path, mode: str):
    """``open`` whose failures are ``ds.errors`` classes (``op_error``)."""
    path = local_path(path)
    try:
        return open(path, mode)
    except OSError as e:
        raise op_error(e, path) from None
