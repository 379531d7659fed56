"""TF1's ``tf.layers`` classes: ``Dense``, ``Conv1D``, ``Conv2D``, ``Conv3D``,
``Conv2DTranspose``, ``Conv3DTranspose``, ``SeparableConv2D``, ``MaxPooling1D``/``2D``/``3D``,
``AveragePooling1D``/``2D``/``3D``, ``Flatten``,
``Dropout`` and ``BatchNormalization``, each the object form of the function of the same
name (``layers_functional.py``), which does the work::

    layer = ds.layers.Dense(10, activation=ds.nn.relu)
    y1 = layer(x1)           # makes dense/kernel and dense/bias
    y2 = layer(x2)           # the same variables again
    layer.kernel, layer.trainable_variables

As TF1's (``tf.layers.Layer``): the first call opens the layer's variable scope, named
after the layer (``name``, else the class's: "dense", "conv2d"...) and made unique in the
scope current then ("dense_1"...), and builds there; every later call re-enters that
scope with ``reuse=True``.  The layer then holds its variables (``variables``,
``trainable_variables``, and one attribute each: ``kernel``, ``bias``, ``gamma``...; None
for a weight it was told not to have), the update ops and regularization losses its calls
added (``updates``, ``losses``; they are also in ``GraphKeys.UPDATE_OPS`` and
``REGULARIZATION_LOSSES``, where TF1 puts them).  ``Dropout`` and
``BatchNormalization`` take ``training`` at the call: ``layer(x, training=is_training)``.
``layer.compute_output_shape(input_shape)`` is the shape a call would give, without
building (``layers_output_shape.py``).

A TF1 custom layer subclasses ``Layer`` with ``build(input_shape)``, which makes its
variables with ``self.add_weight(name, shape, ...)`` (in the layer's scope, before the
first call only), and ``call(inputs)``; its ``input_spec`` (``tf.layers.InputSpec``,
``layers_input_spec.py``) is checked on every call.
"""

from __future__ import annotations

import contextlib
import re
import weakref

from . import layers_functional as functional
from . import layers_output_shape as output_shape
from .layers_batch_norm import batch_normalization, check_options
from .layers_input_spec import assert_input_compatibility
from .layers_separable import separable_conv1d
from .snake_case import to_snake_case
from .graph import convert_to_tensor, get_default_graph, name_scope
from .graph_keys import GraphKeys, get_collection
from .variable_scope import VariableScope, variable_scope

__all__ = ["Layer", "Dense", "Conv1D", "Conv2D", "Conv2DTranspose", "SeparableConv2D",
           "SeparableConv1D",
           "MaxPooling1D", "MaxPooling2D", "AveragePooling1D", "AveragePooling2D", "Flatten",
           "Dropout", "BatchNormalization", "Conv3D", "Conv3DTranspose", "MaxPooling3D",
           "AveragePooling3D"]

