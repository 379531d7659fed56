"""``ds.extract_volume_patches`` (``ops/volume_patches.py``, its kernel and gradient)
against TensorFlow 2.21's values, gradients and errors, recorded by
tests/data/make_tf_volume_patches.py on the cases of volume_patches_cases.py (VALID and
SAME, strides, windows larger than the volume, ints, a fed input of unknown shape, a
1-cell volume); the gradient also against finite differences where the shape is known
only when it runs."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import volume_patches_cases
from gradient_check import numeric_gradient

HERE = os.path.join(os.path.dirname(__file__), "data")
EXPECTED = np.load(os.path.join(HERE, "tf_volume_patches.npz"))
with open(os.path.join(HERE, "tf_volume_patches_errors.json")) as f:
    ERRORS = json.load(f)


@pytest.mark.parametrize("name", sorted(volume_patches_cases.CASES))
def test_volume_patches_give_tfs_values_and_gradients(name):
    for k, got in enumerate(volume_patches_cases.run(ds, name)):
        want = EXPECTED[f"{name}/{k}"]
        assert (got.shape, got.dtype) == (want.shape, want.dtype), (name, k)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"{name}/{k}")


@pytest.mark.parametrize("key", sorted(ERRORS))
def test_volume_patches_refuse_what_tf_refuses(key):
    kind, message = ERRORS[key]
    got_kind, got_message = volume_patches_cases.errors(ds)[key]
    assert got_kind == kind and message in got_message


def test_the_gradient_of_a_fed_volume_matches_finite_differences():
    x0 = volume_patches_cases.value((1, 4, 3, 3, 2), np.float64)
    x = ds.placeholder(ds.float64, None)
    y = ds.extract_volume_patches(x, [1, 2, 2, 3, 1], [1, 1, 2, 1, 1], "SAME")
    loss = ds.reduce_sum(y * ds.sin(ds.cast(ds.reshape(ds.range(ds.size(y)), ds.shape(y)),
                                            ds.float64)))
    dx, = ds.gradients(loss, [x])
    with ds.Session() as sess:
        got = sess.run(dx, {x: x0})
        want = numeric_gradient(lambda v: sess.run(loss, {x: v}), x0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
