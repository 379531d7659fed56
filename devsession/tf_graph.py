"""TensorFlow's NodeDefs -> devsession's ops: the one place TF's forms are translated.

``import_graph_def`` calls ``translate(node_def, inputs)`` for every NodeDef, its data
inputs already resolved to Tensors, and creates the op it returns.  A NodeDef devsession
wrote itself passes through unchanged; one TensorFlow wrote is mapped in two ways.

**Attrs.**  TF writes attrs that never change what a node computes, and they are dropped:

* every attr whose name starts with ``_`` (TF's internal ones: ``_class`` colocation
  hints, ``_output_shapes``...);
* ``IGNORED_ATTRS``: the dtype attrs of inputs (``T``, ``Tidx``, ``Tshape``...: devsession
  infers every dtype from the inputs, and each op rejects inputs of a type it cannot
  take), the input count ``N``, and hints for TF's own runtime (``grad_a``,
  ``use_cudnn_on_gpu``, ``use_locking``);
* ``NEUTRAL_ATTRS`` at their neutral value (``Cast``'s ``Truncate: false``).  With any
  other value such an attr changes the result in a way devsession does not implement:
  ``UnimplementedError`` naming the node and the attr.

Every other attr goes to devsession's op as it is: the ops added with TF's names and
input forms (``BiasAdd``, ``Conv2D``, ``GatherV2``, ``StridedSlice``...) read TF's attrs
themselves.  Rejecting every attr an op does not read would need each OpDef to list the
attrs it reads, which OpDefs do not do yet.

**Input forms.**  Where TF passes as an input what devsession's op takes as an attr
(``Sum``/``Mean``/``Max``/``Min``/``Prod``'s axes with ``keep_dims``, ``ConcatV2``'s
axis, ``Transpose``'s perm, ``Reshape``'s shape, ``ArgMax``/``ArgMin``'s dimension), that
input must have a value known when the graph is built (a ``Const``, or what
``graph.constant_value`` can work out), which is folded into the attr; otherwise a
reduction or a Transpose becomes ``_RunTimeAttr`` (the op reading the axes or perm on
the host each step: TF's gradients compute them from ``BroadcastGradientArgs`` and
``InvertPermutation``), and another node is ``UnimplementedError`` ("ConcatV2 with the
axis computed at run time is not supported yet").  A reduction's ``Range(0, Rank(x), 1)``
over an ``x`` of unknown rank (how TF writes "every axis") is the reduction's
``all_axes``, and a negative axis of such an ``x`` stays negative, as devsession's
reductions settle it per input.
``RandomUniformInt``'s inputs come in TF's order (shape, minval, maxval) with its dtype
as ``Tout``; devsession's op takes the shape last and the dtype as ``dtype``.
``BatchMatMul``/``V2``/``V3`` are devsession's ``MatMul`` (which broadcasts batches),
their ``adj_x``/``adj_y`` its transposes (complex ones also conjugate: built as
``matmul``'s adjoints).

**Composites.**  A few TF ops devsession builds from other ops (TF1's ``Select``: a
vector condition picks rows; ``Einsum``, ``MatrixBandPart``, ``ReverseV2``,
``ReverseSequence``, ``ConjugateTranspose``: a Transpose and a Conj; TF 2's generic
``Conv``: a Conv2D or Conv3D; older releases' ops and TF's image color ops:
``tf_legacy_ops.py``) are built by devsession's own builder under the node's name as a
name scope, and the node itself becomes an ``Identity`` of the result, so its name and
outputs resolve as TF's did.  So are TF's channels-first nodes whose devsession ops take
NHWC only (Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput, MaxPool, AvgPool with
``data_format: "NCHW"``): the NHWC op between two Transposes, TF's values.  TF's attr
defaults that devsession's ops lack are filled in (``Softmax``'s last
axis, ``Placeholder``'s unknown shape).  A rewrite applies
only while devsession's op takes the attr form: when an op gains TF's input form (its
OpDef takes TF's number of inputs; for ``ConcatV2``, reads an input on the host), its
NodeDefs pass through untouched.  An op devsession lacks is ``NotFoundError`` naming it.
"""

