"""``ds.data``: datasets and iterators, run in sessions.  Elements are checked against
numpy computations of the same pipeline; errors by class and the node they name.  The
TF1 program tests/tf1_programs/p29_dataset_input.py checks the same surface against
TensorFlow's recorded outputs.
"""

from __future__ import annotations

import collections
import logging

import numpy as np
import pytest

import devsession as ds
from devsession.errors import (FailedPreconditionError, InvalidArgumentError, NotFoundError,
                               OutOfRangeError)
from devsession.unsupported import UnsupportedTF1Error
from fake_gpu import fake_gpus
from sessions import SESSION_MAKERS

FEATURES = np.random.default_rng(5).standard_normal((10, 3)).astype(np.float32)
LABELS = np.arange(10, dtype=np.int64)


def drain(sess, fetch, feed=None, limit=1000) -> list:
    """Every element ``fetch`` gives until OutOfRangeError (at most ``limit``)."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch, feed))
        except OutOfRangeError:
            return out
    raise AssertionError(f"no OutOfRangeError after {limit} elements")


def run_all(dataset) -> list:
    with ds.Session() as sess:
        return drain(sess, dataset.make_one_shot_iterator().get_next())


# --- sources and element structure ---------------------------------------------------------

def test_slices_of_a_tuple_map_filter_batch():
    dataset = ds.data.Dataset.from_tensor_slices((FEATURES, LABELS))
    dataset = dataset.map(lambda x, y: (x * 2.0, y + 1)).filter(lambda x, y: y % 3 > 0)
    dataset = dataset.batch(4)
    assert dataset.output_types == (ds.float32, ds.int64)
    assert [s.as_list() for s in dataset.output_shapes] == [[None, 3], [None]]
    batches = run_all(dataset)
    keep = (LABELS + 1) % 3 > 0
    assert [len(b[1]) for b in batches] == [4, 3]
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), LABELS[keep] + 1)
    np.testing.assert_allclose(np.concatenate([b[0] for b in batches]), FEATURES[keep] * 2)
    assert batches[0][0].dtype == np.float32 and batches[0][1].dtype == np.int64


def test_slices_of_strings_are_scalar_strings():
    names = np.array([b"a", b"bc", b""], dtype=object)
    dataset = ds.data.Dataset.from_tensor_slices((names, LABELS[:3])).shuffle(3, seed=1)
    got = run_all(dataset)
    assert sorted(got) == [(b"", 2), (b"a", 0), (b"bc", 1)]
    assert all(isinstance(name, bytes) for name, _ in got)


def test_dicts_namedtuples_and_lists_as_tensors():
    Pair = collections.namedtuple("Pair", "a b")
    dataset = ds.data.Dataset.from_tensor_slices(
        {"x": FEATURES, "pair": Pair(LABELS, np.tile(np.int64([1, 2]), (10, 1)))})
    mapped = dataset.map(lambda e: {"sum": e["pair"].a + e["pair"].b, "x": e["x"]})
    mapped = mapped.map(lambda e: [e["x"], e["sum"]])
    assert isinstance(mapped.output_types, tuple)        # TF1 makes a list a tuple
    elements = run_all(mapped.take(3))
    for k, (x, total) in enumerate(elements):
        np.testing.assert_array_equal(x, FEATURES[k])
        np.testing.assert_array_equal(total, [k + 1, k + 2])
    first = run_all(dataset.take(1))[0]
    assert isinstance(first["pair"], Pair) and first["pair"].b.tolist() == [1, 2]


def test_from_tensors_and_range():
    assert [v.tolist() for v in run_all(ds.data.Dataset.from_tensors(FEATURES[:2]))] == \
        [FEATURES[:2].tolist()]
    assert run_all(ds.data.Dataset.range(5)) == list(range(5))
    assert run_all(ds.data.Dataset.range(10, 2, -3)) == [10, 7, 4]
    assert ds.data.Dataset.range(3).output_types == ds.int64


def test_repeat_take_skip_and_cache():
    base = ds.data.Dataset.range(4)
    assert run_all(base.repeat(2)) == [0, 1, 2, 3] * 2
    assert run_all(base.repeat().take(6)) == [0, 1, 2, 3, 0, 1]
    assert run_all(base.skip(1).take(2)) == [1, 2]
    assert run_all(base.skip(-1)) == [] and run_all(base.take(-1)) == [0, 1, 2, 3]
    assert run_all(base.filter(lambda x: x > 10).repeat()) == []    # ends, no hang
    noisy = base.map(lambda x: ds.cast(x, ds.float32) + ds.random_uniform([]))
    cached = run_all(noisy.cache().repeat(3))
    np.testing.assert_array_equal(cached[:4], cached[4:8])
    assert run_all(noisy.repeat(2))[:4] != run_all(noisy.repeat(2))[4:]   # uncached: new draws


def test_batch_with_drop_remainder_has_a_static_batch_dimension():
    dataset = ds.data.Dataset.from_tensor_slices(FEATURES).batch(3, drop_remainder=True)
    assert dataset.output_shapes.as_list() == [3, 3]
    batches = run_all(dataset)
    assert len(batches) == 3
    np.testing.assert_array_equal(np.concatenate(batches), FEATURES[:9])


def test_map_captures_outer_tensors_and_feeds():
    scale = ds.placeholder(ds.float32, [])
    offset = ds.constant([1.0, 2.0, 3.0])
    dataset = ds.data.Dataset.from_tensor_slices(FEATURES).map(lambda x: x * scale + offset)
    iterator = dataset.make_initializable_iterator()
    row = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer, {scale: 3.0})
        np.testing.assert_allclose(sess.run(row), FEATURES[0] * 3 + [1, 2, 3], rtol=1e-6)


def test_zip_and_concatenate_combine_pipelines():
    numbers = ds.data.Dataset.range(4)
    doubled = ds.data.Dataset.from_tensor_slices(FEATURES).map(lambda x: x * 2.0)
    tens = numbers.map(lambda n: n * 10)        # its function and doubled's: two slots
    zipped = ds.data.Dataset.zip({"n": tens, "pair": (doubled, numbers.skip(1))})
    assert zipped.output_types == {"n": ds.int64, "pair": (ds.float32, ds.int64)}
    elements = run_all(zipped.batch(2))
    assert len(elements) == 2                                 # the shortest branch: 3
    np.testing.assert_array_equal(elements[0]["n"], [0, 10])
    np.testing.assert_allclose(elements[0]["pair"][0], FEATURES[:2] * 2)
    np.testing.assert_array_equal(elements[1]["pair"][1], [3])
    tail = ds.data.Dataset.from_tensor_slices(FEATURES[:2, :2])
    chained = ds.data.Dataset.from_tensor_slices(FEATURES[:3]).map(lambda x: x[:2]) \
        .concatenate(tail)
    assert chained.output_shapes.as_list() == [2]
    np.testing.assert_allclose(np.stack(run_all(chained)),
                               np.concatenate([FEATURES[:3, :2], FEATURES[:2, :2]]))
    with pytest.raises(TypeError, match="int64 components after float32"):
        doubled.concatenate(numbers.map(lambda n: ds.fill([3], n)))


def test_padded_batch_pads_each_batch_to_its_longest():
    ragged = ds.data.Dataset.range(1, 6).map(
        lambda n: ds.fill(ds.reshape(ds.cast(n, ds.int32), [1]), ds.cast(n, ds.float32)))
    batches = run_all(ragged.padded_batch(2, padded_shapes=[None], padding_values=-1.0))
    want = [[[1, -1], [2, 2]], [[3, 3, 3, -1], [4, 4, 4, 4]], [[5, 5, 5, 5, 5]]]
    assert [b.tolist() for b in batches] == want
    fixed = ragged.padded_batch(2, padded_shapes=[6], drop_remainder=True)
    assert fixed.output_shapes.as_list() == [2, 6]
    assert [b.shape for b in run_all(fixed)] == [(2, 6), (2, 6)]
    with ds.Session() as sess:
        too_short = ragged.padded_batch(2, padded_shapes=[3]).make_one_shot_iterator()
        value = too_short.get_next()
        sess.run(value)
        with pytest.raises(InvalidArgumentError, match="to the smaller shape \\[3\\]"):
            sess.run(value)
    with pytest.raises(ValueError, match="cannot be padded"):
        ds.data.Dataset.from_tensor_slices(FEATURES).padded_batch(2, padded_shapes=[2])


def test_padded_shapes_of_a_nested_element_are_lists_at_its_leaves():
    pairs = ds.data.Dataset.range(1, 4).map(
        lambda n: (ds.range(ds.cast(n, ds.int32)), ds.cast(n, ds.int32)))
    padded = pairs.padded_batch(3, padded_shapes=([None], []), padding_values=(-1, 0))
    (tokens, lengths), = run_all(padded)
    assert tokens.tolist() == [[0, -1, -1], [0, 1, -1], [0, 1, 2]]
    assert lengths.tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="does not have the nesting"):
        pairs.padded_batch(3, padded_shapes=[None])


def test_shard_takes_every_nth_element_from_the_index_th():
    for index in range(3):
        assert run_all(ds.data.Dataset.range(10).shard(3, index)) == list(range(10))[index::3]
    sliced = ds.data.Dataset.from_tensor_slices((FEATURES, LABELS)).shard(4, 1).batch(2)
    got = run_all(sliced)
    np.testing.assert_array_equal(np.concatenate([f for f, _ in got]), FEATURES[1::4])
    np.testing.assert_array_equal(np.concatenate([lab for _, lab in got]), LABELS[1::4])
    with pytest.raises(ValueError, match="index 3 must be less than num_shards 3"):
        ds.data.Dataset.range(4).shard(3, 3)


def test_unbatch_enumerate_take_while_and_apply():
    rows = ds.data.Dataset.from_tensor_slices(np.arange(24).reshape(3, 4, 2)).unbatch()
    assert rows.output_shapes.as_list() == [2]
    assert [r.tolist() for r in run_all(rows)] == np.arange(24).reshape(12, 2).tolist()
    numbered = ds.data.Dataset.from_tensor_slices(LABELS * 10).enumerate(start=3)
    assert [(int(i), int(v)) for i, v in run_all(numbered)][:3] == [(3, 0), (4, 10), (5, 20)]
    early = ds.data.Dataset.range(100).take_while(lambda n: n * n < 30)
    assert run_all(early) == [0, 1, 2, 3, 4, 5]
    doubled = ds.data.Dataset.range(3).apply(lambda d: d.map(lambda n: 2 * n))
    assert run_all(doubled) == [0, 2, 4]
    with pytest.raises(TypeError, match="must return a Dataset"):
        ds.data.Dataset.range(3).apply(lambda d: 3)
    with pytest.raises(ValueError, match="rank >= 1"):
        ds.data.Dataset.range(3).unbatch()
    with pytest.raises(ValueError, match="scalar bool"):
        ds.data.Dataset.range(3).take_while(lambda n: n)


def test_unbatching_components_of_different_lengths_is_an_invalid_argument():
    uneven = ds.data.Dataset.from_tensors((np.zeros((2, 3)), np.zeros(4))).unbatch()
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="different first dimensions"):
            sess.run(uneven.make_one_shot_iterator().get_next())


# --- shuffle ---------------------------------------------------------------------------------

def _orders(dataset, epochs):
    values = run_all(dataset)
    n = len(values) // epochs
    return [values[k * n:(k + 1) * n] for k in range(epochs)]


def test_shuffle_is_a_permutation_seeded_and_reshuffled_each_epoch():
    base = ds.data.Dataset.range(50)
    first, second = _orders(base.shuffle(20, seed=3).repeat(2), 2)
    assert sorted(first) == sorted(second) == list(range(50))
    assert first != list(range(50)) and first != second
    again = _orders(base.shuffle(20, seed=3).repeat(2), 2)
    assert again == [first, second]                        # the same seed, the same orders
    fixed = _orders(base.shuffle(20, seed=3, reshuffle_each_iteration=False).repeat(2), 2)
    assert fixed[0] == fixed[1]
    assert run_all(base.shuffle(1, seed=3)) == list(range(50))   # a buffer of one keeps order


def test_a_graph_seed_seeds_the_shuffle():
    def orders():
        ds.reset_default_graph()
        ds.set_random_seed(11)
        return run_all(ds.data.Dataset.range(30).shuffle(30))
    assert orders() == orders() != list(range(30))


# --- iterators -------------------------------------------------------------------------------

def test_initializable_iterator_restarts_with_new_feeds():
    source = ds.placeholder(ds.float32, [None, 3])
    iterator = ds.data.Dataset.from_tensor_slices(source).batch(4) \
        .make_initializable_iterator()
    rows = iterator.get_next()
    with ds.Session() as sess:
        with pytest.raises(FailedPreconditionError, match="not been initialized"):
            sess.run(rows)
        sess.run(iterator.initializer, {source: FEATURES})
        assert len(drain(sess, rows)) == 3
        with pytest.raises(OutOfRangeError, match=rows.op.name):
            sess.run(rows)
        sess.run(iterator.initializer, {source: FEATURES[:2]})
        np.testing.assert_array_equal(drain(sess, rows)[0], FEATURES[:2])


def test_a_reinitializable_iterator_switches_datasets():
    train = ds.data.Dataset.from_tensor_slices(FEATURES[:6]).batch(2)
    valid = ds.data.Dataset.from_tensor_slices(FEATURES[6:]).batch(2)
    iterator = ds.data.Iterator.from_structure(train.output_types, train.output_shapes)
    to_train, to_valid = iterator.make_initializer(train), iterator.make_initializer(valid)
    rows = iterator.get_next()
    with ds.Session() as sess:
        sess.run(to_valid)
        np.testing.assert_array_equal(sess.run(rows), FEATURES[6:8])
        sess.run(to_train)
        np.testing.assert_array_equal(np.concatenate(drain(sess, rows)), FEATURES[:6])
    with pytest.raises(TypeError, match="int64"):
        iterator.make_initializer(ds.data.Dataset.range(3))
    with pytest.raises(ValueError, match="one-shot"):
        train.make_one_shot_iterator().initializer


def test_iterator_shapes_may_be_lists_as_tf_takes_them():
    """TF maps output_shapes up to output_types: ``[]`` is a scalar's shape, not an empty
    structure."""
    scalar = ds.data.Iterator.from_structure(ds.int64, [])
    pair = ds.data.Iterator.from_structure((ds.int64, ds.float32), ([], [None, 2]))
    named = ds.data.Iterator.from_string_handle(ds.placeholder(ds.string, []),
                                                {"a": ds.int64}, {"a": [3]})
    assert scalar.output_shapes == ds.TensorShape([])
    assert pair.output_shapes == (ds.TensorShape([]), ds.TensorShape([None, 2]))
    assert named.output_shapes == {"a": ds.TensorShape([3])}
    with pytest.raises(ValueError, match="nesting"):
        ds.data.Iterator.from_structure((ds.int64, ds.int64), ([],))


def test_a_feedable_iterator_reads_from_the_iterator_its_handle_names():
    source = ds.placeholder(ds.float32, [None, 3])
    train = ds.data.Dataset.from_tensor_slices(source).batch(4)
    train_iterator = train.make_initializable_iterator()
    valid_iterator = ds.data.Dataset.from_tensor_slices(FEATURES[6:]).batch(2).repeat() \
        .make_one_shot_iterator()
    handle = ds.placeholder(ds.string, [])
    iterator = ds.data.Iterator.from_string_handle(handle, train.output_types,
                                                   train.output_shapes)
    rows = iterator.get_next()
    assert rows.shape.as_list() == [None, 3] and iterator.string_handle() is handle
    with ds.Session() as sess:
        to_train, to_valid = sess.run([train_iterator.string_handle(),
                                       valid_iterator.string_handle()])
        assert isinstance(to_train, bytes) and to_train != to_valid
        sess.run(train_iterator.initializer, {source: FEATURES})
        np.testing.assert_array_equal(sess.run(rows, {handle: to_train}), FEATURES[:4])
        np.testing.assert_array_equal(sess.run(rows, {handle: to_valid}), FEATURES[6:8])
        # each source keeps its own position
        np.testing.assert_array_equal(sess.run(rows, {handle: to_train}), FEATURES[4:8])
        np.testing.assert_array_equal(sess.run(rows, {handle: to_valid}), FEATURES[8:10])
        np.testing.assert_array_equal(sess.run(rows, {handle: to_train}), FEATURES[8:10])
        with pytest.raises(OutOfRangeError):
            sess.run(rows, {handle: to_train})


@pytest.mark.parametrize("make", sorted(SESSION_MAKERS))
def test_a_feedable_iterator_runs_in_direct_and_cluster_sessions(make):
    graph = ds.Graph()
    with graph.as_default(), ds.device("/job:worker/task:1" if make == "grpc" else None):
        dataset = ds.data.Dataset.from_tensor_slices(FEATURES).batch(4)
        one_shot, initializable = (dataset.make_one_shot_iterator(),
                                   dataset.make_initializable_iterator())
        handle = ds.placeholder(ds.string, [])
        rows = ds.data.Iterator.from_string_handle(handle, dataset.output_types).get_next()
        handles = [one_shot.string_handle(), initializable.string_handle()]
    session = SESSION_MAKERS[make](graph)
    try:
        first, second = session.run(handles)
        session.run(initializable.initializer)
        got = [session.run(rows, {handle: h}) for h in (first, first, second)]
    finally:
        session.close()
    for value, want in zip(got, (FEATURES[:4], FEATURES[4:8], FEATURES[:4])):
        np.testing.assert_array_equal(value, want)


def test_a_feedable_iterator_s_bad_handles_and_elements_are_clear_errors():
    floats = ds.data.Dataset.from_tensor_slices(FEATURES).make_initializable_iterator()
    ints = ds.data.Dataset.range(3).make_one_shot_iterator()
    handle = ds.placeholder(ds.string, [])
    iterator = ds.data.Iterator.from_string_handle(handle, floats.output_types)
    row = iterator.get_next()
    with ds.Session() as sess:
        with pytest.raises(NotFoundError, match="no iterator with the handle 'elsewhere'"):
            sess.run(row, {handle: b"elsewhere"})
        to_floats, to_ints = sess.run([floats.string_handle(), ints.string_handle()])
        with pytest.raises(FailedPreconditionError, match="not been initialized"):
            sess.run(row, {handle: to_floats})
        with pytest.raises(InvalidArgumentError, match="int64.*declares float32"):
            sess.run(row, {handle: to_ints})
    with pytest.raises(ValueError, match="string scalar"):
        ds.data.Iterator.from_string_handle(ds.placeholder(ds.string, [2]), ds.float32)
    with pytest.raises(ValueError, match="no initializer"):
        iterator.initializer


def test_two_get_next_ops_share_one_position():
    iterator = ds.data.Dataset.range(6).make_one_shot_iterator()
    a, b = iterator.get_next(), iterator.get_next()
    with ds.Session() as sess:
        assert [sess.run(a), sess.run(b), sess.run(a)] == [0, 1, 2]
        assert sorted(sess.run([a, b])) == [3, 4]     # one run, two elements


def test_each_session_starts_a_one_shot_iterator_afresh():
    value = ds.data.Dataset.range(3).make_one_shot_iterator().get_next()
    for _ in range(2):
        with ds.Session() as sess:
            assert drain(sess, value) == [0, 1, 2]


@pytest.mark.parametrize("make", sorted(SESSION_MAKERS))
def test_iterators_run_in_direct_and_cluster_sessions(make):
    graph = ds.Graph()
    with graph.as_default():
        dataset = ds.data.Dataset.from_tensor_slices((FEATURES, LABELS)).batch(4)
        x, y = dataset.make_one_shot_iterator().get_next()
        total = ds.reduce_sum(x, axis=1)
    session = SESSION_MAKERS[make](graph)
    try:
        got = drain(session, [total, y])
    finally:
        session.close()
    np.testing.assert_allclose(np.concatenate([g[0] for g in got]), FEATURES.sum(axis=1),
                               rtol=1e-5)
    np.testing.assert_array_equal(np.concatenate([g[1] for g in got]), LABELS)


def test_a_pipeline_survives_a_graph_def_round_trip():
    graph = ds.Graph()
    with graph.as_default():
        dataset = ds.data.Dataset.from_tensor_slices(FEATURES).map(lambda x: x * 2.0)
        rows = dataset.shuffle(4, seed=1).batch(5).make_one_shot_iterator().get_next()
    copy = ds.Graph()
    with copy.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    results = []
    for g in (graph, copy):
        with ds.Session(graph=g) as sess:
            results.append(drain(sess, g.get_tensor_by_name(rows.name)))
    np.testing.assert_array_equal(np.concatenate(results[0]), np.concatenate(results[1]))
    np.testing.assert_allclose(np.sort(np.concatenate(results[0]).sum(axis=1)),
                               np.sort(FEATURES.sum(axis=1) * 2), rtol=1e-5)


def test_a_gpu_session_runs_the_iterators_on_the_host_without_soft_placement(caplog):
    with fake_gpus(1, without={"MakeDatasetIterator", "DatasetIteratorGetNext"}):
        x = ds.data.Dataset.from_tensor_slices(FEATURES).batch(5) \
            .make_one_shot_iterator().get_next()
        doubled = x * 2.0
        options = ds.SessionOptions(device="gpu:0", allow_soft_placement=False)
        with caplog.at_level(logging.WARNING, logger="devsession"):
            with ds.Session(options=options) as sess:
                np.testing.assert_allclose(np.concatenate(drain(sess, doubled)), FEATURES * 2)
                placed = sess.placement()
        assert placed[x.op.name].endswith("CPU:0") and placed[doubled.op.name].endswith("GPU:0")


def test_monitored_training_ends_quietly_when_the_data_runs_out():
    w_true = np.array([[1.5], [-2.0], [0.5]], np.float32)
    pairs = ds.data.Dataset.from_tensor_slices((FEATURES, FEATURES @ w_true)).batch(5) \
        .repeat(40)
    x, y = pairs.make_one_shot_iterator().get_next()
    w = ds.Variable(np.zeros((3, 1), np.float32))
    loss = ds.reduce_mean(ds.square(ds.matmul(x, w) - y))
    step = ds.train.GradientDescentOptimizer(0.1).minimize(loss)
    losses = []
    with ds.train.MonitoredTrainingSession() as sess:
        while not sess.should_stop():
            losses.append(sess.run([step, loss])[1])
    assert len(losses) == 80
    assert losses[-1] < losses[0] * 1e-3


# --- errors ----------------------------------------------------------------------------------

def test_bad_pipelines_are_build_time_errors():
    Dataset = ds.data.Dataset
    with pytest.raises(ValueError, match="first dimensions differ"):
        Dataset.from_tensor_slices((FEATURES, LABELS[:4]))
    with pytest.raises(ValueError, match="scalar"):
        Dataset.from_tensor_slices(3.0)
    with pytest.raises(ValueError, match="scalar bool"):
        Dataset.range(3).filter(lambda x: x + 1)
    with pytest.raises(ValueError, match="at least 1"):
        Dataset.range(3).batch(0)
    with pytest.raises(ValueError, match="scalar int tensor"):     # a fed one is fine
        Dataset.range(3).batch(ds.placeholder(ds.int64, [2]))
    with pytest.raises(ValueError, match="Python int"):
        Dataset.range(3).batch(2.5)
    with pytest.raises(ValueError, match="in memory only"):
        Dataset.range(3).cache("/tmp/x")
    with pytest.raises(ValueError, match="returned None"):
        Dataset.range(3).map(lambda x: None)
    with pytest.raises(UnsupportedTF1Error, match="tf.data.Dataset.snapshot"):
        Dataset.range(3).snapshot
    with pytest.raises(TypeError, match="inside a session"):
        iter(Dataset.range(3))


def test_a_batch_of_ragged_elements_is_an_error_and_the_iterator_goes_on():
    """As TF's: each such batch's get_next an InvalidArgumentError, then the next batch
    (tests/test_dataset_errors.py has each stage's sequence)."""
    dataset = ds.data.Dataset.range(5).map(
        lambda n: ds.fill(ds.reshape(ds.cast(n, ds.int32) % 2 + 1, [1]), 1.0)).batch(2)
    iterator = dataset.make_initializable_iterator()
    value = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer)
        for _ in range(2):
            with pytest.raises(InvalidArgumentError, match="cannot batch tensors with "
                                                           "different shapes in component 0"):
                sess.run(value)
        np.testing.assert_array_equal(sess.run(value), [[1.0]])
        with pytest.raises(OutOfRangeError):
            sess.run(value)
        sess.run(iterator.initializer)               # starts it again
        with pytest.raises(InvalidArgumentError):
            sess.run(value)


