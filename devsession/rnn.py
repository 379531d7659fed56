"""TF1's recurrent networks: ``tf.nn.rnn_cell`` and ``tf.nn.dynamic_rnn`` /
``static_rnn``, built from ``ds`` ops (so gradients, fusion and placement apply).

=================================  ===============================================================
``BasicRNNCell(num_units)``        ``h = tanh([x, h] @ kernel + bias)``
``BasicLSTMCell(num_units)``       TF1's LSTM: gates ``i, j, f, o`` from ``[x, h] @ kernel + bias``;
``LSTMCell(num_units)``            ``c = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)``,
                                   ``h = tanh(c) * sigmoid(o)``; state ``LSTMStateTuple(c, h)``
``GRUCell(num_units)``             ``r, u = sigmoid([x, h] @ gates + 1-initialized bias)``,
                                   ``h = u * h + (1 - u) * tanh([x, r * h] @ candidate + b)``
``MultiRNNCell(cells)``            the cells stacked, each in scope ``cell_<k>``; a tuple state
``DropoutWrapper(cell, ...)``      dropout on the cell's inputs, outputs and state (keep
                                   probabilities: numbers or tensors; 1 adds nothing)
=================================  ===============================================================

A cell makes its variables on its first call, in a variable scope named after it
(``basic_lstm_cell``, ``lstm_cell``, ``gru_cell``, ``basic_rnn_cell``, or ``name``) inside
the scope it is called in, so ``dynamic_rnn``'s variables are TF1's
(``rnn/basic_lstm_cell/kernel``, ``rnn/gru_cell/gates/bias``...) and a TF1 checkpoint
matches by name; two cells in one scope collide, as in TF1 (pass ``scope=``).  Kernels
start Glorot-uniform, biases at 0 (the GRU's gates at 1).  Then ``cell.weights`` (and
TF1's layer spellings ``variables``, ``trainable_variables``, ``trainable_weights``) lists
them in that order and a ``MultiRNNCell`` its cells'; ``built`` says whether they are made.
As TF's (2.21), a wrapper (``DropoutWrapper``...) lists none, nor is it ``built``: the
variables are its cell's, listed there (so a stack lists none of a wrapped cell's).

``bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, ...)`` runs one cell forward and the
other over each sequence reversed (``reverse_sequence`` by ``sequence_length``), in
scopes ``bidirectional_rnn/fw`` and ``/bw``: ``((outputs_fw, outputs_bw), (state_fw,
state_bw))``, the backward outputs back in time order.

``dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
time_major=False, scope=None)`` runs the cell over the time axis of ``inputs``
(``[batch, time, depth]``, or time first) and returns ``(outputs, final_state)``; with
``sequence_length`` a sequence's outputs past its length are 0 and its state stays the
last valid one, as TF1's (which asserts one length per batch entry at run: an Assert
here too, unless the graph knows both sizes equal).  ``static_rnn`` takes a list of
inputs.  Options TF1's cells have and devsession lacks are ValueErrors, never ignored.
``state_is_tuple=False`` (TF1's deprecated form) makes an LSTM's state
``concat([c, h], 1)`` and a ``MultiRNNCell``'s the concatenation of its cells'.

How the time loop runs:

* **Known number of steps** (``inputs.shape`` says it): unrolled, one cell call per step
  (``_unrolled``), the fastest form: no loop node, and the executor sees every step.
  TF builds the cell once, in its loop, so a ``DropoutWrapper``'s draws of the steps
  after the first are ops TF has not: they take uncounted seeds (``ops/random.py``), and
  every random op built after the RNN (the next layer's initializer) gets TF's seed.
  (``static_rnn`` builds the cell per step, as TF's, each step's seeds counted.)
* **Unknown number of steps** (a ``[None, None, depth]`` placeholder: TF1's
  variable-length batches): one ``ds.while_loop`` (``rnn/while``) whose body calls the
  cell on ``inputs[t]`` (time first; a ``gather`` of the captured inputs) with the
  same masking as the unrolled steps, so both forms give the same values and gradients,
  and one graph runs batches of any length (0 steps: ``[batch, 0, units]`` outputs and
  the initial state).  The cell is called once outside the loop first, on step 0: that
  call makes its variables (``get_variable`` cannot create variables inside a loop
  body; the body reads them, captured, so their gradients flow out of the loop) and
  gives the output's dtype and shape, and takes TF's seeds (the body's draws are
  uncounted); nothing fetches it, so it never runs.  The
  outputs accumulate in a loop variable, ``concat``-ed one step at a time (time-major,
  the time dimension free in its shape invariant; a ``ds.TensorArray`` write copies too).
  Step ``t`` copies the ``t`` rows so far: ``T**2/2`` rows for ``T`` steps, half what
  writing each step into a preallocated ``[T, batch, units]`` buffer with
  ``tensor_scatter_nd_update`` copies, and faster measured (BasicLSTMCell(64), batch
  32, depth 16, 200 steps, forward+backward on 2 CPU cores: 290 ms against 486 ms).
  The gradient (``_WhileGrad``) runs the loop again keeping every iteration's loop
  variables, so training holds those ``T**2/2`` rows of outputs too (and sums a dense
  gradient of the inputs per step): fine for tens to hundreds of steps, quadratic
  beyond.  At 20 steps the loop costs about 1.3x the unrolled forward and 2.2x its
  forward+backward (3.6 and 16 ms against 2.8 and 7 ms; 200 steps: 58 and 300 ms
  against 28 and 86 ms).  A cell with random ops inside (``DropoutWrapper`` with
  dropout) trains too: the loop records each step's dropout draws, and its gradient
  replays the steps with those masks (``ops/control_flow.py``); the draws are kept
  until the step ends (``[T, batch, units]`` per dropout).
"""

