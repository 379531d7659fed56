"""TF1's ``tf.io`` (and ``tf.python_io``, the older home of its TFRecord names): TFRecord
files (``tfrecord.py``).

    with ds.io.TFRecordWriter("/tmp/train.tfrecord") as writer:
        writer.write(b"a record")
    records = list(ds.io.tf_record_iterator("/tmp/train.tfrecord"))

Anything else under ``ds.io`` raises an error naming the TF1 symbol as unsupported.
"""

from .tfrecord import (TFRecordCompressionType, TFRecordOptions, TFRecordWriter,
                       tf_record_iterator)

__all__ = ["TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType",
           "tf_record_iterator"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("io", name)
