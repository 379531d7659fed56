"""Partitioned variables (TF1's ``partitioner=``): the partitioners' shard counts, the
parts ``get_variable`` makes, ``PartitionedVariable``, and ``embedding_lookup`` over the
parts with "mod" and "div".  Expected shard counts, names, split sizes, initial values and
messages are what TensorFlow 2.21's ``tf.compat.v1`` (graph mode) gives for the same
calls.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.partitioned_variables import PartitionInfo, PartitionedVariable

F32 = np.float32


@pytest.fixture(autouse=True)
def graph():
    with ds.Graph().as_default() as g:
        yield g


# --- partitioners --------------------------------------------------------------------------

# (partitioner, its arguments, shape, dtype, TF's partitions)
TF_PARTITIONS = [
    ("fixed", (2,), [1000, 16], "float32", [2, 1]),
    ("fixed", (3,), [7, 3], "float32", [3, 1]),
    ("fixed", (8,), [7, 3], "float32", [7, 1]),
    ("fixed", (8,), [5], "float32", [5]),
    ("fixed", (2, 1), [6, 4], "float32", [1, 2]),
    ("axis_size", (1024,), [1000, 16], "float32", [63, 1]),
    ("axis_size", (4096, 1), [1000, 16], "float32", [1, 16]),
    ("axis_size", (16384, 0, 16, 3), [1000, 16], "float32", [3, 1]),
    ("axis_size", (100, 0, 20), [7, 3], "float64", [2, 1]),
    ("axis_size", (1048576,), [100000, 64], "float32", [25, 1]),
    ("axis_size", (100, 0, 20), [10, 10, 10], "int8", [10, 1, 1]),
    ("axis_size", (1024,), [1000, 16], "string", [250, 1]),
    ("min_max", (4,), [1000, 16], "float32", [1, 1]),
    ("min_max", (8, 0, 1024), [1000, 16], "float32", [8, 1]),
    ("min_max", (3, 1, 4096), [1000, 16], "float32", [1, 3]),
    ("min_max", (4,), [100000, 64], "float32", [4, 1]),
    ("min_max", (64, 0, 100, 20), [7, 3], "float64", [2, 1]),
    ("min_max", (100, 0, 256), [10, 10, 10], "int8", [4, 1, 1]),
    ("min_max", (64, 0, 100, 20), [10, 10, 10], "int8", [10, 1, 1]),
    ("min_max", (100, 0, 256), [1000, 16], "string", [100, 1]),
]
MAKERS = {"fixed": ds.fixed_size_partitioner, "axis_size": ds.variable_axis_size_partitioner,
          "min_max": ds.min_max_variable_partitioner}


@pytest.mark.parametrize("kind, args, shape, dtype, want", TF_PARTITIONS)
def test_partitioners_give_tensorflows_shard_counts(kind, args, shape, dtype, want):
    partitioner = MAKERS[kind](*args)
    assert partitioner(shape=ds.TensorShape(shape), dtype=ds.as_dtype(dtype)) == want


def test_partitioner_arguments_are_checked_as_tf1s():
    with pytest.raises(ValueError, match="must be positive"):
        ds.variable_axis_size_partitioner(0)
    with pytest.raises(ValueError, match="max_shards must be positive"):
        ds.variable_axis_size_partitioner(10, max_shards=-1)
    with pytest.raises(ValueError, match="not fully defined"):
        ds.variable_axis_size_partitioner(10)(ds.TensorShape([None, 2]), ds.float32)
    with pytest.raises(ValueError, match="Cannot partition variable along axis 2"):
        ds.min_max_variable_partitioner(2, axis=2)(ds.TensorShape([4, 2]), ds.float32)
    assert ds.compat.v1.fixed_size_partitioner is ds.fixed_size_partitioner


# --- get_variable with a partitioner -------------------------------------------------------

def test_parts_are_named_split_unevenly_and_join_the_collections(graph):
    emb = ds.get_variable("emb", [7, 3], partitioner=ds.fixed_size_partitioner(3))
    assert isinstance(emb, PartitionedVariable)
    parts = list(emb)
    assert [v.op.name for v in parts] == ["emb/part_0", "emb/part_1", "emb/part_2"]
    assert [v.shape.as_list() for v in parts] == [[3, 3], [2, 3], [2, 3]]   # first longer
    assert [v._get_save_slice_info().spec for v in parts] == \
        ["7 3 0,3:0,3", "7 3 3,2:0,3", "7 3 5,2:0,3"]
    assert emb._get_variable_list() == parts and len(emb) == 3
    assert (emb.name, emb.get_shape().as_list(), emb.shape.as_list(), emb.dtype) == \
        ("emb", [7, 3], [7, 3], ds.float32)
    assert emb._get_partitions() == [3, 1]
    assert ds.global_variables() == parts and ds.trainable_variables() == parts
    ds.get_variable("frozen", [4, 2], trainable=False,
                    partitioner=ds.fixed_size_partitioner(2))
    assert [v.op.name for v in ds.global_variables()][3:] == ["frozen/part_0",
                                                              "frozen/part_1"]
    assert len(ds.trainable_variables()) == 3
    local = ds.get_local_variable("counts", [4, 2], partitioner=ds.fixed_size_partitioner(2))
    assert [v.op.name for v in ds.local_variables()] == ["counts/part_0", "counts/part_1"]
    assert isinstance(local, PartitionedVariable)


def test_initial_values_equal_tensorflows():
    full = np.arange(21, dtype=F32).reshape(7, 3)
    three = ds.fixed_size_partitioner(3)
    made = {
        "constant": ds.get_variable("a", [7, 3], initializer=ds.constant_initializer(2.5),
                                    partitioner=three),
        "tensor": ds.get_variable("d", initializer=ds.constant(full), partitioner=three),
        "array": ds.get_variable("g", [7, 3], initializer=full, partitioner=three),
        # a callable is called per part, with its shape and where it lies
        "per_part": ds.get_variable(
            "e", [7, 3], partitioner=three,
            initializer=lambda shape, dtype=None, partition_info=None: ds.constant(
                np.full(shape, 10 * shape[0] + partition_info.var_offset[0], F32))),
        "ints": ds.get_variable("h", [7, 3], dtype=ds.int32, partitioner=three),
        "axis1": ds.get_variable("w", initializer=ds.constant(full), partitioner=ds.
                                 fixed_size_partitioner(2, axis=1)),
    }
    assert [op.name for op in ds.get_default_graph().get_operations()
            if op.name.startswith("d/part_0/")][-1] == "d/part_0/read"
    assert "d/part_0/PartitionedInitializer/Slice" in [
        op.name for op in ds.get_default_graph().get_operations()]
    assert [v.shape.as_list() for v in made["axis1"]] == [[7, 2], [7, 1]]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got = sess.run({k: v.as_tensor() for k, v in made.items()})
    np.testing.assert_array_equal(got["constant"], np.full((7, 3), 2.5, F32))
    for key in ("tensor", "array", "axis1"):
        np.testing.assert_array_equal(got[key], full)
    np.testing.assert_array_equal(got["per_part"][:, 0], [30, 30, 30, 23, 23, 25, 25])
    assert got["ints"].dtype == np.int32 and not got["ints"].any()


def test_the_default_initializer_scales_by_the_full_shape():
    # glorot's limit from the full [100000, 10] is 0.0077; from a part's it would be 0.077
    emb = ds.get_variable("emb", [100000, 10], partitioner=ds.fixed_size_partitioner(100))
    with ds.Session() as sess:
        sess.run(ds.variables_initializer(list(emb)[:2]))
        first = sess.run(list(emb)[0])
    limit = np.sqrt(6 / 100010)
    assert np.abs(first).max() <= limit and np.abs(first).max() > 0.9 * limit
    info = PartitionInfo([7, 3], [3, 0])
    assert (info.single_offset([2, 3]), info.single_slice_dim([2, 3])) == (3, 0)
    with pytest.raises(ValueError, match="Expected 0 <= offset < shape"):
        PartitionInfo([3, 2], [3, 0])


def test_scopes_pass_their_partitioner_down():
    with ds.variable_scope("s", partitioner=ds.fixed_size_partitioner(2)) as scope:
        assert scope.partitioner is not None
        w = ds.get_variable("w", [5, 2])
        scalar = ds.get_variable("b", [])           # a scalar is never partitioned
        with ds.variable_scope("inner", partitioner=None):
            inner = ds.get_variable("d", [4, 2])
        scope.set_partitioner(None)
        plain = ds.get_variable("plain", [4, 2])
    assert isinstance(w, PartitionedVariable) and isinstance(inner, PartitionedVariable)
    assert isinstance(scalar, ds.Variable) and scalar.op.name == "s/b"
    assert isinstance(plain, ds.Variable)
    assert [v.op.name for v in inner] == ["s/inner/d/part_0", "s/inner/d/part_1"]
    seen = {}

    def getter(getter, name, *args, **kwargs):
        seen[name] = kwargs["partitioner"]
        return getter(name, *args, **kwargs)
    with ds.variable_scope("c", custom_getter=getter,
                           partitioner=ds.fixed_size_partitioner(2)):
        got = ds.get_variable("v", [4, 2])
    assert isinstance(got, PartitionedVariable) and seen["c/v"] is not None
    parts = ds.create_partitioned_variables([4, 3], [2, 1], ds.ones_initializer())
    assert [v.op.name for v in parts] == ["PartitionedVariable/part_0",
                                          "PartitionedVariable/part_1"]


def test_reuse_follows_tf1s_rules_and_messages():
    two = ds.fixed_size_partitioner(2)
    with ds.variable_scope("s"):
        w = ds.get_variable("w", [5, 2], partitioner=two)
    with ds.variable_scope("s", reuse=True):
        assert ds.get_variable("w", [5, 2], partitioner=two) is w
        assert ds.get_variable("w", [5, 2]) is w        # reuse=True needs no partitioner
        with pytest.raises(ValueError, match=r"specified partitions \[3, 1\] and found "
                                             r"partitions \[2, 1\]"):
            ds.get_variable("w", [5, 2], partitioner=ds.fixed_size_partitioner(3))
        with pytest.raises(ValueError, match=r"specified shape \(6, 2\) and found shape "
                                             r"\(5, 2\)"):
            ds.get_variable("w", [6, 2], partitioner=two)
        with pytest.raises(ValueError, match="PartitionedVariable s/zz does not exist"):
            ds.get_variable("zz", [6, 2], partitioner=two)
    with ds.variable_scope("s"):
        with pytest.raises(ValueError, match="Partitioned variable with name s/w already "
                                             "exists"):
            ds.get_variable("w", [5, 2], partitioner=two)
    with ds.variable_scope("s", reuse=ds.AUTO_REUSE):
        assert ds.get_variable("w", [5, 2], partitioner=two) is w
        with pytest.raises(ValueError, match="No partitioner was provided, but a "
                                             "partitioned version"):
            ds.get_variable("w", [5, 2])
    ds.get_variable("plain", [4, 2])
    for name, shape, partitioner, message in [
            ("plain", [4, 2], two, "an unpartitioned version of the variable was found"),
            ("two", [4, 2], lambda shape, dtype: [2, 2], "along one dimension"),
            ("len", [4, 2], lambda shape, dtype: [2], "does not match the Variable's rank"),
            ("zero", [4, 2], lambda shape, dtype: [0, 1], "zero partitions"),
            ("none", None, two, "must be fully defined, but instead was <unknown>"),
            ("part", [None, 2], two, r"instead was \(\?, 2\)"),
            ("call", [4, 2], 3, "Partitioner must be callable"),
            ("many", [3, 2], lambda shape, dtype: [5, 1], "Expected 0 <= offset < shape")]:
        with pytest.raises(ValueError, match=message):
            ds.get_variable(name, shape, partitioner=partitioner)


def test_the_container_concatenates_converts_and_assigns():
    full = np.arange(12, dtype=F32).reshape(6, 2)
    with ds.variable_scope("s"):
        emb = ds.get_variable("emb", initializer=ds.constant(full),
                              partitioner=ds.fixed_size_partitioner(4))
    converted = ds.convert_to_tensor(emb)
    assert converted.name == "s/emb:0" and converted.op.type == "Identity"
    assert converted.op.inputs[0].op.name == "s/emb/ConcatPartitions/concat"
    assert emb.as_tensor().name == "s/emb_1:0" and emb._concat().name == "s/emb_2:0"
    product = ds.matmul(ds.ones([1, 6]), emb)
    updates = emb.assign(full * 2)
    assert len(updates) == 4
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(product), full.sum(0, keepdims=True))
        sess.run(updates)
        np.testing.assert_array_equal(sess.run(converted), full * 2)
        sess.run(emb.assign_add([np.ones(v.shape.as_list(), F32) for v in emb]))
        np.testing.assert_array_equal(sess.run(emb.as_tensor()), full * 2 + 1)


# --- embedding_lookup over the parts -------------------------------------------------------

def cut(full, n, strategy):
    """The shards of ``full`` as "mod" or "div" expects them."""
    if strategy == "mod":
        return [full[i::n] for i in range(n)]
    sizes = [len(full) // n + (i < len(full) % n) for i in range(n)]
    return np.split(full, np.cumsum(sizes)[:-1])


@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_lookups_over_shards_give_the_full_tables_rows(strategy, n):
    # TF gives full[ids] for these shards (checked with tensorflow 2.21)
    full = np.arange(20, dtype=F32).reshape(10, 2)
    ids = np.array([[0, 9, 3], [4, 5, 7]], np.int64)
    shards = [ds.constant(s) for s in cut(full, n, strategy)]
    unknown = ds.placeholder(ds.int64, None, name="ids")
    rows = ds.nn.embedding_lookup(shards, ids, partition_strategy=strategy)
    fed = ds.nn.embedding_lookup(shards, unknown, partition_strategy=strategy)
    assert rows.name == "embedding_lookup/Reshape_1:0" and rows.shape == (2, 3, 2)
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(rows), full[ids])
        np.testing.assert_array_equal(sess.run(fed, {unknown: ids[0]}), full[ids[0]])
        with pytest.raises(ds.errors.InvalidArgumentError, match="is not in"):
            sess.run(fed, {unknown: [10 * n]})


def test_a_partitioned_embedding_trains_as_the_whole_table():
    """Adagrad on a "div" lookup of a partitioned variable moves the rows as it moves
    those of one variable (the parts' gradients are sparse, through gather)."""
    full = np.random.default_rng(0).standard_normal((10, 3)).astype(F32)
    ids = ds.placeholder(ds.int32, [None], name="ids")
    emb = ds.get_variable("emb", [10, 3], initializer=full,
                          partitioner=ds.fixed_size_partitioner(3))
    table = ds.Variable(full, name="table")
    losses, trains = [], []
    for params, strategy in ((emb, "div"), (table, "mod")):
        rows = ds.nn.embedding_lookup(params, ids, partition_strategy=strategy)
        losses.append(ds.reduce_sum(ds.square(rows - 1.0)))
        trains.append(ds.train.AdagradOptimizer(0.5).minimize(losses[-1]))
    from devsession.ops.indexed_rows import rows_of

    assert all(rows_of(g) is not None for g in ds.gradients(losses[0], list(emb)))
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for batch in ([9, 0, 4, 4], [3, 3, 7], [1, 2, 5, 6, 8]):
            sess.run(trains, {ids: batch})
        got, want = sess.run([emb.as_tensor(), table])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert not np.allclose(got, full)
