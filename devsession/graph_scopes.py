"""TF1's module-level graph scopes: ``ds.colocate_with``, ``ds.container`` (the default
graph's ``Graph.colocate_with`` / ``Graph.container``) and ``ds.init_scope``, which
lifts what is built inside out of a cond branch or loop body being traced (into the
graph it is traced over) and out of every ``control_dependencies`` block, as TF1's
does for variables' initializers."""

from __future__ import annotations

import contextlib

from .graph import control_dependencies, get_default_graph

__all__ = ["colocate_with", "container", "init_scope"]


def colocate_with(op, ignore_existing: bool = False):
    """New ops inside go where ``op`` goes (``Graph.colocate_with``)."""
    return get_default_graph().colocate_with(op, ignore_existing)


def container(container_name: str):
    """Stateful ops inside keep their state in ``container_name`` (``Graph.container``)."""
    return get_default_graph().container(container_name)


@contextlib.contextmanager
def init_scope():
    """Build in the outermost graph (not a function graph being traced), with no
    control dependencies; the name scope stays."""
    outer = get_default_graph()
    while getattr(outer, "outer_graph", None) is not None:
        outer = outer.outer_graph
    with outer.as_default(), control_dependencies(None):
        yield
