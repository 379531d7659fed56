"""TF1's ``tf.vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True)``: ``fn``
applied to each element of ``elems`` (sliced along the first dimension), the results
stacked.  TF vectorizes ``fn`` where it can and falls back to a while loop where it
cannot; devsession always runs the loop (``map_fn``), which gives the same values.  The
output structure and dtypes are ``fn``'s (no ``dtype`` argument, as TF's)."""

from __future__ import annotations

from .functional import map_fn

__all__ = ["vectorized_map"]


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """The stacked results of ``fn`` over the elements of ``elems``."""
    del fallback_to_while_loop, warn      # the loop is always used
    return map_fn(fn, elems, name="loop_body")
