"""``ds.train.write_graph``: TF1's ``tf.train.write_graph(graph_or_graph_def, logdir,
name, as_text=True)``: a graph written where TensorBoard and ``read_graph_def`` find it.

Text format by default, as TF1's (``graph.pbtxt``); binary with ``as_text=False``.  The
directory is created when missing; the file is replaced atomically.  It also writes a
MetaGraphDef (what ``export_meta_graph`` writes with), as TF1's accepts any message.

devsession's older top-level ``ds.write_graph(graph, path)`` (binary, one path argument)
is another function and stays as it is.

    path = ds.train.write_graph(sess.graph, "/tmp/run", "graph.pbtxt")
    graph_def = ds.read_graph_def(path)          # text or binary alike
"""

from __future__ import annotations

import os

from ..graph import Graph
from ..proto_files import write_message

__all__ = ["write_graph"]


def write_graph(graph_or_graph_def, logdir, name, as_text: bool = True) -> str:
    """Write a Graph, GraphDef or MetaGraphDef to ``logdir/name``; returns that path."""
    message = graph_or_graph_def.as_graph_def() if isinstance(graph_or_graph_def, Graph) \
        else graph_or_graph_def
    if not hasattr(message, "SerializeToString"):
        raise TypeError(f"write_graph writes a Graph, GraphDef or MetaGraphDef, not "
                        f"{type(graph_or_graph_def).__name__}.")
    logdir = os.fspath(logdir)
    if logdir:
        os.makedirs(logdir, exist_ok=True)
    return write_message(os.path.join(logdir, os.fspath(name)), message, as_text=as_text)
