"""Reductions: Sum, Mean, Max, Min, Prod, EuclideanNorm, All, Any (``reduce_*``),
ArgMax and ArgMin; and running forms, the scans Cumsum, Cumprod and CumulativeLogsumexp
(``cumsum``, ``cumprod``, ``cumulative_logsumexp``).

``axis`` attrs are sorted, non-negative axes, resolved when the node is built, when the
input's rank is known.  When it is not (a placeholder without a shape), the node is
built anyway, as TF1 builds it: negative axes stay negative and "every axis" is the
``all_axes`` attr, and the kernels settle them for each input they get
(``kernels/checks.py: resolve_axes``); the static output shape is then unknown.

TF1's spellings are accepted: ``reduction_indices=`` for ``axis=`` and ``keep_dims=``
for ``keepdims=``; ``argmax``/``argmin`` take ``dimension=`` and ``output_type=``
(int64 or int32), and ``arg_max``/``arg_min`` are the raw ops' names.

**Cumsum/Cumprod(x, axis)** keep TF's op types and attrs: ``axis`` is an int32 or int64
scalar *input* read on the host, ``exclusive`` starts each run from the identity (0, 1
or -inf, so the last element is left out) and ``reverse`` runs from the end of the axis.
Integers wrap and float16 accumulates in float32, as the reductions do; an axis outside
``[-rank, rank)`` is a ValueError when the graph knows it, else InvalidArgumentError.

Integer Sum/Prod/Max/Min of values the graph alone determines have static values
(``graph.constant_value``), as TF's shape inference evaluates them, so a size computed
from constant ids (``reduce_max(ids) + 1``, bincount's bins) is a known dimension.

Kernels: ``kernels/{reference,cpu,cuda}/reduce.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array import stop_gradient
from .array_fill import zeros_like
from .common import make_op, normalise_axis, numeric
from .elementwise import abs as absolute, exp, less, log, where
from .registry import InferError, OpDef, register_op
from .shape_arithmetic import small

__all__ = ["cumsum", "cumprod", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_euclidean_norm",
           "cumulative_logsumexp", "argmax", "argmin", "arg_max",
           "arg_min"]

REDUCTIONS = ("Sum", "Mean", "Max", "Min", "Prod", "EuclideanNorm")
COMPLEX_REDUCTIONS = ("Sum", "Mean", "Prod", "EuclideanNorm")    # take complex64/128 too
LOGICAL_REDUCTIONS = ("All", "Any")
SCANS = ("Cumsum", "Cumprod")


def _reduce(inputs, attrs, node):
    (x,) = inputs
    numeric(x, node)
    return x.dtype, _reduced_shape(x, attrs)


def _reduce_complex(inputs, attrs, node):
    """Sum, Mean, Prod and EuclideanNorm also take complex64/complex128 tensors, as TF's
    (EuclideanNorm's ``sqrt(sum(x * conj(x)))`` in the complex dtype)."""
    (x,) = inputs
    if x.dtype.is_complex:
        return x.dtype, _reduced_shape(x, attrs)
    return _reduce(inputs, attrs, node)


def _reduce_bool(inputs, attrs, node):
    (x,) = inputs
    if not x.dtype.is_bool:
        raise TypeError(f"Op '{node}' reduces bool tensors, but '{x.name}' is {x.dtype.name}; "
                        f"compare it first (e.g. ds.not_equal(x, 0)).")
    return dtypes.bool_, _reduced_shape(x, attrs)


def _reduced_shape(x, attrs) -> TensorShape:
    axis, keep = attrs["axis"], attrs["keepdims"]
    if attrs.get("all_axes"):          # every axis of an input of unknown rank
        return TensorShape(None if keep else [])
    if x.shape.ndims is None:
        return TensorShape(None)
    if keep:
        return TensorShape([1 if i in axis else d for i, d in enumerate(x.shape.dims)])
    return TensorShape([d for i, d in enumerate(x.shape.dims) if i not in axis])


def _argmax(inputs, attrs, node):
    (x,) = inputs
    numeric(x, node)
    out = dtypes.as_dtype(attrs["output_type"])
    if out not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Op '{node}': output_type must be int32 or int64, not {out.name}.")
    if x.shape.ndims is None:
        return out, TensorShape(None)
    return out, TensorShape(d for i, d in enumerate(x.shape.dims) if i != attrs["axis"])


def _scan(inputs, attrs, node):
    x, axis = inputs
    if not x.dtype.is_complex:           # Cumsum and Cumprod take complex values, as TF's
        numeric(x, node)
    if axis.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Op '{node}': axis '{axis.name}' must be int32 or int64, not "
                        f"{axis.dtype.name}.")
    if axis.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': axis '{axis.name}' must be a scalar, but has shape "
                         f"{axis.shape}.")
    # An axis out of range builds, as TF's (its shape function is UnchangedShape): the
    # run is the kernel's InvalidArgumentError "Expected scan axis in the range ...".
    return x.dtype, x.shape


