"""TF1's ``tf.summary``: summary ops (``scalar``, ``histogram``, ``image``, ``audio``, ``text``,
``tensor_summary``, ``merge``, ``merge_all``), the ``Summary`` and ``SummaryMetadata``
protobufs, and ``FileWriter`` for TensorBoard event files.

The ops (``ops.py``) make serialized ``Summary`` protobufs and need nothing extra; the
writer (``writer.py``) needs the ``tensorboard`` package: ``pip install
'devsession[tensorboard]'``.  Anything else under ``ds.summary`` raises an error naming
the TF1 symbol as not supported yet.
"""

from ..proto.summary_pb2 import (Event, SessionLog, Summary, SummaryDescription,
                                 SummaryMetadata, TaggedRunMetadata)
from .ops import (SUMMARIES, audio, histogram, image, merge, merge_all, scalar, tensor_summary,
                  text)
from .writer import FileWriter, FileWriterCache

__all__ = ["scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge",
           "merge_all", "FileWriter", "FileWriterCache", "SUMMARIES", "Summary",
           "SummaryMetadata", "Event", "SessionLog", "TaggedRunMetadata", "SummaryDescription",
           "all_v2_summary_ops"]


def all_v2_summary_ops() -> list:
    """TF2's summary ops of the default graph: none (devsession writes TF1's summaries),
    as TF1's graph without TF2 summaries answers."""
    return []


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("summary", name)
