"""TF1's SavedModel (``ds.saved_model``): SavedModels TensorFlow wrote load with
TensorFlow's outputs (TF1's reference and resource variables, an asset read from the
SavedModel's own copy, several tagged MetaGraphDefs; TF2's tf.Module and Keras models),
devsession's own export loads back with the values it had, and the builder, loader and
signature helpers raise TF1's errors.  Data: tests/data/tf_saved_models, made by
make_tf_saved_models.py and make_tf2_saved_models.py there."""

import os
import shutil

import numpy as np
import pytest

import devsession as ds
from devsession.proto.saved_model_pb2 import SavedModel
from devsession.tensor_codec import proto_to_array
from devsession.unsupported import UnsupportedTF1Error
from saved_model_cases import trained_classifier

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_saved_models")
TF_WRITTEN = ["mlp-ref", "mlp-resource", "vocab", "tf2-module", "tf2-module-loop", "tf2-keras-mlp",
              "tf2-keras-cnn", "tf2-keras-lstm", "tf2-keras-functional"]
sm = ds.saved_model


def _run_signatures(sess, meta, expected):
    """{(signature, output key): value} for every signature ``expected`` has outputs of."""
    results = {}
    for key, signature in meta.signature_def.items():
        if not any(k.startswith(f"fetch/{key}/") for k in expected.files):
            continue
        feeds = {info.name: expected[f"feed/{key}/{name}"]
                 for name, info in signature.inputs.items()}
        values = sess.run({k: v.name for k, v in signature.outputs.items()}, feeds)
        results.update({(key, k): v for k, v in values.items()})
    return results


@pytest.mark.parametrize("name", TF_WRITTEN)
def test_a_savedmodel_tensorflow_wrote_loads_with_its_outputs(name, make_session):
    expected = np.load(os.path.join(DATA, name, "expected.npz"))
    graph = ds.Graph()
    sess = make_session(graph)
    meta = sm.loader.load(sess, [sm.tag_constants.SERVING], os.path.join(DATA, name))
    results = _run_signatures(sess, meta, expected)
    fetched = {tuple(k.split("/")[1:]) for k in expected.files if k.startswith("fetch/")}
    assert set(results) == fetched
    for (key, output), value in results.items():
        np.testing.assert_allclose(value, expected[f"fetch/{key}/{output}"], rtol=1e-5,
                                   atol=1e-6, err_msg=f"{name} {key} {output}")


def test_a_tensorflow_asset_is_read_from_the_savedmodels_copy():
    """The vocabulary the table was built from is gone (the recorder deleted it); the
    words still map to TF's ids, so the load fed the path of ``assets/words.txt``."""
    saved = sm.loader.parse_saved_model(os.path.join(DATA, "vocab"))
    (meta,) = [m for m in saved.meta_graphs if "serve" in m.meta_info_def.tags]
    assert "saved_model_assets" in meta.collection_def        # TF1's builder puts them there
    with ds.Session(graph=ds.Graph()) as sess:
        meta = sm.loader.load(sess, ["serve"], os.path.join(DATA, "vocab"))
        (path_tensor,) = sess.graph.get_collection(ds.GraphKeys.ASSET_FILEPATHS)
        assert not os.path.exists(sess.run(path_tensor))      # the path TF built it from
        ids = sess.run(meta.signature_def["serving_default"].outputs["ids"].name,
                       {"words:0": np.array([b"sat", b"on", b"unknown"])})
    np.testing.assert_array_equal(ids, [2, 3, 5])


def test_the_loader_picks_the_metagraph_of_the_tag_set_in_any_order():
    export_dir = os.path.join(DATA, "vocab")
    with ds.Session(graph=ds.Graph()) as sess:
        meta = sm.loader.load(sess, ["gpu", "train"], export_dir)
        assert set(meta.signature_def) == {"loss"}
        train_op = sess.graph.get_collection("train_op")[0]   # minimize put it there too
        feed = {"words:0": np.array([b"cat", b"mat"])}
        before = sess.run("Mean:0", feed)
        for _ in range(3):
            sess.run(train_op, feed)
        assert sess.run("Mean:0", feed) < before
    with pytest.raises(RuntimeError, match="could not be found in SavedModel, with "
                                           "available tags") as e:
        sm.loader.load(ds.Session(graph=ds.Graph()), ["train"], export_dir)
    assert "'serve'" in str(e.value) and "'gpu'" in str(e.value)


