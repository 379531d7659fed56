"""``ds.random.Generator`` (``devsession/random_generator.py``) and TF's stateful random
ops (``ops/stateful_random.py``): TF 2.21's values bit for bit, draw after draw, and its
errors, recorded by tests/data/make_tf_random_generator.py (the programs are
tests/data/random_generator_cases.py's), built by devsession and imported from the
GraphDef TF wrote."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import random_generator_cases as cases
from devsession.ops import stateful_random
from tf_recorded import DATA

TF = json.load(open(os.path.join(DATA, "tf_random_generator.json")))


def _tf_message(recorded: dict) -> str:
    """The line of TF's run-time message that says what went wrong."""
    return [line for line in recorded["message"].splitlines() if line.strip()][-2].strip()


def _check(name: str, got, recorded=None) -> None:
    want = (recorded or TF["values"])[name]
    if want["value"] is None:
        return
    got = np.asarray(got)
    assert got.dtype.name == want["dtype"], name
    assert list(got.shape) == want["shape"], name
    if got.dtype.kind in "iu":
        assert [int(v) for v in got.reshape(-1)] == want["value"], name
    else:       # bit for bit: the floats' exact values
        np.testing.assert_array_equal(got.reshape(-1).astype(np.float64),
                                      np.array(want["value"], np.float64), err_msg=name)


def _run_in_order(sess, steps, recorded=None) -> None:
    """Each fetch in TF's order (each run moves the states on), checked against TF's."""
    recorded = recorded or TF["values"]
    for name, fetch in steps:
        want = recorded[name]
        if "error" in want:
            with pytest.raises(getattr(ds.errors, want["error"]), match=_tf_message(want)):
                sess.run(fetch)
        else:
            _check(name, sess.run(fetch), recorded)


def test_draws_are_tfs_draw_after_draw():
    with ds.Graph().as_default():
        steps = cases.build(ds) + cases.build_raw_ops(ds, stateful_random)
        assert [name for name, _ in steps] == TF["order"]
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            _run_in_order(sess, steps)


def test_each_algorithm_number_as_tf():
    with ds.Graph().as_default():
        steps = cases.build_raw_algorithms(ds, stateful_random)
        assert {name for name, _ in steps} == set(TF["algorithms"])
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            _run_in_order(sess, steps, TF["algorithms"])


