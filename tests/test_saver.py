"""``ds.train.Saver``: round trips on every session type, restoring into a fresh graph,
the checkpoint state file, crash safety (a write failing halfway, a full disk, a crash
leaving debris), and the errors: a missing checkpoint, a corrupt or truncated one
(nothing restored), a variable the checkpoint lacks, a shape that differs."""

from __future__ import annotations

import errno
import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession import atomic_files
from devsession.train import saver as saver_module

F32 = np.float32
W0 = np.arange(6, dtype=F32).reshape(2, 3)
B0 = np.array([0.5, -0.5], np.float64)


def model(graph=None):
    """w (2x3 float32), b (float64), a global step, and ops that change all three."""
    with (graph or ds.get_default_graph()).as_default():
        with ds.device("/device:CPU:0"):     # variables stay together on a cluster
            w = ds.Variable(W0, name="w")
            b = ds.Variable(B0, name="b")
        step = ds.train.get_or_create_global_step()
        change = ds.group(w.assign_add(np.ones((2, 3), F32)), b.assign(b * 10.0),
                          step.assign_add(1))
    return w, b, step, change


def test_round_trip_on_every_session_type(make_session, tmp_path):
    graph = ds.Graph()
    w, b, step, change = model(graph)
    with graph.as_default():
        saver = ds.train.Saver()
        init = ds.global_variables_initializer()
    sess = make_session(graph)
    sess.run(init)
    sess.run(change)
    path = saver.save(sess, str(tmp_path / "model"), global_step=step)
    assert path == str(tmp_path / "model-1")
    sess.run(change)
    sess.run(change)
    saver.restore(sess, path)
    got_w, got_b, got_step = sess.run([w, b, step])
    np.testing.assert_array_equal(got_w, W0 + 1)
    np.testing.assert_array_equal(got_b, B0 * 10)
    assert got_step == 1

    fresh = ds.Graph()                         # a new graph and a direct session
    w2, b2, step2, _ = model(fresh)
    with fresh.as_default():
        restorer = ds.train.Saver()
    with ds.Session(graph=fresh) as direct:
        restorer.restore(direct, ds.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(direct.run(w2), W0 + 1)
        assert direct.run(step2) == 1


def test_state_file_latest_checkpoint_and_max_to_keep(tmp_path):
    w, b, step, change = model()
    saver = ds.train.Saver(max_to_keep=2)
    assert ds.train.latest_checkpoint(str(tmp_path)) is None
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        paths = []
        for _ in range(3):
            sess.run(change)
            paths.append(saver.save(sess, str(tmp_path / "model"), global_step=step))
    assert [os.path.basename(p) for p in paths] == ["model-1", "model-2", "model-3"]
    assert saver.last_checkpoints == paths[1:]
    assert not ds.train.checkpoint_exists(paths[0])
    files = sorted(os.listdir(tmp_path))
    assert [f for f in files if not f.endswith(".npz")] == [
        "checkpoint", "model-2.index", "model-2.meta", "model-3.index", "model-3.meta"]
    assert len([f for f in files if f.endswith(".npz")]) == 2
    text = (tmp_path / "checkpoint").read_text()
    assert text.splitlines() == ['model_checkpoint_path: "model-3"',
                                 'all_model_checkpoint_paths: "model-2"',
                                 'all_model_checkpoint_paths: "model-3"']
    assert ds.train.latest_checkpoint(str(tmp_path)) == paths[2]
    state = ds.train.get_checkpoint_state(str(tmp_path))
    assert state.all_model_checkpoint_paths == paths[1:]
    index = json.loads((tmp_path / "model-3.index").read_text())
    assert index["variables"]["w"] == {"key": index["variables"]["w"]["key"],
                                       "dtype": "float32", "shape": [2, 3]}
    assert set(index["variables"]) == {"w", "b", "global_step"}


def saved_once(tmp_path):
    """A model whose checkpoint at tmp_path/model holds W0+1, and a session on it."""
    w, b, step, change = model()
    saver = ds.train.Saver()
    sess = ds.Session()
    sess.run(ds.global_variables_initializer())
    sess.run(change)
    path = saver.save(sess, str(tmp_path / "model"))
    sess.run(change)                           # the session has moved on: W0+2
    return sess, saver, path, w


def assert_restores_first_save(sess, saver, path, w, tmp_path):
    saver.restore(sess, path)
    np.testing.assert_array_equal(sess.run(w), W0 + 1)
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_a_write_failing_halfway_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    sess, saver, path, w = saved_once(tmp_path)
    before = sorted(os.listdir(tmp_path))

    def crash_halfway(fileobj, arrays):
        fileobj.write(b"PK\x03\x04" + b"\0" * 40)     # the start of a zip, then a crash
        raise RuntimeError("power cut")

    monkeypatch.setattr(saver_module, "_write_npz", crash_halfway)
    with pytest.raises(RuntimeError, match="power cut"):
        saver.save(sess, path)
    assert sorted(os.listdir(tmp_path)) == before
    assert_restores_first_save(sess, saver, path, w, tmp_path)


class FullDisk:
    """A file that takes ``room`` bytes, then fails as a full disk does."""

    def __init__(self, f, room):
        self._f, self._room = f, room

    def write(self, data):
        if len(data) > self._room:
            raise OSError(errno.ENOSPC, "No space left on device")
        self._room -= len(data)
        return self._f.write(data)

    def __getattr__(self, name):
        return getattr(self._f, name)


def test_a_full_disk_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    sess, saver, path, w = saved_once(tmp_path)
    before = sorted(os.listdir(tmp_path))
    real = saver_module._write_npz
    monkeypatch.setattr(saver_module, "_write_npz",
                        lambda f, arrays: real(FullDisk(f, 100), arrays))
    with pytest.raises(ds.errors.ResourceExhaustedError, match="No space left"):
        saver.save(sess, path)
    assert sorted(os.listdir(tmp_path)) == before
    assert_restores_first_save(sess, saver, path, w, tmp_path)

    monkeypatch.setattr(saver_module, "_write_npz", real)       # the data fits, the index not
    real_fsync = os.fsync

    def index_does_not_fit(fd):
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(".model.index."):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(saver_module.os, "fsync", index_does_not_fit)
    with pytest.raises(ds.errors.ResourceExhaustedError):
        saver.save(sess, path)
    monkeypatch.setattr(saver_module.os, "fsync", real_fsync)
    assert sorted(os.listdir(tmp_path)) == before
    assert_restores_first_save(sess, saver, path, w, tmp_path)


def test_save_errors_are_tfs_classes_for_their_errno(tmp_path, monkeypatch):
    sess, saver, path, w = saved_once(tmp_path)
    real = saver_module._write_npz

    def over_quota(f, arrays):
        raise OSError(errno.EDQUOT, "Disk quota exceeded")

    monkeypatch.setattr(saver_module, "_write_npz", over_quota)
    with pytest.raises(ds.errors.ResourceExhaustedError, match="model; Disk quota exceeded"):
        saver.save(sess, path)
    monkeypatch.setattr(saver_module, "_write_npz", real)
    other = str(tmp_path / "other")
    os.mkdir(other + ".index")                  # a directory where the index goes
    with pytest.raises(ds.errors.FailedPreconditionError, match="Is a directory"):
        saver.save(sess, other)


def test_debris_of_a_crashed_save_does_not_matter(tmp_path, monkeypatch):
    sess, saver, path, w = saved_once(tmp_path)

    def killed(fileobj, arrays):
        fileobj.write(b"half a zip")
        raise SystemExit("killed")

    monkeypatch.setattr(saver_module, "_write_npz", killed)
    monkeypatch.setattr(saver_module, "_remove", lambda p: None)   # no cleanup: a real crash
    monkeypatch.setattr(atomic_files, "_remove", lambda p: None)
    with pytest.raises(SystemExit):
        saver.save(sess, path)
    monkeypatch.undo()
    assert [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]   # debris is there...
    saver.restore(sess, path)                                        # ...and harmless
    np.testing.assert_array_equal(sess.run(w), W0 + 1)
    again = saver.save(sess, path)
    saver.restore(sess, again)


@pytest.mark.parametrize("umask", [0o022, 0o027], ids=["umask022", "umask027"])
def test_checkpoint_files_have_the_umasks_mode_as_tfs(tmp_path, umask):
    """Not mkstemp's owner-only 0600: TF creates files 0666 less the umask."""
    model()
    saver = ds.train.Saver()
    old = os.umask(umask)
    try:
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            saver.save(sess, str(tmp_path / "model"))
    finally:
        os.umask(old)
    modes = {f: os.stat(tmp_path / f).st_mode & 0o777 for f in os.listdir(tmp_path)}
    assert len(modes) == 4            # data, index, .meta, checkpoint
    assert set(modes.values()) == {0o666 & ~umask}, modes


def test_a_missing_checkpoint_is_not_found(tmp_path):
    """A NotFoundError, and TF 2.21's ValueError too (code written for either catches it)."""
    model()
    saver = ds.train.Saver()
    with ds.Session() as sess, pytest.raises(ds.errors.NotFoundError, match="nope"):
        saver.restore(sess, str(tmp_path / "nope"))
    with ds.Session() as sess, pytest.raises(
            ValueError, match="The passed save_path is not a valid checkpoint: .*nope"):
        saver.restore(sess, str(tmp_path / "nope"))


def _data_file(tmp_path):
    return [tmp_path / f for f in os.listdir(tmp_path) if f.endswith(".npz")][0]


def _truncate(tmp_path):
    data = _data_file(tmp_path)
    data.write_bytes(data.read_bytes()[:len(data.read_bytes()) // 2])


def _flip_a_byte(tmp_path):
    data = _data_file(tmp_path)
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    data.write_bytes(bytes(raw))


def _garble_index(tmp_path):
    (tmp_path / "model.index").write_text('{"format": "devsession-checkpoint", "vers')


def _drop_data(tmp_path):
    _data_file(tmp_path).unlink()


def _lie_in_index(tmp_path):
    index = json.loads((tmp_path / "model.index").read_text())
    index["variables"]["w"]["shape"] = [3, 2]
    (tmp_path / "model.index").write_text(json.dumps(index))


def _swap_in_other_data(tmp_path):
    """A valid data file of the same variables, but not the one the index was written
    with (only the index's checksum can tell)."""
    data = _data_file(tmp_path)
    arrays = dict(np.load(data))
    arrays = {k: v + 1 if v.dtype.kind == "f" else v for k, v in arrays.items()}
    np.savez(data, **arrays)


@pytest.mark.parametrize("damage", [_truncate, _flip_a_byte, _garble_index, _drop_data,
                                    _lie_in_index, _swap_in_other_data],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_damaged_checkpoint_is_data_loss_and_restores_nothing(tmp_path, damage):
    sess, saver, path, w = saved_once(tmp_path)
    damage(tmp_path)
    with pytest.raises(ds.errors.DataLossError):
        saver.restore(sess, path)
    np.testing.assert_array_equal(sess.run(w), W0 + 2)     # untouched
    sess.close()


def test_partial_var_lists_and_missing_variables(tmp_path):
    w, b, step, change = model()
    only_w = ds.train.Saver(var_list=[w])
    everything = ds.train.Saver()
    renamed = ds.train.Saver(var_list={"weights": w})
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        path = only_w.save(sess, str(tmp_path / "w_only"))
        other = renamed.save(sess, str(tmp_path / "renamed"))
        sess.run(change)
        with pytest.raises(ds.errors.NotFoundError, match="Key b not found"):
            everything.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), W0 + 1)      # nothing restored
        only_w.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), W0)
        np.testing.assert_array_equal(sess.run(b), B0 * 10)     # not in the var_list
        sess.run(change)
        renamed.restore(sess, other)
        np.testing.assert_array_equal(sess.run(w), W0)
        assert set(json.loads((tmp_path / "renamed.index").read_text())["variables"]) == {
            "weights"}


