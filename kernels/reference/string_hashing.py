"""Kernels of ``devsession/ops/string_hashing.py``, on the host: TF's ``Hash64`` buckets
(``tf_hash64.py``) and ``Fingerprint``'s rows of FarmHash Fingerprint64s, written as
eight little-endian bytes, as TF's kernel writes them."""

from __future__ import annotations

import numpy as np

from devsession.ops.string_hashing import FINGERPRINT_METHODS, method_bytes

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .farmhash import fingerprint64
from .strings import each_string
from .tf_hash64 import tf_hash64


@register_kernel("StringToHashBucket", HOST)
def build_string_to_hash_bucket(node):
    buckets = int(node.attrs["num_buckets"])

    def string_to_hash_bucket(data):
        return each_string(lambda s: tf_hash64(s) % buckets, data, np.int64)
    return string_to_hash_bucket


def _row_bytes(data: np.ndarray) -> list:
    """The bytes TF fingerprints for each row of ``data`` (its first dimension)."""
    rows = data.shape[0]
    per_row = int(np.prod(data.shape[1:], dtype=np.int64))
    if data.dtype != object:
        return [row.tobytes() for row in np.ascontiguousarray(data).reshape(rows, per_row)]
    strings = [bytes(s) for s in data.reshape(-1)]
    if per_row == 1:
        return strings
    return [b"".join(fingerprint64(s).to_bytes(8, "little")
                     for s in strings[r * per_row:(r + 1) * per_row]) for r in range(rows)]


@register_kernel("Fingerprint", HOST)
def build_fingerprint(node):
    def fingerprint(data, method):
        how = method_bytes(method)
        if how not in FINGERPRINT_METHODS:
            raise invalid_argument(node.name, node.op, f"Unsupported fingerprint method: "
                                   f"{how.decode(errors='replace')}")
        data = np.asarray(data)
        if data.ndim == 0:
            raise invalid_argument(node.name, node.op, "Fingerprint requires an input of "
                                   "rank >= 1")
        out = np.zeros((data.shape[0], 8), np.uint8)
        for i, row in enumerate(_row_bytes(data)):
            out[i] = np.frombuffer(fingerprint64(row).to_bytes(8, "little"), np.uint8)
        return out
    return fingerprint