from __future__ import annotations

import numpy as np

from .errors import InvalidArgumentError, UnimplementedError
from .graph import constant_value
from .graph_codec import decode_attr
from .ops.common import normalise_axis
from .ops.registry import InferError, get_op_def
from .ops.run_time_attrs import RUN_TIME_ATTR, RUN_TIME_ATTR_OPS
from .ops.tensor_array import TF_TENSOR_ARRAY_OPS
from .tensor_shape import TensorShape

__all__ = ["translate", "IGNORED_ATTRS", "NEUTRAL_ATTRS", "mapped_op_types", "add_mapped_ops",
           "constant_input"]

IGNORED_ATTRS = frozenset({
    # the dtype of an input (or the count of a list input): devsession infers it
    "T", "Tidx", "Tshape", "Tperm", "Tpaddings", "Tmultiples", "Tindices", "Tparams",
    "Taxis", "TI", "Tdim", "Tblock_shape", "Tcrops", "Tsegmentids", "Tnumsegments", "Tlen",
    "Index", "index_type", "SrcT",
    # hints for TF's runtime and gradients
    "grad_a", "grad_b", "use_cudnn_on_gpu", "use_locking",
})

# attr -> the value at which it changes nothing; any other value is not implemented
NEUTRAL_ATTRS = {"Truncate": False}


# TF's private attrs that mean something here: colocation, and the gradient a
# gradient_override_map (or ds.custom_gradient) chose for the node
KEPT_PRIVATE_ATTRS = frozenset({"_class", "_gradient_op_type"})


def translate(node, inputs, name: str | None = None) -> tuple[str, list, dict]:
    """(op type, data inputs, attrs) of the devsession op for the NodeDef ``node``;
    ``name`` is the name it will have (a composite builds its parts under it)."""
    if node.op in TF_TENSOR_ARRAY_OPS:
        raise UnimplementedError(
            f"Node '{node.name}': {node.op} is TensorFlow's TensorArray (a resource, or a "
            f"TensorList) that import_graph_def did not map onto devsession's value "
            f"TensorArray ops (tf_tensor_array_import.py maps TF1's V3 ones in a whole "
            f"GraphDef; TensorLists do not import).", node.name)
    attrs = _attrs(node)
    composite = _COMPOSITES.get(node.op)
    if composite is None and _text(attrs.get("data_format")) == "NCHW":
        composite = _CHANNELS_FIRST.get(node.op)
    if composite is None and _conjugates(node, attrs, inputs):
        composite = _adjoint_matmul
    if composite is not None:
        return "Identity", [_built(composite, node, list(inputs), attrs, name or node.name)], {}
    rewrite = _REWRITES.get(node.op)
    if rewrite is None:
        return node.op, list(inputs), attrs
    return rewrite(node, list(inputs), attrs)


def _attrs(node) -> dict:
    attrs = {}
    for key, value in node.attr.items():
        if (key.startswith("_") and key not in KEPT_PRIVATE_ATTRS) or key in IGNORED_ATTRS:
            continue
        decoded = decode_attr(value, node.name, key)
        if key in NEUTRAL_ATTRS:
            if decoded != NEUTRAL_ATTRS[key]:
                raise UnimplementedError(
                    f"Node '{node.name}' ({node.op}): attr {key}={decoded!r} is not supported "
                    f"yet; devsession implements only {key}={NEUTRAL_ATTRS[key]!r}.", node.name)
            continue
        attrs[key] = decoded
    return attrs


# --- folding constant inputs into attrs -------------------------------------------------

def _takes_attr_form(op_type: str, attr_form_inputs: int) -> bool:
    """Whether devsession's ``op_type`` still takes ``attr_form_inputs`` data inputs (and
    the rest as attrs); NotFoundError if devsession has no such op."""
    return get_op_def(op_type).num_inputs == attr_form_inputs


