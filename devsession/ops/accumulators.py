"""TF1's conditional accumulator ops (``ConditionalAccumulator``,
``AccumulatorApplyGradient``, ``AccumulatorTakeGradient``...), the graph side of
``ds.ConditionalAccumulator`` and ``ds.SparseConditionalAccumulator``
(``devsession/accumulators.py``), on which ``SyncReplicasOptimizer`` gathers its
replicas' gradients.

As a queue op does (``ops/queues.py``), the accumulator op makes the accumulator in the
session's resources on its first run and outputs its handle, a string scalar (TF's is a
``Ref(string)``); every other op takes that handle first.  A take's static shape is the
accumulator's ``shape`` attr, found through the handle's producer (TF's Python sets it
the same way).  ``AccumulatorTakeGradient`` and ``SparseAccumulatorTakeGradient`` wait
for gradients (``blocks``).  All run on the host (``kernels/reference/accumulators.py``);
none is differentiable.  Accumulators hold float16, float32 or float64 gradients, the
dtypes TF registers their kernels for.
"""

from __future__ import annotations

from ..dtypes import float16, float32, float64, int32, int64, string
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["ACCUMULATOR_TYPES", "accumulator_shape"]

ACCUMULATOR_TYPES = ("ConditionalAccumulator", "SparseConditionalAccumulator")
_DTYPES = (float16, float32, float64)
_ATTRS = {"shape": TensorShape(None), "container": "", "shared_name": "",
          "reduction_type": "MEAN"}


def _make_accumulator(inputs, attrs, node):
    dtype = attrs.get("dtype")
    if dtype not in _DTYPES:
        raise InferError(f"Op '{node}': an accumulator holds float16, float32 or float64 "
                         f"gradients, not {getattr(dtype, 'name', dtype)}.")
    if attrs.get("reduction_type", "MEAN") not in ("MEAN", "SUM"):
        raise InferError(f"Op '{node}': Value for attr 'reduction_type' of "
                         f"\"{attrs['reduction_type']}\" is not in the list of allowed "
                         f"values: \"MEAN\", \"SUM\"")
    return string, TensorShape([])


def accumulator_shape(handle_spec) -> TensorShape:
    """The ``shape`` attr of the accumulator ``handle_spec`` (an InputSpec) names, when
    its producer is an accumulator op of this graph; unknown otherwise."""
    op = getattr(handle_spec.tensor, "op", None)
    if op is None or op.type not in ACCUMULATOR_TYPES:
        return TensorShape(None)
    return TensorShape(op.attrs.get("shape"))


def _check(inputs, attrs, node, scalars: dict) -> None:
    """The handle first; ``scalars``: position -> (what, dtype) of scalar inputs."""
    handle = inputs[0] if inputs else None
    if handle is None or handle.dtype != string or handle.shape.rank not in (None, 0):
        raise InferError(f"Op '{node}': its first input must be an accumulator's handle.")
    for position, (what, dtype) in scalars.items():
        spec = inputs[position]
        if spec.dtype != dtype:
            raise InferError(f"Op '{node}': {what} must be {dtype.name}, got "
                             f"{spec.dtype.name}.")
        if spec.shape.rank not in (None, 0):
            raise InferError(f"Op '{node}': Shape must be rank 0 but is rank "
                             f"{spec.shape.rank} for {what}.")


def _checked_values(spec, attrs, node) -> None:
    if spec.dtype != attrs.get("dtype"):
        raise InferError(f"Op '{node}': the gradient is {spec.dtype.name}, the accumulator "
                         f"takes {getattr(attrs.get('dtype'), 'name', None)}.")


def _apply(inputs, attrs, node):
    _check(inputs, attrs, node, {1: ("local_step", int64)})
    _checked_values(inputs[2], attrs, node)
    shape = accumulator_shape(inputs[0])
    if not inputs[2].shape.is_compatible_with(shape):
        raise InferError(f"Shapes {inputs[2].shape} and {shape} are incompatible")
    return None


def _take(inputs, attrs, node):
    _check(inputs, attrs, node, {1: ("num_required", int32)})
    return attrs["dtype"], accumulator_shape(inputs[0])


def _num_accumulated(inputs, attrs, node):
    _check(inputs, attrs, node, {})
    return int32, TensorShape([])


def _set_global_step(inputs, attrs, node):
    _check(inputs, attrs, node, {1: ("new_global_step", int64)})
    return None


def _sparse_apply(inputs, attrs, node):
    _check(inputs, attrs, node, {1: ("local_step", int64)})
    _checked_values(inputs[3], attrs, node)
    for position, what in ((2, "gradient_indices"), (4, "gradient_shape")):
        if inputs[position].dtype != int64:
            raise InferError(f"Op '{node}': {what} must be int64, got "
                             f"{inputs[position].dtype.name}.")
    return None


def _sparse_take(inputs, attrs, node):
    _check(inputs, attrs, node, {1: ("num_required", int32)})
    return [(int64, TensorShape([None])), (attrs["dtype"], TensorShape(None)),
            (int64, TensorShape([None]))]


register_op(OpDef("ConditionalAccumulator", _make_accumulator, 0, stateful=True,
                  attr_defaults=_ATTRS))
register_op(OpDef("SparseConditionalAccumulator", _make_accumulator, 0, stateful=True,
                  attr_defaults=_ATTRS))
register_op(OpDef("AccumulatorApplyGradient", _apply, 3, stateful=True, has_output=False))
register_op(OpDef("AccumulatorTakeGradient", _take, 2, stateful=True, blocks=True,
                  host_inputs=(1,)))
register_op(OpDef("AccumulatorNumAccumulated", _num_accumulated, 1, stateful=True))
register_op(OpDef("AccumulatorSetGlobalStep", _set_global_step, 2, stateful=True,
                  has_output=False))
register_op(OpDef("SparseAccumulatorApplyGradient", _sparse_apply, 5, stateful=True,
                  has_output=False, attr_defaults={"has_known_shape": False}))
register_op(OpDef("SparseAccumulatorTakeGradient", _sparse_take, 2, stateful=True,
                  blocks=True, host_inputs=(1,)))
not_differentiable("AccumulatorApplyGradient", "AccumulatorTakeGradient",
                   "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep",
                   "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient")
