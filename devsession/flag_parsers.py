"""The errors and the value parsers of ``ds.flags`` (TF1's ``tf.flags``, absl's
classes): each parser turns a command-line string (or a value of the flag's type, as a
default or ``override_value`` gives it) into the flag's value, or raises ``ValueError``
with a sentence that ``Flag`` prefixes with "flag --name=text: ", as absl's.  The bottom
of the flags modules: it imports none of them.
"""

from __future__ import annotations

import csv
import enum
import io


class Error(Exception):
    """Base class of the flag errors (absl's ``flags.Error``)."""


class DuplicateFlagError(Error, ValueError):
    """A flag defined twice in one ``FlagValues``."""


class IllegalFlagValueError(Error, ValueError):
    """A value a flag cannot take (a bad integer, an enum value not listed, a value a
    validator rejects...)."""


class UnrecognizedFlagError(Error, ValueError):
    """A ``--flag`` on the command line (or a ``FLAGS.x = v``) that no DEFINE made."""


class UnparsedFlagAccessError(Error, RuntimeError):
    """A flag read before its ``FlagValues`` parsed the command line."""


class ValidationError(Error):
    """What a validator's checker raises when a value breaks its rule; parsing and
    assignment report it as ``IllegalFlagValueError`` with the flags' values."""


class CantOpenFlagFileError(Error):
    """A ``--flagfile=path`` that cannot be read."""


class FlagNameConflictsWithMethodError(Error):
    """A flag named as a ``FlagValues`` method (``FLAGS.name`` would be the method)."""


# --- value parsers: text -> value, raising ValueError with a sentence ---------------------

_TRUE, _FALSE = ("true", "t", "1"), ("false", "f", "0")


def parse_bool(text) -> bool:
    if isinstance(text, bool):
        return text
    if str(text).lower() in _TRUE:
        return True
    if str(text).lower() in _FALSE:
        return False
    raise ValueError(f"{text!r} is not a boolean (true/false, t/f or 1/0)")


def parse_list(text) -> list:
    if isinstance(text, (list, tuple)):
        return list(text)
    if not text:
        return []
    return [part.strip() for part in next(csv.reader([text], strict=True))]


def csv_joined(values) -> str:
    """A list flag's value as one command-line string (absl's ``CsvListSerializer``)."""
    out = io.StringIO()
    csv.writer(out, delimiter=",").writerow([str(value) for value in values])
    return out.getvalue().strip()


def space_joined(values) -> str:
    """A whitespace separated list's value as one string (absl's ``ListSerializer``)."""
    return " ".join(str(value) for value in values)


def member_name(lowercase: bool):
    """An enum_class flag's value as its command-line string: the member's name."""
    return lambda member: member.name.lower() if lowercase else member.name


def whitespace_list(comma_compat: bool):
    """A parser of a whitespace separated list (also commas with ``comma_compat``)."""
    def parse(text):
        if isinstance(text, (list, tuple)):
            return list(text)
        if not text:
            return []
        return (text.replace(",", " ") if comma_compat else text).split()
    return parse


def bounded(convert, kind, lower, upper):
    def parse(text):
        try:
            value = convert(text)
        except (TypeError, ValueError):
            raise ValueError(f"{text!r} is not {kind}") from None
        if out_of_bounds(value, lower, upper):
            raise ValueError(f"{value} is outside [{lower}, {upper}]")
        return value
    return parse


def out_of_bounds(value, lower, upper) -> bool:
    return (lower is not None and value < lower) or (upper is not None and value > upper)


def one_of(values, case_sensitive):
    """A parser of one of the strings ``values``."""
    def parse(text):
        for allowed in values:
            if text == allowed or (not case_sensitive
                                   and str(text).lower() == allowed.lower()):
                return allowed
        raise ValueError(f"{text!r} is not one of <{'|'.join(values)}>")
    return parse


def enum_member(enum_class, case_sensitive):
    """A parser of a member of ``enum_class``: a member, or its name (any case unless
    ``case_sensitive``).  Returns the parser and the names as help shows them."""
    if not (isinstance(enum_class, type) and issubclass(enum_class, enum.Enum)):
        raise TypeError(f"{enum_class} is not a subclass of Enum.")
    if not enum_class.__members__:
        raise ValueError(f'enum_class cannot be empty, but "{enum_class}" is empty.')
    names = list(enum_class.__members__)
    shown = names if case_sensitive else [name.lower() for name in names]
    if len(set(shown)) != len(shown):
        duplicates = {name for name in shown if shown.count(name) > 1}
        raise ValueError(f"Duplicate enum values for {duplicates} using "
                         f"case_sensitive=False")
    name_of = one_of(shown, case_sensitive)

    def parse(text):
        if isinstance(text, enum_class):
            return text
        if not isinstance(text, str):
            raise ValueError(f"{text} is not an enum member or a name of a member in "
                             f"{enum_class}")
        return enum_class.__members__[names[shown.index(name_of(text))]]
    return parse, shown
