"""The kernel of ``GuaranteeConst`` (``devsession/ops/guarantee_const.py``): the
identity, on the host."""

from __future__ import annotations

from ..registry import HOST, register_kernel
from .array import build_identity


@register_kernel("GuaranteeConst", HOST)
def build_guarantee_const(node):
    return build_identity(node)
