"""Kernels of TF's sparse feature crosses (``devsession/ops/sparse_cross.py``):
SparseCross, SparseCrossV2 and SparseCrossHashed, on the host, in numpy and Python ints.

What TF's kernel does, which the recorded GraphDefs pin (tests/test_sparse_cross.py):

* the features are the sparse inputs, then the dense ones; a sparse feature's values of
  row ``b`` are its entries from where row ``b - 1``'s ended while their row coordinate
  is ``b`` (TF reads the entries in order, grouped by row; the column coordinate is not
  looked at);
* a row's crosses run over every combination of one value per feature, the last
  feature's value changing fastest; the output entry is ``[b, k]`` for the row's k-th
  cross, and the dense shape ``[batch, most crosses of a row]``; a row where a feature
  has no value has no crosses;
* SparseCross's hash chains ``FingerprintCat64`` from ``hash_key`` over each value's
  hash (a string's Fingerprint64, an integer as it is); SparseCrossHashed's starts with
  the first value's hash, and hashes an integer of a sparse feature by the first four
  of its little-endian bytes (TF hashes ``sizeof`` the dtype enum's bytes), of a dense
  feature as it is unless ``strong_hash`` (SipHash keyed by ``salt``, four bytes too;
  TF 2.21's kernel crashes on that last case, so it is devsession's reading of TF's
  code, not a recorded value);
* a hash is taken modulo ``num_buckets``, or modulo 2**63 - 1 when that is 0.
"""

from __future__ import annotations

import itertools

import numpy as np

from devsession.ops.sparse_cross import split_cross_inputs

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .farmhash import fingerprint64, fingerprint_cat64
from .siphash import siphash24

_M = (1 << 64) - 1
_INT64_MAX = (1 << 63) - 1


def _validate(node, indices, values, shapes, dense, internal=None) -> int:
    """TF's ``ValidateInput``: the checks and messages, in its order; the batch size."""
    def fail(message):
        return invalid_argument(node.name, node.op, message)

    for i, ind in enumerate(indices):
        if ind.ndim != 2:
            raise fail(f"Input indices should be a matrix but received shape "
                       f"{fmt_shape(ind.shape)} at position {i}")
        if ind.shape[1] != 2:
            raise fail(f"Expected D2 of index to be 2 got {ind.shape[1]} at position {i}")
    for i, (ind, val) in enumerate(zip(indices, values)):
        if internal == "string" and val.dtype != object:
            raise fail("Input values should be of internal type string but received int64")
        if val.ndim != 1:
            raise fail(f"Input values should be a vector but received shape "
                       f"{fmt_shape(val.shape)} at position {i}")
        if ind.shape[0] != val.shape[0]:
            raise fail(f"Expected size of values to be {ind.shape[0]} got {val.shape[0]} "
                       f"at position {i}")
    for i, shape in enumerate(shapes):
        if shape.ndim != 1:
            raise fail(f"Input shapes should be a vector but received shape "
                       f"{fmt_shape(shape.shape)} at position {i}")
        if shape.shape[0] != 2:
            raise fail(f"shape should imply a 2D tensor, but got {fmt_shape(shape.shape)} "
                       f"at position {i}")
    for i, matrix in enumerate(dense):
        if internal == "string" and matrix.dtype != object:
            raise fail("Dense inputs should be of internal type string but received int64")
        if matrix.ndim != 2:
            raise fail(f"Dense inputs should be a matrix but received shape "
                       f"{fmt_shape(matrix.shape)} at position {i}")
    batch = int(shapes[0][0]) if shapes else (dense[0].shape[0] if dense else 0)
    for i, shape in enumerate(shapes):
        if int(shape[0]) != batch:
            raise fail(f"Expected batch size {batch} got {int(shape[0])} at position {i}")
    for i, matrix in enumerate(dense):
        if matrix.shape[0] != batch:
            raise fail(f"Expected batch size {batch} got {matrix.shape[0]} at dense tensor {i}")
    return batch


def _rows(indices: np.ndarray, values: np.ndarray, batch: int) -> list:
    """Per batch row, the sparse feature's values of that row, read as TF reads them."""
    rows, cursor, count = [], 0, len(indices)
    for b in range(batch):
        start = cursor
        while cursor < count and indices[cursor, 0] == b:
            cursor += 1
        rows.append(values[start:cursor])
    return rows


