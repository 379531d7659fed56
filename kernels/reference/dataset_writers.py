"""The kernels that run a whole pipeline each time they run (``devsession/ops/dataset.py``):

* ``DatasetWriteTFRecord``: its pipeline of scalar strings run to the end, each element
  a record of the TFRecord file (``devsession/io/tfrecord.py`` writes the frames; the
  file is replaced), what ``data.experimental.TFRecordWriter(filename).write(dataset)``
  runs.  A compression other than "", "GZIP" or "ZLIB" is ``InvalidArgumentError``; a
  folder that does not exist ``NotFoundError``; an error inside the pipeline is raised
  for the run, leaving what was written so far.
* ``DatasetReduce``: ``dataset.reduce(...)``, a pipeline ending in a scan, run to the
  end; its last element is the final state, and with no element the scan's initial
  state (its inputs) is.
"""

from __future__ import annotations

import json

import numpy as np

from devsession.errors import InvalidArgumentError, OutOfRangeError
from devsession.io.tfrecord import TFRecordWriter, compression_name

from ..registry import HOST, register_kernel
from .dataset import _element_check, _malformed_pipeline, _starter

__all__ = ["build_write_tfrecord", "build_reduce"]


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


@register_kernel("DatasetReduce", HOST)
def build_reduce(node):
    start, check = _starter(node), _element_check(node)
    with _malformed_pipeline(node):
        scan = json.loads(node.attrs["pipeline"])[-1]
        first = scan["inputs"][0]
        initial = slice(first, first + scan["num_state"])

    def reduce(*inputs):
        iterator, state = start(inputs), None
        while True:
            try:
                state = iterator.next(node)
            except OutOfRangeError:
                break
        state = check(list(inputs[initial]) if state is None else state)
        return state[0] if len(state) == 1 else tuple(state)
    return reduce
