"""TF1's ``tf.string_split`` and ``tf.strings.split``: a vector of strings split into
tokens, as a ``SparseTensor`` of shape ``[rows, most tokens in a row]`` (row ``r``'s
tokens at ``[r, 0]``, ``[r, 1]``...), with TF's ops so GraphDefs TF wrote import:

* ``StringSplit(input, delimiter)``, attr ``skip_empty`` (``tf.string_split``): every
  byte of ``delimiter`` separates (an empty one splits into bytes); empty tokens are
  dropped unless ``skip_empty=False``; an empty string has no tokens.
* ``StringSplitV2(input, sep)``, attr ``maxsplit`` (``tf.strings.split``): Python's
  ``str.split``: ``sep`` as a whole string, empty tokens kept (``"" -> [""]``), or with
  ``sep=""`` runs of ASCII whitespace, ends trimmed; at most ``maxsplit`` splits, the
  rest one last token (TF's quirk: with whitespace that last token may be empty).

The input must be a vector (``strings.split`` takes a scalar as one row) and the
separator a scalar: ``ValueError`` when the graph knows otherwise, else
``InvalidArgumentError`` at run time.  ``result_type="RaggedTensor"`` gives the rows as
a RaggedTensor (``strings.split`` of strings of any rank: one ragged dimension more), and
``strings.split`` of strings of rank 2 and more a SparseTensor as TF's (the RaggedTensor's
``to_sparse``).  Host
kernels (``kernels/reference/strings.py``); not differentiable.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph, name_scope
from ..sparse_tensor import SparseTensor
from ..tensor_shape import TensorShape
from .array import expand_dims
from .registry import InferError, OpDef, not_differentiable, register_op
from .strings import check_scalar, check_strings

__all__ = ["string_split", "strings_split", "SPLIT_OPS"]

SPLIT_OPS = ("StringSplit", "StringSplitV2")


def _infer(separator: str):
    def infer(inputs, attrs, node):
        source, sep = inputs
        check_strings(inputs, node)
        if source.shape.ndims not in (None, 1):
            raise InferError(f"Shape must be rank 1 but is rank {source.shape.ndims} for "
                             f"'{node}': the input must be a vector, got {source.shape}.")
        check_scalar(sep, node, separator)
        return [(dtypes.int64, TensorShape([None, 2])), (dtypes.string, TensorShape([None])),
                (dtypes.int64, TensorShape([2]))]
    return infer


register_op(OpDef("StringSplit", _infer("delimiter"), 2, attr_defaults={"skip_empty": True}))
register_op(OpDef("StringSplitV2", _infer("sep"), 2, attr_defaults={"maxsplit": -1}))
not_differentiable(*SPLIT_OPS)


def _check_result_type(result_type: str):
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def _as_ragged(sparse: SparseTensor):
    """TF's ``result_type="RaggedTensor"``: each row's tokens as a row."""
    from ..ragged.ragged_tensor import RaggedTensor
    return RaggedTensor.from_value_rowids(sparse.values, sparse.indices[:, 0],
                                          sparse.dense_shape[0], validate=False)


def _split(op_type, source, separator, attrs, name, scope_name):
    graph = get_default_graph()
    with name_scope(name or scope_name):
        source = convert_to_tensor(source, dtype=dtypes.string, graph=graph)
        if op_type == "StringSplitV2" and source.shape.ndims == 0:
            source = expand_dims(source, 0)
        sep = convert_to_tensor(separator, dtype=dtypes.string, graph=graph,
                                name="sep" if op_type == "StringSplitV2" else "delimiter")
        op = graph.create_op(op_type, [source, sep], attrs, name=op_type)
    return SparseTensor(*op.outputs)


def string_split(source, sep=None, skip_empty=True, delimiter=None,
                 result_type="SparseTensor", name=None) -> SparseTensor:
    """TF1's ``tf.string_split``: each string of the vector ``source`` split at every
    byte of ``sep`` (``delimiter`` is its old name; default " "), as a SparseTensor
    (module docstring)."""
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'.")
    _check_result_type(result_type)
    separator = sep if sep is not None else delimiter if delimiter is not None else " "
    sparse = _split("StringSplit", source, separator, {"skip_empty": bool(skip_empty)}, name,
                    "StringSplit")
    return _as_ragged(sparse) if result_type == "RaggedTensor" else sparse


def strings_split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor",  # noqa: A002
                  source=None, name=None) -> SparseTensor:
    """TF1's ``tf.strings.split``: each string split as Python's ``str.split(sep,
    maxsplit)`` (``sep`` None or "": runs of whitespace), as a SparseTensor (module
    docstring); ``source`` is the old name of ``input``."""
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'.")
    _check_result_type(result_type)
    value = input if input is not None else source
    rank = getattr(value, "shape", None)
    rank = rank.ndims if rank is not None else np.ndim(value)
    if result_type == "RaggedTensor":
        return _split_ragged(value, sep, maxsplit, name)
    if rank is not None and rank > 1:       # TF: the ragged result's to_sparse
        return _split_ragged(value, sep, maxsplit, name).to_sparse()
    return _split("StringSplitV2", value, "" if sep is None else sep,
                  {"maxsplit": int(maxsplit)}, name, "StringSplit")


def _split_ragged(value, sep, maxsplit, name):
    """``result_type="RaggedTensor"`` of strings of any rank: one ragged dimension more
    (TF1's: a scalar is one row)."""
    from ..ragged.ragged_conversion import from_tensor
    from ..ragged.ragged_tensor import RaggedTensor, convert_to_ragged_or_tensor

    value = convert_to_ragged_or_tensor(value, dtype=dtypes.string)
    if isinstance(value, RaggedTensor):
        return value.with_flat_values(_split_ragged(value.flat_values, sep, maxsplit, name))
    rank = value.shape.ndims
    if rank is None:
        raise ValueError("Rank of `input` must be statically known.")
    if rank > 1:
        return _split_ragged(from_tensor(value, ragged_rank=rank - 1), sep, maxsplit, name)
    ragged = _as_ragged(_split("StringSplitV2", value, "" if sep is None else sep,
                               {"maxsplit": int(maxsplit)}, name, "StringSplit"))
    return ragged
