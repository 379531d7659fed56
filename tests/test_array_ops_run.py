"""The array family in running graphs: through every session type (direct, and a
two-task gRPC cluster, where the ops' attrs cross the wire), a GraphDef that TensorFlow
wrote (``data/tf_array_ops.pb``: its values and static shapes as TF computed them), and
the gradient functions against finite differences (float64), with static and with
unknown shapes."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.ops.registry import get_gradient
from gradient_check import check_op_gradient
from tf_recorded import run_recorded, tf_static_shape

DATA = os.path.join(os.path.dirname(__file__), "data")


# --- sessions --------------------------------------------------------------------------------

def test_indexing_gather_and_lookups_run_in_every_session(make_session):
    x = ds.placeholder(ds.float32, (None, 4, 5), name="x")
    k = ds.placeholder(ds.int32, (), name="k")
    ids = ds.placeholder(ds.int64, (2, 2), name="ids")
    table = ds.Variable(np.arange(40, dtype=np.float32).reshape(10, 4), name="table")
    shards = [ds.constant(np.arange(20, dtype=np.float32).reshape(5, 4) + 100 * s)
              for s in range(2)]
    fetches = {
        "index": x[1:, ::2, 0], "tensor_index": x[:, k, -1], "reverse": x[::-1, None, 1],
        "gather": ds.gather(x, ids, axis=1), "lookup": ds.nn.embedding_lookup(table, ids),
        "sharded": ds.nn.embedding_lookup(shards, ids),
        "unstacked": ds.unstack(x, axis=1),
        "reshaped": ds.reshape(x, ds.stack([ds.shape(x)[0], -1])),
        "one_hot": ds.one_hot(ids, 3, axis=0), "summed": ds.add_n([x, x, x]),
        "segments": ds.unsorted_segment_sum(ds.reshape(x, [-1, 5]), [0, 1, 0, 1] * 3, 2),
    }
    xv = np.random.default_rng(1).standard_normal((3, 4, 5)).astype(np.float32)
    iv = np.array([[1, 0], [3, 3]], np.int64)
    sess = make_session()
    sess.run(table.initializer)
    got = sess.run(fetches, {x: xv, k: 2, ids: iv})
    np.testing.assert_array_equal(got["index"], xv[1:, ::2, 0])
    np.testing.assert_array_equal(got["tensor_index"], xv[:, 2, -1])
    np.testing.assert_array_equal(got["reverse"], xv[::-1, None, 1])
    np.testing.assert_array_equal(got["gather"], np.take(xv, iv, axis=1))
    np.testing.assert_array_equal(got["lookup"], np.arange(40).reshape(10, 4)[iv])
    rows = np.concatenate([np.arange(20).reshape(5, 4) + 100 * s for s in range(2)])
    interleaved = rows.reshape(2, 5, 4).transpose(1, 0, 2).reshape(10, 4)   # mod sharding
    np.testing.assert_array_equal(got["sharded"], interleaved[iv])
    for k_, part in enumerate(got["unstacked"]):
        np.testing.assert_array_equal(part, xv[:, k_])
    np.testing.assert_array_equal(got["reshaped"], xv.reshape(3, 20))
    np.testing.assert_array_equal(got["one_hot"],
                                  np.moveaxis(iv[..., None] == np.arange(3), -1, 0))
    np.testing.assert_allclose(got["summed"], 3 * xv, rtol=1e-6)
    flat = xv.reshape(-1, 5)
    np.testing.assert_allclose(got["segments"], [flat[0::2].sum(0), flat[1::2].sum(0)],
                               rtol=1e-5)


def test_bad_indices_at_run_time_name_the_node(make_session):
    table = ds.constant(np.ones((3, 2), np.float32))
    ids = ds.placeholder(ds.int32, (None,), name="ids")
    looked_up = ds.gather(table, ids, name="lookup")
    sharded = ds.nn.embedding_lookup([table, table], ids, name="sharded")
    picked = ds.placeholder(ds.float32, (None,), name="v")[ids[0]]
    sess = make_session()
    for fetch, feed, node, pattern in [
            (looked_up, {ids: [0, 3]}, "lookup", r"indices\[1\] = 3 is not in \[0, 3\)"),
            (looked_up, {ids: [-1]}, "lookup", r"indices\[0\] = -1"),
            (sharded, {ids: [7]}, "sharded", "is not in"),
            # as TF's: -2 goes to shard -2 % 2 = 0, row -2 // 2 = -1
            (sharded, {ids: [-2]}, "sharded", "= -1 is not in"),
            (picked, {ids: [4], "v:0": [1.0, 2.0]}, "strided_slice", "out of bounds")]:
        with pytest.raises(InvalidArgumentError, match=pattern) as info:
            sess.run(fetch, feed)
        assert info.value.node_name.startswith(node), info.value.node_name
    # TF's node names: the gather is the lookup's scope ("embedding_lookup"), also inside
    # a weighted embedding_lookup_sparse
    sp_ids = ds.SparseTensor([[0, 0], [0, 1]], ids, [1, 2])
    for fetch, node in [(ds.nn.embedding_lookup(table, ids), "embedding_lookup"),
                        (ds.nn.embedding_lookup_sparse(table, sp_ids, ds.SparseTensor(
                            [[0, 0], [0, 1]], [1.0, 2.0], [1, 2]), name="genre"),
                         "genre/embedding_lookup")]:
        with pytest.raises(InvalidArgumentError, match=r"= 5 is not in \[0, 3\)") as info:
            sess.run(fetch, {ids: [0, 5]})
        assert info.value.node_name == node


def test_views_of_variables_are_fetched_as_copies(make_session):
    v = ds.Variable(np.zeros((1, 3), np.float32))
    squeezed, expanded = ds.squeeze(v), ds.expand_dims(v, 0)
    add = v.assign_add(np.ones((1, 3), np.float32))
    sess = make_session()
    sess.run(v.initializer)
    before = sess.run([squeezed, expanded])
    sess.run(add)
    np.testing.assert_array_equal(before[0], [0, 0, 0])
    np.testing.assert_array_equal(before[1], [[[0, 0, 0]]])


# --- a GraphDef TensorFlow wrote ------------------------------------------------------------------

def test_a_graph_def_written_by_tensorflow_runs_with_tfs_values_and_shapes():
    graph, names, values, data = run_recorded("tf_array_ops")
    assert len(names) == 33
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        np.testing.assert_allclose(value, want, rtol=1e-6, err_msg=name)
    # Static shapes as TF inferred them, except where TF sees through Shape(x) of a
    # partly known x (its shape functions track dimensions; devsession's builders do
    # that, an imported graph's infer functions see only known values).
    partial = {"Fill:0", "StridedSliceGrad:0"}
    for name in names:
        want = tf_static_shape(data, name)
        got = graph.get_tensor_by_name(name).shape
        if name in partial:
            assert got.is_compatible_with(want) and got.ndims == want.ndims, name
        else:
            assert got == want, (name, got, want)


# --- gradients ---------------------------------------------------------------------------------

X = np.random.default_rng(0).standard_normal((4, 3, 2))    # fixed data, drawn once

GRADIENT_CASES = {
    "gather repeated ids": (lambda p, i: ds.gather(p, i), [X, np.array([1, 1, 3, 0, 1])],
                            (1,)),
    "gather axis 1": (lambda p, i: ds.gather(p, i, axis=1), [X, np.array([[2, 0], [2, 2]])],
                      (1,)),
    "gather axis 2": (lambda p, i: ds.gather(p, i, axis=-1), [X, np.array([1, 1, 0])], (1,)),
    "embedding lookup": (lambda p, i: ds.nn.embedding_lookup(p, i),
                         [X[:, :, 0], np.array([[3, 3], [0, 3]])], (1,)),
    "segment sum": (lambda d, i: ds.unsorted_segment_sum(d, i, 3),
                    [X, np.array([2, -1, 0, 2])], (1,)),
    "slice": (lambda p: ds.slice(p, [1, 0, 1], [2, -1, 1]), [X], ()),
    "strided slice": (lambda p: p[1:, ::-2, 0], [X], ()),
    "new axis": (lambda p: p[..., None, -1], [X], ()),
    "squeeze": (lambda p: ds.squeeze(ds.expand_dims(p, 1)), [X], ()),
    "expand dims": (lambda p: ds.expand_dims(p, -1), [X], ()),
    "stack": (lambda a, b: ds.stack([a, b], axis=1), [X, X + 1], ()),
    "unstack": (lambda a: ds.unstack(a, axis=1), [X], ()),
    "tile": (lambda a: ds.tile(a, [2, 1, 3]), [X], ()),
    "pad": (lambda a: ds.pad(a, [[1, 0], [0, 2], [1, 1]]), [X], ()),
    "pad value": (lambda a: ds.pad(a, [[1, 0], [0, 2], [1, 1]], constant_values=2.0), [X], ()),
    "reflect": (lambda a: ds.pad(a, [[1, 0], [0, 2], [1, 1]], mode="REFLECT"), [X], ()),
    "symmetric": (lambda a: ds.pad(a, [[1, 3], [0, 2], [1, 1]], mode="SYMMETRIC"), [X], ()),
    "add_n": (lambda a, b, c: ds.add_n([a, b, c]), [X, X * 2, X - 1], ()),
    "fill": (lambda v: ds.fill([2, 3], v), [np.array(1.5)], ()),
}


@pytest.mark.parametrize("case", sorted(GRADIENT_CASES))
def test_gradient_matches_finite_differences(case):
    build, inputs, no_gradient = GRADIENT_CASES[case]
    check_op_gradient(build, inputs, no_gradient=no_gradient)


def test_gradients_of_the_gradient_ops(rng):
    from devsession.ops.array import mirror_pad_grad
    from devsession.ops.array_index import strided_slice_grad

    x = rng.standard_normal((3, 4))
    check_op_gradient(lambda dy: strided_slice_grad([3, 4], [1, 0], [0, 4], [1, 2], dy,
                                                    end_mask=1), [x[:2, :2]])
    check_op_gradient(lambda dy: mirror_pad_grad(dy, [[1, 0], [1, 1]], "REFLECT"), [x])


def test_mirror_pads_too_large_build_as_tf_and_fail_when_they_run():
    """TF's MirrorPad infers as Pad: paddings the mode does not allow (REFLECT: as large as
    the dimension, SYMMETRIC: larger) are the kernel's InvalidArgumentError at run."""
    x = ds.constant(np.arange(9, dtype=np.float32).reshape(3, 3))
    equal = ds.pad(x, [[3, 0], [0, 0]], "REFLECT")
    over = ds.pad(x, [[0, 4], [0, 0]], "SYMMETRIC")
    allowed = ds.pad(x, [[3, 3], [0, 0]], "SYMMETRIC")
    assert [t.shape.as_list() for t in (equal, over, allowed)] == [[6, 3], [7, 3], [9, 3]]
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(allowed), np.pad(
            np.arange(9, dtype=np.float32).reshape(3, 3), [[3, 3], [0, 0]], "symmetric"))
        for t in (equal, over):
            with pytest.raises(InvalidArgumentError, match="at most"):
                sess.run(t)


