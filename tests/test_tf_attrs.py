"""Operation.get_attr answers for TensorFlow's attrs of an op too (its type attrs T,
Tidx..., keep_dims, N), as TF's get_attr does (tests/data/tf_attrs.json, written by
make_tf_attrs.py); devsession's own attrs keep their Python forms."""

import json
import os

import pytest

import devsession as ds
import tf_attr_cases

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                       "tf_attrs.json")))["attrs"]


def test_every_attr_is_tensorflows():
    with ds.Graph().as_default():
        got = {f"{case}/{name}": tf_attr_cases.describe(op.get_attr(name))
               for case, (op, names) in tf_attr_cases.build(ds).items() for name in names}
    assert got == RECORDED


def test_an_attr_neither_has_is_tfs_value_error():
    with ds.Graph().as_default():
        op = ds.reduce_sum(ds.ones([2, 2]), axis=0).op
        with pytest.raises(ValueError, match="Operation 'Sum' has no attr named 'nope'"):
            op.get_attr("nope")
        with pytest.raises(ValueError, match="has no attr named '_class'"):
            op.get_attr("_class")
        assert op.get_attr("axis") == (0,)                  # devsession's own form
