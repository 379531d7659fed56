"""``decode_csv``: CSV records into one tensor per column, as TF1's ``tf.decode_csv`` /
``tf.io.decode_csv`` (TF's ``DecodeCSV`` op), the usual step after a
``TextLineDataset`` or a ``TextLineReader``::

    dataset = ds.data.TextLineDataset(files).skip(1).map(
        lambda line: ds.decode_csv(line, record_defaults=[[0.0], [0], [""]]))

``DecodeCSV(records, record_defaults...)``: attrs ``OUT_TYPE`` (the defaults' dtypes:
float32, float64, int32, int64 or string), ``field_delim`` (one byte, ","),
``use_quote_delim`` (True), ``na_value`` ("") and ``select_cols`` (empty: every
column).  Each output has the shape of ``records``.  A default is a scalar or a vector
of one value, or an empty vector for a required column (a shape past that is a
``ValueError`` when the graph knows it, as TF's shape function says).  The kernel
(``kernels/reference/decode_csv.py``) runs on the host; malformed records are
``InvalidArgumentError`` naming the node, with TF's text.  Not differentiable.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph, name_scope
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["decode_csv", "DECODE_CSV", "CSV_DTYPES"]

DECODE_CSV = "DecodeCSV"
CSV_DTYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _infer(inputs, attrs, node):
    if not inputs:
        raise InferError(f"Op '{node}': DecodeCSV takes records and the record defaults.")
    records, defaults = inputs[0], inputs[1:]
    if records.dtype != dtypes.string:
        raise TypeError(f"Op '{node}': records must be strings, got {records.dtype.name}.")
    out_types = tuple(dtypes.as_dtype(t) for t in attrs.get("OUT_TYPE", ()))
    if len(out_types) != len(defaults) or not defaults:
        raise InferError(f"Op '{node}': {len(out_types)} OUT_TYPE for {len(defaults)} "
                         f"record_defaults (at least one).")
    for dtype, default in zip(out_types, defaults):
        if dtype not in CSV_DTYPES:
            raise TypeError(f"Value for attr 'OUT_TYPE' of {dtype.name} is not in the list "
                            f"of allowed values: float, double, int32, int64, string")
        if default.dtype != dtype:
            raise TypeError(f"Op '{node}': record default '{default.name}' is "
                            f"{default.dtype.name}, OUT_TYPE says {dtype.name}.")
        shape = default.shape
        if shape.ndims is not None and shape.ndims > 1:
            raise InferError(f"Shape must be at most rank 1 but is rank {shape.ndims} for "
                             f"'{node}' (op: 'DecodeCSV') with a record default of shape "
                             f"{shape}.")
        if shape.ndims == 1 and shape.dims[0] is not None and shape.dims[0] > 1:
            raise InferError(f"Shape of a default must be a length-0 or length-1 vector, or "
                             f"a scalar. for '{node}' (op: 'DecodeCSV'), a default of shape "
                             f"{shape}.")
    return [(dtype, records.shape) for dtype in out_types]


register_op(OpDef(DECODE_CSV, _infer, None,
                  attr_defaults={"field_delim": ",", "use_quote_delim": True,
                                 "na_value": "", "select_cols": ()}))
not_differentiable(DECODE_CSV)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None) -> list:
    """TF1's ``tf.decode_csv`` / ``tf.io.decode_csv``: one tensor per column of the CSV
    ``records`` (a string tensor of any shape), each of that shape and of the dtype of
    its entry in ``record_defaults`` (``[[0.0], [0], [""]]``: float32, int32, string;
    an empty one, ``ds.constant([], ds.int64)``, makes the column required).  Raises
    ``ValueError`` for ``select_cols`` not strictly increasing, negative or of another
    length than ``record_defaults`` (TF's texts)."""
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(a >= b for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    graph = get_default_graph()
    with name_scope(name or DECODE_CSV) as scope:        # the defaults named as TF's
        records = convert_to_tensor(records, dtype=dtypes.string, graph=graph)
        defaults = [convert_to_tensor(d, graph=graph, name=f"record_defaults_{k}")
                    for k, d in enumerate(record_defaults)]
        attrs = {"OUT_TYPE": tuple(d.dtype for d in defaults), "field_delim": field_delim,
                 "use_quote_delim": bool(use_quote_delim), "na_value": na_value,
                 "select_cols": tuple(select_cols or ())}
        op = graph.create_op(DECODE_CSV, [records, *defaults], attrs, name=scope)
    return list(op.outputs)