_NAME_COUNTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class Layer:
    """The base of TF1's layer classes (see the module docstring); a subclass defines
    ``call(inputs, ...)``."""

    _weight_names: tuple = ()
    _makes_scope_itself = False     # its function re-enters the scope it is given
    input_spec = None               # a subclass's InputSpec(s), checked on every call

    def __init__(self, trainable=True, name=None, dtype=None, _scope=None, _reuse=None,
                 **kwargs):
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {sorted(kwargs)[0]!r}")
        self.trainable = bool(trainable)
        self.dtype = dtype
        self.built = False
        self._weights_built = False      # a subclass's build() ran (its call may not have)
        self._inputs_dtype = None        # the first call's, for add_weight's default
        self._reuse = _reuse
        self._scope = _scope if isinstance(_scope, VariableScope) else None
        self._scope_name = _scope if isinstance(_scope, str) else None
        if isinstance(name, VariableScope):
            self._scope_base, self._name = name.name, _unique_object_name(self._base_name)
        else:
            self._scope_base = name or self._base_name
            self._name = name or _unique_object_name(self._base_name)
        self._variables: list = []
        self._updates: list = []
        self._losses: list = []

    @property
    def _base_name(self) -> str:
        """The class's name in snake case ("dense", "conv2d_transpose", "my_layer"): the
        name of a layer made without one, as TF1's."""
        return to_snake_case(type(self).__name__)

    # --- calling --------------------------------------------------------------------------

    def __call__(self, inputs, *args, **kwargs):
        """The layer's output for ``inputs``; builds its variables on the first call."""
        self._set_scope(kwargs.pop("scope", None))
        assert_input_compatibility(self.input_spec, inputs, self._name)
        if self.dtype is not None:
            self._check_dtype(inputs)
        before = {key: len(get_collection(key)) for key in
                  (GraphKeys.UPDATE_OPS, GraphKeys.REGULARIZATION_LOSSES)}
        with contextlib.ExitStack() as stack:
            if not self._makes_scope_itself:
                stack.enter_context(variable_scope(
                    self._scope, reuse=True if self.built or self._weights_built
                    else self._reuse, auxiliary_name_scope=False))
                stack.enter_context(name_scope(self._scope.original_name_scope))
                if not self.built and not self._weights_built:
                    self._inputs_dtype = _first_float_dtype(inputs)
                    self.build(_shapes(inputs))
                    # as TF1's: built once, even if this first call fails after it
                    self._weights_built = type(self).build is not Layer.build
            outputs = self.call(inputs, *args, **kwargs)
        self._updates += get_collection(GraphKeys.UPDATE_OPS)[before[GraphKeys.UPDATE_OPS]:]
        self._losses += get_collection(GraphKeys.REGULARIZATION_LOSSES)[
            before[GraphKeys.REGULARIZATION_LOSSES]:]
        if not self.built:
            self._hold_variables()
            self.built = True
        return outputs

    def apply(self, inputs, *args, **kwargs):
        """``layer(inputs, ...)``, TF1's older spelling."""
        return self(inputs, *args, **kwargs)

    def build(self, input_shape) -> None:
        """Make the layer's variables (``add_weight``) before its first ``call``; a
        subclass's, as TF1's (the built-in layers' functions make their own)."""

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} defines no call().")

    def compute_output_shape(self, input_shape):
        """TF1's in graph mode: NotImplementedError unless the layer's class says how (the
        built-in layers do, ``layers_output_shape.py``; a subclass may)."""
        raise NotImplementedError(f"Please implement the compute_output_shape method on "
                                  f"your layer ({type(self).__name__}).")

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None, **kwargs):
        """A variable ``<layer scope>/<name>`` (``get_variable``; shared on later calls),
        its ``regularizer``'s penalty added to ``losses`` and its ``constraint`` kept
        (``v.constraint``, for the optimizers), for ``build``.  Its dtype:
        ``dtype``, else the layer's, else its inputs' (float32 for inputs not floating),
        as TF1's layer takes its dtype from the inputs of its first call."""
        from .dtypes import float32

        functional._refuse(self._name, **kwargs)
        dtype = dtype or self.dtype or self._inputs_dtype or float32
        return functional._variable(name, shape, dtype, initializer,
                                    bool(trainable) and self.trainable, regularizer,
                                    constraint)

    add_variable = add_weight

    def _set_scope(self, scope=None) -> None:
        """Open the layer's variable scope once, as TF1's ``Layer._set_scope``."""
        if self._scope is not None:
            return
        explicit = scope if scope is not None else self._scope_name
        if self._reuse:
            with variable_scope(explicit if explicit is not None else self._scope_base) as s:
                self._scope = s
        else:
            with variable_scope(explicit, default_name=self._scope_base) as s:
                self._scope = s

    def _scoping(self) -> dict:
        """What a function making variables takes to build in (or reuse) this layer's
        scope."""
        return {"name": self._scope, "reuse": True if self.built else self._reuse,
                "trainable": self.trainable}

    def _hold_variables(self) -> None:
        """After the first call: the variables directly in the layer's scope, each also
        set as the attribute of its name (``kernel``...)."""
        pattern = re.compile(re.escape(self._scope.name + "/") + r"([^/]+):0$")
        for name in self._weight_names:
            setattr(self, name, None)
        for variable in get_collection(GraphKeys.GLOBAL_VARIABLES):
            found = pattern.match(variable.name)
            if found:
                self._variables.append(variable)
                if found.group(1) in self._weight_names:
                    setattr(self, found.group(1), variable)

    def _check_dtype(self, inputs) -> None:
        from .dtypes import as_dtype

        x = convert_to_tensor(inputs)
        if x.dtype != as_dtype(self.dtype):
            raise ValueError(f"Layer {self._name} was made with dtype={as_dtype(self.dtype).name} "
                             f"but is called on '{x.name}' of dtype {x.dtype.name}; devsession's "
                             f"layers compute in their inputs' dtype (cast them first).")

    # --- TF1's properties -----------------------------------------------------------------

    name = property(lambda self: self._name)

    @property
    def scope_name(self) -> str:
        if self._scope is None:
            raise ValueError(f"No name available for layer scope because the layer "
                             f"\"{self._name}\" has not been used yet. The scope name  is "
                             f"determined the first time the layer instance is called. You "
                             f"must therefore call the layer before querying `scope_name`.")
        return self._scope.name

    @property
    def variables(self) -> list:
        return list(self._variables)

    @property
    def trainable_variables(self) -> list:
        if not self.trainable:
            return []
        trainable = {id(v) for v in get_collection(GraphKeys.TRAINABLE_VARIABLES)}
        return [v for v in self._variables if id(v) in trainable]

    @property
    def non_trainable_variables(self) -> list:
        trainable = {id(v) for v in self.trainable_variables}
        return [v for v in self._variables if id(v) not in trainable]

    weights = variables
    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables

    @property
    def updates(self) -> list:
        return list(self._updates)

    @property
    def losses(self) -> list:
        return list(self._losses)

    def __repr__(self) -> str:
        return f"<ds.layers.{type(self).__name__} '{self._name}'>"


