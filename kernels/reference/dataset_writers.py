"""The kernel of ``DatasetWriteTFRecord`` (``devsession/ops/dataset.py``): its pipeline
of scalar strings run to the end, each element a record of the TFRecord file
(``devsession/io/tfrecord.py`` writes the frames; the file is replaced), what
``data.experimental.TFRecordWriter(filename).write(dataset)`` runs.  A compression other
than "", "GZIP" or "ZLIB" is ``InvalidArgumentError``; a folder that does not exist
``NotFoundError``; an error inside the pipeline is raised for the run, leaving what was
written so far."""

from __future__ import annotations

import numpy as np

from devsession.errors import InvalidArgumentError, OutOfRangeError
from devsession.io.tfrecord import TFRecordWriter, compression_name

from ..registry import HOST, register_kernel
from .dataset import _starter

__all__ = ["build_write_tfrecord"]


@register_kernel("DatasetWriteTFRecord", HOST)
def build_write_tfrecord(node):
    start = _starter(node)

    def write(filename, compression_type, *inputs):
        path = np.asarray(filename).item().decode()
        try:
            compression = compression_name(np.asarray(compression_type).item())
        except ValueError as e:
            raise InvalidArgumentError(f"'{node.name}': {e}", node.name) from None
        iterator = start(inputs)
        with TFRecordWriter(path, compression) as writer:
            while True:
                try:
                    (record,) = iterator.next(node)
                except OutOfRangeError:
                    return
                writer.write(np.asarray(record).item())
    return write
