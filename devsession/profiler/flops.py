"""How many float operations an op does, by op type, as TensorFlow's profiler counts
them (``tf.profiler``'s flops statistics): only the op types TF counts, with TF's
formulas, so a model's total matches the figure TF1 prints for the same graph.

A count needs fully known shapes: the graph's static ones, or for a tensor whose static
shape is not fully known, the shape a traced step showed (``known``, by tensor name).
``float_ops(op)`` raises ``IncompleteShape`` where one is missing (TF's profiler then
counts the op as one without statistics), and returns None for an op type TF does not
count.
"""

from __future__ import annotations

import math

__all__ = ["float_ops", "IncompleteShape"]


class IncompleteShape(ValueError):
    """A shape the count needs is not known."""


class _Shapes:
    """Fully known shapes of tensors: static, else as a traced step showed them."""

    def __init__(self, known: dict):
        self.known = known

    def dims(self, tensor) -> list[int]:
        dims = tensor.shape.dims
        if dims is not None and None not in dims:
            return list(dims)
        if tensor.name in self.known:
            return list(self.known[tensor.name])
        raise IncompleteShape(f"{tensor.name} has shape {tensor.shape}")

    def elements(self, tensor) -> int:
        return math.prod(self.dims(tensor))


def _nhwc(op) -> None:
    if op.get_attr("data_format") != b"NHWC":
        raise IncompleteShape("only NHWC pools and convolutions are counted")


def _per_input_element(per_element: int):
    return lambda op, s: s.elements(op.inputs[0]) * per_element


def _per_output_element(per_element: int):
    return lambda op, s: s.elements(op.outputs[0]) * per_element


def _reduction(finalize: int):
    """Each input element reduced once, each output finalized ``finalize`` times."""
    return lambda op, s: s.elements(op.inputs[0]) + s.elements(op.outputs[0]) * (finalize - 1)


def _pool(op, s) -> int:
    _nhwc(op)
    return math.prod(op.get_attr("ksize")) * s.elements(op.outputs[0])


def _avg_pool_grad(op, s) -> int:
    _nhwc(op)
    return math.prod(op.get_attr("ksize")) * s.elements(op.inputs[1]) * 2


def _max_pool_grad(op, s) -> int:
    _nhwc(op)
    pooled = s.elements(op.inputs[1])
    return math.prod(op.get_attr("ksize")) * pooled + pooled


def _strided(op) -> int:
    strides = op.get_attr("strides")
    return strides[1] * strides[2]


def _conv_input_grad(op, s) -> int:
    _nhwc(op)
    out = s.dims(op.outputs[0])
    return int(2 * math.prod(out) * s.elements(op.inputs[1]) / (out[-1] * _strided(op)))


def _conv_filter_grad(op, s) -> int:
    _nhwc(op)
    image = s.dims(op.inputs[0])
    return int(2 * math.prod(image) * s.elements(op.outputs[0]) / (image[-1] * _strided(op)))


def _matmul(op, s) -> int:
    a = s.dims(op.inputs[0])
    if len(a) > 2:                      # devsession's batched MatMul: TF's BatchMatMulV2
        return _batch_matmul(op, s)
    k = a[0] if op.get_attr("transpose_a") else a[1]
    return 2 * k * s.elements(op.outputs[0])


def _batch_matmul(op, s) -> int:
    # TF reads a "transpose_a" attr that the batch products do not have: k is A's last
    # dimension even with adj_x.
    return 2 * s.dims(op.inputs[0])[-1] * s.elements(op.outputs[0])


def _conv(op, s) -> int:
    s.elements(op.inputs[0])
    window = s.dims(op.inputs[1])[:-1]      # (height, width, in channels), or with time
    return 2 * s.elements(op.outputs[0]) * math.prod(window)


def _depthwise(op, s) -> int:
    s.elements(op.inputs[0])
    height, width = s.dims(op.inputs[1])[:2]
    return 2 * s.elements(op.outputs[0]) * height * width


def _add_n(op, s) -> int:
    inputs = len(op.inputs) + len(op.control_inputs)     # TF counts its NodeDef's inputs
    return s.elements(op.inputs[0]) * (inputs - 1) if op.inputs else 0


_COUNTS = {
    **dict.fromkeys(("Reciprocal", "Square", "Log", "Neg", "AssignSub", "AssignAdd"),
                    _per_input_element(1)),
    "Rsqrt": _per_input_element(2),
    "Softmax": _per_input_element(5),
    "L2Loss": lambda op, s: s.elements(op.inputs[0]) * 3 - 1,
    **dict.fromkeys(("Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow",
                     "GreaterEqual", "Greater", "LessEqual", "Less", "Equal", "NotEqual"),
                    _per_output_element(1)),
    "RsqrtGrad": _per_output_element(4),
    "SquaredDifference": _per_output_element(2),
    "Mean": _reduction(finalize=1),
    **dict.fromkeys(("Sum", "ArgMax", "ArgMin", "BiasAddGrad"), _reduction(finalize=0)),
    "AvgPool": _pool, "MaxPool": _pool,
    "AvgPoolGrad": _avg_pool_grad, "MaxPoolGrad": _max_pool_grad,
    "Conv2DBackpropInput": _conv_input_grad, "Conv2DBackpropFilter": _conv_filter_grad,
    "AddN": _add_n,
    "MatMul": _matmul,
    **dict.fromkeys(("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"), _batch_matmul),
    "Conv2D": _conv, "Conv3D": _conv,
    "DepthwiseConv2dNative": _depthwise,
    "BiasAdd": lambda op, s: s.elements(op.inputs[0]),
}


def float_ops(op, known: dict | None = None) -> int | None:
    """The float operations of one run of ``op``; None for an op type TF's profiler does
    not count.  ``known``: tensor name -> the shape a traced step showed, for tensors
    whose static shape is not fully known.  Raises ``IncompleteShape`` where a shape it
    needs is unknown."""
    count = _COUNTS.get(op.type)
    return None if count is None else int(count(op, _Shapes(known or {})))
