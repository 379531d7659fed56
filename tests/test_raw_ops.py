"""ds.raw_ops beyond tests/tf1_programs/p73_raw_ops.py (checked against TensorFlow): which
op types it offers, names, and an op type devsession does not run."""

import pytest

import devsession as ds
from devsession.unsupported import UnsupportedTF1Error


def test_it_offers_devsessions_ops_and_those_its_importer_builds():
    names = dir(ds.raw_ops)
    assert {"Sum", "Conv2D", "DecodeWav", "Einsum", "BatchMatMulV2", "Select"} <= set(names)
    assert not [n for n in names if n.startswith("_")]          # devsession's private ops
    assert "MakeDatasetIterator" not in names                   # devsession's, not TF's
    assert ds.raw_ops.Sum.__name__ == "Sum" and "axis" in ds.raw_ops.Sum.__doc__


def test_an_op_type_devsession_does_not_run_is_unsupported():
    assert not hasattr(ds.raw_ops, "AudioSpectrogram")
    with pytest.raises(UnsupportedTF1Error, match="tf.raw_ops.AudioSpectrogram"):
        ds.raw_ops.AudioSpectrogram  # noqa: B018


def test_names_are_made_unique_as_the_graphs_are():
    with ds.Graph().as_default():
        first = ds.raw_ops.AddV2(x=1.0, y=2.0, name="total")
        second = ds.raw_ops.AddV2(x=first, y=2.0, name="total")
        assert (first.op.name, second.op.name) == ("total", "total_1")
        with ds.Session() as sess:
            assert sess.run(second) == 5.0


def test_the_v2_conv_gradients_equal_the_v1_ones():
    """TF runs Conv2DBackprop*V2 on GPUs only, so its CPU cannot record them: they must
    equal the V1 gradients, which take the shape instead of the tensor."""
    import numpy as np

    rng = np.random.RandomState(0)
    with ds.Graph().as_default():
        images = ds.constant(rng.uniform(0, 1, (2, 7, 6, 3)).astype(np.float32))
        kernel = ds.constant(rng.standard_normal((3, 2, 3, 4)).astype(np.float32))
        out = ds.nn.conv2d(images, kernel, [1, 2, 1, 1], "SAME")
        pairs = [(ds.conv2d_backprop_filter_v2(images, kernel, out, [1, 2, 1, 1], "SAME"),
                  ds.nn.conv2d_backprop_filter(images, [3, 2, 3, 4], out, [1, 2, 1, 1],
                                               "SAME")),
                 (ds.conv2d_backprop_input_v2(images, kernel, out, [1, 2, 1, 1], "SAME"),
                  ds.nn.conv2d_backprop_input([2, 7, 6, 3], kernel, out, [1, 2, 1, 1],
                                              "SAME"))]
        with ds.Session() as sess:
            for v2, v1 in sess.run(pairs):
                np.testing.assert_allclose(v2, v1, rtol=1e-5, atol=1e-5)


def test_bad_calls_name_tfs_keywords():
    with ds.Graph().as_default():
        with pytest.raises(TypeError, match="missing required argument 'axis'"):
            ds.raw_ops.Sum(input=[1.0, 2.0])          # the OpDef's reduction_indices
        with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
            ds.raw_ops.AddV2(x=1.0, y=2.0, bogus=3)