from __future__ import annotations

import collections
import contextlib

from . import dtypes
from .graph import control_dependencies, convert_to_tensor, get_default_graph
from .initializers import constant_initializer, zeros_initializer
from .ops import (concat, constant, expand_dims, gather, less, matmul, sigmoid, stack,
                  tanh, transpose, unstack, where, zeros, zeros_like)
from .ops.array import identity, split
from .ops.array_fill import shape
from .ops.control_flow import Assert, most_specific_compatible, while_loop
from .ops.clipping import clip_by_value
from .ops.elementwise import cast, equal, floor
from .ops.random import random_uniform, uncounted_seeds
from .ops.masking import reverse, reverse_sequence
from .ops.nn import bias_add, dropout
from .ops.reduce import reduce_all
from .snake_case import to_snake_case
from .tensor_shape import TensorShape
from .variable_scope import get_variable, variable_scope
from .variables import trainable_variables

__all__ = ["RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell",
           "DropoutWrapper", "ResidualWrapper", "DeviceWrapper", "LSTMStateTuple",
           "dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn"]

LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ["c", "h"])


class RNNCell:
    """The base of the cells: ``cell(inputs, state) -> (output, new_state)``.  Also TF1's
    ``tf.nn.rnn_cell.RNNCell`` to subclass, made without ``num_units``: the subclass
    gives ``state_size`` and ``output_size`` (else NotImplementedError, TF's "Abstract
    method") and overrides ``__call__``, or ``call(inputs, state)``, which the first
    call runs in the cell's variable scope (``scope``, the ``name`` given, or the class's
    name in snake case) and every later one in it again with reuse, as TF1's layers; the
    variables that first call makes are the cell's."""

    _default_name = "rnn_cell"

    def __init__(self, num_units=None, activation=None, reuse=None, name=None, dtype=None,
                 trainable=True, **kwargs):
        _check_supported_dtype(dtype)
        # TF1's layer keywords a subclass passes on (``super().__init__(_reuse=reuse)``);
        # any other is TF's TypeError, never silently dropped
        unknown = sorted(set(kwargs) - {"_reuse", "_scope"})
        if unknown:
            raise TypeError(f"('Keyword argument not understood:', {unknown[0]!r})")
        self._num_units = None if num_units is None else int(num_units)
        self._activation = activation or tanh
        self._reuse = kwargs.get("_reuse") if reuse is None else reuse
        self._name, self._dtype = name, dtype
        self._variables = None           # made on the first call

    @property
    def state_size(self):
        if self._num_units is None:
            raise NotImplementedError("Abstract method")
        return self._num_units

    @property
    def output_size(self):
        if self._num_units is None:
            raise NotImplementedError("Abstract method")
        return self._num_units

    def zero_state(self, batch_size, dtype):
        """A zero state for ``batch_size`` sequences (an int or a scalar tensor)."""
        return _zeros_like_size(self.state_size, batch_size, dtype)

    # TF1's cells are layers: their variables, in the order they were made, once the
    # first call has made them (before it, none); all of a cell's are trainable.
    trainable = True
    built = property(lambda self: getattr(self, "_variables", None) is not None,
                     doc="Whether the first call has made the cell's variables.")
    trainable_variables = property(lambda self: list(getattr(self, "_variables", None) or ()),
                                   doc="The cell's variables, as TF1's layer lists them.")
    variables = weights = trainable_weights = trainable_variables
    non_trainable_variables = non_trainable_weights = property(lambda self: [])

    def __call__(self, inputs, state, scope=None):
        if hasattr(self, "call"):
            return self._call_subclass(inputs, state, scope)
        inputs = convert_to_tensor(inputs)
        depth = inputs.shape.dims[-1] if inputs.shape.ndims == 2 else None
        if depth is None:
            raise ValueError(f"{type(self).__name__}: inputs '{inputs.name}' must be 2-D "
                             f"with a known last dimension, got {inputs.shape}.")
        for t in [inputs] + _flat_state(state):      # no op made for a numpy state
            _check_supported_dtype(getattr(t, "dtype", None))
        with variable_scope(scope or self._name or self._default_name, reuse=self._reuse):
            if self._variables is None:
                self._variables = self._build(depth, self._dtype or inputs.dtype)
            return self._step(inputs, state, *self._variables)

    def _call_subclass(self, inputs, state, scope):
        """A subclass's ``call`` (see the class docstring): the later calls re-enter the
        first one's scope (wherever they are made), as a TF1 layer does."""
        made = self._variables is None
        if made:
            before = set(trainable_variables())
            with variable_scope(scope or self._name or to_snake_case(type(self).__name__),
                                reuse=self._reuse) as entered:
                result = self.call(inputs, state)
            self._variables = [v for v in trainable_variables() if v not in before]
            self._scope = entered
            return result
        with variable_scope(scope or self._scope, reuse=True):
            return self.call(inputs, state)

    def _build(self, depth, dtype):
        raise NotImplementedError

    def _step(self, inputs, state, *variables):
        raise NotImplementedError


