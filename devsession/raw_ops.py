"""TF's ``tf.raw_ops``: one function per op type, called with keyword arguments named as
TF's OpDef names its inputs and attrs (``tf.raw_ops.TopKV2(input=x, k=2)``), for every op
type TensorFlow has and devsession runs.

A call binds the keywords by TF's signature (``tf_op_signatures.json``, with the keywords
TF's API renamed: Sum's ``axis`` is its OpDef's ``reduction_indices``): inputs become
tensors (a list input takes a list; a reference input, a variable; an input whose type
another input fixes is converted to that type), the other keywords are attrs (TF's
dtype attrs that the inputs determine may be given, and are left to them); then the
node is made as ``import_graph_def`` makes a NodeDef TensorFlow wrote (``tf_graph.py``),
so TF's input forms and composites apply.  The result is the output, a namedtuple of the
outputs named as TF's (``TopKV2(values, indices)``; a list output is a list), or the
Operation of an op without outputs.  Positional arguments, missing inputs and unknown
keywords are ``TypeError``, as TF's; an op type devsession does not run is
``UnsupportedTF1Error``.
"""

from __future__ import annotations

import collections
import functools

import numpy as np

from . import dtypes
from .graph import convert_to_tensor, get_default_graph
from .graph_codec import encode_attr
from .ops.registry import registered_ops
from .ops.state import variable_ref
from .proto import graph_pb2
from .tensor_shape import TensorShape
from .tf_graph import mapped_op_types, translate
from .tf_signatures import signature_table

__all__: list = []     # the op types: see __dir__


def __dir__() -> list:
    """TF's op types devsession runs: its own, and those its importer builds."""
    return sorted(set(signature_table()["ops"]) & (set(registered_ops()) | mapped_op_types()))


def __getattr__(name: str):
    if name.startswith("__") or name not in __dir__():
        from .unsupported import missing

        raise missing("raw_ops", name)
    return _raw_op(name)


@functools.cache
def _raw_op(op_type: str):
    signature = signature_table()["ops"][op_type]
    renamed = signature.get("raw_ops_names", {})      # keyword -> the OpDef's name
    outputs = signature["outputs"]
    result = collections.namedtuple(op_type, [o["name"] for o in outputs]) \
        if len(outputs) > 1 else None

    def raw_op(*args, **kwargs):
        if args:
            raise TypeError(f"raw_ops.{op_type} takes keyword arguments only (TF's "
                            f"{_arg_names(signature)}), got {len(args)} positional.")
        name = kwargs.pop("name", None)
        kwargs = {renamed.get(k, k): v for k, v in kwargs.items()}
        inputs = _bound_inputs(op_type, signature, kwargs)
        attrs = _attrs(op_type, signature, kwargs)
        graph = get_default_graph()
        unique = graph.unique_name(name or op_type)
        node = graph_pb2.NodeDef(name=unique, op=op_type)
        for key, value in attrs.items():
            encode_attr(value, node.attr[key])
        made_type, data, made_attrs = translate(node, inputs, unique)
        op = graph.create_op(made_type, data, made_attrs, name=unique, exact_name=True)
        if not outputs:
            return op
        values = _grouped(op.outputs, outputs, attrs)
        return values[0] if result is None else result(*values)

    raw_op.__name__ = raw_op.__qualname__ = op_type
    raw_op.__doc__ = f"TF's {op_type} op: keywords {_arg_names(signature)}."
    return raw_op


def _arg_names(signature) -> list:
    """The keywords ``raw_ops`` takes for the op (TF's API names)."""
    keywords = {theirs: mine for mine, theirs in signature.get("raw_ops_names", {}).items()}
    names = [a["name"] for a in signature["inputs"]] + sorted(signature["attrs"])
    return [keywords.get(n, n) for n in names]


def _bound_inputs(op_type: str, signature: dict, kwargs: dict) -> list:
    """The input tensors, in TF's order, taken out of ``kwargs``."""
    inputs, typed = [], {}
    for arg in signature["inputs"]:
        if arg["name"] not in kwargs:
            keyword = _arg_names(signature)[signature["inputs"].index(arg)]
            raise TypeError(f"raw_ops.{op_type} missing required argument '{keyword}' "
                            f"(its arguments: {_arg_names(signature)}).")
        value = kwargs.pop(arg["name"])
        values = list(value) if _is_list(arg) else [value]
        type_attr = arg.get("type_attr")
        for item in values:
            if arg.get("is_ref"):
                tensor = variable_ref(item, f"raw_ops.{op_type}")
            else:
                want = dtypes.as_dtype(arg["type"]) if "type" in arg else \
                    _given_type(kwargs.get(type_attr)) or typed.get(type_attr)
                tensor = convert_to_tensor(item, dtype=want)
            if type_attr is not None:
                typed.setdefault(type_attr, tensor.dtype)
            inputs.append(tensor)
    return inputs


def _given_type(value):
    return None if value is None else dtypes.as_dtype(value)


def _attrs(op_type: str, signature: dict, kwargs: dict) -> dict:
    """The attrs left in ``kwargs``, in the forms NodeDefs hold."""
    attrs = {}
    for key, value in kwargs.items():
        spec = signature["attrs"].get(key)
        if spec is None:
            raise TypeError(f"raw_ops.{op_type} got an unexpected keyword argument '{key}' "
                            f"(its arguments: {_arg_names(signature)}).")
        attrs[key] = _attr_value(spec["type"], value)
    return attrs


def _attr_value(kind: str, value):
    if kind == "type":
        return dtypes.as_dtype(value)
    if kind == "shape":
        return TensorShape(value)
    if kind == "tensor":
        return np.asarray(value)
    if kind.startswith("list("):
        return tuple(_attr_value(kind[5:-1], v) for v in value)
    return value


def _is_list(arg: dict) -> bool:
    return "number_attr" in arg or "type_list_attr" in arg


def _grouped(tensors: list, outputs: list, attrs: dict) -> list:
    """The op's outputs, one per TF output arg (a list for a list arg: its length is its
    number attr, or for an op's only list, whatever the single outputs leave)."""
    lists = sum(map(_is_list, outputs))
    spare = len(tensors) - (len(outputs) - lists)
    values, at = [], 0
    for arg in outputs:
        count = 1
        if _is_list(arg):
            count = spare if lists == 1 else int(attrs.get(arg.get("number_attr"), spare))
        values.append(list(tensors[at:at + count]) if _is_list(arg) else tensors[at])
        at += count
    return values
