"""MetaGraphs: ``Saver.save`` writes ``<prefix>.meta``; ``ds.train.import_meta_graph``
rebuilds the graph, its collections, its variables and a Saver in a program without the
model's code (devsession's ``.meta`` and one TensorFlow 2.21 wrote:
tests/data/tf_meta_graph, made by make_meta_graph.py there); ``export_meta_graph``;
``ds.train.write_graph``; and the errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.proto.meta_graph_pb2 import MetaGraphDef, VariableDef

F32 = np.float32
TF_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_meta_graph")
XS = np.random.default_rng(7).standard_normal((16, 3)).astype(F32)
YS = (XS @ np.array([[1.0], [-2.0], [0.5]], F32) + 0.25).astype(F32)


def build_and_train(directory) -> tuple[str, np.ndarray, dict]:
    """A linear model trained 3 steps and saved; returns (prefix, its predictions, the
    variables' values)."""
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [None, 3], name="x")
        y = ds.placeholder(ds.float32, [None, 1], name="y")
        w = ds.Variable(np.zeros((3, 1), F32), name="w")
        b = ds.Variable(np.zeros(1, F32), name="b")
        ds.Variable(np.float32(0.9), name="decay", trainable=False)
        step = ds.train.get_or_create_global_step()
        pred = ds.identity(ds.matmul(x, w) + b, name="pred")
        loss = ds.reduce_mean(ds.square(pred - y), name="loss")
        train = ds.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        ds.add_to_collection("train_op", train)
        ds.add_to_collection("inputs", x)
        ds.add_to_collection("sizes", 3)
        ds.add_to_collection("rates", 0.5)
        ds.add_to_collection("tags", "linear")
        saver = ds.train.Saver()
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: XS, y: YS})
            prefix = saver.save(sess, os.path.join(directory, "model"), global_step=step)
            values = {v.op.name: sess.run(v) for v in ds.global_variables()}
            return prefix, sess.run(pred, {x: XS}), values


def test_save_writes_a_meta_graph_that_restores_without_the_model_code(tmp_path):
    prefix, predictions, values = build_and_train(str(tmp_path))
    assert prefix.endswith("model-3") and os.path.isfile(prefix + ".meta")
    with ds.Graph().as_default() as graph:
        saver = ds.train.import_meta_graph(prefix + ".meta")
        assert [v.op.name for v in ds.trainable_variables()] == ["w", "b"]
        assert [v.op.name for v in ds.global_variables()] == ["w", "b", "decay", "global_step"]
        assert ds.train.get_global_step() is ds.global_variables()[3]
        assert ds.get_collection("inputs") == [graph.get_tensor_by_name("x:0")]
        assert ds.get_collection("sizes") == [3]
        assert ds.get_collection("rates") == [0.5]
        assert ds.get_collection("tags") == [b"linear"]
        train = ds.get_collection("train_op")[0]
        assert isinstance(train, ds.Operation)
        # the saved Saver's nodes were dropped; the rebuilt Saver has the same names
        assert [op.name for op in graph.get_operations()
                if "restore_all" in op.name] == ["save/restore_all"]
        with ds.Session() as sess:
            saver.restore(sess, prefix)
            for var in ds.global_variables():
                np.testing.assert_array_equal(sess.run(var), values[var.op.name])
            np.testing.assert_array_equal(sess.run("pred:0", {"x:0": XS}), predictions)
            feed = {"x:0": XS, "y:0": YS}
            before = sess.run("loss:0", feed)
            w_before = sess.run(ds.trainable_variables()[0])
            for _ in range(5):
                sess.run(train, feed)
            assert sess.run("loss:0", feed) < before
            assert not np.array_equal(sess.run(ds.trainable_variables()[0]), w_before)
            assert sess.run(ds.train.get_global_step()) == 8
            assert sess.run("decay:0") == F32(0.9)         # not trainable: untouched
            # The rebuilt Saver saves again, and its checkpoint restores.
            again = saver.save(sess, str(tmp_path / "again"))
            trained = sess.run("w:0")
            sess.run(ds.global_variables_initializer())
            saver.restore(sess, again)
            np.testing.assert_array_equal(sess.run("w:0"), trained)


