"""tf.train.QueueRunner's proto form, QueueRunnerDef, and the MetaGraphDef collection that
keeps a graph's runners (``queue_runners``), against what TensorFlow 2.21's tf.compat.v1
wrote for the same graph (tests/data/make_queue_runner_defs.py): the names devsession
exports, and a MetaGraphDef from either library imported with its runners, which
``start_queue_runners`` starts so that the same values come out of the queues."""

from __future__ import annotations

import base64
import json
import os

import pytest

import devsession as ds
import queue_runner_def_cases as cases
from devsession.proto.meta_graph_pb2 import MetaGraphDef
from devsession.proto.queue_runner_pb2 import QueueRunnerDef

with open(os.path.join(os.path.dirname(__file__), "data", "queue_runner_defs.json")) as f:
    TF = json.load(f)


def _runner_defs(meta) -> list:
    return [cases.runner_fields(QueueRunnerDef.FromString(b))
            for b in meta.collection_def["queue_runners"].bytes_list.value]


def _run_imported(meta) -> tuple[int, list]:
    with ds.Graph().as_default() as graph:
        ds.train.import_meta_graph(meta)
        runners = ds.get_collection(ds.GraphKeys.QUEUE_RUNNERS)
        with ds.Session() as sess:
            values = cases.run_steps(ds, sess, {k: graph.get_tensor_by_name(n)
                                                for k, n in cases.FETCHES.items()})
    return len(runners), cases.plain(values)


def test_exported_runners_are_the_queue_runner_defs_tf_writes():
    with ds.Graph().as_default():
        fetches = cases.build(ds)
        meta = ds.train.export_meta_graph()
        with ds.Session() as sess:
            assert cases.plain(cases.run_steps(ds, sess, fetches)) == TF["built"]
    assert _runner_defs(meta) == TF["runners"]


def test_a_meta_graph_tf_wrote_imports_with_runners_that_run():
    meta = MetaGraphDef.FromString(base64.b64decode(TF["meta_graph"]))
    assert _run_imported(meta) == (TF["imported_runners"], TF["imported"])


def test_a_meta_graph_devsession_wrote_imports_with_runners_that_run(tmp_path):
    with ds.Graph().as_default():
        cases.build(ds)
        ds.train.export_meta_graph(str(tmp_path / "model.meta"))
    with ds.Graph().as_default() as graph:
        ds.train.import_meta_graph(str(tmp_path / "model.meta"))
        assert len(ds.get_collection("queue_runners")) == TF["imported_runners"]
        with ds.Session() as sess:
            values = cases.run_steps(ds, sess, {k: graph.get_tensor_by_name(n)
                                                for k, n in cases.FETCHES.items()})
    assert cases.plain(values) == TF["imported"]


def test_to_proto_from_proto_and_scopes():
    with ds.Graph().as_default() as graph:
        with ds.name_scope("outer"):
            queue = ds.FIFOQueue(4, ds.int32, shapes=[], name="q")
            runner = ds.train.QueueRunner(queue, [queue.enqueue(7)],
                                          queue_closed_exception_types=(
                                              ds.errors.CancelledError,))
        proto = runner.to_proto()
        assert proto.queue_name == "outer/q"
        assert list(proto.queue_closed_exception_types) == [1]
        assert runner.to_proto(export_scope="other") is None
        assert runner.to_proto(export_scope="outer").queue_name == "q"

        back = ds.train.QueueRunner.from_proto(proto)
        assert back.queue is graph.get_operation_by_name("outer/q")
        assert back.name == "outer/q"
        assert [op.name for op in back.enqueue_ops] == ["outer/q_enqueue"]
        assert back.close_op.name == "outer/q_Close"
        assert back.cancel_op.name == "outer/q_Close_1"
        assert back.queue_closed_exception_types == (ds.errors.CancelledError,)

        scoped = ds.train.QueueRunner(queue_runner_def=runner.to_proto(export_scope="outer"),
                                      import_scope="outer")
        assert scoped.queue is back.queue
        proto.ClearField("queue_closed_exception_types")
        assert ds.train.QueueRunner.from_proto(proto).queue_closed_exception_types == (
            ds.errors.OutOfRangeError,)
        with pytest.raises(ValueError, match="mutually exclusive"):
            ds.train.QueueRunner(queue, queue_runner_def=proto)
        with pytest.raises(KeyError):
            ds.train.QueueRunner.from_proto(QueueRunnerDef(queue_name="missing"))
