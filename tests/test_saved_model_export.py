"""SavedModels devsession writes are in TensorFlow's form (``saved_model/builder.py``):
every node of a ``serve`` MetaGraphDef is an op of TF's signature table with the type
attrs TF's op has, the TF1 Saver under ``save/`` and its SaverDef agree with each other
and with the checkpoint, which is TF's tensor bundle, collections name only nodes that
are there, and devsession loads it back with the trained outputs.  That TensorFlow 2.21
loads such SavedModels (TF1's loader and TF2's ``tf.saved_model.load``) with the same
outputs was checked by hand: tests/data/tf_saved_models/check_tf_loads_devsession.py."""

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import UnimplementedError
from devsession.tensor_codec import proto_to_array
from devsession.tf_signatures import tf_signature
from devsession.train.tf_checkpoint import TFCheckpoint, is_tf_checkpoint
from saved_model_cases import trained_classifier

sm = ds.saved_model


def _trained(graph):
    """A small classifier trained a few Adam steps (gradients hold devsession-private
    ops): (x, probs, session)."""
    return trained_classifier(graph, ds.train.AdamOptimizer(0.1), seed=3)


def _meta(export_dir, tag="serve"):
    (meta,) = [m for m in sm.loader.parse_saved_model(str(export_dir)).meta_graphs
               if tag in m.meta_info_def.tags]
    return meta


def _type_attrs_of_tf(node) -> None:
    """``node`` is TF's op with every attr TF's signature gives no default."""
    sig = tf_signature(node.op)
    assert sig is not None, f"{node.name}: {node.op} is not a TensorFlow op"
    for name, spec in sig["attrs"].items():
        if "default" not in spec:
            assert name in node.attr, f"{node.name} ({node.op}) lacks TF's attr {name}"
    for name in node.attr:
        assert name in sig["attrs"] or name.startswith("_"), \
            f"{node.name} ({node.op}) has attr {name}, which TF's op lacks"


def test_a_trained_model_is_written_in_tensorflows_form(tmp_path):
    x, probs, sess = _trained(ds.Graph())
    sm.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"probs": probs})
    meta = _meta(tmp_path / "m")
    nodes = {n.name: n for n in meta.graph_def.node}
    for node in meta.graph_def.node:
        _type_attrs_of_tf(node)
    assert nodes["probs"].attr["T"].type == ds.float32.enum     # TF's type attr
    # the whole graph, as TF1's builder writes it: gradients and Adam's updates too
    assert nodes["train"].op == "NoOp" and nodes["gradients/loss_grad/Size"].op == "Cast"
    assert {"w", "b", "w/Adam", "beta1_power"} <= set(nodes)   # every global variable
    assert meta.graph_def.versions.producer > 0
    assert set(meta.collection_def["train_op"].node_list.value) == {"train"}


def test_the_saver_nodes_the_saverdef_and_the_checkpoint_agree(tmp_path):
    x, probs, sess = _trained(ds.Graph())
    sm.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"probs": probs})
    meta = _meta(tmp_path / "m")
    nodes = {n.name: n for n in meta.graph_def.node}
    saver = meta.saver_def
    assert (saver.filename_tensor_name, saver.save_tensor_name, saver.restore_op_name) == \
        ("save/Const:0", "save/control_dependency:0", "save/restore_all")
    assert saver.version == saver.V2
    assert nodes["save/Const"].op == "PlaceholderWithDefault"
    assert nodes["save/control_dependency"].input[:] == ["save/Const", "^save/SaveV2"]
    names = [k.decode() for k in proto_to_array(
        nodes["save/RestoreV2/tensor_names"].attr["value"].tensor, "names")]
    assert names == sorted(names) == sorted(["w", "b", "w/Adam", "w/Adam_1", "b/Adam",
                                             "b/Adam_1", "beta1_power", "beta2_power"])
    save = nodes["save/SaveV2"]
    assert save.input[3:] == names                           # the variables, in key order
    assert len(save.attr["dtypes"].list.type) == len(names)
    assigns = [i.lstrip("^") for i in nodes["save/restore_all"].input]
    assert assigns == ["save/Assign"] + [f"save/Assign_{k}" for k in range(1, len(names))]
    for k, assign in enumerate(assigns):
        node = nodes[assign]
        assert node.input[:] == [names[k], "save/RestoreV2" + (f":{k}" if k else "")]
    prefix = str(tmp_path / "m" / "variables" / "variables")
    assert is_tf_checkpoint(prefix)
    checkpoint = TFCheckpoint(prefix)
    assert checkpoint.names() == names
    with sess.graph.as_default():
        for name in names:
            np.testing.assert_array_equal(checkpoint.tensor(name),
                                          sess.run(name + ":0"), err_msg=name)


