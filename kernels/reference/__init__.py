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
``array``           Identity, Reshape, Transpose, ConcatV2, Squeeze, ExpandDims,
                    Pack, Unpack, Tile, Pad, PadV2, MirrorPad, Shape, Size, Rank, Fill,
                    ZerosLike, OnesLike (also the CPU's kernels)
``array_index``     Slice, StridedSlice, StridedSliceGrad (also the CPU's), GatherV2,
                    UnsortedSegmentSum, OneHot, AddN
``state``           Const, Placeholder, NoOp, variables, seeded random ops (also the
                    CPU's kernels)
==================  ===============================================================
"""

from . import array, array_index, elementwise, linalg, nn, reduce, state  # noqa: F401
