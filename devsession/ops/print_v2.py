"""TF's ``tf.print`` in graph mode: a ``StringFormat`` node writes the tensors into a
template (TF's print_v2 text of each: ``[0 1 2 ... 7 8 9]``, rows on their own lines,
strings quoted; ``summarize`` elements at each end of each dimension, -1 all; a
SparseTensor as TF's quoted ``'SparseTensor(indices=..., values=..., shape=...)'``), and a
``PrintV2`` node writes that string and ``end`` to its ``output_stream`` each time it
runs.  ``print`` returns the PrintV2 op, to run or to put in ``control_dependencies``.
Kernels: ``kernels/reference/print_v2.py`` (on the host)."""

from __future__ import annotations

import pprint
import sys

from .. import dtypes
from ..graph import Operation, Tensor, convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor
from . import nest
from .common import graph_of
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["print_v2", "string_format"]


def _string_format(inputs, attrs, node):
    wanted = attrs["template"].count(attrs["placeholder"])
    if wanted != len(inputs):
        raise InferError(f"Op '{node}' (StringFormat): {wanted} placeholder(s) in template "
                         f"does not match {len(inputs)} tensor(s) provided as input")
    return dtypes.string, ()


def _print_v2(inputs, attrs, node):
    (text,) = inputs
    if not text.dtype.is_string or text.shape.ndims not in (0, None):
        raise InferError(f"Op '{node}' (PrintV2) prints a string scalar, not "
                         f"{text.dtype.name} {text.shape}.")
    return None


register_op(OpDef("StringFormat", _string_format, None,
                  attr_defaults={"template": "%s", "placeholder": "%s", "summarize": 3}))
register_op(OpDef("PrintV2", _print_v2, 1, attr_defaults={"output_stream": "stderr",
                                                           "end": "\n"},
                  stateful=True, has_output=False))
not_differentiable("StringFormat", "PrintV2")      # strings in, nothing out

def _stream_name(output_stream) -> str:
    from .. import tf_logging

    if output_stream is None:
        return "stderr"
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    named = {id(sys.stdout): "stdout", id(sys.stderr): "stderr",
             id(sys.__stdout__): "stdout", id(sys.__stderr__): "stderr",
             id(tf_logging.info): "log(info)", id(tf_logging.warning): "log(warning)",
             id(tf_logging.error): "log(error)"}.get(id(output_stream))
    if named is None:
        raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. "
                         f"Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                         f"tf.logging.warning, tf.logging.error. File needs to be in the "
                         f"form of 'file://<filepath>'.")
    return named


def string_format(template, inputs, placeholder="{}", summarize=3, name=None) -> Tensor:
    """A string scalar: ``template`` with each ``placeholder`` replaced by the next
    tensor's text (TF's ``tf.strings.format``; ``inputs`` a list of tensors, or one)."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    tensors = [convert_to_tensor(t) for t in inputs]
    graph = graph_of(*tensors)
    return graph.create_op("StringFormat", tensors,
                           {"template": template, "placeholder": placeholder,
                            "summarize": int(summarize)},
                           name=name or "StringFormat").outputs[0]


def print_v2(*inputs, output_stream=None, sep=" ", end="\n", summarize=3,
             name=None) -> Operation:
    """TF's ``tf.print``: the inputs (tensors, and Python values and structures holding
    tensors, written as Python writes them) joined by ``sep``, then ``end``, written to
    ``output_stream`` (sys.stdout, sys.stderr, the default, ds.logging.info/warning/error
    or "file://<path>") each time the returned op runs."""
    stream = _stream_name(output_stream)
    with name_scope(name or "PrintV2"):
        if (len(inputs) == 1 and isinstance(inputs[0], Tensor)
                and inputs[0].dtype.is_string and inputs[0].shape.ndims == 0):
            text = inputs[0]
        else:
            template, tensors = _template(inputs, sep)
            placeholder = _placeholder(template)
            text = string_format(template.replace("\0", placeholder), tensors, placeholder,
                                 summarize)
        return text.graph.create_op("PrintV2", [text], {"output_stream": stream,
                                                         "end": end}, name="PrintV2")


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor) or hasattr(x, "_as_tensor")


class _SparseMark:
    """Where a SparseTensor goes in the template: TF formats it as the string
    "SparseTensor(indices={}, values={}, shape={})", which pformat quotes."""

    def __repr__(self) -> str:
        return "'SparseTensor(indices=\0, values=\0, shape=\0)'"


def _template(inputs, sep: str):
    """The template (tensors as "\\0" marks) and the tensors, as TF's print_v2 writes
    Python values: a str as it is, anything else through ``pprint.pformat``."""
    tensors, parts = [], []
    for value in inputs:
        if isinstance(value, str):
            parts.append(value)
            continue
        flat = []
        for x in nest.flatten(value):
            if isinstance(x, SparseTensor):
                tensors.extend([x.indices, x.values, x.dense_shape])
                flat.append(_SparseMark())
            elif _is_tensor(x):
                tensors.append(convert_to_tensor(x))
                flat.append("\0")
            else:
                flat.append(x)
        text = pprint.pformat(nest.pack_sequence_as(value, flat)) if nest.is_nested(value) \
            else ("\0" if flat == ["\0"] else pprint.pformat(flat[0]))
        parts.append(text.replace("'\\x00'", "\0"))
    return sep.join(parts), tensors


def _placeholder(template: str) -> str:
    """"{}", or a longer mark where the template already holds "{}" (TF's choice)."""
    mark, k = "{}", 0
    while mark in template.replace("\0", ""):
        k += 1
        mark = "{" + "_" * k + "}"
    return mark
