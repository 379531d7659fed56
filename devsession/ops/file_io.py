"""TF's file ops, run on the host when the graph runs: ``ReadFile(filename)`` (a string
scalar: the file's bytes, as an input pipeline reads an image before decoding it),
``WriteFile(filename, contents)`` (its directory made as needed) and
``MatchingFiles(pattern)`` (the sorted paths a glob pattern, or each of a vector of
patterns, matches: an empty vector when none).  A missing file is ``NotFoundError``
naming the path, other I/O failures their ``ds.errors`` class
(``io/local_files.op_error``).  Kernels: ``kernels/reference/file_io.py``; none is
differentiable.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["read_file", "write_file", "matching_files"]


def _strings(inputs, node, ranks=(0,)):
    for spec in inputs:
        if spec.dtype != dtypes.string:
            raise InferError(f"Op '{node}': '{spec.name}' must be a string, got "
                             f"{spec.dtype.name}.")
        if spec.shape.rank is not None and spec.shape.rank not in ranks:
            raise InferError(f"Op '{node}': '{spec.name}' must be a scalar"
                             f"{' or a vector' if 1 in ranks else ''}, got shape {spec.shape}.")


def _infer_read(inputs, attrs, node):
    _strings(inputs, node)
    return dtypes.string, TensorShape([])


def _infer_write(inputs, attrs, node):
    _strings(inputs, node)
    return None


def _infer_matching(inputs, attrs, node):
    _strings(inputs, node, ranks=(0, 1))
    return dtypes.string, TensorShape([None])


register_op(OpDef("ReadFile", _infer_read, 1, stateful=True))
register_op(OpDef("WriteFile", _infer_write, 2, stateful=True, has_output=False))
register_op(OpDef("MatchingFiles", _infer_matching, 1, stateful=True))
not_differentiable("ReadFile", "WriteFile", "MatchingFiles")


def _op(op_type, values, name):
    graph = get_default_graph()
    inputs = [convert_to_tensor(v, dtype=dtypes.string) for v in values]
    return graph.create_op(op_type, inputs, name=name or op_type)


def read_file(filename, name=None):
    """TF1's ``tf.read_file`` / ``tf.io.read_file``: the bytes of ``filename``."""
    return _op("ReadFile", [filename], name).outputs[0]


def write_file(filename, contents, name=None):
    """TF1's ``tf.write_file`` / ``tf.io.write_file``: an op writing ``contents``."""
    return _op("WriteFile", [filename, contents], name)


def matching_files(pattern, name=None):
    """TF1's ``tf.matching_files`` / ``tf.io.matching_files``: the sorted paths that
    ``pattern`` (a glob; or a vector of them) matches."""
    return _op("MatchingFiles", [pattern], name).outputs[0]
