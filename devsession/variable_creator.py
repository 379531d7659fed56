"""TF1's ``tf.variable_creator_scope(variable_creator)``: inside it, every variable made
(``tf.Variable(...)``, and so ``tf.get_variable``) is made by
``variable_creator(next_creator, **kwargs)``, which may change the keyword arguments
(``trainable``, ``name``, ``initial_value``...) before calling ``next_creator(**kwargs)``,
or return something else.  Scopes nest as TF's: the innermost creator is called first,
and its ``next_creator`` is the next one out, down to the plain constructor.

The kwargs are ``ds.Variable``'s parameters, every one given (defaults filled in).  A
creator may add TF's keywords that have no effect on devsession's variables
(``caching_device``, ``use_resource``...: see ``_NO_EFFECT``); the plain constructor drops those, and any other unknown keyword is the
TypeError of an unexpected argument.  The stack of creators is per thread (TF keeps one per
graph; graph mode builds one graph per thread in practice).  This module imports nothing
of devsession: ``variables.Variable``'s metaclass asks ``active()`` on each construction.
"""

from __future__ import annotations

import contextlib
import inspect
import threading

__all__ = ["variable_creator_scope", "active", "create"]

_NO_EFFECT = frozenset({"caching_device", "expected_shape",
                        "import_scope", "variable_def", "use_resource", "shape",
                        "experimental_enable_variable_lifting", "distribute_strategy"})
_LOCAL = threading.local()


def _creators() -> list:
    if not hasattr(_LOCAL, "creators"):
        _LOCAL.creators = []
    return _LOCAL.creators


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Make the variables built inside through ``variable_creator`` (see the module
    docstring)."""
    creators = _creators()
    creators.append(variable_creator)
    try:
        yield
    finally:
        creators.pop()


def active() -> bool:
    """Whether some creator scope is open on this thread."""
    return bool(getattr(_LOCAL, "creators", None))


def create(construct, init, args: tuple, kwargs: dict):
    """The result of the creators' chain for a ``construct(**kwargs)`` whose parameters
    are those of ``init`` (an ``__init__``, self first), called with ``args`` and
    ``kwargs``."""
    signature = inspect.signature(init)
    signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()

    def plain(**given):
        return construct(**{k: v for k, v in given.items() if k not in _NO_EFFECT})

    chain = plain
    for creator in _creators():          # outermost first: the innermost ends up on top
        chain = _wrapped(creator, chain)
    return chain(**bound.arguments)


def _wrapped(creator, next_creator):
    return lambda **given: creator(next_creator, **given)
