"""Files written atomically and durably: what a reader or a crash sees is the old file or
the new one, never half of one.

``write_atomically(path, write)``: ``write(f)`` fills a temporary file in ``path``'s
directory (``.<name>.<random>.tmp``), which is flushed and fsync'ed, given the mode a
plain ``open(path, "w")`` would have created (0666 less the umask: mkstemp's owner-only
0600 is no mode TF gives its files), moved onto ``path`` with ``os.replace``, and the
directory fsync'ed so the rename survives a power cut.  A failure before the rename
removes the temporary file; a crash leaves it as ``.tmp`` debris that nothing reads.

``write_temp`` is the first half alone, for a caller that names the file after its
contents (the Saver's data file, named by its digest).  Used by ``proto_files``
(``.meta``, ``ds.train.write_graph``) and ``train/saver.py`` (checkpoints).
"""

from __future__ import annotations

import contextlib
import os
import tempfile

__all__ = ["write_atomically", "write_temp", "fsync_directory"]


def write_atomically(path: str, write) -> None:
    """``path`` holding what ``write(f)`` wrote, replaced in one step (module docstring).
    ``OSError``s pass through."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = write_temp(directory, os.path.basename(path), write)
    try:
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise
    fsync_directory(directory)


def write_temp(directory: str, stem: str, write) -> str:
    """A new fsync'ed temporary file ``.<stem>.<random>.tmp`` in ``directory`` holding
    what ``write(f)`` wrote, with the umask's mode; removed again if writing fails."""
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def fsync_directory(directory: str) -> None:
    """Make the renames in ``directory`` durable (where the OS allows opening it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    """The process's umask.  Linux shows it in /proc; elsewhere reading it means setting
    it, briefly, to a common value (a file another thread creates meanwhile gets 022)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
