"""``ds.layers.separable_conv1d`` and ``SeparableConv1D`` (``layers_separable.py``)
against TensorFlow 2.21's legacy-Keras layers, recorded by
tests/data/make_tf_separable_conv1d.py on the cases of separable_conv1d_cases.py: the
outputs, the input gradients and the variables' names, for strides, dilations,
channels_first, causal padding, a depth multiplier, the class and a width of 1."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
import separable_conv1d_cases

EXPECTED = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_separable_conv1d.npz"))


@pytest.mark.parametrize("name", sorted(separable_conv1d_cases.CASES))
def test_separable_conv1d_gives_tfs_values_gradients_and_variables(name):
    got = separable_conv1d_cases.run(ds, name)
    assert got["names"] == list(EXPECTED[f"{name}/names"])
    for key in ("output", "grad"):
        want = EXPECTED[f"{name}/{key}"]
        assert got[key].shape == want.shape, key
        np.testing.assert_allclose(got[key], want, rtol=1e-5, atol=1e-6, err_msg=key)


def test_separable_conv1d_refuses_what_it_cannot_build():
    x = ds.placeholder(ds.float32, [1, 5, 2])
    with pytest.raises(ValueError, match="padding must be"):
        ds.layers.separable_conv1d(x, 2, 3, padding="full")
    with pytest.raises(ValueError, match="strides > 1 together with dilation_rate > 1"):
        ds.layers.separable_conv1d(x, 2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="Causal padding is only supported"):
        ds.layers.separable_conv1d(ds.placeholder(ds.float32, [1, 2, 5]), 2, 3,
                                   padding="causal", data_format="channels_first")
