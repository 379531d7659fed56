"""``RestoreV2``, TF's op that reads tensors from a checkpoint when it runs: what
``ds.train.init_from_checkpoint`` makes a variable's initializer assign from, so that
``global_variables_initializer()`` loads those variables from a checkpoint (the file is
read when the initializer runs, not when the graph is built, as in TF).

``RestoreV2(prefix, tensor_names, shape_and_slices)``: a string scalar (the checkpoint's
prefix, devsession's or TensorFlow's) and two string vectors of one entry per output; attr
``dtypes``, one per output.  Whole tensors only: a non-empty slice spec (a partitioned
variable's part) is ``UnimplementedError`` at run time.  A missing name is TF's
``NotFoundError``, a dtype other than the checkpoint's TF's ``InvalidArgumentError``.
It runs on the host (``kernels/reference/checkpoint_io.py``); not differentiable.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph, name_scope
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["RESTORE_V2", "restore_v2"]

RESTORE_V2 = "RestoreV2"


def _infer_restore(inputs, attrs, node):
    prefix, names, slices = inputs
    types = [dtypes.as_dtype(t) for t in attrs["dtypes"]]
    if any(t.dtype != dtypes.string for t in inputs):
        raise InferError(f"Op '{node}': prefix, tensor_names and shape_and_slices must be "
                         f"strings.")
    if prefix.shape.rank not in (None, 0):
        raise InferError(f"Op '{node}': prefix must be a scalar, got shape {prefix.shape}.")
    for spec in (names, slices):
        if spec.shape.rank not in (None, 1) or \
                (spec.shape.rank == 1 and spec.shape.dims[0] not in (None, len(types))):
            raise InferError(f"Op '{node}': tensor_names and shape_and_slices must be "
                             f"vectors of {len(types)} (one per dtype), got {spec.shape}.")
    return [(t, TensorShape(None)) for t in types]


register_op(OpDef(RESTORE_V2, _infer_restore, 3, stateful=True))
not_differentiable(RESTORE_V2)


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes_, name=None) -> list:
    """TF's ``io_ops.restore_v2``: the output tensors, one per name."""
    graph = get_default_graph()
    with name_scope(name or RESTORE_V2) as scope:        # its inputs named as TF's
        inputs = [convert_to_tensor(v, dtype=dtypes.string, name=n) for v, n in
                  ((prefix, "prefix"), (list(tensor_names), "tensor_names"),
                   (list(shape_and_slices), "shape_and_slices"))]
    attrs = {"dtypes": tuple(dtypes.as_dtype(t) for t in dtypes_)}
    op = graph.create_op(RESTORE_V2, inputs, attrs, name=scope.rstrip("/"), exact_name=True)
    return list(op.outputs)
