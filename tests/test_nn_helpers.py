"""TF's Python helpers ``required_space_to_batch_paddings`` and ``nn.with_space_to_batch``
(``ops/with_space_to_batch.py``), ``nn.collapse_repeated`` and ``nn.ctc_unique_labels``
(``ops/ctc_labels.py``), ``nn.compute_average_loss`` and ``nn.scale_regularization_loss``
(``ops/replica_losses.py``) against TensorFlow 2.21's values and build-time errors,
recorded by tests/data/make_tf_nn_helpers.py on the programs of nn_helpers_cases.py."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import nn_helpers_cases
from gradient_check import numeric_gradient

HERE = os.path.join(os.path.dirname(__file__), "data")
EXPECTED = np.load(os.path.join(HERE, "tf_nn_helpers.npz"))
with open(os.path.join(HERE, "tf_nn_helpers_errors.json")) as f:
    ERRORS = json.load(f)
# Messages naming a tensor (whose repr and node name are TF's own) compare up to it.
NAMES_A_TENSOR = {"loss_rank0": "Received", "batch_vector": "Expected",
                  "batch_float": "Found"}


@pytest.mark.parametrize("case", nn_helpers_cases.CASES, ids=lambda c: c.__name__)
def test_the_helpers_give_tfs_values(case):
    got = nn_helpers_cases.run(ds, case)
    for name, value in got.items():
        want = EXPECTED[f"{case.__name__}/{name}"]
        value = np.asarray(value)
        assert (value.shape, value.dtype) == (want.shape, want.dtype), name
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("key", sorted(ERRORS))
def test_the_helpers_refuse_what_tf_refuses(key):
    got = nn_helpers_cases.errors(ds)[key]
    want = ERRORS[key]
    assert got[0] == want[0]
    if key in NAMES_A_TENSOR:
        cut = want[1].index(NAMES_A_TENSOR[key])
        assert got[1][:cut] == want[1][:cut]
    else:
        assert got[1] == want[1]


def test_the_global_batch_size_is_checked_when_it_runs():
    size = ds.placeholder(ds.int32, [])
    loss = ds.nn.compute_average_loss(ds.constant([1.0, 2.0]), global_batch_size=size)
    with ds.Session() as sess:
        assert sess.run(loss, {size: 4}) == 0.75
        with pytest.raises(ds.errors.InvalidArgumentError, match="non-negative"):
            sess.run(loss, {size: -1})


def test_a_dilated_convolution_differentiates_through_the_blocks():
    x0 = nn_helpers_cases.IMAGE[:1, :5, :4].astype(np.float64)
    filt = ds.constant(nn_helpers_cases.FILTER.astype(np.float64))
    x = ds.placeholder(ds.float64, x0.shape)
    y = ds.nn.with_space_to_batch(x, [2, 2], "SAME",
                                  lambda v, n, padding: ds.nn.convolution(v, filt, padding),
                                  filter_shape=[3, 2])
    dx, = ds.gradients(ds.reduce_sum(y * y), [x])
    with ds.Session() as sess:
        got = sess.run(dx, {x: x0})
        want = numeric_gradient(lambda v: sess.run(ds.reduce_sum(y * y), {x: v}), x0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