def test_import_meta_graph_restores_and_trains_on_every_session_type(make_session):
    """TF's fine-tuning program on a direct and a gRPC session: TF's .meta imported,
    TF's checkpoint restored, TF's values and TF's training steps."""
    expected = np.load(os.path.join(TF_DATA, "expected.npz"))
    prefix = os.path.join(TF_DATA, "model.ckpt-5")
    graph = ds.Graph()
    with graph.as_default():
        saver = ds.train.import_meta_graph(prefix + ".meta")
        loss = graph.get_tensor_by_name("loss:0")
        train = ds.train.GradientDescentOptimizer(0.05).minimize(loss)
    sess = make_session(graph)
    saver.restore(sess, prefix)
    feed = {"x:0": expected["x"], "y:0": expected["y"]}
    np.testing.assert_allclose(sess.run("logits:0", feed), expected["logits"], rtol=1e-6,
                               atol=1e-6)
    losses = []
    for _ in range(3):
        sess.run(train, feed)
        losses.append(sess.run(loss, feed))
    np.testing.assert_allclose(losses, expected["losses_after_steps"], rtol=1e-5)


def test_an_optimizer_built_after_import_trains_the_imported_variables(tmp_path):
    """TF1's fine-tuning script: the loss found by name, a new optimizer, its slots
    initialized, the restored weights trained further."""
    prefix, _, values = build_and_train(str(tmp_path))
    with ds.Graph().as_default() as graph:
        saver = ds.train.import_meta_graph(prefix + ".meta")
        loss = graph.get_tensor_by_name("loss:0")
        optimizer = ds.train.AdamOptimizer(0.05)
        train = optimizer.minimize(loss)
        restored = set(saver._variables.values())
        new = [v for v in ds.global_variables() if v not in restored]
        assert {v.op.name for v in new} >= {"w/Adam", "b/Adam_1", "beta1_power"}
        with ds.Session() as sess:
            saver.restore(sess, prefix)
            sess.run(ds.variables_initializer(new))
            feed = {"x:0": XS, "y:0": YS}
            losses = [sess.run(loss, feed)]
            for _ in range(20):
                sess.run(train, feed)
                losses.append(sess.run(loss, feed))
            assert losses[-1] < losses[0] * 0.8
            assert sess.run("decay:0") == F32(0.9)
            np.testing.assert_array_equal(sess.run("global_step:0"), values["global_step"])