def _check_supported_dtype(dtype) -> None:
    """TF1's cells compute in floats (their sigmoid and tanh): another dtype for a cell,
    its inputs or its state is TF's ValueError (an int32 batch of token ids passed
    without its embedding lookup is the usual one)."""
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(f"RNN cell only supports floating point inputs, but received "
                         f"dtype: {dtype}")


def _flat_state(state) -> list:
    """The tensors of a (nested) cell state."""
    if isinstance(state, (tuple, list)):
        return [t for part in state for t in _flat_state(part)]
    return [state]


def _weights(depth, units, dtype, kernel_initializer=None, bias_initializer=None):
    kernel = get_variable("kernel", (depth, units), dtype, kernel_initializer)
    bias = get_variable("bias", (units,), dtype, bias_initializer or zeros_initializer())
    return kernel, bias


class BasicRNNCell(RNNCell):
    _default_name = "basic_rnn_cell"

    def _build(self, depth, dtype):
        return _weights(depth + self._num_units, self._num_units, dtype)

    def _step(self, inputs, state, kernel, bias):
        output = self._activation(bias_add(matmul(concat([inputs, state], 1), kernel), bias))
        return output, output


class BasicLSTMCell(RNNCell):
    _default_name = "basic_lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, initializer=None):
        super().__init__(num_units, activation, reuse, name, dtype)
        self._forget_bias = float(forget_bias)
        self._initializer = initializer
        self._state_is_tuple = bool(state_is_tuple)

    @property
    def state_size(self):
        sizes = LSTMStateTuple(self._num_units, self._h_size)
        return sizes if self._state_is_tuple else sum(sizes)

    @property
    def _h_size(self) -> int:
        return self._num_units

    def _state_parts(self, state) -> tuple:
        """(c, h): TF1's LSTMStateTuple, or with ``state_is_tuple=False`` the halves of
        its ``[batch, c + h]`` concatenation (TF1's deprecated form)."""
        if self._state_is_tuple:
            return tuple(state)
        return tuple(split(state, [self._num_units, self._h_size], axis=1))

    def _new_state(self, c, h):
        return LSTMStateTuple(c, h) if self._state_is_tuple else concat([c, h], 1)

    def _build(self, depth, dtype):
        return _weights(depth + self._num_units, 4 * self._num_units, dtype, self._initializer)

    def _step(self, inputs, state, kernel, bias):
        c, h = self._state_parts(state)
        gates = bias_add(matmul(concat([inputs, h], 1), kernel), bias)
        i, j, f, o = split(gates, 4, axis=1)
        new_c = c * sigmoid(f + self._forget_bias) + sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * sigmoid(o)
        return new_h, self._new_state(new_c, new_h)


