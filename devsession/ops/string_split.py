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
``InvalidArgumentError`` at run time.  ``result_type="RaggedTensor"``, and
``strings.split`` of strings of rank 2 and more (a RaggedTensor's ``to_sparse`` in TF),
raise ``UnsupportedTF1Error``.  Host
kernels (``kernels/reference/strings.py``); not differentiable.
"""

from __future__ import annotations

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


def _unsupported(what: str):
    from ..unsupported import UnsupportedTF1Error

    return UnsupportedTF1Error(f"{what} is not supported by devsession yet (devsession has "
                               f"no RaggedTensor); split a vector of strings into a "
                               f"SparseTensor instead.")


def _split(op_type, source, separator, attrs, name, scope_name):
    graph = get_default_graph()
    with name_scope(name or scope_name):
        source = convert_to_tensor(source, dtype=dtypes.string, graph=graph)
        if op_type == "StringSplitV2" and source.shape.ndims == 0:
            source = expand_dims(source, 0)
        elif op_type == "StringSplitV2" and source.shape.ndims not in (None, 1):
            raise _unsupported(f"tf.strings.split of strings of rank {source.shape.ndims}")
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
    if result_type != "SparseTensor":
        raise _unsupported(f"tf.string_split(result_type={result_type!r})")
    separator = sep if sep is not None else delimiter if delimiter is not None else " "
    return _split("StringSplit", source, separator, {"skip_empty": bool(skip_empty)}, name,
                  "StringSplit")


def strings_split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor",  # noqa: A002
                  source=None, name=None) -> SparseTensor:
    """TF1's ``tf.strings.split``: each string split as Python's ``str.split(sep,
    maxsplit)`` (``sep`` None or "": runs of whitespace), as a SparseTensor (module
    docstring); ``source`` is the old name of ``input``."""
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'.")
    if result_type != "SparseTensor":
        raise _unsupported(f"tf.strings.split(result_type={result_type!r})")
    value = input if input is not None else source
    return _split("StringSplitV2", value, "" if sep is None else sep,
                  {"maxsplit": int(maxsplit)}, name, "StringSplit")
