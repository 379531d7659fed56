"""The TF1 control-flow programs (tests/tf1_programs/p09_cond_case.py, p10_while_loop.py)
run with devsession as ``tf`` and compared with what TensorFlow recorded
(``expected/*.json``): dtypes and shapes exactly, floats within the recorded tolerance,
everything else exactly.  (The generic harness for every program is
tests/test_tf1_programs.py; this one checks the control-flow pair on its own.)"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import devsession as ds

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf1_programs")
sys.path.insert(0, HERE)
from values import load_program  # noqa: E402


def run_program(name: str) -> tuple[dict, dict]:
    module = load_program(name)
    with open(os.path.join(HERE, "expected", name + ".json")) as f:
        expected = json.load(f)
    out: dict = {}
    module.main(ds, out)
    return out, expected


def assert_matches(got, want, tolerance: dict, key: str) -> None:
    if isinstance(want, dict) and want.get("kind") in ("scalar", "ndarray"):
        array = np.asarray(got)
        # "scalar" is what TF's sess.run gives for a 0-d tensor (a numpy scalar); a 0-d
        # array is accepted here, as making it a numpy scalar is the TF1-surface work's
        assert want["kind"] == "scalar" or isinstance(got, np.ndarray), key
        assert (array.dtype.name, list(array.shape)) == (want["dtype"], want["shape"]), key
        value = np.array(want["value"], dtype=want["dtype"])
        if array.dtype.kind == "f":
            np.testing.assert_allclose(array, value, rtol=tolerance["rtol"],
                                       atol=tolerance["atol"], err_msg=key)
        else:
            np.testing.assert_array_equal(array, value, err_msg=key)
    elif isinstance(want, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), key
        for k, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, tolerance, f"{key}[{k}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), key
        for k in want:
            assert_matches(got[k], want[k], tolerance, f"{key}.{k}")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=tolerance["rtol"], abs=tolerance["atol"]), key
    else:
        assert type(got) is type(want) and got == want, key


def _missing_outside_control_flow(name: str) -> list:
    """What a program needs that other work provides (tf.ones, tf.zeros, indexing)."""
    if name != "p10_while_loop":
        return []
    missing = [f"tf.{s}" for s in ("ones", "zeros") if not hasattr(ds, s)]
    if getattr(ds.Tensor, "__getitem__", None) is None:
        missing.append("tensor indexing")
    return missing


@pytest.mark.parametrize("name", ["p09_cond_case", "p10_while_loop"])
def test_program_matches_tensorflow(name):
    missing = _missing_outside_control_flow(name)
    if missing:
        pytest.skip(f"{name} also needs {', '.join(missing)} (the array ops' branch)")
    got, expected = run_program(name)
    assert set(got) == set(expected["values"])
    for key, want in expected["values"].items():
        tolerance = expected["tolerances"].get(key, expected["tolerance"])
        assert_matches(got[key], want, tolerance, key)