def test_a_meta_graph_tensorflow_wrote_runs_with_tensorflows_values():
    expected = np.load(os.path.join(TF_DATA, "expected.npz"))
    prefix = os.path.join(TF_DATA, "model.ckpt-5")
    with ds.Graph().as_default() as graph:
        saver = ds.train.import_meta_graph(prefix + ".meta")
        assert [v.op.name for v in ds.trainable_variables()] == [
            "dense/w", "dense/b", "out/w", "out/b"]
        assert [v.op.name for v in ds.global_variables()][4:] == ["ema_scale", "global_step"]
        assert ds.get_collection("losses") == [graph.get_tensor_by_name("loss:0")]
        assert [t.name for t in ds.get_collection("inputs")] == ["x:0", "y:0"]
        assert ds.get_collection("sizes") == [3, 4, 2]
        assert ds.get_collection("rates") == [F32(0.05), 0.25]
        assert ds.get_collection("tags") == [b"regression"]
        assert not [op for op in graph.get_operations()
                    if op.type in ("SaveV2", "RestoreV2")]     # TF's Saver is replaced
        loss = graph.get_tensor_by_name("loss:0")
        train = ds.train.GradientDescentOptimizer(0.05).minimize(loss)
        with ds.Session() as sess:
            saver.restore(sess, prefix)
            feed = {"x:0": expected["x"], "y:0": expected["y"]}
            logits, value = sess.run(["logits:0", loss], feed)
            np.testing.assert_allclose(logits, expected["logits"], rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(value, expected["loss"], rtol=1e-6)
            assert sess.run(ds.train.get_global_step()) == 5
            losses = []
            for _ in range(3):
                sess.run(train, feed)
                losses.append(sess.run(loss, feed))
            np.testing.assert_allclose(losses, expected["losses_after_steps"], rtol=1e-5)
            for var in ds.trainable_variables():
                np.testing.assert_allclose(sess.run(var), expected["after/" + var.op.name],
                                           rtol=1e-5, atol=1e-6)


def test_import_scope_prefixes_nodes_and_keeps_the_checkpoint_keys():
    expected = np.load(os.path.join(TF_DATA, "expected.npz"))
    prefix = os.path.join(TF_DATA, "model.ckpt-5")
    with ds.Graph().as_default():
        ds.Variable(1.0, name="unrelated")
        saver = ds.train.import_meta_graph(prefix + ".meta", import_scope="net")
        assert [v.op.name for v in ds.trainable_variables()] == [
            "unrelated", "net/dense/w", "net/dense/b", "net/out/w", "net/out/b"]
        with ds.Session() as sess:
            saver.restore(sess, prefix)
            logits = sess.run("net/logits:0", {"net/x:0": expected["x"]})
    np.testing.assert_allclose(logits, expected["logits"], rtol=1e-6, atol=1e-6)


def test_a_graph_with_two_tf_savers_and_renamed_checkpoint_keys():
    """TF's ``.meta`` of a graph holding a second Saver (dropped too) whose SaverDef's
    Saver renamed every variable (the rebuilt Saver reads RestoreV2's names)."""
    expected = np.load(os.path.join(TF_DATA, "expected.npz"))
    prefix = os.path.join(TF_DATA, "renamed.ckpt")
    with ds.Graph().as_default() as graph:
        saver = ds.train.import_meta_graph(prefix + ".meta")
        assert {key: var.op.name for key, var in saver._variables.items()} == {
            "first/kernel": "dense/w", "first/bias": "dense/b", "second/kernel": "out/w",
            "second/bias": "out/b", "scale": "ema_scale", "step": "global_step"}
        assert not [op for op in graph.get_operations() if op.type in ("SaveV2", "RestoreV2")]
        with ds.Session() as sess:
            saver.restore(sess, prefix)
            logits = sess.run("logits:0", {"x:0": expected["x"]})
            assert sess.run("global_step:0") == 5
    np.testing.assert_allclose(logits, expected["logits"], rtol=1e-6, atol=1e-6)


def test_export_meta_graph_and_its_text_form(tmp_path):
    graph = ds.Graph()
    with graph.as_default():
        with ds.device("/device:CPU:0"):
            v = ds.Variable([1.0, 2.0], name="v")
        out = ds.identity(v * 3.0, name="out")
        ds.add_to_collection("outputs", out)
        ds.add_to_collection("not_saved", object())
        saver = ds.train.Saver()
    path = str(tmp_path / "graph.meta.txt")
    meta = saver.export_meta_graph(path, as_text=True, clear_devices=True)
    assert isinstance(meta, MetaGraphDef) and meta.saver_def.restore_op_name == "save/restore_all"
    assert sorted(meta.collection_def) == ["outputs", "trainable_variables", "variables"]
    assert VariableDef.FromString(meta.collection_def["variables"].bytes_list.value[0]) == \
        VariableDef(variable_name="v:0", initializer_name="v/Assign", snapshot_name="v/read:0",
                    initial_value_name="v/initial_value:0", trainable=True)
    assert not any(node.device for node in meta.graph_def.node)
    assert open(path).read().startswith("graph_def {")
    with ds.Graph().as_default() as placed:
        ds.train.import_meta_graph(saver.export_meta_graph(), clear_devices=True)
        assert placed.get_operation_by_name("v").device == ""
    with ds.Graph().as_default() as placed:
        ds.train.import_meta_graph(saver.export_meta_graph())
        assert "CPU:0" in placed.get_operation_by_name("v").device
    only = ds.train.export_meta_graph(graph=graph, collection_list=["outputs"])
    assert list(only.collection_def) == ["outputs"] and not only.HasField("saver_def")
    with ds.Graph().as_default():
        restored = ds.train.import_meta_graph(path)           # text format reads too
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(ds.get_collection("outputs")[0]), [3, 6])
        assert restored is not None


