"""Kernels of ReadFile, WriteFile and MatchingFiles (``devsession/ops/file_io.py``), for
the reference device and the CPU (``HOST``): local files through Python's I/O, failures
as ``ds.errors`` classes (``io/local_files.op_error``)."""

from __future__ import annotations

import glob
import os

import numpy as np

from devsession.io.local_files import op_error

from ..registry import HOST, register_kernel


def _path(value) -> str:
    value = np.asarray(value, dtype=object).item()
    return os.fsdecode(value)


@register_kernel("ReadFile", HOST)
def build_read_file(node):
    def read_file(filename):
        path = _path(filename)
        try:
            with open(path, "rb") as f:
                return np.array(f.read(), dtype=object)
        except OSError as e:
            raise op_error(e, path) from None
    return read_file


@register_kernel("WriteFile", HOST)
def build_write_file(node):
    def write_file(filename, contents):
        path = _path(filename)
        try:
            directory = os.path.dirname(path)
            if directory:
                os.makedirs(directory, exist_ok=True)
            with open(path, "wb") as f:
                f.write(bytes(np.asarray(contents, dtype=object).item()))
        except OSError as e:
            raise op_error(e, path) from None
    return write_file


@register_kernel("MatchingFiles", HOST)
def build_matching_files(node):
    def matching_files(pattern):
        patterns = [os.fsdecode(p) for p in np.asarray(pattern, dtype=object).reshape(-1)]
        # as TF's: every pattern's matches, sorted together (a file two patterns match
        # comes twice)
        found = sorted(path for p in patterns for path in glob.glob(p, include_hidden=True))
        return np.array([os.fsencode(p) for p in found], dtype=object).reshape(-1)
    return matching_files
