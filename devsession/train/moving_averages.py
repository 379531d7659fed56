"""``ExponentialMovingAverage``: TF1's shadow copies of variables (or tensors) that
follow them slowly, for evaluating with averaged weights.

``apply(var_list)`` makes, once per item, a shadow variable named
``<item>/ExponentialMovingAverage`` (not trainable, on the item's device): for a
Variable it starts at the variable's initial value (the same run of
``global_variables_initializer`` gives both the same value, random ones included) and
the variable joins ``tf.GraphKeys.MOVING_AVERAGE_VARIABLES``; for a tensor it starts at
zero.  The op ``apply`` returns moves every shadow, as TF1's ``assign_moving_average``:

    shadow -= (shadow - value) * (1 - decay)

with ``decay = min(decay, (1 + num_updates) / (10 + num_updates))`` when ``num_updates``
is given (faster averaging early on).  ``decay`` is a float or, as TF's, a tensor or
variable read at each run of the update (a placeholder with a default, a schedule).  Run
the update after the train op, as TF1 programs do::

    with ds.control_dependencies([train_op]):
        train_and_average = ema.apply(ds.trainable_variables())

``variables_to_restore()`` maps the shadows' names to the variables, so that a ``Saver``
built from it loads the averages into the model's own variables for evaluation.
``zero_debias=True`` corrects the averages of tensors (whose shadows start at zero) for
that start, as TF's: each keeps ``<shadow>/biased`` (the plain average) and
``<shadow>/local_step`` (its update count t), and the shadow becomes
``biased / (1 - decay ** t)``; averages of Variables never need it.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Operation, Tensor, control_dependencies, convert_to_tensor, device, \
    get_default_graph, name_scope
from ..graph_keys import GraphKeys
from ..ops import cast, minimum, zeros
from ..ops import pow as pow_
from ..ops.state import variable_ref
from ..variables import Variable, global_variables, trainable_variables
from ..variable_scope import get_variable_scope
from .optimizer import colocated, group_after

__all__ = ["ExponentialMovingAverage", "assign_moving_average", "moving_average_variables"]

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


class ExponentialMovingAverage:
    """See the module docstring."""

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay, self._num_updates, self._name = decay, num_updates, name
        self._zero_debias = bool(zero_debias)
        self._averages: dict = {}          # the Variable or Tensor -> its shadow Variable

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list=None) -> Operation:
        """The op moving each shadow of ``var_list`` (default: the trainable variables)
        toward its item, making the shadows the first time."""
        var_list = trainable_variables() if var_list is None else list(var_list)
        for item in var_list:
            if item.dtype not in _FLOATS:
                raise TypeError(f"The variables must be half, float, or double: "
                                f"{item.name} is {item.dtype.name}.")
            if _key(item) not in self._averages:
                self._averages[_key(item)] = self._shadow(item)
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, name="decay") \
                if isinstance(self._decay, (Tensor, Variable)) else \
                convert_to_tensor(float(self._decay), dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                steps = cast(self._num_updates, dtypes.float32, name="num_updates")
                decay = minimum(decay, (1.0 + steps) / (10.0 + steps))
            updates = [assign_moving_average(
                self._averages[_key(item)], item, decay,
                zero_debias=self._zero_debias and not isinstance(item, Variable)).op
                for item in var_list]
            return group_after(updates, scope)

    def average(self, var):
        """The shadow variable of ``var`` (None before ``apply`` made one)."""
        return self._averages.get(_key(var))

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow, made or to be made (for a ``Saver``)."""
        shadow = self.average(var)
        if shadow is not None:
            return shadow.op.name
        return get_default_graph().unique_name(f"{var.op.name}/{self._name}",
                                               mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """{checkpoint name: variable}: the shadow's name for each of
        ``moving_avg_variables`` (default: the trainable and moving-average variables),
        and its own name for every other global variable whose name is not taken (so
        not the shadows of those), as TF1's."""
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        averaged = {_key(v): v for v in moving_avg_variables}
        names = {self.average_name(v): v for v in averaged.values()}
        for v in global_variables():
            if _key(v) not in averaged and v.op.name not in names:
                names[v.op.name] = v
        return names

    def _shadow(self, item) -> Variable:
        graph = get_default_graph()
        if isinstance(item, Variable):
            initial = item.initial_value
            graph.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, item)
        else:
            item = convert_to_tensor(item)
            if not item.shape.is_fully_defined():
                raise ValueError(f"ExponentialMovingAverage needs tensors of fully defined "
                                 f"shape; '{item.name}' is {item.shape}.")
            initial = None
        scope = get_variable_scope().name         # TF1's slot naming: m/m/w/<name>
        name = f"{scope}/{item.op.name}/{self._name}" if scope else f"{item.op.name}/{self._name}"
        with control_dependencies(None), name_scope(None), device(None), \
                device(item.device or None):
            if initial is None:
                initial = zeros(item.shape.as_list(), item.dtype)
            shadow = Variable(initial, name=name, trainable=False)
        return colocated(shadow, item) if isinstance(item, Variable) else shadow


def _key(item):
    """What identifies a Variable or tensor among the averaged (its op and output)."""
    if isinstance(item, Variable):
        return item.op
    return convert_to_tensor(item)


def assign_moving_average(variable: Variable, value, decay, zero_debias=False) -> Tensor:
    """``variable -= (variable - value) * (1 - decay)``: TF1's ``AssignMovingAvg`` op
    (named so), its rate ``1 - decay`` a constant "decay" in the variable's dtype; with
    ``zero_debias``, toward the debiased average instead (see the module docstring)."""
    with name_scope("AssignMovingAvg") as scope:
        rate = 1.0 - decay if isinstance(decay, Tensor) else \
            convert_to_tensor(1.0 - float(decay), dtype_hint=variable.dtype, name="decay")
        if rate.dtype != variable.dtype:
            rate = cast(rate, variable.dtype)
        target = variable_ref(variable, "AssignMovingAvg")
        op_type, value = ("Assign", _debiased(variable, value, rate)) if zero_debias else \
            ("AssignSub", (variable - value) * rate)
        return target.graph.create_op(op_type, [target, value], name=scope.rstrip("/"),
                                      exact_name=True).outputs[0]


def _debiased(variable: Variable, value, rate) -> Tensor:
    """TF's ``_zero_debias``: the plain average ``biased`` and the step count move; the
    shadow's new value is ``biased / (1 - (1 - rate) ** step)``."""
    with control_dependencies(None), name_scope(None), device(None), \
            device(variable.device or None):
        biased = Variable(zeros(variable.shape.as_list(), variable.dtype),
                          name=f"{variable.op.name}/biased", trainable=False)
        step = Variable(zeros([], variable.dtype), name=f"{variable.op.name}/local_step",
                        trainable=False)
    moved = _assign("AssignSub", biased, (biased - value) * rate)
    counted = _assign("AssignAdd", step, convert_to_tensor(1, dtype=variable.dtype))
    return moved / (1.0 - pow_(1.0 - rate, counted))


def _assign(op_type: str, variable: Variable, value) -> Tensor:
    target = variable_ref(variable, op_type)
    return target.graph.create_op(op_type, [target, value], name=op_type).outputs[0]


def moving_average_variables(graph=None) -> list:
    """The variables an ``ExponentialMovingAverage`` averages (TF1's collection)."""
    return (graph or get_default_graph()).get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES)
