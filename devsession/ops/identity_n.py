"""TF's ``IdentityN`` (``tf.identity_n``): several tensors passed through one node, so
that one gradient function sees every output's gradient at once and returns every
input's.  That is what ``ds.custom_gradient`` needs (``custom_gradient.py`` overrides
this node's gradient with the user's function); by itself the gradient passes each
output's gradient through.  Its kernels hand back views of their inputs
(``kernels/reference/identity_n.py``; ``runtime/plan.py`` copies their fetches)."""

from __future__ import annotations

from ..graph import convert_to_tensor
from .common import graph_of
from .registry import InferError, OpDef, register_op

__all__ = ["identity_n"]


def _identity_n(inputs, attrs, node):
    if not inputs:
        raise InferError(f"Op '{node}' (IdentityN) needs at least one input.")
    return [(t.dtype, t.shape) for t in inputs]


register_op(OpDef("IdentityN", _identity_n, None))


def identity_n(input, name=None) -> list:  # noqa: A002  (TF's argument name)
    """Each tensor of the list ``input`` passed through, as one ``IdentityN`` node."""
    graph = graph_of(*input)
    tensors = [convert_to_tensor(t, graph=graph) for t in input]
    op = graph.create_op("IdentityN", tensors, name=name or "IdentityN")
    return list(op.outputs)
