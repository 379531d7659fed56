"""TF1's ``tf.make_template``: a function whose variables are made on its first call and
shared by every later one.

    dense = ds.make_template("dense", lambda x: x @ ds.get_variable("w", (3, 2)))
    a = dense(x)        # makes dense/w
    b = dense(y)        # uses dense/w again

The first call opens a variable scope named ``name_`` made unique in the scope current
then ("dense", "dense_1", ...; ``create_scope_now_`` opens it when the template is made
instead, and ``unique_name_`` names it exactly), and calls the function there; every
later call re-enters that scope with ``reuse=True``, so ``get_variable`` (and the
``tf.layers`` inside, whose default names restart in a re-entered scope) returns the
first call's variables.  A later call that makes a new trainable variable (a
``tf.Variable``, which does not share) is a ValueError, as in TF1.
"""

from __future__ import annotations

import functools
import re

from .graph_keys import GraphKeys, get_collection
from .variable_scope import variable_scope

__all__ = ["make_template", "Template"]


def make_template(name_, func_, create_scope_now_=False, unique_name_=None,
                  custom_getter_=None, **kwargs) -> "Template":
    """A ``Template`` calling ``func_`` (with ``kwargs`` bound) inside the variable scope
    ``name_``; see the module docstring.  ``custom_getter_`` is the template scope's
    custom getter (``variable_scope``'s)."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_,
                    unique_name=unique_name_, custom_getter=custom_getter_)


class Template:
    """A function of shared variables (``make_template``'s result)."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None,
                 custom_getter=None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._name, self._func, self._unique_name = name, func, unique_name
        self._custom_getter = custom_getter
        self._variable_scope = None
        self._variables_created = False
        if create_scope_now:     # no name scope yet (TF1's _pure_variable_scope): the
            # first call's ops are under "name/", a later one's "name_1/"...
            with variable_scope(unique_name, default_name=name, custom_getter=custom_getter,
                                auxiliary_name_scope=False) as scope:
                self._variable_scope = scope

    def __call__(self, *args, **kwargs):
        # The scope made once keeps the custom getter; entering it again reuses it.
        if self._variable_scope is None:
            with variable_scope(self._unique_name, default_name=self._name,
                                custom_getter=self._custom_getter) as scope:
                self._variable_scope = scope
                return self._call(args, kwargs)
        with variable_scope(self._variable_scope, reuse=self._variables_created):
            return self._call(args, kwargs)

    def _call(self, args, kwargs):
        if not self._variables_created:
            result = self._func(*args, **kwargs)
            self._variables_created = True
            return result
        trainable_before = len(get_collection(GraphKeys.TRAINABLE_VARIABLES))
        result = self._func(*args, **kwargs)
        made = get_collection(GraphKeys.TRAINABLE_VARIABLES)[trainable_before:]
        if made:
            raise ValueError(f"Trainable variable created when calling a template after the "
                             f"first time, perhaps you used tf.Variable when you meant "
                             f"tf.get_variable: {[v.name for v in made]}")
        return result

    # --- TF1's properties -----------------------------------------------------------------

    name = property(lambda self: self._name)
    func = property(lambda self: self._func)
    variable_scope = property(lambda self: self._variable_scope)

    @property
    def variable_scope_name(self) -> str:
        """The scope's name ("" before the first call, unless made at creation)."""
        return self._variable_scope.name if self._variable_scope is not None else ""

    var_scope = variable_scope

    def _scoped(self, key: str) -> list:
        if self._variable_scope is None:
            return []
        return get_collection(key, scope=_scope_pattern(self.variable_scope_name))

    @property
    def global_variables(self) -> list:
        """The variables made in the template's scope."""
        return self._scoped(GraphKeys.GLOBAL_VARIABLES)

    @property
    def trainable_variables(self) -> list:
        return self._scoped(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def local_variables(self) -> list:
        return self._scoped(GraphKeys.LOCAL_VARIABLES)

    @property
    def non_trainable_variables(self) -> list:
        trainable = {id(v) for v in self.trainable_variables}
        return [v for v in self.global_variables if id(v) not in trainable]

    @property
    def variables(self) -> list:
        return self.global_variables + self.local_variables

    def __repr__(self) -> str:
        return f"<ds.Template '{self._name}' scope='{self.variable_scope_name}'>"


def _scope_pattern(name: str) -> str:
    """A ``get_collection`` scope matching the variables under ``name`` (escaped: scope
    names may hold regular-expression characters)."""
    return re.escape(name + "/")
