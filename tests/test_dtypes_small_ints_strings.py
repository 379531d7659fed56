"""int8/int16/uint8/uint16 and string tensors: TF's enums and names, arithmetic that wraps
as TF's, and strings as TF1 holds them (object arrays of bytes; a 0-d one fetched as
``bytes``) through constants, placeholders, identity, equality, GraphDefs and fetches."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import UnimplementedError


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def test_enums_and_names_are_tensorflows():
    assert [(d.name, d.enum) for d in (ds.uint8, ds.int16, ds.int8, ds.string, ds.uint16)] == [
        ("uint8", 4), ("int16", 5), ("int8", 6), ("string", 7), ("uint16", 17)]
    assert ds.as_dtype(7) is ds.string and ds.as_dtype("string") is ds.string
    assert ds.as_dtype(bytes) is ds.string and ds.as_dtype(np.dtype("S3")) is ds.string
    assert ds.as_dtype(np.int8) is ds.int8 and ds.int8 == np.int8
    assert ds.float32.base_dtype is ds.float32 and ds.uint8.max == 255 and ds.int8.min == -128


def test_tf1s_other_names_of_the_float_types():
    assert (ds.half, ds.double) == (ds.float16, ds.float64)
    assert ds.dtypes.half is ds.float16 and ds.dtypes.double is ds.float64
    x = ds.placeholder(ds.double, [2])
    assert x.dtype is ds.float64 and ds.cast(x, ds.half).dtype is ds.float16


def test_small_integer_arithmetic_wraps_and_keeps_its_dtype():
    i8 = ds.constant([100, -100], dtype=ds.int8)
    u8 = ds.constant(np.array([0, 250], np.uint8))
    i16 = ds.constant([30000], dtype=ds.int16)
    u16 = ds.constant(np.array([1], np.uint16))
    r = run({"i8": i8 + i8, "u8": u8 + 10, "u8_sub": u8 - ds.constant(1, ds.uint8),
             "i16": i16 * 2, "u16": u16 - 2, "sum": ds.reduce_sum(i16 + i16),
             "max": ds.reduce_max(u8), "div": ds.floordiv(i8, ds.constant(-3, ds.int8))})
    assert r["i8"].dtype == np.int8 and r["i8"].tolist() == [-56, 56]
    assert r["u8"].tolist() == [10, 4] and r["u8_sub"].tolist() == [255, 249]
    assert r["i16"].dtype == np.int16 and r["i16"].tolist() == [-5536]
    assert r["u16"].tolist() == [65535] and r["sum"] == np.int16(-5536)
    assert r["max"] == np.uint8(250) and r["div"].tolist() == [-34, 33]


def test_python_values_take_the_small_types_dtype_or_fail_to_fit():
    with pytest.raises(TypeError, match="does not fit in int8"):
        ds.constant([300], dtype=ds.int8)
    assert (ds.constant([1], dtype=ds.uint8) * 3).dtype == ds.uint8


def test_string_constants_placeholders_identity_and_fetches():
    hello = ds.constant("héllo")
    words = ds.constant([b"a", "b", ""])
    fed = ds.placeholder(ds.string, [None], name="fed")
    assert (hello.dtype, hello.shape.as_list(), words.shape.as_list()) == (ds.string, [], [3])
    h, w, f = run([hello, ds.identity(words), ds.identity(fed)], {fed: ["x", b"y"]})
    assert h == "héllo".encode() and type(h) is bytes
    assert w.dtype == object and w.tolist() == [b"a", b"b", b""]
    assert f.tolist() == [b"x", b"y"]


def test_string_equality_with_broadcasting_and_select():
    words = ds.constant(["tensor", "flow"])
    word = ds.placeholder(ds.string, [])
    eq, ne = run([ds.equal(words, word), ds.not_equal(words, word)], {word: "flow"})
    assert eq.tolist() == [False, True] and ne.tolist() == [True, False]
    picked = ds.where(ds.constant([True, False]), words, ds.constant(["-", "-"]))
    assert run(picked).tolist() == [b"tensor", b"-"]


def test_strings_refuse_arithmetic_ordering_and_casts():
    s = ds.constant(["a"])
    with pytest.raises(TypeError, match="does not take string inputs"):
        ds.add(s, s)
    with pytest.raises(TypeError, match="cannot order string"):
        ds.less(s, s)
    with pytest.raises(TypeError, match="strings and numbers do not convert"):
        ds.cast(s, ds.int32)
    with pytest.raises(TypeError, match="holds strings"):
        ds.constant("a", dtype=ds.float32)
    with pytest.raises(ValueError, match="non-string value"):
        run(ds.identity(ds.placeholder(ds.string, [])), {"Placeholder:0": 3})


def test_strings_round_trip_through_graph_defs():
    ds.constant(["ü", b"\x00\xff"], name="s")
    graph = ds.Graph()
    ds.import_graph_def(ds.get_default_graph().as_graph_def(), graph=graph)
    value = graph.get_operation_by_name("s").attrs["value"]
    assert value.dtype == object and value.tolist() == ["ü".encode(), b"\x00\xff"]


def test_string_ops_stay_off_the_fused_kernels():
    a, b = ds.constant(["x", "y"]), ds.placeholder(ds.string, [2])
    chain = ds.logical_not(ds.equal(a, b))          # string Equal feeding a bool op
    assert run(chain, {b: ["x", "z"]}).tolist() == [False, True]


def test_strings_cross_processes_packed():
    from devsession.distributed.transport.wire import tensor_specs

    (spec,) = tensor_specs(["s"], [np.array([b"a", b"bc"], dtype=object)])
    assert (spec.dtype, list(spec.shape), spec.string_bytes) == (ds.string.enum, [2], 19)
    with pytest.raises(UnimplementedError, match="string tensor 's' of numpy dtype"):
        tensor_specs(["s"], [np.array([b"a"])])          # fixed-width bytes: not a tensor


def test_an_element_of_a_string_constant_is_known_when_built():
    from devsession.graph import constant_value

    first = ds.constant(["a b", "c"])[0]
    value = constant_value(first)
    assert (value.shape, value.dtype, value.item()) == ((), object, b"a b")
    with ds.Session() as sess:
        assert sess.run(first) == b"a b"


def test_a_dtype_prints_as_tf_and_reprs_as_devsession():
    import devsession as ds

    assert (str(ds.int64), str(ds.float32)) == ("<dtype: 'int64'>", "<dtype: 'float32'>")
    assert repr(ds.string) == "ds.string"
