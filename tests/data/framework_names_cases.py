"""Programs over TF1's small top-level names (saturate_cast, to_complex64/128,
guarantee_const, timestamp, grad_pass_through, recompute_grad, py_function,
vectorized_map, register_tensor_conversion_function, is_symbolic_tensor, no_regularizer,
op_scope, variable_op_scope), written once against a TF1 module: ``tensorflow.compat.v1``
for the recorder (make_framework_names.py), ``devsession`` for
tests/test_framework_names.py.  Each builds in a new graph and runs in a new session."""

from __future__ import annotations

import re
import time

import numpy as np

from partial_run_cases import _plain


def outcome(call):
    try:
        value = call()
    except Exception as e:     # noqa: BLE001 - the class and message are the outcome
        return ["error", type(e).__name__, re.sub(r" at 0x[0-9a-f]+", "", str(e))]
    return _plain(value)


def saturate_and_complex_casts(tf, sess):
    floats = tf.constant([300.0, -5.0, 1e10, np.nan, 254.6])
    built = [tf.saturate_cast(floats, tf.uint8),
             tf.saturate_cast(tf.constant([300, -5, 70000]), tf.int16),
             tf.saturate_cast(tf.constant([1.5 + 2j, -1e40 + 3j], tf.complex128), tf.float32),
             tf.saturate_cast(tf.constant([1e40 - 1e40j], tf.complex128), tf.complex64),
             tf.saturate_cast(tf.constant([1e300, -3.5], tf.float64), tf.complex64),
             tf.saturate_cast([-1.5, 7.0], tf.int8), tf.saturate_cast(tf.zeros([0]), tf.uint16),
             tf.to_complex64(tf.constant([1.5, -2.0])),
             tf.to_complex128(tf.constant([3], tf.int32))]
    values = sess.run(built)
    return [[v.real.tolist(), v.imag.tolist(), t.dtype.name] if t.dtype.is_complex
            else [v.tolist(), t.dtype.name] for v, t in zip(values, built)] + [
        [t.name for t in built[-2:]],
        outcome(lambda: tf.saturate_cast(tf.constant(["a"]), tf.int32))]


def guarantee_const_and_timestamp(tf, sess):
    x = tf.constant([[1.5, -2.0]])
    kept = tf.guarantee_const(x, name="kept")
    empty = tf.guarantee_const(tf.zeros([0, 2], tf.int32))
    stamp = tf.timestamp()
    first = sess.run(stamp)
    second = sess.run(stamp)
    return [[kept.op.type, kept.dtype.name, kept.shape.as_list(), kept.name],
            _plain(sess.run(kept)), [empty.dtype.name, sess.run(empty).shape],
            [stamp.op.type, stamp.dtype.name, stamp.shape.as_list()],
            bool(abs(first - time.time()) < 600 and second >= first)]


def gradient_wrappers(tf, sess):
    w = tf.Variable([1.0, 2.0], name="w")
    rounded = tf.grad_pass_through(lambda t: tf.round(t))(w * 1.7)
    block = tf.recompute_grad(lambda t: tf.sin(t) * 3.0)(w)
    sess.run(w.initializer)
    return _plain(sess.run([rounded, tf.gradients(rounded, w)[0], block,
                            tf.gradients(block, w)[0]]))


def py_function_and_vectorized_map(tf, sess):
    x = tf.constant([1.5, -2.0])
    product = tf.py_function(lambda a, b: a * b, [x, tf.constant(2.0)], tf.float32)
    pair = tf.py_function(lambda a: [a, a.numpy() + 1], [x], [tf.float32, tf.float32])
    scalar = tf.py_function(lambda a: 2.5, [x], tf.float32)
    rows = tf.vectorized_map(lambda r: r * 2 + tf.reduce_sum(r),
                             tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    parts = tf.vectorized_map(lambda r: (r[0], r[1] * 2),
                              (tf.constant([1, 2]), tf.constant([3.0, 4.0])))
    one = tf.vectorized_map(lambda r: r + 1, tf.constant([[7]]))
    return [product.shape.ndims, _plain(sess.run([product, pair, scalar, rows, parts, one])),
            rows.shape.as_list()]


class Pair:
    """A user type that converts to a tensor."""

    def __init__(self, value):
        self.value = value


class ConvertsBadly:
    pass


class ConvertsToInt:
    pass


class Declines:
    pass


def tensor_conversion(tf, sess):
    tf.register_tensor_conversion_function(
        Pair, lambda v, dtype=None, name=None, as_ref=False: tf.constant(v.value, dtype=dtype,
                                                                           name=name))
    tf.register_tensor_conversion_function(
        ConvertsBadly, lambda v, dtype=None, name=None, as_ref=False: 5)
    tf.register_tensor_conversion_function(
        ConvertsToInt, lambda v, dtype=None, name=None, as_ref=False: tf.constant(1))
    tf.register_tensor_conversion_function(
        Declines, lambda v, dtype=None, name=None, as_ref=False: NotImplemented)
    total = tf.add(Pair(3.0), 1.0)
    converted = tf.convert_to_tensor(Pair([1, 2]))
    return [_plain(sess.run([total, converted])), converted.dtype.name,
            outcome(lambda: tf.convert_to_tensor(ConvertsBadly())),
            outcome(lambda: tf.convert_to_tensor(ConvertsToInt(), dtype=tf.float32)),
            outcome(lambda: tf.convert_to_tensor(Declines()))[:2],
            outcome(lambda: tf.register_tensor_conversion_function(
                int, lambda v, dtype=None, name=None, as_ref=False: None)),
            outcome(lambda: tf.register_tensor_conversion_function(np.ndarray, lambda v: None)),
            outcome(lambda: tf.register_tensor_conversion_function("x", lambda v: None)),
            [tf.is_symbolic_tensor(total), tf.is_symbolic_tensor(np.ones(2)),
             tf.is_symbolic_tensor(tf.Variable(1.0)), tf.is_symbolic_tensor(3.0)]]


def scopes(tf, sess):
    x = tf.constant([1.0])
    with tf.variable_op_scope([x], "outer", "default"):
        named = tf.get_variable("v", [1]).name
    with tf.variable_op_scope([x], None, "dflt"):
        defaulted = tf.get_variable("q", [1]).name
    with tf.op_scope([x], "ops", "d") as scope:
        inside = tf.identity(x).name
    with tf.op_scope([x], None, "fallback") as fallback:
        pass
    with tf.variable_scope("reg", regularizer=lambda t: tf.reduce_sum(t)):
        with tf.variable_scope("off", regularizer=tf.no_regularizer):
            tf.get_variable("r", [1])
        tf.get_variable("s", [1])
    losses = [t.op.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)]
    return [named, defaulted, scope, inside, fallback, tf.no_regularizer(x), losses]


