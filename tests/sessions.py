"""How the conformance suite makes sessions: one entry per session type.

Each entry is a function (graph, **option overrides) -> a created session.  The gRPC
session adds its entry here, and every test in test_session_*.py then runs against it.

``grpc``: a cluster of two in-process servers on free loopback ports, started on first
use and stopped when the test process exits.  The session reaches its master over the
network (``config={"local_master": False}``: the direct socket path), not through the
in-process shortcut, so the suite covers what a client on another machine does.  The session's default device is on task
0, and every other node the test left unplaced goes to task 1, so each test's graph is
cut into two partitions joined by sends and receives: feeds, fetches, variables and
random ops all cross tasks.  Variables outlive sessions on a cluster, so each new
session starts from a reset (``ds.reset``) as a new direct session would.

``assert_heals_within_one_abort``: what the gRPC tests ask of a session's steps after a task
of its cluster restarted.  ``assert_fails_without_soft_placement``: what the placement tests
ask of a CPU session that may not move a node.
"""

from __future__ import annotations

import atexit
import threading

import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError


def direct_session(graph=None, **overrides):
    options = ds.SessionOptions(device=overrides.pop("device", "cpu"), **overrides)
    session = ds.new_session(options)
    session.create(graph if graph is not None else ds.get_default_graph())
    return session


_cluster: list = []
_cluster_lock = threading.Lock()


def local_cluster() -> list:
    """The shared two-task cluster of in-process servers (started once)."""
    with _cluster_lock:
        if not _cluster:
            from devsession.distributed import create_local_cluster

            _cluster.extend(create_local_cluster(2))
            atexit.register(_stop_cluster)
        return list(_cluster)


def _stop_cluster() -> None:
    for server in _cluster:
        server.stop(grace=0)
    _cluster.clear()


def spread_over_tasks(graph, task: str = "/job:worker/task:1") -> None:
    """Put every other unplaced node of ``graph`` on ``task``."""
    for i, op in enumerate(graph.get_operations()):
        if i % 2 and not op.device:
            op._set_device(task)


def grpc_session(graph=None, **overrides):
    servers = local_cluster()
    graph = graph if graph is not None else ds.get_default_graph()
    spread_over_tasks(graph)
    config = {"local_master": False, **dict(overrides.pop("config", None) or {})}
    options = ds.SessionOptions(target=servers[0].target, device=overrides.pop("device", "cpu"),
                                config=config, **overrides)
    ds.reset(options)
    session = ds.new_session(options)
    session.create(graph)
    return session


SESSION_MAKERS = {"direct": direct_session, "grpc": grpc_session}


def assert_fails_without_soft_placement(fetch, feeds, match: str) -> None:
    """A CPU session of the default graph with ``allow_soft_placement=False`` refuses to run
    ``fetch``: an InvalidArgumentError whose message ``match`` finds."""
    strict = ds.Session(options=ds.SessionOptions(device="cpu", allow_soft_placement=False))
    try:
        with pytest.raises(InvalidArgumentError, match=match):
            strict.run(fetch, feeds)
    finally:
        strict.close()


def assert_heals_within_one_abort(run_step, want, steps: int = 3) -> None:
    """After a task of its cluster restarted, a session's steps (``run_step()``, ``steps``
    times) heal: at most one of them fails with AbortedError, and the last gives ``want``."""
    outcomes = []
    for _ in range(steps):
        try:
            outcomes.append(run_step())
        except ds.errors.AbortedError:
            outcomes.append("aborted")
    assert outcomes.count("aborted") <= 1 and outcomes[-1] == want, outcomes