def test_a_given_saver_chooses_the_keys_and_settings(tmp_path):
    """A builder given a Saver saves its variables under its keys, with its SaverDef's
    settings, and devsession's loader restores through those keys."""
    graph = ds.Graph()
    x, probs, sess = _trained(graph)
    with graph.as_default():
        w, b = [v for v in ds.global_variables() if v.op.name in ("w", "b")]
        saver = ds.train.Saver({"model/w": w, "model/b": b}, max_to_keep=2,
                               keep_checkpoint_every_n_hours=3.0)
        builder = sm.builder.SavedModelBuilder(str(tmp_path / "m"))
        builder.add_meta_graph_and_variables(
            sess, ["serve"], {"p": sm.predict_signature_def({"x": x}, {"p": probs})},
            saver=saver)
        builder.save()
    meta = _meta(tmp_path / "m")
    assert (meta.saver_def.max_to_keep, meta.saver_def.keep_checkpoint_every_n_hours) == \
        (2, 3.0)
    assert TFCheckpoint(str(tmp_path / "m" / "variables" / "variables")).names() == \
        ["model/b", "model/w"]
    batch = np.ones((2, 4), np.float32)
    with ds.Session(graph=ds.Graph()) as loaded:
        sm.loader.load(loaded, ["serve"], str(tmp_path / "m"))
        np.testing.assert_allclose(loaded.run("probs:0", {"x:0": batch}),
                                   sess.run(probs, {x: batch}), rtol=1e-6)


def test_devsession_loads_it_with_the_trained_outputs(tmp_path, make_session):
    x, probs, sess = _trained(ds.Graph())
    batch = np.random.default_rng(4).standard_normal((5, 4)).astype(np.float32)
    expected = sess.run(probs, {x: batch})
    sm.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"probs": probs})
    loaded = make_session(ds.Graph())
    meta = sm.loader.load(loaded, ["serve"], str(tmp_path / "m"))
    out = meta.signature_def["serving_default"].outputs["probs"].name
    np.testing.assert_allclose(loaded.run(out, {"x:0": batch}), expected, rtol=1e-6)
    assert not any(op.type in ("SaveV2", "RestoreV2")
                   for op in loaded.graph.get_operations())


def _save_serve_and_train(graph, x, probs, sess, export_dir, caplog) -> None:
    """A builder's serve MetaGraphDef (a Predict signature of probs) with the variables,
    then a train one, its warnings in ``caplog``."""
    with graph.as_default():
        builder = sm.builder.SavedModelBuilder(str(export_dir))
        builder.add_meta_graph_and_variables(
            sess, ["serve"], {"p": sm.predict_signature_def({"x": x}, {"p": probs})})
        with caplog.at_level("WARNING", logger="devsession.saved_model"):
            builder.add_meta_graph(["train"])
        builder.save()


def test_a_train_metagraph_is_the_whole_graph_in_tensorflows_form_and_resumes(tmp_path,
                                                                            caplog):
    graph = ds.Graph()
    x, probs, sess = _trained(graph)
    _save_serve_and_train(graph, x, probs, sess, tmp_path / "m", caplog)
    assert "TensorFlow cannot" not in caplog.text
    meta = _meta(tmp_path / "m", "train")
    nodes = {n.name: n for n in meta.graph_def.node}
    for node in meta.graph_def.node:
        _type_attrs_of_tf(node)                   # gradients and Adam included: TF's ops
    assert {"train", "gradients/loss_grad/Size"} <= set(nodes)
    assert nodes["gradients/loss_grad/Size"].op == "Cast"      # devsession's _ReducedSize
    assert set(meta.collection_def["train_op"].node_list.value) == {"train"}
    with ds.Session(graph=ds.Graph()) as loaded:
        sm.loader.load(loaded, ["train"], str(tmp_path / "m"))
        feed = {"x:0": np.ones((3, 4), np.float32), "labels:0": np.array([0, 1, 2])}
        before = loaded.run("loss:0", feed)
        for _ in range(5):
            loaded.run("train", feed)
        assert loaded.run("loss:0", feed) < before


