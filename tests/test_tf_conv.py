"""``ds.conv``, TF 2.21's generic ``tf.conv`` (the ``Conv`` op), against TensorFlow's
values (tests/data/tf_conv.npz, recorded by tests/data/make_tf_conv.py from
tests/data/conv_cases.py): 2-D and 3-D, extra batch dimensions, strides, dilations,
EXPLICIT padding, int32, and TF's build errors; the ``Conv`` nodes of TF's own graph
imported.  What TF's CPU kernel refuses (CHANNELS_FIRST, groups) is checked against
devsession's own conv2d."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
import conv_cases
from tf_recorded import DATA

TF = np.load(os.path.join(DATA, "tf_conv.npz"))


@pytest.mark.parametrize("case", sorted(conv_cases.cases(ds)))
def test_values_are_tfs(case):
    out = conv_cases.cases(ds)[case]()
    with ds.Session() as sess:
        got = sess.run(out)
    want = TF[case]
    assert got.dtype == want.dtype and got.shape == want.shape
    assert out.shape.as_list() == list(want.shape)
    if got.dtype.kind == "i":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", sorted(conv_cases.build_errors(ds)))
def test_tfs_build_errors(case):
    with pytest.raises(ValueError) as caught:
        conv_cases.build_errors(ds)[case]()
    assert str(caught.value) in str(TF[f"error:{case}"])


def test_channels_first_and_groups_are_conv2ds():
    x, w = conv_cases.X, conv_cases.W
    first = ds.conv(x.transpose(0, 3, 1, 2), w, [1, 1, 1, 1], "VALID",
                    data_format="CHANNELS_FIRST")
    grouped = ds.conv(x, w[:, :, :2], [1, 1, 1, 1], "VALID", groups=2)
    halves = ds.concat([ds.nn.conv2d(x[..., :2], w[:, :, :2, :3], [1, 1, 1, 1], "VALID"),
                        ds.nn.conv2d(x[..., 2:], w[:, :, :2, 3:], [1, 1, 1, 1], "VALID")], -1)
    plain = ds.nn.conv2d(x, w, [1, 1, 1, 1], "VALID")
    with ds.Session() as sess:
        got_first, got_grouped, want_grouped, want = sess.run([first, grouped, halves, plain])
    np.testing.assert_allclose(got_first, want.transpose(0, 3, 1, 2), rtol=1e-6)
    np.testing.assert_allclose(got_grouped, want_grouped, rtol=1e-6)
    with pytest.raises(ValueError, match="groups parameter"):
        ds.conv(x, w, [1, 1, 1, 1], "VALID", groups=2)


def test_it_is_differentiable():
    x = ds.constant(conv_cases.X.reshape(1, 2, 5, 5, 4))
    y = ds.conv(x, conv_cases.W, [1, 1, 1, 1], "SAME", batch_dims=2)
    (grad,) = ds.gradients(ds.reduce_sum(y), [x])
    with ds.Session() as sess:
        assert sess.run(grad).shape == (1, 2, 5, 5, 4)


@pytest.mark.parametrize("case", sorted(conv_cases.cases(ds)))
def test_tfs_conv_nodes_import(case):
    graph_def = ds.GraphDef()
    graph_def.ParseFromString(TF["graph_def"].tobytes())
    with ds.Graph().as_default() as graph:
        ds.import_graph_def(graph_def, name="")
        with ds.Session() as sess:
            got = sess.run(graph.get_tensor_by_name(str(TF[f"tensor:{case}"])))
    want = TF[case]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
