"""TF1's string ops (``ops/strings.py``, ``ops/string_regex.py``, ``ops/decode_csv.py``;
kernels in ``kernels/reference/``): values against Python references written here,
TF's broadcasting and shapes (sizes 0 and 1 too), TF's error classes, the ``tf.strings``
namespace, and TF1's CSV input pipelines end to end (``TextLineDataset`` + ``decode_csv``
+ ``batch``, and ``TextLineReader`` + ``tf.train.batch``).  What TensorFlow itself gave
for the same ops is checked in test_string_ops_recorded.py."""

from __future__ import annotations

import base64
import contextlib

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError, OutOfRangeError, UnimplementedError
from devsession.unsupported import UnsupportedTF1Error

STRING_OPS = {"DecodeCSV", "StringSplit", "StringSplitV2", "StringToNumber", "AsString",
              "StringJoin", "StringLength", "Substr", "StringStrip", "StringLower", "StringUpper",
              "StringToHashBucketFast", "StringToHashBucketStrong", "ReduceJoin", "EncodeBase64",
              "DecodeBase64", "RegexReplace", "StaticRegexReplace", "RegexFullMatch",
              "StaticRegexFullMatch"}


def strings(*values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = [v.encode() if isinstance(v, str) else v for v in values]
    return out


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


# --- numbers from and to text ----------------------------------------------------------------

def test_string_to_number_reads_each_type(graph):
    text = ds.placeholder(ds.string, [None])
    f32, f64 = ds.string_to_number(text), ds.strings.to_number(text, ds.float64)
    i32, i64 = ds.strings.to_number(text, out_type=ds.int32), ds.string_to_number(text, ds.int64)
    assert f32.op.type == "StringToNumber" and f32.dtype == ds.float32
    assert (f64.dtype, i32.dtype, i64.dtype) == (ds.float64, ds.int32, ds.int64)
    feed = {text: strings(" 12", "-7 ", "+0")}
    got = run([f32, f64, i32, i64], feed)
    for value, dtype in zip(got, (np.float32, np.float64, np.int32, np.int64)):
        assert value.dtype == dtype
        np.testing.assert_array_equal(value, [12, -7, 0])
    floats = run(f64, {text: strings("1e3", ".5", "0x1p3", "-inf", "nan")})
    np.testing.assert_array_equal(floats[:4], [1000.0, 0.5, 8.0, -np.inf])
    assert np.isnan(floats[4])
    # float32 is rounded once from the decimal: the double 1+2**-24 is a float32 midpoint
    assert run(f32, {text: strings("1.00000005960464477539062500000001")})[0] == \
        np.nextafter(np.float32(1), np.float32(2))
    assert run(f32, {text: strings("1e39")})[0] == np.inf        # past float32: inf
    assert run(i32, {text: strings("-2147483648")})[0] == -2 ** 31
    for size in (0, 1):
        assert run(i64, {text: strings(*["5"] * size)}).shape == (size,)


def test_string_to_number_reads_long_texts_as_tf_at_the_cost_of_their_length(graph):
    # A fed string is untrusted: thousands of digits or an exponent of a billion must
    # neither trip Python's int-digit limit nor build 10**999999999 (TF 2.21's values)
    text = ds.placeholder(ds.string, [None])
    floats = strings("1" * 5000, "1e999999999", "-0x1p99999999999", "0." + "0" * 5000 + "1",
                     "1" * 5000 + "e-4990", "0x1p-" + "9" * 5000)
    for dtype in (ds.float32, ds.float64):
        got = run(ds.strings.to_number(text, dtype), {text: floats})
        want = np.array([np.inf, np.inf, -np.inf, 0, 1111111111.1111112, 0], dtype.np)
        np.testing.assert_array_equal(got, want)
    ints = strings("0" * 5000 + "7", "-" + "0" * 5000 + "7")
    for dtype in (ds.int32, ds.int64):
        assert list(run(ds.strings.to_number(text, dtype), {text: ints})) == [7, -7]
        with pytest.raises(InvalidArgumentError, match="correctly convert string: 1{30}$"):
            run(ds.strings.to_number(text, dtype), {text: strings("1" * 30)})
    line = ds.placeholder(ds.string, [None])
    wide, small = ds.decode_csv(line, [[0.0], [0]])
    got = run([wide, small], {line: strings("1" * 5000 + "," + "0" * 5000 + "7")})
    assert [got[0].tolist(), got[1].tolist()] == [[np.inf], [7]]
    with pytest.raises(InvalidArgumentError, match="Field 0 in record 0 is not a valid int32"):
        run(ds.decode_csv(line, [[0]]), {line: strings("1" * 5000)})


@pytest.mark.parametrize("text, out_type", [("1.5", ds.int32), ("2147483648", ds.int32),
                                            ("1e", ds.float32), ("", ds.float64),
                                            ("0x10", ds.int64), ("1,5", ds.float32)])
def test_string_to_number_rejects_what_tf_rejects(graph, text, out_type):
    number = ds.strings.to_number(ds.constant([text]), out_type, name="parse")
    with pytest.raises(InvalidArgumentError,
                       match=f"StringToNumberOp could not correctly convert string: {text}$") \
            as info:
        run(number)
    assert info.value.node_name == "parse"


def test_string_to_number_out_type_is_checked_when_built(graph):
    with pytest.raises(TypeError, match="'out_type' of int8 is not in the list"):
        ds.strings.to_number(["1"], ds.int8)


def test_as_string_is_printf(graph):
    x = ds.constant([1.5, -2.25, 0.1], ds.float64)
    cases = {(): ["%f", "%f", "%f"], (("precision", 2), ("width", 7)): "%7.2f",
             (("scientific", True), ("precision", 3)): "%.3e", (("shortest", True),): "%g",
             (("width", 9), ("fill", "-")): "%-9f", (("width", 9), ("fill", "0")): "%09f",
             (("width", 9), ("fill", "+")): "%+9f"}
    for attrs, spec in cases.items():
        spec = spec if isinstance(spec, list) else [spec] * 3
        got = run(ds.as_string(x, **dict(attrs)))
        assert list(got) == [(s % v).encode() for s, v in zip(spec, [1.5, -2.25, 0.1])], attrs
    i = ds.constant([5, -42], ds.int64)
    assert list(run(ds.strings.as_string(i, width=4, fill="0"))) == [b"0005", b"-042"]
    assert list(run(ds.as_string(ds.constant([True, False])))) == [b"true", b"false"]
    # C's printf pads infinities and NaNs with spaces even under "0", and prints -nan
    special = ds.constant([np.inf, -np.nan], ds.float32)
    assert list(run(ds.as_string(special, width=6, fill="0"))) == [b"   inf", b"  -nan"]
    assert run(ds.as_string(ds.constant(3.0))) == b"3.000000"        # a scalar
    assert run(ds.as_string(ds.zeros([0, 2]))).shape == (0, 2)


@pytest.mark.parametrize("value, attrs, message", [
    (1, {"precision": 2}, "precision not supported for datatype int32"),
    (True, {"scientific": True}, "scientific and shortest format not supported for "
                                 "datatype bool"),
    (1.0, {"scientific": True, "shortest": True},
     "Cannot select both scientific and shortest notation"),
    (1.0, {"fill": "ab"}, "Fill string must be one or fewer characters"),
    (1.0, {"fill": "x", "width": 3}, 'Fill argument not supported: "x"')])
def test_as_string_attr_errors_at_run_time(graph, value, attrs, message):
    text = ds.as_string(ds.constant(value), **attrs)
    with pytest.raises(InvalidArgumentError, match=message):
        run(text)


# --- joining, lengths, pieces ----------------------------------------------------------------

def test_string_join_takes_scalars_with_any_shape(graph):
    first = ds.placeholder(ds.string, [None])
    joined = ds.string_join([first, "-", ds.constant(["x", "y"])], separator="|")
    assert joined.op.type == "StringJoin" and joined.shape == (2,)
    assert joined.op.get_attr("N") == 3
    assert list(run(joined, {first: strings("a", "b")})) == [b"a|-|x", b"b|-|y"]
    assert ds.strings.join(["a", "b"]).shape == ()
    assert run(ds.strings.join(["a", "b"], separator=", ")) == b"a, b"
    assert run(ds.strings.join([ds.constant([], ds.string), "z"])).shape == (0,)


def test_string_join_shapes_must_agree(graph):
    with pytest.raises(ValueError, match="StringJoin"):
        ds.strings.join([ds.constant(["a", "b"]), ds.constant(["a", "b", "c"])])
    with pytest.raises(ValueError, match="rank"):
        ds.strings.join([ds.placeholder(ds.string, [None, 2]), ds.constant(["c", "d"])])
    a, b = ds.placeholder(ds.string), ds.placeholder(ds.string)
    with pytest.raises(InvalidArgumentError, match=r"Input shapes do not match: \[2\] vs. \[3\]"):
        run(ds.strings.join([a, b]), {a: strings("a", "b"), b: strings("a", "b", "c")})


def test_length_counts_bytes_or_utf8_characters(graph):
    words = ["", "abc", "héllo", "日本語"]
    text = ds.constant(strings(*words))
    lengths = ds.strings.length(text)
    chars = ds.strings.length(text, unit="UTF8_CHAR")
    assert lengths.dtype == ds.int32
    got_bytes, got_chars = run([lengths, chars])
    assert list(got_bytes) == [len(w.encode()) for w in words]
    assert list(got_chars) == [len(w) for w in words]
    # TF counts lead bytes, so bytes that are not UTF-8 count too
    assert list(run(ds.strings.length([b"\xff\xfe", b"a\x80"], unit="UTF8_CHAR"))) == [2, 1]
    with pytest.raises(ValueError, match="Attr 'unit' of 'StringLength' Op passed string "
                                         "'CHAR'"):
        ds.strings.length(text, unit="CHAR")


def substr_reference(s: bytes, pos: int, length: int) -> bytes:
    pos = pos + len(s) if pos < 0 else pos
    return s[pos:] if length < 0 else s[pos:pos + length]


def test_substr_in_bytes_and_characters(graph):
    words = strings("hello", "world", "ab")
    text = ds.constant(words)
    for pos, length in ((1, 3), (-2, 5), (0, 0), (2, 9), (1, -1)):
        got = run(ds.substr(text, pos, length))
        assert list(got) == [substr_reference(w, pos, length) for w in words], (pos, length)
    per_string = ds.strings.substr(text, [0, 1, 2], [1, 2, 3])
    assert list(run(per_string)) == [b"h", b"or", b""]
    chars = ds.strings.substr(["héllo", "日本語"], 1, 2, unit="UTF8_CHAR")
    assert [v.decode() for v in run(chars)] == ["él", "本語"]
    wide = ds.substr(ds.constant(["abcdef"]), ds.constant(1, ds.int64), 2)
    assert wide.op.inputs[2].dtype == ds.int64 and list(run(wide)) == [b"bc"]


def test_substr_broadcasts_in_two_dimensions(graph):
    got = run(ds.substr([["abc"], ["defg"]], [[0, 1, 2]], [[1, 1, 2]]))
    assert got.tolist() == [[b"a", b"b", b"c"], [b"d", b"e", b"fg"]]
    assert ds.substr([["abc"], ["defg"]], [[0, 1, 2]], [[1, 1, 2]]).shape == (2, 3)
    cube = ds.fill([2, 1, 2], "abcd")
    with pytest.raises(UnimplementedError, match="Substr broadcast not implemented for 3 "
                                                 "dimensions"):
        run(ds.substr(cube, ds.zeros([2, 2, 1], ds.int32), ds.ones([2, 2, 1], ds.int32)))
    with pytest.raises(ValueError, match="pos and len shapes must match"):
        ds.substr(["abc", "de"], [0, 1], [1])
    with pytest.raises(ValueError, match="incompatible shapes"):
        ds.substr(["abc", "de"], [0, 1, 2], [1, 1, 1])


def test_substr_position_out_of_range(graph):
    with pytest.raises(InvalidArgumentError, match=r"pos 4 out of range for string b'abc' at "
                                                   r"index 0") as info:
        run(ds.substr(["abc"], 4, 1, name="cut"))
    assert info.value.node_name == "cut"
    with pytest.raises(InvalidArgumentError, match="pos -6 out of range for string at index 1"):
        run(ds.strings.substr(["héllo", "héllo"], [0, -6], [1, 1], unit="UTF8_CHAR"))
    assert run(ds.substr(["abc"], 3, 1))[0] == b""            # the end itself is in range


def test_strip_lower_upper(graph):
    words = [" a b \t\n\v\f\r", "", "MiXeD", "ÉCOLE ß"]
    text = ds.constant(strings(*words))
    stripped, lower, upper = run([ds.strings.strip(text), ds.strings.lower(text),
                                  ds.strings.upper(text)])
    assert list(stripped) == [w.encode().strip(b" \t\n\v\f\r") for w in words]
    assert list(lower) == [w.encode().lower() for w in words]    # ASCII only
    assert list(upper) == [w.encode().upper() for w in words]
    unicode_lower, unicode_upper = run([ds.strings.lower(text, encoding="utf-8"),
                                        ds.strings.upper(text, encoding="utf-8")])
    assert unicode_lower[3].decode() == "école ß" and unicode_upper[3].decode() == "ÉCOLE SS"
    assert ds.string_strip(text).op.type == "StringStrip"
    with pytest.raises(InvalidArgumentError, match="only utf-8 or '' \\(no encoding\\) is "
                                                   "supported, received latin1"):
        run(ds.strings.lower(text, encoding="latin1"))


# --- regexes ---------------------------------------------------------------------------------

def test_regex_replace_static_and_fed(graph):
    words = ds.constant(strings("hello world", "tf.data", ""))
    static = ds.strings.regex_replace(words, r"(\w+)", r"<\1>")
    assert static.op.type == "StaticRegexReplace"
    assert static.op.attrs["pattern"] == r"(\w+)"
    assert list(run(static)) == [b"<hello> <world>", b"<tf>.<data>", b""]
    pattern, rewrite = ds.placeholder(ds.string, []), ds.placeholder(ds.string, [])
    fed = ds.regex_replace(words, pattern, rewrite, replace_global=False)
    assert fed.op.type == "RegexReplace"
    assert list(run(fed, {pattern: b"o", rewrite: b"0"})) == [b"hell0 world", b"tf.data", b""]
    with pytest.raises(ValueError, match="rank 0"):
        ds.strings.regex_replace(words, ds.constant(["o"]), "0")


def test_regex_replace_follows_re2_not_python(graph):
    text = ds.constant(strings("baaac", "a\nb\n", "word swords"))
    cases = {
        ("a*", "-"): [b"-b-c-", b"-\n-b-\n-", b"-w-o-r-d- -s-w-o-r-d-s-"],  # no empty match
        ("$", "X"): [b"baaacX", b"a\nb\nX", b"word swordsX"],  # the end of text only
        (r"\bword\b", "W"): [b"baaac", b"a\nb\n", b"W swords"],
        ("(a)", r"\1\1\\"): [b"b" + b"aa\\" * 3 + b"c", b"aa\\\nb\n", b"word swords"],
        ("(a)", r"\2"): [b"baaac", b"a\nb\n", b"word swords"],  # no group 2: unchanged
    }
    for (pattern, rewrite), want in cases.items():
        assert list(run(ds.strings.regex_replace(text, pattern, rewrite))) == want, pattern


@pytest.mark.parametrize("pattern, error, message", [
    ("(?=a)", InvalidArgumentError, r"invalid perl operator: \(\?="),
    ("(?-)a", InvalidArgumentError, r"invalid perl operator: \(\?-\)"),
    (r"(a)\1", InvalidArgumentError, r"invalid escape sequence: \\1"),
    (r"[\1]", InvalidArgumentError, r"invalid escape sequence: \\1"),
    ("(a", InvalidArgumentError, r"missing \): \(a"),
    (r"\pL", UnimplementedError, "Unicode classes"),
    ("(?U)a*", UnimplementedError, "ungreedy"),
    # RE2's repetition limits (TF 2.21's messages): a count over 1000, counts whose
    # nesting multiplies past 1000 (the outer one named), or a range that runs backwards
    ("a{1001}", InvalidArgumentError, r"invalid repetition size: \{1001\}"),
    ("(x|(a{10}){20}){6}", InvalidArgumentError, r"invalid repetition size: \{6\}"),
    ("a{3,2}", InvalidArgumentError, r"invalid repetition size: \{3,2\}")])
def test_regex_patterns_re2_rejects_or_we_cannot_run(graph, pattern, error, message):
    for op in (ds.strings.regex_replace(["a"], pattern, "x", name="replace"),
               ds.strings.regex_full_match(["a"], pattern, name="match")):
        with pytest.raises(error, match=f"Invalid pattern: .*, error: .*{message}") as info:
            run(op)
        assert info.value.node_name == op.op.name


def test_regex_full_match(graph):
    text = ds.constant(strings("abc", "ab", "abcd", "", "a\n"))
    static = ds.strings.regex_full_match(text, "a.c|ab")
    assert static.op.type == "StaticRegexFullMatch" and static.dtype == ds.bool
    assert list(run(static)) == [True, True, False, False, False]
    pattern = ds.placeholder(ds.string, [])
    fed = ds.strings.regex_full_match(text, pattern)
    assert fed.op.type == "RegexFullMatch"
    assert list(run(fed, {pattern: b"a$"})) == [False] * 5      # $ is not before a newline
    assert list(run(fed, {pattern: b"[[:alpha:]]*"})) == [True, True, True, True, False]
    thousand = ds.constant(strings("a" * 1000, "a" * 999))
    assert list(run(ds.strings.regex_full_match(thousand, "(a{10}){10}(?:a{10}){90}|b{1000}"))) \
        == [True, False]                           # 1000 at most in any nesting: allowed
    assert run(ds.strings.regex_full_match("a{05}", "a{05}"))   # leading 0: RE2's literal
    # RE2's escapes re spells otherwise: \x{..} in a class, octal \12 (re: a group)
    escapes = ds.constant(strings("Q", "\n", "A4", "q"))
    assert list(run(ds.strings.regex_full_match(escapes, r"[\x{41}-\x{5A}]|\12|\1014"))) == \
        [True, True, True, False]


# --- hashing, joining along axes, base64 -----------------------------------------------------

def test_hash_buckets_are_in_range_and_stable(graph):
    words = strings(*[f"word{k}" for k in range(50)])
    buckets = ds.string_to_hash_bucket_fast(words, 7)
    assert buckets.dtype == ds.int64 and buckets.op.get_attr("num_buckets") == 7
    got = run(buckets)
    assert got.min() >= 0 and got.max() < 7 and len(set(got.tolist())) == 7
    np.testing.assert_array_equal(run(ds.strings.to_hash_bucket_fast(words, 7)), got)
    # TF's buckets (Fingerprint64 mod n) for a few strings (recorded with TF 2.21)
    assert list(run(ds.strings.to_hash_bucket_fast(["", "a", "hello"], 1000))) == \
        [263, 939, 296]
    with pytest.raises(ValueError, match="'num_buckets' of 'StringToHashBucketFast' Op "
                                         "passed 0 less than minimum 1"):
        ds.strings.to_hash_bucket_fast(words, 0)


def reduce_join_reference(grid: np.ndarray, axes, keepdims, separator: bytes):
    """Join over ``axes`` with the first listed varying fastest."""
    axes = [a % grid.ndim for a in axes]
    kept = [d for d in range(grid.ndim) if d not in axes]
    moved = np.transpose(grid, kept + axes[::-1])
    rows = moved.reshape([grid.shape[d] for d in kept] + [-1])
    out = np.empty(rows.shape[:-1], dtype=object)
    for index in np.ndindex(out.shape):
        out[index] = separator.join(rows[index])
    if keepdims:
        out = out.reshape([1 if d in axes else grid.shape[d] for d in range(grid.ndim)])
    return out


def test_reduce_join(graph):
    grid = np.array([str(k).encode() for k in range(24)], dtype=object).reshape(2, 3, 4)
    for axis, keep, separator in ((None, False, ""), (0, False, ","), (-1, True, "."),
                                  ([2, 0], False, ","), ([0, 2], True, "/"),
                                  ([], False, "")):
        joined = ds.strings.reduce_join(grid, axis=axis, keepdims=keep, separator=separator)
        axes = [2, 1, 0] if axis is None else [axis] if isinstance(axis, int) else axis
        want = reduce_join_reference(grid, axes, keep, separator.encode())
        got = np.asarray(run(joined), dtype=object)
        assert joined.shape == want.shape and got.shape == want.shape, axis
        assert got.tolist() == want.tolist(), axis
    assert run(ds.reduce_join([["a", "b"], ["c", "d"]], keep_dims=True)).tolist() == [[b"abcd"]]
    assert list(run(ds.reduce_join(ds.fill([2, 0], "x"), 1, separator=","))) == [b"", b""]
    assert run(ds.reduce_join("abc")) == b"abc"
    with pytest.raises(ValueError, match="Invalid reduction dimension 2"):
        ds.reduce_join([["a"]], axis=2)
    axes = ds.placeholder(ds.int32, [None])
    fed = ds.reduce_join(ds.constant([["a", "b"]]), axes, keep_dims=True)
    assert fed.shape == (None, None)
    with pytest.raises(InvalidArgumentError, match="Duplicate reduction dimension -2"):
        run(fed, {axes: [0, -2]})
    with pytest.raises(OutOfRangeError, match="Invalid reduction dimension 5 for input with "
                                              "2 dimension"):
        run(fed, {axes: [5]})


def test_base64_is_web_safe(graph):
    raw = [b"", b"a", b"ab", b"abc", b"\xff\xfe\xfd>?"]
    data = ds.constant(strings(*raw))
    plain, padded = run([ds.io.encode_base64(data), ds.encode_base64(data, pad=True)])
    assert list(padded) == [base64.urlsafe_b64encode(r) for r in raw]
    assert list(plain) == [base64.urlsafe_b64encode(r).rstrip(b"=") for r in raw]
    coded = ds.placeholder(ds.string, [None])
    decoded = ds.io.decode_base64(coded)
    assert list(run(decoded, {coded: plain})) == raw
    assert list(run(decoded, {coded: padded})) == raw
    for bad, message in ((b"YQ=", "Invalid character found in base64."),
                         (b"a+b/", "Invalid character found in base64."),
                         (b"YWJjZ", "Base64 string length cannot be 1 modulo 4.")):
        with pytest.raises(InvalidArgumentError, match=message):
            run(decoded, {coded: strings(bad)})


# --- splitting into SparseTensors ------------------------------------------------------------

def sparse_rows(value) -> list:
    """A split's SparseTensorValue as its rows of tokens (checking the layout)."""
    rows = [[] for _ in range(value.dense_shape[0])]
    for (row, column), token in zip(value.indices.tolist(), value.values):
        assert column == len(rows[row])
        rows[row].append(token)
    assert value.dense_shape[1] == max((len(r) for r in rows), default=0)
    return rows


def split_at_bytes(s: bytes, delimiter: bytes, skip_empty: bool) -> list:
    if not s:
        return []
    if not delimiter:
        return [bytes([b]) for b in s]
    tokens = [s]
    for d in delimiter:
        tokens = [piece for token in tokens for piece in token.split(bytes([d]))]
    return [t for t in tokens if t or not skip_empty]


SPLIT_TEXTS = strings("hello world", "  a  b ", "", "a,b,,c", "1<>2<><>3", "x")


def test_string_split_at_any_delimiter_byte(graph):
    text = ds.placeholder(ds.string, [None])
    for sep, skip in ((None, True), (" ", False), (", ", True), (", ", False), ("", True)):
        sparse = ds.string_split(text, sep, skip_empty=skip)
        assert isinstance(sparse, ds.SparseTensor) and sparse.indices.op.type == "StringSplit"
        assert sparse.values.dtype == ds.string and sparse.shape == (None, None)
        got = sparse_rows(run(sparse, {text: SPLIT_TEXTS}))
        want = [split_at_bytes(s, (" " if sep is None else sep).encode(), skip)
                for s in SPLIT_TEXTS]
        assert got == want, (sep, skip)
    old_name = ds.string_split(text, delimiter=",")
    assert sparse_rows(run(old_name, {text: strings("a,b")})) == [[b"a", b"b"]]
    empty = run(ds.string_split(text), {text: strings()})
    assert empty.indices.shape == (0, 2) and list(empty.dense_shape) == [0, 0]
    with pytest.raises(ValueError, match="rank 1"):
        ds.string_split([["a b"]])
    with pytest.raises(InvalidArgumentError, match=r"delimiter must be a scalar, got shape: "
                                                   r"\[1\]"):
        delimiter = ds.placeholder(ds.string)
        run(ds.string_split(text, delimiter), {text: strings("a"), delimiter: strings("x")})


def test_strings_split_is_pythons_split(graph):
    text = ds.placeholder(ds.string, [None])
    for sep, maxsplit in ((None, -1), (",", -1), ("<>", -1), (",", 1), (" ", 2), ("", 0)):
        sparse = ds.strings.split(text, sep, maxsplit=maxsplit)
        assert sparse.indices.op.type == "StringSplitV2"
        got = sparse_rows(run(sparse, {text: SPLIT_TEXTS}))
        if maxsplit == 0:
            want = [[s] for s in SPLIT_TEXTS]
        else:
            want = [s.split(sep.encode() if sep else None, maxsplit) for s in SPLIT_TEXTS]
        assert got == want, (sep, maxsplit)
    # TF's quirk: with whitespace, the rest after the last allowed split is a token even
    # when nothing is left
    quirk = ds.strings.split(["a b", "a"], maxsplit=1)
    assert sparse_rows(run(quirk)) == [[b"a", b"b"], [b"a", b""]]
    scalar = ds.strings.split(source="one two")          # a scalar is one row
    assert sparse_rows(run(scalar)) == [[b"one", b"two"]]
    matrix = run(ds.strings.split([["a b", "c"], ["", "d e f"]]))   # TF: ragged to_sparse
    assert matrix.indices.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 1],
                                       [1, 1, 2]]
    assert matrix.dense_shape.tolist() == [2, 2, 3]
    ragged = ds.strings.split(["a b", "", "c"], result_type="RaggedTensor")
    assert run(ragged).to_list() == [[b"a", b"b"], [], [b"c"]]
    rows = ds.string_split(["a,b", "c"], sep=",", result_type="RaggedTensor")
    assert run(rows).to_list() == [[b"a", b"b"], [b"c"]]
    assert run(ds.strings.split("x y", result_type="RaggedTensor")).to_list() == [[b"x", b"y"]]


