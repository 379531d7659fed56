"""Every TF1 program in ``tests/tf1_programs/`` run with devsession as ``tf``, compared with
what TensorFlow printed when it ran the same program (``expected/*.json``, recorded once
by ``record.py`` under tensorflow-cpu; TensorFlow is not needed here).

Values compare as README.md says: kind, dtype and shape exactly, floats within the
recorded tolerances, everything else exactly.  For the summary programs the event files
are also read back with TensorBoard's ``EventAccumulator`` and compared with what the
recorder read from TensorFlow's (tags, steps, scalar values, and that a graph is there).

Programs that need what other branches are building are marked ``xfail(strict=True)``
with the reason, so the list is explicit and turns red when a merge makes one pass.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

import devsession as ds

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf1_programs")
sys.path.insert(0, HERE)
from values import (assert_matches, encode, load_program, program_names,  # noqa: E402
                    read_event_tags)

PROGRAMS = program_names()
NEEDS: dict = {}
# Where devsession differs from TensorFlow on purpose: key -> why (the key is not compared;
# every other key of the program still is).
DIFFERS = {
    "p03_variables": {"tf1_ref_dtype_name": "TF1's reference dtypes (float32_ref) are an "
                      "implementation detail devsession does not expose"},
    "p20_save_restore": {
        "checkpoint_files": "devsession's checkpoint format is its own (an .npz and a JSON "
                            "index, written atomically), not TF's bundle",
        "restore_missing_error": "API.md: restoring a missing checkpoint raises "
                                 "NotFoundError (TF raises ValueError)"},
    "p22_graphs_control_deps": dict.fromkeys(
        ["op_types", "op_by_name", "graph_def_nodes"], "ds.add builds TF1's Add; TensorFlow 2's compat.v1 builds "
        "AddV2, the same op"),
}
DIFFERS["p28_sequence_training"] = {
    "update_ops": "with a bool tensor for training, TF's batch norm over a matrix builds "
                  "conds (its update ops are their Merge nodes); devsession selects, and the "
                  "update ops are the AssignMovingAvg assignments themselves"}
DIFFERS["p79_gaussian_process"] = {
    "cholesky_error": "a matrix that is not positive definite is InvalidArgumentError from "
                      "Cholesky, as TF1 raised it (the error GPflow 1.x users hit); TF 2.21's "
                      "CPU kernel fills the factor with NaN and warns instead"}
DIFFERS["p95_normalizing_flow"] = {
    "cholesky_not_pd": DIFFERS["p79_gaussian_process"]["cholesky_error"]}
DIFFERS["p103_spectral_norm_gan"] = {
    "channels_error": "TF1's conv2d_transpose raises ValueError when a list output_shape "
                      "names channels the filter does not make (TF 1.x nn_ops.py), as "
                      "devsession does; TF 2.21's compat.v1 builds it",
    "run_errors": "an output_shape that does not fit the input and strides is "
                  "InvalidArgumentError at run, TF's own kernel's error; TF 2.21's oneDNN "
                  "CPU kernel (on by default) raises AbortedError"}
WRITES_EVENTS = {"p21_summaries", "p26_summaries_standalone"}


def _params():
    for name in PROGRAMS:
        marks = []
        if name in NEEDS:
            marks.append(pytest.mark.xfail(strict=True, reason=f"needs {NEEDS[name]}"))
        yield pytest.param(name, marks=marks, id=name)


def _expected(name) -> dict:
    with open(os.path.join(HERE, "expected", name + ".json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", list(_params()))
def test_program_prints_what_tf1_printed(name):
    _check_program(name)


@pytest.fixture(scope="module")
def local_server():
    server = ds.train.Server.create_local_server()
    yield server
    server.stop()


@pytest.mark.parametrize("name", list(_params()))
def test_program_prints_the_same_with_its_sessions_on_a_cluster(name, local_server,
                                                                monkeypatch):
    """Every ``tf.Session()`` of the program is a session on a local server's target (as
    a TF1 program pointed at a cluster): the same values, through the partitioned
    cluster runtime."""
    direct_init = ds.Session.__init__

    def on_the_cluster(self, target="", graph=None, config=None):
        direct_init(self, target or local_server.target, graph, config)
    monkeypatch.setattr(ds.Session, "__init__", on_the_cluster)
    _check_program(name)


def _check_program(name):
    if name in WRITES_EVENTS:
        pytest.importorskip("tensorboard", reason="the summary programs write event files "
                                                  "with the tensorboard extra")
    expected = _expected(name)
    module = load_program(name)
    ds.reset_default_graph()
    out = {}
    try:
        module.main(ds, out)
        assert ds.get_default_session() is None, "the program left a default session behind"
        got = {k: encode(v) for k, v in out.items() if not k.startswith("_")}
        assert sorted(got) == sorted(expected["values"])
        for key, want in expected["values"].items():
            if key in DIFFERS.get(name, {}):
                continue
            tolerance = {**expected["tolerance"], **expected["tolerances"].get(key, {})}
            assert_matches(got[key], want, tolerance, key)
        for label, logdir in out.get("_logdirs", {}).items():
            seen = read_event_tags(logdir)
            want = expected["recorder_observed"][f"event_files_{label}"]
            tolerance = {"rtol": 1e-5, "atol": 1e-5}
            assert_matches(json.loads(json.dumps(seen)), want, tolerance, f"events[{label}]")
    finally:
        for logdir in sorted(out.get("_logdirs", {}).values(), key=len):
            shutil.rmtree(logdir, ignore_errors=True)
