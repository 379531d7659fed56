"""The TF1 surface beyond ops: session conveniences (ConfigProto, InteractiveSession,
eval/run, old initializer names), get_variable/variable_scope, the errors a program meets
for what devsession lacks, and the four bugs issue 10 found (tensor arguments to random
ops, one-argument where, a missing Variable method's message, a reduction's wrong
keyword).  Values a TF1 program prints are checked against TensorFlow's in
test_tf1_programs.py; here, behaviour and messages."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import devsession as ds
from devsession.unsupported import UnsupportedTF1Error


# --- ConfigProto ---------------------------------------------------------------------------

def test_config_proto_maps_onto_session_options():
    from devsession.config import session_options

    config = ds.ConfigProto(allow_soft_placement=False, log_device_placement=True,
                            device_count={"GPU": 0}, intra_op_parallelism_threads=2,
                            inter_op_parallelism_threads=3, operation_timeout_in_ms=1500,
                            gpu_options=ds.GPUOptions(allow_growth=True))
    options = session_options(config, ds.SessionOptions())
    assert (options.allow_soft_placement, options.log_device_placement) == (False, True)
    assert str(options.device) == "/device:CPU:0" or options.device.device_type == "CPU"
    assert (options.intra_op_threads, options.inter_op_threads) == (2, 3)
    assert options.operation_timeout_s == 1.5
    untouched = session_options(ds.ConfigProto(), ds.SessionOptions())
    assert untouched == ds.SessionOptions()        # unset fields keep devsession's defaults


def test_config_fields_set_after_construction_and_unknown_ones_warn_once(caplog):
    config = ds.ConfigProto()
    config.gpu_options.allow_growth = True
    config.gpu_options.per_process_gpu_memory_fraction = 0.5
    config.graph_options = "anything"
    config.isolate_session_state = True
    with caplog.at_level(logging.WARNING, logger="devsession"):
        with ds.Session(config=config) as sess:
            assert sess.run(ds.constant(2.0) * 3.0) == 6.0
    warnings = [r.getMessage() for r in caplog.records if "ConfigProto" in r.getMessage()]
    assert len(warnings) == 1
    assert "graph_options" in warnings[0] and "isolate_session_state" in warnings[0]
    assert "allow_growth" not in warnings[0]


def test_session_takes_config_positionally_and_rejects_other_types():
    with ds.Session("", None, ds.ConfigProto(log_device_placement=False)) as sess:
        assert sess.run(ds.constant(1)) == 1
    with pytest.raises(TypeError, match="must be a ds.ConfigProto"):
        ds.Session(config={"allow_soft_placement": True})


# --- InteractiveSession, eval, run --------------------------------------------------------

def test_interactive_session_is_the_default_until_closed():
    v = ds.Variable([1.0, 2.0])
    sess = ds.InteractiveSession()
    try:
        assert ds.get_default_session() is sess
        v.initializer.run()
        assert (v * 2.0).eval().tolist() == [2.0, 4.0]
        p = ds.placeholder(ds.float32, [2])
        assert (v + p).eval(feed_dict={p: [1.0, 1.0]}).tolist() == [2.0, 3.0]
        ds.initialize_all_variables().run()
    finally:
        sess.close()
    assert ds.get_default_session() is None
    with pytest.raises(ValueError, match="without a session"):
        v.eval()


def test_interactive_session_with_a_graph_makes_it_the_default_graph():
    g = ds.Graph()
    with g.as_default():
        c = ds.constant(3.0)
    sess = ds.InteractiveSession(graph=g)
    assert ds.get_default_graph() is g and c.eval() == 3.0
    sess.close()
    assert ds.get_default_graph() is not g


def test_interactive_session_closed_inside_or_after_other_scopes_leaves_them_alone():
    g, inner, outer = ds.Graph(), ds.Graph(), ds.Graph()
    sess = ds.InteractiveSession(graph=g)
    with inner.as_default():
        sess.close()                        # closed while another graph is the default
        assert ds.get_default_graph() is inner
    assert ds.get_default_graph() is not g and ds.get_default_session() is None
    with outer.as_default():
        sess = ds.InteractiveSession(graph=g)
    assert ds.get_default_graph() is g      # the scope left; the session's graph stays
    sess.close()
    assert ds.get_default_graph() not in (g, outer)


def test_sess_as_default_leaves_the_default_graph_and_with_sess_sets_both():
    """TF1's: ``sess.as_default()`` makes only the session the default (its graph must be
    entered itself); ``with sess:`` makes both."""
    g = ds.Graph()
    with g.as_default():
        c = ds.constant(3.0)
    sess = ds.Session(graph=g)
    try:
        with sess.as_default():
            assert ds.get_default_session() is sess and ds.get_default_graph() is not g
            assert c.eval() == 3.0
        with sess:
            assert ds.get_default_session() is sess and ds.get_default_graph() is g
        assert ds.get_default_session() is None and ds.get_default_graph() is not g
    finally:
        sess.close()


def test_eval_and_run_in_a_session_of_another_graph_are_tfs_value_error():
    """``t.eval()`` / ``op.run()`` in the default or a given session of another graph: TF's
    ValueError and message, not the session's "not an element of this graph"."""
    mine, other = ds.Graph(), ds.Graph()
    with mine.as_default():
        c = ds.constant(3.0)
    with ds.Session(graph=other) as sess:
        default = "Cannot use the default session to {}: the {}'s graph is different " \
                  "from the session's graph. Pass an explicit session to {}."
        given = "Cannot use the given session to {}: the {}'s graph is different " \
                "from the session's graph."
        cases = [(c.eval, default.format("evaluate tensor", "tensor", "`eval(session=sess)`")),
                 (c.op.run, default.format("execute operation", "operation",
                                           "run(session=sess)")),
                 (lambda: c.eval(session=sess), given.format("evaluate tensor", "tensor")),
                 (lambda: c.op.run(session=sess), given.format("execute operation",
                                                               "operation"))]
        for call, message in cases:
            with pytest.raises(ValueError) as e:
                call()
            assert str(e.value) == message
    with ds.Session(graph=mine) as sess:
        assert c.eval() == 3.0 and c.eval(session=sess) == 3.0


