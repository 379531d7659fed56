"""Shared fixtures: a fresh default graph per test, ``graph`` (a new graph that is the
default during the test, for the graph-building tests), ``bounded_session`` (a session
on it whose runs time out), ``rng`` (a generator seeded by
the test's id), a registry that tests may change, and ``make_session``, which runs a test
once per session type (tests/sessions.py)."""

from __future__ import annotations

import os
import sys
import zlib

import numpy as np
import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))  # so tests can import sessions.py
# and the case modules tests/data/make_tf_*.py share with the tests (window_cases...)
sys.path.insert(1, os.path.join(os.path.dirname(__file__), "data"))

# The tests check the compiled CPU kernels, so sessions compile them on the first run
# (and so do the worker processes tests start); tests/test_tiered_compile.py asks for
# the default, "background", itself.  A run with this set to "background" checks the
# reference tier instead.
os.environ.setdefault("DEVSESSION_KERNEL_COMPILE", "eager")

import devsession as ds
from devsession.session_factory import SessionFactory


# Property tests are reproducible: the same examples on every run and machine, and no
# example database carried from one run to the next (tests may still say so themselves).
settings.register_profile("devsession", derandomize=True, database=None)
settings.load_profile("devsession")

# On a GPU machine (ci/gpu-check sets DEVSESSION_GPU_CHECK=1) a gpu-marked test that
# skips is a failure: "no CUDA device", a missing cupy or NVRTC must not pass silently.
# Only these deliberate skips stay skips:
GPU_CHECK_ALLOWED_SKIPS = ("needs two CUDA devices", "full axis matrix")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if (report.skipped and os.environ.get("DEVSESSION_GPU_CHECK") == "1"
            and item.get_closest_marker("gpu") is not None):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if not any(allowed in reason for allowed in GPU_CHECK_ALLOWED_SKIPS):
            report.outcome = "failed"
            report.longrepr = f"a gpu test skipped on the GPU machine: {reason}"


@pytest.fixture(autouse=True)
def fresh_default_graph():
    ds.reset_default_graph()
    yield
    ds.reset_default_graph()


@pytest.fixture
def rng(request):
    """A generator for this test alone, seeded by its id: the same inputs whichever tests
    ran before it, or in which order (xdist, -k, a rerun)."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def graph():
    """A new graph, the default one for the whole test."""
    with ds.Graph().as_default() as g:
        yield g


@pytest.fixture
def bounded_session(graph):
    """A session on ``graph`` whose every run gives up after 10 s, so a test of ops that
    wait (queues, readers, runners) fails instead of hanging when a wait is broken."""
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as s:
        yield s


@pytest.fixture
def isolated_registry():
    """Lets a test register factories; restores the registry afterwards."""
    ds.registered_session_factories()  # make sure the built-ins are in before we snapshot
    saved = dict(SessionFactory._factories)
    yield SessionFactory
    with SessionFactory._lock:
        SessionFactory._factories.clear()
        SessionFactory._factories.update(saved)


@pytest.fixture(params=sorted(__import__("sessions").SESSION_MAKERS))
def make_session(request):
    """Builds sessions of each type in the conformance suite and closes them after."""
    from sessions import SESSION_MAKERS

    made = []

    def make(graph=None, **overrides):
        session = SESSION_MAKERS[request.param](graph, **overrides)
        made.append(session)
        return session

    yield make
    for session in made:
        session.close()
