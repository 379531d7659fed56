"""TF1's ``tf.data.experimental.TFRecordWriter``: a dataset of scalar strings written as
the records of a TFRecord file by the op ``write`` returns (``DatasetWriteTFRecord``,
``ops/dataset.py``), which runs the whole pipeline each time it runs:

    records = ds.data.Dataset.from_tensor_slices(serialized_examples)
    write = ds.data.experimental.TFRecordWriter("train.tfrecord").write(records)
    sess.run(write)
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Operation, convert_to_tensor
from ..ops.dataset import WRITE_TFRECORD
from .dataset import Dataset

__all__ = ["TFRecordWriter"]


class TFRecordWriter:
    """Writes a dataset to the TFRecord file ``filename`` (a string or a string
    tensor), compressed as ``compression_type`` ("", "GZIP", "ZLIB"; None: none)."""

    def __init__(self, filename, compression_type=None):
        self._filename = convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        self._compression_type = convert_to_tensor(
            "" if compression_type is None else compression_type, dtype=dtypes.string,
            name="compression_type")

    def write(self, dataset) -> Operation:
        """The op writing ``dataset``'s elements (scalar strings) to the file, replacing
        it; TF's ``TypeError`` for anything else."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"Invalid `dataset.` Expected a `tf.data.Dataset` object but "
                            f"got {type(dataset)}.")
        spec = dataset._structure
        if not hasattr(spec, "dtype") or spec.dtype != dtypes.string or \
                not spec.shape.is_compatible_with([]):
            raise TypeError(f"Invalid `dataset`. Expected a`dataset` that produces scalar "
                            f"`tf.string` elements, but got a dataset which produces "
                            f"elements with shapes {dataset.output_shapes} and types "
                            f"{dataset.output_types}.")
        return dataset._graph.create_op(
            WRITE_TFRECORD, [self._filename, self._compression_type, *dataset._inputs],
            dataset.op_attrs(), name="DatasetToTFRecord",
            control_inputs=dataset._control)
