"""GraphDefs with TF1 control flow that TensorFlow wrote (tests/data/tf_v1_conds.pb,
tf_v1_whiles.pb, tf_tensor_arrays.pb...), with TF's values for several feeds: what the
cond, while-loop and TensorArray import tests share.  Each ``<stem>.npz`` holds
``case<k>:feed:<name>`` and ``case<k>:fetch:<tensor>``; the checks compare devsession's
values with TF's for every case, after a round trip through devsession's own GraphDef,
and check that what does not import is refused naming the node."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.function_graph import function_nodes
from tf_recorded import DATA

WHILE_TYPES = ("While", "StatelessWhile")


def imported(stem: str, **kwargs) -> ds.Graph:
    """A new graph holding ``tests/data/<stem>.pb`` (``kwargs`` go to import_graph_def)."""
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(ds.read_graph_def(f"{DATA}/{stem}.pb"), **kwargs)
    return graph


def recorded_cases(stem: str) -> list:
    """(feeds, {tensor name: TF's value}) per recorded case of ``tests/data/<stem>.npz``."""
    data = np.load(f"{DATA}/{stem}.npz")
    out = []
    for case in sorted({k.split(":")[0] for k in data}):
        feeds = {f"{k.split(':')[2]}:0": data[k] for k in data if k.startswith(f"{case}:feed:")}
        fetches = {k[len(case) + 7:]: data[k] for k in data if k.startswith(f"{case}:fetch:")}
        out.append((feeds, fetches))
    return out


def body_types(graph, name: str) -> set:
    """The op types in the body of the While ``name``."""
    return {t for _, t in function_nodes(graph.get_operation_by_name(name).attrs["body"])}


def assert_computes_cases(graph, cases: list, shown: tuple, init=None, **tolerance) -> None:
    """``graph`` computes TF's value of every fetch of every case, shape and dtype too
    (after running ``init`` when given); a failure names the fetch and the feeds
    ``shown`` (names without ``:0``)."""
    with ds.Session(graph=graph) as sess:
        if init is not None:
            sess.run(init)
        for feeds, want in cases:
            names = list(want)
            for name, value in zip(names, sess.run(names, feeds)):
                message = " ".join([name, *(f"{f}={feeds[f'{f}:0']}" for f in shown)])
                assert value.shape == want[name].shape, message
                assert value.dtype == want[name].dtype, message
                np.testing.assert_allclose(value, want[name], err_msg=message, **tolerance)


def assert_computes_modes(graph, data, fetches: list) -> None:
    """``graph`` computes TF's value of each of ``fetches`` with ``is_training`` fed
    true (``train:<fetch>`` in ``data``) and false (``infer:<fetch>``), from
    ``feed:x``; the two modes differ, so a swapped branch would show."""
    with ds.Session(graph=graph) as sess:
        for mode, training in (("train", True), ("infer", False)):
            values = sess.run(fetches, {"x:0": data["feed:x"], "is_training:0": training})
            for name, value in zip(fetches, values):
                np.testing.assert_allclose(value, data[f"{mode}:{name}"], rtol=1e-5,
                                           atol=1e-5, err_msg=f"{mode} {name}")
    assert not np.allclose(data["train:out:0"], data["infer:out:0"], atol=1e-3)


def assert_round_trips(stem: str, case: int, names: list, **tolerance) -> None:
    """``stem`` imported under ``import/``, written as devsession's GraphDef and imported
    again, still computes TF's values of ``names`` for recorded case ``case``."""
    graph = imported(stem, name="import")
    again = ds.Graph()
    with again.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    feeds, want = recorded_cases(stem)[case]
    with ds.Session(graph=again) as sess:
        got = sess.run([f"import/{n}" for n in names],
                       {f"import/{k}": v for k, v in feeds.items()})
    for name, value in zip(names, got):
        np.testing.assert_allclose(value, want[name], err_msg=name, **tolerance)


def assert_refused(graph_def, node: str, message: str) -> None:
    """Importing ``graph_def`` is an UnimplementedError naming ``node`` and matching
    ``message``, and leaves the graph empty."""
    graph = ds.Graph()
    with pytest.raises(ds.errors.UnimplementedError, match=f"Node '{node}'.*{message}"):
        ds.import_graph_def(graph_def, graph=graph)
    assert graph.get_operations() == []
