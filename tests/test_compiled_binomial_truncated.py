"""The CPU's compiled Binomial and parameterized truncated normal samplers
(``kernels/cpu/philox_rates.py``'s ``binomial_samples``, ``kernels/cpu/philox_truncated.py``)
equal the reference's Python samplers (``kernels/reference/stateless_random_rates.py``,
TF's values) bit for bit in every regime, edges included, and are what a CPU session
runs for ``StatelessRandomBinomial``, ``StatefulRandomBinomial`` (``Generator.binomial``)
and ``StatelessParameterizedTruncatedNormal``."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.kernels.cpu import philox_rates, philox_truncated
from devsession.kernels.reference import stateless_random_rates as reference
from test_stateless_rates import within_seconds

# a counter whose low words carry within a few blocks
KEY, COUNTER = (0x243F6A88, 0x85A308D3), (0xFFFFFFF0, 0xFFFFFFFF, 9, 0)

# (count, p): inversion (count * q below 10), BTRS, p above 0.5 drawing the failures,
# the boundary count * q = 10, fractional and huge counts, and every edge
BINOMIAL = [(5, 0.3), (9.5, 0.95), (19.99, 0.5), (20, 0.5), (50, 0.3), (1000, 0.7),
            (30, 0.9), (21.5, 0.5), (1e6, 0.001), (1e6, 0.45), (3e9, 0.2), (1, 0.5),
            (0.5, 0.5), (200, 0.999), (0, 0.5), (-3, 0.5), (10, 0.0), (10, -0.5),
            (10, 1.0), (10, 2.0), (np.inf, 0.5), (-np.inf, 0.5), (np.nan, 0.5),
            (10, np.nan), (np.nan, 0.0), (np.inf, np.nan), (np.inf, 1.0)]
INT_BINOMIAL = [(5, 0), (5, 1), (5, 3), (5, -1), (0, 1), (-2, 1), (7, 0)]
OUTPUTS = (np.float16, np.float32, np.float64, np.int32, np.int64)


def _binomial_params(dtype):
    pairs = INT_BINOMIAL if np.dtype(dtype).kind == "i" else BINOMIAL
    with np.errstate(over="ignore", invalid="ignore"):
        counts, probs = (np.array(column, dtype) for column in zip(*pairs))
    return counts.reshape(1, -1), probs.reshape(1, -1)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_compiled_binomial_equals_the_reference_in_every_regime(dtype):
    philox_rates._agrees.cache_clear()
    assert philox_rates._agrees(), "numba's samplers differ from the C library's here"
    counts, probs = _binomial_params(dtype)
    for output in OUTPUTS:
        got = philox_rates.binomial_samples(KEY, COUNTER, counts, probs, 23, output)
        want = reference.binomial_samples(KEY, COUNTER, counts, probs, 23, output)
        assert got.dtype == want.dtype == np.dtype(output)
        assert got.shape == want.shape == (23,) + counts.shape
        np.testing.assert_array_equal(got, want, err_msg=f"{np.dtype(output).name} of "
                                                         f"{np.dtype(dtype).name}")


def test_the_binomial_cases_reach_every_branch():
    for dtype in (np.float16, np.float32, np.float64):
        counts, probs = _binomial_params(dtype)
        answers, batches, count, q, rare, flip = reference.binomial_plan(
            counts.reshape(-1), probs.reshape(-1))
        assert rare.any() and (~rare).any() and flip.any() and (~flip).any()
        assert (rare & flip).any() and (~rare & flip).any()
        assert batches.size < counts.size                     # and edges, drawn nothing
    assert reference.binomial_plan(*(a.reshape(-1) for a in _binomial_params(
        np.int64)))[1].size == 0


def test_binomial_broadcasts_and_a_tiny_p_ends_its_waits():
    # p near 1e-308: log u / log1p(-p) overflows to an infinite wait (TF's: 0 successes)
    counts = np.array([[3.0], [40.0]])
    probs = np.array([1e-308, 0.25, 0.8])
    got = philox_rates.binomial_samples(KEY, COUNTER, counts, probs, 17, np.float64)
    want = reference.binomial_samples(KEY, COUNTER, counts, probs, 17, np.float64)
    assert got.shape == (17, 2, 3)
    np.testing.assert_array_equal(got, want)
    assert not got[:, :, 0].any()


# (mean, stddev, minval, maxval), one batch member each: normals kept within two-sided
# and one-sided bounds (the lower one infinite: swapped), uniform proposals for narrow
# ranges (either side of 0), exponential proposals in the tails (either side)
TRUNCATED = [(0.0, 1.0, -2.0, 2.0), (0.0, 1.0, -np.inf, 0.5), (0.0, 1.0, 0.0, np.inf),
             (0.0, 1.0, 0.5, 0.7), (0.0, 1.0, -0.1, 0.1), (3.0, 0.1, 2.95, 3.0),
             (0.0, 1.0, 3.0, np.inf), (1.0, 2.0, 6.0, 20.0), (1.0, 1.0, -np.inf, -2.0),
             (0.0, 1.0, 0.5, np.inf), (-1.0, 0.5, 2.0, 9.0), (5.0, 3.0, -1.0, 4.0),
             (0.0, 1.0, -20.0, -10.0), (0.0, 1e-3, -1e-3, 1e-3)]


def _truncated_params(rows, dtype):
    return [np.array(column, dtype) for column in zip(*rows)]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_compiled_truncated_normal_equals_the_reference_in_every_region(dtype):
    philox_truncated._agrees.cache_clear()
    assert philox_truncated._agrees(), "numba's exp/log differ from the C library's here"
    params = _truncated_params(TRUNCATED, dtype)
    for samples in (1, 37):      # (37: blocks part used, the next member reads on)
        got = philox_truncated.truncated_normal_samples(KEY, COUNTER, params, samples,
                                                        dtype)
        want = reference.truncated_normal_samples(KEY, COUNTER, params, samples, dtype)
        assert got.dtype == want.dtype == np.dtype(dtype)
        assert got.shape == want.shape == (samples, len(TRUNCATED))
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_truncated_normal_regions_are_each_reached(dtype):
    # the compiled sampler's region, per member, as the reference decides it
    regions = []
    for mean, stddev, minval, maxval in zip(*_truncated_params(TRUNCATED, dtype)):
        t = np.dtype(dtype).type
        if (np.isinf(minval) and minval < 0) or maxval < mean:
            minval, maxval, stddev = maxval, minval, -stddev
        lo, hi = (minval - mean) / stddev, (maxval - mean) / stddev
        if (lo < -t(1.3) and hi >= 0) or (hi > t(1.3) and lo <= 0):
            regions.append("normal")
            continue
        root = np.sqrt(lo * lo + t(4))
        cutoff = t(2) * np.exp(t(0.5) + lo * (lo - root) / t(4)) / (lo + root)
        regions.append("uniform" if hi - lo < cutoff else "exponential")
    assert {"normal", "uniform", "exponential"} == set(regions)


def test_truncated_normal_edges_as_the_reference():
    nan, inf = np.nan, np.inf
    cases = {   # (rows, what both give)
        "invalid stddev": ([(0.0, 1.0, -1.0, 1.0), (0.0, 0.0, -1.0, 1.0)], None),
        "empty range": ([(0.0, 1.0, 1.0, 1.0)], None),
        "no finite bound": ([(0.0, 1.0, -inf, inf)], None),
        "NaN bound": ([(0.0, 1.0, -1.0, nan)], None),
        "NaN mean": ([(0.0, 1.0, -1.0, 1.0), (nan, 1.0, -1.0, 1.0)],
                     reference.NoSampleAccepted),
        "infinite mean": ([(inf, 1.0, -1.0, 1.0)], reference.NoSampleAccepted),
        "NaN before invalid": ([(nan, 1.0, -1.0, 1.0), (0.0, -1.0, -1.0, 1.0)],
                               reference.NoSampleAccepted),
        "invalid before NaN": ([(0.0, -1.0, -1.0, 1.0), (nan, 1.0, -1.0, 1.0)], None),
    }
    for name, (rows, outcome) in cases.items():
        for dtype in (np.float32, np.float64):
            params = _truncated_params(rows, dtype)
            for sampler in (philox_truncated, reference):
                if outcome is None:
                    assert sampler.truncated_normal_samples(KEY, COUNTER, params, 5,
                                                            dtype) is None, name
                else:
                    with pytest.raises(outcome):
                        within_seconds(30, lambda: sampler.truncated_normal_samples(
                            KEY, COUNTER, params, 5, dtype))


def test_a_cpu_session_runs_the_compiled_samplers(monkeypatch):
    called = []
    for module, name in ((philox_rates, "binomial_samples"),
                         (philox_truncated, "truncated_normal_samples")):
        monkeypatch.setattr(module, name, lambda *a, _draw=getattr(module, name), _name=name:
                            called.append(_name) or _draw(*a))
    with ds.Graph().as_default():
        seed = ds.placeholder(ds.int32, [2])
        generator = ds.random.Generator.from_seed(4)
        draws = {"stateless": ds.random.stateless_binomial([3, 2], seed, [10.0, 80.0], 0.3),
                 "stateful": generator.binomial([3, 2], [10.0, 80.0], 0.3),
                 "truncated": ds.random.stateless_parameterized_truncated_normal(
                     [4], seed, 0.0, 1.0, -1.0, 1.0)}
        with ds.Session(options=ds.SessionOptions(device="cpu",
                                                  kernel_compile="eager")) as sess:
            sess.run(generator.state.initializer)
            got = sess.run(draws, {seed: [5, 6]})
    assert sorted(called) == ["binomial_samples"] * 2 + ["truncated_normal_samples"]
    key, counter = reference.seed_key_counter(5, 6)
    np.testing.assert_array_equal(got["stateless"], reference.binomial_samples(
        key, counter, np.array([10.0, 80.0], np.float32), np.float32(0.3), 3, np.int32))
    np.testing.assert_array_equal(got["truncated"], reference.truncated_normal_samples(
        key, counter, [np.float32(v) for v in (0.0, 1.0, -1.0, 1.0)], 4,
        np.float32).reshape(-1))


def test_a_gpu_sessions_stateful_binomial_takes_the_compiled_sampler(monkeypatch):
    """On the GPU (the cupy stand-in) Generator.binomial draws on the host with the CPU's
    compiled sampler (it sampled in Python there), the CPU's values."""
    import cuda_host
    import cupy_standin

    if cuda_host.compiler_missing():
        pytest.skip(cuda_host.compiler_missing())
    called = []
    draw = philox_rates.binomial_samples
    monkeypatch.setattr(philox_rates, "binomial_samples",
                        lambda *a: called.append(1) or draw(*a))

    def binomials(device):
        with ds.Graph().as_default(), ds.device(device):
            generator = ds.random.Generator.from_seed(4)
            drawn = generator.binomial([3, 2], [10.0, 80.0], 0.3)
            with ds.Session(options=ds.SessionOptions(device=device)) as sess:
                sess.run(generator.state.initializer)
                return sess.run(drawn)

    on_cpu = binomials("cpu")
    with cupy_standin.installed():
        on_gpu = binomials("gpu:0")
    np.testing.assert_array_equal(on_gpu, on_cpu)
    assert len(called) == 2
