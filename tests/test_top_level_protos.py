"""TF1's top-level names beside the ops: the proto classes (tf.NodeDef, tf.AttrValue,
tf.NameAttrList, tf.MetaGraphDef, tf.TensorInfo write TensorFlow's bytes, recorded in
tests/data/tf_top_level_protos.json by make_tf_top_level_protos.py), TensorBoard's
tf.Event / tf.SessionLog, tf.OpError, tf.version, and tf.GraphOptions in a ConfigProto."""

import json
import logging
import os

import numpy as np
import pytest

import devsession as ds
import top_level_proto_cases
from devsession.config import session_options

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                       "tf_top_level_protos.json")))["bytes"]


@pytest.mark.parametrize("name", sorted(top_level_proto_cases.CASES))
def test_the_messages_are_tensorflows_bytes(name):
    message = top_level_proto_cases.CASES[name](ds)
    assert message.SerializeToString(deterministic=True).hex() == RECORDED[name]


def test_a_node_def_built_by_hand_imports_and_runs():
    graph_def = ds.GraphDef()
    x = graph_def.node.add(name="x", op="Placeholder")
    x.attr["dtype"].CopyFrom(ds.AttrValue(type=ds.float32.as_datatype_enum))
    relu = ds.NodeDef(name="y", op="Relu", input=["x"])
    relu.attr["T"].CopyFrom(ds.AttrValue(type=ds.float32.as_datatype_enum))
    graph_def.node.extend([relu])
    with ds.Graph().as_default() as graph:
        ds.import_graph_def(graph_def, name="")
        with ds.Session() as sess:
            got = sess.run("y:0", {"x:0": np.array([-1.0, 2.0], np.float32)})
    np.testing.assert_array_equal(got, [0.0, 2.0])
    assert got.dtype == np.float32
    assert graph.get_operation_by_name("y").node_def.op == "Relu"


def test_op_error_version_and_event_protos():
    with ds.Graph().as_default():
        ids = ds.placeholder(ds.int32, [None])
        with ds.Session() as sess, pytest.raises(ds.OpError):
            sess.run(ds.gather(ds.constant([1.0, 2.0]), ids), {ids: [5]})
    assert ds.OpError is ds.errors.OpError
    assert (ds.version.VERSION, ds.version.GRAPH_DEF_VERSION) == (ds.VERSION,
                                                                  ds.GRAPH_DEF_VERSION)
    pytest.importorskip("tensorboard", reason="tf.Event is TensorBoard's proto")
    log = ds.SessionLog(status=ds.SessionLog.START, checkpoint_path="ckpt")
    event = ds.Event.FromString(ds.Event(step=3, session_log=log).SerializeToString())
    assert (event.step, event.session_log.status, ds.SessionLog.START) == (3, log.status, 1)


def test_graph_options_level_zero_turns_the_folding_passes_off():
    base = ds.SessionOptions()
    config = ds.ConfigProto(graph_options=ds.GraphOptions())
    config.graph_options.optimizer_options.opt_level = ds.OptimizerOptions.L0
    config.graph_options.optimizer_options.do_constant_folding = True
    optimizer = session_options(config, base).optimizer
    assert (optimizer.constant_folding, optimizer.common_subexpression_elimination,
            optimizer.fusion) == (True, False, True)
    assert session_options(ds.ConfigProto(), base).optimizer == base.optimizer


def test_graph_options_fields_without_effect_are_named_and_ours_are_taken(caplog):
    config = ds.ConfigProto()
    config.graph_options.optimizer_options.global_jit_level = ds.OptimizerOptions.ON_1
    with caplog.at_level(logging.WARNING, logger="devsession"):
        options = session_options(config, ds.SessionOptions())
    assert options.optimizer == ds.SessionOptions().optimizer
    assert "graph_options.optimizer_options.global_jit_level" in caplog.text
    ours = ds.OptimizerOptions(fusion=False)
    config = ds.ConfigProto(graph_options=ds.GraphOptions(optimizer_options=ours))
    assert session_options(config, ds.SessionOptions()).optimizer is ours


def test_dtypes_answer_tfs_enum_and_compatibility_questions():
    assert [d.as_datatype_enum for d in (ds.float32, ds.float64, ds.int32, ds.string,
                                         ds.int64, ds.bool)] == [1, 2, 3, 7, 9, 10]
    assert ds.float32.is_compatible_with("float32") and ds.int64.is_compatible_with(9)
    assert not ds.float32.is_compatible_with(ds.int32) and not ds.float32.is_quantized
