"""TF1's ``tf.nn`` spellings, so ported code needs only its import changed."""

from .ops import relu, sigmoid, softmax, tanh
from .ops import embedding_lookup

__all__ = ["relu", "sigmoid", "softmax", "tanh"]
__all__ += ["embedding_lookup"]
