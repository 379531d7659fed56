"""``ds.metrics`` and ``ds.losses.mean_pairwise_squared_error`` against TensorFlow 2.21's
own values (tests/data/make_tf_metrics.py; TF is not a test dependency): each metric is
built on placeholders of the recorded batches' shapes, updated over three weighted
batches, and its update op after each batch, its value at the end and its local
variables (names, dtypes, shapes, in TF's order) are TF's."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds

RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_metrics.json")
with open(RECORDED) as _f:
    TF = json.load(_f)


def _arrays(batch: dict) -> dict:
    return {arg: np.asarray(values, dtype) for arg, (dtype, values) in batch.items()}


def _placeholders(batch: dict) -> dict:
    return {arg: ds.placeholder(ds.as_dtype(value.dtype), value.shape, name=arg)
            for arg, value in batch.items()}


@pytest.mark.parametrize("case", sorted(TF["metrics"]))
def test_metric_matches_tensorflow_over_weighted_batches(case):
    recorded = TF["metrics"][case]
    batches = [_arrays(b) for b in recorded["batches"]]
    with ds.Graph().as_default():
        inputs = _placeholders(batches[0])
        value, update = getattr(ds.metrics, recorded["metric"])(**inputs, **recorded["kwargs"])
        variables = [[v.op.name, v.dtype.base_dtype.name, v.shape.as_list()]
                     for v in ds.local_variables()]
        assert variables == recorded["variables"]
        assert ds.get_collection(ds.GraphKeys.METRIC_VARIABLES) == ds.local_variables()
        assert ds.global_variables() == []
        with ds.Session() as sess:
            sess.run(ds.local_variables_initializer())
            for step, (batch, want) in enumerate(zip(batches, recorded["updates"])):
                got = sess.run(update, {inputs[a]: batch[a] for a in batch})
                np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7,
                                           err_msg=f"{case}: update {step}")
            np.testing.assert_allclose(sess.run(value), recorded["value"], rtol=2e-6,
                                       atol=1e-7, err_msg=f"{case}: value")
            sess.run(ds.local_variables_initializer())
            again = sess.run(update, {inputs[a]: batches[0][a] for a in batches[0]})
            np.testing.assert_allclose(again, recorded["updates"][0], rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("case", sorted(TF["mean_pairwise_squared_error"]))
def test_mean_pairwise_squared_error_matches_tensorflow(case):
    recorded = TF["mean_pairwise_squared_error"][case]
    batch = _arrays(recorded["batch"])
    with ds.Graph().as_default():
        inputs = _placeholders(batch)
        loss = ds.losses.mean_pairwise_squared_error(**inputs, **recorded["kwargs"])
        assert ds.get_collection(ds.GraphKeys.LOSSES) == [loss]
        with ds.Session() as sess:
            got = sess.run(loss, {inputs[a]: batch[a] for a in batch})
    np.testing.assert_allclose(got, recorded["loss"], rtol=1e-6)
