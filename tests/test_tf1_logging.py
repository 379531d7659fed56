"""``ds.logging`` (TF1's ``tf.logging``): levels, verbosity, per-call-site counting, and
the stderr handler a script gets when nothing else configured logging."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

import devsession as ds
from devsession.unsupported import UnsupportedTF1Error


@pytest.fixture(autouse=True)
def verbosity_restored():
    logger = logging.getLogger("devsession")
    level = logger.level
    yield
    logger.setLevel(level)


def messages(caplog):
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "devsession"]


def test_levels_are_tf1s_numbers():
    assert (ds.logging.DEBUG, ds.logging.INFO, ds.logging.WARN, ds.logging.ERROR,
            ds.logging.FATAL) == (10, 20, 30, 40, 50)


def test_set_verbosity_filters_what_is_logged(caplog):
    caplog.set_level(logging.NOTSET)
    ds.logging.set_verbosity(ds.logging.WARN)
    assert ds.logging.get_verbosity() == ds.logging.WARN
    ds.logging.debug("d")
    ds.logging.info("i %d", 1)
    ds.logging.warn("w %s", "x")
    ds.logging.error("e")
    ds.logging.fatal("f")
    assert messages(caplog) == [(30, "w x"), (40, "e"), (50, "f")]

    caplog.clear()
    ds.logging.set_verbosity(ds.logging.DEBUG)
    ds.logging.debug("d")
    ds.logging.info("i %d", 2)
    ds.logging.warning("w")
    ds.logging.log(ds.logging.INFO, "l %s", "y")
    ds.logging.vlog(ds.logging.ERROR, "v")
    assert messages(caplog) == [(10, "d"), (20, "i 2"), (30, "w"), (20, "l y"), (40, "v")]


def test_a_record_names_the_callers_line(caplog):
    ds.logging.set_verbosity(ds.logging.INFO)
    ds.logging.info("here")
    ds.logging.log_first_n(ds.logging.INFO, "there", 1)
    assert [r.pathname for r in caplog.records] == [__file__, __file__]


def test_log_if_logs_only_when_the_condition_holds(caplog):
    ds.logging.set_verbosity(ds.logging.INFO)
    ds.logging.log_if(ds.logging.INFO, "yes %d", True, 1)
    ds.logging.log_if(ds.logging.INFO, "no", False)
    assert messages(caplog) == [(20, "yes 1")]


def test_log_every_n_logs_the_first_and_every_nth_call_per_call_site(caplog):
    ds.logging.set_verbosity(ds.logging.INFO)
    for step in range(10):
        ds.logging.log_every_n(ds.logging.INFO, "step %d", 3, step)
    for step in range(2):
        ds.logging.log_every_n(ds.logging.INFO, "other %d", 3, step)   # a site of its own
    assert [m for _, m in messages(caplog)] == ["step 0", "step 3", "step 6", "step 9",
                                                "other 0"]


def test_log_first_n_logs_the_first_n_calls_per_call_site(caplog):
    ds.logging.set_verbosity(ds.logging.INFO)
    for step in range(5):
        ds.logging.log_first_n(ds.logging.INFO, "step %d", 2, step)
    assert [m for _, m in messages(caplog)] == ["step 0", "step 1"]


def test_task_level_status_message_logs_an_error(caplog):
    ds.logging.TaskLevelStatusMessage("task 3 done")
    assert messages(caplog) == [(40, "task 3 done")]


def test_a_missing_logging_symbol_is_named():
    with pytest.raises(UnsupportedTF1Error,
                       match=r"^tf.logging.log_every_minute is not supported"):
        ds.logging.log_every_minute  # noqa: B018


def test_a_script_prints_info_to_stderr_in_tf1s_format():
    code = ("import devsession as tf\n"
            "tf.logging.info('hidden')\n"
            "tf.logging.set_verbosity(tf.logging.INFO)\n"
            "tf.logging.info('step %d', 3)\n"
            "tf.logging.flush()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["INFO:devsession:step 3"]
