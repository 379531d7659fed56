"""``ds.Variable``: state that lives in a session's (or a cluster's) resource containers.

A Variable is four nodes, named as in TF1: ``v`` (VariableV2, which names the resource),
``v/initial_value`` (its initial value), ``v/Assign`` (the initializer) and ``v/read``
(the value other ops consume).  The resource itself lives in the target's containers,
keyed by (container, shared_name or node name); an Assign's first input is a *reference*
to that resource, not a read of it, so initializing never reads the uninitialized value.
"""

from __future__ import annotations

from .graph import Tensor, convert_to_tensor, device, get_default_graph, name_scope, \
    control_dependencies
from . import ops as api

__all__ = ["Variable", "global_variables_initializer", "global_variables",
           "variables_initializer", "GLOBAL_VARIABLES"]

GLOBAL_VARIABLES = "variables"


class Variable:
    """A mutable tensor; ``sess.run(v.initializer)`` before reading it."""

    def __init__(self, initial_value, name: str | None = None, dtype=None,
                 trainable: bool = True, container: str = "", shared_name: str = ""):
        graph = get_default_graph()
        with control_dependencies(None), name_scope(name or "Variable") as scope:
            base = scope.rstrip("/")
            value = convert_to_tensor(initial_value, dtype=dtype, name="initial_value") \
                if dtype is not None else convert_to_tensor(initial_value, name="initial_value")
            if not value.shape.is_fully_defined():
                raise ValueError(f"Variable '{base}' needs an initial value of fully defined "
                                 f"shape, got {value.shape}.")
            self._variable = graph.create_op(
                "VariableV2", (), {"dtype": value.dtype, "shape": value.shape,
                                   "container": container, "shared_name": shared_name},
                name=base, exact_name=True).outputs[0]
            with device(self._variable.op.device):   # as TF1: both follow the variable
                self._initializer = graph.create_op(
                    "Assign", [self._variable, value], name="Assign").outputs[0].op
                self._snapshot = api.identity(self._variable, name="read")
        self._initial_value = value
        self.trainable = trainable
        graph.add_to_collection(GLOBAL_VARIABLES, self)

    # --- properties, as TF1's ---------------------------------------------------------

    name = property(lambda self: self._variable.name)
    op = property(lambda self: self._variable.op)
    dtype = property(lambda self: self._variable.dtype)
    shape = property(lambda self: self._variable.shape)
    graph = property(lambda self: self._variable.graph)
    device = property(lambda self: self._variable.device)
    initializer = property(lambda self: self._initializer)
    initial_value = property(lambda self: self._initial_value)

    def get_shape(self):
        return self.shape

    def value(self) -> Tensor:
        return self._snapshot

    read_value = value

    def _as_tensor(self) -> Tensor:
        return self._snapshot

    def _as_graph_element(self) -> Tensor:
        return self._snapshot

    def assign(self, value, name=None) -> Tensor:
        """An op that sets the variable; fetching it gives the new value."""
        value = convert_to_tensor(value, dtype_hint=self.dtype, graph=self.graph)
        return self.graph.create_op("Assign", [self._variable, value], name=name or
                                    f"{self.op.name}/Assign").outputs[0]

    def assign_add(self, delta, name=None) -> Tensor:
        """An op that adds ``delta`` to the variable; fetching it gives the new value."""
        delta = convert_to_tensor(delta, dtype_hint=self.dtype, graph=self.graph)
        return self.graph.create_op("AssignAdd", [self._variable, delta], name=name or
                                    f"{self.op.name}/AssignAdd").outputs[0]

    def eval(self, session=None):
        return self._snapshot.eval(session=session)

    def load(self, value, session=None) -> None:
        from .session import get_default_session

        session = session or get_default_session()
        session.run(self._initializer, feed_dict={self._initial_value: value})

    def __repr__(self) -> str:
        return f"<ds.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    # Arithmetic goes through the snapshot, so a Variable works wherever a Tensor does.
    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return getattr(self._snapshot, attr)


def _delegate_operators() -> None:
    names = ["add", "sub", "mul", "truediv", "pow", "matmul"]
    methods = [f"__{n}__" for n in names] + [f"__r{n}__" for n in names] + [
        "__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__abs__"]
    for method in methods:
        def forward(self, *args, _m=method):
            return getattr(self._snapshot, _m)(*args)
        setattr(Variable, method, forward)


_delegate_operators()


def global_variables(graph=None) -> list[Variable]:
    return (graph or get_default_graph()).get_collection(GLOBAL_VARIABLES)


def variables_initializer(var_list, name: str = "init"):
    """An op that runs the initializers of ``var_list``."""
    if not var_list:
        return api.no_op(name=name)
    return api.group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer():
    """An op that initializes every Variable in the default graph."""
    return variables_initializer(global_variables(), name="init")



