"""What several recorders share: ``ops_of`` a GraphDef, ``write_graph_def``,
``assert_control_flow`` (the TF1 cond and loop recorders, built as TF1 or TF 2 builds
them), ``fetch_entries`` (make_tf_nn_spellings.py's too), and ``record_fetches``: what make_tf_composite_nodes.py and make_tf_grad_ops.py
write for a graph TensorFlow ran: ``<stem>.pb`` (the GraphDef) and ``<stem>.npz`` holding
``feed:<placeholder>``, and per fetched tensor ``fetch:<tensor name>`` (TF's value),
``name:<key>`` (its name) and ``static:<tensor name>`` (TF's static shape, -1 for an
unknown dimension, [-2] for an unknown rank).  Run with TensorFlow installed."""

import os

import numpy as np


def record_fetches(directory: str, stem: str, graph, outs: dict, placeholders: dict,
                   feeds: dict, tf) -> object:
    """Runs ``outs`` (key -> tensor) in ``graph`` with ``feeds`` (key -> value, fed to
    ``placeholders[key]``), writes both files under ``directory``; returns the
    GraphDef."""
    graph_def = graph.as_graph_def()
    with tf.Session(graph=graph) as sess:
        values = sess.run(outs, {placeholders[k]: v for k, v in feeds.items()})
    data = {f"feed:{k}": v for k, v in feeds.items()}
    data.update(fetch_entries(outs, values))
    with open(os.path.join(directory, f"{stem}.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    np.savez(os.path.join(directory, f"{stem}.npz"), **data)
    return graph_def


def fetch_entries(outs: dict, values: dict) -> dict:
    """``fetch:``, ``name:`` and ``static:`` entries of ``outs`` (key -> tensor) and the
    ``values`` TF computed for them (key -> value)."""
    data = {}
    for key, tensor in outs.items():
        data[f"fetch:{tensor.name}"] = values[key]
        data[f"name:{key}"] = np.array(tensor.name)
        dims = tensor.shape.as_list() if tensor.shape.rank is not None else [-2]
        data[f"static:{tensor.name}"] = np.array([-1 if d is None else d for d in dims])
    return data


def ops_of(graph_def) -> set:
    return {node.op for node in graph_def.node}


def write_graph_def(directory: str, name: str, graph_def) -> None:
    with open(os.path.join(directory, name), "wb") as f:
        f.write(graph_def.SerializeToString())


def assert_control_flow(flavour: str, graph_def, v1_ops: set, v2_ops: set) -> None:
    """``graph_def`` holds all of ``v1_ops`` (TF1's control flow, ``flavour`` "v1") or
    one of ``v2_ops`` (TF 2's functional ones, "v2")."""
    ops = ops_of(graph_def)
    assert v1_ops <= ops if flavour == "v1" else ops & v2_ops, ops
