"""GraphDefs TensorFlow wrote with ops devsession builds from others (TF1's Select,
BatchMatMulV2, Einsum, MatrixBandPart, ReverseV2, ReverseSequence; made by
tests/data/make_tf_composite_nodes.py): they import, keep TF's node names and static
shapes, and compute TF's values."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from tf_recorded import DATA, run_recorded, tf_static_shape


def test_a_graph_def_of_composite_nodes_computes_tfs_values():
    graph, names, values, data = run_recorded("tf_composite_nodes")
    assert len(names) == 12
    for name, got in zip(names, values):
        np.testing.assert_allclose(got, data[f"fetch:{name}"], rtol=1e-5, atol=1e-5,
                                   err_msg=name)
        tensor = graph.get_tensor_by_name(name)
        assert tensor.shape.is_compatible_with(tf_static_shape(data, name)), name
    types = {graph.get_tensor_by_name(str(data[f"name:{key}"])).op.type
             for key in ("select_rows", "einsum", "causal", "reverse", "reverse_sequence")}
    assert types == {"Identity"}            # each composite named as TF's node
    assert graph.get_tensor_by_name(str(data["name:batch_matmul_adjoint"])).op.type == \
        "MatMul"


def test_a_composite_node_with_bad_inputs_is_an_invalid_argument():
    graph_def = ds.read_graph_def(f"{DATA}/tf_composite_nodes.pb")
    select = next(n for n in graph_def.node if n.op == "Select")
    with ds.Graph().as_default():
        wrong = ds.placeholder(ds.bool, [4], name="wrong")
        with pytest.raises(ds.errors.InvalidArgumentError, match=select.name):
            ds.import_graph_def(graph_def, input_map={"rows:0": wrong}, name="")