def _trained_mlp(graph, steps=3):
    """A small classifier trained a few SGD steps in ``graph``: (x, probs, session)."""
    return trained_classifier(graph, steps=steps)


def test_simple_save_writes_a_savedmodel_that_loads_with_the_trained_values(tmp_path,
                                                                          make_session):
    x, probs, sess = _trained_mlp(ds.Graph())
    batch = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    before = sess.run(probs, {x: batch})
    export_dir = tmp_path / "export"
    sm.simple_save(sess, str(export_dir), inputs={"x": x}, outputs={"probs": probs})
    sess.close()
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]
    assert sm.maybe_saved_model_directory(str(export_dir))
    assert not sm.contains_saved_model(str(tmp_path))

    loaded = make_session(ds.Graph())
    meta = sm.loader.load(loaded, [sm.SERVING], str(export_dir))
    signature = meta.signature_def[sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
    assert signature.method_name == sm.PREDICT_METHOD_NAME
    assert (signature.inputs["x"].name, signature.outputs["probs"].name) == ("x:0", "probs:0")
    assert signature.inputs["x"].dtype == ds.float32.enum
    assert [d.size for d in signature.inputs["x"].tensor_shape.dim] == [-1, 4]
    np.testing.assert_allclose(loaded.run("probs:0", {"x:0": batch}), before, rtol=1e-6)


def test_a_builder_shares_one_checkpoint_between_metagraphs_and_runs_the_main_op(tmp_path):
    graph = ds.Graph()
    x, probs, sess = _trained_mlp(graph)
    with graph.as_default():
        counter = ds.Variable(0, name="loads", collections=[ds.GraphKeys.LOCAL_VARIABLES])
        count = ds.assign_add(counter, 1)
        with ds.control_dependencies([ds.local_variables_initializer()]):
            main_op = ds.group(count)
        builder = sm.builder.SavedModelBuilder(str(tmp_path / "m"))
        builder.add_meta_graph_and_variables(
            sess, ["serve"], {"predict": sm.predict_signature_def({"x": x}, {"p": probs})},
            main_op=main_op)
        builder.add_meta_graph(["train", "gpu"])
        path = builder.save(as_text=True)
    assert path == os.fsencode(str(tmp_path / "m" / "saved_model.pbtxt"))
    for tags, signatures in ((["serve"], {"predict"}), (["gpu", "train"], set())):
        with ds.Session(graph=ds.Graph()) as loaded:
            meta = sm.loader.load(loaded, tags, str(tmp_path / "m"))
            assert set(meta.signature_def) == signatures
            # the main op ran once, after the variables were restored (not initialized)
            assert loaded.run("loads:0") == 1
            np.testing.assert_allclose(loaded.run("w:0"), sess.run("w:0"))


def test_main_op_initializes_everything_and_main_op_with_restore_then_runs_its_op():
    """TF1's ``main_op()`` initializes the global and local variables and the tables (so
    a load that runs it re-initializes what it restored: TF's semantics);
    ``main_op_with_restore(name)`` runs the op ``name`` after that."""
    graph = ds.Graph()
    x, probs, sess = _trained_mlp(graph)
    trained = sess.run("w:0")
    with graph.as_default():
        seen = ds.Variable(7, name="seen", collections=[ds.GraphKeys.LOCAL_VARIABLES])
        table = ds.lookup.StaticHashTable(ds.lookup.KeyValueTensorInitializer(
            ds.constant([b"a"]), ds.constant([4], ds.int64)), -1)
        found = table.lookup(ds.constant([b"a"]))
        sess.run(sm.main_op.main_op())
        initial = sess.run("w:0")
        assert not np.allclose(initial, trained)
        assert (sess.run(seen), sess.run(found)) == (7, [4])
        w = [v for v in ds.global_variables() if v.op.name == "w"][0]
        ds.assign(w, trained, name="put_back")
        sess.run(sm.main_op_with_restore("put_back"))
    np.testing.assert_allclose(sess.run("w:0"), trained)


def test_an_import_scope_prefixes_the_loaded_graph(tmp_path):
    x, probs, sess = _trained_mlp(ds.Graph())
    sm.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"probs": probs})
    graph = ds.Graph()
    with ds.Session(graph=graph) as loaded:
        meta = sm.loader.load(loaded, ["serve"], str(tmp_path / "m"), import_scope="model")
        info = meta.signature_def["serving_default"].outputs["probs"]
        assert info.name == "probs:0"          # the proto is not rewritten
        tensor = sm.utils.get_tensor_from_tensor_info(info, graph, import_scope="model")
        assert tensor.name == "model/probs:0"
        batch = np.ones((2, 4), np.float32)
        np.testing.assert_allclose(loaded.run(tensor, {"model/x:0": batch}),
                                   sess.run(probs, {x: batch}), rtol=1e-6)


