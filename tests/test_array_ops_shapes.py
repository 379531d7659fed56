"""The array family's builders: op types and attrs as TF writes them, static dtypes and
shapes (also through shapes given as tensors), static values, and the ValueErrors and
TypeErrors a bad graph raises at build time, as TF1.  No session runs here."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.graph import constant_value
from graph_building import ph


pytestmark = pytest.mark.usefixtures("graph")   # every test builds in a new graph


# --- what each builder makes --------------------------------------------------------------------

def test_builders_make_tf_ops_with_tf_attrs():
    x = ph((None, 4, 5), name="x")
    i = ph((3,), ds.int32, name="i")
    cases = [
        (ds.gather(x, i, axis=1), "GatherV2", (None, 3, 5), {"batch_dims": 0}),
        (ds.one_hot(i, 6), "OneHot", (3, 6), {"axis": -1}),
        (ds.add_n([x, x, x]), "AddN", (None, 4, 5), {"N": 3}),
        (ds.slice(x, [0, 1, 2], [-1, 2, 3]), "Slice", (None, 2, 3), {}),
        (x[1:, ::2, 0], "StridedSlice", (None, 2),
         {"begin_mask": 2, "end_mask": 3, "shrink_axis_mask": 4, "new_axis_mask": 0,
          "ellipsis_mask": 0}),
        (x[..., None, -1], "StridedSlice", (None, 4, 1),
         {"ellipsis_mask": 1, "new_axis_mask": 2, "shrink_axis_mask": 4}),
        (ds.squeeze(x[:, :1]), "Squeeze", None, {"squeeze_dims": ()}),
        (ds.squeeze(ph((1, 2, 1)), [0]), "Squeeze", (2, 1), {"squeeze_dims": (0,)}),
        (ds.expand_dims(x, 1), "ExpandDims", (None, 1, 4, 5), {}),
        (ds.stack([x, x], axis=1), "Pack", (None, 2, 4, 5), {"N": 2, "axis": 1}),
        (ds.unstack(x, axis=1)[3], "Unpack", (None, 5), {"num": 4, "axis": 1}),
        (ds.tile(x, [1, 2, 1]), "Tile", (None, 8, 5), {}),
        (ds.pad(x, [[0, 0], [1, 2], [0, 1]]), "Pad", (None, 7, 6), {}),
        (ds.pad(x, [[0, 0], [1, 2], [0, 1]], constant_values=3), "PadV2", (None, 7, 6), {}),
        (ds.pad(x, [[0, 0], [1, 2], [0, 1]], mode="reflect"), "MirrorPad", (None, 7, 6),
         {"mode": "REFLECT"}),
        (ds.shape(x), "Shape", (3,), {"out_type": ds.int32}),
        (ds.size(x, out_type=ds.int64), "Size", (), {"out_type": ds.int64}),
        (ds.fill([2, 3], 1.5), "Fill", (2, 3), {}),
        (ds.zeros_like(x), "ZerosLike", (None, 4, 5), {}),
        (ds.ones_like(x), "OnesLike", (None, 4, 5), {}),
        (ds.unsorted_segment_sum(x, i, 4), "UnsortedSegmentSum", (4, 4, 5), {}),
        (ds.reshape(x, ds.stack([ds.shape(x)[0], -1])), "Reshape", (None, None), {}),
    ]
    for t, op_type, shape, attrs in cases:
        assert t.op.type == op_type
        assert t.shape == ds.TensorShape(shape), (op_type, t.shape)
        assert {k: t.op.attrs[k] for k in attrs} == attrs
    assert ds.gather(x, i).op.inputs[2].op.attrs["value"] == 0      # TF's axis input
    assert [t.op.type for t in ds.tile(x, [1, 2, 1]).op.inputs] == ["Placeholder", "Const"]


def test_small_zeros_are_constants_and_big_ones_fills():
    small = ds.zeros((2, 3), ds.int64)
    assert (small.op.type, small.dtype, small.shape) == ("Const", ds.int64, (2, 3))
    np.testing.assert_array_equal(constant_value(ds.ones([4], ds.bool)), [True] * 4)
    big = ds.ones((2000,))
    assert (big.op.type, big.shape, big.dtype) == ("Fill", (2000,), ds.float32)
    x = ph((None, 3))
    assert ds.zeros(ds.shape(x)).shape == (None, 3)
    assert ds.zeros_like(x, dtype=ds.int32).dtype == ds.int32


def test_zeros_of_strings_are_empty_strings_and_ones_a_type_error_as_tf():
    words = ph((2,), ds.string)
    fills = [ds.zeros([2], ds.string), ds.zeros([2000], ds.string), ds.zeros([0], ds.string),
             ds.zeros_like(words), ds.zeros_like(ds.constant([1, 2]), dtype=ds.string)]
    with ds.Session() as sess:
        got = sess.run(fills, {words: ["a", "b"]})
    assert [v.tolist() for v in got] == [[b""] * 2, [b""] * 2000, [], [b""] * 2, [b""] * 2]
    for ones in (lambda: ds.ones([2], ds.string), lambda: ds.ones_like(words)):
        with pytest.raises(TypeError, match="Expected string, but got 1 of type 'int'"):
            ones()


def test_rank_is_a_constant_when_known_and_clip_is_minimum_then_maximum():
    assert constant_value(ds.rank(ph((2, None, 3)))) == 3
    assert ds.rank(ph(None)).op.type == "Rank"
    x = ph((None, 3))
    clipped = ds.clip_by_value(x, 0.0, 1.0)
    assert clipped.op.type == "Maximum" and clipped.op.inputs[0].op.type == "Minimum"
    with pytest.raises(ValueError, match="broadcast"):
        ds.clip_by_value(ph((3,)), ph((2, 3)), 1.0)


def test_add_n_of_one_and_one_hot_dtypes():
    x = ph((3,))
    assert ds.add_n([x]) is x
    assert ds.add_n([x], name="same").op.type == "Identity"
    i = ph((3,), ds.int64)
    assert ds.one_hot(i, 4).dtype == ds.float32
    assert ds.one_hot(i, 4, on_value=5, off_value=-1).dtype == ds.int32
    assert ds.one_hot(i, 4, dtype=ds.float64).dtype == ds.float64
    with pytest.raises(TypeError, match="does not match"):
        ds.one_hot(i, 4, on_value=1.0, dtype=ds.int32)
    with pytest.raises(TypeError, match="does not match"):
        ds.one_hot(i, 4, on_value=ds.constant(1.0), dtype=ds.float64)


def test_one_hot_python_on_off_values_take_the_dtype_argument():
    # TF's dtype_hint: Python numbers become the dtype asked for (DQN code's
    # one_hot(a, n, on_value=1.0, off_value=0.0, dtype=tf.float64))
    i = ph((3,), ds.int64)
    hot = ds.one_hot(i, 4, on_value=2.0, off_value=-1.0, dtype=ds.float64)
    assert hot.dtype == ds.float64
    assert [t.dtype for t in hot.op.inputs[2:]] == [ds.float64, ds.float64]
    assert constant_value(hot.op.inputs[3]) == -1.0
    assert ds.one_hot(i, 4, on_value=2, off_value=0, dtype=ds.float16).dtype == ds.float16
    assert ds.one_hot(i, 4, on_value=True, dtype=ds.float32).dtype == ds.float32


def test_add_n_of_nothing():
    with pytest.raises(ValueError, match="non-empty list"):
        ds.add_n([])


# --- shapes given as tensors ---------------------------------------------------------------------

def test_shape_arithmetic_is_static_when_the_shape_is_known():
    y = ph((3, 4, 5))
    s = ds.shape(y)
    np.testing.assert_array_equal(constant_value(s), [3, 4, 5])
    np.testing.assert_array_equal(constant_value(s[1:]), [4, 5])
    assert constant_value(s[0]) == 3
    assert constant_value(ds.size(y)) == 60
    packed = ds.stack([s[0], -1])
    np.testing.assert_array_equal(constant_value(packed), [3, -1])
    assert ds.reshape(y, packed).shape == (3, 20)
    assert ds.reshape(y, [s[0], -1]).shape == (3, 20)                # auto-packed
    assert ds.reshape(y, ds.concat([s[:1], [-1]], 0)).shape == (3, 20)
    assert ds.fill(s[1:], 1.0).shape == (4, 5)
    assert ds.tile(y, ds.stack([1, s[0], 1])).shape == (3, 12, 5)
    assert ds.expand_dims(y, ds.rank(y)).shape == (3, 4, 5, 1)
    np.testing.assert_array_equal(constant_value(ds.gather(s, [2, 0])), [5, 3])


def test_partly_known_shapes_flow_through_shape_tensors():
    x = ph((None, 4, 5))
    assert constant_value(ds.shape(x)) is None
    assert ds.reshape(x, ds.stack([-1, 20])).shape == (None, 20)
    assert ds.reshape(x, [ds.shape(x)[0], 4, -1]).shape == (None, 4, None)    # as TF
    assert ds.reshape(x, [ds.shape(x)[1], -1]).shape == (4, None)
    assert ds.fill(ds.stack([ds.shape(x)[2], ds.shape(x)[0]]), 0.0).shape == (5, None)
    assert ds.reshape(x, ph((2,), ds.int32)).shape == (None, None)
    assert ds.reshape(x, ph(None, ds.int32)).shape == ds.TensorShape(None)


def test_partly_known_shapes_flow_through_an_integer_cast():
    """TF's constant_value_as_shape sees through a Cast to int32/int64 (a SparseTensor
    whose dense_shape is ``tf.cast(tf.shape(x), tf.int64)``), not through one to float."""
    x = ph((None, 4))
    as_int64 = ds.cast(ds.shape(x), ds.int64)
    assert ds.zeros(as_int64).shape == (None, 4)
    assert ds.reshape(x, ds.cast(ds.stack([-1, ds.shape(x)[1]]), ds.int64)).shape == (None, 4)
    sp = ds.SparseTensor(ph((None, 2), ds.int64), ph((None,)), as_int64)
    assert sp.shape == (None, 4) and ds.sparse.to_dense(sp).shape == (None, 4)
    through_float = ds.cast(ds.cast(ds.shape(x), ds.float32), ds.int32)
    assert ds.fill(through_float, 0.0).shape == (None, None)               # as TF


def test_reshape_keeps_the_attr_form_for_python_shapes():
    x = ph((2, 3))
    r = ds.reshape(x, [3, -1])
    assert (len(r.op.inputs), r.op.get_attr("shape"), r.shape) == (1, (3, -1), (3, 2))
    t = ds.reshape(x, ds.constant([6]))
    assert (len(t.op.inputs), t.shape) == (2, (6,))
    with pytest.raises(ValueError, match=r"cannot reshape 'Placeholder:0' with shape \(2, 3\)"):
        ds.reshape(x, ds.constant([4, -1]))
    with pytest.raises(ValueError, match="cannot reshape"):
        ds.reshape(x, [ds.shape(x)[0], 4])
    with pytest.raises(TypeError, match="int32 or int64"):
        ds.reshape(x, ds.constant([3.0, 2.0]))


# --- indexing ---------------------------------------------------------------------------------

def test_indexing_with_tensors_and_variables():
    x = ph((None, 4, 5))
    k = ph((), ds.int32)
    picked = x[:, k]
    assert picked.shape == (None, 5) and picked.op.inputs[1].op.type == "Pack"
    assert x[k:].shape == (None, 4, 5)
    assert x[ds.newaxis, ..., 1:3].shape == (1, None, 4, 2)
    v = ds.Variable(np.zeros((3, 2), np.float32))
    assert v[1].shape == (2,)


@pytest.mark.parametrize("key, error, match", [
    ((1.5,), TypeError, "valid indices"), ([[0, 1]], TypeError, "valid indices"),
    ((Ellipsis, Ellipsis), ValueError, "Multiple ellipses"),
    ((0, 0, 0, 0), ValueError, "Index out of range using input dim 3"),
    ((1, 7), ValueError, "slice index 7 of dimension 1 out of bounds"),
    ((slice(None, None, 0),), ValueError, "strides.*non-zero"),
])
def test_bad_indexing_fails_at_build(key, error, match):
    x = ph((None, 4, 5))
    with pytest.raises(error, match=match):
        x[key]


def test_tensors_are_not_iterable():
    with pytest.raises(TypeError, match="not iterable"):
        list(ph((3,)))


# --- build-time errors ----------------------------------------------------------------------------

@pytest.mark.parametrize("build, error, match", [
    (lambda x, i: ds.gather(x, i, axis=3), ValueError, "axis 3 is out of range"),
    (lambda x, i: ds.gather(x, ph((2,))), TypeError, "int32 or int64"),
    (lambda x, i: ds.slice(x, [0, 5, 0], [-1, 1, 1]), ValueError,
     r"Expected begin\[1\] in \[0, 4\], but got 5"),
    (lambda x, i: ds.slice(x, [0, 1, 0], [1, 4, 1]), ValueError,
     r"Expected size\[1\] in \[0, 3\]"),
    (lambda x, i: ds.slice(x, [0, 0], [1, 1]), ValueError, "to have 3 elements"),
    (lambda x, i: ds.squeeze(x, [1]), ValueError, r"can not squeeze dim\[1\]"),
    (lambda x, i: ds.squeeze(x, [3]), ValueError, "squeeze dim index 3"),
    (lambda x, i: ds.expand_dims(x, 5), ValueError, "expand dim index 5"),
    (lambda x, i: ds.stack([x, x[:, :2]]), ValueError, "shapes of all inputs must match"),
    (lambda x, i: ds.stack([x, ds.cast(x, ds.int32)]), TypeError, "does not match dtype"),
    (lambda x, i: ds.unstack(ph((None, 3))), ValueError, "Cannot infer num"),
    (lambda x, i: ds.unstack(x, num=3, axis=1), ValueError, "num=3 does not match"),
    (lambda x, i: ds.tile(x, [1, 2]), ValueError, "has length 2"),
    (lambda x, i: ds.tile(x, [1, -1, 1]), ValueError, "non-negative"),
    (lambda x, i: ds.pad(x, [[0, 0], [1, 1]]), ValueError, r"shape \[3, 2\]"),
    (lambda x, i: ds.pad(x, [[0, 0], [-1, 0], [0, 0]]), ValueError, "non-negative"),
    (lambda x, i: ds.pad(x, [[0, 0], [0, 0], [0, 0]], mode="EDGE"), ValueError,
     "Unknown padding mode"),
    (lambda x, i: ds.pad(x, [[0, 0]] * 3, constant_values=ph((2,))), ValueError, "scalar"),
    (lambda x, i: ds.fill([2, -3], 1.0), ValueError, "non-negative"),
    (lambda x, i: ds.fill([2, 3], ph((2,))), ValueError, "must be a scalar"),
    (lambda x, i: ds.add_n([x, x[:, :2]]), ValueError, "shapes of all inputs must match"),
    (lambda x, i: ds.add_n([ph((2,), ds.bool), ph((2,), ds.bool)]), TypeError, "numeric"),
    (lambda x, i: ds.one_hot(i, -1), ValueError, "depth must be non-negative"),
    (lambda x, i: ds.one_hot(i, 3, axis=2), ValueError, r"axis 2 must be in \[-1, 1\]"),
    (lambda x, i: ds.one_hot(ph((3,)), 3), TypeError, "int32 or int64"),
    (lambda x, i: ds.unsorted_segment_sum(x, ph((2, 3), ds.int32), 4), ValueError,
     "must be a prefix"),
    (lambda x, i: ds.unsorted_segment_sum(x, i, -1), ValueError, "non-negative"),
    (lambda x, i: ds.shape(x, out_type=ds.float32), TypeError, "int32 or int64"),
    (lambda x, i: ds.reshape(x, ds.constant([[6, 5]])), ValueError, "rank 1"),
])
def test_bad_graphs_fail_at_build(build, error, match):
    x = ph((3, 4, 5), name="x")
    i = ph((3,), ds.int32, name="i")
    with pytest.raises(error, match=match):
        build(x, i)


def test_embedding_lookup_shapes_and_arguments():
    table = ph((10, 4))
    ids = ph((2, 3), ds.int64)
    assert ds.nn.embedding_lookup(table, ids).shape == (2, 3, 4)
    assert ds.nn.embedding_lookup([table], ids).op.type == "GatherV2"
    assert ds.nn.embedding_lookup([table, table[:9]], ids).shape == (2, 3, 4)
    assert ds.nn.embedding_lookup([table, table], ids, partition_strategy="div").shape == \
        (2, 3, 4)
    with pytest.raises(ValueError, match="Unrecognized partition strategy: rows"):
        ds.nn.embedding_lookup([table, table], ids, partition_strategy="rows")
    assert ds.nn.embedding_lookup(table, ids, max_norm=1.0).shape == (2, 3, 4)


def test_shapes_given_as_partly_known_vectors_survive_a_graph_def_import():
    """The node alone states them (inferred when it is built, from the Shape/Pack/
    ConcatV2 feeding its shape input), so an imported graph (a cluster's, a saved one)
    sees the same static shapes, as a while_loop's declared loop shapes need."""
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [None, 3, 4])
        rows = ds.shape(x)[0]
        built = [ds.zeros(ds.stack([rows, 3])), ds.ones(ds.concat([ds.shape(x)[:2], [7]], 0)),
                 ds.fill(ds.stack([2, rows]), 1.5), ds.reshape(x, ds.stack([rows, 12])),
                 ds.random_uniform(ds.stack([rows, 5])), ds.random_normal(ds.shape(x))]
    want = [[None, 3], [None, 3, 7], [2, None], [None, 12], [None, 5], [None, 3, 4]]
    assert [t.shape.as_list() for t in built] == want
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    assert [imported.get_tensor_by_name(t.name).shape.as_list() for t in built] == want


