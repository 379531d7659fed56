"""``StringFormat`` and ``PrintV2`` (``devsession/ops/print_v2.py``), on the host.

StringFormat writes each tensor as TF's ``SummarizeValue(summarize, print_v2=true)``
does: nested brackets, ``summarize`` elements at each end of each dimension with
"..." between, rows split by newlines (a blank line between matrices), strings in
quotes, the elements as TF prints them (``summarize._element``).  PrintV2 writes its
string and ``end`` to stdout, stderr, the log or a file ("file://<path>", appended)."""

from __future__ import annotations

import sys

import numpy as np

from ..registry import HOST, register_kernel
from .control_flow import host_array
from .summarize import _element

__all__ = ["summarize_v2"]


def _one(value) -> str:
    if isinstance(value, (bytes, np.bytes_)):
        text = bytes(value).decode("utf-8", "backslashreplace")
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return _element(value)


def summarize_v2(array: np.ndarray, summarize: int) -> str:
    """TF's print_v2 text of ``array``."""
    array = np.asarray(array)
    limit = array.size if summarize < 0 else min(summarize, array.size)
    if array.ndim == 0:
        return "" if limit == 0 and array.size else _one(array.reshape(-1)[0])
    out: list = []
    _dim(array, array.ndim, limit, out)
    return "".join(out)


def _spacing(dim: int, ndim: int) -> str:
    if dim == ndim - 1:
        return " "
    return "\n" * (ndim - dim - 1) + " " * (dim + 1)


def _dim(sub: np.ndarray, ndim: int, ends: int, out: list) -> None:
    """``sub`` (dimension ``ndim - sub.ndim`` of the whole) into ``out``: TF's
    PrintOneDimV2."""
    if np.ndim(sub) == 0:
        out.append(_one(sub[()] if isinstance(sub, np.ndarray) else sub))
        return
    dim, count = ndim - sub.ndim, sub.shape[0]
    out.append("[")
    for i in range(min(ends, count)):
        if i > 0:
            out.append(_spacing(dim, ndim))
        _dim(sub[i], ndim, ends, out)
    if count > 2 * ends:
        out.append(_spacing(dim, ndim) + "...")
    for i in range(max(ends, count - ends), count):
        out.append(_spacing(dim, ndim))
        _dim(sub[i], ndim, ends, out)
    out.append("]")


@register_kernel("StringFormat", HOST)
def build_string_format(node):
    template, mark = node.attrs["template"], node.attrs["placeholder"]
    summarize = int(node.attrs.get("summarize", 3))
    pieces = template.split(mark)

    def string_format(*xs):
        texts = [summarize_v2(host_array(x), summarize) for x in xs]
        joined = pieces[0] + "".join(t + p for t, p in zip(texts, pieces[1:]))
        return np.array(joined.encode(), dtype=object)
    return string_format


@register_kernel("PrintV2", HOST)
def build_print_v2(node):
    stream, end = node.attrs.get("output_stream", "stderr"), node.attrs.get("end", "\n")

    def print_v2(text):
        line = bytes(np.asarray(text).reshape(-1)[0]).decode("utf-8", "replace") + end
        if stream in ("stdout", "stderr"):
            target = sys.stdout if stream == "stdout" else sys.stderr
            target.write(line)
            target.flush()
        elif stream.startswith("file://"):
            with open(stream[len("file://"):], "a", encoding="utf-8") as f:
                f.write(line)
        else:
            from devsession import tf_logging

            getattr(tf_logging, stream[4:-1])(line)
    return print_v2
