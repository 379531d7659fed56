"""Object-based checkpoints (``ds.train.Checkpoint``, ``CheckpointManager``) against
TensorFlow 2.21's (tests/data/make_tf_object_checkpoints.py): devsession restores the
checkpoint TF wrote of a model and its Adam optimizer with TF's values, writes the same
objects under TF's keys with TF's object graph (byte for byte), and manages, asserts
and fails as TF does."""

import json
import os
import types

import numpy as np
import pytest

import devsession as ds
import module_cases
from devsession.proto import trackable_object_graph_pb2
from devsession.train.tf_checkpoint import TFCheckpoint

HERE = os.path.dirname(os.path.abspath(__file__))
TF_PREFIX = os.path.join(HERE, "data", "tf_object_checkpoints", "ckpt-1")
# devsession's checkpoint of build()'s initial values (save_initial), which the recorder
# restored in TensorFlow (assert_consumed passing) and recorded as "tf_read_of_ds"
DS_DIR = os.path.join(HERE, "data", "ds_object_checkpoints")
with open(os.path.join(HERE, "data", "tf_object_checkpoints.json")) as _f:
    TF = json.load(_f)
GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def build(zeros=False):
    """The recorder's model in devsession: a module holding a layer, a list and a dict
    of variables, and an Adam optimizer minimizing a loss of the layer."""
    def init(value):
        return np.zeros_like(value) if zeros else value

    kernel = ds.Variable(init(np.arange(6, dtype=np.float32).reshape(2, 3) / 10),
                         name="kernel")
    bias = ds.Variable(init(np.array([0.5, -0.5, 0.25], np.float32)), name="bias")
    w0 = ds.Variable(init(np.float64(1.5)), name="w0")
    scale = ds.Variable(init(np.array([3, 4], np.int32)), name="scale")
    x = ds.constant([[1.0, 2.0]])
    loss = ds.reduce_sum(ds.square(ds.matmul(x, kernel) + bias))
    opt = ds.train.AdamOptimizer(0.1)
    train = opt.minimize(loss)
    model = types.SimpleNamespace()
    model.layer = types.SimpleNamespace(kernel=kernel, bias=bias)
    model.extra = [w0]
    model.table = {"scale": scale}
    return ds.train.Checkpoint(model=model, optimizer=opt), train, model, opt


def save_initial(directory) -> str:
    """Save build()'s objects, initialized and not trained, in ``directory``."""
    with ds.Graph().as_default():
        ckpt, _, _, _ = build()
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            return ckpt.save(os.path.join(directory, "ckpt"), session=sess)


def graph_of(prefix) -> trackable_object_graph_pb2.TrackableObjectGraph:
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(TFCheckpoint(prefix).string_scalar(GRAPH_KEY))
    return graph


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


def test_restores_tensorflows_checkpoint_with_its_values(graph):
    ckpt, _, model, opt = build(zeros=True)
    status = ckpt.restore(TF_PREFIX)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        status.assert_consumed().run_restore_ops(sess)
        got = {"model/layer/kernel": model.layer.kernel, "model/layer/bias": model.layer.bias,
               "model/extra/0": model.extra[0], "model/table/scale": model.table["scale"],
               "optimizer/beta1_power": opt._non_slot[("beta1_power", graph)],
               "save_counter": ckpt.save_counter,
               "model/layer/kernel/.OPTIMIZER_SLOT/optimizer/v":
                   opt.get_slot(model.layer.kernel, "v")}
        for path, variable in got.items():
            want = TF["values"][f"{path}/.ATTRIBUTES/VARIABLE_VALUE"]
            value = sess.run(variable)
            assert value.dtype == np.dtype(want["dtype"]), path
            np.testing.assert_array_equal(value, np.array(want["value"], want["dtype"]))
        assert sess.run(ckpt.save_counter) == 1