# Integer arithmetic TF's Python wrappers put between constants and an axis or a shape
# (linspace's ``axis + rank`` picked by a SelectV2): folded when every input is known.
# A division by a zero divisor is not folded (TF's kernel raises there, when it runs).
_INT_FOLDS = {"AddV2": np.add, "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
              "FloorDiv": np.floor_divide, "FloorMod": np.mod, "Maximum": np.maximum,
              "Minimum": np.minimum, "Neg": np.negative, "SelectV2": np.where,
              "Select": np.where}
_DIVISIONS = ("FloorDiv", "FloorMod")


def _folded_ints(tensor, depth: int = 8):
    """``tensor``'s value when the graph alone determines it, also through the small
    integer arithmetic of ``_INT_FOLDS`` over such values; None otherwise."""
    value = constant_value(tensor)
    if value is not None or depth == 0:
        return value
    fold = _INT_FOLDS.get(tensor.op.type)
    if fold is None or not (tensor.dtype.is_integer or tensor.dtype.is_bool):
        return None
    args = [_folded_ints(t, depth - 1) for t in tensor.op.inputs]
    if any(a is None or a.size > 64 for a in args):
        return None
    if tensor.op.type in _DIVISIONS and np.any(args[1] == 0):
        return None
    return np.asarray(fold(*args), dtype=tensor.dtype.np)


def constant_input(node, tensor, what: str) -> np.ndarray:
    """The value of ``node``'s input ``tensor`` (``what`` it is, for the message), which
    devsession needs while building: UnimplementedError naming the node unless the graph
    alone determines it."""
    value = _folded_ints(tensor)
    if value is None:
        raise UnimplementedError(
            f"Node '{node.name}': {node.op} with {what} computed at run time is not supported "
            f"yet; devsession needs {what} known when the graph is built (a Const), but "
            f"'{tensor.name}' is computed by a {tensor.op.type}.", node.name)
    return np.asarray(value)


def _constant_ints(node, tensor, what: str) -> np.ndarray:
    value = constant_input(node, tensor, what)
    if value.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"Node '{node.name}' ({node.op}): {what} '{tensor.name}' must be integers, not "
            f"{value.dtype.name}.", node.name)
    return value


def _vector(node, tensor, what: str) -> tuple:
    value = _constant_ints(node, tensor, what)
    if value.ndim > 1:
        raise InvalidArgumentError(f"Node '{node.name}' ({node.op}): {what} '{tensor.name}' "
                                   f"must be a scalar or a vector, not {value.shape}.", node.name)
    return tuple(int(v) for v in value.reshape(-1))


def _scalar(node, tensor, what: str) -> int:
    value = _constant_ints(node, tensor, what)
    if value.ndim != 0:
        raise InvalidArgumentError(f"Node '{node.name}' ({node.op}): {what} '{tensor.name}' "
                                   f"must be a scalar, not of shape {value.shape}.", node.name)
    return int(value)


def _axis(node, axis: int, rank: int | None) -> int:
    try:
        return normalise_axis(axis, rank, node.name)
    except InferError as e:
        error = UnimplementedError if rank is None else InvalidArgumentError
        raise error(f"{e} ({node.op})", node.name) from None


def _reduction_axis(node, axis: int, rank: int | None) -> int:
    """A reduction's axis: as it is for an input of unknown rank (devsession's reductions
    settle a negative one per input they get, as TF's), else checked and made
    non-negative."""
    return axis if rank is None else _axis(node, axis, rank)


def _unchanged(node, inputs, attrs):
    return node.op, inputs, attrs