def test_strings_split_on_whitespace_of_a_long_text():
    # 200,000 tokens (copying the rest after each token, as the first version did, took
    # some 6 s; speed is benchmarks' business, so this checks the values only)
    from devsession.kernels.reference.strings import _split_v2

    text = b"ab \t" * 200_000
    assert _split_v2(text, b"", -1) == [b"ab"] * 200_000
    assert _split_v2(text, b"", 199_999) == [b"ab"] * 199_999 + [b"ab \t"]


# --- decode_csv ------------------------------------------------------------------------------

def test_decode_csv_columns_and_defaults(graph):
    lines = ds.placeholder(ds.string, [None])
    cols = ds.decode_csv(lines, [[0.0], [0], [""], ds.constant([7], ds.int64),
                                 ds.constant(0.5, ds.float64)])
    assert [c.dtype for c in cols] == [ds.float32, ds.int32, ds.string, ds.int64, ds.float64]
    assert all(c.shape == (None,) for c in cols) and cols[0].op.type == "DecodeCSV"
    assert cols[0].op.attrs["OUT_TYPE"] == (ds.float32, ds.int32, ds.string, ds.int64,
                                               ds.float64)
    got = run(cols, {lines: strings('1.5,2,abc,3,0.25', ',, ,,', '"-1",-3,"a,""b""",  9 ,')})
    np.testing.assert_array_equal(got[0], np.float32([1.5, 0.0, -1.0]))
    np.testing.assert_array_equal(got[1], np.int32([2, 0, -3]))
    assert list(got[2]) == [b"abc", b" ", b'a,"b"']
    np.testing.assert_array_equal(got[3], [3, 7, 9])
    np.testing.assert_array_equal(got[4], [0.25, 0.5, 0.5])
    assert [c.shape for c in run(cols, {lines: strings()})] == [(0,)] * 5
    single = ds.io.decode_csv(ds.constant("4,x"), [[1], ["y"]])
    assert run(single) == [4, b"x"]                  # scalar records: scalar columns


