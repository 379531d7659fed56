"""GraphDefs TensorFlow wrote, with the values TF computed for them (tests/data/*.pb and
*.npz, made by the scripts beside them): import one and run every recorded fetch with
the recorded feeds.  The npz holds ``feed:<name>``, ``fetch:<tensor>`` and
``static:<tensor>`` (TF's static shape: dims, -1 unknown, [-2] unknown rank)."""

from __future__ import annotations

import os

import numpy as np

import devsession as ds

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def run_recorded(stem: str):
    """(graph, fetch names, our values, the npz) for ``tests/data/<stem>.pb``."""
    graph_def = ds.read_graph_def(os.path.join(DATA, f"{stem}.pb"))
    data = np.load(os.path.join(DATA, f"{stem}.npz"))
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def, name="")
    feeds = {f"{k[5:]}:0": data[k] for k in data if k.startswith("feed:")}
    names = [k[6:] for k in data if k.startswith("fetch:")]
    with ds.Session(graph=graph) as sess:
        values = sess.run(names, feeds)
    return graph, names, values, data


def tf_static_shape(data, name: str) -> ds.TensorShape:
    """TF's static shape of tensor ``name`` as the npz recorded it."""
    dims = data[f"static:{name}"].tolist()
    return ds.TensorShape(None if dims == [-2] else [None if d < 0 else d for d in dims])


def recorded_keys(data) -> dict:
    """{case key: tensor name} of a case module's recording (``key:<key>`` entries)."""
    return {k[4:]: str(data[k]) for k in data if k.startswith("key:")}


def assert_imported_as_tf(recorded, close) -> None:
    """Every fetch of ``run_recorded``'s imported graph is TF's value (``close(got,
    want, name)`` asserts it) and has TF's static shape."""
    graph, names, values, data = recorded
    for name, value in zip(names, values):
        close(value, data[f"fetch:{name}"], name)
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name


def assert_built_as_tf(cases, data, session, close, count: int) -> None:
    """A case module's program (``placeholders``, ``all_ops``) built by devsession in the
    default graph and run in ``session()`` on the recorded feeds gives TF's ``count``
    values."""
    keys = recorded_keys(data)
    placeholders = cases.placeholders(ds)
    outs = cases.all_ops(ds, placeholders)
    with session() as sess:
        got = sess.run(outs, {placeholders[k]: data[f"feed:{k}"] for k in placeholders})
    assert set(outs) == set(keys) and len(outs) == count
    for key in outs:
        close(got[key], data[f"fetch:{keys[key]}"], key)