def _reduction(node, inputs, attrs):
    if len(inputs) != 2 or not _takes_attr_form(node.op, 1):
        return _unchanged(node, inputs, attrs)
    x, axes = inputs
    rank = x.shape.ndims
    if constant_value(axes) is None and not (rank is None and _every_axis(axes, x)):
        return _run_time_attr(node, inputs, {"keepdims": bool(attrs.pop("keep_dims", False))})
    if rank is None and _every_axis(axes, x):
        attrs["axis"], attrs["all_axes"] = (), True
    else:
        attrs["axis"] = tuple(sorted({_reduction_axis(node, a, rank)
                                      for a in _vector(node, axes, "reduction axes")}))
    attrs["keepdims"] = bool(attrs.pop("keep_dims", False))  # TF's default
    return node.op, [x], attrs


def _every_axis(axes, x) -> bool:
    """Whether ``axes`` is ``Range(0, Rank(x), 1)``: how TF (and devsession's export)
    writes a reduction over every axis of an input of unknown rank."""
    if axes.op.type != "Range":
        return False
    start, limit, delta = axes.op.inputs
    return (limit.op.type == "Rank" and limit.op.inputs[0].name == x.name
            and _is_scalar(start, 0) and _is_scalar(delta, 1))


def _is_scalar(tensor, number: int) -> bool:
    value = constant_value(tensor)
    return value is not None and value.shape == () and value == number


def _arg_reduction(node, inputs, attrs):
    """ArgMax/ArgMin: TF's ``dimension`` input folded into the axis; ``output_type``
    (int64 or int32) passes through."""
    if len(inputs) != 2 or not _takes_attr_form(node.op, 1):
        return _unchanged(node, inputs, attrs)
    x, dimension = inputs
    attrs["axis"] = _reduction_axis(node, _scalar(node, dimension, "the dimension"),
                                    x.shape.ndims)
    return node.op, [x], attrs


def _concat(node, inputs, attrs):
    if "axis" in attrs or get_op_def(node.op).host_inputs:
        return _unchanged(node, inputs, attrs)  # devsession's own form, or TF's accepted
    if len(inputs) < 2:
        raise InvalidArgumentError(f"Node '{node.name}' ({node.op}) needs values and an axis "
                                   f"input, got {len(inputs)} input(s).", node.name)
    values, axis = inputs[:-1], inputs[-1]
    attrs["axis"] = _axis(node, _scalar(node, axis, "the axis"),
                          next((v.shape.ndims for v in values if v.shape.ndims is not None), None))
    return node.op, values, attrs


def _attr_from_input(attr: str, what: str):
    """A rewrite folding the second input (``what``) into ``attr`` (Transpose, Reshape)."""
    def rewrite(node, inputs, attrs):
        if len(inputs) != 2 or not _takes_attr_form(node.op, 1):
            return _unchanged(node, inputs, attrs)
        if constant_value(inputs[1]) is None and RUN_TIME_ATTR_OPS.get(node.op) == attr:
            return _run_time_attr(node, inputs, attrs)
        attrs[attr] = _vector(node, inputs[1], what)
        return node.op, inputs[:1], attrs
    return rewrite


def _run_time_attr(node, inputs, attrs):
    """A reduction or Transpose whose axes or perm TF computes at run time (its gradients
    do: ``BroadcastGradientArgs``, ``InvertPermutation``): devsession's op reading them
    on the host per step (``ops/run_time_attrs.py``)."""
    return RUN_TIME_ATTR, inputs, {**attrs, "op": node.op, "attr": RUN_TIME_ATTR_OPS[node.op]}


def _softmax(node, inputs, attrs):
    if "axis" not in attrs and len(inputs) == 1:  # TF's Softmax works on the last axis
        rank = inputs[0].shape.ndims
        attrs["axis"] = -1 if rank is None else max(rank - 1, 0)
    return node.op, inputs, attrs


def _uniform_int(node, inputs, attrs):
    """TF's RandomUniformInt(shape, minval, maxval) with ``Tout`` -> devsession's
    (minval, maxval, shape) with ``dtype``."""
    if "Tout" not in attrs or len(inputs) != 3:
        return _unchanged(node, inputs, attrs)
    attrs["dtype"] = attrs.pop("Tout")
    attrs.setdefault("shape", ())
    return node.op, inputs[1:] + inputs[:1], attrs


