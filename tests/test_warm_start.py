"""``ds.train.warm_start`` and ``VocabInfo``: a new model's variables initialized from a
checkpoint TensorFlow wrote (tests/data/tf_warm_start, made by make_tf_warm_start.py), by
pattern, list, rename, partitioned, and with rows or columns re-ordered from an old
vocabulary to a new one: every variable equals TF 2.21's after its initializers ran.  Then
devsession's own checkpoints, and TF's errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
import warm_start_cases as _cases

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_warm_start")
OLD = os.path.join(DATA, "old.ckpt")


CASES = _cases.cases(ds, DATA)


def new_model(**kw):
    """make_tf_warm_start.py's new model: every variable 9.0 before warm-starting."""
    _cases.new_model(ds, **kw)


def emb_info(**kw):
    return _cases.emb_info(ds, DATA, **kw)


def full_values(sess) -> dict:
    parts = {}
    for v in ds.global_variables():
        info = v._get_save_slice_info()
        parts.setdefault(info.full_name if info else v.op.name, []).append(sess.run(v))
    return {name: np.concatenate(values) for name, values in parts.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_variables_equal_tensorflows_after_warm_start(case):
    model, kwargs = CASES[case]
    expected = np.load(os.path.join(DATA, "expected.npz"))
    with ds.Graph().as_default():
        new_model(**model)
        ds.train.warm_start(OLD, **kwargs)
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            got = full_values(sess)
    want = {k.split("/", 1)[1]: expected[k] for k in expected if k.startswith(case + "/")}
    assert sorted(got) == sorted(want)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_a_random_backup_initializer_fills_only_the_missing_cells():
    with ds.Graph().as_default():
        new_model(emb_parts=3)
        ds.train.warm_start(OLD, "emb", {"emb": emb_info(
            backup_initializer=ds.random_uniform_initializer(100.0, 101.0, seed=3))})
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            emb = full_values(sess)["emb"]
    want = np.load(os.path.join(DATA, "expected.npz"))["all/emb"]
    new_rows = [1, 4, 6, 7]                      # x, y and the two OOV buckets
    kept = [r for r in range(8) if r not in new_rows]
    np.testing.assert_array_equal(emb[kept], want[kept])
    assert ((emb[new_rows] >= 100) & (emb[new_rows] < 101)).all()


def save_devsession_model(directory) -> dict:
    values = {"enc/w": np.arange(6, dtype=np.float32).reshape(3, 2),
              "emb": np.arange(10, dtype=np.float32).reshape(5, 2)}
    with ds.Graph().as_default():
        ds.get_variable("enc/w", initializer=values["enc/w"])
        ds.get_variable("emb", [5, 2], initializer=values["emb"],
                        partitioner=ds.fixed_size_partitioner(2))
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            ds.train.Saver().save(sess, os.path.join(directory, "model"))
    return values


def test_a_devsession_checkpoint_directory_into_other_partitions_and_names(tmp_path):
    values = save_devsession_model(tmp_path)
    with ds.Graph().as_default():
        w = ds.get_variable("new/w", [3, 2], initializer=ds.zeros_initializer())
        emb = ds.get_variable("emb", [5, 2], initializer=ds.zeros_initializer(),
                              partitioner=ds.fixed_size_partitioner(3))
        other = ds.get_variable("other", [2], initializer=ds.ones_initializer())
        ds.train.warm_start(str(tmp_path), [w, emb],
                            var_name_to_prev_var_name={"new/w": "enc/w"})
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(w), values["enc/w"])
            np.testing.assert_array_equal(sess.run(emb.as_tensor()), values["emb"])
            np.testing.assert_array_equal(sess.run(other), [1, 1])


def test_tensorflows_errors():
    with ds.Graph().as_default():
        new_model()
        with pytest.raises(ValueError, match=r"var_name_to_prev_var_name that were not used: "
                                             r"\{'wq'\}"):
            ds.train.warm_start(OLD, "w", var_name_to_prev_var_name={"wq": "w"})
        with pytest.raises(ValueError, match="var_name_to_vocab_info that were not used"):
            ds.train.warm_start(OLD, "w", var_name_to_vocab_info={"emb": emb_info()})
        with pytest.raises(ValueError, match="must be all `Variable` or all `str`"):
            ds.train.warm_start(OLD, ["w", 3])
        with pytest.raises(ValueError, match="must be a `list` or `str`"):
            ds.train.warm_start(OLD, 3)
        with pytest.raises(ValueError, match="Tensor bias is not found"):
            ds.train.warm_start(OLD, "bias")
        with pytest.raises(ValueError, match="Shape of variable out/kernel"):
            ds.train.warm_start(OLD, ["out/kernel"])      # [2, 3] against [2, 4]
    with pytest.raises(ValueError, match="Provided axis: 2"):
        ds.train.VocabInfo("a", 1, 0, "b", axis=2)
    info = ds.train.VocabInfo("a", 1, 0, "b")
    assert (info.old_vocab_size, info.backup_initializer, info.axis) == (-1, None, 0)
