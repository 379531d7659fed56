"""What several recorders write for a graph TensorFlow ran (make_tf_composite_nodes.py,
make_tf_grad_ops.py): ``<stem>.pb`` (the GraphDef) and ``<stem>.npz`` holding
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
    for key, tensor in outs.items():
        data[f"fetch:{tensor.name}"] = values[key]
        data[f"name:{key}"] = np.array(tensor.name)
        dims = tensor.shape.as_list() if tensor.shape.rank is not None else [-2]
        data[f"static:{tensor.name}"] = np.array([-1 if d is None else d for d in dims])
    with open(os.path.join(directory, f"{stem}.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    np.savez(os.path.join(directory, f"{stem}.npz"), **data)
    return graph_def
