"""The bounded per-shape caches of the kernels' call plans (broadcast shapes, reduction
layouts, slice specs).

A graph fed ever-changing shapes must not grow them without end; a full cache is
emptied rather than kept in LRU order, which costs the hot path (a hit) nothing.
"""

from __future__ import annotations

__all__ = ["MAX_PLANS", "remember"]

MAX_PLANS = 64          # distinct keys (input-shape tuples...) remembered per kernel


def remember(cache: dict, key, value):
    """``cache[key] = value``, emptying ``cache`` first when it is full; returns ``value``."""
    if len(cache) >= MAX_PLANS:
        cache.clear()
    cache[key] = value
    return value
