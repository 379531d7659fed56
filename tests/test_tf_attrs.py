"""Operation.get_attr answers as TF's get_attr does (tests/data/tf_attrs.json, written by
make_tf_attrs.py): TensorFlow's attrs devsession computes (type attrs T, Tidx...,
keep_dims, N), those it keeps in its own forms (bytes, lists and protos for them) and the
defaults TF's op fills in; an attr TF's op lacks keeps devsession's form.  Gradient code
written as TF's passes those values back to the builders."""

import json
import os

import numpy as np
import pytest

import devsession as ds
import tf_attr_cases

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                       "tf_attrs.json")))["attrs"]


def test_every_attr_is_tensorflows():
    with ds.Graph().as_default():
        got = {f"{case}/{name}": tf_attr_cases.describe(op.get_attr(name), ds.make_ndarray)
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


@ds.RegisterGradient("TFStyleConv2DGrad")
def _tf_style_conv2d_grad(op, grad):
    """TF's own _Conv2DGrad (nn_grad.py): it rebuilds the backprops from get_attr's
    values, bytes strings and lists as they are."""
    strides, padding = op.get_attr("strides"), op.get_attr("padding")
    data_format, dilations = op.get_attr("data_format"), op.get_attr("dilations")
    explicit, cudnn = op.get_attr("explicit_paddings"), op.get_attr("use_cudnn_on_gpu")
    x_shape, f_shape = ds.shape_n([op.inputs[0], op.inputs[1]])
    padding = explicit_pairs(explicit) if padding == b"EXPLICIT" else padding
    return [ds.nn.conv2d_backprop_input(x_shape, op.inputs[1], grad, strides, padding,
                                        use_cudnn_on_gpu=cudnn, data_format=data_format,
                                        dilations=dilations),
            ds.nn.conv2d_backprop_filter(op.inputs[0], f_shape, grad, strides, padding,
                                         use_cudnn_on_gpu=cudnn, data_format=data_format,
                                         dilations=dilations)]


def explicit_pairs(flat):
    return [flat[i:i + 2] for i in range(0, len(flat), 2)]


@pytest.mark.parametrize("padding", ["SAME", "VALID", [[0, 0], [1, 2], [0, 1], [0, 0]]],
                         ids=str)
def test_tf_style_gradient_code_builds_from_get_attrs_values(padding):
    """A gradient written as TF's (get_attr's bytes and lists passed back to builders)
    gives the built-in gradient's values."""
    rng = np.random.default_rng(7)
    xv = rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
    fv = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
    g = ds.Graph()
    with g.as_default():
        x, f = ds.constant(xv), ds.constant(fv)
        plain = ds.nn.conv2d(x, f, [1, 2, 1, 1], padding)
        with g.gradient_override_map({"Conv2D": "TFStyleConv2DGrad"}):
            overridden = ds.nn.conv2d(x, f, [1, 2, 1, 1], padding)
        ours = ds.gradients(ds.reduce_sum(plain * plain), [x, f])
        theirs = ds.gradients(ds.reduce_sum(overridden * overridden), [x, f])
    with ds.Session(graph=g) as sess:
        for want, got in zip(*sess.run([ours, theirs])):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_tfs_defaults_of_every_kind_come_in_tfs_forms():
    """The defaults TF's op fills in where the exported node omits them (devsession's own
    ops hold most attrs themselves, ImageSummary's bad_color among them, so the tensor
    default is asked of the signature directly)."""
    from devsession.tf_export import _tf_default

    bad_color = _tf_default("ImageSummary", "bad_color")
    assert ds.make_ndarray(bad_color).tolist() == [255, 0, 0, 255]
    assert ds.make_ndarray(bad_color).dtype == np.uint8
    assert _tf_default("Conv2D", "data_format") == b"NHWC"
    assert _tf_default("Conv2D", "explicit_paddings") == []
    assert _tf_default("All", "Tidx") == ds.int32
    assert _tf_default("Placeholder", "shape").unknown_rank
    with pytest.raises(KeyError):
        _tf_default("Conv2D", "strides")                   # required: no default
