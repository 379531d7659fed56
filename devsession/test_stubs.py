"""The smaller helpers of TF1's ``tf.test``: ``StubOutForTesting`` (replace an attribute
for a test, put it back after), ``disable_with_predicate`` and the decorators TF2 added
that have nothing to change in devsession's graph mode."""

from __future__ import annotations

import functools
import inspect
import platform
import unittest

__all__ = ["StubOutForTesting", "disable_with_predicate", "with_eager_op_as_function",
           "is_cpu_target_available"]


class StubOutForTesting:
    """Replaces attributes of modules, classes or objects and restores them on
    ``CleanUp()`` (or leaving ``with``), last replaced first restored.  ``Set`` replaces
    on the object given; ``SmartSet`` on an instance replaces on its class (unless the
    instance holds the attribute itself).  A staticmethod is restored as one."""

    def __init__(self):
        self.cache: list = []     # (parent, old value, name) of Set
        self.stubs: list = []     # (owner, name, old value) of SmartSet

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.CleanUp()

    def __del__(self):
        self.CleanUp()

    def CleanUp(self):  # noqa: N802  (TF's names)
        self.SmartUnsetAll()
        self.UnsetAll()

    def Set(self, parent, child_name, new_child):  # noqa: N802
        self.cache.append((parent, _restorable(parent, child_name), child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):  # noqa: N802
        for parent, old_child, child_name in reversed(self.cache):
            setattr(parent, child_name, old_child)
        self.cache = []

    def SmartSet(self, obj, attr_name, new_attr):  # noqa: N802
        if inspect.ismodule(obj) or (not inspect.isclass(obj) and attr_name in vars(obj)):
            owner = obj
        else:
            owner = obj if inspect.isclass(obj) else type(obj)
            if not hasattr(owner, attr_name):
                raise AttributeError("Attribute not found.")
        self.stubs.append((owner, attr_name, _restorable(owner, attr_name)))
        setattr(owner, attr_name, new_attr)

    def SmartUnsetAll(self):  # noqa: N802
        for owner, attr_name, old in reversed(self.stubs):
            setattr(owner, attr_name, old)
        self.stubs = []


def _restorable(owner, name: str):
    """``owner.name`` as it must be set back: a staticmethod stays one."""
    value = getattr(owner, name)
    held = getattr(owner, "__dict__", {}).get(name)
    return staticmethod(value) if isinstance(held, staticmethod) else value


def disable_with_predicate(pred, skip_message):
    """A test decorator: skip the test (with ``skip_message``) when ``pred()`` is true at
    the time it runs."""
    def decorator(test):
        @functools.wraps(test)
        def run(self, *args, **kwargs):
            if pred():
                raise unittest.SkipTest(skip_message)
            return test(self, *args, **kwargs)
        return run
    return decorator


def with_eager_op_as_function(cls=None, only_as_function=False):
    """TF2's switch to run eager ops as functions: devsession has no eager mode, so the
    class (or the decorator, without one) is returned as it is."""
    return cls if cls is not None else (lambda c: c)


def is_cpu_target_available(target: str) -> bool:
    """Whether code runs for CPU ``target`` here ("x86" or "aarch64"; LLVM's names)."""
    machine = platform.machine().lower()
    aliases = {"x86": ("x86_64", "amd64", "i386", "i686"), "aarch64": ("aarch64", "arm64")}
    return machine in aliases.get(target.lower(), (target.lower(),))
