"""TF's text of a tensor in error messages and prints (``Tensor::SummarizeValue``):
``summarize_value(array, limit)`` gives the first ``limit`` elements, row by row in
brackets, with "..." where elements were left out: ``[1 2 3...]``, ``[[1 2]...]``.
``Assert`` and ``Print`` show each of their data tensors as ``"[" + that + "]"``.

Elements print as TF prints them: floats in the shortest of %.6g / %.9g (float32) or
%.15g / %.17g (float64) that reads back exactly, bools as 1 and 0, strings as their
bytes."""

from __future__ import annotations

import numpy as np

__all__ = ["summarize_value", "bracketed"]


def _element(value) -> str:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        short, long_ = (6, 9) if np.asarray(value).dtype.itemsize <= 4 else (15, 17)
        text = f"{float(value):.{short}g}"
        return text if type(value)(text) == value or value != value else \
            f"{float(value):.{long_}g}"
    if isinstance(value, str):
        return value
    return str(value)


def summarize_value(array, limit: int) -> str:
    """TF's ``SummarizeValue(limit)`` of ``array`` (a negative limit: every element)."""
    array = np.asarray(array)
    flat = array.reshape(-1)
    if array.ndim == 0:
        return _element(flat[0])
    limit = flat.size if limit < 0 else min(limit, flat.size)
    out: list[str] = []
    index = [0]

    def one_dim(dim: int) -> None:
        if index[0] >= limit:
            return
        if dim == array.ndim - 1:
            for i in range(array.shape[dim]):
                if index[0] >= limit:
                    if dim != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(_element(flat[index[0]]))
                index[0] += 1
            return
        for _ in range(array.shape[dim]):
            opened = index[0] < limit
            if opened:
                out.append("[")
            one_dim(dim + 1)
            if opened:
                out.append("]")

    one_dim(0)
    if flat.size > limit:
        out.append("...")
    return "".join(out)


def bracketed(array, limit: int) -> str:
    """``"[" + summarize_value(array, limit) + "]"``: one datum of an Assert or a Print."""
    return f"[{summarize_value(array, limit)}]"