def test_decode_csv_options(graph):
    line = ds.placeholder(ds.string, [])
    piped = ds.decode_csv(line, [[0], [""]], field_delim="|", use_quote_delim=False)
    assert run(piped, {line: b'5|"q"'}) == [5, b'"q"']
    na = ds.decode_csv(line, [[-1.0], ["none"]], na_value="NA")
    assert run(na, {line: b"NA,NA"}) == [np.float32(-1.0), b"none"]
    picked = ds.decode_csv(line, [[0], [0]], select_cols=[1, 3])
    assert run(picked, {line: b"1,2,3,4,5"}) == [2, 4]
    assert run(picked, {line: b'1,2,"x",4,not,checked"'}) == [2, 4]
    for select, message in (([3, 1], "select_cols is not strictly increasing."),
                            ([-1, 2], "select_cols contains negative values."),
                            ([1], "Length of select_cols and record_defaults do not match.")):
        with pytest.raises(ValueError, match=message):
            ds.decode_csv(line, [[0], [0]], select_cols=select)


@pytest.mark.parametrize("record, message", [
    ("1.5,2", "Expect 3 fields but have 2 in record 0"),
    ("", "Expect 3 fields but have 0 in record 0"),
    ("x,2,a", "Field 0 in record 0 is not a valid float: x"),
    ("1,2.5,a", "Field 1 in record 0 is not a valid int32: 2.5"),
    ('1,"2",a"b', "Unquoted fields cannot have quotes/CRLFs inside"),
    ('1,2,"a"b"', "Quote inside a string has to be escaped by another quote"),
    ('1,2,"abc', "Quoted field has to end with quote followed by delim or end"),
    (",2,a", "Field 0 is required but missing in record 0!")])
