"""TF's ``to_snake_case``: the default name of a layer or an RNN cell subclass, made from
its class name ("Conv2DTranspose" -> "conv2d_transpose", "MinimalRNNCell" ->
"minimal_rnn_cell"); a leaf module, so ``layers_classes`` and ``rnn`` share it."""

from __future__ import annotations

import re

__all__ = ["to_snake_case"]


def to_snake_case(name: str) -> str:
    words = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub(r"([a-z])([A-Z])", r"\1_\2", words).lower()
    return snake if not snake.startswith("_") else "private" + snake