def test_old_variable_names():
    v = ds.Variable(1.0, name="v")
    assert ds.all_variables() == [v]
    init = ds.initialize_variables([v])
    with ds.Session() as sess:
        sess.run(init)
        assert sess.run(v) == 1.0


def test_variable_takes_tf1s_positional_trainable_and_its_placement_keywords():
    """TF1's ``Variable(initial_value, trainable, ...)``: a bool second argument is
    ``trainable`` (a name never is), so ``Variable(zeros, False)`` is never trained; the
    keywords TF1 scripts pass that change no value are accepted (TF 2.21 compat.v1 by hand)."""
    frozen = ds.Variable(ds.zeros([3]), False)
    named = ds.Variable(ds.zeros([3]), "named")
    kept = ds.Variable(ds.zeros([2]), caching_device="/cpu:0", expected_shape=[2],
                       use_resource=True)
    assert not frozen.trainable and frozen.name == "Variable:0" and named.name == "named:0"
    assert ds.trainable_variables() == [named, kept]
    with pytest.raises(TypeError, match="two values for 'trainable'"):
        ds.Variable(ds.zeros([3]), True, trainable=False)


# --- get_variable / variable_scope ------------------------------------------------------------

def test_get_variable_errors_say_what_tf1_says():
    with ds.variable_scope("s"):
        ds.get_variable("w", shape=[2])
        with pytest.raises(ValueError, match="Variable s/w already exists, disallowed. Did you "
                                             "mean to set reuse=True"):
            ds.get_variable("w", shape=[2])
    with ds.variable_scope("s", reuse=True):
        with pytest.raises(ValueError, match="Variable s/x does not exist, or was not created "
                                             "with tf.get_variable()"):
            ds.get_variable("x", shape=[2])
        with pytest.raises(ValueError, match="Trying to share variable s/w"):
            ds.get_variable("w", shape=[3])
    with pytest.raises(ValueError, match=r"Shape of a new variable \(y\) must be fully defined"):
        ds.get_variable("y")


