"""TFRecord files, framed as TensorFlow frames them: ``TFRecordWriter`` and
``tf_record_iterator`` (TF1's ``tf.python_io`` / ``tf.io``), and the reading loop the
``TFRecordDataset`` kernel shares (``read_records``).

Each record is

    uint64  length            (little-endian)
    uint32  masked_crc32c(length bytes)
    bytes   data[length]
    uint32  masked_crc32c(data)

where ``masked_crc32c(b) = rotate_right(crc32c(b), 15) + 0xa282ead8`` (mod 2**32), the
mask TF and LevelDB put on checksums stored beside the data they cover.  A file may be
compressed as a whole (``TFRecordOptions(compression_type="GZIP" | "ZLIB")``): the frames
are then those of the decompressed stream.

    with ds.io.TFRecordWriter("/tmp/train.tfrecord") as writer:
        writer.write(example.SerializeToString())
    for record in ds.io.tf_record_iterator("/tmp/train.tfrecord"):
        ...

A missing file is ``NotFoundError``; a record cut short, a checksum that does not match
or a compressed stream that does not decompress is ``DataLossError`` naming the file
and the record's offset (in the decompressed stream, for a compressed file).
"""

from __future__ import annotations

import gzip
import struct
import zlib

from ..errors import DataLossError
from .local_files import open_local

__all__ = ["TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType",
           "tf_record_iterator", "read_records", "masked_crc32c", "compression_name",
           "open_file", "decompressing", "read_up_to"]

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_HEADER = _LENGTH.size + _CRC.size
_CHUNK = 1 << 16


