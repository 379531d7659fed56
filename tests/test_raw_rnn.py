"""``ds.nn.raw_rnn`` (``devsession/rnn_raw.py``) and ``ds.nn.static_state_saving_rnn``
(``rnn_state_saving.py``) against TensorFlow 2.21's values,
recorded by tests/data/make_tf_raw_rnn.py on the programs of raw_rnn_cases.py: TF's
own LSTM reader (sequence lengths that differ, all 0: no step, and one step) and a GRU
decoder feeding its output back, with an emit structure of two dtypes and a loop state
holding a TensorArray; gradients through the loop included; the state-saving RNN over
three runs whose state a saver of variables carries."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import raw_rnn_cases

HERE = os.path.join(os.path.dirname(__file__), "data")
EXPECTED = np.load(os.path.join(HERE, "tf_raw_rnn.npz"))


@pytest.mark.parametrize("case", sorted(raw_rnn_cases.FEEDS))
def test_raw_rnn_gives_tfs_values_and_gradients(case):
    for k, got in enumerate(raw_rnn_cases.run(ds, case)):
        for name, value in got.items():
            want = EXPECTED[f"{case}/{k}/{name}"]
            assert np.shape(value) == want.shape, (case, k, name)
            assert np.asarray(value).dtype == want.dtype, (case, k, name)
            np.testing.assert_allclose(value, want, rtol=2e-5, atol=2e-6,
                                       err_msg=f"{case}/{k}/{name}")


def test_raw_rnn_refuses_what_tf_refuses():
    with open(os.path.join(HERE, "tf_raw_rnn_errors.json")) as f:
        assert raw_rnn_cases.errors(ds) == json.load(f)