def _shapes(inputs):
    """What ``build`` is given: the static shape of ``inputs``, or a list of them."""
    if isinstance(inputs, (list, tuple)):
        return [_shapes(x) for x in inputs]
    return convert_to_tensor(inputs).shape


def _first_float_dtype(inputs):
    """The dtype of ``inputs`` (the first of a list) when it is a float, else None."""
    while isinstance(inputs, (list, tuple)) and inputs:
        inputs = inputs[0]
    dtype = convert_to_tensor(inputs).dtype
    return dtype if dtype.is_floating else None


def _unique_object_name(base: str) -> str:
    """``base``, ``base_1``...: per graph, as TF1 names layers made without a name."""
    counts = _NAME_COUNTS.setdefault(get_default_graph(), {})
    n = counts.get(base, 0)
    counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _options(arguments: dict, layer: Layer) -> dict:
    """A constructor's own arguments (``locals()``): set on the layer as attributes, as
    TF1's (``layer.units``...), and returned for its function."""
    options = {k: v for k, v in arguments.items()
               if k not in ("self", "kwargs", "trainable", "name", "__class__")}
    for key, value in options.items():
        setattr(layer, key, value)
    return options


# --- layers with variables: their function builds in (or reuses) the layer's scope ----------

class _WithVariables(Layer):
    """A layer whose function (``_function``, of ``layers_functional``) makes its
    variables in the layer's scope, given the constructor's arguments."""

    _weight_names, _makes_scope_itself = ("kernel", "bias"), True
    _function = None

    def call(self, inputs):
        return self._function(inputs, **self._options, **self._scoping())


class Dense(_WithVariables):
    """``activation(inputs @ kernel + bias)`` (``ds.layers.dense``)."""

    _function = staticmethod(functional.dense)

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.dense(self.units, input_shape)


class Conv2D(_WithVariables):
    """An NHWC convolution, then the bias and activation (``ds.layers.conv2d``)."""

    _function = staticmethod(functional.conv2d)

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.windowed(self._options, 2, input_shape, filters=self.filters)


class Conv1D(_WithVariables):
    """An NWC convolution, then the bias and activation (``ds.layers.conv1d``)."""

    _function = staticmethod(functional.conv1d)

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.windowed(self._options, 1, input_shape, filters=self.filters)


class Conv2DTranspose(_WithVariables):
    """The transposed NHWC convolution (``ds.layers.conv2d_transpose``)."""

    _function = staticmethod(functional.conv2d_transpose)

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.windowed(self._options, 2, input_shape, transpose=True,
                                     filters=self.filters)


class Conv3D(_WithVariables):
    """An NDHWC convolution, then the bias and activation (``ds.layers.conv3d``)."""

    _function = staticmethod(functional.conv3d)

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.windowed(self._options, 3, input_shape, filters=self.filters)


class Conv3DTranspose(_WithVariables):
    """The transposed NDHWC convolution (``ds.layers.conv3d_transpose``)."""

    _function = staticmethod(functional.conv3d_transpose)

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.windowed(self._options, 3, input_shape, transpose=True,
                                     filters=self.filters)