def test_embedding_gradient_adds_up_repeated_ids():
    table = ds.placeholder(ds.float64, (4, 2))
    ids = ds.constant([1, 1, 3, 1])
    rows = ds.gather(table, ids)
    (grad, _, _) = get_gradient("GatherV2")(rows.op, ds.constant(np.ones((4, 2))))
    with ds.Session() as sess:
        value = sess.run(grad, {table: np.zeros((4, 2))})
    np.testing.assert_array_equal(value, [[0, 0], [3, 3], [0, 0], [1, 1]])


def test_no_gradient_through_shapes_and_indices():
    for op_type in ("Shape", "Size", "Rank", "ZerosLike", "OnesLike", "OneHot"):
        assert get_gradient(op_type) is None


@pytest.mark.parametrize("case", ["gather axis 1", "slice", "strided slice", "squeeze",
                                  "expand dims", "tile", "pad", "segment sum"])
def test_gradients_with_unknown_shapes_equal_the_static_ones(case):
    """The same gradient built where no shape is known statically (Shape tensors)."""
    build, inputs, _ = GRADIENT_CASES[case]
    values = []
    for static in (True, False):
        with ds.Graph().as_default():
            xs = [ds.placeholder(ds.as_dtype(v.dtype), v.shape if static else
                                 [None] * v.ndim) for v in inputs]
            y = build(*xs)
            dy = ds.placeholder(ds.float64, None)
            grads = get_gradient(y.op.type)(y.op, dy)
            with ds.Session() as sess:
                feed = dict(zip(xs, inputs))
                dy_value = np.random.default_rng(3).standard_normal(sess.run(y, feed).shape)
                feed[dy] = dy_value
                values.append(sess.run(grads[0], feed))
    np.testing.assert_allclose(values[1], values[0], rtol=1e-12)


