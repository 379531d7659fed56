"""TF1's ``tf.is_symbolic_tensor``: whether a value is a graph Tensor (in TF1's graph
mode, every Tensor is symbolic; a Variable, a numpy array or a Python value is not)."""

from __future__ import annotations

from .graph import Tensor

__all__ = ["is_symbolic_tensor"]


def is_symbolic_tensor(tensor) -> bool:
    return isinstance(tensor, Tensor)
