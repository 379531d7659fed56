"""TF1's ``tf.io`` (and ``tf.python_io``, the older home of its TFRecord names): TFRecord
files (``tfrecord.py``) and the parsing of serialized Examples (``parse_single_example``,
``parse_example``, ``FixedLenFeature``, ``VarLenFeature``, ``FixedLenSequenceFeature``
and ``decode_raw``: ``ops/parsing.py``) and SequenceExamples
(``parse_single_sequence_example``, ``parse_sequence_example``: ``ops/sequence_parsing.py``),
tensors as TensorProto bytes (``serialize_tensor``, ``parse_tensor``: ``ops/serialization.py``;
SparseTensors, ``serialize_sparse``, ``serialize_many_sparse``, ``deserialize_many_sparse``:
``ops/sparse_serialization.py``), CSV records (``decode_csv``: ``ops/decode_csv.py``), web-safe base64
(``encode_base64``, ``decode_base64``: ``ops/strings.py``), whole files as ops
(``read_file``, ``write_file``, ``matching_files``: ``ops/file_io.py``), image files
(``decode_jpeg``, ``decode_png``, ``encode_png``...: ``ops/image_files.py``), TF2's
``tf.io.gfile`` (``gfile.py``, also ``ds.gfile`` with TF1's names), and TF1's
``tf.io.write_graph`` (``ds.train.write_graph``).

    with ds.io.TFRecordWriter("/tmp/train.tfrecord") as writer:
        writer.write(b"a record")
    records = list(ds.io.tf_record_iterator("/tmp/train.tfrecord"))

Anything else under ``ds.io`` raises an error naming the TF1 symbol as unsupported.
"""

from ..ops.decode_csv import decode_csv
from ..ops.file_io import matching_files, read_file, write_file
from ..image_dtype import decode_image
from ..ops.compression import decode_compressed
from ..ops.image_files import (decode_and_crop_jpeg, decode_bmp, decode_gif, decode_jpeg,
                               decode_png, encode_jpeg, encode_png, extract_jpeg_shape,
                               is_jpeg)
from ..ops.parsing import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature,
                           SparseFeature, VarLenFeature, decode_raw, parse_example,
                           parse_single_example)
from ..ops.sequence_parsing import parse_sequence_example, parse_single_sequence_example
from ..ops.serialization import decode_json_example, parse_tensor, serialize_tensor
from ..ops.sparse_serialization import (deserialize_many_sparse, serialize_many_sparse,
                                        serialize_sparse)
from ..ops.strings import decode_base64, encode_base64
from ..train.graph_io import write_graph
from . import gfile
from .tfrecord import (TFRecordCompressionType, TFRecordOptions, TFRecordWriter,
                       tf_record_iterator)

__all__ = ["TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType",
           "tf_record_iterator", "parse_single_example", "parse_example",
           "parse_single_sequence_example", "parse_sequence_example",
           "serialize_tensor", "parse_tensor", "decode_json_example",
           "serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse",
           "FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature", "SparseFeature",
           "RaggedFeature", "decode_raw", "decode_compressed", "gfile", "write_graph",
           "read_file", "write_file",
           "matching_files", "decode_csv",
           "encode_base64", "decode_base64", "decode_jpeg", "decode_and_crop_jpeg",
           "decode_png", "decode_bmp", "decode_gif", "decode_image", "encode_jpeg",
           "encode_png", "extract_jpeg_shape", "is_jpeg"]


# TF1's tf.io spellings of the queues and of tf.train.match_filenames_once
from ..queues import (PaddingFIFOQueue, PriorityQueue, QueueBase,  # noqa: E402
                      RandomShuffleQueue)
from ..train.input import match_filenames_once  # noqa: E402

__all__ += ["PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue",
            "match_filenames_once"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("io", name)