def test_one_variable_under_two_names_is_an_error_as_tf1():
    # TF1: "The same saveable will be restored with two names"; a list's duplicate is
    # "two variables have the same name"
    w, b, step, change = model()
    with pytest.raises(ValueError, match="restored with two names: online_copy"):
        ds.train.Saver({"online": w, "online_copy": w})
    with pytest.raises(ValueError, match="two variables have the same name: w"):
        ds.train.Saver([w, w])
    assert sorted(ds.train.Saver({"online": w, "target": b})._variables) == ["online", "target"]


def test_shape_mismatch_and_bad_arguments(tmp_path):
    w, b, step, change = model()
    saver = ds.train.Saver(var_list=[w])
    with ds.Session() as sess:
        sess.run(w.initializer)
        path = saver.save(sess, str(tmp_path / "m"))
        with pytest.raises(ValueError, match="doesn't exist"):    # two levels missing
            saver.save(sess, str(tmp_path / "missing_dir" / "deeper" / "m"))
        assert not (tmp_path / "missing_dir").exists()
        made = saver.save(sess, str(tmp_path / "new_dir" / "m"), global_step=3)  # one: made
        assert made == str(tmp_path / "new_dir" / "m-3")
        assert ds.train.latest_checkpoint(str(tmp_path / "new_dir")) == made
    other = ds.Graph()
    with other.as_default():
        ds.Variable(np.zeros((3, 2), F32), name="w")
        wrong = ds.train.Saver()
    with ds.Session(graph=other) as sess, pytest.raises(ds.errors.InvalidArgumentError,
                                                        match="shape"):
        wrong.restore(sess, path)
    with ds.Graph().as_default(), pytest.raises(ValueError, match="No variables to save"):
        ds.train.Saver()
