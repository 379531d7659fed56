"""Training graphs TensorFlow's ``tf.gradients`` wrote (tests/data/make_tf_grad_ops.py):
TF's gradient op types (ReluGrad... FusedBatchNormGradV3, BroadcastGradientArgs,
ConcatOffset, PreventGradient), second derivatives, placeholders with a None batch
(axes and perms computed at run time: ``_RunTimeAttr``), an MLP and a convnet import
and compute TF's values."""

from __future__ import annotations

import numpy as np

import devsession as ds
from tf_recorded import DATA, run_recorded, tf_static_shape

TF_GRAD_OPS = {"ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad", "SoftplusGrad",
               "SoftsignGrad", "SigmoidGrad", "TanhGrad", "RsqrtGrad", "SqrtGrad",
               "ReciprocalGrad", "InvGrad", "BroadcastGradientArgs", "ConcatOffset",
               "FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3",
               "PreventGradient"}


def test_a_tf_training_graph_computes_tfs_values():
    graph, names, values, data = run_recorded("tf_grad_ops")
    assert len(names) == 64
    for name, got in zip(names, values):
        want = data[f"fetch:{name}"]
        assert got.shape == want.shape and got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, err_msg=name)
        assert graph.get_tensor_by_name(name).shape.is_compatible_with(
            tf_static_shape(data, name)), name
    types = {op.type for op in graph.get_operations()}
    assert TF_GRAD_OPS <= types
    assert "_RunTimeAttr" in types       # the None batch's Sums over run-time axes


def test_the_gradient_ops_keep_tfs_names_and_attrs():
    graph_def = ds.read_graph_def(f"{DATA}/tf_grad_ops.pb")
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def, name="")
    leaky = [op for op in graph.get_operations() if op.type == "LeakyReluGrad"]
    assert leaky and all(abs(op.get_attr("alpha") - 0.1) < 1e-7 for op in leaky)
    offsets = next(op for op in graph.get_operations() if op.type == "ConcatOffset")
    assert len(offsets.outputs) == 2
    norm = [op for op in graph.get_operations() if op.type == "FusedBatchNormGradV3"]
    assert {op.get_attr("is_training") for op in norm} == {True, False}
    assert {op.get_attr("data_format") for op in norm} >= {"NHWC", "NCHW"} or \
        {op.get_attr("data_format") for op in norm} >= {b"NHWC", b"NCHW"}