def test_get_variable_default_initializers_and_scope_dtype():
    with ds.variable_scope("d", dtype=ds.float64):
        f = ds.get_variable("f", shape=[50, 40])               # glorot uniform
        i = ds.get_variable("i", shape=[3], dtype=ds.int32)    # zeros
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        fv, iv = sess.run([f, i])
    limit = np.sqrt(6.0 / 90.0)
    assert fv.dtype == np.float64 and np.all(np.abs(fv) <= limit) and fv.std() > limit / 3
    assert iv.tolist() == [0, 0, 0]


def test_variable_scope_reuse_is_inherited_and_auto_reuse():
    with ds.variable_scope("outer"):
        with ds.variable_scope("inner"):
            w = ds.get_variable("w", shape=[1])
    with ds.variable_scope("outer", reuse=True):
        with ds.variable_scope("inner"):
            assert ds.get_variable_scope().reuse is True
            assert ds.get_variable("w") is w
    for _ in range(2):
        with ds.variable_scope("auto", reuse=ds.AUTO_REUSE):
            made = ds.get_variable("v", shape=[], initializer=ds.ones_initializer())
    assert [v.name for v in ds.global_variables()] == ["outer/inner/w:0", "auto/v:0"]
    assert made.name == "auto/v:0"


def test_custom_getters_wrap_outward_and_see_the_full_name_and_arguments():
    calls = []

    def as_half(getter, name, *args, **kwargs):       # the mixed-precision pattern
        calls.append(("half", name, kwargs["dtype"], kwargs["reuse"]))
        return ds.cast(getter(name, *args, **kwargs), ds.float16)

    def tagged(getter, name, *args, **kwargs):
        calls.append(("tagged", name, kwargs["shape"], None))
        return getter(name, *args, **kwargs)
    with ds.variable_scope("outer", custom_getter=as_half):
        with ds.variable_scope("inner", custom_getter=tagged):
            w = ds.get_variable("w", [2], initializer=ds.ones_initializer())
        dense = ds.layers.dense(ds.ones([1, 2], ds.float16), 3, use_bias=False)
    assert calls[:2] == [("tagged", "outer/inner/w", [2], None),
                         ("half", "outer/inner/w", ds.float32, False)]
    assert calls[2][:2] == ("half", "outer/dense/kernel")          # layers use get_variable
    assert w.dtype is ds.float16 and dense.dtype is ds.float16
    # w is kept in float32; the layer makes its kernel in its input's dtype, as TF's
    assert [v.dtype for v in ds.global_variables()] == [ds.float32, ds.float16]
    with ds.variable_scope("outer", reuse=True):
        again = ds.get_variable("inner/w", custom_getter=lambda getter, **kw: getter(**kw))
    assert again is ds.global_variables()[0]             # a call's getter replaces the scope's
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(w), np.ones(2, np.float16))


def test_a_regularizer_penalises_each_variable_once_when_it_is_made():
    with ds.variable_scope("net", regularizer=lambda v: 0.5 * ds.reduce_sum(v)):
        a = ds.get_variable("a", [2], initializer=ds.ones_initializer())
        b = ds.get_variable("b", [3], initializer=ds.ones_initializer(),
                            regularizer=lambda v: 0.25 * ds.reduce_sum(v))   # its own
        ds.get_variable("c", [1], regularizer=None, dtype=ds.float32,
                        initializer=ds.ones_initializer())
    with ds.variable_scope("net", reuse=True):
        assert ds.get_variable("a") is a                     # reused: no second penalty
    losses = ds.get_collection(ds.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.op.name.rsplit("/", 1)[0] for t in losses] == [
        "net/a/Regularizer", "net/b/Regularizer", "net/c/Regularizer"]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        assert sess.run(losses) == [1.0, 0.75, 0.5] and b.shape.as_list() == [3]


