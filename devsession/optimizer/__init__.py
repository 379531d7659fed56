"""The graph optimizer: rewrites the ops of one plan before kernels are built.

Runs once per cached plan (never on the hot path), on the pruned, placed op list:

1. ``cse``: common subexpression elimination merges ops that compute the same thing
   (same type, attrs, inputs and device; never stateful ops);
2. ``constant_folding``: runs subgraphs that depend only on constants at plan time and
   bakes their results in (up to ``constant_folding_max_elements`` per result);
3. ``pool_gradients`` (with fusion): folds a max-pool's gradient, the gradient of the
   ReLU before the pool and the bias's gradient into one pass on the CPU;
4. ``bias_folds`` (with fusion): folds the bias and ReLU after a convolution or a
   dense layer's product into it on the CPU;
5. ``fusion``: turns each connected region of elementwise ops on one device into one
   generated kernel that reads its inputs once and writes its output once;
6. ``gemm_updates`` (with fusion): folds a weight gradient's product into its SGD update
   (one BLAS call that accumulates into the variable) or its Adam update (the gradient
   made and used a block of rows at a time, in cache) on the CPU.

Every pass maps ``PlanOp``s to ``PlanOp``s (``ir.py``): op-like records that share the
original ``Tensor`` objects, so a fused or folded op still produces the tensor its
consumers and the fetches name.  Each pass can be switched off through
``SessionOptions(optimizer=OptimizerOptions(...))``, and results are the same either way.
"""

from __future__ import annotations

from .ir import PlanOp, from_operations
from .pipeline import optimize

__all__ = ["PlanOp", "from_operations", "optimize"]
