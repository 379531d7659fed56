"""Checkpoints TensorFlow wrote (tests/data/tf_checkpoint, made by its
make_checkpoints.py under TF 2.21): ``Saver.restore`` into a devsession graph with the
same variable names, training on from there, ``NewCheckpointReader``/``list_variables``/
``load_variable``, and every damaged or unsupported file refused with the right error
before anything is assigned."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

import devsession as ds
from devsession.errors import (DataLossError, InvalidArgumentError, NotFoundError,
                               UnimplementedError)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_checkpoint")
PREFIX = os.path.join(DATA, "model.ckpt-3")


def expected() -> dict:
    with np.load(os.path.join(DATA, "expected.npz")) as npz:
        return {key.replace("__", "/"): npz[key] for key in npz.files}


def model_graph():
    """The TF program's variables, built with devsession under the same names."""
    x = ds.constant(np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))
    pred = ds.layers.dense(x, 2, name="dense")
    loss = ds.reduce_mean(ds.square(pred))
    step = ds.train.get_or_create_global_step()
    train = ds.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    ds.Variable(np.float64(0.0), name="scale64")
    ds.Variable(np.zeros(2, np.int32), name="counts")
    ds.Variable([False, False, False], name="mask")
    return train, loss


def test_a_tensorflow_checkpoint_restores_every_variable_and_training_goes_on():
    train, loss = model_graph()
    saver = ds.train.Saver()
    want = expected()
    assert sorted(v.op.name for v in ds.global_variables()) == sorted(want)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        saver.restore(sess, ds.train.latest_checkpoint(DATA))
        for variable in ds.global_variables():
            got = sess.run(variable)
            np.testing.assert_array_equal(got, want[variable.op.name])
            assert got.dtype == want[variable.op.name].dtype
        before = sess.run(loss)
        sess.run(train)
        assert sess.run(ds.train.get_global_step()) == 4
        assert sess.run(loss) < before


def test_the_reader_lists_and_loads_tensors():
    want = expected()
    reader = ds.train.NewCheckpointReader(PREFIX)
    assert reader.get_variable_to_shape_map() == {k: list(v.shape) for k, v in want.items()}
    assert reader.get_variable_to_dtype_map()["global_step"] == ds.int64
    assert reader.has_tensor("dense/kernel/Adam") and not reader.has_tensor("dense/kernel:0")
    np.testing.assert_array_equal(reader.get_tensor("mask"), [True, False, True])
    assert ds.train.list_variables(DATA) == sorted((k, list(v.shape)) for k, v in want.items())
    assert ds.train.load_variable(DATA, "global_step:0") == 3
    with pytest.raises(NotFoundError, match="Key nothing not found"):
        reader.get_tensor("nothing")


def test_devsession_checkpoints_read_the_same_way(tmp_path):
    w = ds.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        prefix = ds.train.Saver().save(sess, str(tmp_path / "mine"))
    reader = ds.train.NewCheckpointReader(prefix)
    assert reader.get_variable_to_shape_map() == {"w": [2, 3]}
    np.testing.assert_array_equal(reader.get_tensor("w"), np.arange(6).reshape(2, 3))
    assert w.dtype == reader.get_variable_to_dtype_map()["w"]


def copy_of_checkpoint(tmp_path) -> str:
    for name in os.listdir(DATA):
        if name.startswith("model.ckpt-3"):
            shutil.copy(os.path.join(DATA, name), tmp_path / name)
    return str(tmp_path / "model.ckpt-3")


def flip_byte(path: str, at: int) -> None:
    with open(path, "r+b") as f:
        f.seek(at)
        byte = f.read(1)[0]
        f.seek(at)
        f.write(bytes([byte ^ 0x40]))


@pytest.mark.parametrize("damage,error,match", [
    (lambda p: flip_byte(p + ".data-00000-of-00001", 20), DataLossError, "is corrupt"),
    (lambda p: flip_byte(p + ".index", 30), DataLossError, "corrupt"),
    (lambda p: os.remove(p + ".data-00000-of-00001"), DataLossError, "missing"),
    (lambda p: os.truncate(p + ".data-00000-of-00001", 100), DataLossError, "should be"),
])
def test_a_damaged_checkpoint_is_data_loss_and_nothing_is_assigned(tmp_path, damage, error,
                                                                   match):
    prefix = copy_of_checkpoint(tmp_path)
    damage(prefix)
    model_graph()
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        fresh = sess.run(ds.global_variables())
        with pytest.raises(error, match=match):
            ds.train.Saver().restore(sess, prefix)
        for before, after in zip(fresh, sess.run(ds.global_variables())):
            np.testing.assert_array_equal(before, after)


def test_variables_that_do_not_fit_are_named():
    ds.Variable(np.zeros((3, 3), np.float32), name="dense/kernel")
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        with pytest.raises(InvalidArgumentError, match="'dense/kernel' has shape \\[4, 2\\]"):
            ds.train.Saver().restore(sess, PREFIX)
        with pytest.raises(NotFoundError, match="Key other not found"):
            ds.train.Saver({"other": ds.Variable(1.0)}).restore(sess, PREFIX)


@pytest.mark.parametrize("name,tensor,match", [
    ("strings.ckpt", "words", "DT_STRING"),
])
def test_what_devsession_does_not_read_is_unimplemented(name, tensor, match):
    reader = ds.train.NewCheckpointReader(os.path.join(DATA, name))
    with pytest.raises(UnimplementedError, match=match):
        reader.get_tensor(tensor)
