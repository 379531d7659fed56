"""TF's stateless random ops (``ops/stateless_random.py``, kernels
``reference/stateless_random.py`` over ``reference/philox.py``): TensorFlow's values bit
for bit, recorded by tests/data/make_tf_stateless_random.py with TF 2.21.

* A GraphDef TF wrote (its V2 builders, the V1 ops TF1.x wrote, GetKeyCounterAlg, GetAlg,
  StatelessMultinomial, variables with TF2's seeded initializers) imports and computes
  TF's values, dtypes and static shapes; running its ``init`` gives TF's initial values.
* ``ds.random.stateless_*`` build TF's nodes under TF's names and give TF's values;
  100003-long draws of every float dtype equal TF's (SHA-256 of the bytes).
* Same seed, same values (a new run, a new session); not stateful, not differentiable.
* TF's errors: ValueError/TypeError at build, InvalidArgumentError naming the node at run.
* Every device's kernel (the CPU's, the GPU's on the stand-in) against the reference.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

import devsession as ds
from devsession.ops.registry import get_gradient, get_op_def
from devsession.ops.stateless_random import STATELESS_OPS
import stateless_random_cases
from kernel_cases import DEVICES, check_against_ref, make_node
from tf_recorded import DATA, run_recorded, tf_static_shape

COVERED = set(STATELESS_OPS) | {"StatelessShuffle"}
InvalidArgumentError = ds.errors.InvalidArgumentError
TF = np.load(os.path.join(DATA, "tf_stateless_random.npz"))
SEED, SEED64 = TF["feed:seed"], TF["feed:seed64"]


def run(fetches, feed=None, graph=None):
    with ds.Session(graph=graph) as sess:
        return sess.run(fetches, feed)


# --- a GraphDef TensorFlow wrote ------------------------------------------------------------

def test_tf_graph_imports_and_computes_tfs_values():
    graph, names, values, data = run_recorded("tf_stateless_random")
    assert len(names) == 29
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        assert value.dtype == want.dtype, name
        np.testing.assert_array_equal(value, want, err_msg=name)
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name
    types = {op.type for op in graph.get_operations()}
    assert STATELESS_OPS <= types


def test_tf2_initializers_in_a_tf_graph_set_tfs_initial_values():
    graph_def = ds.read_graph_def(os.path.join(DATA, "tf_stateless_random.pb"))
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def, name="")
    wanted = {k[len("variable:"):]: TF[k] for k in TF if k.startswith("variable:")}
    assert sorted(wanted) == ["glorot", "he_normal", "normal_init", "trunc"]
    with ds.Session(graph=graph) as sess:
        sess.run("init")
        got = sess.run({name: f"{name}:0" for name in wanted})
    for name, want in wanted.items():
        np.testing.assert_array_equal(got[name], want, err_msg=name)


# --- the builders -------------------------------------------------------------------------

def test_builders_build_tfs_nodes_and_give_tfs_values(graph):
    seed = ds.placeholder(ds.int32, (2,), name="seed")
    seed64 = ds.placeholder(ds.int64, (2,), name="seed64")
    size = ds.placeholder(ds.int32, (None,), name="size")
    logits = ds.placeholder(ds.float32, (None, 4), name="logits")
    # the recorder's calls with ds's API, keyed by the names TF gave them
    built = {t.op.name: t for t in
             stateless_random_cases.draws(ds, seed, seed64, size, logits).values()}
    assert len(built) == 16 and set(built) <= {k[6:-2] for k in TF.files
                                               if k.startswith("fetch:")}
    # the same nodes (names, types, inputs) as TF's GraphDef holds for these calls
    tf_nodes = {n.name: n for n in ds.read_graph_def(
        os.path.join(DATA, "tf_stateless_random.pb")).node}
    for op in graph.get_operations():
        if op.type == "Placeholder":
            continue
        assert op.name in tf_nodes, op.name
        assert tf_nodes[op.name].op == op.type, op.name
        assert list(tf_nodes[op.name].input) == [
            t.name[:-2] if t.name.endswith(":0") else t.name for t in op.inputs], op.name
    values = run(built, {seed: SEED, seed64: SEED64, size: TF["feed:size"],
                         logits: TF["feed:logits"]})
    for key, value in values.items():
        want = TF[f"fetch:{key}:0"]
        assert value.dtype == want.dtype, key
        np.testing.assert_array_equal(value, want, err_msg=key)
        assert built[key].shape == tf_static_shape(TF, f"{key}:0"), key


def test_long_draws_equal_tfs_bit_for_bit(graph):
    size, seed = int(TF["long_size"]), TF["long_seed"]
    draws = {f"{kind}_{dtype}": draw([size], seed, dtype=dtype)
             for kind, draw in (("uniform", ds.random.stateless_uniform),
                                ("normal", ds.random.stateless_normal),
                                ("truncated", ds.random.stateless_truncated_normal))
             for dtype in ("float16", "float32", "float64")}
    for key, value in run(draws).items():
        assert hashlib.sha256(value.tobytes()).hexdigest() == str(TF[f"digest:{key}"]), key


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_truncated_groups_that_read_on_read_tfs_values(dtype):
    """With one block tried first, about one group in six (float64: eleven) rejects too
    many and reads on in its part of the stream: still TF's values."""
    from devsession.kernels.reference.philox import seed_key_counter
    from devsession.kernels.reference.stateless_random import truncated_normal

    key, counter = seed_key_counter(*(int(s) for s in TF["long_seed"]))
    drawn = truncated_normal(key, counter, int(TF["long_size"]), dtype, first_blocks=1)
    assert hashlib.sha256(drawn.tobytes()).hexdigest() == str(TF[f"digest:truncated_{dtype}"])


