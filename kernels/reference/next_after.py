"""NextAfter (``devsession/ops/next_after.py``) on the host: numpy's ``nextafter``."""

from __future__ import annotations

import numpy as np

from ..registry import HOST, register_kernel


@register_kernel("NextAfter", HOST)
def build_next_after(node):
    return lambda x1, x2: np.nextafter(x1, x2)
