"""A GraphDef TensorFlow 2.21 wrote with this family's ops (serialized SparseTensors, the
variable scatters by multiplication, division, min and max, TensorScatterMin/Max and
their gradient, SparseMatMul, the count and bincount ops: tests/data/
make_sparse_family_graph.py) imports into devsession and computes what TF computed."""

from __future__ import annotations

import json
import os

import numpy as np

import devsession as ds

HERE = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(HERE, "sparse_family_graph.json")) as _f:
    TF = json.load(_f)


def test_the_graph_tf_wrote_runs_as_tf_ran_it():
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(ds.read_graph_def(os.path.join(HERE, "sparse_family_graph.pb")),
                            name="")
    assert {op.type for op in graph.get_operations()} == set(TF["ops"])
    names = sorted(TF["outputs"])
    with ds.Session(graph=graph) as sess:
        sess.run("init")
        got = dict(zip(names, sess.run([f"{n}:0" for n in names])))
    for name in names:
        want, value = TF["outputs"][name], np.asarray(got[name])
        assert list(value.shape) == want["shape"], name
        if "strings" in want:
            assert [s.hex() for s in value.reshape(-1)] == want["strings"], name
        else:
            assert value.dtype == np.dtype(want["dtype"]), name
            np.testing.assert_allclose(value, np.reshape(want["list"], want["shape"]),
                                       rtol=1e-6, err_msg=name)
