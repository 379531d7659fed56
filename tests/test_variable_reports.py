"""TF1's initialization reports: ``ds.is_variable_initialized`` (the IsVariableInitialized
op, run where its variable lives), ``ds.report_uninitialized_variables`` (the names not
initialized yet) and ``ds.assert_variables_initialized``, on every session type."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import FailedPreconditionError


def test_reports_follow_initialization(make_session):
    a = ds.Variable(1.0, name="a")
    b = ds.Variable(np.zeros(2, np.float32), name="b")
    local = ds.Variable(0, name="local", trainable=False,
                        collections=[ds.GraphKeys.LOCAL_VARIABLES])
    report = ds.report_uninitialized_variables()
    only_b = ds.report_uninitialized_variables([b], name="only_b")
    check = ds.assert_variables_initialized()
    a_ready = ds.is_variable_initialized(a)
    assert (a_ready.dtype, a_ready.shape, report.dtype) == (ds.bool, (), ds.string)
    sess = make_session()
    assert sess.run(report).tolist() == [b"a", b"b", b"local"]
    sess.run(a.initializer)
    assert sess.run(a_ready) and not sess.run(ds.is_variable_initialized(b))
    assert sess.run(report).tolist() == [b"b", b"local"]
    with pytest.raises(FailedPreconditionError, match="uninitialized value b"):
        sess.run(check)
    sess.run([b.initializer, local.initializer])
    assert sess.run(report).tolist() == [] and sess.run(only_b).tolist() == []
    sess.run(check)


def test_no_variables_report_nothing():
    report = ds.report_uninitialized_variables()
    assert ds.assert_variables_initialized() is None
    with ds.Session() as sess:
        got = sess.run(report)
    assert (got.shape, got.dtype) == ((0,), object)


def test_is_variable_initialized_takes_a_variable():
    with pytest.raises((TypeError, ValueError)):
        ds.is_variable_initialized(ds.constant(1.0))


def test_the_checks_run_where_each_variable_lives():
    with ds.device("/job:ps/task:0"):
        on_ps = ds.Variable(1.0, name="on_ps")
    with ds.device("/job:worker/task:0"):
        check = ds.assert_variables_initialized([on_ps])
    reads = [op for op in ds.get_default_graph().get_operations()
             if op.name.startswith("assert_variables_initialized/") and op.type == "Identity"]
    assert [op.device for op in reads] == [on_ps.device] and check.type == "NoOp"
