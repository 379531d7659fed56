"""TF1's ``tf.flags`` (also ``tf.app.flags``): command-line flags as TF1 scripts define
them, with absl's names and behaviour (``--help`` text by the standard library's
``argparse``).

    FLAGS = ds.flags.FLAGS
    ds.flags.DEFINE_integer("max_steps", 1000, "Number of batches to run.")
    ds.flags.DEFINE_boolean("log_device_placement", False, "Whether to log placement.")

    def main(argv):
        print(FLAGS.max_steps)

    ds.app.run()          # parses sys.argv, then calls main(remaining argv)

State: a ``FlagValues`` holds the defined ``Flag`` objects by name, and whether it has
been parsed.  ``FLAGS`` is the process's global one; ``FlagValues()`` builds a fresh one
(each ``DEFINE_*`` takes ``flag_values=``), as absl's.

Parsing (``FLAGS(argv)``): argv[0] is the program; ``--name=value``, ``--name value`` and
``-name=value`` set a flag; a boolean flag is ``--name``, ``--noname`` or
``--name=true|false|t|f|1|0``; ``--`` ends the flags.  Positional arguments (anywhere,
as GNU getopt) and, with ``known_only=True``, unknown flags are returned after argv[0].
As absl's, a non-boolean flag written without "=" takes the next argument as its value
even when it starts with a dash (``--name -x``, ``--name --``).  Flags not on the
command line keep their values.  The tokens are split and the values converted here,
so that a bad value names the flag as absl's errors do.

Reading a flag before parsing is absl's ``UnparsedFlagAccessError`` on a fresh
``FlagValues``; TF1's ``tf.flags.FLAGS`` instead parses ``sys.argv`` on that first read
(TF's ``_FlagValuesWrapper``), and the global ``FLAGS`` here does the same.
"""

from __future__ import annotations

import argparse
import csv
import functools
import sys

__all__ = ["FLAGS", "FlagValues", "Flag", "Error", "DuplicateFlagError",
           "IllegalFlagValueError", "UnrecognizedFlagError", "UnparsedFlagAccessError",
           "DEFINE_string", "DEFINE_integer", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool",
           "DEFINE_list", "DEFINE_enum", "DEFINE_multi_string", "mark_flag_as_required",
           "mark_flags_as_required"]


class Error(Exception):
    """Base class of the flag errors (absl's ``flags.Error``)."""


class DuplicateFlagError(Error, ValueError):
    """A flag defined twice in one ``FlagValues``."""


class IllegalFlagValueError(Error, ValueError):
    """A value a flag cannot take (a bad integer, an enum value not listed...)."""


class UnrecognizedFlagError(Error, ValueError):
    """A ``--flag`` on the command line (or a ``FLAGS.x = v``) that no DEFINE made."""


class UnparsedFlagAccessError(Error, RuntimeError):
    """A flag read before its ``FlagValues`` parsed the command line."""


# --- value parsers: text -> value, raising ValueError with a sentence ---------------------

_TRUE, _FALSE = ("true", "t", "1"), ("false", "f", "0")


def _parse_bool(text) -> bool:
    if isinstance(text, bool):
        return text
    if str(text).lower() in _TRUE:
        return True
    if str(text).lower() in _FALSE:
        return False
    raise ValueError(f"{text!r} is not a boolean (true/false, t/f or 1/0)")


def _parse_list(text) -> list:
    if isinstance(text, (list, tuple)):
        return list(text)
    if not text:
        return []
    return [part.strip() for part in next(csv.reader([text], strict=True))]


def _bounded(convert, kind, lower, upper):
    def parse(text):
        try:
            value = convert(text)
        except (TypeError, ValueError):
            raise ValueError(f"{text!r} is not {kind}") from None
        if (lower is not None and value < lower) or (upper is not None and value > upper):
            raise ValueError(f"{value} is outside [{lower}, {upper}]")
        return value
    return parse


def _enum(values, case_sensitive):
    def parse(text):
        for allowed in values:
            if text == allowed or (not case_sensitive and str(text).lower() == allowed.lower()):
                return allowed
        raise ValueError(f"{text!r} is not one of <{'|'.join(values)}>")
    return parse


