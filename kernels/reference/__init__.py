"""Device type "REF": plain-numpy reference kernels, the oracle every other device is
tested against (imported lazily by the registry; never imports numba).

Each kernel is the most direct numpy formulation of the op's semantics, written for
clarity rather than speed.  One module per op family, named as the family's op
definitions in ``devsession/ops/`` and its CPU and CUDA kernels:

==================  ===============================================================
module              ops
==================  ===============================================================
``elementwise``     unary and binary math, comparisons, SelectV2, Cast
``reduce``          Sum, Mean, Max, Min, ArgMax
``linalg``          MatMul
``nn``              Softmax
``array``           Identity, Reshape, Transpose, ConcatV2 (also the CPU's kernels)
``shape_of``        the gradients' shape-of ops (also the CPU's kernels)
``training``        the optimizers' fused updates (ApplyAdam...): numpy formulas, and
                    the frame every device's update kernel runs in
``state``           Const, Placeholder, NoOp, variables, seeded random ops (also the
                    CPU's kernels)
==================  ===============================================================
"""

from . import (array, elementwise, linalg, nn, reduce, shape_of, state,  # noqa: F401  (they
               training)                                                # register)
