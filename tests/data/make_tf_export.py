"""Records tests/data/tf_export/: GraphDefs devsession exported in TensorFlow's form
(``devsession/tf_export.py``), each imported and run by TensorFlow.  Run with the peers
interpreter, which has TensorFlow and devsession (editable) installed (not a test):

    /work/peers/bin/python tests/data/make_tf_export.py

For each model of tests/tf_export_cases.py it builds the model with devsession, freezes it
(``ds.graph_util.convert_variables_to_constants``, or ``to_tf_graph_def`` for a graph
without variables) and writes:

  NAME.pb    the GraphDef devsession exported (tests/test_tf_export.py checks that the
             export of the same model today is this one, node by node)
  NAME.npz   ``feed:<placeholder>`` the values fed, ``fetch:<tensor>`` what TensorFlow
             computed from NAME.pb (the test checks devsession computes the same)

and manifest.json: the TensorFlow version, each model's op types, and
``every_op_types``: the op types of tests/test_graph_def.py's graph of every registered
op whose export TensorFlow imported (the nodes TF cannot read, and what reads them, are
left out; the test checks that each of these types still exports).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))                    # tests/

import devsession as ds  # noqa: E402
from devsession.tf_export import _Exporter, _Node  # noqa: E402
import tf_export_cases  # noqa: E402

tf.disable_v2_behavior()
OUT = os.path.join(HERE, "tf_export")


def run_in_tf(graph_def: bytes, case) -> dict:
    parsed = tf.GraphDef.FromString(graph_def)
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(parsed, name="")
    config = tf.ConfigProto(device_count={"GPU": 0}, intra_op_parallelism_threads=1,
                            inter_op_parallelism_threads=1)
    with tf.Session(graph=graph, config=config) as sess:
        values = sess.run(case.outputs, {f"{k}:0": v for k, v in case.feeds.items()})
    return dict(zip(case.outputs, values))


class _NoPytest:
    """Stands in for pytest (which the peers venv lacks) while test_graph_def.py and the
    modules it reads are imported for their graph builder: a decorator that changes
    nothing, whatever attribute or arguments it is reached through."""

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return args[0] if len(args) == 1 and callable(args[0]) and not kwargs else self


def every_op_types() -> list:
    """The op types of the every-op graph whose export TF imports as a whole."""
    sys.modules.setdefault("pytest", _NoPytest())
    from test_graph_def import build_every_op_graph

    ops = build_every_op_graph().get_operations()
    exporter, left_out = _Exporter({op.name for op in ops}), set()
    for op in ops:
        node = _Node.of(op)
        if {text.split(":")[0] for text in node.inputs} & left_out or set(node.control) & left_out:
            left_out.add(op.name)
            continue
        size = len(exporter.out.node)
        try:
            exporter.export(node)
        except ds.errors.UnimplementedError:
            del exporter.out.node[size:]
            left_out.add(op.name)
    with tf.Graph().as_default():
        tf.import_graph_def(tf.GraphDef.FromString(exporter.out.SerializeToString()), name="")
    print(f"every-op graph: TF imported {len(exporter.out.node)} nodes; left out "
          f"{sorted({op.type for op in ops if op.name in left_out})}")
    return sorted({op.type for op in ops if op.name not in left_out})


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    manifest = {"tensorflow_version": tf.__version__, "models": {}}
    for name in tf_export_cases.CASES:
        graph, case, graph_def = tf_export_cases.frozen(name)
        data = graph_def.SerializeToString(deterministic=True)
        with open(os.path.join(OUT, f"{name}.pb"), "wb") as f:
            f.write(data)
        fetched = run_in_tf(data, case)
        ours = dict(zip(case.outputs, tf_export_cases.run_devsession(graph, case)))
        for key, value in fetched.items():
            value, mine = np.asarray(value), np.asarray(ours[key])
            assert value.dtype == mine.dtype and value.shape == mine.shape, (name, key)
            diff = np.abs(value.astype(np.float64) - mine).max() if value.size and \
                value.dtype.kind in "fiub" else 0.0
            print(f"{name} {key}: {value.dtype} {value.shape}, |TF - devsession| <= {diff:.3g}")
        np.savez(os.path.join(OUT, f"{name}.npz"),
                 **{f"feed:{k}": np.asarray(v) for k, v in case.feeds.items()},
                 **{f"fetch:{k}": np.asarray(v) for k, v in fetched.items()})
        manifest["models"][name] = {"outputs": case.outputs,
                                    "op_types": sorted({node.op for node in graph_def.node})}
    manifest["every_op_types"] = every_op_types()
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