class LSTMCell(BasicLSTMCell):
    """TF1's ``LSTMCell``: ``BasicLSTMCell``'s formulas with an ``initializer`` for the
    kernels, and TF1's options: peephole connections (``w_f_diag``, ``w_i_diag``,
    ``w_o_diag``: the memory ``c`` feeds the forget, input and output gates), ``cell_clip``
    on ``c``, a projection of the output to ``num_proj`` units (``projection/kernel``;
    the state's ``h`` is the projected output) and ``proj_clip`` on it."""

    _default_name = "lstm_cell"

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None):
        for option, value in (("num_unit_shards", num_unit_shards),
                              ("num_proj_shards", num_proj_shards)):
            if value is not None:
                raise ValueError(f"LSTMCell: devsession does not support {option} (TF1's "
                                 f"deprecated kernel sharding).")
        if proj_clip is not None and num_proj is None:
            raise ValueError("LSTMCell: proj_clip needs num_proj.")
        super().__init__(num_units, forget_bias, state_is_tuple, activation, reuse, name,
                         dtype, initializer)
        self._peepholes = bool(use_peepholes)
        self._cell_clip, self._proj_clip = cell_clip, proj_clip
        self._num_proj = None if num_proj is None else int(num_proj)

    @property
    def _h_size(self) -> int:
        return self._num_proj or self._num_units

    @property
    def output_size(self):
        return self._num_proj or self._num_units

    def _build(self, depth, dtype):
        units = self._num_units
        made = list(_weights(depth + (self._num_proj or units), 4 * units, dtype,
                             self._initializer))
        if self._peepholes:
            made += [get_variable(name, (units,), dtype, self._initializer)
                     for name in ("w_f_diag", "w_i_diag", "w_o_diag")]
        if self._num_proj is not None:
            with variable_scope("projection"):
                made.append(get_variable("kernel", (units, self._num_proj), dtype,
                                         self._initializer))
        return made

    def _step(self, inputs, state, kernel, bias, *extra):
        c, h = self._state_parts(state)
        peepholes = extra[:3] if self._peepholes else None
        gates = bias_add(matmul(concat([inputs, h], 1), kernel), bias)
        i, j, f, o = split(gates, 4, axis=1)
        if peepholes:
            w_f, w_i, w_o = peepholes
            new_c = sigmoid(f + self._forget_bias + w_f * c) * c + \
                sigmoid(i + w_i * c) * self._activation(j)
        else:
            new_c = sigmoid(f + self._forget_bias) * c + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            new_c = clip_by_value(new_c, -self._cell_clip, self._cell_clip)
        output_gate = sigmoid(o + peepholes[2] * new_c) if peepholes else sigmoid(o)
        new_h = output_gate * self._activation(new_c)
        if self._num_proj is not None:
            new_h = matmul(new_h, extra[-1])
            if self._proj_clip is not None:
                new_h = clip_by_value(new_h, -self._proj_clip, self._proj_clip)
        return new_h, self._new_state(new_c, new_h)


