"""TF1's ``tf.python_io``: the TFRecord names, the same objects as ``ds.io``'s
(``io/tfrecord.py``).  Anything else raises an error naming the TF1 symbol as
unsupported."""

from .io.tfrecord import (TFRecordCompressionType, TFRecordOptions, TFRecordWriter,
                          tf_record_iterator)

__all__ = ["TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType",
           "tf_record_iterator"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("python_io", name)