def test_decode_csv_malformed_records(graph, record, message):
    cols = ds.decode_csv([record], [ds.constant([], ds.float32), [0], [""]], name="csv")
    with pytest.raises(InvalidArgumentError, match=f"^'csv': {message}$") as info:
        run(cols)
    assert info.value.node_name == "csv"


def test_decode_csv_defaults_are_checked(graph):
    with pytest.raises(ValueError, match="at most rank 1"):
        ds.decode_csv(["1"], [[[0]]])
    with pytest.raises(ValueError, match="length-0 or length-1 vector"):
        ds.decode_csv(["1"], [[0, 1]])
    with pytest.raises(TypeError, match="'OUT_TYPE' of bool"):
        ds.decode_csv(["1"], [[True]])
    default = ds.placeholder(ds.int32, [None])
    cols = ds.decode_csv(["1,2"], [default, [0]])
    with pytest.raises(InvalidArgumentError, match="There should only be 1 default per field "
                                                   "but field 0 has 2"):
        run(cols, {default: [1, 2]})
    with pytest.raises(InvalidArgumentError, match="field_delim should be only 1 char"):
        run(ds.decode_csv(["1,2"], [[0], [0]], field_delim="||"))


def write_csv(path, rows):
    path.write_text("x,count,label\n" + "".join(f"{r}\n" for r in rows))
    return str(path)


