"""absl's ``--flagfile=path`` for ``ds.flags``: the arguments a command line's flag
files hold, put where the ``--flagfile`` stood.

A flag file has one argument a line; blank lines and lines starting with ``#`` or
``//`` are skipped, and a ``--flagfile=`` line is read in its place (a file already
being read is skipped with a warning on stderr, as absl's).  The expansion stops at
``--``, and a ``--flagfile`` that is the value of ``--name value`` is left alone.
"""

from __future__ import annotations

import os
import sys

from .flag_parsers import CantOpenFlagFileError, IllegalFlagValueError


def expand_flag_files(argv: list, takes_value) -> list:
    """``argv`` (without the program name) with each ``--flagfile=path`` (or
    ``--flagfile path``, one dash or two) replaced by the arguments in that file;
    ``takes_value(name)`` says whether ``--name`` written alone takes the next argument
    as its value.  Raises ``CantOpenFlagFileError`` and, for ``--flagfile`` last with
    no path, ``IllegalFlagValueError``."""
    rest, expanded = list(argv), []
    while rest:
        arg = rest.pop(0)
        if arg in ("--flagfile", "-flagfile"):
            if not rest:
                raise IllegalFlagValueError("--flagfile with no argument")
            expanded += _lines(os.path.expanduser(rest.pop(0)), [])
        elif arg.startswith(("--flagfile=", "-flagfile=")):
            expanded += _lines(_file_name(arg), [])
        else:
            expanded.append(arg)
            if arg == "--":
                break
            if (arg.startswith("-") and "=" not in arg and rest
                    and not rest[0].startswith("-") and takes_value(arg.lstrip("-"))):
                expanded.append(rest.pop(0))
    return expanded + rest


def _lines(path: str, reading: list) -> list:
    """The arguments in flag file ``path``, its nested files read in place;
    ``reading``: the files being read, outermost first."""
    if not path:
        return []
    if path in reading:
        sys.stderr.write(f"Warning: Hit circular flagfile dependency. Ignoring "
                         f"flagfile: {path}\n")
        return []
    try:
        with open(path) as file:
            lines = file.readlines()
    except OSError as e:
        raise CantOpenFlagFileError(f"ERROR:: Unable to open flagfile: {e}") from None
    reading.append(path)
    args = []
    for line in lines:
        if line.isspace() or line.startswith(("#", "//")):
            continue
        if line.startswith(("--flagfile=", "-flagfile=")):
            args += _lines(_file_name(line), reading)
        else:
            args.append(line.strip())
    reading.pop()
    return args


def _file_name(arg: str) -> str:
    return os.path.expanduser(arg.partition("=")[2].strip())
