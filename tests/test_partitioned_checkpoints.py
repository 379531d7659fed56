"""Checkpoints of partitioned variables: the Saver writes a partitioned variable (and
its optimizer slots) as one tensor under its full name, as TF1's does, so a checkpoint
restores into any partitioning of the same full shape; a checkpoint TensorFlow wrote in
slices (tests/data/tf_checkpoint/make_partitioned_checkpoints.py) restores, and training
goes on with TensorFlow's values.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import DataLossError, InvalidArgumentError

DATA = os.path.join(os.path.dirname(__file__), "data", "tf_checkpoint")
PREFIX = os.path.join(DATA, "embeddings.ckpt")
IDS = [np.array([0, 6, 3, 3]), np.array([5, 1]), np.array([2, 4, 6]), np.array([6, 0]),
       np.array([1, 1, 3])]


def expected() -> dict:
    with np.load(os.path.join(DATA, "embeddings_expected.npz")) as f:
        return {key.replace("__", "/"): f[key] for key in f.files}


def model(parts, cols_parts=2):
    """The recorder's wide model; ``parts`` None: no partitioner."""
    rng = np.random.RandomState(0)
    emb0 = rng.standard_normal((7, 3)).astype(np.float32)
    cols0 = rng.standard_normal((4, 5))
    ids = ds.placeholder(ds.int64, [None], name="ids")
    with ds.variable_scope("wide", partitioner=parts and ds.fixed_size_partitioner(parts)):
        # as TF1's: an array initializer takes a shape when partitioned, none otherwise
        emb = ds.get_variable("emb", parts and [7, 3], initializer=emb0)
        cols = ds.get_variable("cols", cols_parts and [4, 5], ds.float64, initializer=cols0,
                               partitioner=(cols_parts and
                                            ds.fixed_size_partitioner(cols_parts, axis=1)))
        bias = ds.get_variable("bias", [], initializer=ds.constant_initializer(0.5))
    rows = ds.nn.embedding_lookup(emb, ids, partition_strategy="div")
    extra = ds.cast(ds.reduce_sum(ds.square(ds.convert_to_tensor(cols))), ds.float32)
    loss = ds.reduce_sum(ds.square(rows - 1.0)) + bias * bias + 0.01 * extra
    step = ds.train.get_or_create_global_step()
    train = ds.train.AdagradOptimizer(0.3).minimize(loss, global_step=step)
    full = {"wide/emb": ds.convert_to_tensor(emb), "wide/cols": ds.convert_to_tensor(cols),
            "wide/bias": bias}
    return ids, full, train


@pytest.mark.parametrize("parts", [2, 3, None])
def test_tensorflows_sliced_checkpoint_restores_into_any_partitioning(parts):
    want = expected()
    with ds.Graph().as_default():
        ids, full, train = model(parts, cols_parts=parts and 5)
        with ds.Session() as sess:
            ds.train.Saver().restore(sess, PREFIX)
            got = sess.run(full)
            for name, value in got.items():
                np.testing.assert_array_equal(value, want[name])
            assert sess.run(ds.train.get_global_step()) == 3
            for batch in IDS[3:]:
                sess.run(train, {ids: batch})
            after = sess.run(full)
    for name in ("emb", "cols", "bias"):
        np.testing.assert_allclose(after[f"wide/{name}"], want[f"after/{name}"], rtol=1e-6)


def test_the_reader_assembles_sliced_tensors():
    want = expected()
    reader = ds.train.NewCheckpointReader(PREFIX)
    shapes = reader.get_variable_to_shape_map()
    assert shapes["wide/emb"] == [7, 3] and shapes["wide/cols/Adagrad"] == [4, 5]
    for name in shapes:
        np.testing.assert_array_equal(reader.get_tensor(name), want[name])
    np.testing.assert_array_equal(
        ds.train.NewCheckpointReader(os.path.join(DATA, "partitioned.ckpt")).get_tensor(
            "split"), np.ones((4, 2), np.float32))


def test_a_missing_slice_is_data_loss(tmp_path):
    from devsession.train.tf_checkpoint import TFCheckpoint

    checkpoint = TFCheckpoint(PREFIX)
    checkpoint._slices.pop(min(k for k in checkpoint._slices if b"emb" in k))
    with pytest.raises(DataLossError, match=r"the slice wide/emb\[0:3, 0:3\]"):
        checkpoint.tensor("wide/emb")