def test_alg_philox_gives_tfs_values(graph):
    drawn = ds.random.stateless_uniform([4], SEED, alg="philox")
    np.testing.assert_array_equal(run(drawn), TF["philox_uniform"])
    alg = graph.get_operation_by_name("stateless_random_uniform/StatelessRandomUniformV2/alg")
    assert alg.attrs["value"] == 1                        # alg 1: Philox
    with pytest.raises(ValueError, match="unsupported value mersenne"):
        ds.random.stateless_normal([2], SEED, alg="mersenne")


def test_exported_in_tfs_form_and_read_back_with_the_same_values(graph):
    """``to_tf_graph_def`` writes TF's type attrs (TF 2.21 imports it and computes the
    same values: checked when the signatures were regenerated); importing it back gives
    the same values."""
    from devsession.tf_export import to_tf_graph_def

    seed = ds.placeholder(ds.int64, (2,), name="seed")
    built = [ds.random.stateless_uniform([3], seed, name="a"),
             ds.random.stateless_uniform([3], seed, minval=1, maxval=4, dtype=ds.int32),
             ds.random.stateless_categorical([[0.0, 1.0]], 3, seed),
             graph.create_op("StatelessTruncatedNormal", [ds.constant([2]), seed]).outputs[0]]
    exported = to_tf_graph_def(graph)
    nodes = {n.name: n for n in exported.node}
    assert set(nodes["a/StatelessRandomGetKeyCounter"].attr) == {"Tseed"}
    assert set(nodes["a/StatelessRandomUniformV2"].attr) == {"dtype", "Tshape"}
    assert set(nodes["StatelessTruncatedNormal"].attr) == {"dtype", "T", "Tseed"}
    back = ds.Graph()
    with back.as_default():
        ds.import_graph_def(exported, name="")
    feed = {"seed:0": SEED64}
    want = run([t.name for t in built], feed)
    got = run([t.name for t in built], feed, graph=back)
    for name, g, w in zip([t.name for t in built], got, want):
        np.testing.assert_array_equal(g, w, err_msg=name)


def test_same_seed_same_values_in_every_run_and_session(graph):
    seed = ds.placeholder(ds.int64, (2,))
    drawn = ds.random.stateless_normal([50], seed)
    with ds.Session() as sess:
        first = sess.run(drawn, {seed: [1, 2]})
        np.testing.assert_array_equal(sess.run(drawn, {seed: [1, 2]}), first)
        assert not np.array_equal(sess.run(drawn, {seed: [1, 3]}), first)
    np.testing.assert_array_equal(run(drawn, {seed: [1, 2]}), first)
    for op_type in STATELESS_OPS:
        assert not get_op_def(op_type).stateful, op_type


def test_not_differentiable_as_tf():
    for op_type in STATELESS_OPS:
        assert get_gradient(op_type) is None, op_type
    with ds.Graph().as_default():
        shape = ds.constant([3])
        draw = ds.random.stateless_uniform(shape, [1, 2])
        assert ds.gradients(draw, [shape]) == [None]


def test_key_counter_and_alg_ops(graph):
    seed = ds.constant(SEED64)
    key, counter = graph.create_op("StatelessRandomGetKeyCounter", [seed]).outputs
    alg = graph.create_op("StatelessRandomGetAlg", []).outputs[0]
    assert (key.dtype, key.shape, counter.dtype, counter.shape) == (
        ds.uint64, (1,), ds.uint64, (2,))
    got = run([key, counter, alg])
    np.testing.assert_array_equal(got[0], TF["fetch:StatelessRandomGetKeyCounterAlg:0"])
    np.testing.assert_array_equal(got[1], TF["fetch:StatelessRandomGetKeyCounterAlg:1"])
    assert got[2] == 1 and got[2].dtype == np.int32


