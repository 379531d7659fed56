"""The kernel of ``Timestamp`` (``devsession/ops/timestamp.py``): the wall clock in
seconds since the epoch, a float64 scalar, on the host."""

from __future__ import annotations

import time

import numpy as np

from ..registry import HOST, register_kernel


@register_kernel("Timestamp", HOST)
def build_timestamp(node):
    def timestamp():
        return np.array(time.time(), np.float64)
    return timestamp