def test_a_text_line_dataset_of_csv_records(graph, tmp_path):
    """TF1's CSV pipeline: TextLineDataset(files).skip(1).map(decode_csv).batch."""
    path = write_csv(tmp_path / "train.csv", ["0.5,1,cat", "1.5,,dog", "-2,3,\"a,b\""])

    def parse(line):
        x, count, label = ds.decode_csv(line, record_defaults=[[0.0], [0], [""]])
        return {"x": x, "count": count}, label

    dataset = ds.data.TextLineDataset(path).skip(1).map(parse).batch(2)
    features, labels = dataset.make_one_shot_iterator().get_next()
    assert features["x"].dtype == ds.float32 and labels.dtype == ds.string
    with ds.Session() as sess:
        first = sess.run((features, labels))
        second = sess.run((features, labels))
        with pytest.raises(OutOfRangeError):
            sess.run(labels)
    np.testing.assert_array_equal(first[0]["x"], np.float32([0.5, 1.5]))
    np.testing.assert_array_equal(first[0]["count"], np.int32([1, 0]))
    assert list(first[1]) == [b"cat", b"dog"] and list(second[1]) == [b"a,b"]
    np.testing.assert_array_equal(second[0]["x"], np.float32([-2.0]))


def test_a_bad_csv_line_fails_the_pipeline_naming_decode_csv(graph, tmp_path):
    path = write_csv(tmp_path / "bad.csv", ["1,2,a", "oops,2,b"])
    dataset = ds.data.TextLineDataset(path).skip(1).map(
        lambda line: ds.decode_csv(line, [[0.0], [0], [""]]))
    values = dataset.make_one_shot_iterator().get_next()
    with ds.Session() as sess:
        assert sess.run(values)[2] == b"a"
        with pytest.raises(InvalidArgumentError, match="Field 0 in record 0 is not a valid "
                                                       "float: oops") as info:
            sess.run(values)
    assert "DecodeCSV" in info.value.node_name