def _float_scan(inputs, attrs, node):
    if not inputs[0].dtype.is_floating:          # CumulativeLogsumexp, as TF's
        raise TypeError(f"Op '{node}' needs a floating-point input, but '{inputs[0].name}' "
                        f"is {inputs[0].dtype.name}.")
    return _scan(inputs, attrs, node)


for _name, _infer in [*((s, _scan) for s in SCANS), ("CumulativeLogsumexp", _float_scan)]:
    register_op(OpDef(_name, _infer, 2, attr_defaults={"exclusive": False, "reverse": False},
                      host_inputs=(1,)))
_INT_REDUCTIONS = {"Sum": np.sum, "Prod": np.prod, "Max": np.max, "Min": np.min}


def _int_reduction_value(op, value_of):
    """An integer Sum/Prod/Max/Min of a small value the graph alone determines
    (``OpDef.static_value``), wrapping as the kernels do, as TF's shape inference evaluates
    such subgraphs: bincount's ``max(arr) + 1`` bins and a ``num_segments`` of
    ``reduce_max(ids) + 1`` over constant ids give known static shapes.  None for other
    dtypes, an input of unknown rank, and a Max/Min over an empty axis (left to the run)."""
    x = op.inputs[0]
    value = value_of(x)
    if not x.dtype.is_integer or op.attrs.get("all_axes") or not small(value):
        return None
    value = np.asarray(value, x.dtype.np)
    axis = tuple(op.attrs["axis"])
    if op.type in ("Max", "Min") and any(value.shape[a] == 0 for a in axis):
        return None
    with np.errstate(over="ignore"):
        return np.asarray(_INT_REDUCTIONS[op.type](value, axis=axis,
                                                   keepdims=bool(op.attrs["keepdims"])),
                          x.dtype.np)


for _name in REDUCTIONS:
    register_op(OpDef(_name, _reduce_complex if _name in COMPLEX_REDUCTIONS else _reduce,
                      1, attr_defaults={"keepdims": False},
                      static_value=_int_reduction_value if _name in _INT_REDUCTIONS else None))
for _name in LOGICAL_REDUCTIONS:
    register_op(OpDef(_name, _reduce_bool, 1, attr_defaults={"keepdims": False}))
register_op(OpDef("ArgMax", _argmax, 1, attr_defaults={"output_type": dtypes.int64}))
register_op(OpDef("ArgMin", _argmax, 1, attr_defaults={"output_type": dtypes.int64}))


def _axis_values(axis, what: str) -> list | None:
    """``axis`` (None, an int, a list, or a Tensor whose value the graph knows) as ints."""
    if axis is None:
        return None
    if hasattr(axis, "_as_tensor") or isinstance(axis, Tensor):
        value = constant_value(convert_to_tensor(axis))
        if value is None:
            raise NotImplementedError(
                f"{what}: an axis computed at run time is not supported yet by devsession; "
                f"pass a Python int or list (or a constant).")
        axis = value
    values = np.asarray(axis)
    if values.size == 0:
        return []
    if values.dtype.kind not in "iu":
        raise TypeError(f"{what}: axis must be ints, got {axis!r}.")
    return [int(a) for a in values.reshape(-1)]


def _run_time_axis(axis) -> bool:
    """Whether ``axis`` is a tensor whose value only a run knows."""
    return (hasattr(axis, "_as_tensor") or isinstance(axis, Tensor)) and \
        constant_value(convert_to_tensor(axis)) is None


def _axis_attrs(x: Tensor, axis, what: str) -> dict:
    rank = x.shape.ndims
    axes = _axis_values(axis, what)
    if axes is None:
        if rank is None:
            return {"axis": (), "all_axes": True}
        return {"axis": tuple(range(rank))}
    if rank is None:
        return {"axis": tuple(sorted(set(axes)))}
    try:
        return {"axis": tuple(sorted({normalise_axis(a, rank, what) for a in axes}))}
    except InferError as e:
        raise ValueError(str(e)) from None


def _pick(axis, tf1_spelling, new_name: str, old_name: str):
    if tf1_spelling is None:
        return axis
    if axis is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")   # TF's order
    return tf1_spelling


def _reduction(op_type: str, public_name: str):
    def build(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
              keep_dims=None):
        x = convert_to_tensor(input_tensor)
        axis = _pick(axis, reduction_indices, "axis", "reduction_indices")
        keep = bool(_pick(keepdims, keep_dims, "keepdims", "keep_dims"))
        if _run_time_axis(axis):      # TF's axes input, read per run (run_time_attrs.py)
            from .array_operands import int_operand
            from .run_time_attr_name import RUN_TIME_ATTR

            return make_op(RUN_TIME_ATTR, [x, int_operand(axis, x.graph)],
                           {"op": op_type, "attr": "axis", "keepdims": keep},
                           name or op_type)
        attrs = {**_axis_attrs(x, axis, name or public_name), "keepdims": keep}
        if axis is None and x.shape.ndims is not None:
            # TF1 makes a Const of the axes here ("Const_N", unused by devsession, whose
            # axes are an attr), so the constants built after it are numbered as in TF1.
            convert_to_tensor(np.arange(x.shape.ndims, dtype=np.int32), graph=x.graph)
        return make_op(op_type, [x], attrs, name)
    # Named as users call it, so a wrong keyword says "reduce_sum() got an unexpected...".
    build.__name__ = build.__qualname__ = public_name
    build.__doc__ = (f"{op_type} over ``axis`` (every axis when None), as TF1's "
                     f"``tf.{public_name}``; ``reduction_indices``/``keep_dims`` are TF1's "
                     f"older names for ``axis``/``keepdims``.")
    return build


