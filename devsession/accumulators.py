"""TF1's conditional accumulators: ``ds.ConditionalAccumulator`` and
``ds.SparseConditionalAccumulator`` (also ``ds.sparse.SparseConditionalAccumulator``),
the graph-building side of ``ops/accumulators.py``.

An accumulator gathers the gradients several replicas computed for one step and hands
out their average once enough are in; ``SyncReplicasOptimizer`` keeps one per variable.
A gradient comes with the ``local_step`` it was computed at: one older than the
accumulator's global step is stale and dropped.  ``take_grad(n)`` waits until ``n``
fresh gradients are in, returns their average, and moves the accumulator to the next
step.  The state and its waiting live in the session (``runtime/accumulators.py``).

    acc = ds.ConditionalAccumulator(ds.float32, shape=[2], shared_name="w/grad_accum")
    push = acc.apply_grad(grad, local_step=step)       # on each replica
    average = acc.take_grad(2)                          # on the chief: waits for two
"""

from __future__ import annotations

import collections

from . import dtypes
from .graph import Tensor, convert_to_tensor, get_default_graph
from .ops.accumulators import ACCUMULATOR_TYPES  # (importing it registers the ops)
from .ops.elementwise import cast
from .tensor_shape import TensorShape

__all__ = ["ConditionalAccumulatorBase", "ConditionalAccumulator",
           "SparseConditionalAccumulator"]

# what SparseConditionalAccumulator.take_grad returns, named as TF's generated op's
SparseAccumulatorTakeGradient = collections.namedtuple(
    "SparseAccumulatorTakeGradient", ["indices", "values", "shape"])


class ConditionalAccumulatorBase:
    """What both accumulators do; made by the subclasses, or from a handle
    (``ConditionalAccumulatorBase(dtype, shape, accumulator_ref)``), as TF1's."""

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtypes.as_dtype(dtype)
        self._shape = TensorShape(shape) if shape is not None else TensorShape(None)
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    accumulator_ref = property(lambda self: self._accumulator_ref)
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)

    def num_accumulated(self, name=None) -> Tensor:
        """How many gradients the accumulator holds now (int32)."""
        return self._op("AccumulatorNumAccumulated", [], name or f"{self._name}_NumAccumulated",
                        {}).outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """The op moving the accumulator's global step to ``new_global_step`` (a smaller
        one than it has is allowed, with a warning, as TF's)."""
        return self._op("AccumulatorSetGlobalStep", [_int64(new_global_step)], name, {})

    def _op(self, op_type, inputs, name, attrs):
        """An op on this accumulator, placed with it (as TF places every user of a
        resource)."""
        graph = self._accumulator_ref.graph
        with graph.colocate_with(self._accumulator_ref):
            return graph.create_op(op_type, [self._accumulator_ref, *inputs], attrs,
                                   name=name)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Accumulates dense gradients of ``shape`` (float16, float32 or float64)."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        handle = _make("ConditionalAccumulator", dtype, shape, shared_name, name,
                       reduction_type)
        super().__init__(dtype, shape, handle)

    def apply_grad(self, grad, local_step=0, name=None):
        """The op adding ``grad`` unless it is stale (``local_step`` below the
        accumulator's global step).  ValueError for a shape that cannot fit the
        accumulator's."""
        grad = convert_to_tensor(grad, dtype=self._dtype, graph=self._accumulator_ref.graph)
        if not grad.shape.is_compatible_with(self._shape):
            raise ValueError(f"Shapes {grad.shape} and {self._shape} are incompatible")
        return self._op("AccumulatorApplyGradient", [_int64(local_step), grad], name,
                        {"dtype": self._dtype})

    def take_grad(self, num_required, name=None) -> Tensor:
        """The average of the gradients, once at least ``num_required`` are in; running
        it also empties the accumulator and moves its global step up by one.
        ``InvalidArgumentError`` when run with ``num_required`` < 1."""
        count = convert_to_tensor(num_required, dtype=dtypes.int32,
                                  graph=self._accumulator_ref.graph)
        return self._op("AccumulatorTakeGradient", [count], name,
                        {"dtype": self._dtype}).outputs[0]


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Accumulates sparse gradients: rows (``values``) at ``indices`` of a tensor of
    ``shape``; each row of the result is the average over the gradients that held it."""

    def __init__(self, dtype, shape=None, shared_name=None,
                 name="sparse_conditional_accumulator", reduction_type="MEAN"):
        handle = _make("SparseConditionalAccumulator", dtype, shape, shared_name, name,
                       reduction_type)
        super().__init__(dtype, shape, handle)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0,
                   name=None):
        """The op adding the rows ``grad_values`` at ``grad_indices`` (a vector) unless
        stale; ``grad_shape``, when given, is checked against the accumulator's shape
        when it runs (``InvalidArgumentError``)."""
        graph = self._accumulator_ref.graph
        indices = _int64(convert_to_tensor(grad_indices, graph=graph))
        values = convert_to_tensor(grad_values, dtype=self._dtype, graph=graph)
        dense_shape = _int64(convert_to_tensor([] if grad_shape is None else grad_shape,
                                               dtype_hint=dtypes.int64, graph=graph))
        return self._op("SparseAccumulatorApplyGradient",
                        [_int64(local_step), indices, values, dense_shape], name,
                        {"dtype": self._dtype, "has_known_shape": grad_shape is not None})

    def take_grad(self, num_required, name=None):
        """``(indices, values, shape)`` of the averaged gradient, once at least
        ``num_required`` are in (then the accumulator starts the next step): the rows
        sorted by index, and the shape's first dimension the accumulator's (-1 when
        unknown), the others the values'."""
        count = convert_to_tensor(num_required, dtype=dtypes.int32,
                                  graph=self._accumulator_ref.graph)
        op = self._op("SparseAccumulatorTakeGradient", [count], name, {"dtype": self._dtype})
        return SparseAccumulatorTakeGradient(*op.outputs)


def _make(op_type, dtype, shape, shared_name, name, reduction_type) -> Tensor:
    assert op_type in ACCUMULATOR_TYPES, op_type
    attrs = {"dtype": dtypes.as_dtype(dtype),
             "shape": TensorShape(shape) if shape is not None else TensorShape(None),
             "container": "", "shared_name": shared_name or "",
             "reduction_type": reduction_type}
    return get_default_graph().create_op(op_type, [], attrs, name=name).outputs[0]


def _int64(value) -> Tensor:
    """``value`` as an int64 tensor (a Cast when it is another integer type, as TF1's)."""
    value = convert_to_tensor(value)
    return value if value.dtype == dtypes.int64 else cast(value, dtypes.int64)
