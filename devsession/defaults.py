"""The per-thread default stacks of TF1: the default graph and the default session.

A bottom module (it imports nothing of devsession), so ``graph.py`` (``Tensor.eval``
needs the default session) and ``session.py`` (``with sess:`` makes its graph the
default) both use it without knowing each other.  Stacks are per thread, as in TF1:
a ``with g.as_default():`` in one thread does not change another thread's default.
"""

from __future__ import annotations

import threading

__all__ = ["graph_stack", "session_stack", "default_session"]


class _Stacks(threading.local):
    def __init__(self):
        self.graphs: list = []      # innermost last
        self.sessions: list = []


_STACKS = _Stacks()


def graph_stack() -> list:
    """This thread's stack of default graphs (``Graph.as_default`` pushes and pops)."""
    return _STACKS.graphs


def session_stack() -> list:
    """This thread's stack of default sessions (``Session.as_default`` pushes and pops)."""
    return _STACKS.sessions


def remove_innermost(stack: list, item) -> None:
    """Take the innermost ``item`` (by identity) out of ``stack``, if it is there: what
    a scope that pushed it does on leaving, whatever was pushed or taken out since."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is item:
            del stack[i]
            return


def default_session():
    """The innermost session entered with ``with sess:`` in this thread, or None."""
    sessions = _STACKS.sessions
    return sessions[-1] if sessions else None