def test_a_queue_pipeline_of_csv_records(graph, tmp_path):
    """TF1's older form: string_input_producer, TextLineReader, decode_csv, train.batch."""
    path = write_csv(tmp_path / "queue.csv", [f"{k}.5,{k},w{k}" for k in range(5)])
    files = ds.train.string_input_producer([path], num_epochs=1, shuffle=False)
    _, line = ds.TextLineReader(skip_header_lines=1).read(files)
    x, count, word = ds.decode_csv(line, [[0.0], [0], [""]])
    batch = ds.train.batch([x, count, word], batch_size=5)
    options = ds.SessionOptions(operation_timeout_s=10)
    with ds.Session(options=options) as sess, contextlib.ExitStack() as stack:
        sess.run([ds.global_variables_initializer(), ds.local_variables_initializer()])
        coord = ds.train.Coordinator()
        threads = ds.train.start_queue_runners(sess, coord)
        stack.callback(coord.join, threads, stop_grace_period_secs=5)
        stack.callback(coord.request_stop)
        xs, counts, words = sess.run(batch)
    np.testing.assert_array_equal(xs, np.float32([0.5, 1.5, 2.5, 3.5, 4.5]))
    np.testing.assert_array_equal(counts, np.arange(5, dtype=np.int32))
    assert list(words) == [f"w{k}".encode() for k in range(5)]