def _columns(inputs, attrs_node, extra):
    """(batch, per feature a list of each row's values, per feature whether dense)."""
    indices, values, shapes, dense = split_cross_inputs(list(inputs), attrs_node.attrs, extra)
    indices = [np.asarray(i) for i in indices]
    values = [np.asarray(v) for v in values]
    shapes = [np.asarray(s) for s in shapes]
    dense = [np.asarray(d) for d in dense]
    internal = attrs_node.attrs.get("internal_type")
    batch = _validate(attrs_node, indices, values, shapes, dense,
                      None if internal is None else internal.name)
    columns = [_rows(i, v, batch) for i, v in zip(indices, values)]
    columns += [[d[b] for b in range(batch)] for d in dense]
    return batch, columns, [False] * len(indices) + [True] * len(dense)


def _crossed(batch: int, columns: list, cross, out_dtype):
    """The SparseTensor of every row's crosses, ``cross(features)`` making one value
    of a combination (one value per column)."""
    coords, out, widest = [], [], 0
    for b in range(batch):
        count = 0
        for combination in itertools.product(*(column[b] for column in columns)):
            coords.append((b, count))
            out.append(cross(combination))
            count += 1
        widest = max(widest, count)
    indices = np.asarray(coords, np.int64).reshape(-1, 2)
    if out_dtype is object:
        values = np.empty(len(out), object)
        values[:] = out
    else:
        values = np.asarray(out, np.int64).reshape(-1)
    return indices, values, np.asarray([batch, widest], np.int64)


def _text(value) -> bytes:
    return bytes(value) if isinstance(value, (bytes, np.bytes_)) else str(int(value)).encode()


def _bucket(hashed: int, num_buckets: int) -> int:
    return hashed % num_buckets if num_buckets > 0 else hashed % _INT64_MAX


def _string_cross(node, extra):
    def run(*inputs):
        batch, columns, _ = _columns(inputs, node, extra)
        sep = bytes(np.asarray(inputs[-1]).item()) if extra else b"_X_"
        return _crossed(batch, columns, lambda vals: sep.join(_text(v) for v in vals), object)
    return run


@register_kernel("SparseCross", HOST)
def build_sparse_cross(node):
    if not node.attrs["hashed_output"]:
        return _string_cross(node, 0)
    num_buckets = int(node.attrs["num_buckets"])
    key = int(node.attrs["hash_key"]) & _M

    def value_hash(value) -> int:
        if isinstance(value, (bytes, np.bytes_)):
            return fingerprint64(bytes(value))
        return int(value) & _M

    def cross(values) -> int:
        hashed = key
        for value in values:
            hashed = fingerprint_cat64(hashed, value_hash(value))
        return _bucket(hashed, num_buckets)

    def sparse_cross(*inputs):
        batch, columns, _ = _columns(inputs, node, 0)
        return _crossed(batch, columns, cross, np.int64)
    return sparse_cross


@register_kernel("SparseCrossV2", HOST)
def build_sparse_cross_v2(node):
    run = _string_cross(node, 1)

    def sparse_cross_v2(*inputs):
        sep = np.asarray(inputs[-1])
        if sep.ndim != 0:
            raise invalid_argument(node.name, node.op, "Input separator should be a scalar. "
                                   f"Received: {sep!r}")
        return run(*inputs)
    return sparse_cross_v2


@register_kernel("SparseCrossHashed", HOST)
def build_sparse_cross_hashed(node):
    def sparse_cross_hashed(*inputs):
        num_buckets = int(np.asarray(inputs[-3]))
        strong = bool(np.asarray(inputs[-2]))
        salt = np.asarray(inputs[-1]).reshape(-1)
        if salt.size != 2:
            raise invalid_argument(node.name, node.op, 'Input "salt" must have length 2 but '
                                   f"has length {salt.size}")
        key0, key1 = int(salt[0]), int(salt[1])
        batch, columns, dense = _columns(inputs, node, 3)

        def value_hash(value, is_dense: bool) -> int:
            if isinstance(value, (bytes, np.bytes_)):
                data = bytes(value)
            elif is_dense and not strong:
                return int(value) & _M
            else:
                data = int(value).to_bytes(8, "little", signed=True)[:4]
            return siphash24(key0, key1, data) if strong else fingerprint64(data)

        def cross(values) -> int:
            hashes = [value_hash(v, d) for v, d in zip(values, dense)]
            hashed = hashes[0]
            for h in hashes[1:]:
                hashed = fingerprint_cat64(hashed, h)
            return _bucket(hashed, num_buckets)

        return _crossed(batch, columns, cross, np.int64)
    return sparse_cross_hashed
