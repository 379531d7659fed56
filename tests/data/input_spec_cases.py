"""tf.layers.InputSpec cases run by the recorder (make_tf_input_spec.py, TensorFlow's legacy
tf.layers) and by tests/test_layers_input_spec.py (devsession): a custom layer whose
input_spec is set is called on placeholders; ``outcome`` describes what happened."""

SPECS = {
    "ndim": dict(ndim=2),
    "min_ndim": dict(min_ndim=3),
    "max_ndim": dict(max_ndim=1),
    "dtype": dict(dtype="int32"),
    "axes": dict(min_ndim=2, axes={-1: 3}),
    "axes_positive": dict(ndim=3, axes={1: 4}),
    "shape": dict(shape=(None, 28, 28, 1)),
    "squeeze": dict(shape=(None, 28, 28, 1), allow_last_axis_squeeze=True),
    "squeeze_column": dict(shape=(None, 1), allow_last_axis_squeeze=True),
}
INPUTS = {"f2x3": ("float32", [2, 3]), "fNx3": ("float32", [None, 3]),
          "f3": ("float32", [3]), "i2x3": ("int32", [2, 3]), "fNx4x3": ("float32", [None, 4, 3]),
          "f5x28x28": ("float32", [5, 28, 28]), "f5x28x28x1": ("float32", [5, 28, 28, 1]),
          "f5x28x27x1": ("float32", [5, 28, 27, 1]), "f2x3x1": ("float32", [2, 3, 1]),
          "unknown": ("float32", None)}
CALLS = [(spec, x) for spec in SPECS for x in INPUTS]
CONSTRUCTIONS = {
    "bad_axes": dict(axes={"a": 1}),
    "axis_too_big": dict(ndim=2, axes={2: 1}),
    "repr": dict(dtype="float32", shape=(None, 3), axes={1: 3}),
}


def make_layer(tf, spec_kwargs):
    class Checked(tf.layers.Layer):
        def __init__(self):
            super().__init__(name="checked")
            self.input_spec = tf.layers.InputSpec(**spec_kwargs)

        def call(self, inputs):
            return tf.identity(inputs)
    return Checked()


def call_outcome(tf, spec_name, input_name):
    dtype, shape = INPUTS[input_name]
    x = tf.placeholder(getattr(tf, dtype), shape)
    try:
        y = make_layer(tf, SPECS[spec_name])(x)
    except Exception as e:          # noqa: BLE001 - the class and message are compared
        return ["error", type(e).__name__, _plain(str(e))]
    return ["ok", y.shape.as_list() if y.shape.rank is not None else None]


def construction_outcome(tf, name):
    try:
        return ["ok", repr(tf.layers.InputSpec(**CONSTRUCTIONS[name]))]
    except Exception as e:          # noqa: BLE001
        return ["error", type(e).__name__, str(e)]


def _plain(message: str) -> str:
    """TF's ``<dtype: 'int32'>`` and devsession's ``ds.int32`` both as ``int32``, and TF1's
    ``Dimension(3)`` as ``3`` (devsession's shapes hold ints, TF2's form)."""
    import re

    message = re.sub(r"<dtype: '(\w+)'>|ds\.(\w+)", lambda m: m.group(1) or m.group(2),
                     message)
    return re.sub(r"Dimension\((\w+)\)", r"\1", message)