def test_a_csv_pipeline_survives_a_graph_def_round_trip(graph, tmp_path):
    path = write_csv(tmp_path / "trip.csv", ["0.5,1,cat", "1.5,2,dog"])
    dataset = ds.data.TextLineDataset(path).skip(1).map(
        lambda line: ds.decode_csv(line, [[0.0], [0], [""]])).batch(2)
    x, _, label = dataset.make_one_shot_iterator().get_next()
    words = ds.strings.regex_replace(ds.strings.upper(label), "[AEIOU]", "_")
    copy = ds.Graph()
    with copy.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    with ds.Session(graph=copy) as sess:
        got_x, got_words = sess.run([x.name, words.name])
    np.testing.assert_array_equal(got_x, np.float32([0.5, 1.5]))
    assert list(got_words) == [b"C_T", b"D_G"]


def test_string_ops_on_every_session_type(make_session):
    graph = ds.Graph()
    with graph.as_default():
        lines = ds.placeholder(ds.string, [None])
        x, count, word = ds.decode_csv(lines, [[0.0], [0], [""]])
        tag = ds.strings.join([ds.as_string(count), ds.strings.upper(word)], separator=":")
        tokens = ds.string_split(lines, ",")
        buckets = ds.string_to_hash_bucket_fast(word, 1000)
    sess = make_session(graph)
    feed = {lines: strings("1.5,7,a", "2,8,hello")}
    got_x, got_tag, got_tokens, got_buckets = sess.run([x, tag, tokens, buckets], feed)
    np.testing.assert_array_equal(got_x, np.float32([1.5, 2.0]))
    assert list(got_tag) == [b"7:A", b"8:HELLO"]
    assert sparse_rows(got_tokens) == [[b"1.5", b"7", b"a"], [b"2", b"8", b"hello"]]
    assert list(got_buckets) == [939, 296]