def _spec(spec):
    shape = spec.shape.as_list() if spec.shape.ndims is not None else None
    return [type(spec).__name__, shape, spec.dtype.name, getattr(spec, "name", "-")]


def type_specs(tf, sess):
    x = tf.constant([1.0, 2.0], name="xc")
    s = tf.TensorSpec([2, None], tf.float32, name="s")
    sparse = tf.SparseTensor([[0, 1]], [1.0], [2, 3])
    specs = [s, tf.TensorSpec.from_tensor(x), tf.TensorSpec.from_tensor(x, name="n"),
             tf.TensorSpec.from_spec(s, name="t"), tf.TensorSpec(None), tf.TensorSpec([]),
             tf.TensorSpec([1], "float64"), tf.type_spec_from_value(x),
             tf.type_spec_from_value(np.ones(2)), tf.type_spec_from_value([1, 2]),
             tf.type_spec_from_value(3.0), tf.type_spec_from_value("ab"),
             tf.type_spec_from_value(sparse), tf.SparseTensorSpec([2, None], tf.int64),
             tf.SparseTensorSpec.from_value(sparse)]
    return [[_spec(spec) for spec in specs],
            [s.is_compatible_with(tf.TensorSpec([2, 3], tf.float32)),
             s.is_compatible_with(tf.TensorSpec([3, 3], tf.float32)),
             s.is_compatible_with(tf.TensorSpec([2, 3], tf.int32)),
             s.is_compatible_with(tf.zeros([2, 5])),
             s.is_compatible_with(np.zeros([2, 5], np.float32)),
             tf.TensorSpec([2], tf.int32) == tf.TensorSpec([2], tf.int32),
             tf.TensorSpec([2], tf.int32) == tf.TensorSpec([2], tf.int32, name="a"),
             hash(tf.TensorSpec([2], tf.int32)) == hash(tf.TensorSpec([2], tf.int32)),
             isinstance(s, tf.TypeSpec), isinstance(specs[-1], tf.TypeSpec),
             s.value_type is tf.Tensor, specs[-1].value_type is tf.SparseTensor],
            _spec(tf.TensorSpec([2, None]).most_specific_compatible_type(
                tf.TensorSpec([3, 1], tf.float32))),
            *[outcome(lambda: s.most_specific_compatible_type(other))[:2] + [
                "No TypeSpec is compatible with both"]     # the reprs name TF's dtypes
              for other in (tf.TensorSpec([3, 1], tf.float32), tf.TensorSpec([2, 1], tf.int32))],
            outcome(lambda: tf.type_spec_from_value(object()))[:2]]


def variable_creators(tf, sess):
    calls = []

    def frozen(next_creator, **kwargs):
        calls.append(["frozen", kwargs["initial_value"] if isinstance(
            kwargs["initial_value"], float) else "?", kwargs["trainable"]])
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    def doubled(next_creator, **kwargs):
        calls.append(["doubled", kwargs["name"]])
        kwargs["initial_value"] = kwargs["initial_value"] * 2
        kwargs["caching_device"] = None          # TF's keyword, no effect
        return next_creator(**kwargs)

    def replaced(next_creator, **kwargs):
        return "not a variable"

    with tf.variable_creator_scope(frozen):
        with tf.variable_creator_scope(doubled):
            inner = tf.Variable(1.5, name="inner")
        outer = tf.get_variable("outer", [1], initializer=tf.ones_initializer())
    plain = tf.Variable(3.0, name="plain")
    with tf.variable_creator_scope(replaced):
        other = tf.Variable(1.0)
    sess.run(tf.global_variables_initializer())
    trainable = tf.trainable_variables()
    return [calls, [inner in trainable, outer in trainable, plain in trainable],
            _plain(sess.run([inner, outer, plain])), inner.name, other]


CASES = {f.__name__: f for f in (saturate_and_complex_casts, guarantee_const_and_timestamp,
                                  gradient_wrappers, py_function_and_vectorized_map,
                                  tensor_conversion, scopes, type_specs, variable_creators)}
