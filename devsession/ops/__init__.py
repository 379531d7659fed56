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
``array``          ``identity``, ``reshape``, ``transpose``, ``concat``, ``squeeze``,
                   ``expand_dims``, ``stack``, ``unstack``, ``tile``, ``pad`` (and
                   ``array_index``: ``slice``, ``strided_slice``, indexing, ``gather``,
                   ``embedding_lookup``, ``unsorted_segment_sum``, ``one_hot``;
                   ``array_fill``: ``shape``, ``size``, ``rank``, ``fill``, ``zeros``,
                   ``ones``, ``zeros_like``, ``ones_like``, ``add_n``, ``clip_by_value``)
``state``          ``constant``, ``placeholder``, ``no_op``, ``group``, variables' ops,
                   ``random_uniform``, ``random_normal``
``operators``      the Tensor operators (``+ - * / ** @``, comparisons)
=================  ===================================================================

``common`` holds what the families share; importing this package registers every op.
"""

from .array import (concat, expand_dims, identity, pad, reshape, squeeze, stack, tile,
                    transpose, unstack)
from .array_fill import (add_n, clip_by_value, fill, ones, ones_like, rank, shape, size,
                         zeros, zeros_like)
from .array_index import (embedding_lookup, gather, one_hot, slice, strided_slice,
                          unsorted_segment_sum)
from .elementwise import (abs, add, cast, divide, equal, exp, greater, greater_equal, less,
                          less_equal, log, maximum, minimum, multiply, negative, pow, relu,
                          sigmoid, sqrt, square, subtract, tanh, truediv, where)
from .linalg import matmul
from .nn import softmax
from .reduce import argmax, reduce_max, reduce_mean, reduce_min, reduce_sum
from .state import (constant, group, no_op, placeholder, random_normal, random_uniform)
from . import operators  # noqa: F401  (installs the Tensor operators)
from . import array_grad  # noqa: F401  (registers the array family's gradients)

__all__ = [
    "concat", "identity", "reshape", "transpose", "abs", "add", "cast", "divide", "equal",
    "exp", "greater", "greater_equal", "less", "less_equal", "log", "maximum", "minimum",
    "multiply", "negative", "pow", "relu", "sigmoid", "sqrt", "square", "subtract", "tanh",
    "truediv", "where", "matmul", "softmax", "argmax", "reduce_max", "reduce_mean",
    "reduce_min", "reduce_sum", "constant", "group", "no_op", "placeholder", "random_normal",
    "random_uniform",
    "expand_dims", "pad", "squeeze", "stack", "tile", "unstack", "add_n", "clip_by_value",
    "fill", "ones", "ones_like", "rank", "shape", "size", "zeros", "zeros_like",
    "embedding_lookup", "gather", "one_hot", "slice", "strided_slice",
    "unsorted_segment_sum",
]

from .elementwise import logical_and  # noqa: E402

__all__ += ["logical_and"]
