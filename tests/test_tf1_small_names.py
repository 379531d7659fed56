"""TF1's small names: the version constants, ``tf.get_logger``, the ``tf.errors`` code
look-ups, ``tf.summary.FileWriterCache``, ``tf.IndexedSlices`` and the conversions, the
assertion and predicate helpers, ``tf.manip`` / ``tf.dtypes`` / ``tf.io`` / ``tf.math``
spellings.  Expected values are TF 2.21's (tensorflow.compat.v1), noted beside each."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.tf_export import to_tf_graph_def
from devsession.tf_signatures import signature_table


# --- versions, logger, errors -------------------------------------------------------------

def test_version_constants_say_what_devsession_is():
    assert ds.VERSION == ds.__version__ == "0.1.0"
    assert ds.GIT_VERSION == "v0.1.0"
    assert not ds.VERSION.startswith("2.")          # a version-gating script takes its TF1 path
    assert ds.GRAPH_DEF_VERSION == signature_table()["graph_def_version"]
    assert (ds.GRAPH_DEF_VERSION_MIN_CONSUMER, ds.GRAPH_DEF_VERSION_MIN_PRODUCER) == (0, 0)
    assert (ds.CXX11_ABI_FLAG, ds.MONOLITHIC_BUILD) == (0, 0)
    assert isinstance(ds.COMPILER_VERSION, str)


def test_graph_def_version_is_what_an_export_stamps():
    with ds.Graph().as_default() as g:
        ds.constant(1.0) + 2.0
    assert to_tf_graph_def(g).versions.producer == ds.GRAPH_DEF_VERSION


def test_get_logger_is_the_logging_modules():
    assert ds.get_logger() is ds.logging.get_logger()
    assert ds.get_logger().name == "devsession"


def test_error_codes_and_classes():
    E = ds.errors
    assert E.error_code_from_exception_type(E.NotFoundError) == 5        # TF: 5
    assert E.error_code_from_exception_type(E.UnknownError) == 2
    assert E.exception_type_from_error_code(3) is E.InvalidArgumentError
    assert E.exception_type_from_error_code(1) is E.CancelledError
    for code in (0, 99, -1):                                            # TF: KeyError
        with pytest.raises(KeyError):
            E.exception_type_from_error_code(code)
    for cls in (ValueError, E.OpError):               # TF warns and returns an UnknownError
        with pytest.warns(UserWarning, match="Unknown class exception"):
            got = E.error_code_from_exception_type(cls)
        assert isinstance(got, E.UnknownError)


def test_file_writer_cache_gives_one_writer_per_logdir(tmp_path):
    ds.summary.FileWriterCache.clear()
    try:
        with ds.Graph().as_default():
            a = ds.summary.FileWriterCache.get(str(tmp_path / "a"))
            assert ds.summary.FileWriterCache.get(str(tmp_path / "a")) is a
            b = ds.summary.FileWriterCache.get(str(tmp_path / "b"))
            assert b is not a
    finally:
        ds.summary.FileWriterCache.clear()
    assert a._closed and b._closed
    assert ds.summary.FileWriterCache.get(str(tmp_path / "a")) is not a
    ds.summary.FileWriterCache.clear()
    assert list((tmp_path / "a").iterdir())          # the event file (with the graph)