class GRUCell(RNNCell):
    _default_name = "gru_cell"

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None):
        super().__init__(num_units, activation, reuse, name, dtype)
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer

    def _build(self, depth, dtype):
        units = self._num_units
        with variable_scope("gates"):
            gates = _weights(depth + units, 2 * units, dtype, self._kernel_initializer,
                             self._bias_initializer or constant_initializer(1.0))
        with variable_scope("candidate"):
            candidate = _weights(depth + units, units, dtype, self._kernel_initializer,
                                 self._bias_initializer)
        return gates + candidate

    def _step(self, inputs, state, gate_kernel, gate_bias, kernel, bias):
        value = sigmoid(bias_add(matmul(concat([inputs, state], 1), gate_kernel), gate_bias))
        r, u = split(value, 2, axis=1)
        candidate = self._activation(bias_add(matmul(concat([inputs, r * state], 1), kernel),
                                              bias))
        new_h = u * state + (1 - u) * candidate
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """``cells`` stacked: each one's output is the next one's input; the state is the
    tuple of theirs."""

    _default_name = "multi_rnn_cell"

    def __init__(self, cells, state_is_tuple=True):
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        self._cells = list(cells)
        self._reuse, self._name, self._built = None, None, False
        self._state_is_tuple = bool(state_is_tuple)
        if not state_is_tuple and any(isinstance(cell.state_size, tuple)
                                      for cell in self._cells):
            raise ValueError(f"Some cells return tuples of states, but the flag "
                             f"state_is_tuple is not set. State sizes are: "
                             f"{[cell.state_size for cell in self._cells]}")

    @property
    def state_size(self):
        sizes = tuple(cell.state_size for cell in self._cells)
        return sizes if self._state_is_tuple else sum(sizes)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    built = property(lambda self: self._built, doc="Whether the stack has been called.")
    trainable_variables = property(lambda self: [v for cell in self._cells
                                                 for v in cell.trainable_variables],
                                   doc="The cells' variables, the first cell's first.")
    variables = weights = trainable_weights = trainable_variables

    def __call__(self, inputs, state, scope=None):
        self._built = True
        with variable_scope(scope or self._default_name):
            if self._state_is_tuple:
                states = state
            else:           # TF1's deprecated form: the cells' states side by side
                states = split(state, [cell.state_size for cell in self._cells], axis=1)
            new_states = []
            for k, (cell, cell_state) in enumerate(zip(self._cells, states)):
                with variable_scope(f"cell_{k}"):
                    inputs, new_state = cell(inputs, cell_state)
                new_states.append(new_state)
            return inputs, tuple(new_states) if self._state_is_tuple else concat(new_states, 1)


class _Wrapper(RNNCell):
    """A cell around ``cell``: its sizes, zero state and variables (whose names the
    wrapper does not change, as TF1's wrappers)."""

    def __init__(self, cell):
        self._cell = cell

    @property
    def state_size(self):
        return self._cell.state_size

    @property
    def output_size(self):
        return self._cell.output_size

    def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)