def test_strip_default_attrs_leaves_out_default_valued_attrs(tmp_path):
    """TF's ``strip_default_attrs``: attrs equal to the op's default are left out (the
    importer fills them back in), others kept, and ``meta_info_def`` says so; from
    ``export_meta_graph`` and from ``Saver.save``."""
    graph = ds.Graph()
    with graph.as_default():
        a = ds.Variable(np.array([[1.0, 2.0], [3.0, 4.0]], F32), name="a")
        ds.matmul(ds.matmul(a, a, name="mm"), a, transpose_b=True, name="mm_t")
        saver = ds.train.Saver()
    meta = ds.train.export_meta_graph(graph=graph, strip_default_attrs=True)
    attrs = {n.name: sorted(n.attr) for n in meta.graph_def.node}
    # TF 2.21 keeps the _output_shapes its export adds
    assert attrs["mm"] == ["_output_shapes"]
    assert attrs["mm_t"] == ["_output_shapes", "transpose_b"]
    assert "shape" in attrs["a"] and "container" not in attrs["a"]
    assert meta.meta_info_def.stripped_default_attrs
    kept = ds.train.export_meta_graph(graph=graph)
    assert not kept.meta_info_def.stripped_default_attrs
    assert [sorted(n.attr) for n in kept.graph_def.node if n.name == "mm"] == \
        [["_output_shapes", "transpose_a", "transpose_b"]]
    with ds.Session(graph=graph) as sess:
        sess.run(ds.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "model"), strip_default_attrs=True)
    written = MetaGraphDef.FromString(open(prefix + ".meta", "rb").read())
    assert written.meta_info_def.stripped_default_attrs
    with ds.Graph().as_default() as imported:
        ds.train.import_meta_graph(meta)
        assert imported.get_operation_by_name("mm").get_attr("transpose_a") is False
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            value = np.array([[1.0, 2.0], [3.0, 4.0]], F32)
            np.testing.assert_allclose(sess.run("mm_t:0"), value @ value @ value.T)


def test_a_graph_without_variables_imports_with_no_saver(tmp_path):
    with ds.Graph().as_default() as graph:
        ds.identity(ds.constant(2.0), name="two")
        ds.train.export_meta_graph(str(tmp_path / "g.meta"))
    with ds.Graph().as_default() as graph:
        assert ds.train.import_meta_graph(str(tmp_path / "g.meta")) is None
        with ds.Session() as sess:
            assert sess.run(graph.get_tensor_by_name("two:0")) == 2.0


def test_write_meta_graph_false_and_max_to_keep(tmp_path):
    with ds.Graph().as_default():
        ds.Variable(1.0, name="v")
        saver = ds.train.Saver(max_to_keep=1)
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            first = saver.save(sess, str(tmp_path / "m"), global_step=1)
            assert os.path.exists(first + ".meta")
            second = saver.save(sess, str(tmp_path / "m"), global_step=2)
            assert not os.path.exists(first + ".meta")     # deleted with its checkpoint
            assert os.path.exists(second + ".meta")
            third = saver.save(sess, str(tmp_path / "n"), write_meta_graph=False)
            assert not os.path.exists(third + ".meta")


def test_max_to_keep_deletes_meta_graphs_of_another_suffix(tmp_path):
    with ds.Graph().as_default():
        ds.Variable(1.0, name="v")
        saver = ds.train.Saver(max_to_keep=1)
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            first = saver.save(sess, str(tmp_path / "m"), global_step=1,
                               meta_graph_suffix="graph")
            assert os.path.exists(first + ".graph")
            second = saver.save(sess, str(tmp_path / "m"), global_step=2,
                                meta_graph_suffix="graph")
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".graph")) == \
        [os.path.basename(second) + ".graph"]


