"""The records of files without framing, as TensorFlow reads them for
``TextLineDataset`` (``read_lines``) and ``FixedLengthRecordDataset``
(``read_fixed_length``); the dataset kernels are ``kernels/reference/dataset_readers.py``.

Lines are TF's ``InputBuffer::ReadLine``: the file is split at each ``\\n``, every
``\\r`` is dropped (so ``\\r\\n`` endings, and a ``\\r`` inside a line, vanish), empty
lines are kept, and the text after the last ``\\n`` is a line only if something is left
of it.  Fixed-length records: ``header_bytes`` skipped, then ``record_bytes`` at a time
until ``footer_bytes`` remain.  A body that is not a whole number of records is an error
of the file (``InvalidArgumentError`` before its first record, as TF's; ``DataLossError``
when the file is compressed, found at its end, after its whole records).

GZIP and ZLIB files are read as ``tfrecord.py`` reads them (the decompressed stream is
what is split); a missing file is ``NotFoundError``, a damaged compressed stream ``DataLossError``.
"""

from __future__ import annotations

import os

from ..errors import DataLossError, InvalidArgumentError
from .tfrecord import decompressing, open_file, read_up_to

__all__ = ["read_lines", "read_fixed_length"]

_CHUNK = 1 << 16


def read_lines(path: str, compression: str = ""):
    """A generator of the lines of ``path`` as bytes, without their endings."""
    with open_file(path, "rb") as raw:
        stream = decompressing(raw, compression)
        pending, offset = [], 0
        while True:
            chunk = read_up_to(stream, _CHUNK, path, offset)
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


def read_fixed_length(path: str, record_bytes: int, header_bytes: int = 0,
                      footer_bytes: int = 0, compression: str = ""):
    """A generator of the ``record_bytes``-long records of ``path`` between its header
    and footer (see the module docstring for the errors)."""
    with open_file(path, "rb") as raw:
        if not compression:
            size = os.fstat(raw.fileno()).st_size
            body = size - header_bytes - footer_bytes
            if body < 0 or body % record_bytes:
                raise InvalidArgumentError(_layout(path, size, body, record_bytes,
                                                   header_bytes, footer_bytes))
            raw.seek(header_bytes)
            for index in range(body // record_bytes):
                record = read_up_to(raw, record_bytes, path, header_bytes + index * record_bytes)
                if len(record) < record_bytes:     # the file shrank while it was read
                    raise DataLossError(f"{path}: truncated record at offset "
                                        f"{header_bytes + index * record_bytes}.")
                yield record
            return
        yield from _decompressed_records(path, decompressing(raw, compression),
                                         record_bytes, header_bytes, footer_bytes)


def _decompressed_records(path, stream, record_bytes, header_bytes, footer_bytes):
    """The records of a stream whose length is known only at its end: a record is
    given out once ``footer_bytes`` more are known to follow it."""
    header = read_up_to(stream, header_bytes, path, 0)
    offset = len(header)
    buffer, start = bytearray(), 0
    while True:
        chunk = read_up_to(stream, _CHUNK, path, offset + len(buffer))
        if not chunk:
            break
        buffer += chunk
        while len(buffer) - start >= record_bytes + footer_bytes:
            yield bytes(buffer[start:start + record_bytes])
            start += record_bytes
        del buffer[:start]
        offset, start = offset + start, 0
    size = offset + len(buffer)
    body = size - header_bytes - footer_bytes      # negative: even the header is short
    if body < 0 or body % record_bytes:
        raise DataLossError(_layout(path, size, body, record_bytes, header_bytes,
                                    footer_bytes))


def _layout(path, size, body, record_bytes, header_bytes, footer_bytes) -> str:
    """TF's message for a file whose body is not a whole number of records (and ours
    for one shorter than its header and footer), with what to check."""
    if body < 0:
        what = (f'input file "{path}" is {size} bytes, shorter than its header '
                f'({header_bytes} bytes) and footer ({footer_bytes} bytes) together.')
    else:
        what = (f'Excluding the header ({header_bytes} bytes) and footer ({footer_bytes} '
                f'bytes), input file "{path}" has body length {body} bytes, which is not '
                f'an exact multiple of the record length ({record_bytes} bytes).')
    return (f"{what} Check record_bytes, header_bytes and footer_bytes against the "
            f"file's layout (or whether it was cut short).")
