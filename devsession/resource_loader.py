"""TF1's ``tf.resource_loader``: the paths of data files that sit beside the calling
script (TF's runfiles rules reduce to that outside Bazel)."""

from __future__ import annotations

import inspect
import os

__all__ = ["get_data_files_path", "get_path_to_datafile", "get_root_dir_with_all_resources",
           "load_resource", "readahead_file_path"]


def _caller_folder(depth: int = 2) -> str:
    frame = inspect.stack()[depth]
    return os.path.dirname(os.path.abspath(frame.filename))


def get_data_files_path() -> str:
    """The folder of the calling script."""
    return _caller_folder()


def get_root_dir_with_all_resources() -> str:
    """The folder of the calling script (TF's Bazel runfiles root, outside Bazel)."""
    return _caller_folder()


def get_path_to_datafile(path: str) -> str:
    """``path`` taken from the calling script's folder."""
    return os.path.join(_caller_folder(), path)


def load_resource(path: str) -> bytes:
    """The bytes of ``path``, taken from the folder above devsession's package (TF's is
    relative to its own package's parent); OSError if there is none."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, path), "rb") as f:
        return f.read()


def readahead_file_path(path: str, readahead: str = "128M") -> str:
    """``path`` itself (TF's read-ahead caching is a no-op outside Google's file systems)."""
    del readahead
    return path
