"""Checks by hand (never run by the tests) that TensorFlow trains the training graphs
``to_tf_graph_def`` writes, step for step as devsession does:

    /work/peers/bin/python tests/data/tf_export/check_tf_trains_export.py

It runs itself under devsession's venv (``--export DIR``) to build each model of
``tests/tf_export_training_cases.py`` (an MLP with SGD, Adam and clipped Nesterov
momentum, a convnet with tf.layers' batch norm, an embedding with row updates, shapes
known only at run time), train it a few steps with devsession (the losses) and write the
whole graph in TF's form.  Then TensorFlow imports each GraphDef
(``tf.compat.v1.import_graph_def``) into a CPU session, runs the initializer and the
train op as many steps, and compares the losses.
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
DEVSESSION_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
STEPS = 6


def export(out_dir):
    sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]
    import devsession as ds
    from devsession.tf_export import to_tf_graph_def
    from tf_export_training_cases import CASES, train_losses

    for name, build in CASES.items():
        graph = ds.Graph()
        with graph.as_default():
            case = build()
        with ds.Session(graph=graph) as sess:
            losses = train_losses(sess.run, case, STEPS)
        private = sorted({op.type for op in graph.get_operations()
                          if op.type.startswith("_") or op.type.endswith("V2")
                          and "Backprop" in op.type})
        with open(os.path.join(out_dir, f"{name}.pb"), "wb") as f:
            f.write(to_tf_graph_def(graph).SerializeToString())
        np.savez(os.path.join(out_dir, f"{name}.npz"), **case.feeds)
        with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
            json.dump({"loss": case.loss, "train": case.train, "init": case.init,
                       "losses": [float(x) for x in losses], "private": private}, f)


def check(out_dir) -> bool:
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    ok = True
    names = sorted(n[:-5] for n in os.listdir(out_dir) if n.endswith(".json"))
    for name in names:
        with open(os.path.join(out_dir, f"{name}.json")) as f:
            case = json.load(f)
        graph_def = tf.compat.v1.GraphDef()
        with open(os.path.join(out_dir, f"{name}.pb"), "rb") as f:
            graph_def.ParseFromString(f.read())
        feeds = dict(np.load(os.path.join(out_dir, f"{name}.npz")))
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.import_graph_def(graph_def, name="")
        config = tf.compat.v1.ConfigProto(device_count={"GPU": 0})
        with tf.compat.v1.Session(graph=graph, config=config) as sess:
            sess.run(case["init"])
            feed = {f"{k}:0": v for k, v in feeds.items()}
            losses = [sess.run([case["loss"], case["train"]], feed)[0] for _ in range(STEPS)]
        same = np.allclose(losses, case["losses"], rtol=1e-5, atol=1e-6)
        ok &= same
        print(f"{name}: {len(graph_def.node)} nodes, devsession's private ops written as "
              f"TF's: {', '.join(case['private'])}")
        print(f"  devsession {np.round(case['losses'], 6).tolist()}")
        print(f"  tensorflow {np.round(np.asarray(losses, np.float64), 6).tolist()} "
              f"{'same' if same else 'DIFFERENT'} (max rel diff "
              f"{np.max(np.abs(np.subtract(losses, case['losses'])) / np.abs(case['losses'])):.1e})")
    return ok


def main():
    if sys.argv[1:2] == ["--export"]:
        export(sys.argv[2])
        return
    out_dir = tempfile.mkdtemp()
    subprocess.run([DEVSESSION_PYTHON, os.path.abspath(__file__), "--export", out_dir],
                   check=True, cwd=ROOT)
    ok = check(out_dir)
    print("TensorFlow", __import__("tensorflow").__version__, "trains every export as "
          "devsession does" if ok else "DIFFERS")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
