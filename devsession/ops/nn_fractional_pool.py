"""Fractional pooling (Graham, https://arxiv.org/abs/1412.6071): TF's
``FractionalMaxPool`` and ``FractionalAvgPool``, their gradient ops, and TF1's builders
``tf.nn.fractional_max_pool`` / ``fractional_avg_pool``.

Each spatial dimension (rows, cols of NHWC) of size ``n`` shrinks to ``m = floor(n /
ratio)`` (float32 division, TF's) by pooling regions of ``k`` or ``k + 1`` cells (``k =
n // m``).  The regions come from a *pooling sequence*, ``m + 1`` int64 boundaries from
0 to ``n``: random (the ``n % m`` regions of ``k + 1`` shuffled) or, with
``pseudo_random``, Graham's ``ceil(alpha * (i + u))`` for one random ``u``.  Region
``i`` is rows ``seq[i] .. seq[i + 1] - 1``, or ``.. seq[i + 1]`` when ``overlapping``
(clipped to the input).  The outputs are ``(output, row_pooling_sequence,
col_pooling_sequence)``; the sequences' static shapes are ``[m + 1]`` (TF infers ``[m]``,
one less than its kernel returns).

The draws are TF's: Philox seeded by the ``seed`` and ``seed2`` attrs (TF1's builders
pass them through; both 0 draw fresh seeds), reserved as TF's ``GuardedPhiloxRandom``
does, rows first, so a seeded node gives TF's sequences; ``deterministic`` keeps the
first sequences for every later run, otherwise each run draws anew.

* ``FractionalMaxPoolGrad(orig_input, orig_output, out_backprop, row_seq, col_seq)``
  sends each gradient to its region's first maximum (row-major).
* ``FractionalAvgPoolGrad(orig_input_tensor_shape int64[4], out_backprop, row_seq,
  col_seq)`` spreads each gradient evenly over its region.

Pooling the batch or channel dimension is TF's UnimplementedError, a ratio above a
dimension's size its InvalidArgumentError (when run), a ratio below 1 a ValueError when
built.  Kernels: ``kernels/reference/fractional_pool.py`` (on the host); gradients:
``nn_fractional_pool_grad.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, register_op

__all__ = ["fractional_max_pool", "fractional_avg_pool", "FRACTIONAL_POOL_OPS",
           "FRACTIONAL_POOL_TYPES", "pooled_size"]

FRACTIONAL_POOL_OPS = ("FractionalMaxPool", "FractionalAvgPool", "FractionalMaxPoolGrad",
                       "FractionalAvgPoolGrad")
FRACTIONAL_POOL_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
_DEFAULTS = {"pseudo_random": False, "overlapping": False, "deterministic": False,
             "seed": 0, "seed2": 0}


def pooled_size(size: int, ratio: float) -> int:
    """``floor(size / ratio)`` in float32, as TF's shape function and kernel compute it."""
    return int(np.floor(np.float32(size) / np.float32(ratio)))


def _ratios(attrs, node: str) -> list:
    ratios = [float(r) for r in attrs.get("pooling_ratio", ())]
    if len(ratios) < 4:
        raise ValueError(f"Attr 'pooling_ratio' of '{node}' Op passed list of length "
                         f"{len(ratios)} less than minimum 4.")
    for r in ratios:
        if r < 1.0:
            raise ValueError(f"pooling_ratio cannot be smaller than 1, got: {r:g} for "
                             f"'{node}'")
    return ratios


def _check_type(x, node: str) -> None:
    if x.dtype not in FRACTIONAL_POOL_TYPES:
        raise TypeError(f"Value passed to parameter 'value' of '{node}' has DataType "
                        f"{x.dtype.name} not in list of allowed values: float32, float64, "
                        f"int32, int64")


def _rank4(shape: TensorShape, node: str, what: str) -> list:
    if shape.ndims is None:
        return [None] * 4
    if shape.ndims != 4:
        raise InferError(f"Shape must be rank 4 but is rank {shape.ndims} for '{node}': "
                         f"{what} {shape}.")
    return list(shape.dims)


def _infer_pool(inputs, attrs, node):
    (x,) = inputs
    _check_type(x, node)
    ratios = _ratios(attrs, node)
    dims = [None if d is None else pooled_size(d, r)
            for d, r in zip(_rank4(x.shape, node, "value"), ratios)]
    sequence = [TensorShape([None if d is None else d + 1]) for d in dims[1:3]]
    return [(x.dtype, TensorShape(dims)), (dtypes.int64, sequence[0]),
            (dtypes.int64, sequence[1])]


def _infer_max_grad(inputs, attrs, node):
    x, y, dy, rows, cols = inputs
    _check_type(x, node)
    _rank4(x.shape, node, "orig_input")
    for t in (y, dy):
        if t.dtype != x.dtype:
            raise TypeError(f"Op '{node}': '{t.name}' is {t.dtype.name}, the input "
                            f"{x.dtype.name}.")
    return x.dtype, x.shape


def _infer_avg_grad(inputs, attrs, node):
    shape, dy, rows, cols = inputs
    _check_type(dy, node)
    value = shape.value                        # the input shape, when the graph knows it
    return dy.dtype, TensorShape([int(d) for d in value]) if value is not None \
        else TensorShape([None] * 4)


register_op(OpDef("FractionalMaxPool", _infer_pool, 1, attr_defaults=_DEFAULTS,
                  stateful=True))
register_op(OpDef("FractionalAvgPool", _infer_pool, 1, attr_defaults=_DEFAULTS,
                  stateful=True))
register_op(OpDef("FractionalMaxPoolGrad", _infer_max_grad, 5,
                  attr_defaults={"overlapping": False}))
register_op(OpDef("FractionalAvgPoolGrad", _infer_avg_grad, 4,
                  attr_defaults={"overlapping": False}, host_inputs=(0,)))


def _builder(op_type: str):
    def build(value, pooling_ratio, pseudo_random=False, overlapping=False,
              deterministic=False, seed=0, seed2=0, name=None):
        x = convert_to_tensor(value, name="value")
        op = make_op(op_type, [x], {"pooling_ratio": tuple(float(r) for r in pooling_ratio),
                                    "pseudo_random": bool(pseudo_random),
                                    "overlapping": bool(overlapping),
                                    "deterministic": bool(deterministic),
                                    "seed": int(seed), "seed2": int(seed2)},
                     name=name or op_type).op
        return tuple(op.outputs)
    build.__name__ = "fractional_max_pool" if "Max" in op_type else "fractional_avg_pool"
    build.__doc__ = (f"TF1's ``tf.nn.{build.__name__}``: ``(output, row_pooling_sequence, "
                     f"col_pooling_sequence)`` of ``{op_type}`` (see the module docstring).")
    return build


fractional_max_pool = _builder("FractionalMaxPool")
fractional_avg_pool = _builder("FractionalAvgPool")