class DropoutWrapper(_Wrapper):
    """``cell`` with dropout on its inputs, outputs and new state, each kept with its
    probability (a float or a scalar tensor: a placeholder switches dropout off at
    evaluation); the wrapped cell's variables keep their names, as TF1's.  An LSTM's
    memory ``c`` is never dropped, only its ``h`` (TF1's default state filter).  Each
    step draws its own masks (``nn.dropout``), or with ``variational_recurrent`` (Gal and
    Ghahramani's) every step of a run uses the same ones: TF1's ``[1, depth]`` uniform
    noise per input, output and state part, drawn once per run (so shared by the batch,
    as TF's), each value kept where ``floor(keep + noise)`` is 1 and scaled by
    ``1/keep``; ``dtype`` is then required, and ``input_size`` (the inputs' depth) when
    the inputs are dropped."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        if dropout_state_filter_visitor is not None:
            raise ValueError("DropoutWrapper: devsession does not support "
                             "dropout_state_filter_visitor yet.")
        for what, keep in (("input_keep_prob", input_keep_prob),
                           ("output_keep_prob", output_keep_prob),
                           ("state_keep_prob", state_keep_prob)):
            if isinstance(keep, (int, float)) and not 0.0 < keep <= 1.0:
                raise ValueError(f"Parameter {what} must be between 0 and 1: {keep}")
        super().__init__(cell)
        self._seed = seed
        self._keep = (input_keep_prob, output_keep_prob, state_keep_prob)
        self._noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            drops_inputs = not (isinstance(input_keep_prob, (int, float)) and
                                input_keep_prob == 1.0)
            if drops_inputs and input_size is None:
                raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 "
                                 "or is unknown, input_size must be provided")
            self._noise = (_map_state(lambda depth: self._batch_noise(depth, dtype),
                                      input_size) if drops_inputs else None,
                           _map_state(lambda depth: self._batch_noise(depth, dtype),
                                      cell.output_size),
                           _map_state(lambda depth: self._batch_noise(depth, dtype),
                                      cell.state_size))

    def _batch_noise(self, depth, dtype):
        depth = depth if isinstance(depth, int) else TensorShape(depth).as_list()
        return random_uniform([1] + ([depth] if isinstance(depth, int) else depth),
                              dtype=dtype, seed=self._seed)

    def __call__(self, inputs, state, scope=None):
        keep_inputs, keep_outputs, keep_state = self._keep
        noise_inputs, noise_outputs, noise_state = self._noise or (None, None, None)
        output, new_state = self._cell(self._dropout(inputs, keep_inputs, noise_inputs), state,
                                       scope)
        return (self._dropout(output, keep_outputs, noise_outputs),
                self._drop_state(new_state, keep_state, noise_state))

    def _drop_state(self, state, keep, noise):
        if isinstance(state, LSTMStateTuple):
            return LSTMStateTuple(state.c, self._dropout(state.h, keep, noise and noise.h))
        if isinstance(state, tuple):             # a MultiRNNCell's
            return tuple(self._drop_state(s, keep, noise and noise[k])
                         for k, s in enumerate(state))
        return self._dropout(state, keep, noise)

    def _dropout(self, t, keep, noise=None):
        if isinstance(keep, (int, float)) and keep == 1.0:
            return t
        if noise is None:
            return dropout(t, keep_prob=keep, seed=self._seed)
        t = convert_to_tensor(t)
        keep = cast(keep, t.dtype)
        return (t / keep) * floor(keep + noise)


class ResidualWrapper(_Wrapper):
    """``cell`` whose output is ``residual_fn(inputs, output)``: by default the inputs
    plus the output (which must have the inputs' size), TF1's residual connection."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn or (lambda inputs, output: inputs + output)

    def __call__(self, inputs, state, scope=None):
        output, new_state = self._cell(inputs, state, scope)
        return self._residual_fn(convert_to_tensor(inputs), output), new_state


class DeviceWrapper(_Wrapper):
    """``cell`` built and run on ``device`` (TF1's way to spread a stack over devices)."""

    def __init__(self, cell, device):
        super().__init__(cell)
        self._device = device

    def __call__(self, inputs, state, scope=None):
        from .graph import device

        with device(self._device):
            return self._cell(inputs, state, scope)


def _zeros_like_size(size, batch_size, dtype):
    """Zeros of the (nested) ``size``: ``[batch_size, units]`` each."""
    def zero(units):
        return zeros((batch_size, units) if isinstance(batch_size, int) else
                     stack([batch_size, units]), dtype)
    return _map_state(zero, size)


def _map_state(fn, *states):
    """``fn`` over the leaves (tensors, or a state size's ints) of (nested) states of
    one structure."""
    first = states[0]
    if isinstance(first, tuple):
        parts = [_map_state(fn, *parts) for parts in zip(*states)]
        return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
    return fn(*states)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
               scope=None):
    """The cell run over the list ``inputs`` (each ``[batch, depth]``): ``(outputs,
    final_state)`` (see the module docstring)."""
    inputs = [convert_to_tensor(x) for x in inputs]
    if not inputs:
        raise ValueError("static_rnn: inputs must not be empty.")
    with variable_scope(scope or "rnn"):
        return _unrolled(cell, inputs, initial_state, dtype, sequence_length)


