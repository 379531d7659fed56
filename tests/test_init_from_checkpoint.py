"""``ds.train.init_from_checkpoint`` and ``load_checkpoint``: variables whose initializers
read a checkpoint (devsession's, or one TensorFlow wrote) when they run, mapped by scope
or by name as TF maps them, TF's errors at the call, and ``RestoreV2``'s at run time."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError, NotFoundError, UnimplementedError

TF_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_checkpoint")


def save_encoder(directory, seed=0) -> dict:
    """A checkpoint of ``enc/w``, ``enc/b`` (get_variable) and ``v`` (a Variable) under
    ``directory``; returns their values by name."""
    rng = np.random.default_rng(seed)
    values = {"enc/w": rng.standard_normal((2, 3)).astype(np.float32),
              "enc/b": rng.standard_normal(3).astype(np.float32),
              "v": rng.standard_normal(4).astype(np.float32)}
    with ds.Graph().as_default():
        with ds.variable_scope("enc"):
            ds.get_variable("w", initializer=values["enc/w"])
            ds.get_variable("b", initializer=values["enc/b"])
        ds.Variable(values["v"], name="v")
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            ds.train.Saver().save(sess, os.path.join(directory, "model"))
    return values


def model_variables():
    with ds.variable_scope("model/enc"):
        w = ds.get_variable("w", [2, 3], initializer=ds.zeros_initializer())
        b = ds.get_variable("b", [3], initializer=ds.zeros_initializer())
    vv = ds.Variable(np.zeros(4, np.float32), name="vv")
    other = ds.Variable(np.full(2, 7.0, np.float32), name="other")
    return w, b, vv, other


def test_scope_and_name_mappings_load_the_checkpoint_when_initialized(tmp_path):
    want = save_encoder(tmp_path)
    w, b, vv, other = model_variables()
    ds.train.init_from_checkpoint(str(tmp_path), {"enc/": "model/enc/", "v": "vv"})
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got_w, got_b, got_v, got_other = sess.run([w, b, vv, other])
    np.testing.assert_array_equal(got_w, want["enc/w"])
    np.testing.assert_array_equal(got_b, want["enc/b"])
    np.testing.assert_array_equal(got_v, want["v"])
    np.testing.assert_array_equal(got_other, np.full(2, 7.0, np.float32))   # not mapped


def test_the_checkpoint_is_read_when_the_initializer_runs_not_at_the_call(tmp_path):
    save_encoder(tmp_path, seed=0)
    w, *_ = model_variables()
    ds.train.init_from_checkpoint(str(tmp_path), {"enc/w": w})     # a Variable object
    later = save_encoder(tmp_path, seed=1)                           # same prefix, new values
    with ds.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w), later["enc/w"])


def test_a_root_mapping_into_a_scope_reads_a_tensorflow_checkpoint():
    with np.load(os.path.join(TF_DATA, "expected.npz")) as npz:
        kernel, bias = npz["dense__kernel"], npz["dense__bias"]
    with ds.variable_scope("pretrained"):
        x = ds.constant(np.ones((1, 4), np.float32))
        y = ds.layers.dense(x, 2, name="dense")
    ds.train.init_from_checkpoint(TF_DATA, {"dense/": "pretrained/dense/"})
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y), np.ones((1, 4), np.float32) @ kernel + bias,
                                   rtol=1e-6)


def test_a_cluster_session_initializes_from_the_checkpoint(tmp_path, make_session):
    want = save_encoder(tmp_path)
    w, b, _, _ = model_variables()
    ds.train.init_from_checkpoint(str(tmp_path), {"enc/": "model/enc/"})
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(w), want["enc/w"])
    np.testing.assert_array_equal(sess.run(b), want["enc/b"])


def test_load_checkpoint_reads_a_directory_s_latest_checkpoint(tmp_path):
    want = save_encoder(tmp_path)
    reader = ds.train.load_checkpoint(str(tmp_path))
    assert reader.get_variable_to_shape_map() == {k: list(v.shape) for k, v in want.items()}
    np.testing.assert_array_equal(reader.get_tensor("enc/b"), want["enc/b"])


@pytest.mark.parametrize("assignment_map, message", [
    ({"enc/missing": "model/enc/w"}, "Tensor enc/missing is not found"),
    ({"enc/b": "model/enc/w"}, "Shape of variable model/enc/w:0 .* doesn't match"),
    ({"enc": "model/enc/"}, "should map to scope only"),
    ({"other/": "model/enc/"}, r"Tensor other/b \(b in other/\) is not found"),
])
def test_bad_mappings_are_value_errors_at_the_call(tmp_path, assignment_map, message):
    save_encoder(tmp_path)
    model_variables()
    with pytest.raises(ValueError, match=message):
        ds.train.init_from_checkpoint(str(tmp_path), assignment_map)


def test_a_missing_checkpoint_is_an_error_at_the_call(tmp_path):
    model_variables()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        ds.train.init_from_checkpoint(str(tmp_path), {"enc/": "model/enc/"})
    with pytest.raises(NotFoundError):
        ds.train.init_from_checkpoint(str(tmp_path / "nothing"), {"enc/": "model/enc/"})


def test_another_dtype_is_tf_s_invalid_argument_error_naming_the_node(tmp_path):
    save_encoder(tmp_path)
    wide = ds.Variable(np.zeros(4, np.float64), name="wide")
    ds.train.init_from_checkpoint(str(tmp_path), {"v": wide})
    with ds.Session() as sess, pytest.raises(InvalidArgumentError,
                                             match="expected dtype float64 does not equal "
                                                   "original dtype float32") as caught:
        sess.run(wide.initializer)
    assert caught.value.node_name == "checkpoint_initializer"


def test_restore_v2_reads_several_tensors_and_refuses_slices(tmp_path):
    want = save_encoder(tmp_path)
    prefix = os.path.join(str(tmp_path), "model")
    from devsession.ops.checkpoint_io import restore_v2

    w, v = restore_v2(prefix, ["enc/w", "v"], ["", ""], [ds.float32, ds.float32])
    sliced = restore_v2(prefix, ["v"], ["4 0,2"], [ds.float32], name="sliced")[0]
    missing = restore_v2(prefix, ["nope"], [""], [ds.float32], name="missing")[0]
    assert [t.op.name for t in (w, sliced, missing)] == ["RestoreV2", "sliced", "missing"]
    assert w.op.inputs[0].op.name == "RestoreV2/prefix"
    with ds.Session() as sess:
        got_w, got_v = sess.run([w, v])
        np.testing.assert_array_equal(got_w, want["enc/w"])
        np.testing.assert_array_equal(got_v, want["v"])
        with pytest.raises(UnimplementedError, match="partitioned variable"):
            sess.run(sliced)
        with pytest.raises(NotFoundError, match="nope"):
            sess.run(missing)


def test_one_call_reads_the_checkpoint_through_one_restore(tmp_path):
    """The checkpoint is opened and checked once per run, not once per variable."""
    want = save_encoder(tmp_path)
    w, b, vv, _ = model_variables()
    ds.train.init_from_checkpoint(str(tmp_path), {"enc/": "model/enc/", "v": "vv"})
    restores = [op for op in ds.get_default_graph().get_operations() if op.type == "RestoreV2"]
    assert len(restores) == 1 and len(restores[0].outputs) == 3
    with ds.Session() as sess:
        sess.run(b.initializer)                        # one initializer alone works too
        np.testing.assert_array_equal(sess.run(b), want["enc/b"])
        sess.run(ds.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(vv), want["v"])


def test_a_scope_mapping_loads_a_partitioned_variable_part_by_part(tmp_path):
    """As TF: the parts' names are cut at "/part_" and the parts load their slices of
    the mapped checkpoint tensor."""
    whole = np.arange(8, dtype=np.float32).reshape(4, 2)
    with ds.Graph().as_default():
        with ds.variable_scope("old"):
            p = ds.get_variable("p", [4, 2], partitioner=ds.fixed_size_partitioner(2))
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            sess.run([part.assign(whole[2 * k:2 * k + 2]) for k, part in enumerate(p)])
            path = ds.train.Saver().save(sess, str(tmp_path / "m"))
    with ds.Graph().as_default():
        with ds.variable_scope("new"):
            q = ds.get_variable("p", [4, 2], partitioner=ds.fixed_size_partitioner(2))
        ds.train.init_from_checkpoint(path, {"old/": "new/"})
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(ds.concat(list(q), 0)), whole)