def test_saver_warnings_use_the_library_logger_not_ds_logging(tmp_path, monkeypatch, caplog):
    """ds.logging's logger gets a stderr handler when first used; a library warning
    through it would print twice once the program calls logging.basicConfig."""
    import logging

    from devsession import tf_logging

    monkeypatch.setattr(tf_logging, "_configured", False)
    monkeypatch.setattr(logging.getLogger(), "handlers", [])     # nothing prints yet
    handlers = list(logging.getLogger("devsession").handlers)
    with ds.Graph().as_default():
        ds.Variable(1.0, name="v")
        ds.add_to_collection("objects", object())
        saver = ds.train.Saver()
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            saver.save(sess, str(tmp_path / "m"))
    assert logging.getLogger("devsession").handlers == handlers
    monkeypatch.undo()
    with caplog.at_level(logging.WARNING), ds.Graph().as_default():
        ds.add_to_collection("objects", object())
        ds.train.export_meta_graph(str(tmp_path / "g.meta"))
    assert [(r.name, r.getMessage()[:30]) for r in caplog.records] == \
        [("devsession.train", "Collection 'objects' is not sa")]


def test_a_missing_meta_graph_file_is_not_found(tmp_path):
    with pytest.raises(ds.errors.NotFoundError, match="nothing.meta"):
        ds.train.import_meta_graph(str(tmp_path / "nothing.meta"))


def test_meta_graph_file_errors_are_tfs_classes_and_file_urls_are_read(tmp_path):
    with pytest.raises(ds.errors.FailedPreconditionError, match="Is a directory"):
        ds.train.import_meta_graph(str(tmp_path))        # TF: "<dir>; Is a directory"
    with ds.Graph().as_default():
        ds.add(ds.constant(1.0, name="a"), 2.0, name="sum")
        path = str(tmp_path / "m.meta")
        ds.train.export_meta_graph(path)
    with ds.Graph().as_default() as graph:
        ds.train.import_meta_graph("file://" + path)
        assert "sum" in [op.name for op in graph.get_operations()]


def test_a_corrupt_meta_graph_file_is_data_loss_naming_it(tmp_path):
    path = tmp_path / "corrupt.meta"
    path.write_bytes(b"\xff\xfe\x00 not a meta graph \x07\x09")
    with ds.Graph().as_default() as graph:
        with pytest.raises(ds.errors.DataLossError, match=r"corrupt\.meta is not a MetaGraphDef"):
            ds.train.import_meta_graph(str(path))
        assert graph.get_operations() == []


def test_an_op_devsession_lacks_is_import_graph_defs_error_and_nothing_is_imported():
    meta = MetaGraphDef()
    with open(os.path.join(TF_DATA, "model.ckpt-5.meta"), "rb") as f:
        meta.ParseFromString(f.read())
    next(n for n in meta.graph_def.node if n.name == "Relu").op = "NoSuchOp"
    with ds.Graph().as_default() as graph:
        with pytest.raises(ds.errors.NotFoundError, match="NoSuchOp"):
            ds.train.import_meta_graph(meta)
        assert graph.get_operations() == []
        assert ds.global_variables() == []


