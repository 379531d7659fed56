"""The gradients of the fake quantization ops (``fake_quant.py``): TF's gradient ops
with the forward op's attrs, the incoming gradient and the forward op's inputs."""

from __future__ import annotations

from .registry import register_gradient


@register_gradient("FakeQuantWithMinMaxArgs")
def _args_grad(op, grad):
    return [op.graph.create_op("FakeQuantWithMinMaxArgsGradient", [grad, op.inputs[0]],
                               dict(op.attrs),
                               name="FakeQuantWithMinMaxArgsGradient").outputs[0]]


def _vars_grad(op_type):
    def grad_fn(op, grad):
        x, lo, hi = op.inputs
        return list(op.graph.create_op(op_type, [grad, x, lo, hi], dict(op.attrs),
                                       name=op_type).outputs)
    return grad_fn


register_gradient("FakeQuantWithMinMaxVars")(_vars_grad("FakeQuantWithMinMaxVarsGradient"))
register_gradient("FakeQuantWithMinMaxVarsPerChannel")(
    _vars_grad("FakeQuantWithMinMaxVarsPerChannelGradient"))
