"""TF1's readers: ``ds.TFRecordReader``, ``ds.FixedLengthRecordReader``,
``ds.TextLineReader``, ``ds.WholeFileReader``, ``ds.IdentityReader`` (the graph side of
``ops/readers.py``).

A reader reads the files whose names it dequeues from a queue, one after another:
``reader.read(filename_queue)`` is a (key, value) pair of string scalars, the key
``"<file>:<record>"`` as TF1's.  The classic input pipeline:

    files = ds.train.string_input_producer(["data_batch_1.bin"])
    key, value = ds.FixedLengthRecordReader(record_bytes=3073).read(files)
    record = ds.decode_raw(value, ds.uint8)
"""

from __future__ import annotations

from . import dtypes
from .graph import Tensor, convert_to_tensor, get_default_graph
from .ops.readers import READER_TYPES
from .io.tfrecord import TFRecordOptions

__all__ = ["ReaderBase", "TFRecordReader", "FixedLengthRecordReader", "TextLineReader",
           "WholeFileReader", "IdentityReader"]


class ReaderBase:
    """What every reader does, given its handle (``reader_ref``)."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    reader_ref = property(lambda self: self._reader_ref)
    supports_serialize = property(lambda self: self._supports_serialize)

    def read(self, queue, name=None):
        """The next (key, value) record; run, it dequeues a new file name from ``queue``
        (a queue or its handle) whenever the current file is done, waiting as a dequeue
        waits, and ends with the queue's ``OutOfRangeError``."""
        op = self._op("ReaderReadV2", [_queue_ref(queue)], name or "ReaderReadV2")
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue, num_records, name=None):
        """Up to ``num_records`` records of one file: (keys, values) vectors."""
        count = convert_to_tensor(num_records, dtype=dtypes.int64,
                                  graph=self._reader_ref.graph)
        op = self._op("ReaderReadUpToV2", [_queue_ref(queue), count],
                      name or "ReaderReadUpToV2")
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name=None) -> Tensor:
        return self._op("ReaderNumRecordsProducedV2", [],
                        name or "ReaderNumRecordsProducedV2").outputs[0]

    def num_work_units_completed(self, name=None) -> Tensor:
        """How many files the reader finished."""
        return self._op("ReaderNumWorkUnitsCompletedV2", [],
                        name or "ReaderNumWorkUnitsCompletedV2").outputs[0]

    def reset(self, name=None):
        """The op putting the reader back to its start (no file, counts zero)."""
        return self._op("ReaderResetV2", [], name or "ReaderResetV2")

    def serialize_state(self, name=None):
        from .unsupported import missing

        raise missing("ReaderBase", "serialize_state")

    def restore_state(self, state, name=None):
        from .unsupported import missing

        raise missing("ReaderBase", "restore_state")

    def _op(self, op_type, inputs, name):
        """An op on this reader, placed with it (as TF places every user of a resource)."""
        graph = self._reader_ref.graph
        with graph.colocate_with(self._reader_ref):
            return graph.create_op(op_type, [self._reader_ref, *inputs], name=name)


def _queue_ref(queue):
    return queue if isinstance(queue, Tensor) else queue.queue_ref


def _make(op_type, name, attrs):
    assert op_type in READER_TYPES, op_type
    return get_default_graph().create_op(op_type, [], attrs, name=name or op_type).outputs[0]


class TFRecordReader(ReaderBase):
    """The records of TFRecord files (``options``: a ``TFRecordOptions`` for GZIP or
    ZLIB files)."""

    def __init__(self, name=None, options=None):
        compression = TFRecordOptions.get_compression_type_string(options) or ""
        super().__init__(_make("TFRecordReaderV2", name, {"compression_type": compression}))


class FixedLengthRecordReader(ReaderBase):
    """Records of ``record_bytes`` bytes after ``header_bytes`` and before
    ``footer_bytes``; with ``hop_bytes``, one starting every ``hop_bytes`` (overlapping
    when fewer than ``record_bytes``); ``encoding`` "", "GZIP" or "ZLIB"."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        attrs = {"record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
                 "footer_bytes": int(footer_bytes or 0), "hop_bytes": int(hop_bytes or 0),
                 "encoding": encoding or ""}
        super().__init__(_make("FixedLengthRecordReaderV2", name, attrs))


class TextLineReader(ReaderBase):
    """The lines of text files (without their endings), after ``skip_header_lines``."""

    def __init__(self, skip_header_lines=None, name=None):
        attrs = {"skip_header_lines": int(skip_header_lines or 0)}
        super().__init__(_make("TextLineReaderV2", name, attrs))


class WholeFileReader(ReaderBase):
    """Each file whole: the key is its name, the value its contents."""

    def __init__(self, name=None):
        super().__init__(_make("WholeFileReaderV2", name, {}))


class IdentityReader(ReaderBase):
    """Each work item dequeued is one record, its own key and value (TF's
    ``IdentityReaderV2``): ``read`` gives ``(item, item)``, ``read_up_to`` one item a
    call."""

    def __init__(self, name=None):
        super().__init__(_make("IdentityReaderV2", name, {}))
