"""Kernels of TF1's reader ops (``devsession/ops/readers.py``), for the reference device
and the CPU (``HOST``).

A ``Reader`` (a session resource, container ``_readers``) is TF's ``ReaderBase``: the
file it is in (its *work*), an iterator of that file's (key, value) records, and the
counts of records produced and files finished.  ``read`` takes the next record, first
dequeuing file names from the queue (blocking as a dequeue blocks) until a file has one;
``read_up_to`` takes up to n records of one file.  Records and keys as TF's readers make
them, the formats read by ``devsession/io`` as ``ds.data`` reads them:

==========================  ===================================================  ============
reader                      value                                                key suffix
==========================  ===================================================  ============
``TFRecordReaderV2``        each record (``compression_type`` GZIP, ZLIB)        byte offset
``FixedLengthRecordReaderV2``  ``record_bytes`` between header and footer, a new  record number
                            one every ``hop_bytes`` when given (``encoding``)
``TextLineReaderV2``        each line, after ``skip_header_lines``               line (from 1)
``WholeFileReaderV2``       the whole file                                       (the name)
``IdentityReaderV2``        the work item itself (not a file)                    (the item)
==========================  ===================================================  ============

A key is ``<file name>:<suffix>``.  A queue that is closed and drained ends a read with
the queue's ``OutOfRangeError``; a file that cannot be read, with its error.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from devsession.errors import InvalidArgumentError, NotFoundError
from devsession.io.plain_records import read_fixed_length, read_lines
from devsession.io.tfrecord import open_file, read_records

from ..registry import HOST, register_kernel
from .queues import find_queue, step_check

__all__ = ["Reader"]

CONTAINER = "_readers"
_POLL_S = 0.05
_TFRECORD_FRAME = 16          # 8 bytes of length, 4 of its CRC, 4 of the data's CRC


class Reader:
    """One reader's position: the current file and its remaining records."""

    def __init__(self, records_of, one_per_work: bool = False):
        self._records_of = records_of       # file name -> iterator of (suffix, value)
        self._one_per_work = one_per_work   # its work is done with its one record
        self._lock = threading.Lock()
        self._work: str | None = None
        self._records = None
        self.produced = 0
        self.completed = 0

    def read(self, queue, count: int | None, check):
        """The next record (``count`` None) or up to ``count`` records of one file, as
        (keys, values) lists."""
        with self._locked(check):
            keys, values = [], []
            wanted = 1 if count is None else count
            while not keys:
                if self._records is None:
                    (work,) = queue.dequeue(None, check)
                    self._work = _text(work)
                    self._records = iter(self._records_of(self._work))
                for suffix, value in self._records:
                    keys.append(self._work if suffix is None else f"{self._work}:{suffix}")
                    values.append(value)
                    if len(keys) == wanted or self._one_per_work:
                        break
                else:
                    self._finish_work()
                if self._one_per_work and self._records is not None:
                    self._finish_work()     # as TF's, at once: the next read dequeues
            self.produced += len(keys)
            return keys, values

    def _finish_work(self) -> None:
        self._records, self._work = None, None
        self.completed += 1

    def reset(self, check) -> None:
        with self._locked(check):
            self._records = self._work = None
            self.produced = self.completed = 0

    @contextlib.contextmanager
    def _locked(self, check):
        """The reader's lock (one read at a time, as TF's), waited for under the step's
        deadline."""
        while not self._lock.acquire(timeout=_POLL_S):
            check()
        try:
            yield
        finally:
            self._lock.release()


def _text(value) -> str:
    value = np.asarray(value).item()
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


# --- the formats ---------------------------------------------------------------------------

def _tfrecords(attrs):
    compression = attrs.get("compression_type") or ""

    def records_of(path):
        offset = 0
        for record in read_records(path, compression):
            yield offset, record
            offset += len(record) + _TFRECORD_FRAME
    return records_of