class Flag:
    """One defined flag: its ``name``, ``default``, ``help``, current ``value`` and
    whether the command line gave it (``present``).  ``parse`` turns one command-line
    string into a value; a ``multi`` flag collects every occurrence in a list."""

    def __init__(self, name, default, help, parse, kind="", multi=False, boolean=False):
        self.name, self.help, self.parse, self.kind = name, help or "", parse, kind
        self.multi, self.boolean = multi, boolean
        self.default = None if default is None else self._converted(default)
        self.value = self.default
        self.present = False

    def _converted(self, raw):
        if self.multi:
            raw = [raw] if isinstance(raw, str) else list(raw)
            return [self._one(item) for item in raw]
        return self._one(raw)

    def _one(self, raw):
        try:
            return self.parse(raw)
        except ValueError as e:
            raise IllegalFlagValueError(f"flag --{self.name}={raw}: {e}") from None

    def parse_command_line(self, texts: list):
        """The value the command line's strings for this flag give (the last, or all
        of them for a multi flag)."""
        return self._converted(texts if self.multi else texts[-1])

    def __repr__(self):
        return f"<Flag --{self.name}={self.value!r}>"


def _accepting_tf1_keyword_names(define):
    """TF1's tf.flags wrappers also take ``flag_name``, ``default_value`` and
    ``docstring`` for ``name``, ``default`` and ``help``."""
    renamed = {"flag_name": "name", "default_value": "default", "docstring": "help"}

    @functools.wraps(define)
    def wrapper(*args, **kwargs):
        for old, new in renamed.items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
        return define(*args, **kwargs)
    return wrapper


