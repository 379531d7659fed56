"""What a recorder of a case module writes (tests/data/make_tf_signal.py and the others
built the same way): TF's GraphDef of the module's computations (``<stem>.pb``) and an
npz of its feeds, TF's fetched values and static shapes (``<stem>.npz``: ``feed:<key>``,
``fetch:<tensor name>``, ``key:<key>`` -> tensor name, ``static:<tensor name>``, -1 for an
unknown dimension and [-2] for an unknown rank), which tests/tf_recorded.py reads.  A
case module has ``feeds()``, ``placeholders(tf)`` and ``all_ops(tf, placeholders)``."""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def record(tf, cases, stem: str) -> None:
    """Build ``cases`` in a fresh TF graph, run it on its feeds, write the two files."""
    graph = tf.Graph()
    with graph.as_default():
        placeholders = cases.placeholders(tf)
        outs = cases.all_ops(tf, placeholders)
    feeds = cases.feeds()
    with tf.Session(graph=graph) as sess:
        values = sess.run(outs, {placeholders[k]: v for k, v in feeds.items()})
    names = {k: t.name for k, t in outs.items()}
    with open(os.path.join(HERE, f"{stem}.pb"), "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                           [-1 if d is None else d for d in t.shape.as_list()],
                                           np.int64) for t in outs.values()}
    np.savez(os.path.join(HERE, f"{stem}.npz"),
             **{f"feed:{k}": v for k, v in feeds.items()},
             **{f"fetch:{names[k]}": v for k, v in values.items()},
             **{f"key:{k}": np.array(names[k]) for k in outs}, **static)
    print(len(outs), "fetches;", sorted({n.op for n in graph.as_graph_def().node}))