def _vocabulary_model(graph, vocab_files):
    """One lookup table per vocabulary file, summed ids; (words, ids)."""
    with graph.as_default():
        words = ds.placeholder(ds.string, [None], name="words")
        ids = []
        for path in vocab_files:
            table = ds.lookup.StaticVocabularyTable(ds.lookup.TextFileInitializer(
                path, ds.string, ds.lookup.TextFileIndex.WHOLE_LINE, ds.int64,
                ds.lookup.TextFileIndex.LINE_NUMBER), 1)
            ids.append(table.lookup(words))
        return words, ds.add_n(ids, name="ids")


def test_assets_are_copied_deduplicated_and_fed_on_load(tmp_path):
    """Two vocabularies of one basename but different words become ``words.txt`` and
    ``words.txt_1``; after the sources are deleted the loaded tables read the copies."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "words.txt").write_text("x\ny\nz\n")
    (tmp_path / "b" / "words.txt").write_text("z\ny\n")
    graph = ds.Graph()
    words, ids = _vocabulary_model(graph, [str(tmp_path / "a" / "words.txt"),
                                           str(tmp_path / "b" / "words.txt")])
    with ds.Session(graph=graph) as sess:
        sess.run(ds.tables_initializer())
        feed = {words: np.array([b"x", b"z", b"q"])}
        before = sess.run(ids, feed)
        sm.simple_save(sess, str(tmp_path / "m"), {"words": words}, {"ids": ids},
                       legacy_init_op=ds.tables_initializer())
    shutil.rmtree(tmp_path / "a")
    shutil.rmtree(tmp_path / "b")
    assert sorted(os.listdir(tmp_path / "m" / "assets")) == ["words.txt", "words.txt_1"]
    assert (tmp_path / "m" / "assets" / "words.txt_1").read_text() == "z\ny\n"
    with ds.Session(graph=ds.Graph()) as loaded:
        sm.loader.load(loaded, ["serve"], str(tmp_path / "m"))
        np.testing.assert_array_equal(loaded.run("ids:0", {"words:0": feed[words]}), before)
    np.testing.assert_array_equal(before, [0 + 2, 2 + 0, 3 + 2])


def test_builder_errors_are_tensorflows(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        sm.builder.SavedModelBuilder(str(tmp_path / "full"))
    graph = ds.Graph()
    x, probs, sess = _trained_mlp(graph, steps=0)
    with graph.as_default():
        builder = sm.Builder(str(tmp_path / "m"))
        with pytest.raises(AssertionError, match="has not been saved yet"):
            builder.add_meta_graph(["serve"])
        bad = sm.build_signature_def({"x": sm.build_tensor_info(x)},
                                     {"p": ds.saved_model.utils.build_tensor_info(probs)})
        bad.outputs["p"].dtype = 0
        with pytest.raises(AssertionError, match="must have the dtype field set"):
            builder.add_meta_graph_and_variables(sess, ["serve"], {"s": bad})
        with pytest.raises(KeyError, match="reserved for initialization"):
            builder.add_meta_graph_and_variables(
                sess, ["serve"], {"__saved_model_init_op": sm.predict_signature_def(
                    {"x": x}, {"p": probs})})
        with pytest.raises(TypeError, match="to be an Operation"):
            builder.add_meta_graph_and_variables(sess, ["serve"], main_op=probs)
        builder.add_meta_graph_and_variables(sess, ["serve"], main_op=ds.no_op())
        with pytest.raises(AssertionError, match="has already been saved"):
            builder.add_meta_graph_and_variables(sess, ["other"])
        with pytest.raises(ValueError, match="already contains one or more main ops"):
            builder.add_meta_graph(["other"], main_op=ds.no_op())
        with pytest.raises(TypeError, match="must be of type constant"):
            builder.add_meta_graph(["other"], assets_collection=[ds.identity("f.txt")])


def test_loading_what_is_not_a_savedmodel_is_an_oserror(tmp_path):
    sess = ds.Session(graph=ds.Graph())
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        sm.loader.load(sess, ["serve"], str(tmp_path))
    (tmp_path / "saved_model.pb").write_bytes(b"\xff\xff\xff not a proto")
    with pytest.raises(OSError, match="Cannot parse file"):
        sm.load(sess, ["serve"], str(tmp_path))


def test_signature_helpers_check_and_describe_like_tensorflows():
    graph = ds.Graph()
    with graph.as_default():
        examples = ds.placeholder(ds.string, [None], name="examples")
        scores = ds.placeholder(ds.float32, [None, 3], name="scores")
        classes = ds.placeholder(ds.string, [None, 3], name="classes")
        ids = ds.placeholder(ds.int64, [None], name="ids")
        sparse = ds.sparse_placeholder(ds.float32, name="sp")
        classify = sm.classification_signature_def(examples, classes, scores)
        regress = sm.regression_signature_def(examples, ds.reduce_sum(scores, 1))
        predict = sm.predict_signature_def({"ids": ids}, {"scores": scores})
        assert classify.method_name == sm.CLASSIFY_METHOD_NAME
        assert set(classify.outputs) == {sm.CLASSIFY_OUTPUT_CLASSES, sm.CLASSIFY_OUTPUT_SCORES}
        assert [sm.is_valid_signature(s) for s in (classify, regress, predict, None)] == \
            [True, True, True, False]
        regress.outputs["outputs"].dtype = ds.int64.enum
        assert not sm.is_valid_signature(regress)
        assert not sm.is_valid_signature(sm.build_signature_def(
            {"ids": sm.build_tensor_info(ids)}, {}, sm.PREDICT_METHOD_NAME))
        with pytest.raises(ValueError, match="must be of type string"):
            sm.classification_signature_def(ids, None, scores)
        with pytest.raises(ValueError, match="cannot both be None"):
            sm.classification_signature_def(examples, None, None)
        with pytest.raises(ValueError, match="must be of type float"):
            sm.regression_signature_def(examples, ids)
        with pytest.raises(ValueError, match="cannot be None or empty"):
            sm.predict_signature_def({}, {"scores": scores})
        info = sm.build_tensor_info(sparse)
        assert info.WhichOneof("encoding") == "coo_sparse"
        back = sm.get_tensor_from_tensor_info(info)
        assert (back.indices, back.values, back.dense_shape) == \
            (sparse.indices, sparse.values, sparse.dense_shape)
        with pytest.raises(KeyError):
            sm.get_tensor_from_tensor_info(sm.build_tensor_info(ids), import_scope="nowhere")
        defaults = sm.build_signature_def(defaults={"k": ds.constant(3)})
        assert proto_to_array(defaults.defaults["k"], "k") == 3


def test_tensorflows_saved_model_parses_as_devsessions_proto_and_back():
    """Same field numbers: re-serializing keeps every byte (unknown fields included)."""
    with open(os.path.join(DATA, "vocab", "saved_model.pb"), "rb") as f:
        data = f.read()
    saved = SavedModel.FromString(data)
    assert saved.saved_model_schema_version == 1
    assert [sorted(m.meta_info_def.tags) for m in saved.meta_graphs] == \
        [["serve"], ["gpu", "train"]]
    assert len(SavedModel.FromString(saved.SerializeToString()).SerializeToString()) == \
        len(data)


def test_tf2s_object_based_api_is_reported_with_the_tf1_alternative():
    with pytest.raises(UnsupportedTF1Error, match="simple_save"):
        ds.saved_model.save
    with pytest.raises(UnsupportedTF1Error, match="tf.saved_model.Asset"):
        ds.saved_model.Asset