def test_writes_tensorflows_keys_and_object_graph(graph, tmp_path):
    ckpt, train, _, _ = build()
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(train)
        sess.run(train)
        path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    assert path == str(tmp_path / "ckpt-1")
    assert (tmp_path / "checkpoint").read_text() == TF["state_file"]
    reader = TFCheckpoint(path)
    assert reader.names() == TF["keys"]
    tf_reader = TFCheckpoint(TF_PREFIX)            # the data file laid out as TF's
    assert [(reader._entry(k).offset, reader._entry(k).size) for k in TF["keys"]] == \
        [(tf_reader._entry(k).offset, tf_reader._entry(k).size) for k in TF["keys"]]
    assert reader.string_scalar(GRAPH_KEY).hex() == TF["object_graph_hex"]
    for key, want in TF["values"].items():       # Adam's two steps, as TF's
        assert reader.shape(key) == want["shape"]
        np.testing.assert_allclose(reader.tensor(key), np.array(want["value"], want["dtype"]),
                                   rtol=1e-6)


def test_a_round_trip_restores_slots_made_after_the_restore(graph, tmp_path):
    ckpt, train, model, opt = build()
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(train)
        path = ckpt.save(str(tmp_path / "w"), session=sess)
        saved = sess.run(opt.get_slot(model.layer.bias, "m"))
    with ds.Graph().as_default():
        kernel = ds.Variable(np.zeros((2, 3), np.float32))
        bias = ds.Variable(np.zeros(3, np.float32))
        model = types.SimpleNamespace(layer=types.SimpleNamespace(kernel=kernel, bias=bias))
        opt = ds.train.AdamOptimizer(0.1)
        ckpt = ds.train.Checkpoint(optimizer=opt, model=model)
        status = ckpt.restore(path)
        train = opt.minimize(ds.reduce_sum(kernel) + ds.reduce_sum(bias))   # slots now
        with ds.Session() as sess:
            status.initialize_or_restore(sess)
            np.testing.assert_array_equal(sess.run(opt.get_slot(bias, "m")), saved)
            with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint "
                               r"\(root\)\.model\.extra\.0: attributes"):
                status.assert_consumed()
            status.assert_existing_objects_matched().assert_nontrivial_match()
            sess.run(train)


def test_manager_numbers_keeps_and_records_as_tensorflow(graph, tmp_path):
    want = TF["manager"]
    ckpt, _, _, _ = build()
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        manager = ds.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
        assert manager.latest_checkpoint is None and manager.checkpoints == []
        saved = [manager.save() for _ in range(3)]
        saved.append(manager.save(checkpoint_number=10))
        assert [os.path.basename(p) for p in saved] == want["saved"]
        assert [os.path.basename(p) for p in manager.checkpoints] == want["checkpoints"]
        assert os.path.basename(manager.latest_checkpoint) == want["latest"]
        assert sorted(os.listdir(tmp_path)) == want["files"]
        assert sess.run(ckpt.save_counter) == want["save_counter"]
        lines = (tmp_path / "checkpoint").read_text().splitlines()
        assert [line.split(":")[0] for line in lines] == want["state_lines"]
        assert ds.train.latest_checkpoint(str(tmp_path)) == manager.latest_checkpoint
        again = ds.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
        assert again.checkpoints == manager.checkpoints
        assert again.latest_checkpoint == manager.latest_checkpoint
        assert os.path.basename(again.restore_or_initialize()) == want["restore_or_initialize"]
        nested = ckpt.save(str(tmp_path / "a" / "b" / "c"), session=sess)
        assert sorted(os.listdir(os.path.dirname(nested))) == want["nested"]
    error = want["bad_max_to_keep"]
    with pytest.raises(ValueError, match=f"^{error['message']}$".replace("`", ".")):
        ds.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)


