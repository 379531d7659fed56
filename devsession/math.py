"""TF1's ``tf.math`` spellings of the math ops."""

from .ops import (abs, add, argmax, divide, equal, exp, greater, greater_equal, less,
                      less_equal, log, maximum, minimum, multiply, negative, pow,
                      reduce_max, reduce_mean, reduce_min, reduce_sum, sigmoid, softmax, sqrt,
                      square, subtract, tanh, truediv)

__all__ = ["abs", "add", "argmax", "divide", "equal", "exp", "greater", "greater_equal",
           "less", "less_equal", "log", "maximum", "minimum", "multiply", "negative", "pow",
           "reduce_max", "reduce_mean", "reduce_min", "reduce_sum", "sigmoid", "softmax",
           "sqrt", "square", "subtract", "tanh", "truediv"]

from .ops import logical_and  # noqa: E402

__all__ += ["logical_and"]
