"""The string ops against what TensorFlow 2.21 computed (tests/data/tf_string_ops.json and
.pb, written by tests/data/make_tf_string_ops.py): the GraphDef TF built with every
string op imports and gives TF's values and static shapes for TF's feeds, and each
table of single cases (numbers read from text, AsString's formats, FarmHash buckets,
RE2 rewrites, CSV records, lengths, substrings, case, base64, reduce_join, splits) gives TF's
value, or TF's error class and text."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession import errors

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "tf_string_ops.json")) as _f:
    RECORD = json.load(_f)


def decoded(record: dict) -> np.ndarray:
    """A value make_tf_string_ops.encode wrote."""
    if record["dtype"] == "string":
        values = np.empty(len(record["values"]), dtype=object)
        values[:] = [bytes.fromhex(v) for v in record["values"]]
    elif record["dtype"].startswith("float"):
        values = np.array([float.fromhex(v) for v in record["values"]], dtype=record["dtype"])
    else:
        values = np.array(record["values"], dtype=record["dtype"])
    return values.reshape(record["shape"])


def assert_same(got, want: np.ndarray, what=""):
    got = np.asarray(got, dtype=object) if isinstance(got, bytes) else np.asarray(got)
    assert got.shape == want.shape, what
    if want.dtype == object:
        assert got.tolist() == want.tolist(), what
    else:
        assert got.dtype == want.dtype, what
        np.testing.assert_array_equal(got, want, err_msg=str(what))
        # -0.0 and NaN's sign are part of the value
        if want.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=str(what))


def outcome(build):
    """What devsession gives for ``build()`` in a graph of its own: its value, or
    ("build", error) / ("run", error)."""
    with ds.Graph().as_default():
        try:
            fetch = build()
        except (ValueError, TypeError) as e:
            return "build", e
        with ds.Session() as sess:
            try:
                return sess.run(fetch)
            except errors.OpError as e:
                return "run", e


def check(build, recorded: dict, what=""):
    """``build()``'s outcome is TF's: the same values, or an error of TF's class whose
    text is TF's (the kernel's text after devsession's "'node': ")."""
    got = outcome(build)
    if "build_error" in recorded:
        assert isinstance(got, tuple) and got[0] == "build", (what, got)
        assert type(got[1]).__name__ == recorded["build_error"], (what, got)
        return
    if "error" in recorded:
        assert isinstance(got, tuple) and got[0] == "run", (what, got)
        error = got[1]
        assert type(error).__name__ == recorded["error"], (what, error)
        assert str(error).split("': ", 1)[-1] == recorded["message"], (what, str(error))
        return
    assert not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], Exception)), \
        (what, got)
    if "values" in recorded and "dtype" not in recorded:
        assert len(got) == len(recorded["values"]), what
        for k, (value, want) in enumerate(zip(got, recorded["values"])):
            assert_same(value, decoded(want), (what, k))
    else:
        assert_same(got, decoded(recorded), what)


def texts(hexes) -> np.ndarray:
    out = np.empty(len(hexes), dtype=object)
    out[:] = [bytes.fromhex(h) for h in hexes]
    return out


# --- the GraphDef ------------------------------------------------------------------------------

def test_a_graph_def_tensorflow_wrote_runs_with_tfs_values():
    graph_def = ds.read_graph_def(os.path.join(DATA, "tf_string_ops.pb"))
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def, name="")
    types = {op.type for op in graph.get_operations()}
    assert {"DecodeCSV", "StringToNumber", "AsString", "StringJoin", "StringLength",
            "Substr", "StaticRegexReplace", "RegexReplace", "StaticRegexFullMatch",
            "RegexFullMatch", "StringStrip", "StringLower", "StringUpper",
            "StringToHashBucketFast", "ReduceJoin", "EncodeBase64",
            "DecodeBase64", "StringSplit", "StringSplitV2"} <= types
    feeds = {f"{k}:0": decoded(v) for k, v in RECORD["feeds"].items()}
    names = sorted(RECORD["fetches"])
    with ds.Session(graph=graph) as sess:
        values = sess.run(names, feeds)
    for name, value in zip(names, values):
        assert_same(value, decoded(RECORD["fetches"][name]), name)
        dims = RECORD["static"][name]
        want = ds.TensorShape(None if dims is None else [None if d < 0 else d for d in dims])
        assert graph.get_tensor_by_name(name).shape == want, name


# --- tables of single cases ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_numbers_read_from_text_as_tf(dtype):
    for row in RECORD["numbers"]:
        text = texts([row["text"]])
        check(lambda: ds.strings.to_number(ds.constant(text), out_type=getattr(ds, dtype)),
              row[dtype], (bytes.fromhex(row["text"]), dtype))


def test_as_string_formats_as_tf():
    for row in RECORD["as_string"]:
        values = decoded(row["input"])
        check(lambda: ds.as_string(ds.constant(values), **row["attrs"]), row["out"],
              (values.dtype, row["attrs"]))