# --- errors ---------------------------------------------------------------------------------

def test_build_time_errors_as_tfs(graph):
    r = ds.random
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        r.stateless_uniform([2], seed=[1, 2, 3])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
        r.stateless_normal([2], seed=1)
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        r.stateless_normal([2], seed=[[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="seed .* must be int32 or int64, not float32"):
        r.stateless_uniform([2], seed=ds.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="`minval` and `maxval` must be both None or not"):
        r.stateless_uniform([2], [1, 2], minval=None, maxval=5, dtype=ds.int32)
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value ds.bool"):
        r.stateless_uniform([2], [1, 2], dtype=ds.bool)
    with pytest.raises(ValueError, match="Please don't use unsigned integers"):
        r.stateless_uniform([2], [1, 2], minval=0, maxval=3, dtype=ds.uint64)
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value ds.float32"):
        r.stateless_categorical([[0.0, 1.0]], 2, [1, 2], dtype=ds.float32)
    key, counter = ds.constant(np.array([1, 2], np.uint64)), ds.constant(np.array([0, 1],
                                                                                   np.uint64))
    with pytest.raises(ValueError, match="Dimension must be 1 but is 2 for key"):
        graph.create_op("StatelessRandomUniformV2", [ds.constant([2]), key, counter,
                                                     ds.constant(1)])
    with pytest.raises(ValueError, match="minval must be a scalar"):
        graph.create_op("StatelessRandomUniformIntV2",
                        [ds.constant([2]), key[:1], counter, ds.constant(1),
                         ds.constant([1, 2]), ds.constant(5)], {"dtype": ds.int32})


def _raises_naming_node(fetch, feed, message):
    with pytest.raises(InvalidArgumentError, match=message) as info:
        run(fetch, feed)
    assert info.value.node_name == fetch.op.name or fetch.op.name in str(info.value)
    return info.value


def test_run_time_errors_as_tfs(graph):
    seed = ds.placeholder(ds.int32, (None,))
    drawn = ds.random.stateless_uniform([2], seed)
    error = _raises_naming_node(drawn, {seed: [1, 2, 3]}, r"seed must have shape \[2\], not \[3\]")
    assert error.node_name == "stateless_random_uniform/StatelessRandomGetKeyCounter"
    low = ds.placeholder(ds.int32, ())
    ints = ds.random.stateless_uniform([3], [1, 2], minval=low, maxval=5, dtype=ds.int32)
    error = _raises_naming_node(ints, {low: 5}, "Need minval < maxval, got 5 >= 5")
    assert error.node_name == ints.op.name
    assert run(ds.random.stateless_uniform([0], [1, 2], minval=low, maxval=5,
                                           dtype=ds.int32), {low: 7}).shape == (0,)
    size = ds.placeholder(ds.int32, (None,))
    _raises_naming_node(ds.random.stateless_normal(size, [1, 2]), {size: [2, -1]},
                        "Dimension 1 must be >= 0")
    v1_seed = ds.placeholder(ds.int64, None)
    v1 = graph.create_op("StatelessRandomUniform", [ds.constant([2]), v1_seed]).outputs[0]
    _raises_naming_node(v1, {v1_seed: 3}, r"seed must have shape \[2\], not \[\]")
    alg = ds.placeholder(ds.int32, ())
    key, counter = graph.create_op("StatelessRandomGetKeyCounter", [ds.constant([1, 2])]).outputs
    v2 = graph.create_op("StatelessRandomNormalV2", [ds.constant([2]), key, counter, alg])
    _raises_naming_node(v2.outputs[0], {alg: 2}, "Unsupported algorithm id: 2")
    np.testing.assert_array_equal(run(v2.outputs[0], {alg: 3}), run(v2.outputs[0], {alg: 1}))


# --- stateless_shuffle (TF's values: tf1_programs/p77_stateless_shuffle.py) ---------------------

def _fisher_yates(size, samples):
    """shuffle_common.h's forward Fisher-Yates over ``samples`` (uint32), written apart
    from the kernel's."""
    order = list(range(size))
    for i in range(size - 1):
        j = i + int(samples[i]) % (size - i)
        order[i], order[j] = order[j], order[i]
    return order


def test_stateless_shuffle_is_fisher_yates_over_the_seeds_philox_stream(graph):
    """The permutation from the stream StatelessRandomUniformFullIntV2 draws under the
    same key and counter: 32-bit samples in order, one per swap."""
    rows = np.arange(40.0).reshape(20, 2)
    shuffled = ds.random.experimental.stateless_shuffle(rows, seed=[12, -3])
    key, counter, _ = [t for t in shuffled.op.inputs[1:]]
    bits = graph.create_op("StatelessRandomUniformFullIntV2",
                           [ds.constant([19]), key, counter, ds.constant(1)],
                           {"dtype": ds.uint64}).outputs[0]
    got, words = run([shuffled, bits])
    samples = [w for word in words.tolist() for w in (word & 0xFFFFFFFF, word >> 32)]
    np.testing.assert_array_equal(got, rows[_fisher_yates(20, samples)])


def test_stateless_shuffle_same_seed_same_order_and_no_gradient(graph):
    seed = ds.placeholder(ds.int32, (2,))
    value = ds.constant(np.arange(50.0))
    shuffled = ds.random.experimental.stateless_shuffle(value, seed)
    first, again, other = (run(shuffled, {seed: s}) for s in ([1, 2], [1, 2], [2, 1]))
    np.testing.assert_array_equal(first, again)
    assert sorted(first) == list(range(50)) and not np.array_equal(first, other)
    assert shuffled.name == "stateless_shuffle/StatelessShuffle:0"
    assert shuffled.shape == (50,) and not get_op_def("StatelessShuffle").stateful
    with pytest.raises(LookupError, match="No gradient defined for operation "
                                          "'stateless_shuffle/StatelessShuffle'"):
        ds.gradients(ds.reduce_sum(shuffled), value)


def test_stateless_shuffle_errors_as_tfs(graph):
    shuffle = ds.random.experimental.stateless_shuffle
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        shuffle([1, 2, 3], seed=[1, 2, 3])
    with pytest.raises(ValueError, match="Argument `alg` got unsupported value"):
        shuffle([1, 2, 3], seed=[1, 2], alg="mersenne")
    _raises_naming_node(shuffle(ds.range(4), seed=[1, 2], alg="threefry"), None,
                        "Unsupported algorithm id: 2")


# --- every device's kernel --------------------------------------------------------------------

KEY, COUNTER = np.array([123456789012345], np.uint64), np.array([7, 2**63 + 5], np.uint64)
ALG, SHAPE = np.array(1, np.int32), np.array([3, 5], np.int32)


def _cases():
    seed = np.array([5, -6], np.int64)
    bounds = (np.array(-4, np.int32), np.array(9, np.int32))
    for op in ("StatelessRandomUniformV2", "StatelessRandomNormalV2",
               "StatelessTruncatedNormalV2"):
        for dtype in (np.float16, np.float32, np.float64):
            yield op, (SHAPE, KEY, COUNTER, ALG), dtype
    yield "StatelessRandomUniformIntV2", (SHAPE, KEY, COUNTER, ALG, *bounds), np.int32
    yield "StatelessRandomUniformFullIntV2", (SHAPE, KEY, COUNTER, ALG), np.uint64
    for op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"):
        yield op, (SHAPE, seed), np.float32
    yield "StatelessRandomUniformInt", (SHAPE, seed, *bounds), np.int32
    yield "StatelessRandomUniformFullInt", (SHAPE, seed), np.int64
    yield "StatelessRandomGetKeyCounter", (seed,), None
    yield "StatelessRandomGetKeyCounterAlg", (seed,), None
    yield "StatelessRandomGetAlg", (), np.int32
    yield ("StatelessMultinomial", (np.array([[0.0, 1.0, 2.0]], np.float32),
                                    np.array(4, np.int32), seed), np.int64)
    yield ("StatelessShuffle", (np.arange(21.0).reshape(7, 3), KEY, COUNTER, ALG), np.float64)


@pytest.mark.parametrize("device", DEVICES)
def test_every_devices_kernel_equals_the_reference(device):
    seen = set()
    for op, inputs, dtype in _cases():
        seen.add(op)
        multi = {"StatelessRandomGetKeyCounter": (np.uint64, np.uint64),
                 "StatelessRandomGetKeyCounterAlg": (np.uint64, np.uint64, np.int32)}.get(op)
        node = make_node(op, [x.dtype for x in inputs], dtype if multi is None else None,
                         {"dtype": dtype})
        if multi:
            import dataclasses
            node = dataclasses.replace(node, output_dtypes=tuple(np.dtype(d) for d in multi))
        got = check_against_ref(device, node, *inputs)
        assert (got[0] if multi else got).size > 0
    assert seen == COVERED
