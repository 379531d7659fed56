"""``tf.nn.compute_average_loss`` and ``tf.nn.scale_regularization_loss``: TF's loss
scaling for replicated training, which divides by the global batch (every replica's
examples) so that the replicas' summed gradients are the mean's.

devsession has no distribution strategies, so there is one replica: the global batch
is the per-example loss's first dimension unless ``global_batch_size`` says otherwise,
and the regularization loss is summed and divided by 1, as TF computes outside a
strategy.

    compute_average_loss(per_example_loss, sample_weight, global_batch_size)
        = sum(per_example_loss * sample_weight) / global_batch_size   (0 for a batch of 0)

The weights are float32 (TF casts the losses to float32 for the product and the result
back to the losses' dtype), squeezed or expanded by one trailing dimension to the
losses' rank when both ranks are known when building (TF decides at run time with conds
otherwise; here such weights broadcast as they are).  ``global_batch_size`` must be a
non-negative integer scalar: checked when building where the graph knows it
(ValueError, TypeError), by assertions that run with the loss otherwise
(InvalidArgumentError).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import control_dependencies, convert_to_tensor
from .array import expand_dims, squeeze
from .array_fill import shape
from .assertions import (assert_integer, assert_non_negative, assert_rank_at_least,
                         assert_scalar)
from .elementwise import cast, div_no_nan, multiply
from .reduce import reduce_sum

__all__ = ["compute_average_loss", "scale_regularization_loss"]


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The summed (weighted) per-example loss over the global batch size (see the module
    docstring).  Raises ValueError for a per-example loss of rank 0."""
    loss = convert_to_tensor(per_example_loss)
    input_dtype = loss.dtype
    if loss.shape.ndims == 0:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor "
                         f"with at least rank 1. Received per_example_loss={loss} with "
                         f"rank 0")
    checks = [] if loss.shape.ndims is not None else [assert_rank_at_least(
        loss, 1, message="Invalid value passed for `per_example_loss`. Expected a tensor "
                         "with at least rank 1.")]
    with control_dependencies(checks):
        if sample_weight is not None:
            loss = _scale_by_sample_weight(loss, convert_to_tensor(sample_weight))
        loss = cast(loss, input_dtype)
        if global_batch_size is None:
            global_batch_size = shape(loss)[0]       # one replica
        global_batch_size = convert_to_tensor(global_batch_size)
        # The rank and dtype are known when building: these raise then or return nothing
        # to wait for (TF's _v2 assertions return None).
        assert_scalar(global_batch_size, message="global_batch_size must be scalar.")
        assert_integer(global_batch_size, message="global_batch_size must be an integer.")
        with control_dependencies([assert_non_negative(
                global_batch_size, message="global_batch_size must be non-negative.")]):
            return div_no_nan(reduce_sum(loss), cast(global_batch_size, input_dtype))


def _scale_by_sample_weight(losses, sample_weight):
    """TF's ``scale_losses_by_sample_weight``: float32 losses times float32 weights whose
    rank is made the losses' where they differ by one trailing dimension."""
    losses = cast(losses, dtypes.float32)
    sample_weight = cast(sample_weight, dtypes.float32)
    loss_rank, weight_rank = losses.shape.ndims, sample_weight.shape.ndims
    if weight_rank not in (None, 0) and loss_rank is not None:
        if weight_rank - loss_rank == 1:
            sample_weight = squeeze(sample_weight, [-1])
        elif loss_rank - weight_rank == 1:
            sample_weight = expand_dims(sample_weight, -1)
    return multiply(losses, sample_weight)


def scale_regularization_loss(regularization_loss):
    """The summed regularization loss over the number of replicas (1 in devsession)."""
    return reduce_sum(regularization_loss) / 1
