"""``sess.partial_run_setup`` / ``sess.partial_run``: one step fed and fetched piecewise,
against TF 2.21's outcomes (tests/data/partial_run.json, tests/data/make_partial_run.py),
in every session type of the conformance suite."""

from __future__ import annotations

import json
import pathlib

import pytest

import devsession as ds
from devsession.partial_run import PartialRunState
from partial_run_cases import CASES

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "partial_run.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_outcomes_are_tfs(make_session, name):
    with ds.Graph().as_default() as g:
        sess = make_session(g)
        got = CASES[name](ds, sess)
    assert json.loads(json.dumps(got)) == RECORDED[name]


def test_a_later_op_whose_control_input_ran_is_refused_by_name(graph):
    """TF's executor waits on the control edge; an ordinary step would run 'inc' again."""
    c = ds.placeholder(ds.float32, [], name="c")
    v = ds.Variable(0.0, name="v")
    inc = ds.assign_add(v, 1.0, name="inc")
    with ds.control_dependencies([inc]):
        out = ds.multiply(c, 2.0, name="out")
    with ds.Session() as sess:
        sess.run(v.initializer)
        h = sess.partial_run_setup([inc, out], [c])
        assert sess.partial_run(h, inc) == 1.0
        with pytest.raises(ds.errors.UnimplementedError, match="node 'out' has a control "
                                                               "input 'inc'"):
            sess.partial_run(h, out, {c: 5})
        assert sess.run(v) == 1.0


def test_one_step_runs_the_whole_frontier_and_none_twice(graph):
    """Both branches that the first feeds complete run in the first call's step; the second
    call's step reads the held value instead of running 'shared' again."""
    a = ds.placeholder(ds.float32, [], name="a")
    c = ds.placeholder(ds.float32, [], name="c")
    shared = ds.multiply(a, 3.0, name="shared")
    first, second = ds.add(shared, 1.0, name="first"), ds.multiply(shared, c, name="second")
    state = PartialRunState(graph, (a, c), (first, second), ())
    state.receive((a,), [2.0])
    runnable = state.frontier()
    assert [op.name for op in runnable] == ["shared/y", "shared", "first/y", "first"]
    feeds, fetches, targets = state.step_for(runnable)
    assert feeds == (a,) and targets == tuple(runnable) and set(fetches) == {shared, first}
    state.ran(runnable, fetches, [{shared: 6.0, first: 7.0}[t] for t in fetches])
    assert state.take([first]) == [7.0]
    state.receive((c,), [0.5])
    runnable = state.frontier()
    assert [op.name for op in runnable] == ["second"]
    assert state.step_for(runnable)[:2] == ((shared, c), (second,))


def test_closed_session(graph):
    a = ds.placeholder(ds.float32, [], name="a")
    sess = ds.Session()
    h = sess.partial_run_setup([a * 2], [a])
    sess.close()
    for call in (lambda: sess.partial_run(h, [], {}), lambda: sess.partial_run_setup([a], [])):
        with pytest.raises(RuntimeError, match="Attempted to use a closed Session"):
            call()