def test_tile_and_scatter_nd_keep_the_dims_a_packed_shape_knows(graph):
    """TF's static shapes for multiples / a shape packed from a run-time batch size and
    constants: tile([[0, 1]], [bsz, 1]) is (?, 2), so a beam search's while_loop with
    shape invariant (None, K) accepts it."""
    x = ds.placeholder(ds.float32, [None, 3])
    bsz = ds.shape(x)[0]
    c = ds.constant([[0.0, 1.0]])
    assert ds.tile(c, [bsz, 1]).shape.as_list() == [None, 2]
    assert ds.tile(c, ds.stack([bsz, 2])).shape.as_list() == [None, 4]
    assert ds.tile(c, [bsz, bsz]).shape.as_list() == [None, None]
    assert ds.tile(ds.zeros([0, 2]), [bsz, 1]).shape.as_list() == [0, 2]
    assert ds.scatter_nd([[0]], [[1.0, 2.0]], ds.stack([bsz, 2])).shape.as_list() == [None, 2]
    _, beams = ds.while_loop(lambda i, b: i < 2, lambda i, b: (i + 1, ds.tile(b, [1, 1])),
                             [0, ds.tile(c, [bsz, 1])],
                             shape_invariants=[ds.TensorShape([]), ds.TensorShape([None, 2])])
    with ds.Session() as sess:
        assert sess.run(beams, {x: np.ones((3, 3), np.float32)}).shape == (3, 2)