def _placeholder(node, inputs, attrs):
    attrs.setdefault("shape", TensorShape(None))  # TF's default: any shape
    return node.op, inputs, attrs


_BATCH_MATMULS = ("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")


def _batch_matmul(node, inputs, attrs):
    """BatchMatMul(V2, V3) -> MatMul: ``adj_x``/``adj_y`` are transposes for real types
    (complex ones conjugate too: ``_adjoint_matmul``); V3's output type must be its
    inputs'."""
    types = {attrs.pop(k) for k in ("Ta", "Tb", "Tout") if k in attrs}
    if len(types) > 1:
        raise UnimplementedError(f"Node '{node.name}' ({node.op}): an output type other than "
                                 f"the inputs' is not supported.", node.name)
    attrs["transpose_a"] = bool(attrs.pop("adj_x", False))
    attrs["transpose_b"] = bool(attrs.pop("adj_y", False))
    return "MatMul", inputs, attrs


def _conjugates(node, attrs, inputs) -> bool:
    """Whether ``node`` is a complex BatchMatMul with an adjoint (a conjugate transpose)."""
    return node.op in _BATCH_MATMULS and bool(attrs.get("adj_x") or attrs.get("adj_y")) \
        and bool(inputs) and inputs[0].dtype.is_complex


def _adjoint_matmul(node, inputs, attrs):
    from .ops.linalg import matmul

    a, b = inputs
    return matmul(a, b, adjoint_a=bool(attrs.get("adj_x")), adjoint_b=bool(attrs.get("adj_y")))


# --- composites: TF ops devsession builds from other ops ------------------------------------

def _built(build, node, inputs, attrs, name: str):
    """``build(node, inputs, attrs)``'s result, its nodes under ``name/``."""
    from .graph import name_scope

    if not inputs:
        raise InvalidArgumentError(f"Node '{node.name}' ({node.op}) has no inputs.", node.name)
    graph = inputs[0].graph
    try:
        with graph.as_default(), name_scope(name + "/"):
            return build(node, inputs, attrs)
    except (ValueError, TypeError) as e:
        raise InvalidArgumentError(f"Cannot import node '{node.name}' ({node.op}): {e}",
                                   node.name) from None


def _select(node, inputs, attrs):
    from .ops.array_composites import select

    return select(*inputs)


def _einsum(node, inputs, attrs):
    from .ops.einsum import einsum

    return einsum(attrs["equation"], *inputs)


def _band_part(node, inputs, attrs):
    from .ops.matrix import matrix_band_part

    x, lower, upper = inputs
    return matrix_band_part(x, lower, upper)


def _reverse(node, inputs, attrs):
    from .ops.masking import reverse

    x, axis = inputs
    return reverse(x, _vector(node, axis, "the axes"))


def _reverse_sequence(node, inputs, attrs):
    from .ops.masking import reverse_sequence

    x, lengths = inputs
    return reverse_sequence(x, lengths, seq_axis=attrs["seq_dim"],
                            batch_axis=attrs.get("batch_dim", 0))


def _conjugate_transpose(node, inputs, attrs):
    from .ops.array import transpose
    from .ops.complex_math import conj

    x, perm = inputs
    swapped = transpose(x, list(_vector(node, perm, "the perm")))
    return conj(swapped) if x.dtype.is_complex else swapped


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _conv(node, inputs, attrs):
    """TF 2's generic ``Conv`` (``tf.conv``): a Conv2D or Conv3D by the input's rank."""
    from .ops.nn_conv_generic import conv

    x, f = inputs
    return conv(x, f, list(attrs["strides"]), _text(attrs["padding"]),
                explicit_paddings=list(attrs.get("explicit_paddings", ())),
                data_format=_text(attrs.get("data_format", "CHANNELS_LAST")),
                dilations=list(attrs.get("dilations", ())),
                batch_dims=attrs.get("batch_dims", 1), groups=attrs.get("groups", 1))


