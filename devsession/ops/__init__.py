"""Every op devsession knows, one module per family.

Each family module holds the family's ``OpDef``s (inputs, attrs, dtype and static-shape
inference, registered in ``registry.py``) beside the builder functions users call
(``ds.add``, ``ds.reduce_sum``, ...).  The same family names are used for the kernels
(``kernels/{reference,cpu,cuda}/<family>.py``):

=================  ===================================================================
``elementwise``    unary and binary math, comparisons, ``where``, ``cast``
``reduce``         ``reduce_sum/mean/max/min``, ``argmax``
``linalg``         ``matmul``
``nn``             ``softmax``
``array``          ``identity``, ``reshape``, ``transpose``, ``concat``, ``stop_gradient``
``state``          ``constant``, ``placeholder``, ``no_op``, ``group``, variables' ops,
                   ``assign``/``assign_add``/``assign_sub``, ``random_uniform``,
                   ``random_normal``
``shape_of``       internal ops taking a shape from a tensor at run time, for gradients
``training``       the optimizers' fused updates (``ApplyAdam``...), built by ``ds.train``
``operators``      the Tensor operators (``+ - * / ** @``, comparisons)
=================  ===================================================================

``<family>_grad`` modules hold each family's gradient functions (``state_grad``: the
variables' non-differentiable ops).  ``common`` holds what the families share; importing
this package registers every op and every gradient.
"""

from .array import concat, identity, reshape, stop_gradient, transpose
from .elementwise import (abs, add, cast, divide, equal, exp, greater, greater_equal, less,
                          less_equal, log, maximum, minimum, multiply, negative, pow, relu,
                          sigmoid, sqrt, square, subtract, tanh, truediv, where)
from .linalg import matmul
from .nn import softmax
from .reduce import argmax, reduce_max, reduce_mean, reduce_min, reduce_sum
from .state import (assign, assign_add, assign_sub, constant, group, no_op, placeholder,
                    random_normal, random_uniform)
from . import operators  # noqa: F401  (installs the Tensor operators)
from . import shape_of, training  # noqa: F401  (ops for gradients and optimizers)
from . import (array_grad, elementwise_grad, linalg_grad, nn_grad,  # noqa: F401  (register
               reduce_grad, shape_of_grad, state_grad)                # the gradients)

__all__ = [
    "concat", "identity", "reshape", "transpose", "abs", "add", "cast", "divide", "equal",
    "exp", "greater", "greater_equal", "less", "less_equal", "log", "maximum", "minimum",
    "multiply", "negative", "pow", "relu", "sigmoid", "sqrt", "square", "subtract", "tanh",
    "truediv", "where", "matmul", "softmax", "argmax", "reduce_max", "reduce_mean",
    "reduce_min", "reduce_sum", "constant", "group", "no_op", "placeholder", "random_normal",
    "random_uniform", "stop_gradient", "assign", "assign_add", "assign_sub",
]

from .elementwise import logical_and  # noqa: E402

__all__ += ["logical_and"]