reduce_sum = _reduction("Sum", "reduce_sum")
reduce_mean = _reduction("Mean", "reduce_mean")
reduce_max = _reduction("Max", "reduce_max")
reduce_min = _reduction("Min", "reduce_min")
reduce_prod = _reduction("Prod", "reduce_prod")
reduce_all = _reduction("All", "reduce_all")
reduce_any = _reduction("Any", "reduce_any")
reduce_euclidean_norm = _reduction("EuclideanNorm", "reduce_euclidean_norm")


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None,
                     reduction_indices=None, keep_dims=None) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, as TF1's (and built as TF builds it): the max
    is subtracted first, so large values do not overflow, and it is held constant for
    the gradient (which is then softmax); an infinite max is replaced by 0, so a row of
    -inf gives -inf and one holding +inf gives inf."""
    axis = _pick(axis, reduction_indices, "axis", "reduction_indices")
    keep = bool(_pick(keepdims, keep_dims, "keepdims", "keep_dims"))
    with name_scope(name or "ReduceLogSumExp"):
        x = convert_to_tensor(input_tensor)
        raw_max = reduce_max(x, axis, keepdims=True)
        finite = less(absolute(raw_max), np.inf)
        shift = stop_gradient(where(finite, raw_max, zeros_like(raw_max)))
        total = log(reduce_sum(exp(x - shift), axis, keepdims=keep))
        # Summing the shift's size-1 axes drops them exactly as the total's were.
        return total + (shift if keep else reduce_sum(shift, axis))


def _arg_reduction(op_type: str, x, axis, name, output_type) -> Tensor:
    x = convert_to_tensor(x)
    what = name or op_type
    axes = _axis_values(0 if axis is None else axis, what)
    if len(axes) != 1:
        raise ValueError(f"{what}: axis must be one int, got {axis!r}.")
    try:
        axis = normalise_axis(axes[0], x.shape.ndims, what) if x.shape.ndims is not None \
            else axes[0]
    except InferError as e:
        raise ValueError(str(e)) from None
    return make_op(op_type, [x], {"axis": axis, "output_type": dtypes.as_dtype(output_type)},
                   name)


def argmax(input, axis=None, name=None, dimension=None,  # noqa: A002  (TF1's names)
           output_type=dtypes.int64) -> Tensor:
    """Index of the largest value along ``axis`` (default 0, as TF1), as ``output_type``
    (int64, or int32); ``dimension`` is TF1's older name for ``axis``."""
    axis = _pick(axis, dimension, "axis", "dimension")
    return _arg_reduction("ArgMax", input, axis, name, output_type)


def argmin(input, axis=None, name=None, dimension=None,  # noqa: A002
           output_type=dtypes.int64) -> Tensor:
    """Index of the smallest value along ``axis`` (default 0), as ``output_type``."""
    axis = _pick(axis, dimension, "axis", "dimension")
    return _arg_reduction("ArgMin", input, axis, name, output_type)


def arg_max(input, dimension, output_type=dtypes.int64, name=None) -> Tensor:  # noqa: A002
    """TF1's raw ``tf.arg_max(input, dimension)``."""
    return _arg_reduction("ArgMax", input, dimension, name, output_type)


def arg_min(input, dimension, output_type=dtypes.int64, name=None) -> Tensor:  # noqa: A002
    """TF1's raw ``tf.arg_min(input, dimension)``."""
    return _arg_reduction("ArgMin", input, dimension, name, output_type)


def _scan_builder(op_type: str, public_name: str):
    def build(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
        x = convert_to_tensor(x, name="x")
        axis = convert_to_tensor(axis, dtype_hint=dtypes.int32, graph=x.graph, name="axis")
        return make_op(op_type, [x, axis], {"exclusive": bool(exclusive),
                                            "reverse": bool(reverse)}, name or op_type)
    build.__name__ = build.__qualname__ = public_name
    build.__doc__ = (f"The running {'sum' if op_type == 'Cumsum' else 'product'} of ``x`` "
                     f"along ``axis``, as TF1's ``tf.{public_name}`` (see the module "
                     f"docstring for ``exclusive`` and ``reverse``).")
    return build


cumsum = _scan_builder("Cumsum", "cumsum")
cumprod = _scan_builder("Cumprod", "cumprod")
cumulative_logsumexp = _scan_builder("CumulativeLogsumexp", "cumulative_logsumexp")
cumulative_logsumexp.__doc__ = (
    "The running ``log(sum(exp(x)))`` along ``axis``, as TF's ``tf.math.cumulative_logsumexp`` "
    "(floats; ``exclusive`` starts each run from -inf, ``reverse`` runs from the end).")
