"""TF1's seeded random ops (and Multinomial, RandomGamma, RandomPoissonV2) give TensorFlow's
values (kernels: ``reference/state.py`` with
``reference/stateless_random.py``'s draws; the CPU's compiled ones, ``cpu/philox.py``),
recorded by tests/data/make_tf_random_ops.py with TF 2.21:

* each draw of tests/random_ops_cases.py, in two runs (the op's Philox stream moves on);
* a GraphDef TF wrote imports and draws TF's values;
* a classifier whose initializers draw starts from TF's weights and follows TF's loss
  curve under SGD;
* seeded ``Dataset.shuffle`` pipelines give TF's orders, epoch after epoch, and again at
  each start of an iterator; the candidate samplers TF's classes,
  ``sample_distorted_bounding_box`` TF's crops;
* each device's kernel equals the reference's, run after run (the GPU's on the stand-in).
"""

from __future__ import annotations

import os
import types

import numpy as np
import pytest

import devsession as ds
from devsession.runtime.resources import ResourceMgr
import random_ops_cases as cases
from kernel_cases import DEVICES, make_node, run_on
from tf_recorded import DATA

TF = np.load(os.path.join(DATA, "tf_random_ops.npz"))
DRAW_NAMES = [k[len("run0:"):] for k in TF if k.startswith("run0:")]


def assert_tfs(key: str, run: int, value) -> None:
    want = TF[f"run{run}:{key}"]
    assert value.dtype == want.dtype, key
    np.testing.assert_array_equal(value, want, err_msg=f"{key}, run {run}")


def test_every_draw_is_tfs_run_after_run(make_session):
    ds.set_random_seed(1)
    draws = cases.draws(ds)
    assert sorted(draws) == sorted(DRAW_NAMES)
    session = make_session()
    for run in range(2):
        for key, value in session.run(draws).items():
            assert_tfs(key, run, value)


def test_a_new_session_draws_the_same_sequence_again():
    ds.set_random_seed(1)
    draws = cases.draws(ds)
    for _ in range(2):
        with ds.Session() as sess:
            assert_tfs("normal", 0, sess.run(draws["normal"]))
            assert_tfs("normal", 1, sess.run(draws["normal"]))


def test_a_graph_tensorflow_wrote_draws_tfs_values():
    graph_def = ds.read_graph_def(os.path.join(DATA, "tf_random_ops.pb"))
    ds.import_graph_def(graph_def, name="")
    names = {key: str(TF[f"name:{key}"]) for key in DRAW_NAMES}
    with ds.Session() as sess:
        for run in range(2):
            for key, value in sess.run(names).items():
                assert_tfs(key, run, value)


def test_a_classifier_starts_from_tfs_weights_and_follows_its_loss_curve():
    ds.set_random_seed(1)
    cases.draws(ds)                           # the same seeds given out before it
    x = ds.placeholder(ds.float32, [None, cases.LAYERS[0]])
    labels = ds.placeholder(ds.int32, [None])
    loss, train, variables = cases.classifier(ds, x, labels)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for name, value in sess.run(variables).items():
            np.testing.assert_array_equal(value, TF[f"initial:{name}"], err_msg=name)
        feed = {x: TF["x"], labels: TF["labels"]}
        losses = [sess.run([loss, train], feed)[0] for _ in range(len(TF["losses"]))]
    np.testing.assert_allclose(losses, TF["losses"], rtol=1e-5)


def test_seeded_dataset_shuffles_give_tfs_orders_at_every_start():
    ds.set_random_seed(1)
    datasets = cases.shuffles(ds)
    nexts = {k: ds.data.make_one_shot_iterator(d).get_next() for k, d in datasets.items()}
    again = ds.data.make_initializable_iterator(datasets["shuffle_epochs"])
    with ds.Session() as sess:
        for key, next_element in nexts.items():
            assert cases.drain(ds, sess, next_element) == TF[f"order:{key}"].tolist(), key
        for start in range(2):
            sess.run(again.initializer)
            assert cases.drain(ds, sess, again.get_next()) == TF[f"order:restart{start}"] \
                .tolist()


def _runs(build, names, prefix) -> dict:
    ds.set_random_seed(1)
    outputs = build(ds)
    with ds.Session() as sess:
        got = cases.runs_of(sess, outputs, names, prefix)
    assert sorted(got) == sorted(k for k in TF.files if k.startswith(prefix + ":"))
    return got


