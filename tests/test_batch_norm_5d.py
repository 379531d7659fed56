"""5-D fused batch norms against TensorFlow 2.21's (tests/data/tf_batch_norm_5d.*, made by
tests/data/make_tf_batch_norm_5d.py from the models of tests/batch_norm_5d_cases.py).

* The graph TF wrote (FusedBatchNormV3 and FusedBatchNormGradV3 in "NDHWC" and "NCDHW",
  its gradients of them, a frozen 3-D CNN) imports and runs with TF's values and static
  shapes.
* The same op cases built with ``ds`` (``ds.nn.fused_batch_norm``, ``ds.gradients``: our
  gradient function) give TF's values.
* ``tf.layers.batch_normalization`` over 5-D inputs takes the fused op where TF's does
  (axis 4 or 1) and trains as TF's: outputs, gradients, moving statistics (Bessel's
  correction) over four steps.
* TF's errors for ranks and formats, at build and run time.

The kernels on every device (the CUDA one through the cupy stand-in) and the gradients
against finite differences: tests/test_batch_norm.py and tests/test_backprop_kernels.py.
"""

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from tests.batch_norm_5d_cases import (FUSED, LAYER_CASES, LAYOUT, RECORDED_INPUTS, built,
                                       fused_formats, layout, op_feeds, op_graph, run)
from tests.tf_recorded import assert_imported_as_tf, recorded_keys, run_recorded

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_batch_norm_5d.npz"))
KEYS = recorded_keys(DATA)


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


def _close(got, want, name):
    tol = 5e-3 if "half" in name else 2e-5
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=tol, atol=tol,
                               err_msg=name)


def test_the_graph_tf_wrote_runs_with_tfs_values_and_shapes():
    recorded = run_recorded("tf_batch_norm_5d")
    graph = recorded[0]
    formats = {(op.type, op.get_attr("data_format").decode())
               for op in graph.get_operations() if op.type.startswith("FusedBatchNorm")}
    assert formats == {("FusedBatchNormV3", "NDHWC"), ("FusedBatchNormV3", "NCDHW"),
                       ("FusedBatchNormGradV3", "NDHWC"), ("FusedBatchNormGradV3", "NCDHW")}
    assert not [op for op in graph.get_operations() if op.type.startswith("Variable")]
    assert_imported_as_tf(recorded, _close)


def test_our_builders_and_gradients_give_tfs_values(graph):
    tensors = op_graph(ds)
    assert sorted(tensors) == sorted(KEYS)
    feeds = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in op_feeds().items()}
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got = sess.run(tensors, feeds)
    for key, value in got.items():
        _close(value, DATA[f"fetch:{KEYS[key]}"], key)
    assert np.isnan(got["empty_ndhwc:mean"]).all() and got["empty_ndhwc:y"].shape[0] == 0


@pytest.mark.parametrize("name", list(LAYER_CASES))
def test_the_layer_over_5d_inputs_trains_as_tfs(graph, name):
    t = built(ds, name, DATA)
    assert fused_formats(graph) == list(DATA[f"{name}:fused"])
    assert fused_formats(graph)[:1] == ([FUSED[name]] if FUSED[name] else [])
    for key, ours in layout(ds, t).items():
        assert ours == list(DATA[f"{name}:{key}"]), key
    with ds.Session() as sess:
        got = run(ds, sess, name, t)
    assert sorted(got) == sorted(k for k in DATA.files if k.startswith(f"{name}:")
                                 and k.split(":")[1] not in RECORDED_INPUTS + LAYOUT + ("fused",))
    for key, value in got.items():
        np.testing.assert_allclose(value, DATA[key], rtol=2e-5, atol=2e-5, err_msg=key)


def test_the_moving_variance_is_bessel_corrected_as_tfs(graph):
    """The brief's case: momentum 0, one step: the moving variance is the batch's
    unbiased variance (the non-fused path gave the population variance)."""
    batch = DATA["momentum0:x"] * DATA["momentum0:w0"] + DATA["momentum0:b0"]
    unbiased = batch.reshape(-1, 3).var(0, ddof=1)
    np.testing.assert_allclose(DATA["momentum0:step0:bn/moving_variance"], unbiased,
                               rtol=1e-5)


def test_the_layer_class_and_dtypes_choose_the_path_tf_does(graph):
    layer = ds.layers.BatchNormalization(axis=1)
    layer(ds.placeholder(ds.float32, (None, 3, 2, 2, 2)), training=True)
    ds.layers.batch_normalization(ds.placeholder(ds.float16, (2, 2, 2, 2, 3)), training=True)
    ds.layers.batch_normalization(ds.placeholder(ds.float64, (2, 2, 2, 2, 3)), training=True)
    ds.layers.batch_normalization(ds.placeholder(ds.float32, (2, 2, 2, 2, 2, 3)),
                                  training=True)      # 6-D: not fused, as TF
    assert fused_formats(graph) == ["NCDHW", "NDHWC"]