def _nchw_conv2d(node, inputs, attrs):
    from .ops.nn_conv import conv2d, padding_argument

    x, f = inputs
    return conv2d(x, f, attrs["strides"], padding_argument(attrs), data_format="NCHW",
                  dilations=attrs.get("dilations"))


def _nchw_depthwise(node, inputs, attrs):
    from .ops.nn_conv import padding_argument
    from .ops.nn_depthwise import depthwise_conv2d_native

    x, f = inputs
    return depthwise_conv2d_native(x, f, attrs["strides"], padding_argument(attrs), "NCHW",
                                   attrs.get("dilations", (1, 1, 1, 1)))


def _nchw_backprop_input(node, inputs, attrs):
    from .ops.nn_conv import conv2d_transpose, padding_argument

    sizes, f, dy = inputs       # conv2d_transpose's node
    return conv2d_transpose(dy, f, sizes, attrs["strides"], padding_argument(attrs), "NCHW",
                            dilations=attrs.get("dilations"))


def _nchw_pool(op_type: str):
    def build(node, inputs, attrs):
        from .ops.nn_conv import avg_pool, max_pool

        pool = max_pool if op_type == "MaxPool" else avg_pool
        return pool(inputs[0], attrs["ksize"], attrs["strides"], attrs["padding"], "NCHW")
    return build


# TF's NCHW nodes whose devsession ops take NHWC only: built as the NHWC op between two
# Transposes (ops/nn_channels_first.py), the node an Identity of the result.  BiasAdd and
# FusedBatchNorm* take NCHW themselves and pass through; NCHW gradient ops are refused by
# their ops' data_format check.
_CHANNELS_FIRST = {"Conv2D": _nchw_conv2d, "DepthwiseConv2dNative": _nchw_depthwise,
                   "Conv2DBackpropInput": _nchw_backprop_input,
                   "MaxPool": _nchw_pool("MaxPool"), "AvgPool": _nchw_pool("AvgPool")}

_COMPOSITES = {"Select": _select, "Einsum": _einsum, "MatrixBandPart": _band_part,
               "ReverseV2": _reverse, "ReverseSequence": _reverse_sequence,
               "ConjugateTranspose": _conjugate_transpose, "Conv": _conv}

def _quantize_v2(node, inputs, attrs):
    """QuantizeV2's ``T`` is the type of its output, not of an input: kept (the other
    ``T`` attrs are dropped, devsession infers them)."""
    return node.op, inputs, {**attrs, "T": decode_attr(node.attr["T"], node.name, "T")}


_REWRITES = {
    "QuantizeV2": _quantize_v2,
    **{op: _reduction for op in ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any",
                                 "EuclideanNorm")},
    "ArgMax": _arg_reduction,
    "ArgMin": _arg_reduction,
    "ConcatV2": _concat,
    "Transpose": _attr_from_input("perm", "the perm"),
    "Reshape": _attr_from_input("shape", "a shape"),
    "Softmax": _softmax,
    "Placeholder": _placeholder,
    "RandomUniformInt": _uniform_int,
    **{op: _batch_matmul for op in _BATCH_MATMULS},
}


def add_mapped_ops(composites: dict, rewrites: dict) -> None:
    """More composites and rewrites (``tf_legacy_ops.py`` adds its own when devsession is
    imported: its builders use modules that would import this one back)."""
    _COMPOSITES.update(composites)
    _REWRITES.update(rewrites)


def mapped_op_types() -> frozenset:
    """TF's op types ``translate`` builds from devsession's ops (or rewrites): importable
    though devsession registers no op of that type (``Einsum``, ``BatchMatMulV2``...)."""
    return frozenset(_COMPOSITES) | frozenset(_REWRITES) | frozenset(_CHANNELS_FIRST)