def _unrolled(cell, inputs, initial_state, dtype, sequence_length, as_loop=False):
    """One cell call per input; past a sequence's length, a zero output and the state
    kept (a select per step).  ``as_loop`` (``dynamic_rnn``'s steps, TF's while loop):
    the random ops of steps after the first take uncounted seeds, as TF builds the cell's
    once (``ops/random.py``'s ``uncounted_seeds``); ``static_rnn`` builds them per step,
    as TF's."""
    state = _initial_state(cell, inputs[0], 0, initial_state, dtype)
    lengths = _lengths(sequence_length)
    outputs = []
    tag = get_default_graph().unique_name("rnn_step", False)
    for t, x in enumerate(inputs):
        with uncounted_seeds(f"{tag}/{t}") if as_loop and t else contextlib.nullcontext():
            output, state = _masked(t, lengths, state, *cell(x, state))
        outputs.append(output)
    return outputs, state


def _lengths(sequence_length):
    if sequence_length is None:
        return None
    lengths = cast(convert_to_tensor(sequence_length), dtypes.int32)
    if lengths.shape.ndims not in (None, 1):
        raise ValueError(f"sequence_length must be a vector of length batch_size, but saw "
                         f"shape: {lengths.shape}")
    return lengths


def _checked_lengths(sequence_length, batch_size):
    """``dynamic_rnn``'s lengths, which wait for TF's check that there is one per batch
    entry (an Assert, InvalidArgumentError at run with TF's words: a vector of another
    size would broadcast through the steps' selects); none where the graph knows both
    sizes equal."""
    lengths = _lengths(sequence_length)
    if lengths is None:
        return None
    count = None if lengths.shape.ndims is None else lengths.shape.dims[0]
    if isinstance(batch_size, int) and count == batch_size:
        return lengths
    expected = stack([batch_size])
    check = Assert(reduce_all(equal(shape(lengths), expected)),
                   [f"Expected shape for Tensor {lengths.name} is ", expected,
                    " but saw shape: ", shape(lengths)])
    with control_dependencies([check]):
        return identity(lengths, name="CheckSeqLen")


def _masked(t, lengths, state, output, new_state):
    """A step's ``(output, new_state)``, where ``t`` (an int or a scalar tensor) is past
    a sequence's length: a zero output and the old ``state`` (TF1's ``_rnn_step``)."""
    if lengths is None:
        return output, new_state
    live = expand_dims(less(t, lengths), 1)
    return (where(live, output, zeros_like(output)),
            _map_state(lambda new, old: where(live, new, old), new_state, state))


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """The cell run over the time axis of ``inputs``: ``(outputs, final_state)`` (see the
    module docstring)."""
    with variable_scope(scope or "rnn"):
        return _over_time(cell, convert_to_tensor(inputs), sequence_length, initial_state,
                          dtype, time_major)


def _over_time(cell, x, sequence_length, initial_state, dtype, time_major):
    """``dynamic_rnn`` in the current variable scope: unrolled when the number of time
    steps is known, a while loop otherwise (see the module docstring)."""
    if x.shape.ndims is None or x.shape.ndims < 3:
        raise ValueError(f"dynamic_rnn: inputs '{x.name}' must be [batch, time, depth] (or "
                         f"time first), got shape {x.shape}.")
    time_axis = 0 if time_major else 1
    sequence_length = _checked_lengths(sequence_length, _batch_size(x, 1 - time_axis))
    steps = x.shape.dims[time_axis]
    if steps is not None:
        outputs, state = _unrolled(cell, unstack(x, num=steps, axis=time_axis),
                                   initial_state, dtype, sequence_length, as_loop=True)
        return stack(outputs, axis=time_axis), state
    outputs, state = _looped(cell, x if time_major else _swap_batch_and_time(x),
                             initial_state, dtype, sequence_length)
    return (outputs if time_major else _swap_batch_and_time(outputs)), state


def _swap_batch_and_time(x):
    return transpose(x, [1, 0] + list(range(2, x.shape.ndims)))