def test_devsession_saves_one_full_tensor_and_restores_across_partitionings(tmp_path):
    prefix = str(tmp_path / "model")
    with ds.Graph().as_default():
        ids, full, train = model(3)
        assert [v.op.name for v in ds.global_variables() if "Adagrad" in v.op.name][:3] == \
            ["wide/emb/part_0/Adagrad", "wide/emb/part_1/Adagrad", "wide/emb/part_2/Adagrad"]
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            for batch in IDS[:3]:
                sess.run(train, {ids: batch})
            trained = sess.run(full)
            ds.train.Saver().save(sess, prefix)
            slots = sess.run([v for v in ds.global_variables() if v.op.name.startswith(
                "wide/emb/part_") and v.op.name.endswith("Adagrad")])
    reader = ds.train.NewCheckpointReader(prefix)
    assert sorted(reader.get_variable_to_shape_map()) == [
        "global_step", "wide/bias", "wide/bias/Adagrad", "wide/cols", "wide/cols/Adagrad",
        "wide/emb", "wide/emb/Adagrad"]
    np.testing.assert_array_equal(reader.get_tensor("wide/emb"), trained["wide/emb"])
    np.testing.assert_array_equal(reader.get_tensor("wide/emb/Adagrad"),
                                  np.concatenate(slots))
    for parts in (None, 2, 7):
        with ds.Graph().as_default():
            ids, full, train = model(parts, cols_parts=parts and 3)
            with ds.Session() as sess:
                ds.train.Saver().restore(sess, prefix)
                for name, value in sess.run(full).items():
                    np.testing.assert_array_equal(value, trained[name])


def test_var_lists_name_partitioned_variables_by_their_full_name(tmp_path):
    prefix = str(tmp_path / "model")
    full = np.arange(12, dtype=np.float32).reshape(6, 2)
    emb = ds.get_variable("emb", [6, 2], initializer=full,
                          partitioner=ds.fixed_size_partitioner(4))
    other = ds.get_variable("other", [6, 2], initializer=full * 0,
                            partitioner=ds.fixed_size_partitioner(2))
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        ds.train.Saver([emb]).save(sess, prefix)
        assert ds.train.NewCheckpointReader(prefix).get_variable_to_shape_map() == \
            {"emb": [6, 2]}
        ds.train.Saver({"emb": other}).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(other.as_tensor()), full)
        ds.train.Saver({"emb": list(other)}).restore(sess, prefix)
        with pytest.raises(ValueError, match="do not cover its full shape"):
            ds.train.Saver({"emb": list(emb)[:2]}).save(sess, prefix)
        with pytest.raises(ValueError, match="Mixing slices and non-slices"):
            ds.train.Saver([ds.Variable(1.0, name="emb")] + list(emb))
        wrong = ds.get_variable("wrong", [5, 2], partitioner=ds.fixed_size_partitioner(2))
        with pytest.raises(InvalidArgumentError, match="partitioned variable 'wrong' is "
                                                       r"float32 \[5, 2\]"):
            ds.train.Saver({"emb": wrong}).restore(sess, prefix)


def test_a_meta_graph_keeps_the_parts_slice_info_and_its_saver_groups_them(tmp_path):
    full = np.arange(14, dtype=np.float32).reshape(7, 2)
    with ds.Graph().as_default():
        emb = ds.get_variable("emb", [7, 2], initializer=full,
                              partitioner=ds.fixed_size_partitioner(3))
        ds.identity(ds.nn.embedding_lookup(emb, [6, 0], partition_strategy="div"),
                    name="out")
        assert list(emb)[1].to_proto().save_slice_info_def.var_offset == [3, 0]
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            path = ds.train.Saver().save(sess, str(tmp_path / "model"))
    with ds.Graph().as_default():
        saver = ds.train.import_meta_graph(path + ".meta")
        assert [v._get_save_slice_info().spec for v in ds.global_variables()] == \
            ["7 2 0,3:0,2", "7 2 3,2:0,2", "7 2 5,2:0,2"]
        with ds.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run("out:0"), full[[6, 0]])
            saver.save(sess, path)
    assert ds.train.NewCheckpointReader(path).get_variable_to_shape_map() == {"emb": [7, 2]}