class FlagValues:
    """The flags a program defined, and their values once parsed (absl's
    ``FlagValues``).  ``parse_argv_on_first_read`` makes reading a flag before parsing
    parse ``sys.argv`` (TF1's global FLAGS) instead of raising."""

    def __init__(self, parse_argv_on_first_read: bool = False):
        self.__dict__["_flags"] = {}
        self.__dict__["_parsed"] = False
        self.__dict__["_parse_argv_on_first_read"] = parse_argv_on_first_read
        self.__dict__["_required"] = []

    # --- defining -----------------------------------------------------------------------
    def define(self, flag: Flag) -> Flag:
        """Adds ``flag``; raises ``DuplicateFlagError`` if its name is taken."""
        if flag.name in self._flags:
            raise DuplicateFlagError(
                f"The flag '{flag.name}' is defined twice. Flag names are global to the "
                f"FlagValues (FLAGS); rename one, or define it once in a shared module.")
        if flag.name in dir(FlagValues):
            raise Error(f"The flag name '{flag.name}' would hide the FlagValues method "
                        f"of that name; choose another.")
        self._flags[flag.name] = flag
        return flag

    # --- parsing ------------------------------------------------------------------------
    def __call__(self, argv, known_only: bool = False) -> list:
        """Parses ``argv`` (argv[0] is the program); returns argv[0] and the arguments
        that are not flags (with ``known_only``, also the unknown flags and a ``--``).
        Raises ``UnrecognizedFlagError`` naming an unknown flag,
        ``IllegalFlagValueError`` for a value a flag cannot take or a missing one, and,
        as absl, ``ValueError`` for an empty ``argv``, ``TypeError`` for a string."""
        if isinstance(argv, (str, bytes)):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string "
                            "(e.g. FLAGS(sys.argv)).")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program "
                             "name as the first element (e.g. FLAGS(sys.argv)).")
        head, tail = self._spelled(list(argv[1:]))
        tail = [] if tail is None else ["--"] + tail if known_only else tail
        given, rest = self._split(head)
        if not known_only:
            unknown = [arg for arg in rest if arg.startswith("-") and arg != "-"]
            if unknown:
                raise UnrecognizedFlagError(self._unknown_message(unknown[0]))
        values = {name: self._flags[name].parse_command_line(texts)
                  for name, texts in given.items()}
        for name in self._required:
            if values.get(name, self._flags[name].value) is None:
                raise IllegalFlagValueError(f"flag --{name}=None: Flag --{name} must have "
                                            f"a value other than None (it is required).")
        for name, value in values.items():
            self._flags[name].value = value
            self._flags[name].present = True
        self.__dict__["_parsed"] = True
        return [argv[0]] + rest + tail

    def _spelled(self, args: list):
        """``args`` up to a ``--`` that ends the flags, each flag spelled ``--name=value``
        (``_canonical``), and what follows that ``--`` (None without one).  As absl's, a
        non-boolean flag without "=" takes the next argument as its value whatever it
        is (``--name -x``, ``--name --n=3``, ``--name --``)."""
        spelled, at = [], 0
        while at < len(args):
            arg = args[at]
            if arg == "--":
                return spelled, args[at + 1:]
            name = self._needing_next_value(arg)
            if name is None:
                spelled.append(self._canonical(arg))
                at += 1
                continue
            if at + 1 == len(args):
                raise IllegalFlagValueError(f"Missing value for flag {arg}")
            spelled.append(f"--{name}={args[at + 1]}")
            at += 2
        return spelled, None

    def _needing_next_value(self, arg: str):
        """The name of the non-boolean flag ``arg`` is, spelled without a value; else
        None."""
        if not arg.startswith("-") or arg.startswith("---") or "=" in arg:
            return None
        flag = self._flags.get(arg.lstrip("-"))
        return flag.name if flag is not None and not flag.boolean else None

    def _split(self, spelled: list):
        """{flag name: its command-line strings} and the arguments left over, from
        arguments ``_spelled`` made (a defined flag is ``--name=value`` there).  Not
        argparse: it would take a value of "--" (``--name --``, absl's) as none."""
        given, rest = {}, []
        for arg in spelled:
            name, has_value, value = arg[2:].partition("=")
            if arg.startswith("--") and has_value and name in self._flags:
                given.setdefault(name, []).append(value)
            else:
                rest.append(arg)
        return given, rest

    def _canonical(self, arg: str) -> str:
        """``arg`` as ``--name=value``: one dash becomes two, and a boolean's bare
        ``--name``/``--noname`` become ``--name=true``/``--name=false``."""
        if not arg.startswith("-") or arg == "-" or arg.startswith("---"):
            return arg
        body = arg[2:] if arg.startswith("--") else arg[1:]
        name, has_value, _ = body.partition("=")
        flag = self._flags.get(name)
        if flag is not None:
            if flag.boolean and not has_value:
                return f"--{name}=true"
            return "--" + body
        negated = self._flags.get(name[2:]) if name.startswith("no") else None
        if negated is not None and negated.boolean:
            if has_value:
                raise IllegalFlagValueError(f"--{body}: a --no<flag> takes no value; "
                                            f"write --{negated.name}=false instead.")
            return f"--{negated.name}=false"
        return arg

    def _unknown_message(self, arg: str) -> str:
        name = arg.lstrip("-").partition("=")[0]
        known = ", ".join(f"--{n}" for n in sorted(self._flags)) or "none"
        return (f"Unknown command line flag '{name}' (in {arg!r}): no DEFINE_* made it. "
                f"Defined flags: {known}.")

    def mark_as_required(self, name: str):
        """Parsing fails unless flag ``name`` ends up with a value other than None."""
        if name not in self._flags:
            raise KeyError(f"mark_flag_as_required: no flag '{name}' is defined.")
        if name not in self._required:
            self._required.append(name)

    def is_parsed(self) -> bool:
        return self._parsed

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def unparse_flags(self):
        """Every flag back to its default, and unparsed."""
        for flag in self._flags.values():
            flag.value, flag.present = flag.default, False
        self.__dict__["_parsed"] = False

    # --- reading and writing ------------------------------------------------------------
    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(f"no flag '{name}' is defined (define it with "
                                 f"DEFINE_*; defined: {sorted(flags)})")
        if not self._parsed and not flags[name].present:
            if not self._parse_argv_on_first_read:
                raise UnparsedFlagAccessError(
                    f"Trying to access flag --{name} before flags were parsed: call "
                    f"FLAGS(sys.argv) or run main through ds.app.run() first.")
            self(sys.argv)
        return flags[name].value

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise UnrecognizedFlagError(f"Cannot set FLAGS.{name}: no flag '{name}' is "
                                        f"defined (define it with DEFINE_*).")
        self._flags[name].value = value

    def __delattr__(self, name):
        if name not in self._flags:
            raise AttributeError(name)
        del self._flags[name]

    def __getitem__(self, name) -> Flag:
        return self._flags[name]

    def __contains__(self, name) -> bool:
        return name in self._flags

    def __iter__(self):
        return iter(list(self._flags))

    def __len__(self):
        return len(self._flags)

    def get_flag_value(self, name, default):
        """The value of flag ``name``, or ``default`` if none is defined."""
        return self._flags[name].value if name in self._flags else default

    def flag_values_dict(self) -> dict:
        """{flag name: value} for every flag."""
        return {name: flag.value for name, flag in self._flags.items()}

    def get_help(self, prog: str | None = None) -> str:
        """Every flag with its help text and default, as ``--help`` prints them."""
        parser = argparse.ArgumentParser(prog=prog, add_help=False,
                                         usage="%(prog)s [flags]")
        for flag in sorted(self._flags.values(), key=lambda f: f.name):
            default = ",".join(map(str, flag.default)) if isinstance(flag.default, list) \
                else flag.default
            text = f"{flag.help} (default: {default!r}{flag.kind})".replace("%", "%%")
            if flag.boolean:
                parser.add_argument(f"--[no]{flag.name}", action="store_true", help=text)
            else:
                parser.add_argument(f"--{flag.name}", metavar="", help=text)
        return parser.format_help()

    def __str__(self):
        return self.get_help()