def test_candidate_samplers_draw_tfs_classes_run_after_run():
    for key, value in _runs(cases.samplers, cases.SAMPLER_OUTPUTS, "sampler").items():
        if ":classes:" in key:
            np.testing.assert_array_equal(value, TF[key], err_msg=key)
        else:                       # float32 expected counts, TF's formula
            np.testing.assert_allclose(value, TF[key], rtol=1e-6, err_msg=key)


def test_seeded_bounding_box_samples_are_tfs_crops():
    for key, value in _runs(cases.crops, cases.CROP_OUTPUTS, "crop").items():
        assert value.dtype == TF[key].dtype, key
        np.testing.assert_array_equal(value, TF[key], err_msg=key)


def test_without_a_graph_seed_the_op_seeds_count_as_tf_2s():
    assert ds.get_seed(None) == (None, None)
    ds.set_random_seed(3)
    assert [ds.get_seed(None) for _ in range(3)] == [(3, 0), (3, 1), (3, 2)]
    assert ds.get_seed(9) == (3, 9)
    assert ds.random_normal([2]).op.get_attr("seed2") == 3


def test_unseeded_draws_differ_between_sessions():
    draw = ds.random_uniform([64])
    values = []
    for _ in range(2):
        with ds.Session() as sess:
            values.append(sess.run(draw))
    assert not np.array_equal(*values)


# --- each device's kernel ----------------------------------------------------------------------

def _nodes():
    shape = np.array([3, 7], np.int32)
    for op, attrs in (("RandomUniform", {"minval": -1.5, "maxval": 2.0}),
                      ("RandomStandardNormal", {"mean": 0.5, "stddev": 3.0}),
                      ("TruncatedNormal", {"mean": 0.0, "stddev": 1.0})):
        for dtype in (np.float16, np.float32, np.float64):
            yield make_node(op, [np.int32], dtype, {**attrs, "dtype": dtype}), (shape,)
    bounds = (np.array(-4, np.int64), np.array(2**40, np.int64))
    yield make_node("RandomUniformInt", [np.int64] * 2 + [np.int32], np.int64), \
        (*bounds, shape)
    yield make_node("RandomShuffle", [np.float32], np.float32), \
        (np.arange(30, dtype=np.float32).reshape(10, 3),)
    yield make_node("Multinomial", [np.float32, np.int32], np.int64,
                    {"output_dtype": np.int64}), \
        (np.array(cases.LOGITS * 3, np.float32), np.array(9, np.int32))
    yield make_node("RandomGamma", [np.int32, np.float32], np.float32), \
        (np.array([4], np.int32), np.array([0.4, 1.0, 3.0], np.float32))
    yield make_node("RandomPoissonV2", [np.int32, np.float64], np.int64,
                    {"dtype": np.int64, "R": np.float64}), \
        (np.array([2, 3], np.int32), np.array([0.5, 4.0, 25.0, 900.0]))


@pytest.mark.parametrize("device", DEVICES)
def test_each_devices_kernel_equals_the_reference_run_after_run(device):
    import dataclasses

    for node, inputs in _nodes():
        node = dataclasses.replace(node, attrs={**node.attrs, "seed": 5, "seed2": 2**40 + 3})
        runs = {}
        for where in ("REF", device):
            context = types.SimpleNamespace(resources=ResourceMgr())
            placed = dataclasses.replace(node, context=context)
            runs[where] = [run_on(where, placed, *inputs) for _ in range(2)]
        for ref, got in zip(runs["REF"], runs[device]):
            assert got.dtype == ref.dtype, node.op
            np.testing.assert_array_equal(got, ref, err_msg=node.op)
        assert not np.array_equal(*runs["REF"]), f"{node.op}: the stream did not move on"


# --- the CPU's compiled draws ------------------------------------------------------------------

