"""An on-disk home for generated Python modules, so numba can cache their machine code.

numba's ``cache=True`` keys its cache on the source file of a function (path, mtime
and size) and refuses functions defined by ``exec`` of a string.  So generated
sources are written to ``$DEVSESSION_CACHE_DIR`` (default
``~/.cache/devsession/kernels``) as ``ew_<hash>.py``, the hash covering the source,
``CACHE_VERSION`` and the numba version, and imported from there with importlib;
numba then stores its index and object files in that folder's ``__pycache__``.

Invariants: a file's name determines its content, and an existing file with the right
content is never rewritten (a new mtime would invalidate numba's cache for every other
process).  Files are written atomically (temp file + ``os.replace``) because several
processes may race to write the same one; the loser's replace is harmless.  Each
source is imported once per process (memoised under a lock).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType

__all__ = ["cache_dir", "load_module", "CACHE_VERSION"]

CACHE_VERSION = 2          # bump when the generated code's conventions change

_modules: dict[str, ModuleType] = {}
_lock = threading.Lock()


def cache_dir() -> Path:
    """``$DEVSESSION_CACHE_DIR`` or ``~/.cache/devsession/kernels`` (read on every call,
    so tests and benchmarks may redirect it)."""
    configured = os.environ.get("DEVSESSION_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "devsession" / "kernels"


def load_module(source: str) -> ModuleType:
    """Import ``source`` as a module from its file in ``cache_dir()``, writing the file
    first if it is missing or different.  Raises ``OSError`` if the folder is not
    writable, and whatever importing the source raises."""
    from ..cpu.numba_setup import numba  # generated modules import numba: configure it first

    key = hashlib.sha256(
        f"{CACHE_VERSION}\0{numba.__version__}\0{source}".encode()).hexdigest()[:24]
    with _lock:
        module = _modules.get(key)
        if module is None:
            path = _write_if_changed(cache_dir() / f"ew_{key}.py", source)
            name = f"_devsession_generated_ew_{key}"
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            _modules[key] = module
    return module


def _write_if_changed(path: Path, source: str) -> Path:
    try:
        if path.read_text() == source:
            return path
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path
