"""Two TF1 wrappers that change how a function's gradient is computed, not its value:

``tf.grad_pass_through(f)``: ``f``'s value with the identity's gradient (a straight-through
estimator: rounding, quantizing or an assignment in the forward pass, the upstream
gradient passed unchanged to the argument).  As TF's, a ``custom_gradient`` whose
gradient returns the upstream gradients (and None for variables ``f`` reads).

``tf.recompute_grad(f)``: TF recomputes ``f``'s activations during backprop to save memory;
the gradient values are those of ``f`` itself.  devsession's graphs keep the forward
activations, so here it is ``f`` with the same values and the same gradients (the memory
saving is not made).
"""

from __future__ import annotations

import functools

from .custom_gradient import custom_gradient

__all__ = ["grad_pass_through", "recompute_grad"]


def grad_pass_through(f):
    """``f`` with the gradient of the identity: ``d out / d x`` is the upstream gradient."""
    @custom_gradient
    def _grad_pass_through_op(*args, **kwargs):
        def grad(*dys, **grad_kwargs):
            variables = grad_kwargs.get("variables")
            if variables is not None:
                return dys, [None] * len(variables)
            return dys
        return f(*args, **kwargs), grad
    return functools.wraps(f)(_grad_pass_through_op)


def recompute_grad(f):
    """``f``, whose gradient TF recomputes in the backward pass (see the module docstring:
    the values and gradients are ``f``'s)."""
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)
    return inner