def test_a_train_metagraph_tensorflows_form_cannot_hold_stays_devsessions(tmp_path, caplog):
    graph = ds.Graph()
    x, probs, sess = _trained(graph)
    with graph.as_default():
        ds.TensorArray(ds.float32, size=1).write(0, probs).read(0, name="kept")
    _save_serve_and_train(graph, x, probs, sess, tmp_path / "m", caplog)
    assert "TensorFlow cannot" in caplog.text and "private to devsession" in caplog.text
    nodes = {n.name: n for n in _meta(tmp_path / "m", "train").graph_def.node}
    assert nodes["TensorArray"].op == "_TensorArray" and "T" not in nodes["probs"].attr
    # serve: what its signature needs, in TF's form (gradients and updates left out)
    served = {n.name: n for n in _meta(tmp_path / "m").graph_def.node}
    assert "TensorArray" not in served and "train" not in served
    assert not any(n.startswith("gradients/") for n in served)
    for node in served.values():
        _type_attrs_of_tf(node)
    with ds.Session(graph=ds.Graph()) as loaded:
        sm.loader.load(loaded, ["train"], str(tmp_path / "m"))
        feed = {"x:0": np.ones((3, 4), np.float32), "labels:0": np.array([0, 1, 2])}
        before = loaded.run("loss:0", feed)
        loaded.run("train", feed)
        assert loaded.run("loss:0", feed) < before


def test_a_vocabulary_model_keeps_its_table_asset_and_main_op(tmp_path):
    vocab = tmp_path / "words.txt"
    vocab.write_text("the\ncat\nsat\n")
    graph = ds.Graph()
    with graph.as_default():
        words = ds.placeholder(ds.string, [None], name="words")
        table = ds.lookup.StaticVocabularyTable(ds.lookup.TextFileInitializer(
            str(vocab), ds.string, ds.lookup.TextFileIndex.WHOLE_LINE, ds.int64,
            ds.lookup.TextFileIndex.LINE_NUMBER), 1)
        ids = ds.identity(table.lookup(words), name="ids")
        with ds.Session(graph=graph) as sess:
            sess.run(ds.tables_initializer())
            sm.simple_save(sess, str(tmp_path / "m"), {"words": words}, {"ids": ids},
                           legacy_init_op=ds.tables_initializer())
    os.remove(vocab)
    meta = _meta(tmp_path / "m")
    for node in meta.graph_def.node:
        _type_attrs_of_tf(node)
    assert [a.filename for a in meta.asset_file_def] == ["words.txt"]
    assert meta.collection_def["saved_model_main_op"].node_list.value
    assert meta.saver_def.restore_op_name == "save/restore_all"     # no variables: a NoOp
    with ds.Session(graph=ds.Graph()) as loaded:
        sm.loader.load(loaded, ["serve"], str(tmp_path / "m"))
        np.testing.assert_array_equal(
            loaded.run("ids:0", {"words:0": np.array([b"sat", b"dog", b"the"])}), [2, 3, 0])


def test_what_tensorflows_form_cannot_hold_is_unimplemented_naming_the_node(tmp_path):
    graph = ds.Graph()
    x, probs, sess = _trained(graph)
    with graph.as_default():
        # devsession's own TensorArray ops, which a signature needs
        kept = ds.TensorArray(ds.float32, size=1).write(0, probs).read(0)
        with pytest.raises(UnimplementedError, match="_TensorArray") as e:
            sm.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"kept": kept})
    assert e.value.node_name.startswith("TensorArray")
    assert not os.path.exists(tmp_path / "m" / "saved_model.pb")
    assert not os.path.exists(tmp_path / "m" / "variables")


def test_a_partitioned_variable_is_unimplemented(tmp_path):
    graph = ds.Graph()
    with graph.as_default():
        emb = ds.get_variable("emb", [6, 2], partitioner=ds.fixed_size_partitioner(2))
        ids = ds.placeholder(ds.int64, [None], name="ids")
        out = ds.nn.embedding_lookup(emb, ids)
        with ds.Session(graph=graph) as sess:
            sess.run(ds.global_variables_initializer())
            with pytest.raises(UnimplementedError, match="'emb/part_0' is a partitioned"):
                sm.simple_save(sess, str(tmp_path / "m"), {"ids": ids}, {"out": out})