def test_compiled_draws_equal_the_references_over_long_streams():
    from devsession.kernels.cpu import philox
    from devsession.kernels.reference import stateless_random as reference

    philox._agrees.cache_clear()
    assert philox._agrees(), "numba's normals differ from the C library's on this machine"
    key, counter = (0x9E3779B9, 0x7F4A7C15), (0xFFFFFFF0, 0xFFFFFFFF, 3, 0)   # carries
    for kind in ("uniform", "normal", "truncated_normal"):
        for dtype in (np.float16, np.float32, np.float64):
            got = getattr(philox, kind)(key, counter, 20_003, dtype)
            want = getattr(reference, kind)(key, counter, 20_003, dtype)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"{kind} {np.dtype(dtype)}")
    for dtype, lo, hi in ((np.int32, -7, 2**31 - 1), (np.int64, -2**62, 2**62)):
        np.testing.assert_array_equal(philox.uniform_int(key, counter, 999, dtype, lo, hi),
                                      reference.uniform_int(key, counter, 999, dtype, lo, hi))


def test_a_zero_uniform_is_raised_to_tfs_epsilon_before_its_log():
    from devsession.kernels.cpu import philox
    from devsession.kernels.reference import stateless_random as reference

    # this block's third word has no mantissa bits: its pair's u1 is 0 (found by search)
    key, counter = (1, 2), (604682, 0, 0, 0)
    assert philox.blocks(key, counter, 1)[0, 2] & 0x7FFFFF == 0
    assert philox._agrees()
    for dtype in (np.float16, np.float32):
        got = philox.normal(key, counter, 4, dtype)
        radius = np.hypot(float(got[2]), float(got[3]))      # the pair's sqrt(-2 log u1)
        assert radius == pytest.approx(np.sqrt(-2 * np.log(1e-7)), rel=1e-2)
        np.testing.assert_array_equal(got, reference.normal(key, counter, 4, dtype))


def test_where_the_compiled_normals_disagree_the_references_are_drawn(monkeypatch):
    from devsession.kernels.cpu import philox
    from devsession.kernels.reference import stateless_random as reference

    calls = []
    monkeypatch.setattr(philox, "_agrees", lambda: False)
    monkeypatch.setattr(reference, "normal", lambda *a: calls.append(a) or np.zeros(3))
    assert philox.normal((1, 2), (0, 0, 0, 0), 3, np.float32).tolist() == [0.0] * 3
    assert calls == [((1, 2), (0, 0, 0, 0), 3, np.dtype(np.float32))]


def test_compiled_gamma_and_poisson_samples_equal_the_references():
    from devsession.kernels.cpu import philox_rates
    from devsession.kernels.reference import stateless_random_rates as reference

    philox_rates._agrees.cache_clear()
    assert philox_rates._agrees(), "numba's samplers differ from the C library's here"
    key, counter = (0x243F6A88, 0x85A308D3), (0xFFFFFF00, 0xFFFFFFFF, 9, 0)     # carries
    alphas = np.array([[0.0, -2.0, np.nan, np.inf], [0.05, 1.0, 1.5, 900.0]])
    rates = np.array([0.0, -1.0, np.nan, np.inf, 0.2, 9.99, 10.0, 64.0, 3e6])
    for dtype in (np.float16, np.float32, np.float64):
        got = philox_rates.gamma_samples(key, counter, alphas, 40, dtype)
        want = reference.gamma_samples(key, counter, alphas, 40, dtype)
        assert got.dtype == want.dtype and got.shape == (40, 2, 4)
        np.testing.assert_array_equal(got, want, err_msg=np.dtype(dtype).name)
    for dtype in (np.int32, np.int64, np.float32):
        got = philox_rates.poisson_samples(key, counter, rates, 40, dtype)
        want = reference.poisson_samples(key, counter, rates, 40, dtype)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want, err_msg=np.dtype(dtype).name)


def test_gamma_and_poisson_edges_and_a_rate_beyond_the_dtype():
    rate = ds.placeholder(ds.float32, [3])
    poisson = ds.random_poisson(rate, [2], dtype=ds.int32, seed=1)
    gamma = ds.random_gamma([2], [0.0, -1.0, np.nan, np.inf], seed=1)
    with ds.Session() as sess:
        assert sess.run(poisson, {rate: [np.inf, np.nan, -3.0]}).tolist() == [[0] * 3] * 2
        tiny = np.finfo(np.float32).tiny            # TF's builder floors the draws at it
        np.testing.assert_array_equal(sess.run(gamma), [[tiny, np.nan, np.nan, np.inf]] * 2)
        with pytest.raises(ds.errors.InvalidArgumentError, match="beyond what int32") as info:
            sess.run(poisson, {rate: [1.0, 3e9, 2.0]})
        assert "RandomPoissonV2" in info.value.node_name