def test_on_a_gpu_shapes_and_indices_are_read_on_the_host():
    """On a (fake) GPU every array op runs there, and its host inputs (shapes, axes,
    begin/end, paddings) arrive on the host: the fake kernels fail on a misplaced input,
    and the shape vectors computed on the GPU are copied down to be read."""
    from fake_gpu import fake_gpus

    with fake_gpus(1) as gpu:
        x = ds.placeholder(ds.float32, (None, 4), name="x")
        k = ds.placeholder(ds.int32, (), name="k")
        y = ds.reshape(ds.tile(x[:, k:], ds.stack([1, k])), ds.stack([-1, ds.size(x)]))
        z = ds.pad(ds.gather(x, [0, 0], axis=ds.rank(x) - 1),
                   ds.stack([[0, 0], ds.stack([k, 0])]))
        with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
            xv = np.arange(8, dtype=np.float32).reshape(2, 4)
            got_y, got_z = sess.run([y, z], {x: xv, k: 2})
            placements = {op: p.device.short_name for op, p in
                          next(iter(sess._steps.values())).plan.placements.items()}
        downloads = sorted(shape for _, _, shape in gpu.transfers_between("GPU:0", "CPU:0"))
    np.testing.assert_array_equal(got_y, np.tile(xv[:, 2:], (1, 2)).reshape(-1, 8))
    np.testing.assert_array_equal(got_z, np.pad(xv[:, [0, 0]], [[0, 0], [2, 0]]))
    assert {placements[t.op.name] for t in (y, z)} == {"GPU:0"}
    # down to the host: the strided slice's begin, end and strides, Tile's multiples,
    # Reshape's shape, the gather's axis, Pad's paddings; and the two fetches
    assert downloads == sorted([(2,)] * 5 + [(), (2, 2), got_y.shape, got_z.shape])
