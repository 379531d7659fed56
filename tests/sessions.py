"""How the conformance suite makes sessions: one entry per session type.

Each entry is a function (graph, **option overrides) -> a created session.  The gRPC
session adds its entry here, and every test in test_session_*.py then runs against it.
"""

from __future__ import annotations

import devsession as ds


def direct_session(graph=None, **overrides):
    options = ds.SessionOptions(device=overrides.pop("device", "cpu"), **overrides)
    session = ds.new_session(options)
    session.create(graph if graph is not None else ds.get_default_graph())
    return session


SESSION_MAKERS = {"direct": direct_session}
