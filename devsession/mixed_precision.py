"""TF1's ``tf.compat.v1.mixed_precision`` (also ``tf.train.experimental``): loss scales
and the optimizer wrapper that applies them (``train/loss_scale.py``,
``train/loss_scale_optimizer.py``), and the graph-rewrite switches."""

import types

from .train.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from .train.loss_scale_optimizer import (MixedPrecisionLossScaleOptimizer,
                                         disable_mixed_precision_graph_rewrite,
                                         enable_mixed_precision_graph_rewrite)

__all__ = ["LossScale", "FixedLossScale", "DynamicLossScale",
           "MixedPrecisionLossScaleOptimizer", "enable_mixed_precision_graph_rewrite",
           "disable_mixed_precision_graph_rewrite", "experimental"]

experimental = types.SimpleNamespace(      # tf.compat.v1.mixed_precision.experimental
    LossScale=LossScale, FixedLossScale=FixedLossScale, DynamicLossScale=DynamicLossScale)


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("mixed_precision", name)
