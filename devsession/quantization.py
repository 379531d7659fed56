"""TF1's ``tf.quantization``: the fake quantization ops of quantization-aware training
(``fake_quant_with_min_max_args``, ``..._vars``, ``..._vars_per_channel`` and their
``_gradient`` ops, ``ops/fake_quant.py``), the simulated quantization of
``quantize_and_dequantize`` / ``_v2`` (``ops/quantize_dequantize.py``), and ``quantize`` /
``dequantize`` to and from the quantized dtypes (``ops/quantize.py``).  Other names
(``quantized_concat``...) raise ``UnsupportedTF1Error`` naming them."""

from .ops.fake_quant import (fake_quant_with_min_max_args,
                             fake_quant_with_min_max_args_gradient,
                             fake_quant_with_min_max_vars,
                             fake_quant_with_min_max_vars_gradient,
                             fake_quant_with_min_max_vars_per_channel,
                             fake_quant_with_min_max_vars_per_channel_gradient)
from .ops.quantize import dequantize, quantize
from .ops.quantize_dequantize import quantize_and_dequantize, quantize_and_dequantize_v2

__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
           "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
           "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient", "quantize_and_dequantize",
           "quantize_and_dequantize_v2", "quantize", "dequantize"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("quantization", name)
