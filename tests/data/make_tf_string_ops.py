"""Writes tf_string_ops.pb (a GraphDef TensorFlow builds with TF1's string ops:
DecodeCSV, StringToNumber, AsString, StringJoin, StringLength, Substr, the regex ops,
StringStrip, StringLower/Upper, StringToHashBucketFast, ReduceJoin, Encode/DecodeBase64,
StringSplit/V2)
and tf_string_ops.json: that graph's feeds and TF's fetched values, and tables of single
cases (the numbers TF reads from text, AsString's formats, hash buckets, regex rewrites,
CSV records, splits) with TF's value or error for each.  tests/test_string_ops.py checks
devsession against both.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_string_ops.py

Strings are stored as hex, floats as ``float.hex`` (exact, NaN and -0.0 kept).
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def encode(value):
    """A fetched value as JSON: {"dtype", "shape", "values"}."""
    array = np.asarray(value)
    flat = array.reshape(-1).tolist()
    if array.dtype == object or array.dtype.kind == "S":
        values = [bytes(v).hex() for v in flat]
        dtype = "string"
    elif array.dtype.kind == "f":
        values = [float(v).hex() for v in flat]
        dtype = array.dtype.name
    else:
        values = [int(v) if array.dtype.kind in "iu" else bool(v) for v in flat]
        dtype = array.dtype.name
    return {"dtype": dtype, "shape": list(array.shape), "values": values}


def _kernel_message(message: str) -> str:
    """The kernel's own text in a graph-mode error (the line above ``[[{{node ...}}]]``)."""
    lines = message.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("\t [[") and k:
            return lines[k - 1]
    return lines[0]


