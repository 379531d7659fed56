"""tf.debugging.assert_shapes (devsession/ops/assert_shapes.py): every case in
tests/data/assert_shapes_cases.py fails at build time, fails at run time or passes as
TensorFlow's does, with its messages (tests/data/tf_assert_shapes.json, written by
make_tf_assert_shapes.py)."""

import json
import os

import pytest

import devsession as ds
import assert_shapes_cases as cases

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                       "tf_assert_shapes.json")))["cases"]


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_as_tensorflow(name):
    with ds.Graph().as_default():
        assert cases.outcome(ds, name) == RECORDED[name]


def test_what_the_static_shapes_decide_leaves_no_op_to_run():
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, [2, 3])
        check = ds.debugging.assert_shapes([(x, ("N", 3)), (ds.zeros([4, 2]), ("M", "N"))])
        types = {op.type for op in ds.get_default_graph().get_operations()}
        assert check.type == "NoOp" and "Assert" not in types