def _fixed_length(attrs):
    record_bytes = int(attrs["record_bytes"])
    header, footer = int(attrs.get("header_bytes", 0)), int(attrs.get("footer_bytes", 0))
    hop, encoding = int(attrs.get("hop_bytes", 0)), attrs.get("encoding") or ""
    if record_bytes <= 0:
        raise InvalidArgumentError(f"record_bytes must be > 0, got {record_bytes}.")

    def records_of(path):
        if hop:
            yield from enumerate(_hopped(path, record_bytes, header, footer, hop, encoding))
        else:
            yield from enumerate(read_fixed_length(path, record_bytes, header, footer,
                                                   encoding))
    return records_of


def _hopped(path, record_bytes, header, footer, hop, encoding):
    """TF's records with ``hop_bytes``: ``record_bytes`` starting every ``hop`` bytes of
    the body, while a whole record fits."""
    body = b"".join(read_fixed_length(path, 1, header, footer, encoding))
    start = 0
    while start + record_bytes <= len(body):
        yield body[start:start + record_bytes]
        start += hop


def _text_lines(attrs):
    skip = int(attrs.get("skip_header_lines", 0))

    def records_of(path):
        for number, line in enumerate(read_lines(path), start=1):
            if number > skip:
                yield number, line
    return records_of


def _identity(attrs):
    def records_of(work):
        yield None, work.encode("utf-8", "surrogateescape")
    return records_of


def _whole_files(attrs):
    def records_of(path):
        with open_file(path, "rb") as f:
            yield None, f.read()
    return records_of


_FORMATS = {"TFRecordReaderV2": _tfrecords, "FixedLengthRecordReaderV2": _fixed_length,
            "TextLineReaderV2": _text_lines, "WholeFileReaderV2": _whole_files,
            "IdentityReaderV2": _identity}
# readers whose one record ends their work item (a file's count goes up with it)
_ONE_RECORD_A_WORK = {"WholeFileReaderV2", "IdentityReaderV2"}


# --- the kernels ---------------------------------------------------------------------------

def _resources(node):
    return node.context.resources


@register_kernel(tuple(_FORMATS), HOST)
def build_make_reader(node):
    attrs = node.attrs
    key = f"{attrs.get('container') or ''}/{attrs.get('shared_name') or node.name}"
    handle = np.array(key, dtype=object)
    records_of = _FORMATS[node.op](attrs)
    one_per_work = node.op in _ONE_RECORD_A_WORK

    def make_reader():
        _resources(node).get_or_put(CONTAINER, key, lambda: Reader(records_of, one_per_work))
        return handle
    return make_reader


def _find_reader(node, handle) -> Reader:
    key = str(np.asarray(handle).item())
    reader = _resources(node).get(CONTAINER, key)
    if reader is None:
        raise NotFoundError(f"Resource {CONTAINER}{key} does not exist.", node.name)
    return reader


@register_kernel("ReaderReadV2", HOST)
def build_read(node):
    def read(reader_handle, queue_handle):
        queue = find_queue(_resources(node), queue_handle, node.name)
        keys, values = _find_reader(node, reader_handle).read(queue, None,
                                                              step_check(node.name))
        key, value = _strings(keys), _strings(values)
        return key.reshape(()), value.reshape(())
    return read


@register_kernel("ReaderReadUpToV2", HOST)
def build_read_up_to(node):
    def read_up_to(reader_handle, queue_handle, count):
        count = int(np.asarray(count))
        if count <= 0:
            raise InvalidArgumentError(f"num_records must be positive, got {count}.",
                                       node.name)
        queue = find_queue(_resources(node), queue_handle, node.name)
        keys, values = _find_reader(node, reader_handle).read(queue, count,
                                                              step_check(node.name))
        return _strings(keys), _strings(values)
    return read_up_to


def _strings(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = [s.encode("utf-8", "surrogateescape") if isinstance(s, str) else s for s in items]
    return out


@register_kernel("ReaderNumRecordsProducedV2", HOST)
def build_num_records_produced(node):
    return lambda handle: np.array(_find_reader(node, handle).produced, np.int64)


@register_kernel("ReaderNumWorkUnitsCompletedV2", HOST)
def build_num_work_units_completed(node):
    return lambda handle: np.array(_find_reader(node, handle).completed, np.int64)


@register_kernel("ReaderResetV2", HOST)
def build_reset(node):
    def reset(handle):
        _find_reader(node, handle).reset(step_check(node.name))
    return reset