def outcome(build, feeds=None):
    """TF's value of ``build()`` in a graph of its own, or its error (class, message)."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            fetch = build()
        except (ValueError, TypeError) as e:
            return {"build_error": type(e).__name__, "message": str(e).split("\n")[0]}
        with tf.Session(graph=graph) as sess:
            try:
                value = sess.run(fetch, feeds)
            except tf.errors.OpError as e:
                return {"error": type(e).__name__, "message": _kernel_message(e.message)}
    if isinstance(value, list):
        return {"values": [encode(v) for v in value]}
    return encode(value)


# --- tables of single cases ------------------------------------------------------------------

NUMBER_TEXTS = [
    "1", " 1", "1 ", "+1", "-1", "\t7\n", "\v1", "\f1", "\r1", "1\r", "00", "-0", "010",
    "1e3", "1E2", "1.0e+2", "+.5e-3", "1.e5", ".5", "5.", "1.5", "0x10", "0X1P-2",
    "0x1.8p1", "0x.8", "0x1.", "0x1P+3", "inf", "-Inf", "INF", "iNfInItY", "+inf", "nan",
    "NaN", "-nan", "+nan", "nan()", "nan(a_1)", "-nan(1)", "2147483647", "2147483648",
    "-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "3.4028235e38", "3.5e38", "1e39", "-1e39", "1e400", "1e-46",
    "1e-50", "1e-400", "4.9e-324", "2.5e-324", "1.00000005960464477539062500000001",
    "1.000000059604644775390625", "16777217.000000000001",
    "3.40282356779733661637539395458142568448e38", "0.1", "3.14159265358979323846",
    "1" + " " * 40, "1." + "0" * 40,
    # not numbers
    "", " ", "1e", "1e+", ".", "+", "-", "e5", ".e5", "0x", "0xg", "0x1p", "1e5.5", "1 2",
    "1,5", "1_000", "\u0661", "1d", "1f", "0b1", "+-1", "--1", " + 1", "infinit", "infinityx",
    "nan(-)", "abc",
]


def number_table():
    rows = []
    for text in NUMBER_TEXTS:
        row = {"text": text.encode().hex()}
        for dtype in (tf.float32, tf.float64, tf.int32, tf.int64):
            row[dtype.name] = outcome(lambda: tf.strings.to_number(
                tf.constant([text.encode()]), out_type=dtype))
        rows.append(row)
    return rows


AS_STRING_VALUES = {
    "float32": [0.0, -0.0, 1.5, -2.25, 1e10, 1e-5, 123456789.0, np.nan, np.inf, -np.inf,
                3.14159265, 1e20, 0.1],
    "float64": [0.0, 1.5, -2.25, 1e100, 1e-300, np.nan, -np.inf, 0.1, 2.0 / 3.0],
    "float16": [1.5, 0.1, -65504.0],
    "int32": [0, 7, -42, 123456, -2147483648],
    "int64": [0, -5, 9223372036854775807],
    "int8": [-5, 5, 127], "int16": [-300, 300], "uint8": [0, 250], "uint16": [65535],
    "bool": [True, False],
}
AS_STRING_ATTRS = [
    {}, {"precision": 2}, {"precision": 0}, {"precision": 12}, {"scientific": True},
    {"shortest": True}, {"shortest": True, "precision": 3}, {"width": 12},
    {"width": 12, "fill": "0"}, {"width": 9, "fill": "+"}, {"width": 9, "fill": "-"},
    {"width": 9, "fill": "#"}, {"width": 9, "fill": " "}, {"width": 3},
    {"precision": 3, "scientific": True, "width": 14, "fill": " "},
    {"shortest": True, "fill": "#", "width": 10}, {"fill": "0"},
    {"scientific": True, "shortest": True},
    {"fill": "ab"}, {"width": 5, "fill": "x"},
]


def as_string_table():
    rows = []
    for dtype, values in AS_STRING_VALUES.items():
        for attrs in AS_STRING_ATTRS:
            rows.append({"input": encode(np.array(values, dtype=dtype)), "attrs": attrs,
                         "out": outcome(lambda: tf.strings.as_string(
                             tf.constant(values, dtype=dtype), **attrs))})
    return rows


def hash_texts():
    rng = np.random.default_rng(20260601)
    texts = [b"", b"a", b"hello", b"TensorFlow", "日本語".encode(), b"\x00", b"\xff" * 9]
    lengths = [*range(0, 80), *range(80, 261, 9)]
    texts += [rng.integers(0, 256, size=n, dtype=np.uint8).tobytes() for n in lengths]
    return texts


def hash_table():
    texts = hash_texts()
    out = {"texts": [t.hex() for t in texts]}
    for buckets in (1, 1000, 2 ** 63 - 1):
        out[str(buckets)] = outcome(lambda: tf.strings.to_hash_bucket_fast(
            tf.constant(texts), buckets))
    return out


REGEX_CASES = [
    (["baaac", "abc", ""], "a*", "-", True), (["baaac"], "a*", "-", False),
    (["hello world"], r"(\w+) (\w+)", r"\2 \1", True), (["hello"], "l", r"\0\0", True),
    (["hello"], "l", "\\\\", True), (["hello"], "l", r"\n", True), (["hello"], "l", r"\n", False),
    (["hello"], "(l)", r"\2", True), (["hello"], "(?=l)", "x", True),
    (["hello"], r"(l)\1", "x", True), (["héllo"], ".", "x", True), (["a\nb\n"], "$", "X", True),
    (["a\nb\n"], "(?m)$", "X", True), (["a\nb\n"], "^", "X", True),
    (["a\nb\n"], "(?m)^", "X", True), (["a1 \u0663"], r"\d", "D", True),
    (["a\vb c\td"], r"\s", "S", True), (["aB1_ é"], r"\w", "W", True),
    (["aB1_"], "[[:alpha:]]", "A", True), (["aB1_ 9"], "[^[:digit:]_]", "-", True),
    (["abc"], r"\Qa.\E|b", "X", True), (["abc"], "", "-", True),
    (["ÉCOLE école"], "(?i)école", "x", True), (["abc"], r"\z", "x", True),
    (["abc"], "(", "x", True), (["abc"], "[a", "x", True), (["a.b"], r"\.", r"\\.", True),
    (["aaa"], "a", "$0", True), (["ab"], "(?P<x>a)", r"\1", True),
    (["abc"], "b", r"\g<0>", True), (["abAB"], "a(?i)b", "x", True),
    (["abab aBc c C"], "a(?i)b|c", "x", True), (["a{,2} aa"], "a{,2}", "x", True),
    (["word words sword"], r"\bword\b", "W", True), (["ab"], "a**", "x", True),
    (["aaa"], "a*+", "x", True), (["aaa"], "a{2}", "x", True),
    (["x\u00e9y"], r"\x{e9}", "E", True), (["tab\there"], r"\t", " ", True),
    (["Text with tags.<br /><b>contains html</b>"], "<[^>]+>", " ", True),
    (["2026-06-01"], r"(\d+)-(\d+)-(\d+)", r"\3/\2/\1", True),
]
FULL_MATCH_CASES = [
    (["abc", "ab", "abcd", ""], "a.c|ab"), (["a\n"], "a$"), (["a\n"], "a\n"),
    (["abc"], "("), (["ABC", "abc", "aBc"], "(?i)abc"), (["123", "12a", ""], r"\d*"),
    (["héllo", "hello"], "h.llo"),
]


def regex_tables():
    replace = []
    for inputs, pattern, rewrite, replace_global in REGEX_CASES:
        row = {"inputs": [s.encode().hex() for s in inputs], "pattern": pattern,
               "rewrite": rewrite, "replace_global": replace_global}
        row["static"] = outcome(lambda: tf.strings.regex_replace(
            tf.constant([s.encode() for s in inputs]), pattern, rewrite, replace_global))
        row["dynamic"] = outcome(lambda: tf.strings.regex_replace(
            tf.constant([s.encode() for s in inputs]), tf.constant(pattern),
            tf.constant(rewrite), replace_global))
        replace.append(row)
    full = []
    for inputs, pattern in FULL_MATCH_CASES:
        row = {"inputs": [s.encode().hex() for s in inputs], "pattern": pattern}
        row["static"] = outcome(lambda: tf.strings.regex_full_match(
            tf.constant([s.encode() for s in inputs]), pattern))
        row["dynamic"] = outcome(lambda: tf.strings.regex_full_match(
            tf.constant([s.encode() for s in inputs]), tf.constant(pattern)))
        full.append(row)
    return {"replace": replace, "full_match": full}


CSV_DEFAULTS = {"f": ([0.0], tf.float32), "d": ([0.5], tf.float64), "i": ([0], tf.int32),
                "l": ([0], tf.int64), "s": (["x"], tf.string), "F": ([], tf.float32),
                "I": ([], tf.int32), "S": ([], tf.string)}
CSV_CASES = [
    (["1.5,2,abc", " 1 , 2 ,x", ",,"], "fis", {}),
    (["1.5,2", "1.5,2,abc,4", ""], "fis", {}),
    (["x,2,a"], "fis", {}), (["1,2.5,a"], "fis", {}), (["1,x"], "fd", {}),
    (["1,x"], "fl", {}), (["3000000000,2"], "ii", {}), (["3000000000,2"], "li", {}),
    (['"1.5","2","a,b"', '1,2,"a""b"', '"",2,b'], "sis", {}),
    (['1,"2",a"b'], "fis", {}), (['1,2,"a"b"'], "fis", {}), (['1,2,"abc'], "fis", {}),
    (["1,2,abc\n"], "fis", {}), (["1,2\n,abc"], "fis", {}), (["\n1,2,abc", "1,\r2,a"], "fis", {}),
    (["1,2,a\rb"], "fis", {}), (["1,2,a", ",2,a"], "Fis", {}), (["1,,a"], "fIs", {}),
    (["1,2,"], "fiS", {}), (["1,2,"], "fis", {}), ([","], "ss", {}),
    (["NA,2,a", "1,NA,NA"], "fis", {"na_value": "NA"}), (["1|2|a"], "fis", {"field_delim": "|"}),
    (["1\t2\ta"], "fis", {"field_delim": "\t"}), (["1|2|a"], "fis", {"field_delim": "||"}),
    (['1,2,"a"', '1,2,a"b'], "fis", {"use_quote_delim": False}),
    (["1,2,3,4,5", "6,7,8,9,10"], "ii", {"select_cols": [1, 3]}),
    (["1,2"], "ii", {"select_cols": [1, 3]}), (["1,2,3,4,5"], "ii", {"select_cols": [0, 1]}),
    (['"a,b",2,"c"'], "ss", {"select_cols": [0, 2]}), (["1,x,3"], "ii", {"select_cols": [0, 2]}),
    (['1,a"b,3'], "ii", {"select_cols": [0, 2]}), (["a,b,"], "sss", {"select_cols": [0, 1, 2]}),
    (["1,2,3"], "ii", {"select_cols": [3, 1]}), (["1,2,3"], "ii", {"select_cols": [1]}),
]


def csv_table():
    rows = []
    for records, kinds, kwargs in CSV_CASES:
        def build():
            defaults = [tf.constant(CSV_DEFAULTS[k][0], dtype=CSV_DEFAULTS[k][1]) for k in kinds]
            return tf.io.decode_csv(tf.constant([r.encode() for r in records]), defaults,
                                    **kwargs)
        rows.append({"records": [r.encode().hex() for r in records], "kinds": kinds,
                     "kwargs": kwargs, "out": outcome(build)})
    return rows


def small_tables():
    texts = ["", "abc", "héllo", "日本語", "a\x80"]
    raw = [t.encode("utf-8", "surrogateescape") if "\x80" not in t else b"a\x80" for t in texts]
    out = {"texts": [t.hex() for t in raw]}
    for unit in ("BYTE", "UTF8_CHAR"):
        out[f"length_{unit}"] = outcome(lambda: tf.strings.length(tf.constant(raw), unit=unit))
        out[f"substr_{unit}"] = [
            {"pos": p, "len": n, "out": outcome(lambda: tf.strings.substr(
                tf.constant(raw[1:4]), p, n, unit=unit))}
            for p, n in ((0, 1), (1, 2), (-2, 5), (3, 1), (1, -1), (4, 1), (-4, 1), (5, 1))]
    cases = ["AbC", "ÉCOLE", "İ", "ΣΑΣ", "ß", "ﬁ", "école", " a b \t\n\v\f\r", "\xa0x\xa0"]
    cased = [c.encode() for c in cases] + [b"A\xffB"]
    out["cased"] = [c.hex() for c in cased]
    for fn in ("lower", "upper"):
        for encoding in ("", "utf-8"):
            out[f"{fn}_{encoding}"] = outcome(lambda: getattr(tf.strings, fn)(
                tf.constant(cased), encoding=encoding))
    out["lower_latin1"] = outcome(lambda: tf.strings.lower(tf.constant(cased), "latin1"))
    out["strip"] = outcome(lambda: tf.strings.strip(tf.constant(cased)))
    plain = [b"", b"a", b"ab", b"abc", b"\xff\xfe\xfd>?", b"hello world!!"]
    out["plain"] = [p.hex() for p in plain]
    out["encode"] = outcome(lambda: tf.io.encode_base64(tf.constant(plain)))
    out["encode_pad"] = outcome(lambda: tf.io.encode_base64(tf.constant(plain), pad=True))
    coded = ["", "YQ", "YQ==", "YWI", "YWI=", "YWJj", "w7_DvsO9Pj8", "YWJjZA", "YWJjZA==",
             "YR", "Y", "Y===", "YW=J", "a+b/", "YQ\n", " YQ", "YQ==YQ==", "YQ=", "YWJjZA=",
             "!!!!", "YQ=a", "YWJjZ", "!WJjZ"]
    out["decode"] = [{"text": c, "out": outcome(lambda: tf.io.decode_base64(tf.constant([c])))}
                     for c in coded]
    grid = [[str(i).encode() for i in range(24)]]
    out["reduce_join"] = [
        {"axis": axis, "keepdims": keep, "separator": sep, "out": outcome(
            lambda: tf.strings.reduce_join(tf.reshape(tf.constant(grid), [2, 3, 4]),
                                           axis=axis, keepdims=keep, separator=sep))}
        for axis, keep, sep in ((None, False, ""), (0, False, ","), (-1, True, "."),
                                ([2, 0], False, ","), ([0, 2], True, ","), ([], False, ""),
                                ([1, -2], False, ""), ([3], False, ""))]
    return out


SPLIT_TEXTS = ["hello world", "  a  b ", "", "a,b,,c", "1<>2<><>3", " \t\nx\v\fy\r ", "x"]


def parts(sparse):
    return [sparse.indices, sparse.values, sparse.dense_shape]


def split_table():
    """StringSplit (tf.string_split) and StringSplitV2 (tf.strings.split) outcomes as
    (indices, values, dense_shape)."""
    texts = [t.encode() for t in SPLIT_TEXTS]
    v1 = [{"sep": sep, "skip_empty": skip, "out": outcome(lambda: parts(tf.string_split(
        tf.constant(texts), sep, skip_empty=skip)))}
        for sep in (" ", "", ", ", ",") for skip in (True, False)]
    v2 = [{"sep": sep, "maxsplit": m, "out": outcome(lambda: parts(tf.strings.split(
        tf.constant(texts), sep, maxsplit=m)))}
        for sep in (None, " ", ",", ",,", "<>") for m in (-1, 0, 1, 2)]
    return {"texts": [t.hex() for t in texts], "v1": v1, "v2": v2,
            "v1_matrix": outcome(lambda: parts(tf.string_split(tf.constant([["a b"]])))),
            "v2_scalar": outcome(lambda: parts(tf.strings.split(tf.constant("a b c"))))}


# --- the GraphDef ------------------------------------------------------------------------------

FEEDS = {
    "lines": np.array([b"1.5,2,alpha,7,0.25", b",-3,\"be,ta\",5,", b"NA,4,gamma,9,NA"],
                      dtype=object),
    "words": np.array([b"  Hello World ", b"tf.data", b"\xc3\x89cole"], dtype=object),
    "numbers": np.array([1.5, -0.001, 12345.678], dtype=np.float32),
    "positions": np.array([1, 0, -3], dtype=np.int32),
    "pattern": np.array(b"[aeiou]", dtype=object),
}


def build_graph():
    graph = tf.Graph()
    with graph.as_default():
        lines = tf.placeholder(tf.string, [None], name="lines")
        words = tf.placeholder(tf.string, [None], name="words")
        numbers = tf.placeholder(tf.float32, [None], name="numbers")
        positions = tf.placeholder(tf.int32, [None], name="positions")
        pattern = tf.placeholder(tf.string, [], name="pattern")
        csv = tf.io.decode_csv(lines, [[0.0], [0], [""], tf.constant([], tf.int64),
                                       tf.constant([0.5], tf.float64)], na_value="NA")
        picked = tf.io.decode_csv(lines, [tf.constant([], tf.int32), [""]],
                                  select_cols=[1, 2], name="picked")
        stripped = tf.strings.strip(words)
        outs = {f"csv{k}": t for k, t in enumerate(csv)}
        outs.update({f"picked{k}": t for k, t in enumerate(picked)})
        outs.update({
            "to_float": tf.strings.to_number(tf.strings.as_string(numbers, precision=3)),
            "to_int": tf.string_to_number(tf.strings.as_string(positions), tf.int64),
            "as_sci": tf.strings.as_string(numbers, scientific=True, precision=2),
            "as_short": tf.strings.as_string(numbers, shortest=True, width=10, fill="-"),
            "as_bool": tf.as_string(numbers > 0),
            "joined": tf.strings.join([stripped, "!", words], separator="|"),
            "length": tf.strings.length(words),
            "chars": tf.strings.length(words, unit="UTF8_CHAR"),
            "substr": tf.strings.substr(stripped, positions, tf.fill(tf.shape(positions), 3)),
            "substr_chars": tf.strings.substr(words, 1, 2, unit="UTF8_CHAR"),
            "replaced": tf.strings.regex_replace(words, r"(\w)(\w*)", r"\2\1ay"),
            "replaced_once": tf.strings.regex_replace(words, pattern, "_", replace_global=False),
            "full_match": tf.strings.regex_full_match(stripped, r"\w+ \w+"),
            "fed_match": tf.strings.regex_full_match(words, pattern),
            "lower": tf.strings.lower(words), "upper": tf.strings.upper(words, "utf-8"),
            "buckets": tf.strings.to_hash_bucket_fast(words, 97),
            "reduced": tf.strings.reduce_join(words, separator="+"),
            "reduced_kept": tf.strings.reduce_join(tf.reshape(words, [3, 1]), axis=1,
                                                   keepdims=True),
            "encoded": tf.io.encode_base64(words, pad=True),
            "decoded": tf.io.decode_base64(tf.io.encode_base64(words)),
        })
        for key, sparse in (("split", tf.string_split(stripped)),
                            ("split_v2", tf.strings.split(words, maxsplit=1))):
            outs.update({f"{key}_indices": sparse.indices, f"{key}_values": sparse.values,
                         f"{key}_shape": sparse.dense_shape})
    return graph, outs


def main():
    graph, outs = build_graph()
    with tf.Session(graph=graph) as sess:
        values = sess.run(outs, {graph.get_tensor_by_name(f"{k}:0"): v
                                 for k, v in FEEDS.items()})
    with open(os.path.join(HERE, "tf_string_ops.pb"), "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    static = {t.name: None if t.shape.rank is None else
              [-1 if d is None else d for d in t.shape.as_list()] for t in outs.values()}
    record = {
        "feeds": {k: encode(v) for k, v in FEEDS.items()},
        "fetches": {outs[k].name: encode(v) for k, v in values.items()},
        "static": static,
        "numbers": number_table(), "as_string": as_string_table(), "hash": hash_table(),
        "regex": regex_tables(), "csv": csv_table(), "small": small_tables(),
        "split": split_table(),
    }
    with open(os.path.join(HERE, "tf_string_ops.json"), "w") as f:
        json.dump(record, f, indent=0, sort_keys=True)
    print(f"{len(outs)} fetches, {len(record['numbers'])} number texts written")


if __name__ == "__main__":
    main()
