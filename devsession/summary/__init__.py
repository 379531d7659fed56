"""TF1's ``tf.summary``: summary ops (``scalar``, ``histogram``, ``image``, ``merge``,
``merge_all``) and ``FileWriter`` for TensorBoard event files.

The ops (``ops.py``) make serialized ``Summary`` protobufs and need nothing extra; the
writer (``writer.py``) needs the ``tensorboard`` package: ``pip install
'devsession[tensorboard]'``.  Anything else under ``ds.summary`` raises an error naming
the TF1 symbol as not supported yet.
"""

from .ops import SUMMARIES, histogram, image, merge, merge_all, scalar
from .writer import FileWriter

__all__ = ["scalar", "histogram", "image", "merge", "merge_all", "FileWriter", "SUMMARIES"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("summary", name)