def test_hash_buckets_are_tfs():
    words = texts(RECORD["hash"]["texts"])
    for buckets in ("1", "1000", str(2 ** 63 - 1)):
        check(lambda: ds.strings.to_hash_bucket_fast(ds.constant(words), int(buckets)),
              RECORD["hash"][buckets], buckets)


@pytest.mark.parametrize("kind", ["static", "dynamic"])
def test_regex_replace_as_tf(kind):
    for row in RECORD["regex"]["replace"]:
        words = texts(row["inputs"])

        def build():
            pattern, rewrite = row["pattern"], row["rewrite"]
            if kind == "dynamic":
                pattern, rewrite = ds.constant(pattern), ds.constant(rewrite)
            return ds.strings.regex_replace(ds.constant(words), pattern, rewrite,
                                            row["replace_global"])
        check_regex(build, row[kind], (row["pattern"], row["rewrite"]))


@pytest.mark.parametrize("kind", ["static", "dynamic"])
def test_regex_full_match_as_tf(kind):
    for row in RECORD["regex"]["full_match"]:
        words = texts(row["inputs"])
        pattern = row["pattern"]
        check_regex(lambda: ds.strings.regex_full_match(
            ds.constant(words), pattern if kind == "static" else ds.constant(pattern)),
            row[kind], pattern)


def check_regex(build, recorded, what):
    """As ``check``; an invalid pattern's error text is RE2's in TF and Python's (or a
    translation's) here, so only its "Invalid pattern: <p>, error:" part is compared."""
    if "error" not in recorded:
        return check(build, recorded, what)
    got = outcome(build)
    assert isinstance(got, tuple) and got[0] == "run", (what, got)
    assert type(got[1]).__name__ == recorded["error"], (what, got[1])
    prefix = recorded["message"].split(", error: ")[0] + ", error: "
    assert str(got[1]).split("': ", 1)[-1].startswith(prefix), (what, str(got[1]))


CSV_DEFAULTS = {"f": ([0.0], ds.float32), "d": ([0.5], ds.float64), "i": ([0], ds.int32),
                "l": ([0], ds.int64), "s": (["x"], ds.string), "F": ([], ds.float32),
                "I": ([], ds.int32), "S": ([], ds.string)}


def test_decode_csv_as_tf():
    for row in RECORD["csv"]:
        records = texts(row["records"])

        def build():
            defaults = [ds.constant(CSV_DEFAULTS[k][0], dtype=CSV_DEFAULTS[k][1])
                        for k in row["kinds"]]
            return ds.io.decode_csv(ds.constant(records), defaults, **row["kwargs"])
        check(build, row["out"], (list(records), row["kinds"], row["kwargs"]))


def test_lengths_substrings_case_and_base64_as_tf():
    small = RECORD["small"]
    words = texts(small["texts"])
    for unit in ("BYTE", "UTF8_CHAR"):
        check(lambda: ds.strings.length(ds.constant(words), unit=unit),
              small[f"length_{unit}"], unit)
        for case in small[f"substr_{unit}"]:
            check(lambda: ds.strings.substr(ds.constant(words[1:4]), case["pos"], case["len"],
                                            unit=unit), case["out"], (unit, case["pos"]))
    cased = texts(small["cased"])
    for fn in ("lower", "upper"):
        for encoding in ("", "utf-8"):
            check(lambda: getattr(ds.strings, fn)(ds.constant(cased), encoding=encoding),
                  small[f"{fn}_{encoding}"], (fn, encoding))
    check(lambda: ds.strings.lower(ds.constant(cased), "latin1"), small["lower_latin1"])
    check(lambda: ds.strings.strip(ds.constant(cased)), small["strip"])
    plain = texts(small["plain"])
    check(lambda: ds.io.encode_base64(ds.constant(plain)), small["encode"])
    check(lambda: ds.io.encode_base64(ds.constant(plain), pad=True), small["encode_pad"])
    for case in small["decode"]:
        check(lambda: ds.io.decode_base64(ds.constant([case["text"]])), case["out"],
              case["text"])


def test_reduce_join_as_tf():
    grid = np.array([str(k).encode() for k in range(24)], dtype=object).reshape(2, 3, 4)
    for case in RECORD["small"]["reduce_join"]:
        check(lambda: ds.strings.reduce_join(ds.constant(grid), axis=case["axis"],
                                             keepdims=case["keepdims"],
                                             separator=case["separator"]),
              case["out"], case["axis"])


def test_splits_as_tf():
    split = RECORD["split"]
    words = texts(split["texts"])
    for case in split["v1"]:
        check(lambda: ds.string_split(ds.constant(words), case["sep"],
                                      skip_empty=case["skip_empty"]),
              case["out"], (case["sep"], case["skip_empty"]))
    for case in split["v2"]:
        check(lambda: ds.strings.split(ds.constant(words), case["sep"],
                                       maxsplit=case["maxsplit"]),
              case["out"], (case["sep"], case["maxsplit"]))
    check(lambda: ds.string_split(ds.constant([["a b"]])), split["v1_matrix"])
    check(lambda: ds.strings.split(ds.constant("a b c")), split["v2_scalar"])
