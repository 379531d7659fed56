"""TF1's small top-level names (tests/data/framework_names_cases.py) against TF 2.21's
outcomes (tests/data/framework_names.json, tests/data/make_framework_names.py), and what
the recorded cases cannot show: GuaranteeConst and Timestamp stay nodes of their own
(stateful), GuaranteeConst has no gradient (as TF's), a ``py_function``'s exceptions."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import devsession as ds
from framework_names_cases import CASES

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" /
                       "framework_names.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_outcomes_are_tfs(name):
    with ds.Graph().as_default(), ds.Session() as sess:
        got = CASES[name](ds, sess)
    assert json.loads(json.dumps(got)) == RECORDED[name]


def test_stateful_nodes_are_neither_folded_nor_merged(graph):
    stamps = [ds.timestamp(), ds.timestamp()]
    kept = ds.guarantee_const(ds.constant(2.0)) * 3.0
    with ds.Session() as sess:
        first, second = sess.run(stamps)
        assert sess.run(kept) == 6.0
    assert first <= second
    exported = {n.op for n in graph.as_graph_def().node}
    assert {"Timestamp", "GuaranteeConst"} <= exported


def test_guarantee_const_has_no_gradient_as_tfs(graph):
    x = ds.constant([1.0])
    with pytest.raises(LookupError, match="GuaranteeConst"):
        ds.gradients(ds.guarantee_const(x), x)


def test_a_py_function_error_names_the_node(graph):
    def fails(a):
        raise ValueError("no good")
    out = ds.py_function(fails, [ds.constant([1.0])], ds.float32, name="bad")
    with ds.Session() as sess, pytest.raises(ds.errors.InvalidArgumentError, match="no good"):
        sess.run(out)


def test_py_function_inputs_answer_numpy(graph):
    seen = []
    out = ds.py_function(lambda a: seen.append(type(a.numpy())) or a, [ds.constant(1)],
                         ds.int32)
    with ds.Session() as sess:
        assert sess.run(out) == 1
    assert seen == [np.ndarray]


def test_tf_dtypes_has_tfs_casts(graph):
    """tf.dtypes.cast, saturate_cast, as_string and complex are the top-level functions."""
    assert (ds.dtypes.cast, ds.dtypes.saturate_cast, ds.dtypes.as_string, ds.dtypes.complex) \
        == (ds.cast, ds.saturate_cast, ds.as_string, ds.complex)
    x = ds.constant([300.0, 1.5])
    with ds.Session() as sess:
        got = sess.run([ds.dtypes.saturate_cast(x, ds.uint8), ds.dtypes.as_string(x[1:]),
                        ds.dtypes.complex(x, x)])
    assert got[0].tolist() == [255, 1] and got[1].tolist() == [b"1.500000"]
    assert got[2].tolist() == [300 + 300j, 1.5 + 1.5j]
