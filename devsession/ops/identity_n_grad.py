"""``IdentityN``'s own gradient: each output's gradient goes to its input (None stays
None).  ``ds.custom_gradient`` replaces it per node (``_gradient_op_type``)."""

from __future__ import annotations

from .registry import register_gradient


@register_gradient("IdentityN")
def _identity_n_grad(op, *dys):
    return list(dys)