def test_restore_errors_and_assertions_are_tensorflows(graph, tmp_path):
    errors = TF["errors"]
    variable = ds.Variable(1.0, name="other")
    with pytest.raises(ds.errors.NotFoundError) as info:
        ds.train.Checkpoint(v=variable).restore("/nonexistent/ckpt-1")
    assert str(info.value) == errors["missing"]["message"]
    with ds.Session() as sess:                     # a name-based Saver's checkpoint
        sess.run(variable.initializer)
        saved = ds.train.Saver([variable]).save(sess, str(tmp_path / "saver"))
    with pytest.raises(ds.errors.NotFoundError, match="name-based Saver"):
        ds.train.Checkpoint(v=variable).restore(saved)
    status = ds.train.Checkpoint(other=variable).restore(TF_PREFIX)
    with pytest.raises(AssertionError) as info:
        status.assert_existing_objects_matched()
    message = errors["existing_unmatched"]["message"]
    assert str(info.value).split("[")[0] == message.split("[")[0]
    assert "'other:0'" in str(info.value)
    status.assert_nontrivial_match()          # the save counter matched, as in TF
    with pytest.raises(AssertionError) as info:
        ds.train.Checkpoint(v=variable).restore(None).assert_consumed()
    assert str(info.value) == errors["none_consumed"]["message"]
    # fewer objects than the checkpoint holds: TF's message names the first unresolved
    ckpt, _, _, _ = build()
    del ckpt._children["optimizer"]
    status = ckpt.restore(TF_PREFIX)
    with pytest.raises(AssertionError) as info:
        status.assert_consumed()
    assert str(info.value) == errors["consumed_unresolved"]["message"]
    status.assert_existing_objects_matched()


def test_restore_checks_shapes_and_dtypes(graph):
    model = types.SimpleNamespace(layer=types.SimpleNamespace(
        kernel=ds.Variable(np.zeros((3, 2), np.float32)),
        bias=ds.Variable(np.zeros(3, np.float64))))
    status = ds.train.Checkpoint(model=model).restore(TF_PREFIX)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match=r"lhs shape= \[3, 2\] "
                           r"rhs shape= \[2, 3\] \(checkpoint key model/layer/kernel/"):
            status.run_restore_ops(sess)
        model.layer.kernel = ds.Variable(np.zeros((2, 3), np.float32))
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match="model/layer/bias/.* is float32, but .* is float64"):
            status.run_restore_ops(sess)


def test_save_needs_a_session_and_options_are_accepted(graph, tmp_path):
    ckpt = ds.train.Checkpoint(v=ds.Variable(2.0))
    with pytest.raises(ValueError, match="session"):
        ckpt.save(str(tmp_path / "c"))
    with pytest.raises(ValueError, match="session"):
        ds.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1).save()
    with pytest.raises(ValueError) as info:
        ds.train.Checkpoint(step=3)
    assert str(info.value) == TF["errors"]["not_trackable"]["message"]
    ckpt.note = "not tracked"                     # plain values set later: kept, untracked
    assert [name for name, _ in ckpt._trackable_children()] == ["v"]
    options = ds.train.CheckpointOptions(experimental_io_device="/job:localhost")
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        with sess.as_default():
            assert ckpt.save(str(tmp_path / "c"), options=options).endswith("c-1")
            assert ckpt.save(str(tmp_path / "c")).endswith("c-2")
            assert ckpt.write(str(tmp_path / "w")) == str(tmp_path / "w")   # not counted
        assert "c-2" in (tmp_path / "checkpoint").read_text()
        restored = ds.train.Checkpoint(v=ds.Variable(0.0))
        restored.restore(str(tmp_path / "c-2")).assert_consumed().run_restore_ops(sess)
        assert sess.run(restored.v) == 2.0 and sess.run(restored.save_counter) == 2


def test_tensorflow_restores_devsessions_checkpoint(tmp_path):
    path = save_initial(str(tmp_path))
    for suffix in (".index", ".data-00000-of-00001"):      # the very files TF restored
        with open(path + suffix, "rb") as mine, \
                open(os.path.join(DS_DIR, "ckpt-1" + suffix), "rb") as recorded:
            assert mine.read() == recorded.read(), suffix
    reader = TFCheckpoint(path)
    tf_read = TF["tf_read_of_ds"]
    assert tf_read["assert_consumed"] is None
    for key, value in tf_read["values"].items():
        np.testing.assert_array_equal(reader.tensor(key), value, err_msg=key)


def build_net():
    """The recorder's tf.Module case in devsession (module_cases.py)."""
    return module_cases.build_net(ds.Module, ds)