def _looped(cell, x, initial_state, dtype, sequence_length):
    """The cell over time-major ``x`` ([time, batch, depth], time unknown) in a
    ``while_loop``: ``(outputs [time, batch, units], final_state)``."""
    state = _map_state(convert_to_tensor, _initial_state(cell, x, 1, initial_state, dtype))
    lengths = _lengths(sequence_length)
    # Makes the cell's variables and shows its output's dtype and shape; never runs.
    first_output, first_state = cell(gather(x, 0), state)
    zero_output = _zeros_like_size(cell.output_size, _batch_size(x, 1), first_output.dtype)
    no_outputs = expand_dims(zero_output, 0)[:0]
    steps = shape(x)[0]

    tag = get_default_graph().unique_name("rnn_body", False)

    def body(t, state, outputs):
        with uncounted_seeds(tag):        # the call above took TF's seeds
            output, state = _masked(t, lengths, state, *cell(gather(x, t), state))
        return t + 1, state, concat([outputs, expand_dims(output, 0)], 0)

    # What both the loop's inputs and the cell's results fit (the time dimension free).
    invariants = (TensorShape([]),
                  _map_state(lambda a, b: most_specific_compatible(a.shape, b.shape), state,
                             first_state),
                  most_specific_compatible(TensorShape([None]).concatenate(first_output.shape),
                                           no_outputs.shape))
    _, state, outputs = while_loop(lambda t, state, outputs: less(t, steps), body,
                                   (constant(0), state, no_outputs),
                                   shape_invariants=invariants, name="while")
    return outputs, state


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """``cell_fw`` over ``inputs`` and ``cell_bw`` over each sequence reversed (see the
    module docstring)."""
    x = convert_to_tensor(inputs)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw"):
            outputs_fw, state_fw = _over_time(cell_fw, x, sequence_length, initial_state_fw,
                                              dtype, time_major)

        def backwards(t):
            if sequence_length is None:
                return reverse(t, [time_axis])
            return reverse_sequence(t, sequence_length, seq_axis=time_axis,
                                    batch_axis=batch_axis)
        with variable_scope("bw"):
            reversed_outputs, state_bw = _over_time(cell_bw, backwards(x), sequence_length,
                                                    initial_state_bw, dtype, time_major)
            outputs_bw = backwards(reversed_outputs)
    return (outputs_fw, outputs_bw), (state_fw, state_bw)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """TF1's ``tf.nn.static_bidirectional_rnn``: ``static_rnn`` of ``cell_fw`` over the
    list ``inputs`` and of ``cell_bw`` over it reversed (each sequence reversed within
    its ``sequence_length``), in the ``bidirectional_rnn/fw`` and ``/bw`` variable
    scopes: ``(outputs, state_fw, state_bw)``, each output the forward and backward
    outputs of its step concatenated on the last axis."""
    inputs = [convert_to_tensor(x) for x in inputs]
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")

    def backwards(steps):
        if sequence_length is None:
            return steps[::-1]
        return unstack(reverse_sequence(stack(steps), sequence_length, seq_axis=0,
                                        batch_axis=1), num=len(steps))
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw"):
            outputs_fw, state_fw = _unrolled(cell_fw, inputs, initial_state_fw, dtype,
                                             sequence_length)
        with variable_scope("bw"):
            reversed_outputs, state_bw = _unrolled(cell_bw, backwards(inputs),
                                                   initial_state_bw, dtype, sequence_length)
    outputs = [concat([fw, bw], 1) for fw, bw in zip(outputs_fw, backwards(reversed_outputs))]
    return outputs, state_fw, state_bw


def _batch_size(x, axis):
    """The size of ``x``'s batch ``axis``: an int when known, else a scalar tensor."""
    dims = x.shape.dims
    size = dims[axis] if dims is not None and len(dims) > axis else None
    return size if size is not None else shape(x)[axis]


def _initial_state(cell, x, batch_axis, initial_state, dtype):
    """``initial_state``, or the cell's zero state for the batch of ``x``."""
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    return cell.zero_state(_batch_size(x, batch_axis), dtypes.as_dtype(dtype))