FLAGS = FlagValues(parse_argv_on_first_read=True)


def _define(flag_values, name, default, help, parse, **kind):
    return (FLAGS if flag_values is None else flag_values).define(
        Flag(name, default, help, parse, **kind))


@_accepting_tf1_keyword_names
def DEFINE_string(name, default, help, flag_values=None):
    """A flag whose value is the string given."""
    return _define(flag_values, name, default, help, str)


@_accepting_tf1_keyword_names
def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None,
                   flag_values=None):
    """An integer flag, optionally bounded (inclusive)."""
    parse = _bounded(int, "an integer", lower_bound, upper_bound)
    return _define(flag_values, name, default, help, parse, kind=", an integer")


@_accepting_tf1_keyword_names
def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None, flag_values=None):
    """A float flag, optionally bounded (inclusive)."""
    parse = _bounded(float, "a number", lower_bound, upper_bound)
    return _define(flag_values, name, default, help, parse, kind=", a number")


@_accepting_tf1_keyword_names
def DEFINE_boolean(name, default, help, flag_values=None):
    """A boolean flag: ``--name``, ``--noname`` or ``--name=true|false``."""
    return _define(flag_values, name, default, help, _parse_bool, boolean=True)


DEFINE_bool = DEFINE_boolean


@_accepting_tf1_keyword_names
def DEFINE_list(name, default, help, flag_values=None):
    """A comma-separated list of strings (``--names=a,b``); the default may be a list
    or such a string."""
    return _define(flag_values, name, default, help, _parse_list,
                   kind=", a comma separated list")


@_accepting_tf1_keyword_names
def DEFINE_enum(name, default, enum_values, help, case_sensitive=True, flag_values=None):
    """A string flag that must be one of ``enum_values``."""
    if not enum_values:
        raise ValueError(f"DEFINE_enum('{name}'): enum_values must not be empty.")
    parse = _enum(list(enum_values), case_sensitive)
    return _define(flag_values, name, default, help, parse,
                   kind=f", one of <{'|'.join(enum_values)}>")


@_accepting_tf1_keyword_names
def DEFINE_multi_string(name, default, help, flag_values=None):
    """A flag repeated on the command line (``--tag=a --tag=b`` is ``['a', 'b']``);
    given at all, it replaces the default."""
    return _define(flag_values, name, default, help, str, multi=True,
                   kind=", repeat it for a list")


def mark_flag_as_required(name, flag_values=None):
    """absl's ``flags.mark_flag_as_required``: parsing raises ``IllegalFlagValueError``
    unless flag ``name`` has a value other than None (give it a None default)."""
    (FLAGS if flag_values is None else flag_values).mark_as_required(name)


def mark_flags_as_required(names, flag_values=None):
    for name in names:
        mark_flag_as_required(name, flag_values)


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("flags", name)