def test_a_list_holding_tensors_is_their_stack():
    a, b = ds.constant(True), ds.constant(False)
    n = ds.placeholder(ds.int32, [])
    packed = ds.convert_to_tensor([[n, 2], [3, n]])
    assert packed.dtype is ds.int32 and packed.shape.as_list() == [2, 2]
    with ds.Session() as sess:
        assert sess.run([ds.reduce_all([a, b]), ds.reduce_any([a, b])]) == [False, True]
        np.testing.assert_array_equal(sess.run(packed, {n: 7}), [[7, 2], [3, 7]])
    with pytest.raises(TypeError, match="1.5"):
        ds.convert_to_tensor([n, 1.5])


def test_a_shapes_known_sizes_have_tf1s_value_and_stay_ints():
    x = ds.placeholder(ds.float32, [None, 4, 5])
    channels = x.get_shape()[-1]
    assert channels.value == 5 and isinstance(channels, ds.Dimension) and channels == 5
    assert [d.value for d in x.shape] == [None, 4, 5] and x.shape.as_list() == [None, 4, 5]
    assert [d.value for d in x.shape[1:]] == [4, 5]
    assert repr(channels * 2) == "Dimension(10)" and (channels * 2).value == 10   # TF1's
    assert isinstance(channels * 2, int) and np.zeros(channels).shape == (5,)
    assert channels.is_compatible_with(None) and not channels.is_compatible_with(4)
    assert ds.dimension_value(channels) == 5 and ds.Dimension(3).value == 3
    flat = ds.reshape(x, [-1, x.shape[1].value * x.shape[2].value])
    assert flat.shape.as_list() == [None, 20]


def test_an_unknown_size_is_tf1s_dimension_none():
    """What tf.compat.v1 2.21 (v2 behavior disabled) gives, checked by hand: the TF1 idiom
    ``batch = x.get_shape()[0].value`` reads None, comparisons give None, arithmetic stays
    unknown, and no int can be made of it."""
    x = ds.placeholder(ds.float32, [None, 3])
    batch = x.get_shape()[0]
    assert batch.value is None and ds.dimension_value(batch) is None
    assert batch is not None and not batch and repr(batch) == "Dimension(None)"
    assert str(batch) == "?" and "{}".format(batch) == "?" and repr(list(x.shape)) == \
        "[Dimension(None), Dimension(3)]"
    assert (batch == None) is None and (batch == 3) is None  # noqa: E711
    assert (x.shape[1] == batch) is None
    assert (batch < 3) is None and repr(batch * 2) == repr(3 + batch) == "Dimension(None)"
    assert batch.is_compatible_with(4) and batch.merge_with(4) == 4
    assert ds.Dimension(None) is batch and ds.TensorShape(None)[2] is batch
    assert x.shape[1].merge_with(batch) == 3 and ds.TensorShape([batch, 2]).as_list() == [None, 2]
    with pytest.raises(ValueError, match="not compatible"):
        x.shape[1].merge_with(4)
    for make_an_int in (int, range, lambda d: [0, 1][d], lambda d: ds.zeros([d, 2])):
        with pytest.raises(TypeError):
            make_an_int(batch)
    assert ds.placeholder(ds.float32, [batch, 2]).shape.as_list() == [None, 2]


@pytest.mark.parametrize("make", [ds.zeros, ds.ones, lambda s: ds.fill(s, 1.0),
                                  ds.convert_to_tensor, lambda s: ds.reshape(ds.zeros([6]), s)])
def test_a_partially_known_shape_is_no_shape_tensor(make):
    """TF1's ValueError (checked against tf.compat.v1 2.21 by hand); a known shape converts."""
    with pytest.raises(ValueError,
                       match=r"Cannot convert a partially known TensorShape \(\?, 3\)"):
        make(ds.placeholder(ds.float32, [None, 3]).shape)
    assert make(ds.TensorShape([2, 3])).shape.as_list() == ([2] if make is ds.convert_to_tensor
                                                             else [2, 3])


