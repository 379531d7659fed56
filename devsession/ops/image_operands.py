"""Build-time checks of the ``tf.image`` ops' inputs, shared by the resizes
(``image.py``), the crops (``image_crop.py``) and the non-max suppressions
(``image_nms.py``) so that they reject the same things with the same words.

Each check takes the ``InputSpec`` being checked, the node's name and what TF calls the
input, and raises TypeError for a dtype TF's op does not take and ``InferError``
(``ValueError`` to the caller) for a shape the graph already knows to be wrong; what
the graph does not know yet passes, to be checked by the kernel at run time.
"""

from __future__ import annotations

from .registry import InferError

__all__ = ["dtype_in", "dims_of_rank", "box_count"]


def dtype_in(spec, allowed, node: str, what: str) -> None:
    """TypeError unless ``spec``'s dtype is one of ``allowed``."""
    if spec.dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"Op '{node}': {what} '{spec.name}' has dtype {spec.dtype.name}, "
                        f"not one of {names}.")


def dims_of_rank(spec, rank: int, node: str, what: str) -> list:
    """``spec``'s ``rank`` dims (None where unknown); InferError for another known rank."""
    if spec.shape.ndims is None:
        return [None] * rank
    if spec.shape.ndims != rank:
        raise InferError(f"Op '{node}': {what} '{spec.name}' must be {rank}-D, but has "
                         f"shape {spec.shape}.")
    return list(spec.shape.dims)


def box_count(boxes, per_box, node: str, what: str, each: str):
    """The number of boxes (None if unknown) of ``boxes`` ``[n, 4]`` and ``per_box``
    ``[n]`` (``what``: its input name, ``each``: what it holds per box, for the message)."""
    count, columns = dims_of_rank(boxes, 2, node, "boxes")
    if columns not in (None, 4):
        raise InferError(f"Op '{node}': boxes '{boxes.name}' must have 4 columns, but have "
                         f"shape {boxes.shape}.")
    (length,) = dims_of_rank(per_box, 1, node, what)
    if None not in (count, length) and count != length:
        raise InferError(f"Op '{node}': {what} '{per_box.name}' (shape {per_box.shape}) "
                         f"must have one {each} per box of '{boxes.name}' ({count}).")
    return count if count is not None else length