def test_a_map_function_error_names_the_node_inside():
    table = ds.constant([1.0, 2.0, 3.0])
    value = ds.data.Dataset.range(5).map(lambda i: ds.gather(table, i)) \
        .make_one_shot_iterator().get_next()
    with ds.Session() as sess:
        assert [sess.run(value) for _ in range(3)] == [1.0, 2.0, 3.0]
        with pytest.raises(InvalidArgumentError, match=r"indices.* = 3 is not in \[0, 3\)"):
            sess.run(value)


def test_slices_of_fed_tensors_must_agree_at_run_time():
    a, b = ds.placeholder(ds.float32, [None]), ds.placeholder(ds.float32, [None])
    iterator = ds.data.Dataset.from_tensor_slices((a, b)).make_initializable_iterator()
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="same first dimension"):
            sess.run(iterator.initializer, {a: np.ones(3), b: np.ones(4)})


def test_a_malformed_pipeline_in_a_graph_def_is_an_invalid_argument():
    graph = ds.Graph()
    with graph.as_default():
        ds.data.Dataset.range(3).make_one_shot_iterator().get_next(name="next")
    definition = graph.as_graph_def()
    node = next(n for n in definition.node if n.name == "next")
    node.attr["pipeline"].s = b'[{"kind": "range", "start": 0}]'     # no stop
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(definition, name="")
    with ds.Session(graph=imported) as sess:
        with pytest.raises(InvalidArgumentError, match="'next': its dataset pipeline is "
                                                       "malformed"):
            sess.run("next:0")


