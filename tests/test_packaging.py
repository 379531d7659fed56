"""Packaging facts: lazy imports, the checked-in protobuf code, the kernels mapping."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_import_devsession_loads_no_heavy_dependency():
    code = ("import sys, devsession as ds; g = ds.Graph(); "
            "print(sorted(m for m in ('numba', 'cupy', 'grpc') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_kernels_are_installed_under_the_package():
    import devsession.kernels

    assert devsession.kernels.__name__ == "devsession.kernels"
    assert os.path.samefile(os.path.dirname(devsession.kernels.__file__),
                            os.path.join(ROOT, "kernels")) or "site-packages" in \
        devsession.kernels.__file__


def test_generated_protobuf_code_matches_proto_files():
    pytest.importorskip("grpc_tools.protoc", reason="grpcio-tools not installed")
    proto_dir = os.path.join(ROOT, "devsession", "proto")
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["bash", os.path.join(ROOT, "ci", "gen-proto"), out], check=True,
                       env={**os.environ, "PYTHON": sys.executable})
        generated = sorted(os.listdir(out))
        assert "graph_pb2.py" in generated
        for name in generated:
            with open(os.path.join(out, name)) as f, \
                    open(os.path.join(proto_dir, name)) as checked_in:
                assert f.read() == checked_in.read(), (
                    f"devsession/proto/{name} is stale: regenerate with ci/gen-proto")


def test_protobuf_runtime_accepts_generated_code():
    from devsession.proto import graph_pb2

    assert graph_pb2.GraphDef().version == 0


def test_every_package_folder_is_installed():
    """pyproject's package list names every folder with an __init__.py (an editable
    install would hide a missing one; a wheel would not have it)."""
    tomllib = pytest.importorskip("tomllib", reason="Python < 3.11 has no tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    roots = {"devsession": "devsession", "devsession.kernels": "kernels",
             "devsession.benchmarks": "benchmarks"}
    found = set()
    for package, folder in roots.items():
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            if "__init__.py" in files:
                rel = os.path.relpath(dirpath, os.path.join(ROOT, folder))
                found.add(package if rel == "." else f"{package}.{rel.replace(os.sep, '.')}")
    assert found == listed


def test_a_cpu_session_never_tries_to_import_cupy():
    """device="cpu" must not probe for GPUs: the probe imports cupy, which can take
    seconds (or fail noisily) on machines that have it."""
    code = """
import sys
asked = []
class Recorder:
    def find_spec(self, name, path=None, target=None):
        if name == "cupy" or name.startswith("cupy."):
            asked.append(name)
        return None
sys.meta_path.insert(0, Recorder())
import numpy as np, devsession as ds
x = ds.placeholder(ds.float32, (None, 3), name="x")
y = ds.reduce_sum(ds.nn.relu(x * 2.0), axis=1)
with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
    out = sess.run(y, {x: np.ones((2, 3), np.float32)})
    notes = sess.placement_notes()
print(out.tolist(), notes, asked)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[6.0, 6.0] {} []"
