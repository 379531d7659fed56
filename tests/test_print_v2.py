"""tf.print in graph mode (StringFormat + PrintV2): what it writes, against what
TensorFlow 2.21 wrote for the same inputs (tests/data/make_tf_print.py), its streams,
its op in control_dependencies, and its build-time refusals."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import devsession as ds
from devsession.ops.print_v2 import string_format

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "data", "tf_print.json")) as f:
    TF_WROTE = json.load(f)

CASES = {
    "string_and_vector": lambda: (["hello", ds.constant([1, 2, 3])], {}),
    "long_vector": lambda: ([ds.range(10)], {}),
    "matrix_summarize_2": lambda: ([ds.reshape(ds.range(12.0), [3, 4]) / 3.0],
                                   {"summarize": 2}),
    "sep_end_bool_strings": lambda: ([ds.constant([[1.5, 2.25]]), ds.constant(True),
                                      ds.constant(["a", "b"])], {"sep": "|", "end": "$\n"}),
    "structure": lambda: (["x", {"a": ds.constant(1), "b": [ds.constant(2.5), 3]}], {}),
    "cube": lambda: ([ds.reshape(ds.range(24), [2, 3, 4])], {}),
    "floats": lambda: ([ds.constant([0.1, 1e-8, 123456789.0])], {}),
    "all_of_long": lambda: ([ds.range(8, dtype=ds.int64)], {"summarize": -1}),
    "literal_braces": lambda: (["{}", ds.constant(4)], {}),
    # a SparseTensor (a CTC decoding) is TF's quoted text of its three tensors
    "sparse": lambda: (["decoded", ds.SparseTensor([[0, 1], [2, 0], [2, 3]], [5, 6, 7],
                                                    [3, 4])], {}),
    "sparse_in_structure": lambda: ([{"d": ds.SparseTensor([[0, 0], [1, 2], [2, 1]],
                                                            [1.5, 2.0, 3.0], [3, 3]),
                                      "n": 1}], {"summarize": 1}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_writes_what_tensorflow_writes(case, capsys):
    args, kwargs = CASES[case]()
    op = ds.print(*args, output_stream=sys.stdout, **kwargs)
    assert isinstance(op, ds.Operation) and op.type == "PrintV2"
    with ds.Session() as sess:
        sess.run(op)
    assert capsys.readouterr().out == TF_WROTE[case]


def test_streams_stderr_by_default_a_file_and_the_log(tmp_path, capsys):
    path = tmp_path / "printed.txt"
    x = ds.constant([1.0, 2.5])
    to_file = ds.print("x:", x, output_stream=f"file://{path}")
    with ds.control_dependencies([ds.print("before", x)]):    # usable as a dependency
        y = ds.identity(x * 2.0)
    with ds.Session() as sess:
        sess.run(to_file)
        sess.run(to_file)
        np.testing.assert_array_equal(sess.run(y), [2.0, 5.0])
    assert path.read_text() == "x: [1 2.5]\nx: [1 2.5]\n"
    assert capsys.readouterr().err == "before [1 2.5]\n"
    ds.print(x, output_stream=ds.logging.info)      # accepted (TF's log(info))
    with pytest.raises(ValueError, match="Unsupported output stream"):
        ds.print(x, output_stream="stdout")


def test_one_string_scalar_is_printed_as_it_is_and_counts_are_checked(capsys):
    op = ds.print(ds.constant("just this"), output_stream=sys.stdout)
    assert op.inputs[0].op.type == "Const"
    with ds.Session() as sess:
        sess.run(op)
    assert capsys.readouterr().out == "just this\n"
    with pytest.raises(ValueError, match="2 placeholder"):
        string_format("{} {}", [ds.constant(1)])


def test_strings_format_is_tfs_string_format():
    formatted = ds.strings.format("x={} n={}", [ds.constant([1.5, 2.0]), ds.constant(3)])
    assert formatted.op.type == "StringFormat" and formatted.dtype == ds.string
    with ds.Session() as sess:
        assert sess.run(formatted) == b"x=[1.5 2] n=3"
