"""``ds.random.stateless_poisson`` and ``stateless_gamma`` (TF's ``StatelessRandomPoisson``
and ``StatelessRandomGammaV3``, ``ops/stateless_random_rates.py``, kernels
``reference/stateless_random_rates.py``): TF 2.21's values bit for bit (Poisson: Knuth's
method below rate 10, Hormann's rejection above; Gamma: alpha 1, below and above 1, beta
broadcast), every output dtype, names and errors, recorded by
tests/data/make_tf_stateless_poisson.py and make_tf_stateless_gamma.py."""

from __future__ import annotations

import json
import os
import threading

import numpy as np
import pytest

import devsession as ds
from tf_recorded import DATA

TF = json.load(open(os.path.join(DATA, "tf_stateless_poisson.json")))
TF_GAMMA = json.load(open(os.path.join(DATA, "tf_stateless_gamma.json")))

# name -> (shape, seed, lam, dtype), as the recorder's CASES
CASES = {
    "small": ([5], [1, 2], 0.5, "int32"),
    "rates": ([4, 3], [7, -3], [0.1, 3.0, 9.5], "int64"),
    "large": ([6, 2], [3, 4], [10.0, 250.5], "float32"),
    "mixed_f64": ([3, 2, 2], [5, 6], [[1.5, 12.0], [0.0, 40.0]], "float64"),
    "half": ([4], [8, 9], np.float16(20.0), "float16"),
    "int_rates": ([2, 2], [1, 1], np.array([2, 30], np.int64), "int32"),
    "empty": ([0, 3], [1, 2], [1.0, 2.0, 3.0], "int32"),
}



def _assert_as_tf(fetches: dict, recorded: dict) -> None:
    """Each fetch's values, dtype, static and run shapes, op type and name equal what
    TF 2.21 recorded (``recorded["values"]`` and ``["names"]`` by case name)."""
    with ds.Session() as sess:
        got = sess.run(fetches)
    for name, value in got.items():
        want = recorded["values"][name]
        assert value.dtype == np.dtype(want["dtype"]), name
        assert list(value.shape) == want["shape"] == fetches[name].shape.as_list(), name
        np.testing.assert_array_equal(value.astype(np.float64),
                                      np.reshape(want["value"], want["shape"]), err_msg=name)
        assert [fetches[name].op.type, fetches[name].op.name] == recorded["names"][name], name

def test_values_dtypes_and_names_are_tfs():
    ds.reset_default_graph()
    fetches = {name: ds.random.stateless_poisson(shape, seed, lam, dtype=dtype)
               for name, (shape, seed, lam, dtype) in CASES.items()}
    _assert_as_tf(fetches, TF)


def test_same_seed_same_values_in_a_new_session():
    ds.reset_default_graph()
    draw = ds.random.stateless_poisson([50], [4, 4], 30.0)
    with ds.Session() as sess:
        first = sess.run(draw)
        assert (sess.run(draw) == first).all()
    with ds.Session() as sess:
        assert (sess.run(draw) == first).all()
    assert abs(first.mean() - 30.0) < 3.0


def test_errors():
    ds.reset_default_graph()
    bad = ds.random.stateless_poisson([4, 2], [1, 2], [1.0, 2.0, 3.0])
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match=TF["suffix_error"]) as info:
            sess.run(bad)
    assert info.value.node_name == bad.op.name
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        ds.random.stateless_poisson([2], [1, 2, 3], 1.0)
    with pytest.raises(TypeError, match="dtype"):
        ds.random.stateless_poisson([2], [1, 2], 1.0, dtype=ds.bool)


# name -> (shape, seed, alpha, beta, dtype), as make_tf_stateless_gamma.py's GAMMA_CASES
GAMMA_CASES = {
    "one": ([6], [1, 2], 1.0, None, "float32"),
    "alphas": ([5, 3], [7, -3], [0.3, 1.0, 4.5], None, "float32"),
    "beta": ([4, 2, 2], [3, 4], [[2.0], [0.5]], [1.0, 3.0], "float64"),
    "half": ([3], [8, 9], 2.5, 2.0, "float16"),
    "large": ([4], [5, 5], 120.0, None, "float64"),
    "empty": ([0, 2], [1, 2], [1.5, 2.5], None, "float32"),
}


