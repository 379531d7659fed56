"""``IdentityN``: its inputs themselves (views, as Identity's: ``runtime/plan.py``
lists it among the aliasing ops, so a fetch copies).  The GPU registers the same
kernel (``cuda/identity_n.py``): views of cupy arrays stay on the device."""

from __future__ import annotations

from ..registry import HOST, register_kernel

__all__ = ["build_identity_n"]


@register_kernel("IdentityN", HOST)
def build_identity_n(node):
    def identity_n(*xs):
        views = tuple(x.view() if hasattr(x, "view") else x for x in xs)
        return views if len(views) > 1 else views[0]   # one output: the value itself
    return identity_n
