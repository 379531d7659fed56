"""TF1's ``tf.quantization``: the fake quantization ops of quantization-aware training
(``fake_quant_with_min_max_args``, ``..._vars``, ``..._vars_per_channel`` and their
``_gradient`` ops, ``ops/fake_quant.py``).  Other names (``quantize``, ``dequantize``...)
raise ``UnsupportedTF1Error`` naming them."""

from .ops.fake_quant import (fake_quant_with_min_max_args,
                             fake_quant_with_min_max_args_gradient,
                             fake_quant_with_min_max_vars,
                             fake_quant_with_min_max_vars_gradient,
                             fake_quant_with_min_max_vars_per_channel,
                             fake_quant_with_min_max_vars_per_channel_gradient)

__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
           "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
           "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("quantization", name)