def masked_crc32c(data: bytes) -> int:
    """TF's (and LevelDB's) masked CRC-32C of ``data``."""
    import google_crc32c      # loaded when a record is first read or written

    crc = google_crc32c.value(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


class TFRecordCompressionType:
    """TF1's ``tf.python_io.TFRecordCompressionType``."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_COMPRESSIONS = {None: "", "": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB",
                 TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
                 TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """TF1's ``tf.io.TFRecordOptions``: the compression of a TFRecord file ("", "GZIP"
    or "ZLIB", or a ``TFRecordCompressionType``) and, when compressing, the zlib level
    (``compression_level``, default zlib's).  TF's buffer and zlib tuning arguments are
    accepted and do not change what is written or read."""

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.compression_type = compression_name(compression_type)
        self.compression_level = -1 if compression_level is None else int(compression_level)

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        return options.compression_type if isinstance(options, TFRecordOptions) \
            else compression_name(options)


def compression_name(value) -> str:
    """"", "GZIP" or "ZLIB" for a compression given as TF accepts it; ``ValueError``
    otherwise."""
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    if isinstance(value, bytes):
        value = value.decode()
    key = value.upper() if isinstance(value, str) else value
    try:
        return _COMPRESSIONS[key]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown TFRecord compression type {value!r}: expected '', "
                         f"'GZIP' or 'ZLIB'.") from None


class TFRecordWriter:
    """Writes records to a TFRecord file (TF1's ``tf.python_io.TFRecordWriter``):
    ``write(record)``, ``flush()``, ``close()``, or use it as a context manager.
    ``options``: a ``TFRecordOptions`` or a compression type.  A path whose directory
    does not exist is ``NotFoundError``."""

    def __init__(self, path, options=None):
        self._path = _path_string(path)
        compression = compression_name(options)
        level = options.compression_level if isinstance(options, TFRecordOptions) else -1
        raw = open_file(self._path, "wb")
        if compression == "GZIP":
            self._file = gzip.GzipFile(fileobj=raw, mode="wb",
                                       compresslevel=9 if level < 0 else level)
            self._raw = raw
        elif compression == "ZLIB":
            self._file, self._raw = _ZlibWriter(raw, level), raw
        else:
            self._file, self._raw = raw, None

    def write(self, record) -> None:
        """Appends one record (bytes, or a str written as UTF-8)."""
        if self._file is None:
            raise ValueError(f"TFRecordWriter({self._path}) is closed.")
        data = record.encode() if isinstance(record, str) else bytes(record)
        length = _LENGTH.pack(len(data))
        self._file.write(length + _CRC.pack(masked_crc32c(length)) + data
                         + _CRC.pack(masked_crc32c(data)))

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is None:
            return
        self._file.close()
        if self._raw is not None:
            self._raw.close()
        self._file = None

    def __enter__(self) -> "TFRecordWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def tf_record_iterator(path, options=None):
    """The records of the TFRecord file ``path``, as bytes, one at a time (TF1's
    ``tf.python_io.tf_record_iterator``).  Raises ``NotFoundError`` for a missing file
    and ``DataLossError`` for a corrupt or truncated one (see the module docstring)."""
    return read_records(_path_string(path), compression_name(options))


def read_records(path: str, compression: str = ""):
    """A generator of the records of ``path`` (``compression`` "", "GZIP" or "ZLIB")."""
    with open_file(path, "rb") as raw:
        stream = decompressing(raw, compression)
        offset = 0
        while True:
            header = read_up_to(stream, _HEADER, path, offset)
            if not header:
                return
            if len(header) < _HEADER:
                raise _loss(path, offset, "truncated record (its header is cut short)")
            length = header[:_LENGTH.size]
            if masked_crc32c(length) != _CRC.unpack_from(header, _LENGTH.size)[0]:
                raise _loss(path, offset, "corrupted record (the length's checksum does "
                                          "not match)")
            (size,) = _LENGTH.unpack(length)
            body = read_up_to(stream, size + _CRC.size, path, offset)
            if len(body) < size + _CRC.size:
                raise _loss(path, offset, f"truncated record (its {size} bytes are cut "
                                          f"short)")
            data = body[:size]
            if masked_crc32c(data) != _CRC.unpack_from(body, size)[0]:
                raise _loss(path, offset, "corrupted record (the data's checksum does not "
                                          "match)")
            yield data
            offset += _HEADER + size + _CRC.size


def _loss(path: str, offset: int, what: str) -> DataLossError:
    return DataLossError(f"{path}: {what} at offset {offset}.")


def read_up_to(stream, size: int, path: str, offset: int) -> bytes:
    """Up to ``size`` bytes (fewer only at the end of the stream); a corrupt compressed
    stream is ``DataLossError`` naming ``path`` and ``offset``.  The other file readers
    (``plain_records.py``) share it, as they share ``open_file`` and ``decompressing``."""
    parts, wanted = [], size
    try:
        while wanted:
            part = stream.read(min(wanted, 1 << 30))
            if not part:
                break
            parts.append(part)
            wanted -= len(part)
    except (OSError, EOFError, zlib.error) as e:     # gzip's BadGzipFile is an OSError
        raise _loss(path, offset, f"the compressed stream is corrupt or truncated "
                                  f"({type(e).__name__}: {e})") from None
    return b"".join(parts)


def decompressing(raw, compression: str):
    """``raw`` read through its compression ("", "GZIP" or "ZLIB")."""
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == "ZLIB":
        return _ZlibReader(raw)
    return raw


def open_file(path: str, mode: str):
    """``open`` whose failures are ``ds.errors`` classes, as TF's file system's
    (``local_files.py``: a missing file is ``NotFoundError``, a URL scheme other than
    file:// ``UnimplementedError``)."""
    return open_local(path, mode)


def _path_string(path) -> str:
    return path.decode() if isinstance(path, bytes) else str(path)


class _ZlibReader:
    """``read(n)`` over a zlib stream (TF's "ZLIB": zlib's header and adler32 trailer)."""

    def __init__(self, raw):
        self._raw = raw
        self._inflate = zlib.decompressobj()
        self._buffer, self._at = b"", 0
        self._seen_input = False

    def read(self, size: int) -> bytes:
        while len(self._buffer) - self._at < size and not self._inflate.eof:
            chunk = self._raw.read(_CHUNK)
            if not chunk:
                if self._seen_input:          # an empty file holds no records
                    raise EOFError("the zlib stream ends early")
                break
            self._seen_input = True
            self._buffer = self._buffer[self._at:] + self._inflate.decompress(chunk)
            self._at = 0
        out = self._buffer[self._at:self._at + size]
        self._at += len(out)
        return out


class _ZlibWriter:
    def __init__(self, raw, level: int):
        self._raw = raw
        self._deflate = zlib.compressobj(level)

    def write(self, data: bytes) -> None:
        self._raw.write(self._deflate.compress(data))

    def flush(self) -> None:
        self._raw.write(self._deflate.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self) -> None:
        self._raw.write(self._deflate.flush())
        self._raw.flush()