def test_transpose_and_reverse_take_tensors_the_graph_can_compute():
    """TF takes perm and axis as tensors: constants and what static shapes give work
    (named as TF's ops), and a perm only a run knows."""
    with ds.Graph().as_default():
        x = ds.reshape(ds.range(6), [2, 3])
        by_constant = ds.transpose(x, ds.constant([1, 0]))
        by_range = ds.transpose(x, ds.range(1, -1, -1))
        flipped = ds.reverse(x, ds.constant([1]))
        fed = ds.placeholder(ds.int32, [2])
        by_feed = ds.transpose(x, fed)          # read at run time, as TF's perm input
        with ds.Session() as sess:
            got = sess.run([by_constant, by_range, flipped])
            assert sess.run(by_feed, {fed: [1, 0]}).shape == (3, 2)
    want = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(got[0], want.T)
    np.testing.assert_array_equal(got[1], want.T)
    np.testing.assert_array_equal(got[2], want[:, ::-1])
    assert (by_constant.name, flipped.name) == ("transpose:0", "ReverseV2:0")


def test_one_hot_and_crop_and_resize_name_their_ops_and_inputs_as_tf():
    """TF 2.21's names: get_tensor_by_name in ported scripts finds them."""
    with ds.Graph().as_default() as graph:
        ids = ds.placeholder(ds.int32, [None])
        plain = ds.one_hot(ids, 3)
        given = ds.one_hot([0, 1], 4, on_value=5.0, off_value=-1.0, name="oh")
        image = ds.placeholder(ds.float32, [1, 8, 8, 1])
        crops = ds.image.crop_and_resize(image, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])
        names = sorted(op.name for op in graph.get_operations()
                       if op.name.startswith(("one_hot", "oh", "CropAndResize")))
    assert (plain.name, given.name, crops.name) == ("one_hot:0", "oh:0", "CropAndResize:0")
    assert names == ["CropAndResize", "CropAndResize/box_ind", "CropAndResize/boxes",
                     "CropAndResize/crop_size", "oh", "oh/Const", "oh/Const_1", "oh/depth",
                     "oh/indices", "one_hot", "one_hot/depth", "one_hot/off_value",
                     "one_hot/on_value"]
