"""``tf.edit_distance``: TF's ``EditDistance`` op, the Levenshtein distance between the
sequences of two SparseTensors (hypothesis and truth), one per position of their leading
dimensions, each sequence the values of one position in the order of the last
dimension.  The output is float32 with the leading dimensions (each the larger of the
two dense shapes').  ``normalize`` divides by the truth's length: an empty truth gives
inf against a non-empty hypothesis, and 0 against an empty one (TF's).  The values of the
two must be of one dtype (TypeError when built, TF's message).  Not differentiable.
Kernel: ``kernels/reference/edit_distance.py`` (on the host)."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, name_scope
from ..sparse_tensor import SparseTensor, SparseTensorValue
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op
from .sparse import check_sparse_inputs

__all__ = ["edit_distance", "EDIT_DISTANCE"]

EDIT_DISTANCE = "EditDistance"


def _infer_edit_distance(inputs, attrs, node):
    hyp_indices, hyp_values, hyp_shape, truth_indices, truth_values, truth_shape = inputs
    if truth_values.dtype != hyp_values.dtype:
        raise TypeError(f"Input 'truth_values' of 'EditDistance' Op has type "
                        f"{truth_values.dtype.name} that does not match type "
                        f"{hyp_values.dtype.name} of argument 'hypothesis_values'.")
    shapes = [check_sparse_inputs(hyp_indices, hyp_values, hyp_shape, node),
              check_sparse_inputs(truth_indices, truth_values, truth_shape, node)]
    if any(s.ndims is None for s in shapes):
        return dtypes.float32, TensorShape(None)
    if shapes[0].ndims != shapes[1].ndims:
        raise InferError(f"Op '{node}': the hypothesis and truth are of ranks "
                         f"{shapes[0].ndims} and {shapes[1].ndims}; they must be equal.")
    dims = [None if a is None or b is None else max(a, b)
            for a, b in zip(shapes[0].dims[:-1], shapes[1].dims[:-1])]
    return dtypes.float32, TensorShape(dims)


register_op(OpDef(EDIT_DISTANCE, _infer_edit_distance, 6, attr_defaults={"normalize": True}))
not_differentiable(EDIT_DISTANCE)


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance") -> Tensor:
    """The edit distance of each sequence of ``hypothesis`` from ``truth`` (SparseTensors;
    see the module docstring)."""
    for sparse, what in ((hypothesis, "Hypothesis"), (truth, "Truth")):
        if not isinstance(sparse, (SparseTensor, SparseTensorValue)):
            raise TypeError(f"{what} must be a SparseTensor.")
    with name_scope(None):
        hyp, ref = SparseTensor.from_value(hypothesis), SparseTensor.from_value(truth)
    return make_op(EDIT_DISTANCE, [hyp.indices, hyp.values, hyp.dense_shape, ref.indices,
                                   ref.values, ref.dense_shape],
                   {"normalize": bool(normalize)}, name=name)