def test_a_shapes_rank_checks_are_tf1s():
    """TF's messages, checked against tf.TensorShape 2.21 by hand."""
    known, unknown = ds.TensorShape([2, None]), ds.TensorShape(None)
    assert known.with_rank(2) is known and unknown.with_rank(3).as_list() == [None] * 3
    assert known.with_rank_at_least(1) is known and known.with_rank_at_most(2) is known
    assert unknown.with_rank_at_least(5) is unknown
    with pytest.raises(ValueError, match=r"^Shape \(2, \?\) must have rank 3$"):
        known.with_rank(3)
    with pytest.raises(ValueError, match=r"must have rank at least 3$"):
        known.with_rank_at_least(3)
    with pytest.raises(ValueError, match=r"must have rank at most 1$"):
        known.with_rank_at_most(1)
    known.assert_has_rank(2)
    unknown.assert_has_rank(7)
    with pytest.raises(ValueError, match="must have rank 1"):
        known.assert_has_rank(1)
    with pytest.raises(ValueError, match=r"Shapes \(2, \?\) and \(3,\) must have the same"):
        known.assert_same_rank([3])
    known.assert_is_compatible_with([2, 9])
    with pytest.raises(ValueError, match=r"Shapes \(2, \?\) and \[3, 1\] are incompatible"):
        known.assert_is_compatible_with([3, 1])              # TF's: the other as it was given
    ds.TensorShape([1, 2]).assert_is_fully_defined()
    with pytest.raises(ValueError, match=r"Shape \(2, \?\) is not fully defined"):
        known.assert_is_fully_defined()
    assert known.most_specific_compatible_shape([3, None]).as_list() == [None, None]
    assert ds.TensorShape([2, 4]).most_specific_compatible_shape([2, 5]).as_list() == [2, None]
    assert known.most_specific_compatible_shape([2]).dims is None
    assert (known + [5]).as_list() == [2, None, 5] and ([1] + known).as_list() == [1, 2, None]


def test_shapes_and_dimensions_print_as_tf1s():
    """repr and str as tf.compat.v1 2.21 (v2 behavior disabled) prints them: a logged dict
    of dataset output shapes, a list of dims."""
    shape = ds.placeholder(ds.float32, [None, 3]).shape
    assert repr(shape) == "TensorShape([Dimension(None), Dimension(3)])"
    assert str(shape) == "(?, 3)"
    assert repr(ds.TensorShape([])) == "TensorShape([])"
    assert repr(ds.TensorShape(None)) == "TensorShape(None)"
    assert repr([shape[1]]) == "[Dimension(3)]"
    assert str(shape[1]) == "%s" % shape[1] == f"{shape[1]}" == "3"
    assert "%d" % shape[1] == "3" and shape[1] + 1 == 4