# --- placement, namespaces, the op list ------------------------------------------------------

def test_a_gpu_session_runs_string_ops_on_the_cpu():
    from fake_gpu import fake_gpus

    with fake_gpus(1, without=STRING_OPS):
        text = ds.placeholder(ds.string, [None])
        number = ds.strings.to_number(ds.strings.strip(text))
        doubled = number * 2.0
        options = ds.SessionOptions(device="gpu:0", allow_soft_placement=True)
        with ds.Session(options=options) as sess:
            np.testing.assert_array_equal(sess.run(doubled, {text: strings(" 1.5", "2 ")}),
                                          np.float32([3.0, 4.0]))
            placed = sess.placement()
    assert placed[number.op.name].endswith("CPU:0") and placed[doubled.op.name].endswith("GPU:0")


def test_regex_and_split_inputs_are_checked_when_built(graph):
    # what TF's op defs require of a GraphDef's nodes: strings, a scalar pattern or sep
    ints, text = ds.constant([1]), ds.constant(["a b"])
    for op_type, inputs, attrs in (("StaticRegexFullMatch", [ints], {"pattern": "a"}),
                                   ("RegexReplace", [text, ds.constant("a"), ds.constant(1)],
                                    None),
                                   ("StringSplitV2", [ints, ds.constant(" ")], None)):
        with pytest.raises(TypeError, match=f"'{op_type}'.*must be strings, got int32"):
            graph.create_op(op_type, inputs, attrs)
    with pytest.raises(ValueError, match="rank 0 but is rank 1 .*the pattern must be a scalar"):
        ds.strings.regex_full_match(text, ds.constant(["a"]))
    with pytest.raises(ValueError, match="rank 0 but is rank 1 .*the sep must be a scalar"):
        ds.strings.split(text, ds.constant([" "]))


def test_the_strings_namespace():
    for name in ("to_number", "as_string", "join", "length", "substr", "strip", "lower",
                 "upper", "regex_replace", "regex_full_match", "to_hash_bucket_fast",
                 "reduce_join"):
        assert callable(getattr(ds.strings, name)), name
    for name in ("decode_csv", "string_to_number", "as_string", "string_join", "substr",
                 "regex_replace", "string_strip", "string_to_hash_bucket_fast", "reduce_join",
                 "encode_base64", "decode_base64"):
        assert callable(getattr(ds, name)), name
    assert ds.io.decode_csv is ds.decode_csv
    with pytest.raises(UnsupportedTF1Error, match="tf.strings.no_such_name is not supported"):
        ds.strings.no_such_name
    with pytest.raises(ValueError, match="result_type must be"):
        ds.strings.split(["a b"], result_type="Dense")


def test_string_ops_are_not_differentiable(graph):
    from devsession.ops.registry import get_gradient

    for op_type in STRING_OPS:
        assert get_gradient(op_type) is None, op_type
    x = ds.placeholder(ds.float32, [2])
    text = ds.as_string(x)
    assert ds.gradients(ds.strings.to_number(text), [x]) == [None]


def test_format_takes_one_tensor_and_reduce_join_names_its_op_as_tf():
    with ds.Graph().as_default():
        text = ds.strings.format("x={}", ds.constant([1, 2]))
        words = ds.constant([["a", "b"], ["c", "d"]])
        joined = ds.strings.reduce_join(words)
        named = ds.strings.reduce_join(words, axis=1, name="j")
        with ds.Session() as sess:
            assert sess.run(text) == b"x=[1 2]"
            assert sess.run(joined) == b"abcd"
    assert (joined.name, named.name) == ("ReduceJoin/ReduceJoin:0", "ReduceJoin_1/j:0")


def test_hash_keys_beyond_int64_are_refused_as_tf():
    with pytest.raises(ValueError, match="Value out of range: 9223372036854775808"):
        ds.strings.to_hash_bucket_strong(["a"], 10, [2 ** 63, 1])


def test_as_string_writes_complex_numbers_as_tf():
    values = np.array([1 + 2j, -0.5 - 1.25j], np.complex64)
    with ds.Graph().as_default(), ds.Session() as sess:
        c = ds.constant(values)
        got = sess.run([ds.as_string(c), ds.as_string(c, precision=2),
                        ds.as_string(ds.constant(np.array([1e10 + 1j])), shortest=True)])
    assert got[0].tolist() == [b"(1.000000,2.000000)", b"(-0.500000,-1.250000)"]
    assert got[1].tolist() == [b"(1.00,2.00)", b"(-0.50,-1.25)"]
    assert got[2].tolist() == [b"(1e+10,1)"]