def test_modules_walk_name_and_checkpoint_as_tensorflows(graph, tmp_path):
    want = TF["module"]
    net = build_net()
    with net.name_scope:
        assert ds.constant(1.0, name="c").name == want["inside_scope"]
    assert [net.name, net.second.name, net.first.name] == want["names"]
    assert [net.name_scope.name, net.second.name_scope.name] == want["scopes"]
    assert [v.name for v in net.variables] == want["variables"]
    assert [v.name for v in net.trainable_variables] == want["trainable_variables"]
    assert [m.name for m in net.submodules] == want["submodules"]
    assert [ds.Module().name, ds.Module().name_scope.name] == want["default"]
    with pytest.raises(ValueError) as info:
        ds.Module(name="bad name")
    assert str(info.value) == want["bad_name"]["message"]
    ckpt = ds.train.Checkpoint(net=net)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    assert TFCheckpoint(path).names() == want["keys"]
    assert TFCheckpoint(path).string_scalar(GRAPH_KEY).hex() == want["object_graph_hex"]


def test_manager_keeps_one_checkpoint_every_n_hours(graph, tmp_path):
    ckpt = ds.train.Checkpoint(v=ds.Variable(1.0))
    with ds.Session() as sess, sess.as_default():
        sess.run(ds.global_variables_initializer())
        manager = ds.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1,
                                             keep_checkpoint_every_n_hours=1e-12)
        paths = [manager.save() for _ in range(3)]
        assert manager.checkpoints == paths[-1:]          # out of the list, kept on disk
        assert all(os.path.exists(p + ".index") for p in paths)
        manager = ds.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
        manager.save()
        assert not os.path.exists(paths[2] + ".index") and os.path.exists(paths[1] + ".index")


def test_layers_are_tracked_by_their_weights_names(graph, tmp_path):
    want = TF["layers"]
    x = ds.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    dense = ds.layers.Dense(2, name="fc", kernel_initializer=ds.constant_initializer(0.5))
    norm = ds.layers.BatchNormalization(name="bn")
    norm(dense(x), training=True)
    ckpt = ds.train.Checkpoint(dense=dense, norm=norm)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    assert TFCheckpoint(path).names() == want["keys"]
    graph_proto = trackable_object_graph_pb2.TrackableObjectGraph()
    graph_proto.ParseFromString(bytes.fromhex(want["object_graph_hex"]))
    assert graph_of(path) == graph_proto


def test_restore_ops_are_made_at_restore_so_a_finalized_graph_restores(graph):
    ckpt, _, model, _ = build(zeros=True)
    status = ckpt.restore(TF_PREFIX)
    graph.finalize()
    with ds.Session() as sess:
        status.initialize_or_restore(sess)
        want = TF["values"]["model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE"]["value"]
        np.testing.assert_array_equal(sess.run(model.layer.kernel), np.float32(want))


def test_checkpoint_readers_list_and_read_an_object_checkpoint():
    want = [(key, TF["values"][key]["shape"] if key != GRAPH_KEY else [])
            for key in TF["keys"]]
    assert [(name, list(shape)) for name, shape in ds.train.list_variables(TF_PREFIX)] == want
    reader = ds.train.NewCheckpointReader(TF_PREFIX)
    assert reader.get_variable_to_dtype_map()[GRAPH_KEY] == ds.string
    assert reader.get_tensor(GRAPH_KEY).hex() == TF["object_graph_hex"]     # bytes, as TF's
    np.testing.assert_array_equal(
        ds.train.load_variable(TF_PREFIX, "save_counter/.ATTRIBUTES/VARIABLE_VALUE"), 1)


def test_a_name_based_saver_restores_an_object_checkpoint_by_full_names(graph, caplog):
    _, _, model, opt = build(zeros=True)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        ds.train.Saver().restore(sess, TF_PREFIX)       # TF1's Saver falls back the same way
        for key, variable in [("model/layer/bias", model.layer.bias),
                              ("model/layer/kernel/.OPTIMIZER_SLOT/optimizer/m",
                               opt.get_slot(model.layer.kernel, "m"))]:
            want = TF["values"][f"{key}/.ATTRIBUTES/VARIABLE_VALUE"]["value"]
            np.testing.assert_array_equal(sess.run(variable), np.float32(want))
        with pytest.raises(ds.errors.NotFoundError, match="Key other not found"):
            ds.train.Saver({"other": ds.Variable(1.0)}).restore(sess, TF_PREFIX)
    assert "object-based checkpoint using a name-based saver" in caplog.text
