"""TF1's checkpoint inspection: ``tf.train.NewCheckpointReader``, ``list_variables`` and
``load_variable``, over devsession's checkpoints and TensorFlow's alike
(``saver.open_checkpoint``): what a script uses to look into, or partly load, a
checkpoint without a graph.

    reader = ds.train.NewCheckpointReader("/runs/model.ckpt-1000")   # TF wrote it
    reader.get_variable_to_shape_map()     # {"dense/kernel": [784, 10], ...}
    kernel = reader.get_tensor("dense/kernel")
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import NotFoundError
from .saver import latest_checkpoint, open_checkpoint

__all__ = ["CheckpointReader", "NewCheckpointReader", "list_variables", "load_variable"]


class CheckpointReader:
    """The tensors of one checkpoint, by name (TF1's ``CheckpointReader``)."""

    def __init__(self, prefix):
        self._checkpoint = open_checkpoint(prefix)

    def get_variable_to_shape_map(self) -> dict:
        return {name: self._checkpoint.shape(name) for name in self._checkpoint.names()}

    def get_variable_to_dtype_map(self) -> dict:
        return {name: self._checkpoint.dtype(name) for name in self._checkpoint.names()}

    def has_tensor(self, name: str) -> bool:
        return name in self._checkpoint.names()

    def get_tensor(self, name: str) -> np.ndarray:
        """The saved value; a scalar one as a numpy scalar (``np.float32(3.0)``), as TF's."""
        value = self._checkpoint.tensor(name)
        return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def NewCheckpointReader(filepattern) -> CheckpointReader:  # noqa: N802  (TF1's name)
    """TF1's ``tf.train.NewCheckpointReader(prefix)``."""
    return CheckpointReader(filepattern)


def list_variables(ckpt_dir_or_file) -> list:
    """``[(name, shape), ...]`` sorted by name, of a checkpoint prefix or of the latest
    checkpoint in a directory (TF1's ``tf.train.list_variables``)."""
    reader = CheckpointReader(_prefix(ckpt_dir_or_file))
    return sorted(reader.get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file, name: str) -> np.ndarray:
    """The value of ``name`` (``"w"`` or ``"w:0"``) in a checkpoint (TF1's
    ``tf.train.load_variable``)."""
    if name.endswith(":0"):
        name = name[:-2]
    return CheckpointReader(_prefix(ckpt_dir_or_file)).get_tensor(name)


def _prefix(ckpt_dir_or_file) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise NotFoundError(f"No checkpoint found in directory {path}.")
        return latest
    return path
