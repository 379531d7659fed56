"""The records of files without framing, as TensorFlow reads them for
``TextLineDataset`` (``read_lines``); the dataset kernels are ``kernels/reference/
dataset_readers.py``.

Lines are TF's ``InputBuffer::ReadLine``: the file is split at each ``\\n``, every
``\\r`` is dropped (so ``\\r\\n`` endings, and a ``\\r`` inside a line, vanish), empty
lines are kept, and the text after the last ``\\n`` is a line only if something is left
of it.

GZIP and ZLIB files are read as ``tfrecord.py`` reads them (the decompressed stream is
what is split); a missing file is ``NotFoundError``, a damaged compressed stream ``DataLossError``.
"""

from __future__ import annotations

from .tfrecord import _decompressing, _open, _read

__all__ = ["read_lines"]

_CHUNK = 1 << 16


def read_lines(path: str, compression: str = ""):
    """A generator of the lines of ``path`` as bytes, without their endings."""
    with _open(path, "rb") as raw:
        stream = _decompressing(raw, compression)
        pending, offset = [], 0
        while True:
            chunk = _read(stream, _CHUNK, path, offset)
            if not chunk:
                break
            offset += len(chunk)
            lines = chunk.split(b"\n")
            if len(lines) > 1:
                lines[0] = b"".join(pending) + lines[0]
                pending = []
                for line in lines[:-1]:
                    yield line.replace(b"\r", b"")
            pending.append(lines[-1])
        last = b"".join(pending).replace(b"\r", b"")
        if last:
            yield last
