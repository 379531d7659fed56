"""TF1's ``clear_after_read``: an element of a TensorArray read once is gone.

TF1 clears an element when it is read (``read``, ``gather``, ``stack``, ``concat``), so a
second read of it in the same run is an InvalidArgumentError, and so is writing it
again.  devsession's TensorArray is values, which cannot forget; so the kernels note,
for each values array a run makes, which of its elements were read: by the array's id
while it lives (the note dies with it), and a write's new array inherits its input's
notes.  Only ops carrying the ``clear_after_read`` attr note (what ``ds.TensorArray``
builds by default; the arrays of gradients never clear, as TF's gradient TensorArrays).
Such ops are never merged by the optimizer (two reads are not one), and every run makes
its arrays anew (the ops making them have two outputs, which constant folding leaves);
an array that is not a writeable numpy array (a GPU's) is not noted, and reads freely.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ..checks import invalid_argument

__all__ = ["note_reads", "check_writes", "inherit"]

_LOCK = threading.RLock()    # (a note may die, and be forgotten, while it is held)
_READ: dict[int, set] = {}       # id(values) -> indices read


def _clears(node, values) -> bool:
    return bool(node.attrs.get("clear_after_read")) and isinstance(values, np.ndarray) \
        and values.flags.writeable


def _forget(key: int) -> None:
    with _LOCK:
        _READ.pop(key, None)


def _read_of(values) -> set:
    """The set of ``values``' read indices (made, and tied to its life, on first use);
    call with ``_LOCK`` held."""
    read = _READ.get(id(values))
    if read is None:
        read = _READ[id(values)] = set()
        weakref.finalize(values, _forget, id(values))
    return read


def _prefix(node) -> str:
    return f"TensorArray {node.attrs.get('array_name', '')}: "


def note_reads(node, values, indices) -> None:
    """Note ``indices`` of ``values`` read, one by one; InvalidArgumentError (TF1's) at
    one read before, in this op or an earlier one."""
    if not _clears(node, values):
        return
    with _LOCK:
        read = _read_of(values)
        for i in indices:
            if i in read:
                raise invalid_argument(
                    node.name, node.op, f"{_prefix(node)}Could not read index {i} twice "
                    f"because it was cleared after a previous read (perhaps try setting "
                    f"clear_after_read = false?).")
            read.add(i)


def check_writes(node, values, indices) -> None:
    """InvalidArgumentError (TF1's) when one of ``indices`` of ``values`` was read."""
    if not _clears(node, values):
        return
    with _LOCK:
        read = _READ.get(id(values), ())
        for i in indices:
            if int(i) in read:
                raise invalid_argument(
                    node.name, node.op, f"{_prefix(node)}Could not write to TensorArray "
                    f"index {int(i)} because it has already been read.")


def inherit(node, values, written) -> None:
    """``written`` (a write's new array) remembers what was read of ``values``."""
    if not _clears(node, values) or not _clears(node, written):
        return
    with _LOCK:
        read = _READ.get(id(values))
        if read:
            _read_of(written).update(read)