def test_gamma_values_dtypes_and_names_are_tfs():
    ds.reset_default_graph()
    fetches = {name: ds.random.stateless_gamma(shape, seed, alpha, beta, dtype=dtype)
               for name, (shape, seed, alpha, beta, dtype) in GAMMA_CASES.items()}
    _assert_as_tf(fetches, TF_GAMMA)
    draws = {op.type for op in ds.get_default_graph().get_operations()}
    assert {"StatelessRandomGammaV3", "StatelessRandomGetKeyCounter", "BroadcastTo"} <= draws


def test_gamma_errors():
    ds.reset_default_graph()
    alpha = ds.placeholder(ds.float32, None)
    bad = ds.random.stateless_gamma([4, 2], [1, 2], alpha)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="must end with") as info:
            sess.run(bad, {alpha: [1.0, 2.0, 3.0]})
        assert "StatelessRandomGammaV3" in info.value.node_name
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        ds.random.stateless_gamma([2], [1, 2, 3], 1.0)


def test_edge_rates_answer_as_tfs_without_drawing():
    ds.reset_default_graph()
    # TF 2.21 gives these (checked once): a rate of 0, below or infinite samples 0; alpha 0
    # gives the float's tiny (the builder's floor), a negative or NaN alpha NaN
    poisson = {dtype: ds.random.stateless_poisson([2, 4], [1, 2], [np.inf, -1.0, 0.0, np.nan],
                                                  dtype=dtype)
               for dtype in (ds.int32, ds.float32)}
    gamma = ds.random.stateless_gamma([2, 4], [1, 2], [0.0, -1.0, np.nan, np.inf])
    with ds.Session() as sess:
        got = sess.run(poisson)
        assert got[ds.int32].tolist() == [[0] * 4] * 2
        assert got[ds.float32].tolist() == [[0.0] * 4] * 2      # NaN: TF never returns
        drawn = sess.run(gamma)
    tiny = np.finfo(np.float32).tiny
    np.testing.assert_array_equal(drawn, [[tiny, np.nan, np.nan, np.inf]] * 2)


def within_seconds(seconds: float, call):
    """``call()``'s result or exception, or a failure after ``seconds`` (the call goes on
    in a daemon thread): a sampler that never returns fails the test, not the run."""
    outcome = {}

    def target():
        try:
            outcome["value"] = call()
        except BaseException as e:              # noqa: BLE001 (re-raised below)
            outcome["error"] = e
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"no answer within {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_a_rate_beyond_the_dtype_is_an_error_where_tfs_sampler_never_returns():
    ds.reset_default_graph()
    lam = ds.placeholder(ds.float64, [None])
    draw = ds.random.stateless_poisson([2], [1, 2], lam)              # int32 samples
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="beyond what int32") as info:
            within_seconds(30, lambda: sess.run(draw, {lam: [1.0, 1e18]}))
        assert "StatelessRandomPoisson" in info.value.node_name
        assert sess.run(draw, {lam: [2e9, 2e9]}).min() > 1.9e9         # still within it


TF_BINOMIAL = json.load(open(os.path.join(DATA, "tf_stateless_binomial.json")))
# name -> (shape, seed, counts, probs, output_dtype), as make_tf_stateless_binomial.py's
BINOMIAL_CASES = {
    "small": ([6], [1, 2], 10.0, 0.3, "int32"),
    "btrs": ([4, 3], [7, -3], [50.0, 200.0, 1000.0], [0.4, 0.7, 0.05], "int64"),
    "edges": ([3, 2, 4], [3, 4], [[0.0], [5.0]], [0.0, 1.0, 0.5, 0.9], "float32"),
    "float64": ([5], [5, 6], np.float64(80.0), np.float64(0.2), "float64"),
    "empty": ([0, 2], [1, 2], [3.0, 4.0], 0.5, "int32"),
}


