"""``tf.layers.InputSpec``: what a layer says its inputs must be (rank, dtype, shape, the
size of given axes), checked on every call before the layer builds or computes, as TF1's
layers (Keras's) check it: a custom layer sets ``self.input_spec`` (one spec, or a list of
them, one per input) and a mismatch is TF's ValueError naming the input and the layer.

    class Images(ds.layers.Layer):
        def __init__(self):
            super().__init__()
            self.input_spec = ds.layers.InputSpec(shape=(None, 28, 28, 1),
                                                  allow_last_axis_squeeze=True)
"""

from __future__ import annotations

from . import nest
from .dtypes import as_dtype
from .tensor_shape import TensorShape

__all__ = ["InputSpec", "assert_input_compatibility"]


class InputSpec:
    """TF's fields: ``dtype`` (kept as its name), ``shape`` (None dimensions match any;
    it fixes ``ndim``), ``ndim``, ``max_ndim``, ``min_ndim``, ``axes`` ({axis: size}),
    ``allow_last_axis_squeeze`` (a last axis of 1 may be missing on either side),
    ``name`` (the key of this input in a dict of inputs), ``optional`` (None allowed)."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = as_dtype(dtype).name if dtype is not None else None
        shape = TensorShape(shape)
        self.shape = None if shape.rank is None else tuple(shape.as_list())
        self.ndim = ndim if self.shape is None else len(self.shape)
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.allow_last_axis_squeeze, self.name, self.optional = (
            allow_last_axis_squeeze, name, optional)
        try:
            self.axes = {int(axis): size for axis, size in (axes or {}).items()}
        except (ValueError, TypeError, AttributeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. "
                            f"Received: axes={axes}") from None
        highest = (self.ndim or self.max_ndim or 0) - 1
        if self.axes and (self.ndim is not None or self.max_ndim is not None) and \
                max(self.axes) > highest:
            raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed "
                             f"value: {highest}")

    def get_config(self) -> dict:
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config: dict) -> "InputSpec":
        return cls(**config)

    def __repr__(self) -> str:
        fields = [f"{key}={value}" for key, value in self.get_config().items() if value]
        return f"InputSpec({', '.join(fields)})"


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """ValueError (TypeError for an input that is no tensor) where ``inputs`` break
    ``input_spec``, in TF's words; nothing for a spec of None."""
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    if isinstance(inputs, dict) and all(spec.name for spec in specs):
        inputs = [_named_input(inputs, spec.name, specs) for spec in specs]
    inputs = nest.flatten(inputs)
    for x, spec in zip(inputs, specs):
        if spec is not None and not (x is None and spec.optional) and \
                not hasattr(x, "shape"):
            raise TypeError(f"Inputs to a layer should be tensors. Got '{x}' (of type "
                            f"{type(x)}) as input for layer '{layer_name}'.")
    if len(inputs) != len(specs):
        raise ValueError(f'Layer "{layer_name}" expects {len(specs)} input(s), but it '
                         f"received {len(inputs)} input tensors. Inputs received: {inputs}")
    for index, (x, spec) in enumerate(zip(inputs, specs)):
        if spec is not None and not (x is None and spec.optional):
            if TensorShape(x.shape).rank is None:
                return              # as TF's: an input of unknown rank ends the checks
            _check(x, spec, f'Input {index} of layer "{layer_name}" is incompatible with '
                            f"the layer: ")


def _named_input(inputs: dict, name: str, specs: list):
    if name not in inputs:
        raise ValueError(f'Missing data for input "{name}". You passed a data dictionary '
                         f"with keys {list(inputs)}. Expected the following keys: "
                         f"{[spec.name for spec in specs]}")
    return inputs[name]


def _check(x, spec: InputSpec, where: str) -> None:
    dims = TensorShape(x.shape).as_list()
    rank, shown = len(dims), str(tuple(dims))
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
        raise ValueError(f"{where}expected ndim={spec.ndim}, found ndim={rank}. Full shape "
                         f"received: {shown}")
    if spec.max_ndim is not None and rank > spec.max_ndim:
        raise ValueError(f"{where}expected max_ndim={spec.max_ndim}, found ndim={rank}")
    if spec.min_ndim is not None and rank < spec.min_ndim:
        raise ValueError(f"{where}expected min_ndim={spec.min_ndim}, found ndim={rank}. "
                         f"Full shape received: {shown}")
    if spec.dtype is not None and x.dtype.name != spec.dtype:
        raise ValueError(f"{where}expected dtype={spec.dtype}, found dtype={x.dtype}")
    for axis, size in spec.axes.items():
        if size is not None and dims[axis] not in (size, None):
            raise ValueError(f"{where}expected axis {axis} of input shape to have value "
                             f"{size}, but received input with shape {shown}")
    if spec.shape is not None:
        expected = list(spec.shape)
        if spec.allow_last_axis_squeeze:
            dims = dims[:-1] if dims and dims[-1] == 1 else dims
            expected = expected[:-1] if expected and expected[-1] == 1 else expected
        if any(want is not None and got is not None and want != got
               for want, got in zip(expected, dims)):
            raise ValueError(f"{where}expected shape={spec.shape}, found shape={shown}")
