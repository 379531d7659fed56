"""TF's two hashing ops beside the FarmHash and SipHash buckets of ``strings.py``:

==========================  ===========================================================
op (attrs)                  builder
==========================  ===========================================================
StringToHashBucket          ``string_to_hash_bucket`` / ``strings.to_hash_bucket``: TF's
(num_buckets)               own ``Hash64`` (MurmurHash64A seeded 0xDECAFCAFFE) of each
                            string modulo ``num_buckets`` (int64): TF1's first bucket op,
                            deprecated for ``..._fast`` but still in old graphs
Fingerprint (T)             ``fingerprint``: ``[rows, 8]`` uint8, each row's FarmHash
                            Fingerprint64 in little-endian bytes; a row of numbers is
                            fingerprinted as its bytes, a row of several strings as the
                            bytes of its strings' fingerprints (``method`` must be
                            ``"farmhash64"``)
==========================  ===========================================================

Kernels on the host (``kernels/reference/string_hashing.py``); neither differentiable."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op
from .strings import _infer_hash

__all__ = ["string_to_hash_bucket", "fingerprint", "method_bytes", "STRING_HASHING_OPS",
           "FINGERPRINT_METHODS"]

STRING_HASHING_OPS = ("StringToHashBucket", "Fingerprint")
FINGERPRINT_METHODS = (b"farmhash64",)


def method_bytes(value) -> bytes:
    """A ``method`` value (a str or bytes scalar, or an array of one) as bytes."""
    item = np.asarray(value, dtype=object).reshape(-1)[0]
    return item.encode() if isinstance(item, str) else bytes(item)


def _infer_fingerprint(inputs, attrs, node):
    data, method = inputs
    if method.dtype != dtypes.string:
        raise TypeError(f"Op '{node}': method must be a string, not {method.dtype.name}.")
    if data.shape.ndims == 0:
        raise InferError(f"Shape must be at least rank 1 but is rank 0 for '{node}' "
                         f"(op: 'Fingerprint').")
    known = None if method.value is None else method_bytes(method.value)
    if known is not None and known not in FINGERPRINT_METHODS:
        raise InferError(f"Unsupported method: {known.decode(errors='replace')} for "
                         f"'{node}' (op: 'Fingerprint').")
    rows = data.shape.dims[0] if data.shape.ndims else None
    return dtypes.uint8, TensorShape([rows, 8])


register_op(OpDef("StringToHashBucket", _infer_hash, 1))
register_op(OpDef("Fingerprint", _infer_fingerprint, 2, host_inputs=(1,)))
for _op_type in STRING_HASHING_OPS:
    not_differentiable(_op_type)


def string_to_hash_bucket(string_tensor=None, num_buckets=None, name=None,
                          input=None) -> Tensor:  # noqa: A002  (TF's newer name)
    """TF1's ``tf.string_to_hash_bucket`` / ``tf.strings.to_hash_bucket``: each string's
    TF ``Hash64`` modulo ``num_buckets`` (int64); ValueError for fewer than one bucket.
    ``input`` is TF 2's name for ``string_tensor``."""
    value = input if input is not None else string_tensor
    with name_scope(name or "StringToHashBucket") as scope:
        x = convert_to_tensor(value, dtype=dtypes.string, name="string_tensor")
        return make_op("StringToHashBucket", [x], {"num_buckets": int(num_buckets)},
                       name=scope)


def fingerprint(data, method="farmhash64", name=None) -> Tensor:
    """TF's ``tf.fingerprint``: ``[rows, 8]`` uint8 fingerprints of the rows of ``data``
    (rank >= 1; see the module docstring).  ValueError for a scalar or another method."""
    with name_scope(name or "Fingerprint") as scope:
        x = convert_to_tensor(data, name="data")
        how = convert_to_tensor(method, dtype=dtypes.string, name="method")
        return make_op("Fingerprint", [x, how], name=scope)
