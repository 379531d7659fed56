"""TF1's reader ops (``TFRecordReaderV2``, ``ReaderReadV2``...), the graph side of
``ds.TFRecordReader``, ``ds.FixedLengthRecordReader``, ``ds.TextLineReader``,
``ds.WholeFileReader`` and ``ds.IdentityReader`` (``devsession/readers.py``).

A reader op makes its reader in the session's resources on its first run and outputs its
handle (a string scalar, as a queue's: ``ops/queues.py``).  ``ReaderReadV2(reader,
queue)`` gives the next (key, value) record, dequeuing a file name from the queue each
time the reader needs a new file; so it blocks as a dequeue does.  All run on the host
(``kernels/reference/readers.py``); none is differentiable.
"""

from __future__ import annotations

from ..dtypes import int64, string
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["READER_TYPES"]

_SHARED = {"container": "", "shared_name": ""}
READER_TYPES = {
    "TFRecordReaderV2": {**_SHARED, "compression_type": ""},
    "FixedLengthRecordReaderV2": {**_SHARED, "header_bytes": 0, "footer_bytes": 0,
                                  "hop_bytes": 0, "encoding": ""},
    "TextLineReaderV2": {**_SHARED, "skip_header_lines": 0},
    "WholeFileReaderV2": dict(_SHARED),
    "IdentityReaderV2": dict(_SHARED),
}


def _make_reader(inputs, attrs, node):
    return string, TensorShape([])


def _handles(inputs, node, count):
    for spec in inputs[:count]:
        if spec.dtype != string or spec.shape.rank not in (None, 0):
            raise InferError(f"Op '{node}': '{spec.name}' is not a reader's or a queue's "
                             f"handle (a string scalar).")


def _read(inputs, attrs, node):
    _handles(inputs, node, 2)
    return [(string, TensorShape([])), (string, TensorShape([]))]


def _read_up_to(inputs, attrs, node):
    _handles(inputs, node, 2)
    return [(string, TensorShape([None])), (string, TensorShape([None]))]


def _count(inputs, attrs, node):
    _handles(inputs, node, 1)
    return int64, TensorShape([])


def _reset(inputs, attrs, node):
    _handles(inputs, node, 1)
    return None


for _type, _defaults in READER_TYPES.items():
    register_op(OpDef(_type, _make_reader, 0, stateful=True, attr_defaults=_defaults))
register_op(OpDef("ReaderReadV2", _read, 2, stateful=True, blocks=True))
register_op(OpDef("ReaderReadUpToV2", _read_up_to, 3, stateful=True, blocks=True,
                  host_inputs=(2,)))
register_op(OpDef("ReaderNumRecordsProducedV2", _count, 1, stateful=True))
register_op(OpDef("ReaderNumWorkUnitsCompletedV2", _count, 1, stateful=True))
register_op(OpDef("ReaderResetV2", _reset, 1, stateful=True, has_output=False))
not_differentiable("ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
                   "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2")
