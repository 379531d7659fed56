"""TF1's checkpoint housekeeping beside ``Saver``: waiting for new checkpoints (an
evaluation job's loop), their times, removing one, writing the directory's ``checkpoint``
state file by hand; and ``summary_iterator``, the events of a TensorBoard event file.

    for path in ds.train.checkpoints_iterator("/runs/train", timeout=600):
        saver.restore(sess, path)           # evaluate each new checkpoint once

They work on devsession's checkpoints and TensorFlow's alike (both keep ``<prefix>.index``
beside their data): ``remove_checkpoint`` deletes a prefix's index, data files and
``.meta``, whichever format wrote them.
"""

from __future__ import annotations

import glob
import logging
import os
import time

from .saver import (STATE_FILE, CheckpointState, _data_file_of, _index_path, _remove,
                    _write_state, latest_checkpoint)

__all__ = ["checkpoints_iterator", "get_checkpoint_mtimes", "remove_checkpoint",
           "update_checkpoint_state", "generate_checkpoint_state_proto", "summary_iterator"]

_log = logging.getLogger("devsession.train")
_POLL_SECS = 1.0


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yield each new latest checkpoint of ``checkpoint_dir`` as it appears (polling
    every second), at most one per ``min_interval_secs``.  With ``timeout``, stop after
    that many seconds without a new one, unless ``timeout_fn`` returns False (wait on)."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    last = None
    while True:
        new = _wait_for_new_checkpoint(checkpoint_dir, last, timeout)
        if new is None:
            if timeout_fn is None or timeout_fn():
                _log.info("Timed-out waiting for a checkpoint.")
                return
            continue
        started, last = time.time(), new
        yield new
        remaining = started + min_interval_secs - time.time()
        if remaining > 0:
            time.sleep(remaining)


def _wait_for_new_checkpoint(checkpoint_dir: str, last, timeout):
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last:
            return path
        if deadline is not None and time.monotonic() + _POLL_SECS > deadline:
            return None
        time.sleep(_POLL_SECS)


def get_checkpoint_mtimes(checkpoint_prefixes) -> list:
    """The modification times of the checkpoints named (of their index files); a
    prefix without one is skipped with a warning, as TF's."""
    times = []
    for prefix in checkpoint_prefixes:
        try:
            times.append(os.path.getmtime(_index_path(os.fspath(prefix))))
        except OSError:
            _log.warning("Checkpoint %s not found", prefix)
    return times


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=None,
                      meta_graph_suffix="meta") -> None:
    """Delete checkpoint ``checkpoint_prefix``: its index, data file(s) and
    ``.<meta_graph_suffix>``; what is absent is skipped."""
    prefix = os.fspath(checkpoint_prefix)
    data = _data_file_of(prefix)                # devsession's, named in its index
    paths = [data] if data is not None else []
    paths += glob.glob(glob.escape(prefix) + ".data-?????-of-?????")     # TensorFlow's
    paths += [_index_path(prefix), f"{prefix}.{meta_graph_suffix}"]
    for path in paths:
        _remove(path)


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None) -> CheckpointState:
    """The state ``update_checkpoint_state`` writes: ``model_checkpoint_path`` last in
    the list of all paths (appended when it is not).  As TF's, when ``save_dir`` is
    relative the relative paths are taken from the working directory (what
    ``Saver.save`` returned) and rewritten relative to ``save_dir``."""
    paths = [os.fspath(p) for p in (all_model_checkpoint_paths or [])]
    latest = os.fspath(model_checkpoint_path)
    if not paths or paths[-1] != latest:
        paths.append(latest)
    save_dir = os.fspath(save_dir)
    if not os.path.isabs(save_dir):
        def inside(path):
            return path if os.path.isabs(path) else os.path.relpath(path, save_dir)
        latest, paths = inside(latest), [inside(p) for p in paths]
    return CheckpointState(latest, paths)


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None) -> None:
    """Write ``save_dir``'s state file (``checkpoint``, or ``latest_filename``), as
    ``Saver.save`` does, atomically.  ``RuntimeError`` if a checkpoint path is the state
    file itself, as TF's."""
    state = generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                            all_model_checkpoint_paths)
    save_dir = os.path.abspath(os.fspath(save_dir))      # the state's paths are within it
    state_path = os.path.join(save_dir, latest_filename or STATE_FILE)
    absolute = [p if os.path.isabs(p) else os.path.join(save_dir, p)
                for p in state.all_model_checkpoint_paths]
    if state_path in absolute:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for "
                           f"checkpoint state.  Please use a different save path.")
    _write_state(save_dir, absolute[-1], absolute, latest_filename or STATE_FILE)


def summary_iterator(path):
    """The ``ds.Event`` protobufs of TensorBoard event file ``path``, in order (TF1's
    ``tf.train.summary_iterator``).  A corrupt or truncated file is ``DataLossError``, as
    its records' reader's."""
    from ..io.tfrecord import tf_record_iterator
    from ..proto.summary_pb2 import Event

    for record in tf_record_iterator(path):
        yield Event.FromString(record)
