"""TF's ``tf.Module`` (TF1 has it too): a named container of variables and other
modules, the usual object to hand ``tf.train.Checkpoint``.

    class Dense(ds.Module):
        def __init__(self, n, name=None):
            super().__init__(name=name)
            with self.name_scope:                    # variables named "dense/w"
                self.w = ds.Variable(ds.ones([2, n]), name="w")

A module's name defaults to its class's in snake case; its name scope is made once, at
construction, inside the current one (``net/dense/``), unique as TF's.  ``variables``,
``trainable_variables`` and ``submodules`` walk the attributes as TF's
``_flatten_module``: attribute names sorted, lists in order and dicts by sorted key,
a module's own leaves first, then each submodule found, depth first, each object once.
Checkpoints track a module's attributes in assignment order (``train/object_graph.py``
treats it as any plain container).
"""

from __future__ import annotations

import functools
import re

from .graph import name_scope
from .variables import Variable

__all__ = ["Module"]

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


class Module:
    """TF's ``tf.Module(name=None)``; ``ValueError`` for a name that is not a Python
    identifier."""

    def __init__(self, name=None):
        if name is None:
            name = _CAMEL_TO_SNAKE.sub(r"_\1", type(self).__name__).lower()
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be "
                             f"valid Python identifiers (e.g. a valid class name).")
        self._name = name
        with name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> "_ScopeOf":
        """A context re-entering this module's name scope; its ``name`` is the scope's
        (``net/dense/``)."""
        return _ScopeOf(self._scope_name)

    @property
    def variables(self) -> tuple:
        """Every variable of this module and its submodules (see the module docstring)."""
        return tuple(self._flatten(lambda v: isinstance(v, Variable)))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(self._flatten(lambda v: isinstance(v, Variable) and v.trainable))

    @property
    def submodules(self) -> tuple:
        return tuple(self._flatten(lambda m: isinstance(m, Module)))

    def _flatten(self, predicate) -> list:
        found, seen = [], set()
        _flatten_module(self, predicate, found, seen, set())
        return found

    @classmethod
    def with_name_scope(cls, method):
        """Decorate ``method`` to run inside the module's name scope."""
        @functools.wraps(method)
        def inside(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return inside

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object named {self._name!r}>"


class _ScopeOf:
    """TF's ``name_scope`` object for a module: ``.name`` and a re-entrant context."""

    def __init__(self, name: str):
        self.name = name
        self._contexts = []

    def __enter__(self) -> str:
        context = name_scope(self.name)
        self._contexts.append(context)
        return context.__enter__()

    def __exit__(self, *exc):
        return self._contexts.pop().__exit__(*exc)


def _leaves(value) -> list:
    """TF's ``nest.flatten``: dicts by sorted key, lists and tuples in order."""
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _flatten_module(module, predicate, found: list, seen: set, stack: set) -> None:
    """TF's ``_flatten_module``: this module's leaves, then its submodules' in turn."""
    stack.add(id(module))
    submodules = []
    for key in sorted(vars(module)):
        for leaf in _leaves(vars(module)[key]):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                found.append(leaf)
            if isinstance(leaf, Module):
                submodules.append(leaf)
    for submodule in submodules:
        if id(submodule) not in stack:
            _flatten_module(submodule, predicate, found, seen, stack)
    stack.discard(id(module))