def test_the_graph_def_tf_wrote_imports_and_draws_as_tf():
    graph_def = ds.GraphDef()
    with open(os.path.join(DATA, "tf_random_generator.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    with ds.Graph().as_default():
        ds.import_graph_def(graph_def, name="")
        with ds.Session() as sess:
            sess.run(TF["init"])
            _run_in_order(sess, [(name, TF["fetch_names"][name]) for name in TF["order"]])


def test_a_new_session_repeats_the_sequence():
    with ds.Graph().as_default():
        gen = ds.random.Generator.from_seed(1234)
        normal = gen.normal([2, 3])
        for _ in range(2):
            with ds.Session() as sess:
                sess.run(gen.state.initializer)
                _check("normal", sess.run(normal))
                _check("normal_again", sess.run(normal))


def test_the_state_is_tfs_variable():
    with ds.Graph().as_default():
        gen = ds.random.Generator.from_seed(5)
        assert gen.state.name == "random_generator/StateVar:0"
        assert gen.state.dtype == ds.int64 and gen.state.shape.as_list() == [3]
        assert gen.algorithm == 1 and ds.trainable_variables() == []
        again = ds.random.Generator.from_state(gen.state, ds.random.Algorithm.PHILOX)
        assert again.state is gen.state
        copy = ds.random.Generator(copy_from=gen)
        draw = gen.uniform([3])
        with ds.Session() as sess:
            sess.run(gen.state.initializer)
            sess.run(draw)
            sess.run(copy.state.initializer)
            np.testing.assert_array_equal(sess.run(copy.state), [5 + 3 * 256, 0, 0])


def test_split_makes_generators_of_the_keys_make_seeds_draws():
    with ds.Graph().as_default():
        parent = ds.random.Generator.from_seed(1234)
        twin = ds.random.Generator.from_seed(1234)
        children = parent.split(2)
        keys = twin.make_seeds(2)[0]
        draws = [child.normal([4]) for child in children]
        key = ds.placeholder(ds.int64, [])
        alone = ds.random.Generator.from_state(ds.stack([0, 0, key]), "philox")
        alone_draw = alone.normal([4])
        with ds.Session() as sess:
            sess.run([parent.state.initializer, twin.state.initializer])
            sess.run([child.state.initializer for child in children])
            keys = sess.run(keys)
            for child, k, draw in zip(children, keys, draws):
                np.testing.assert_array_equal(sess.run(child.state), [0, 0, k])
                sess.run(alone.state.initializer, {key: k})
                np.testing.assert_array_equal(sess.run(draw), sess.run(alone_draw))
            np.testing.assert_array_equal(sess.run(parent.state), [1234 + 2 * 256, 0, 0])


@pytest.mark.parametrize("case", ["state_shape", "alg_name", "alg_type", "key_counter_shape",
                                  "int_minval_only"])
def test_build_errors_are_tfs(case):
    kind, message = TF["errors"][case]
    make = {
        "state_shape": lambda: ds.random.Generator.from_state([1, 2], "philox"),
        "alg_name": lambda: ds.random.Generator.from_seed(1, alg="mersenne"),
        "alg_type": lambda: ds.random.Generator.from_seed(1, alg=1.5),
        "key_counter_shape": lambda: ds.random.Generator.from_key_counter(1, [1, 2, 3],
                                                                          "philox"),
        "int_minval_only": lambda: ds.random.Generator.from_seed(1).uniform(
            [2], minval=1, dtype=ds.int32),
    }[case]
    with ds.Graph().as_default():
        with pytest.raises({"ValueError": ValueError, "TypeError": TypeError}[kind]) as info:
            make()
    assert str(info.value) == message.replace("<dtype: 'int32'>", repr(ds.int32))


def test_an_unknown_algorithm_is_a_value_error():
    # TF 2.21 raises an AttributeError of its own here (a missing helper); this is the
    # ValueError that helper would have made
    assert TF["errors"]["unknown_alg_state"][0] == "AttributeError"
    with ds.Graph().as_default():
        with pytest.raises(ValueError, match="unsupported value 7"):
            ds.random.Generator.from_seed(1, alg=7)


def test_run_errors_are_tfs():
    with ds.Graph().as_default():
        auto = ds.random.Generator.from_seed(3, alg="auto_select")
        threefry = ds.random.Generator.from_seed(3, alg="threefry")
        steps = {"binomial_auto": auto.binomial([2, 1], counts=[5.0], probs=[0.5]),
                 "threefry_normal": threefry.normal([2]),
                 "binomial_shape": auto.binomial([3], counts=[5.0, 6.0], probs=[0.5])}
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            for name, fetch in steps.items():
                want = TF["run_errors"][name]
                with pytest.raises(getattr(ds.errors, want["error"]),
                                   match=_tf_message(want)):
                    sess.run(fetch)
            np.testing.assert_array_equal(sess.run(auto.state), [3, 0, 0])   # untouched


def test_global_generator_and_non_deterministic_states():
    with ds.Graph().as_default():
        first = ds.random.get_global_generator()
        assert ds.random.get_global_generator() is first
        assert ds.random.experimental.get_global_generator is ds.random.get_global_generator
        with ds.Session() as sess:
            sess.run(first.state.initializer)
            a = sess.run(first.state)
            sess.run(first.state.initializer)
            assert a.shape == (3,) and not np.array_equal(a, sess.run(first.state))
        mine = ds.random.Generator.from_seed(1)
        ds.random.set_global_generator(mine)
        try:
            assert ds.random.get_global_generator() is mine
        finally:
            ds.random.set_global_generator(None)


def test_algorithm_names_and_numbers():
    assert [a.value for a in ds.random.Algorithm] == [1, 2, 3]
    for name in ("Generator", "Algorithm", "get_global_generator", "set_global_generator"):
        assert getattr(ds.random.experimental, name) is getattr(ds.random, name)
        assert name in ds.random.__all__ and name in ds.random.experimental.__all__
    with ds.Graph().as_default():
        by_enum = ds.random.stateless_uniform([3], [1, 2], alg=ds.random.Algorithm.PHILOX)
        by_name = ds.random.stateless_uniform([3], [1, 2], alg="philox")
        state = ds.random.create_rng_state(7, ds.random.Algorithm.THREEFRY)
        with ds.Session() as sess:
            a, b, s = sess.run([by_enum, by_name, state])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(s, [7, 0])


def test_on_a_gpu_the_draws_and_states_are_tfs():
    """On the GPU (the cupy stand-in; a real GPU where there is one) the state lives on
    the device between draws and each draw comes back to the host: the same values."""
    import cuda_host
    import cupy_standin

    if cuda_host.compiler_missing():
        pytest.skip(cuda_host.compiler_missing())
    with cupy_standin.installed() as cupy, ds.Graph().as_default():
        with ds.device("gpu:0"):      # integer draws: no arithmetic kernels to compile
            gen = ds.random.Generator.from_seed([1, 2, 3, 4], alg="philox")
            draw = gen.uniform_full_int([4], ds.int64)
            state = ds.identity(gen.state)
        with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
            sess.run(gen.state.initializer)
            _check("vector_state", sess.run(state))
            _check("vector_full_int", sess.run(draw))
            np.testing.assert_array_equal(sess.run(state), [1 + 4 * 256, 2, 3])
            held = sess.resources.variable("", "random_generator/StateVar", np.int64, (3,))
            assert isinstance(held.value, cupy.ndarray)       # read on the GPU last


def test_a_dtype_the_draw_refuses_is_a_type_error():
    with ds.Graph().as_default():
        gen = ds.random.Generator.from_seed(1)
        with pytest.raises(TypeError, match="uint64"):    # TF builds it, and has no
            gen.uniform([2], minval=0, maxval=5, dtype=ds.uint64)   # kernel when run
        with pytest.raises(TypeError, match="int32"):     # TF's TypeError
            gen.normal([2], dtype=ds.int32)


def test_exporting_a_generator_for_tensorflow_names_the_node():
    # TF's ops take a resource variable's handle; devsession's variables are references
    from devsession.tf_export import to_tf_graph_def

    with ds.Graph().as_default() as graph:
        ds.random.Generator.from_seed(1).normal([2], name="x")
        with pytest.raises(ds.errors.UnimplementedError, match="'x/RngReadAndSkip'.*resource"):
            to_tf_graph_def(graph)