def test_tf1_write_graph_writes_a_durable_file_with_the_umasks_mode(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    old = os.umask(0o022)
    try:
        path = ds.train.write_graph(ds.Graph(), str(tmp_path), "g.pbtxt")
    finally:
        os.umask(old)
    assert os.stat(path).st_mode & 0o777 == 0o644            # not mkstemp's 0600
    assert any(os.path.basename(p).startswith(".g.pbtxt.") for p in synced)
    assert str(tmp_path) in synced                           # its directory entry too


def test_tf1_write_graph_writes_text_or_binary_that_read_graph_def_reads(tmp_path):
    graph = ds.Graph()
    with graph.as_default():
        ds.add(ds.constant(1.0, name="a"), 2.0, name="sum")
    logdir = tmp_path / "logs" / "run"
    text = ds.train.write_graph(graph, str(logdir), "graph.pbtxt")
    assert text == str(logdir / "graph.pbtxt")
    assert open(text).read().startswith("node {")
    binary = ds.io.write_graph(graph.as_graph_def(), str(logdir), "graph.pb", as_text=False)
    assert ds.read_graph_def(text) == ds.read_graph_def(binary) == graph.as_graph_def()
    # devsession's own ds.write_graph keeps its (graph, path) signature
    assert ds.write_graph(graph, str(tmp_path / "own.pb")) == str(tmp_path / "own.pb")


def test_the_savers_collection_is_written_as_saver_defs_and_skipped_on_import(graph):
    """As TF1's: a Saver in ``GraphKeys.SAVERS`` (MonitoredSession's Scaffold puts its
    own there) is its SaverDef in the MetaGraphDef, with no warning about it."""
    ds.Variable(1.0, name="v")
    saver = ds.train.Saver()
    ds.add_to_collection(ds.GraphKeys.SAVERS, saver)
    meta = ds.train.export_meta_graph()
    assert list(meta.collection_def["savers"].bytes_list.value) == [
        saver.saver_def.SerializeToString()]
    with ds.Graph().as_default() as other:
        ds.train.import_meta_graph(meta)
        assert other.get_collection(ds.GraphKeys.SAVERS) == []


def test_a_text_meta_graph_with_fields_devsession_lacks_imports(tmp_path):
    """TF's text-format files carry fields devsession's protos leave out (meta_info_def's
    stripped_op_list): they are skipped, as the binary parser keeps them aside."""
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, [None], name="x")
        ds.multiply(x, 2.0, name="y")
        path = str(tmp_path / "g.meta")
        ds.train.export_meta_graph(path, as_text=True)
    with open(path) as f:
        text = f.read()
    text = ('meta_info_def {\n  stripped_op_list {\n    op { name: "Mul" }\n  }\n'
            '  tensorflow_version: "2.21.0"\n}\n' + text)
    with open(path, "w") as f:
        f.write(text)
    with ds.Graph().as_default():
        ds.train.import_meta_graph(path)
        with ds.Session() as sess:
            np.testing.assert_array_equal(sess.run("y:0", {"x:0": [1.0, 2.0]}), [2.0, 4.0])


def _shapes(meta: MetaGraphDef) -> dict:
    """Each node's ``_output_shapes`` as lists of dims (None: unknown), or None without."""
    return {n.name: [None if s.unknown_rank else [d.size if d.size >= 0 else None
                                                  for d in s.dim]
                     for s in n.attr["_output_shapes"].list.shape]
            if "_output_shapes" in n.attr else None for n in meta.graph_def.node}


def test_export_writes_output_shapes_and_they_import_back(tmp_path):
    """TF 2.21's export_meta_graph (and Saver.save's meta file) writes the graph with
    add_shapes=True: each node with outputs has ``_output_shapes``, a NoOp none; a
    graph_def passed in is written as it is; importing drops the attr."""
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [None, 3], name="x")
        v = ds.Variable(np.ones((3, 2), F32), name="v")
        ds.matmul(x, v, name="y")
        ds.placeholder(ds.float32, name="any")
        init = ds.global_variables_initializer()
        saver = ds.train.Saver()
    shapes = _shapes(ds.train.export_meta_graph(graph=graph))
    assert shapes["x"] == [[None, 3]] and shapes["y"] == [[None, 2]]
    assert shapes["v"] == [[3, 2]] and shapes["any"] == [None] and shapes["init"] is None
    given = ds.train.export_meta_graph(graph=graph, graph_def=graph.as_graph_def())
    assert all(s is None for s in _shapes(given).values())
    with ds.Session(graph=graph) as sess:
        sess.run(init)
        prefix = saver.save(sess, str(tmp_path / "model"))
    written = MetaGraphDef.FromString(open(prefix + ".meta", "rb").read())
    assert _shapes(written)["y"] == [[None, 2]]
    with ds.Graph().as_default() as again:
        restorer = ds.train.import_meta_graph(prefix + ".meta")
        assert "_output_shapes" not in again.get_operation_by_name("y").node_def.attr
        with ds.Session() as sess:
            restorer.restore(sess, prefix)
            got = sess.run("y:0", {"x:0": np.ones((1, 3), F32)})
    np.testing.assert_array_equal(got, [[3.0, 3.0]])
    with ds.Graph().as_default() as imported:
        ds.import_graph_def(graph.as_graph_def(add_shapes=True), name="")
        assert imported.get_tensor_by_name("y:0").shape.as_list() == [None, 2]