def test_binomial_values_dtypes_and_names_are_tfs():
    ds.reset_default_graph()
    fetches = {name: ds.random.stateless_binomial(shape, seed, counts, probs,
                                                  output_dtype=dtype)
               for name, (shape, seed, counts, probs, dtype) in BINOMIAL_CASES.items()}
    _assert_as_tf(fetches, TF_BINOMIAL)


def test_binomial_errors():
    ds.reset_default_graph()
    bad = ds.random.stateless_binomial([4, 2], [1, 2], [1.0, 2.0, 3.0], 0.5)
    clash = ds.random.stateless_binomial([4, 2], [1, 2], [1.0, 2.0, 3.0], [0.5, 0.5])
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="must end with"):
            sess.run(bad)
        with pytest.raises(ds.errors.InvalidArgumentError, match="compatible batch"):
            sess.run(clash)


TF_TRUNCATED = json.load(open(os.path.join(DATA, "tf_stateless_truncated.json")))
# name -> (shape, seed, means, stddevs, minvals, maxvals), as make_tf_stateless_truncated.py's
TRUNCATED_CASES = {
    "standard": ([6], [1, 2], 0.0, 1.0, -2.0, 2.0),
    "narrow": ([5], [3, 4], 0.0, 1.0, 0.5, 0.7),
    "tail": ([2, 3], [5, 6], [0.0, 1.0, -1.0], [1.0, 2.0, 0.5], [3.0, 6.0, 2.0],
             [np.inf, 20.0, 9.0]),
    "upper": ([4], [7, 8], 1.0, 1.0, -np.inf, -2.0),
    "float64": ([4, 2], [9, 9], np.float64(2.0), np.float64(3.0), np.float64(-1.0),
                np.float64(4.0)),
}


def test_parameterized_truncated_normal_values_and_names_are_tfs():
    ds.reset_default_graph()
    fetches = {name: ds.random.stateless_parameterized_truncated_normal(
                   shape, seed, means, stddevs, minvals, maxvals)
               for name, (shape, seed, means, stddevs, minvals, maxvals)
               in TRUNCATED_CASES.items()}
    _assert_as_tf(fetches, TF_TRUNCATED)


def test_parameterized_truncated_normal_errors():
    ds.reset_default_graph()
    bad = ds.random.stateless_parameterized_truncated_normal([3], [1, 2], 0.0, 1.0, 2.0, 1.0)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="Invalid parameters"):
            sess.run(bad)


def test_a_truncated_normal_of_nan_parameters_gives_up_as_tfs():
    ds.reset_default_graph()
    mean = ds.placeholder(ds.float32, [])
    draw = ds.random.stateless_parameterized_truncated_normal([3], [1, 2], mean, 1.0, -1.0,
                                                              1.0)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InternalError, match="failed to accept") as info:
            within_seconds(30, lambda: sess.run(draw, {mean: np.nan}))
        assert "StatelessParameterizedTruncatedNormal" in info.value.node_name
        assert np.all(np.abs(sess.run(draw, {mean: 0.0})) < 1.0)


def test_binomial_edges_answer_without_drawing():
    ds.reset_default_graph()
    # TF 2.21: an infinite count gives infinite successes; a NaN count or p NaN (TF's
    # sampler never returns for the count), a count of 0 or below 0, p at least 1 the count
    draw = ds.random.stateless_binomial([2, 5], [1, 2], [np.inf, np.nan, -3.0, 10.0, 10.0],
                                        [0.5, 0.5, 0.5, np.nan, 2.0], output_dtype=ds.float32)
    with ds.Session() as sess:
        got = within_seconds(30, lambda: sess.run(draw))
    np.testing.assert_array_equal(got, [[np.inf, np.nan, 0.0, np.nan, 10.0]] * 2)
