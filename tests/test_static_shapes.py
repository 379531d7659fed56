"""TF1's static-shape idioms: ``Dimension`` arithmetic and comparisons, ``TensorShape``'s
construction, truth, equality and messages, ``set_shape``'s errors, and the static shapes
ops give from shapes with unknown sizes.  Expected values and messages were recorded from
tf.compat.v1 2.21 with v2 behavior disabled; where TF 1.15 differs, TF1's is noted."""

import numpy as np
import pytest

import devsession as ds

D = ds.Dimension


def _x():
    return ds.placeholder(ds.float32, [None, 3, 4])


@pytest.mark.parametrize("make, want", [
    (lambda: D(5) + 2, "Dimension(7)"),
    (lambda: 2 + D(5), "Dimension(7)"),
    (lambda: D(5) * D(3), "Dimension(15)"),
    (lambda: D(5) - 2, "Dimension(3)"),
    (lambda: 10 - D(3), "Dimension(7)"),
    (lambda: D(7) // 2, "Dimension(3)"),
    (lambda: 10 // D(3), "Dimension(3)"),
    (lambda: D(7) % 3, "Dimension(1)"),
    (lambda: D(5) + D(None), "Dimension(None)"),
    (lambda: D(None) * 2, "Dimension(None)"),
    (lambda: _x().shape[1] * _x().shape[2], "Dimension(12)"),
    (lambda: sum(_x().shape[1:]), "Dimension(7)"),
    (lambda: sum(_x().shape), "Dimension(None)"),
    (lambda: max(D(3), D(5)), "Dimension(5)"),
])
def test_arithmetic_on_a_size_is_a_dimension(make, want):
    """TF1's ``(x.shape[1] * x.shape[2]).value`` reads the product."""
    got = make()
    assert repr(got) == want and isinstance(got, ds.Dimension)
    assert got.value == (None if want == "Dimension(None)" else int(want[10:-1]))


@pytest.mark.parametrize("compare", [
    lambda: D(5) == None, lambda: D(5) != None, lambda: D(5) < None,      # noqa: E711
    lambda: D(5) >= D(None), lambda: D(5) == D(None), lambda: D(None) != 3,
])
def test_comparing_with_an_unknown_size_is_none(compare):
    assert compare() is None


def test_known_sizes_compare_and_hash_as_ints():
    assert D(5) == 5 and D(5) != 4 and D(5) < 7 and not D(5) > 7 and D(3) == 3.0
    assert {D(5): "a"}[5] == "a" and D(3) in [1, 2, 3] and D(2) != "2"


@pytest.mark.parametrize("divide, message", [
    (lambda: D(6) / 2, "for /: 'Dimension' and 'int', please use // instead"),
    (lambda: D(6) / D(2), "for /: 'Dimension' and 'Dimension', please use // instead"),
    (lambda: 6 / D(2), "for /: 'int' and 'Dimension', please use // instead"),
    (lambda: D(None) / 2, "for /: 'Dimension' and 'int', please use // instead"),
])
def test_true_division_of_a_size_is_tf1s_type_error(divide, message):
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) " + message + "$"):
        divide()


@pytest.mark.parametrize("make, error, message", [
    (lambda: D(-1), ValueError, "Dimension -1 must be >= 0"),
    (lambda: D(2.5), ValueError, "Ambiguous dimension: 2.5"),                 # TF 1.15's
    (lambda: D(3) - 5, ValueError, "Dimension -2 must be >= 0"),
    (lambda: ds.TensorShape([-1, 2]), ValueError, "Dimension -1 must be >= 0"),
    (lambda: ds.TensorShape([2, 0.5]), ValueError, "Ambiguous dimension: 0.5"),
    (lambda: ds.TensorShape("ab"), ValueError,                                 # TF 1.15's
     "A string has ambiguous TensorShape, please wrap in a list or convert to an int: ab"),
    (lambda: len(ds.TensorShape(None)), ValueError,
     r"Cannot take the length of shape with unknown rank\."),
    (lambda: _x().shape[5], IndexError, "list index out of range"),
    (lambda: _x().shape.merge_with([2, 5, 4]), ValueError,
     r"Shapes \(\?, 3, 4\) and \(2, 5, 4\) are not compatible"),
    (lambda: _x().shape.assert_is_compatible_with([2, 3, 5]), ValueError,
     r"Shapes \(\?, 3, 4\) and \[2, 3, 5\] are incompatible"),
])
def test_tf1s_errors_for_sizes_and_shapes(make, error, message):
    with pytest.raises(error, match="^" + message + "$"):
        make()


def test_sizes_tf1_accepts():
    """TF 1.15 takes a float without a fraction and a string of digits (2.21 refuses)."""
    assert repr(D(2.0)) == "Dimension(2)" and D("3") == 3 and D(np.int64(4)) == 4
    assert ds.TensorShape(5).as_list() == [5] and ds.TensorShape([2.0, 3]).as_list() == [2, 3]


def test_an_unknown_size_is_a_dimension_instance():
    """TF1 code tests ``isinstance(d, tf.Dimension)`` before reading ``d.value``."""
    x = _x()
    assert isinstance(x.shape[0], ds.Dimension) and isinstance(D(None), ds.Dimension)
    assert isinstance(ds.compat.dimension_at_index(ds.TensorShape(None), 2), ds.Dimension)
    assert not isinstance(3, ds.Dimension) and not isinstance(None, ds.Dimension)
    assert [d.value if isinstance(d, ds.Dimension) else d for d in x.shape] == [None, 3, 4]


@pytest.mark.parametrize("shape, truth", [([], True), ([0], True), ([None], True),
                                          (None, False)])
def test_a_shape_is_true_unless_its_rank_is_unknown(shape, truth):
    assert bool(ds.TensorShape(shape)) is truth


@pytest.mark.parametrize("left, right, equal", [
    ([2], 2, True), ([2, 3], (2, 3), True), ([None, 3], [D(None), D(3)], True),
    ([None], ds.TensorShape([None]), True), ([2, 3], [2, 4], False), ([2], "a", False),
    (None, None, True), (None, [], False),
])
def test_shapes_compare_as_tfs(left, right, equal):
    shape = ds.TensorShape(left)
    assert (shape == right) is equal and (shape != right) is not equal


def test_set_shape_merges_and_its_errors_are_tfs_shape_inference_messages():
    x = _x()
    x.set_shape([7, None, 4])
    assert x.shape.as_list() == [7, 3, 4]
    x.set_shape(ds.TensorShape(None))
    assert x.shape.as_list() == [7, 3, 4]
    with pytest.raises(ValueError, match=r"^Dimension 1 in both shapes must be equal, but are "
                                         r"3 and 5\. Shapes are \[7,3,4\] and \[7,5,4\]\.$"):
        x.set_shape([7, 5, 4])
    with pytest.raises(ValueError, match="^Shapes must be equal rank, but are 3 and 2$"):
        x.set_shape([7, 5])
    u = ds.placeholder(ds.float32)
    u.set_shape([D(None), D(3)])
    assert u.shape.as_list() == [None, 3]


@pytest.mark.parametrize("make", [lambda x: ds.range(x.shape[0]),
                                  lambda x: ds.convert_to_tensor(x.shape[0])])
def test_an_unknown_size_where_a_tensor_goes_is_tf1s_value_error(make):
    with pytest.raises(ValueError, match=r"^Cannot convert unknown Dimension \? to a Tensor\.$"):
        make(_x())
    assert make(ds.placeholder(ds.float32, [3])).dtype == ds.int32


@pytest.mark.parametrize("build, message", [
    (lambda: ds.layers.dense(ds.placeholder(ds.float32, [None, None]), 3),
     "The last dimension of the inputs to `Dense` should be defined. Found `None`."),
    (lambda: ds.layers.dense(ds.placeholder(ds.float32), 3),
     "The last dimension of the inputs to `Dense` should be defined. Found `None`."),
    (lambda: ds.layers.conv2d(ds.placeholder(ds.float32, [None, 5, 5, None]), 4, 3),
     "The channel dimension of the inputs should be defined. Found `None`."),
    (lambda: ds.unstack(ds.placeholder(ds.float32)),
     "Cannot infer num from shape <unknown>"),
])
def test_an_unknown_size_a_layer_or_op_needs_is_tf1s_message_naming_the_tensor(build, message):
    with pytest.raises(ValueError) as info:
        build()
    assert str(info.value).startswith(message) and "'Placeholder:0'" in str(info.value)


@pytest.mark.parametrize("build, want", [
    (lambda x: ds.reshape(x, [-1, int(np.prod(x.get_shape()[1:]))]), [None, 12]),
    (lambda x: ds.reshape(x, [-1, x.shape[1:].num_elements()]), [None, 12]),
    (lambda x: ds.reshape(x, [-1, x.shape[1] * x.shape[2]]), [None, 12]),
    (lambda x: ds.reshape(x, [-1, x.shape[1] * 2, x.shape[2] // 2]), [None, 6, 2]),
    (lambda x: ds.reshape(x, [-1] + x.shape.as_list()[1:]), [None, 3, 4]),
    (lambda x: ds.reshape(x, [ds.shape(x)[0], x.shape[1], x.shape[2]]), [None, 3, 4]),
    (lambda x: ds.placeholder(ds.float32, x.shape), [None, 3, 4]),
    (lambda x: ds.placeholder(ds.float32, (None,) + tuple(x.shape[1:])), [None, 3, 4]),
    (lambda x: ds.zeros(x.shape[1:]), [3, 4]),
    (lambda x: ds.zeros([ds.shape(x)[0], x.shape[1]]), [None, 3]),
    (lambda x: ds.get_variable("w", shape=[3, 3, x.shape[-1], 8]), [3, 3, 4, 8]),
    (lambda x: ds.Variable(ds.zeros(x.shape[1:])), [3, 4]),
    (lambda x: ds.range(x.shape[1]), [3]),
    (lambda x: ds.split(x, x.shape[1], axis=1)[0], [None, 1, 4]),
    (lambda x: ds.tile(x, [1, x.shape[1], 1]), [None, 9, 4]),
    (lambda x: ds.one_hot(ds.placeholder(ds.int32, [None]), x.shape[1]), [None, 3]),
    (lambda x: ds.concat([x, ds.placeholder(ds.float32, [2, None, 4])], 1), [2, None, 4]),
    (lambda x: ds.stack([x, ds.placeholder(ds.float32, [2, None, 4])]), [2, 2, 3, 4]),
    (lambda x: ds.matmul(ds.placeholder(ds.float32, [None, 2, 3]),
                         ds.placeholder(ds.float32, [None, 3, 5])), [None, 2, 5]),
    (lambda x: ds.placeholder(ds.float32, [None, 1]) * ds.placeholder(ds.float32, [None, 3]),
     [None, 3]),
    (lambda x: ds.ensure_shape(x, [5, 3, None]), [5, 3, 4]),
    (lambda x: ds.squeeze(ds.placeholder(ds.float32, [None, 1, 3]), [0]), [1, 3]),
])
def test_idioms_that_build_from_static_sizes_give_tfs_static_shapes(build, want):
    assert build(_x()).shape.as_list() == want


def test_while_loop_invariants_and_placeholder_with_default_take_partial_shapes():
    acc = ds.zeros([0, 3])
    _, grown = ds.while_loop(lambda i, a: i < 3,
                             lambda i, a: (i + 1, ds.concat([a, ds.ones([1, 3])], 0)),
                             [ds.constant(0), acc],
                             shape_invariants=[ds.TensorShape([]), ds.TensorShape([None, 3])])
    assert grown.shape.as_list() == [None, 3]
    dflt = ds.placeholder_with_default(ds.zeros([2, 3]), ds.TensorShape([None, 3]))
    assert repr(dflt.shape) == "TensorShape([Dimension(None), Dimension(3)])"


@pytest.mark.parametrize("build, want", [
    (lambda: ds.image.decode_and_crop_jpeg(ds.constant(b""), ds.placeholder(ds.int32, [None])),
     [None, None, None]),
    (lambda: ds.summary.image("x", ds.placeholder(ds.float32, [None, 8, 8, None])), []),
    (lambda: ds.raw_ops.RestoreV2(prefix="a", tensor_names=ds.placeholder(ds.string, [None]),
                                  shape_and_slices=ds.placeholder(ds.string, [None]),
                                  dtypes=[ds.float32])[0], None),
])
def test_shape_functions_read_an_unknown_size_as_unknown(build, want):
    """These checked ``shape[i] not in (None, ...)``: an unknown size, Dimension(None), is
    no None, so they refused inputs TF builds (its static shapes here)."""
    got = build().shape
    assert (got.dims if want is None else got.as_list()) == want


def _ph(shape, name):
    return ds.placeholder(ds.float32, shape, name=name)


@pytest.mark.parametrize("build, want", [
    (lambda: ds.matmul(_ph([None, 3], "a"), _ph([4, 5], "b"), name="mm"),
     "but are 3 and 4 for 'mm' with input shapes: [?,3], [4,5]. Op 'mm': matmul inner"),
    (lambda: ds.matmul(_ph([None, 3], "a"), _ph([4, 5], "b"), transpose_b=True, name="mm"),
     "but are 3 and 5 for 'mm' with input shapes: [?,3], [4,5]. "),
    (lambda: ds.matmul(_ph([2, 4, 3], "a"), _ph([3, 3, 5], "b"), name="mm"),
     "but are 2 and 3 for 'mm' with input shapes: [2,4,3], [3,3,5]. Op 'mm': batch"),
    (lambda: ds.add(_ph([None, 3], "a"), _ph([4, 2], "b"), name="sum"),
     "but are 3 and 2 for 'sum' with input shapes: [?,3], [4,2]. Op 'sum': incompatible "
     "shapes for broadcasting: 'a:0' with shape (?, 3) and 'b:0' with shape (4, 2)."),
    (lambda: ds.subtract(_ph([2, 3], "a"), _ph([None, 4], "b"), name="diff"),
     "but are 3 and 4 for 'diff' with input shapes: [2,3], [?,4]. "),
])
def test_shape_conflicts_say_tfs_dimensions_must_be_equal_then_name_the_tensors(build, want):
    with pytest.raises(ValueError) as info:
        build()
    assert str(info.value).startswith("Dimensions must be equal, " + want)


@pytest.mark.parametrize("build, want", [
    (lambda: ds.stack([_ph([None, 3, 4], "x"), _ph([2, None, 5], "z"), _ph([2, 5, 4], "y")],
                      name="st"),
     "Dimension 2 in both shapes must be equal, but are 5 and 4. Shapes are [2,?,5] and "
     "[2,5,4].\n\tFrom merging shape 1 with other shapes. for 'st' with input shapes: "
     "[?,3,4], [2,?,5], [2,5,4]. Op 'st': shapes of all inputs must match: 'z:0'"),
    (lambda: ds.add_n([_ph([None, 3, 4], "x"), _ph([3, 4], "y")], name="an"),
     "Shapes must be equal rank, but are 3 and 2\n\tFrom merging shape 0 with other shapes. "
     "for 'an' with input shapes: [?,3,4], [3,4]. "),
    (lambda: ds.concat([_ph([None, 3, 4], "x"), _ph([2, None, 5], "z")], 1, name="cc"),
     "Dimension 0 in both shapes must be equal, but are 4 and 5. Shapes are [4] and [5]. "
     "for 'cc' with input shapes: [?,3,4], [2,?,5]. "),
    (lambda: ds.concat([_ph([None, 3, 4], "x"), _ph([2, 5, 4], "y")], 0, name="cc"),
     "Dimension 0 in both shapes must be equal, but are 3 and 5. Shapes are [3,4] and [5,4]. "),
    (lambda: ds.concat([_ph([None, 3, 4], "x"), _ph([3, 4], "y")], 1, name="cc"),
     "Shape must be rank 3 but is rank 2 for 'cc' with input shapes: [?,3,4], [3,4]. "),
    (lambda: ds.squeeze(_ph([None, 3, 4], "x"), [1, 2], name="sq"),
     "Can not squeeze dim[1], expected a dimension of 1, got 3 for 'sq' with input shapes: "
     "[?,3,4]. "),
    (lambda: ds.ensure_shape(_ph([None, 3, 4], "x"), [5, 2, None], name="es"),
     "Dimension 1 in both shapes must be equal, but are 2 and 3. Shapes are [5,2,?] and "
     "[?,3,4]. for 'es' with input shapes: [?,3,4]. "),
    (lambda: ds.placeholder_with_default(ds.zeros([2, 3]), [None, 4], name="pd"),
     "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [2,3] and [?,4]. "
     "for 'pd' with input shapes: [2,3]. "),
])
def test_merge_conflicts_are_tfs_shape_function_messages(build, want):
    """TF's shape-function words (its 1.15 form: the node's name, no NodeDef) come first,
    then devsession's, which name the tensors."""
    with pytest.raises(ValueError) as info:
        build()
    assert str(info.value).startswith(want) and "Op '" in str(info.value)


@pytest.mark.parametrize("build, want", [
    (lambda: ds.reshape(ds.zeros([2, 3]), [-1, 4], name="rs"),
     "Dimension size must be evenly divisible by 4 but is 6 for 'rs' with input shapes: [2,3]. "),
    (lambda: ds.reshape(ds.zeros([2, 3]), [0, -1], name="rs"),
     "Cannot reshape a tensor with 6 elements to shape [0,?] (0 elements) for 'rs' "),
    (lambda: ds.reshape(ds.zeros([2, 6]), [5, 2], name="rs"),
     "Cannot reshape a tensor with 12 elements to shape [5,2] (10 elements) for 'rs' "),
    (lambda: ds.nn.bias_add(_ph([None, 4], "x"), ds.zeros([3]), name="ba"),
     "Dimensions must be equal, but are 4 and 3 for 'ba' with input shapes: [?,4], [3]. "),
    (lambda: ds.nn.sparse_softmax_cross_entropy_with_logits(
        labels=ds.placeholder(ds.int32, [None]), logits=_ph([None], "x")),     # TF 1.15's
     "Rank mismatch: Rank of labels (received 1) should equal rank of logits minus 1 "
     "(received 1). "),
    (lambda: ds.nn.sparse_softmax_cross_entropy_with_logits(
        labels=ds.zeros([3], ds.int32), logits=_ph([4, 5], "x")),
     "Shape mismatch: The shape of labels (received (3,)) should equal the shape of logits "
     "except for the last dimension (received (4, 5)). "),
    (lambda: ds.nn.sparse_softmax_cross_entropy_with_logits(
        labels=ds.zeros([], ds.int32), logits=_ph([], "x")),
     "Logits cannot be scalars - received shape (). "),
])
def test_reshape_bias_add_and_sparse_cross_entropy_errors_start_with_tf1s_words(build, want):
    with pytest.raises(ValueError) as info:
        build()
    assert str(info.value).startswith(want) and ":0'" in str(info.value)


def test_bias_add_takes_an_unknown_channel_size_from_the_bias():
    """TF's BiasAddShape merges the channel dimension with the bias's length."""
    nhwc = ds.nn.bias_add(ds.placeholder(ds.float32, [None, None]), ds.zeros([3]))
    nchw = ds.nn.bias_add(ds.placeholder(ds.float32, [None, None, None]), ds.zeros([3]),
                          data_format="NCHW")
    assert nhwc.shape.as_list() == [None, 3] and nchw.shape.as_list() == [None, 3, None]


@pytest.mark.parametrize("size, begin, want", [          # TF 2.21's static shapes
    (lambda x: [-1, 2, ds.shape(x)[2]], lambda: ds.placeholder(ds.int32, [3]), [None, 2, 4]),
    (lambda x: [-1, -1, ds.shape(x)[2]], lambda: [1, 1, 1], [None, 2, 4]),
    (lambda x: ds.shape(x), lambda: [0, 0, 0], [None, 3, 4]),
    (lambda x: [ds.shape(x)[0], 5, 1], lambda: [0, 0, 0], [None, 5, 1]),
    (lambda x: ds.placeholder(ds.int32, [3]), lambda: [0, 0, 0], [None, None, None]),
])
def test_slice_takes_the_sizes_the_graph_knows(size, begin, want):
    x = ds.placeholder(ds.float32, [None, 3, 4])
    assert ds.slice(x, begin(), size(x)).shape.as_list() == want


def test_slice_of_begin_and_size_of_other_lengths_is_tfs_value_error():
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are "
                                         r"2 and 3\. Shapes are \[2\] and \[3\]\. for 'Slice'"):
        ds.slice(ds.placeholder(ds.float32), [0, 0], ds.placeholder(ds.int32, [3]))


def test_dropout_noise_shape_may_hold_tensors():
    """TF1's ``noise_shape=[tf.shape(x)[0], 1, n]``: one draw shared along axis 1."""
    x = ds.placeholder(ds.float32, [None, 3, 4])
    y = ds.nn.dropout(x, rate=0.5, noise_shape=[ds.shape(x)[0], 1, 4], seed=1)
    assert y.shape.as_list() == [None, 3, 4]
    with ds.Session() as sess:
        got = sess.run(y, {x: np.ones([8, 3, 4], np.float32)})
    assert set(np.unique(got)) <= {0.0, 2.0} and (got == got[:, :1]).all()


def test_tile_with_multiples_of_another_length_than_the_rank_is_tfs_message():
    with pytest.raises(ValueError, match=r"^Shape must be rank 2 but is rank 3 for 'Tile' with "
                                         r"input shapes: \[\?,6\], \[3\]\. Op 'Tile'"):
        ds.tile(ds.placeholder(ds.float32, [None, 6]), ds.placeholder(ds.int32, [3]))


@pytest.mark.parametrize("build, want", [
    (lambda: ds.nn.sigmoid_cross_entropy_with_logits(labels=ds.zeros([2, 3]),
                                                     logits=ds.zeros([2, 4])),
     "logits and labels must have the same shape ((2, 4) vs (2, 3))"),          # TF 1.15's
    (lambda: ds.nn.weighted_cross_entropy_with_logits(labels=ds.zeros([2, 3]),
                                                      logits=ds.zeros([2, 4]), pos_weight=2.0),
     "logits and labels must have the same shape ((2, 4) vs (2, 3))"),
    (lambda: ds.losses.mean_squared_error(ds.zeros([2, 3]), ds.zeros([2, 4])),
     "Shapes (2, 4) and (2, 3) are incompatible"),
    (lambda: ds.losses.huber_loss(ds.zeros([2, 3]), ds.zeros([2, 4])),
     "Shapes (2, 4) and (2, 3) are incompatible"),
])
def test_losses_of_other_shapes_start_with_tf1s_words(build, want):
    with pytest.raises(ValueError) as info:
        build()
    assert str(info.value).startswith(want + ": ") and "'zeros_1:0' (2, 4)" in str(info.value)
