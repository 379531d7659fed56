"""The ``devsession`` command line, run in-process through ``cli.main``."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession.cli import main


def test_devices_lists_cpu(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert "/job:localhost/replica:0/task:0/device:CPU:0" in out


def test_factories_shows_verdicts_and_pick(capsys):
    assert main(["factories", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "DIRECT_SESSION" in out and "accepts" in out and "picked: DIRECT_SESSION" in out


def test_factories_no_match_exits_nonzero(capsys):
    assert main(["factories", "--target", "localhost:2222"]) == 1
    out = capsys.readouterr().out
    assert "declines" in out and "did you mean grpc://localhost:2222?" in out


def test_run_saved_graph_with_feed_and_trace(tmp_path, capsys):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        ds.multiply(ds.reduce_sum(x), 2.0, name="y")
    graph_path = ds.write_graph(g, str(tmp_path / "g.pb"))
    np.save(tmp_path / "x.npy", np.array([1.0, 2.0, 3.5], np.float32))
    trace, out = tmp_path / "t.json", tmp_path / "out.npz"
    assert main(["run", graph_path, "--fetch", "y:0", "--feed", f"x:0={tmp_path / 'x.npy'}",
                 "--trace", str(trace), "--out", str(out), "--device", "cpu"]) == 0
    assert "y:0: float32 []" in capsys.readouterr().out
    assert float(np.load(out)["y_0"]) == 13.0
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name") == "y" for e in events)


def test_run_reports_errors_without_traceback(tmp_path, capsys):
    g = ds.Graph()
    with g.as_default():
        ds.placeholder(ds.float32, (2,), name="x")
    graph_path = ds.write_graph(g, str(tmp_path / "g.pb"))
    assert main(["run", graph_path, "--fetch", "x:0"]) == 2
    assert "InvalidArgumentError" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "missing.pb"), "--fetch", "x:0"]) == 2


def test_demo_json(tmp_path, capsys, monkeypatch):
    from devsession import demo

    monkeypatch.setattr(demo, "_time", lambda fn, repeats: (fn(), 0.001)[1])
    path = tmp_path / "demo.json"
    assert main(["demo", "--json", str(path)]) == 0
    rows = json.loads(path.read_text())
    assert rows and all(r["matches_numpy"] for r in rows)
    assert {r["ran_on"] for r in rows} >= {"CPU:0"}


def test_run_with_variables_needs_init(tmp_path, capsys):
    g = ds.Graph()
    with g.as_default():
        v = ds.Variable([1.0, 2.0], name="v")
        ds.multiply(v, 3.0, name="y")
    graph_path = ds.write_graph(g, str(tmp_path / "g.pb"))
    assert main(["run", graph_path, "--fetch", "y:0"]) == 2
    assert "FailedPreconditionError" in capsys.readouterr().err
    assert main(["run", graph_path, "--fetch", "y:0", "--init"]) == 0
    assert "[3. 6.]" in capsys.readouterr().out


@pytest.mark.parametrize("args, says", [
    (["--intra-op-threads", "-1"], "argument --intra-op-threads: '-1': give 0 (every core) "
                                   "or more threads"),
    (["--data-port", "70000"], "argument --data-port: '70000' is not a port")])
def test_worker_arguments_out_of_range_say_why(args, says, capsys):
    """A bad count or port is refused before anything serves, and the message says what
    is wrong with it (argparse hides a plain ValueError's text)."""
    with pytest.raises(SystemExit) as exit_:
        main(["worker", "--cluster", "worker=127.0.0.1:0", "--task", "0", *args])
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err


def test_run_a_savedmodel_by_its_signature_keys(tmp_path, capsys):
    """A SavedModel directory runs through its serving signature: feeds by input key,
    every output fetched by default, values restored from its checkpoint."""
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, (None, 2), name="x")
        w = ds.Variable(np.array([[1.0], [2.0]], np.float32), name="w")
        y = ds.matmul(x, w, name="y")
        with ds.Session() as sess:
            sess.run(w.initializer)
            sess.run(ds.assign(w, [[3.0], [-1.0]]))
            ds.saved_model.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"y": y})
    np.save(tmp_path / "x.npy", np.array([[1.0, 1.0], [2.0, 0.0]], np.float32))
    out = tmp_path / "out.npz"
    assert main(["run", str(tmp_path / "m"), "--feed", f"x={tmp_path / 'x.npy'}",
                 "--out", str(out)]) == 0
    assert "y: float32 [2, 1]" in capsys.readouterr().out
    np.testing.assert_array_equal(np.load(out)["y"], [[2.0], [6.0]])
    assert main(["run", str(tmp_path / "m"), "--signature", "other"]) == 2
    assert "no signature 'other'" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "m"), "--tag", "train"]) == 2
    assert "could not be found in SavedModel" in capsys.readouterr().err


def test_show_describes_a_savedmodel_as_saved_model_cli_does(capsys):
    """The lines TensorFlow's ``saved_model_cli show --all`` prints for the same
    SavedModel (compared by hand once; its op set is printed sorted here)."""
    vocab = os.path.join(os.path.dirname(__file__), "data", "tf_saved_models", "vocab")
    assert main(["show", vocab]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index("signature_def['serving_default']:")
    assert out[start:start + 15] == [
        "signature_def['serving_default']:",
        "  The given SavedModel SignatureDef contains the following input(s):",
        "    inputs['words'] tensor_info:",
        "        dtype: DT_STRING",
        "        shape: (-1)",
        "        name: words:0",
        "  The given SavedModel SignatureDef contains the following output(s):",
        "    outputs['ids'] tensor_info:",
        "        dtype: DT_INT64",
        "        shape: (-1)",
        "        name: hash_table_Lookup/SelectV2:0",
        "    outputs['vectors'] tensor_info:",
        "        dtype: DT_FLOAT",
        "        shape: (-1, 3)",
        "        name: vectors/Identity:0"]
    assert "MetaGraphDef with tag-set: 'train, gpu' contains the following SignatureDefs:" in out
    assert "  Method name is: tensorflow/serving/regress" in out
    ops = [line for line in out if line.startswith("The MetaGraph with tag set ['serve']")]
    assert "'InitializeTableFromTextFileV2'" in ops[0] and "'VariableV2'" in ops[0]
    assert main(["show", os.path.dirname(vocab)]) == 2
    assert "SavedModel file does not exist" in capsys.readouterr().err
