"""TF's sparse feature crosses, the op types and attrs TensorFlow writes: every
combination of one value from each of several features of a batch row, a SparseTensor
``[batch, crosses]`` (wide models' feature crosses, ``feature_column.crossed_column``).

All three take ``indices: N``, ``values: sparse_types``, ``shapes: N`` (the sparse
features, rank 2, their entries grouped by row in row order) and ``dense_inputs:
dense_types`` (``[batch, k]`` matrices), each of int64 or string values:

* ``SparseCross``, attrs ``hashed_output``, ``num_buckets``, ``hash_key``,
  ``out_type``, ``internal_type``: the values joined by ``"_X_"`` (strings), or
  hashed (``tf.sparse.cross_hashed``: ``FingerprintCat64`` chained from ``hash_key``
  over each value's Fingerprint64, an integer taken as it is, modulo ``num_buckets``);
* ``SparseCrossV2(..., sep)``: the values joined by the string ``sep``
  (``tf.sparse.cross``);
* ``SparseCrossHashed(..., num_buckets, strong_hash, salt)``: the chain starting at the
  first value's hash, SipHash keyed by ``salt`` when ``strong_hash`` (Keras' hashed
  crossing layer).

Kernels: ``kernels/reference/sparse_cross.py`` (host; the GPU's sessions run them
there).  Not differentiable (int64 and string outputs).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..sparse_tensor import SparseTensor, SparseTensorValue
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op
from .sparse import check_sparse_inputs, with_rank

__all__ = ["CROSS_OPS", "sparse_cross", "sparse_cross_hashed", "DEFAULT_HASH_KEY"]

CROSS_OPS = ("SparseCross", "SparseCrossV2", "SparseCrossHashed")
DEFAULT_HASH_KEY = 0xDECAFCAFFE      # TF's key of tf.sparse.cross_hashed and crossed_column
_FEATURE_TYPES = (dtypes.int64, dtypes.string)


def split_cross_inputs(inputs: list, attrs, extra: int) -> tuple[list, list, list, list]:
    """A cross node's inputs as (indices, values, shapes, dense inputs), ``extra``
    trailing scalar inputs left off."""
    n = int(attrs.get("N", 0))
    dense = len(attrs.get("dense_types", ()))
    if len(inputs) != 3 * n + dense + extra:
        raise InferError(f"{len(inputs)} inputs for N={n} sparse and {dense} dense features")
    return (inputs[:n], inputs[n:2 * n], inputs[2 * n:3 * n],
            inputs[3 * n:3 * n + dense])


def _infer(extra: int, values_dtype=None, scalars=None):
    """The shape function of a cross with ``extra`` trailing inputs, the first
    ``scalars`` of them (by default all) scalars."""
    scalars = extra if scalars is None else scalars

    def infer(inputs, attrs, node):
        try:
            indices, values, shapes, dense = split_cross_inputs(inputs, attrs, extra)
        except InferError as error:
            raise InferError(f"Op '{node}': {error}.") from None
        for k in range(len(indices)):
            check_sparse_inputs(indices[k], values[k], shapes[k], node)
        for tensor in values + dense:
            if tensor.dtype not in _FEATURE_TYPES:
                raise TypeError(f"Op '{node}': a crossed feature must be int64 or string, "
                                f"not {tensor.dtype.name} ('{tensor.name}').")
        for tensor in dense:
            with_rank(tensor, 2, node, "dense_inputs")
        for tensor in inputs[len(inputs) - extra:][:scalars]:
            with_rank(tensor, 0, node, "input")
        if scalars < extra:
            with_rank(inputs[-1], 1, node, "salt")
        out = values_dtype or dtypes.as_dtype(attrs["out_type"])
        return [(dtypes.int64, TensorShape([None, 2])), (out, TensorShape([None])),
                (dtypes.int64, TensorShape([2]))]
    return infer


register_op(OpDef("SparseCross", _infer(0), None))
register_op(OpDef("SparseCrossV2", _infer(1, dtypes.string), None))
register_op(OpDef("SparseCrossHashed", _infer(3, dtypes.int64, scalars=2), None))
not_differentiable(*CROSS_OPS)


# --- builders --------------------------------------------------------------------------------

def _features(inputs) -> tuple[list, list, list, list]:
    """TF's split of ``inputs`` into the sparse features' parts and the dense features,
    integer values as int64."""
    from .elementwise import cast

    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    inputs = [SparseTensor.from_value(i) if isinstance(i, SparseTensorValue) else i
              for i in inputs]
    if not all(isinstance(i, (SparseTensor, Tensor)) for i in inputs):
        raise TypeError("All inputs must be Tensor or SparseTensor.")

    def as_feature(tensor):
        tensor = convert_to_tensor(tensor)
        return tensor if tensor.dtype in _FEATURE_TYPES else cast(tensor, dtypes.int64)

    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [as_feature(i) for i in inputs if not isinstance(i, SparseTensor)]
    return ([s.indices for s in sparse], [as_feature(s.values) for s in sparse],
            [s.dense_shape for s in sparse], dense)


def _cross_op(op_type, inputs, attrs, extra, name):
    indices, values, shapes, dense = _features(inputs)
    parts = indices + values + shapes + dense
    if not parts:
        raise ValueError("sparse cross needs at least one input")
    attrs = dict(attrs, N=len(indices), sparse_types=tuple(v.dtype for v in values),
                 dense_types=tuple(d.dtype for d in dense))
    op = parts[0].graph.create_op(op_type, parts + [convert_to_tensor(e) for e in extra],
                                  attrs, name=name or op_type)
    return SparseTensor(*op.outputs)


def sparse_cross(inputs, name=None, separator=None) -> SparseTensor:
    """``tf.sparse.cross``: for each batch row every combination of one value from each
    input (SparseTensors and ``[batch, k]`` tensors, int64 or string; sparse ones
    first), the values joined by ``separator`` (default ``"_X_"``), a string
    SparseTensor ``[batch, most crosses of a row]`` (``SparseCrossV2``)."""
    separator = convert_to_tensor("_X_" if separator is None else separator, dtypes.string)
    return _cross_op("SparseCrossV2", inputs, {}, [separator], name)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> SparseTensor:
    """``tf.sparse.cross_hashed``: ``sparse_cross``'s combinations hashed (TF's
    ``FingerprintCat64`` chain from ``hash_key`` over the values' Fingerprint64s, an
    integer value taken as it is) modulo ``num_buckets`` (0: modulo 2**63 - 1), an
    int64 SparseTensor (``SparseCross`` with ``hashed_output``)."""
    return _sparse_cross_v1(inputs, True, num_buckets, hash_key, name)


def _sparse_cross_v1(inputs, hashed_output, num_buckets=0, hash_key=None, name=None):
    """TF's ``SparseCross`` node, as ``sparse_ops._sparse_cross_internal`` builds it."""
    indices, values, _, dense = _features(inputs)
    internal = (dtypes.int64 if any(t.dtype == dtypes.int64 for t in values + dense)
                else dtypes.string)
    attrs = {"hashed_output": bool(hashed_output), "num_buckets": int(num_buckets),
             "hash_key": int(hash_key or DEFAULT_HASH_KEY),
             "out_type": dtypes.int64 if hashed_output else dtypes.string,
             "internal_type": internal}
    return _cross_op("SparseCross", inputs, attrs, [], name)