def test_build_time_errors_are_tfs(graph):
    c3 = np.ones(3, np.float32)
    x5, x4 = ds.placeholder(ds.float32, (2, 2, 2, 2, 3)), ds.placeholder(ds.float32, (2, 2, 2, 3))
    for fmt in ("NHWC", "NCHW"):
        with pytest.raises(ValueError, match=f"must be 4-D with data_format '{fmt}'"):
            ds.nn.fused_batch_norm(x5, c3, c3, data_format=fmt)
    for fmt in ("NDHWC", "NCDHW"):
        with pytest.raises(ValueError, match=f"must be 5-D with data_format '{fmt}'"):
            ds.nn.fused_batch_norm(x4, c3, c3, data_format=fmt)
    with pytest.raises(ValueError, match="4 elements but x .* 3 channels"):
        ds.nn.fused_batch_norm(x5, np.ones(4, np.float32), c3, data_format="NDHWC")
    for op in ("FusedBatchNorm", "FusedBatchNormV2"):
        with pytest.raises(ValueError, match=f"Attr 'data_format' of '{op}' Op passed string "
                           f"'NDHWC' not in: \"NHWC\", \"NCHW\""):
            graph.create_op(op, [x5] + [ds.constant(c3)] * 4, {"data_format": "NDHWC"})
    with pytest.raises(ValueError, match="'NCWH' not in: \"NHWC\", \"NCHW\", \"NDHWC\", "
                       "\"NCDHW\""):
        ds.nn.fused_batch_norm(x4, c3, c3, data_format="NCWH")
    grad_inputs = [x5, x5] + [ds.constant(c3)] * 3
    with pytest.raises(ValueError, match="must be 4-D with data_format 'NHWC'"):
        graph.create_op("FusedBatchNormGradV3", grad_inputs + [ds.constant(c3)])
    with pytest.raises(ValueError, match="'NCDHW' not in"):
        graph.create_op("FusedBatchNormGradV2", grad_inputs, {"data_format": "NCDHW"})
    op = graph.create_op("FusedBatchNormGradV3", grad_inputs + [ds.constant(c3)],
                         {"data_format": "NDHWC"})
    assert op.outputs[0].shape.as_list() == [2, 2, 2, 2, 3]
    assert op.outputs[1].shape.as_list() == [3]
    y, m, v = ds.nn.fused_batch_norm(ds.placeholder(ds.float32, (None, 3, None, 2, None)),
                                     c3, c3, data_format="NCDHW")
    assert y.shape.as_list() == [None, 3, None, 2, None] and m.shape.as_list() == [3]


def test_run_time_errors_are_tfs(graph):
    x = ds.placeholder(ds.float32, None)
    c3 = np.ones(3, np.float32)
    outputs = {fmt: ds.nn.fused_batch_norm(x, c3, c3, data_format=fmt, name=f"bn_{fmt}")[0]
               for fmt in ("NHWC", "NCHW", "NDHWC", "NCDHW")}
    dy = ds.placeholder(ds.float32, None)
    grad = ds.raw_ops.FusedBatchNormGradV3(
        y_backprop=dy, x=x, scale=c3, reserve_space_1=c3, reserve_space_2=c3,
        reserve_space_3=np.zeros(0, np.float32), data_format="NCDHW", name="grad")[0]
    with ds.Session() as sess:
        for fmt in ("NHWC", "NCHW"):            # TF 2.21's CPU kernel (oneDNN)
            with pytest.raises(InvalidArgumentError, match=rf"input must be 4-dimensional"
                               rf"\[2,3,2,2,3\]") as info:
                sess.run(outputs[fmt], {x: np.ones((2, 3, 2, 2, 3), np.float32)})
            assert info.value.node_name == f"bn_{fmt}"
        for shape in ((2, 3), (1, 3, 2, 2, 2, 3)):
            with pytest.raises(InvalidArgumentError, match="input must be 4 or 5-dimensional"):
                sess.run(outputs["NCDHW"], {x: np.ones(shape, np.float32)})
            with pytest.raises(InvalidArgumentError, match="grad.*4 or 5-dimensional"):
                sess.run(grad, {x: np.ones(shape, np.float32), dy: np.ones(shape, np.float32)})
        with pytest.raises(InvalidArgumentError, match="scale must have the same number of "
                           "elements as the channels of x, got 3 and 4"):
            sess.run(outputs["NDHWC"], {x: np.ones((2, 2, 2, 2, 4), np.float32)})
        with pytest.raises(InvalidArgumentError, match="x and y_backprop must have same"):
            sess.run(grad, {x: np.ones((2, 3, 2, 2, 2), np.float32),
                            dy: np.ones((2, 3, 2, 2, 1), np.float32)})
        got = sess.run(outputs["NDHWC"], {x: np.ones((2, 2, 2, 3), np.float32)})
        assert got.shape == (2, 2, 2, 3)     # 4-D in a 5-D format: normalized as NHWC, as TF