def test_an_augmentation_pipeline_of_image_ops_runs_in_map():
    images = np.random.default_rng(3).uniform(0, 255, (10, 12, 12, 3)).astype(np.uint8)

    def augment(image):
        image = ds.image.convert_image_dtype(image, ds.float32)
        image = ds.image.random_flip_left_right(ds.random_crop(image, [8, 8, 3], seed=1),
                                                seed=2)
        return ds.image.per_image_standardization(image)
    batch = ds.data.Dataset.from_tensor_slices(images).map(augment).batch(4) \
        .make_one_shot_iterator().get_next()
    assert batch.shape.as_list() == [None, 8, 8, 3]
    with ds.Session() as sess:
        got = drain(sess, batch)
    assert [b.shape[0] for b in got] == [4, 4, 2]
    every = np.concatenate(got)
    np.testing.assert_allclose(every.mean(axis=(1, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(every.std(axis=(1, 2, 3)), 1, rtol=1e-4)


@pytest.mark.parametrize("session_kind", sorted(SESSION_MAKERS))
def test_sizes_and_counts_fed_when_the_iterator_is_made(session_kind):
    """TF1's ``batch_size = tf.placeholder(tf.int64)`` with an initializable iterator: the
    batch size, take/skip/repeat counts, shard's number and index, shuffle's buffer and
    padded_batch's size are read as the iterator is made; a bad one is the iterator op's
    InvalidArgumentError then."""
    graph = ds.Graph()
    with graph.as_default(), ds.device("/job:worker/task:1" if session_kind == "grpc" else None):
        size, shards, index = (ds.placeholder(ds.int64, []) for _ in range(3))
        batched = ds.data.make_initializable_iterator(ds.data.Dataset.range(10).batch(size))
        batch = batched.get_next()
        mixed = ds.data.Dataset.range(10).shard(shards, index).take(size).skip(size - 2) \
            .repeat(size).padded_batch(size, []).shuffle(size)
        mixed_it = ds.data.make_initializable_iterator(mixed)
        mixed_next = mixed_it.get_next()
    assert batch.shape.as_list() == [None]
    sess = SESSION_MAKERS[session_kind](graph)
    try:
        sess.run(batched.initializer, {size: 3})
        assert [b.tolist() for b in drain(sess, batch)] == [
            [0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
        sess.run(mixed_it.initializer, {shards: 3, index: 1, size: 2})
        got = drain(sess, mixed_next)
        assert sorted(b.tolist() for b in got) == [[1, 4], [1, 4]]
        with pytest.raises(InvalidArgumentError, match="batch_size must be at least 1"):
            sess.run(batched.initializer, {size: 0})
        with pytest.raises(InvalidArgumentError, match="index 3 must be less than num_sh"):
            sess.run(mixed_it.initializer, {shards: 2, index: 3, size: 2})
    finally:
        sess.close()
    with graph.as_default(), pytest.raises(ValueError, match="expected a scalar int tensor"):
        ds.data.Dataset.range(3).batch(ds.placeholder(ds.float32, []))
    with graph.as_default():        # known only when the iterator is made: UNKNOWN (-2)
        counted = ds.data.experimental.cardinality(ds.data.Dataset.range(10).batch(size))
        shuffled = ds.data.experimental.cardinality(ds.data.Dataset.range(10).shuffle(size))
    with ds.Session(graph=graph) as direct:
        assert direct.run([counted, shuffled]) == [-2, 10]


def test_range_takes_tensors_and_an_output_type_as_tf():
    """A fed stop, a flat_map function's argument, output_type (as TF 2.21's compat.v1)."""
    stop = ds.placeholder(ds.int64, [])
    fed = ds.data.Dataset.range(stop).make_initializable_iterator()
    nested = ds.data.Dataset.range(1, 4).flat_map(lambda k: ds.data.Dataset.range(k)).batch(9)
    halves = ds.data.Dataset.range(0, 5, 2, output_type=ds.float32).batch(5)
    step = ds.placeholder(ds.int64, [])
    stepped = ds.data.Dataset.range(0, 3, step).make_initializable_iterator()
    assert halves.output_types == ds.float32
    with ds.Session() as sess:
        sess.run(fed.initializer, {stop: 3})
        assert [sess.run(fed.get_next()) for _ in range(3)] == [0, 1, 2]
        assert sess.run(nested.make_one_shot_iterator().get_next()).tolist() == \
            [0, 0, 1, 0, 1, 2]
        got = sess.run(halves.make_one_shot_iterator().get_next())
        assert got.dtype == np.float32 and got.tolist() == [0, 2, 4]
        with pytest.raises(InvalidArgumentError, match="step must not be 0"):
            sess.run(stepped.initializer, {step: 0})
    with pytest.raises(TypeError, match="output_type"):
        ds.data.Dataset.range(3, output_type=ds.string)
