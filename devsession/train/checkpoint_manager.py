"""TF's ``tf.train.CheckpointManager``: numbered saves of a ``Checkpoint`` into one
directory, keeping the newest ``max_to_keep`` (and, with
``keep_checkpoint_every_n_hours``, one of every that many hours), recorded in the
directory's ``checkpoint`` file as TF records them (paths relative to the directory,
each with its timestamp, and the last preserved time), so a manager made later (or
TensorFlow's) picks up where this one stopped.

    manager = ds.train.CheckpointManager(ckpt, "/runs", max_to_keep=3)
    ckpt.restore(manager.latest_checkpoint).initialize_or_restore(sess)
    ... manager.save()                     # "/runs/ckpt-1", "/runs/ckpt-2", ...

State: an ordered dict of the kept paths and their save times (oldest first), the
latest path, and the time of the last preserved checkpoint; ``_sweep`` is TF's.
"""

from __future__ import annotations

import collections
import copy
import glob
import json
import os
import re
import time

from ..atomic_files import write_atomically
from .object_checkpoint import CheckpointOptions, _session
from .saver import get_checkpoint_state
from .training_util import global_step

__all__ = ["CheckpointManager"]

_STATE_FILE = "checkpoint"
_NUMBER_LINE = re.compile(r"^\s*(all_model_checkpoint_timestamps|last_preserved_timestamp)"
                          r"\s*:\s*([-+0-9.eE]+)\s*$")


class CheckpointManager:
    """Keeps some checkpoints of ``checkpoint`` in ``directory``, deleting the others
    (see the module docstring).  ``ValueError`` for a ``max_to_keep`` that is not a
    positive integer or None."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None, last_checkpoint_step=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is "
                             "not None.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = last_checkpoint_step
        self._init_fn = init_fn
        self._maybe_delete = collections.OrderedDict()
        now = time.time()
        state = get_checkpoint_state(self._directory)
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
            return
        self._latest_checkpoint = state.model_checkpoint_path
        stamps, preserved = _read_timestamps(self._directory)
        self._last_preserved_timestamp = min(preserved if preserved is not None else now, now)
        paths = state.all_model_checkpoint_paths
        stamps = stamps if len(stamps) == len(paths) else \
            [self._last_preserved_timestamp] * len(paths)
        for path, stamp in zip(paths, stamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The prefix of the newest checkpoint, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list:
        """The kept checkpoints, oldest first (not those kept by
        ``keep_checkpoint_every_n_hours``)."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save ``<directory>/<checkpoint_name>-<number>`` (the checkpoint's
        ``save_counter`` after counting this save, unless ``checkpoint_number``: an int, or
        a variable or tensor holding one), then drop the oldest past ``max_to_keep``.
        Returns the path, or None when ``checkpoint_interval`` says not yet."""
        session = _session(None)
        if self._checkpoint_interval is not None:
            step = global_step(session, self._step_counter)
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step or (
                        check_interval and
                        step < self._last_checkpoint_step + self._checkpoint_interval):
                    return None
            self._last_checkpoint_step = step
        if self._checkpoint._save_counter is None:
            session.run(self._checkpoint.save_counter.initializer)
        number = session.run(self._checkpoint._counter_increment())
        if checkpoint_number is not None:
            number = checkpoint_number if isinstance(checkpoint_number, int) \
                else global_step(session, checkpoint_number)
        options = copy.copy(options) if options is not None else CheckpointOptions()
        options.experimental_write_callbacks = \
            list(options.experimental_write_callbacks or ()) + [self._record_and_sweep]
        return self._checkpoint.write(f"{self._prefix}-{int(number)}", session=session,
                                      options=options)

    def restore_or_initialize(self):
        """Restore the latest checkpoint (returns its path), or call ``init_fn`` (returns
        None).  As TF's in graph mode, the restore only matches: nothing runs until the
        program runs a status's restore ops (``checkpoint.restore(path)`` again)."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = global_step(_session(None), self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def _record_and_sweep(self, path: str) -> None:
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        self._record_state()      # the new checkpoint is recorded before anything goes
        self._sweep()
        self._record_state()

    def _sweep(self) -> None:
        """TF's: delete the oldest past ``max_to_keep``, except one every
        ``keep_checkpoint_every_n_hours``."""
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if self._keep_checkpoint_every_n_hours and (
                    stamp - self._keep_checkpoint_every_n_hours * 3600.0
                    >= self._last_preserved_timestamp):
                self._last_preserved_timestamp = stamp
                continue
            for name in [path + ".index"] + glob.glob(glob.escape(path) + ".data-?????-of-?????"):
                if os.path.exists(name):
                    os.remove(name)

    def _record_state(self) -> None:
        def rel(path):
            return os.path.relpath(path, self._directory) \
                if os.path.dirname(os.path.abspath(path)) == os.path.abspath(self._directory) \
                else path

        lines = [f"model_checkpoint_path: {json.dumps(rel(self._latest_checkpoint))}"]
        lines += [f"all_model_checkpoint_paths: {json.dumps(rel(p))}" for p in self._maybe_delete]
        lines += [f"all_model_checkpoint_timestamps: {stamp!r}"
                  for stamp in self._maybe_delete.values()]
        lines.append(f"last_preserved_timestamp: {self._last_preserved_timestamp!r}")
        text = "\n".join(lines) + "\n"
        write_atomically(os.path.join(self._directory, _STATE_FILE),
                         lambda f: f.write(text.encode()))


def _read_timestamps(directory: str) -> tuple:
    """(the kept checkpoints' timestamps, the last preserved time or None) from the
    directory's ``checkpoint`` file."""
    stamps, preserved = [], None
    try:
        with open(os.path.join(directory, _STATE_FILE), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return stamps, preserved
    for line in lines:
        match = _NUMBER_LINE.match(line)
        if match and match.group(1) == "last_preserved_timestamp":
            preserved = float(match.group(2))
        elif match:
            stamps.append(float(match.group(2)))
    return stamps, preserved