def test_integer_arithmetic_on_known_values_keeps_shapes_known():
    """TF's shape inference evaluates small integer subgraphs (frame's ``rank - axis - 1``):
    a SplitV whose sizes come from Sub and FloorDiv nodes splits into known shapes."""
    x = ds.placeholder(ds.float32, [None, 6, 4])
    rank = ds.rank(x)
    sizes = ds.stack([rank - 2, ds.constant(12) // 6, -ds.constant(-1) * 0 + 0])
    assert ds.get_static_value(sizes).tolist() == [1, 2, 0]
    parts = ds.split(ds.shape(x), sizes)
    assert [p.shape.as_list() for p in parts] == [[1], [2], [0]]
    assert ds.get_static_value(ds.maximum(rank, 5) - ds.minimum(rank, 1)).tolist() == 4
    assert ds.get_static_value(ds.constant(7) % 3) == 1
    assert ds.get_static_value(ds.constant(7) // 0) is None       # left to the run
    assert ds.get_static_value(ds.constant(2.5) * 2.0) is None      # integers only


def test_integer_division_by_zero_at_run_time_is_tfs_error():
    """TF 2.21: ``//``, ``%``, tf.div and tf.math.mod of integers by zero are FloorDiv's
    and FloorMod's InvalidArgumentError naming the node (a constant divisor included);
    tf.truncatediv is InternalError; truediv and divide_no_nan of integers divide in
    floats (inf, 0), never an error.  TruncateMod takes no int8 (TF's TypeError)."""
    x = ds.constant([7, -7, 3])
    zero = ds.placeholder_with_default(ds.constant([2, 0, 1]), [3])
    failing = {"floordiv": x // zero, "mod": x % zero, "div": ds.div(x, zero, name="div"),
               "constant": ds.math.floormod(x, ds.constant(0), name="constant"),
               "truncated": ds.truncatediv(x, zero, name="truncated")}
    with ds.Session() as sess:
        for name, fetch in failing.items():
            error = ds.errors.InternalError if name == "truncated" else \
                ds.errors.InvalidArgumentError
            with pytest.raises(error) as raised:
                sess.run(fetch)
            assert raised.value.node_name == fetch.op.name, name
        np.testing.assert_array_equal(sess.run(ds.math.truediv(x, zero)), [3.5, -np.inf, 3])
        no_nan = ds.math.divide_no_nan(x, zero)
        assert no_nan.dtype == ds.float64                   # TF's cast, as for truediv
        np.testing.assert_array_equal(sess.run(no_nan), [3.5, 0, 3])
        small = ds.div_no_nan(ds.constant([3], ds.int8), ds.constant([0], ds.int8))
        assert small.dtype == ds.float32 and sess.run(small).tolist() == [0.0]
        np.testing.assert_array_equal(sess.run([x // [2, -2, 5], x % [2, -2, 5]]),
                                      [[3, 3, 0], [1, -1, 3]])
    with pytest.raises(TypeError, match="DataType int8 not in list of allowed values: int32"):
        ds.truncatemod(ds.constant([7], ds.int8), ds.constant([2], ds.int8))


def test_neg_and_abs_refuse_unsigned_integers_as_tf_does():
    """TF's Neg and Abs list no unsigned type (Square and Relu do): ``-x``, ``abs(x)`` and
    so ``tf.image.total_variation`` of a uint8 image are TypeError when built."""
    image = ds.constant(np.arange(12, dtype=np.uint8).reshape(2, 2, 3))
    for build in (ds.negative, ds.abs, lambda x: -x, ds.image.total_variation):
        with pytest.raises(TypeError, match="DataType uint8 not in list of allowed values"):
            build(image)
    for dtype in (ds.uint16, ds.uint32, ds.uint64):
        with pytest.raises(TypeError, match=f"DataType {dtype.name} not in list"):
            ds.abs(ds.constant([1], dtype))
    assert ds.square(image).dtype == ds.nn.relu(image).dtype == ds.uint8
    with ds.Session() as sess:
        assert sess.run(ds.abs(ds.constant([-3, 2], ds.int8))).tolist() == [3, 2]
        assert sess.run(-ds.constant([3], ds.int16)).tolist() == [-3]


def test_integer_reductions_of_known_values_keep_shapes_known():
    """TF's shape inference evaluates integer Sum/Prod/Max/Min of constants too: a
    ``num_segments`` of ``reduce_max(ids) + 1`` over constant ids is a known dimension, as
    is ``bincount``'s; the kernels' wrapping is kept, and what they leave to the run
    (floats, a Max over nothing, an unknown input) stays unknown."""
    ids = ds.constant([0, 1, 0, 3, 3, 1])
    x = ds.zeros([6, 2])
    assert ds.unsorted_segment_sum(x, ids, ds.reduce_max(ids) + 1).shape.as_list() == [4, 2]
    assert ds.zeros([ds.reduce_sum(ids)]).shape.as_list() == [8]
    table = ds.constant([[2, 3, 4], [5, 1, 7]])
    assert ds.get_static_value(ds.reduce_min(table, 1)).tolist() == [2, 1]
    assert ds.get_static_value(ds.reduce_max(table, 0, keepdims=True)).tolist() == [[5, 3, 7]]
    assert ds.get_static_value(ds.reduce_prod(table)) == 2 * 3 * 4 * 5 * 7
    big = ds.get_static_value(ds.reduce_sum(ds.constant([2 ** 31 - 1, 1])))
    assert big.dtype == np.int32 and big == -2 ** 31                   # wraps, as the kernel
    assert ds.get_static_value(ds.reduce_max(ds.zeros([0], ds.int32))) is None
    assert ds.get_static_value(ds.reduce_sum(ds.constant([1.5, 2.0]))) is None
    assert ds.get_static_value(ds.reduce_max(ds.placeholder(ds.int32, [3]))) is None
    assert ds.reduce_max(ds.placeholder(ds.int32, [3])).shape.as_list() == []


def test_casts_to_integers_of_known_values_are_static_as_tf():
    """TF's ``get_static_value`` and shape inference fold a Cast: to an integer dtype the
    value is the kernel's (truncated floats, wrapped integers, bools as 0/1), so bincount
    of a constant float ``arr`` has known bins; NaN, out-of-range floats and casts to
    floats stay unknown (devsession keeps static values to integers)."""
    assert ds.get_static_value(ds.cast(ds.constant([1.7, -2.9]), ds.int32)).tolist() == [1, -2]
    wrapped = ds.get_static_value(ds.cast(ds.constant([2 ** 31 + 5], ds.int64), ds.int32))
    assert wrapped.dtype == np.int32 and wrapped.tolist() == [-2 ** 31 + 5]
    assert ds.get_static_value(ds.cast(ds.constant([True, False]), ds.int64)).tolist() == [1, 0]
    assert ds.math.bincount(ds.constant([2.5, 1.0, 2.0])).shape.as_list() == [3]
    for value in ([np.nan], [3e9]):
        assert ds.get_static_value(ds.cast(ds.constant(value), ds.int32)) is None
    assert ds.get_static_value(ds.cast(ds.constant([1, 2]), ds.float32)) is None


def test_reverse_of_unknown_rank_counts_axes_from_one_end():
    x = ds.placeholder(ds.float32, None)
    value = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with ds.Session() as sess:
        for axes in ([-1], [-1, -3], [0], [0, 2]):
            np.testing.assert_array_equal(sess.run(ds.reverse(x, axes), {x: value}),
                                          np.flip(value, axes))
    with pytest.raises(ValueError, match="known rank to take axes"):
        ds.reverse(x, [0, -1])


def test_variable_lists_take_tf1s_scope_and_ops_give_their_node_def():
    with ds.variable_scope("encoder"):
        kept = ds.get_variable("w", [2])
    with ds.variable_scope("decoder"):
        ds.get_variable("w", [2])
        ds.get_local_variable("count", [], initializer=ds.zeros_initializer())
    assert ds.trainable_variables("encoder") == [kept]
    assert [v.op.name for v in ds.global_variables("dec")] == ["decoder/w"]
    assert [v.op.name for v in ds.local_variables(scope="decoder")] == ["decoder/count"]
    product = ds.matmul(ds.ones([1, 2]), ds.reshape(kept, [2, 1]), name="product")
    node = product.op.node_def
    assert (node.name, node.op, node.attr["transpose_a"].b) == ("product", "MatMul", False)
    assert list(node.input) == [t.op.name for t in product.op.inputs]


def test_unsupported_scope_options_name_themselves():
    with pytest.raises(NotImplementedError, match="caching_device"):
        with ds.variable_scope("p", caching_device="/cpu:0"):
            pass


# --- what devsession lacks ----------------------------------------------------------------

@pytest.mark.parametrize("access, symbol", [
    (lambda: ds.linalg.experimental, "tf.linalg.experimental"),
    (lambda: ds.nn.quantized_conv2d, "tf.nn.quantized_conv2d"),
    (lambda: ds.math.bessel_j0, "tf.math.bessel_j0"),
    (lambda: ds.layers.experimental, "tf.layers.experimental"),
    (lambda: ds.signal.fftnd, "tf.signal.fftnd"),
    (lambda: ds.contrib.layers, "tf.contrib.layers"),
    (lambda: ds.nn.quantized_conv2d, "tf.nn.quantized_conv2d"),
    (lambda: ds.train.sdca_optimizer, "tf.train.sdca_optimizer"),
])
def test_a_missing_tf1_symbol_is_named_as_not_supported_yet(access, symbol):
    with pytest.raises(UnsupportedTF1Error) as info:
        access()
    assert str(info.value).startswith(f"{symbol} is not supported by devsession yet")
    assert isinstance(info.value, AttributeError)


def test_probes_still_work():
    assert not hasattr(ds, "Estimator") and getattr(ds, "Estimator", 7) == 7
    assert not hasattr(ds, "__wrapped__")


def test_missing_variable_method_names_variable_not_tensor():
    v = ds.Variable(1.0)
    with pytest.raises(AttributeError, match="'Variable' object has no attribute "
                                             "'scatter_nd_update'"):
        v.scatter_nd_update  # noqa: B018


def test_unknown_reduction_keyword_names_the_public_function():
    with pytest.raises(TypeError, match=r"^reduce_sum\(\) got an unexpected keyword argument "
                                        r"'axes'"):
        ds.reduce_sum(ds.constant([1.0]), axes=0)


# --- the other bugs ----------------------------------------------------------------------------

def test_random_ops_take_tensors_for_shape_mean_stddev_and_bounds():
    ds.set_random_seed(3)
    shape = ds.placeholder(ds.int32, [2])
    mean, var = ds.constant(10.0), ds.constant(4.0)
    normal = ds.random_normal(shape, mean=mean, stddev=ds.sqrt(var))
    low = ds.placeholder(ds.float32, [])
    uniform = ds.random_uniform(shape, minval=low, maxval=low + 1.0)
    assert normal.shape.as_list() == [None, None]
    assert ds.random_normal(ds.constant([3, 4])).shape.as_list() == [3, 4]
    with ds.Session() as sess:
        n, u = sess.run([normal, uniform], {shape: [200, 50], low: -5.0})
    assert n.shape == (200, 50) and abs(n.mean() - 10.0) < 0.2 and abs(n.std() - 2.0) < 0.1
    assert u.min() >= -5.0 and u.max() < -4.0


def test_one_argument_where_returns_the_indices_of_true_elements():
    x = ds.constant([[1, 0], [0, 2]])
    idx = ds.where(ds.not_equal(x, 0))
    assert idx.dtype == ds.int64 and idx.shape.as_list() == [None, 2]
    with ds.Session() as sess:
        assert sess.run(idx).tolist() == [[0, 0], [1, 1]]
    with pytest.raises(ValueError, match="both x and y, or neither"):
        ds.where(x > 0, x)


def test_operators_name_nodes_as_tf1():
    x = ds.placeholder(ds.float32, [2], name="x")
    y = x * 2.0 + 1.0
    assert (y.name, y.op.type, y.op.inputs[1].name) == ("add:0", "AddV2", "add/y:0")
    assert (2.0 - x).op.inputs[0].name == "sub/x:0"
    b = x > 0.0
    assert [(b & b).op.type, (b | b).op.type, (~b).op.type] == [
        "LogicalAnd", "LogicalOr", "LogicalNot"]
    assert (x // 2.0).op.type == "FloorDiv" and (x % 2.0).op.type == "FloorMod"
    i = ds.constant([7, -7])
    assert ds.div(i, 2).op.type == "FloorDiv" and ds.div(x, 2.0).op.type == "RealDiv"