class SeparableConv2D(_WithVariables):
    """A depthwise then a pointwise convolution (``ds.layers.separable_conv2d``)."""

    _function = staticmethod(functional.separable_conv2d)
    _weight_names = ("depthwise_kernel", "pointwise_kernel", "bias")

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=None, depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.windowed(self._options, 2, input_shape, filters=self.filters)


class SeparableConv1D(_WithVariables):
    """A depthwise then a pointwise 1-D convolution (``ds.layers.separable_conv1d``,
    ``layers_separable.py``)."""

    _function = staticmethod(separable_conv1d)
    _weight_names = ("depthwise_kernel", "pointwise_kernel", "bias")

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=None, depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.windowed(self._options, 1, input_shape, filters=self.filters)


class BatchNormalization(_WithVariables):
    """Per-channel normalization (``ds.layers.batch_normalization``,
    ``layers_batch_norm.py``); ``training`` at the call; the moving averages' updates in
    ``updates`` and ``GraphKeys.UPDATE_OPS``.  Bad ``renorm_clipping`` keys are TF's
    ValueError here, when the layer is made."""

    _function = staticmethod(batch_normalization)
    _weight_names = ("gamma", "beta", "moving_mean", "moving_variance", "moving_stddev",
                     "renorm_mean", "renorm_stddev")

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=None, gamma_initializer=None, moving_mean_initializer=None,
                 moving_variance_initializer=None, beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None,
                 trainable=True, virtual_batch_size=None, adjustment=None, name=None,
                 **kwargs):
        check_options(renorm, renorm_clipping)
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return input_shape

    def call(self, inputs, training=False):
        return self._function(inputs, training=training, **self._options, **self._scoping())


# --- layers without variables: their function runs in the layer's name scope ---------------

class _Pooling(Layer):
    """A pooling layer: its function (``_function``) over each window, its ops in the
    layer's name scope (``max_pooling2d/MaxPool``, as TF1's)."""

    _function = None

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.windowed(self._options, self._rank, input_shape)

    def call(self, inputs):
        return self._function(inputs, **self._options, name=self._scope.original_name_scope)


class MaxPooling2D(_Pooling):
    """The maximum over each window of NHWC inputs (``ds.layers.max_pooling2d``)."""

    _rank = 2
    _function = staticmethod(functional.max_pooling2d)


class AveragePooling2D(_Pooling):
    """The mean over each window of NHWC inputs (``ds.layers.average_pooling2d``)."""

    _rank = 2
    _function = staticmethod(functional.average_pooling2d)


class MaxPooling3D(_Pooling):
    """The maximum over each window of NDHWC inputs (``ds.layers.max_pooling3d``)."""

    _rank = 3
    _function = staticmethod(functional.max_pooling3d)


class AveragePooling3D(_Pooling):
    """The mean over each window of NDHWC inputs (``ds.layers.average_pooling3d``)."""

    _rank = 3
    _function = staticmethod(functional.average_pooling3d)


class MaxPooling1D(_Pooling):
    """The maximum over each window of NWC inputs (``ds.layers.max_pooling1d``)."""

    _rank = 1
    _function = staticmethod(functional.max_pooling1d)


class AveragePooling1D(_Pooling):
    """The mean over each window of NWC inputs (``ds.layers.average_pooling1d``)."""

    _rank = 1
    _function = staticmethod(functional.average_pooling1d)


class Flatten(Layer):
    """Inputs as ``(batch, everything else)`` (``ds.layers.flatten``)."""

    _makes_scope_itself = True    # its name scope: the layer's

    def __init__(self, data_format=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return output_shape.flatten(input_shape)

    def call(self, inputs):
        return functional.flatten(inputs, name=self._scope.original_name_scope,
                                  data_format=self.data_format or "channels_last")


class Dropout(Layer):
    """``ds.nn.dropout`` while ``training`` (given at the call), the inputs otherwise
    (``ds.layers.dropout``)."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self._options = _options(locals(), self)

    def compute_output_shape(self, input_shape):
        return input_shape

    def call(self, inputs, training=False):
        options = dict(self._options)
        if options["seed"] is not None:
            options["seed"] = self._next_seed
        return functional.apply_dropout(inputs, training=training, **options)

    def _next_seed(self) -> int:
        """The seed this call's dropout takes: the layer's seed, one more each call that
        draws (TF's ``make_legacy_seed``), so a layer called twice drops differently."""
        seed = self._options["seed"]
        self._options["seed"] = seed + 1
        return seed
