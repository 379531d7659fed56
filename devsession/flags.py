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

``--flagfile=path`` reads more arguments from a file, one a line (``#`` and ``//``
lines are comments), where it stands (``FLAGS.append_flags_into_file`` writes one);
``--undefok=a,b`` lets unknown flags a and b be given.  Flag types beside the basic
ones: a multi flag (``DEFINE_multi_string/integer/float/enum/enum_class``) is the list
of every occurrence, each one value (no comma splitting), its default one value or a
list; ``DEFINE_enum_class`` takes a member or a member's name; ``DEFINE_spaceseplist``
splits on whitespace; ``DEFINE_alias`` names another flag.  Every ``DEFINE_*`` returns
a ``FlagHolder`` (``.value``, ``.name``, ``.default``, ``.present``) and takes
``required=True``.  Help lists the flags by the module that defined them; a module's
key flags (``declare_key_flag``, ``adopt_module_key_flags``) are those its
``module_help`` lists.

Validators (``register_validator``, ``mark_flags_as_mutual_exclusive``...) are in
``devsession/flags_validators.py`` (the rules themselves in
``flag_validator_classes.py``), the ``Flag``/``FlagValues`` state and how parsing keeps
it consistent in ``devsession/flag_values.py``, flag files in ``flag_files.py``, the
errors and value parsers in ``flag_parsers.py``.

Reading a flag before parsing is absl's ``UnparsedFlagAccessError`` on a fresh
``FlagValues``; TF1's ``tf.flags.FLAGS`` instead parses ``sys.argv`` on that first read
(TF's ``_FlagValuesWrapper``), and the global ``FLAGS`` here does the same.
"""

from __future__ import annotations

import functools
import re
import shutil
import sys
import textwrap
import types

from .flag_parsers import (CantOpenFlagFileError, DuplicateFlagError, Error,
                           FlagNameConflictsWithMethodError, IllegalFlagValueError,
                           UnparsedFlagAccessError, UnrecognizedFlagError, ValidationError,
                           bounded, csv_joined, enum_member, member_name, one_of,
                           out_of_bounds, parse_bool, parse_list, space_joined,
                           whitespace_list)
from .flag_values import (FLAGS, AliasFlag, Flag, FlagHolder, FlagValues, module_key,
                          resolve_flag_ref)
from .flags_validators import (mark_bool_flags_as_mutual_exclusive, mark_flag_as_required,
                               mark_flags_as_mutual_exclusive, mark_flags_as_required,
                               multi_flags_validator, register_multi_flags_validator,
                               register_validator, validator)

__all__ = ["FLAGS", "FlagValues", "Flag", "FlagHolder", "Error", "DuplicateFlagError",
           "IllegalFlagValueError", "UnrecognizedFlagError", "UnparsedFlagAccessError",
           "ValidationError", "CantOpenFlagFileError", "FlagNameConflictsWithMethodError",
           "DEFINE_string", "DEFINE_integer", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool",
           "DEFINE_list", "DEFINE_spaceseplist", "DEFINE_enum", "DEFINE_enum_class",
           "DEFINE_multi_string", "DEFINE_multi_integer", "DEFINE_multi_float",
           "DEFINE_multi_enum", "DEFINE_multi_enum_class", "DEFINE_alias", "DEFINE",
           "DEFINE_multi", "ArgumentParser", "ArgumentSerializer",
           "register_validator", "validator", "register_multi_flags_validator",
           "multi_flags_validator", "mark_flag_as_required", "mark_flags_as_required",
           "mark_flags_as_mutual_exclusive", "mark_bool_flags_as_mutual_exclusive",
           "set_default", "override_value", "declare_key_flag", "adopt_module_key_flags",
           "disclaim_key_flags", "get_help_width", "text_wrap", "flag_dict_to_args",
           "doc_to_help"]


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


# --- which module defines a flag (help grouping, absl's key flags) -----------------------

_DISCLAIMED = {__name__, "devsession.flag_values", "devsession.flags_validators"}


def _calling_module() -> str:
    """The name of the module whose code called into the flags modules (skipping
    those that ``disclaim_key_flags``); a script's is its path, as absl's."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if name in sys.modules and name not in _DISCLAIMED:
            return module_key(name)
        frame = frame.f_back
    return module_key("__main__")


def _define(flag_values, flag, required=False, module_name=None,
            short_name=None) -> FlagHolder:
    """Adds ``flag`` to ``flag_values`` (None: FLAGS) as defined by the calling module;
    ``required`` marks it required (its default must be None), ``short_name`` is a
    second name for it (``-o value`` for ``--output``)."""
    flag.short_name = short_name
    values = FLAGS if flag_values is None else flag_values
    if required and flag.default is not None:
        raise ValueError(f"Required flag --{flag.name} needs to have None as default")
    values.define(flag, module_key(module_name) if module_name else _calling_module())
    if required:
        values.mark_as_required(flag.name)
    return FlagHolder(values, flag, ensure_non_none_value=required or
                      flag.default is not None)


def _checking_bounds_on_assignment(holder, lower, upper):
    """As absl's, a bounded number's bounds are a validator too, so that
    ``FLAGS.x = v`` out of them is an error."""
    if lower is not None or upper is not None:
        def in_bounds(value):
            if value is not None and out_of_bounds(value, lower, upper):
                raise ValidationError(f"{value} is outside [{lower}, {upper}]")
            return True
        register_validator(holder, in_bounds)
    return holder


# --- DEFINE_* ------------------------------------------------------------------------------

@_accepting_tf1_keyword_names
def DEFINE_string(name, default, help, flag_values=None, required=False, short_name=None):
    """A flag whose value is the string given."""
    return _define(flag_values, Flag(name, default, help, str), required,
                   short_name=short_name)


@_accepting_tf1_keyword_names
def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None,
                   flag_values=None, required=False, short_name=None):
    """An integer flag, optionally bounded (inclusive)."""
    parse = bounded(int, "an integer", lower_bound, upper_bound)
    holder = _define(flag_values, Flag(name, default, help, parse, kind=", an integer"),
                     required, short_name=short_name)
    return _checking_bounds_on_assignment(holder, lower_bound, upper_bound)


@_accepting_tf1_keyword_names
def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None, flag_values=None,
                 required=False, short_name=None):
    """A float flag, optionally bounded (inclusive)."""
    parse = bounded(float, "a number", lower_bound, upper_bound)
    holder = _define(flag_values, Flag(name, default, help, parse, kind=", a number"),
                     required, short_name=short_name)
    return _checking_bounds_on_assignment(holder, lower_bound, upper_bound)


@_accepting_tf1_keyword_names
def DEFINE_boolean(name, default, help, flag_values=None, required=False, short_name=None):
    """A boolean flag: ``--name``, ``--noname`` or ``--name=true|false``."""
    return _define(flag_values, Flag(name, default, help, parse_bool, boolean=True),
                   required, short_name=short_name)


DEFINE_bool = DEFINE_boolean


@_accepting_tf1_keyword_names
def DEFINE_list(name, default, help, flag_values=None, required=False, short_name=None):
    """A comma-separated list of strings (``--names=a,b``); the default may be a list
    or such a string."""
    return _define(flag_values, Flag(name, default, help, parse_list,
                                     kind=", a comma separated list",
                                     serialize_value=csv_joined),
                   required, short_name=short_name)


@_accepting_tf1_keyword_names
def DEFINE_spaceseplist(name, default, help, comma_compat=False, flag_values=None,
                        required=False, short_name=None):
    """A whitespace-separated list of strings (``--names="a b"``; also commas with
    ``comma_compat``)."""
    kind = ", a whitespace or comma separated list" if comma_compat \
        else ", a whitespace separated list"
    return _define(flag_values, Flag(name, default, help, whitespace_list(comma_compat),
                                     kind=kind, serialize_value=space_joined),
                   required, short_name=short_name)


def _enum_values(name, enum_values) -> list:
    if not enum_values or isinstance(enum_values, str):
        raise ValueError(f"DEFINE_enum('{name}'): enum_values must be a non-empty list "
                         f"of strings, not {enum_values!r}.")
    return list(enum_values)


@_accepting_tf1_keyword_names
def DEFINE_enum(name, default, enum_values, help, case_sensitive=True, flag_values=None,
                required=False, short_name=None):
    """A string flag that must be one of ``enum_values``."""
    values = _enum_values(name, enum_values)
    return _define(flag_values, Flag(name, default, help, one_of(values, case_sensitive),
                                     kind=f", one of <{'|'.join(values)}>"),
                   required, short_name=short_name)


@_accepting_tf1_keyword_names
def DEFINE_enum_class(name, default, enum_class, help, flag_values=None, module_name=None,
                      case_sensitive=False, required=False, short_name=None):
    """A flag whose value is a member of ``enum_class``, given by its name (any case
    unless ``case_sensitive``); the default is a member or a name."""
    parse, names = enum_member(enum_class, case_sensitive)
    return _define(flag_values, Flag(name, default, help, parse,
                                     kind=f", one of <{'|'.join(names)}>",
                                     serialize_value=member_name(not case_sensitive)),
                   required, module_name, short_name)


@_accepting_tf1_keyword_names
def DEFINE_multi_string(name, default, help, flag_values=None, required=False,
                        short_name=None):
    """A flag repeated on the command line (``--tag=a --tag=b`` is ``['a', 'b']``);
    given at all, it replaces the default."""
    return _define(flag_values, Flag(name, default, help, str, multi=True,
                                     kind=", repeat it for a list"),
                   required, short_name=short_name)


@_accepting_tf1_keyword_names
def DEFINE_multi_integer(name, default, help, lower_bound=None, upper_bound=None,
                         flag_values=None, required=False, short_name=None):
    """A repeated integer flag (``--n=1 --n=2`` is ``[1, 2]``), each bounded."""
    parse = bounded(int, "an integer", lower_bound, upper_bound)
    return _define(flag_values, Flag(name, default, help, parse, multi=True,
                                     kind=", an integer; repeat it for a list"),
                   required, short_name=short_name)


@_accepting_tf1_keyword_names
def DEFINE_multi_float(name, default, help, lower_bound=None, upper_bound=None,
                       flag_values=None, required=False, short_name=None):
    """A repeated number flag (``--x=0.5 --x=2`` is ``[0.5, 2.0]``), each bounded."""
    parse = bounded(float, "a number", lower_bound, upper_bound)
    return _define(flag_values, Flag(name, default, help, parse, multi=True,
                                     kind=", a number; repeat it for a list"),
                   required, short_name=short_name)


@_accepting_tf1_keyword_names
def DEFINE_multi_enum(name, default, enum_values, help, flag_values=None,
                      case_sensitive=True, required=False, short_name=None):
    """A repeated flag whose every value is one of ``enum_values``."""
    values = _enum_values(name, enum_values)
    return _define(flag_values, Flag(
        name, default, help, one_of(values, case_sensitive), multi=True,
        kind=f", one of <{'|'.join(values)}>; repeat it for a list"),
        required, short_name=short_name)


@_accepting_tf1_keyword_names
def DEFINE_multi_enum_class(name, default, enum_class, help, flag_values=None,
                            module_name=None, case_sensitive=False, required=False,
                            short_name=None):
    """A repeated flag whose every value is a member of ``enum_class``."""
    parse, names = enum_member(enum_class, case_sensitive)
    return _define(flag_values, Flag(
        name, default, help, parse, multi=True,
        serialize_value=member_name(not case_sensitive),
        kind=f", one of <{'|'.join(names)}>; repeat it for a list"),
        required, module_name, short_name)


class ArgumentParser:
    """absl's base of a parser for ``DEFINE``/``DEFINE_multi``: ``parse(argument)``
    turns a command-line string (or a default) into the flag's value, raising
    ``ValueError`` with the reason when it cannot; ``syntactic_help`` says what values
    it takes (shown in help).  This base takes any string."""

    syntactic_help = ""

    def parse(self, argument):
        if not isinstance(argument, str):
            raise TypeError(f'flag value must be a string, found "{type(argument)}"')
        return argument

    def flag_type(self) -> str:
        return "string"


class ArgumentSerializer:
    """absl's base of a serializer: ``serialize(value)`` is the command-line string
    for a value (``Flag.serialize``, ``flags_into_string``)."""

    def serialize(self, value) -> str:
        return str(value)


def _custom_flag(parser, serializer, name, default, help, multi):
    syntax = getattr(parser, "syntactic_help", "")
    kind = (f", {syntax}" if syntax else "") + ("; repeat it for a list" if multi else "")
    return Flag(name, default, help, parser.parse, kind=kind, multi=multi,
                serialize_value=None if serializer is None else serializer.serialize)


def DEFINE(parser, name, default, help, flag_values=None, serializer=None,
           module_name=None, required=False, short_name=None):
    """A flag of a type of one's own: ``parser`` (an ``ArgumentParser``) parses its
    values, ``serializer`` (an ``ArgumentSerializer``; none: ``serialize`` is an
    ``Error``) writes them back."""
    return _define(flag_values, _custom_flag(parser, serializer, name, default, help,
                                             False), required, module_name, short_name)


def DEFINE_multi(parser, serializer, name, default, help, flag_values=None,
                 module_name=None, required=False, short_name=None):
    """A repeated flag of a type of one's own (``DEFINE``'s, one value per
    occurrence)."""
    return _define(flag_values, _custom_flag(parser, serializer, name, default, help,
                                             True), required, module_name, short_name)


def DEFINE_alias(name, original_name, flag_values=None, module_name=None):
    """Flag ``name`` is another name for ``original_name`` (its value, its type).
    ``UnrecognizedFlagError`` if that is not defined, ``DuplicateFlagError`` if
    ``name`` is taken."""
    values = FLAGS if flag_values is None else flag_values
    if original_name not in values:
        raise UnrecognizedFlagError(f"Unknown command line flag '{original_name}'")
    return _define(values, AliasFlag(name, values[original_name]), False, module_name)


# --- changing a flag through its holder ----------------------------------------------------

def set_default(flag_holder: FlagHolder, value):
    """The flag's default becomes ``value``, and its value too unless the command
    line or an assignment set it.  ``IllegalFlagValueError`` for a value it cannot
    take or one its validators reject."""
    flag_holder._flagvalues.set_default(flag_holder.name, value)


def override_value(flag_holder: FlagHolder, value):
    """Sets the flag to ``value``, over the default and the command line; ``value``
    must be one the flag's parser keeps as it is (an int for an integer flag, not
    "3"), and pass the validators, else ``IllegalFlagValueError``."""
    values = flag_holder._flagvalues
    parsed = values[flag_holder.name].converted(value)
    if parsed != value:
        raise IllegalFlagValueError(f"flag {flag_holder.name}: parsed value {parsed!r} not "
                                    f"equal to original {value!r}")
    setattr(values, flag_holder.name, value)


# --- key flags: which flags a module's help lists ------------------------------------------

def declare_key_flag(flag_name, flag_values=None):
    """Flag ``flag_name`` (a name or holder) is key to the calling module: its help
    lists it beside the flags it defines.  ``ValueError`` if it is not defined."""
    name, values = resolve_flag_ref(flag_name, flag_values)
    if name not in values:
        raise ValueError(f"Flag --{name} is undefined. To set a flag as a key flag first "
                         f"define it in Python.")
    values.register_key_flag_for_module(_calling_module(), values[name])


def adopt_module_key_flags(module, flag_values=None):
    """Every flag key to ``module`` (a module object) is key to the calling module.
    ``Error`` for anything but a module."""
    if not isinstance(module, types.ModuleType):
        raise Error(f"Expected a module object, not {module!r}.")
    values = FLAGS if flag_values is None else flag_values
    caller = _calling_module()
    for flag in values.get_key_flags_for_module(module):
        values.register_key_flag_for_module(caller, flag)


def disclaim_key_flags():
    """The calling module defines no key flags of its own: flags its functions define
    (a module of ``DEFINE_*`` wrappers) belong to the module that called them."""
    _DISCLAIMED.add(sys._getframe(1).f_globals.get("__name__"))


# --- absl's text helpers -------------------------------------------------------------------

def get_help_width() -> int:
    """The width help text is wrapped to: the terminal's, else 80."""
    return shutil.get_terminal_size(fallback=(80, 1)).columns


def text_wrap(text, length=None, indent="", firstline_indent=None) -> str:
    """``text`` wrapped to ``length`` columns (default ``get_help_width()``) counting
    the indents, each line wrapped on its own (blank lines kept, tabs as 4 spaces).
    ``ValueError`` if an indent is not shorter than ``length``."""
    length = get_help_width() if length is None else length
    indent = indent or ""
    firstline_indent = indent if firstline_indent is None else firstline_indent
    if len(indent) >= length:
        raise ValueError("Length of indent exceeds length")
    if len(firstline_indent) >= length:
        raise ValueError("Length of first line indent exceeds length")
    first = textwrap.TextWrapper(width=length, initial_indent=firstline_indent,
                                 subsequent_indent=indent)
    others = textwrap.TextWrapper(width=length, initial_indent=indent,
                                  subsequent_indent=indent)
    lines, wrapper = [], first
    for paragraph in (line.strip() for line in text.expandtabs(4).splitlines()):
        lines.extend(wrapper.wrap(paragraph) if paragraph else [""])
        wrapper = others
    return "\n".join(lines)


def flag_dict_to_args(flag_map, multi_flags=None):
    """Yields the command-line arguments that give ``flag_map``'s values: ``--name``
    for None and True, ``--noname`` for False, ``--name=a,b`` for a collection
    (``--name=a --name=b`` for a name in ``multi_flags``), ``--name=value`` else."""
    for key, value in flag_map.items():
        if value is None or value is True:
            yield f"--{key}"
        elif value is False:
            yield f"--no{key}"
        elif isinstance(value, (bytes, str)):
            yield f"--{key}={value}"
        else:
            try:
                if multi_flags and key in multi_flags:
                    yield from [f"--{key}={item}" for item in value]
                else:
                    yield f"--{key}={','.join(str(item) for item in value)}"
            except TypeError:
                yield f"--{key}={value}"


def doc_to_help(doc: str) -> str:
    """A docstring as help text: trimmed as PEP 257 does, blank-only lines emptied,
    and lines joined into paragraphs (a line break between two non-blank characters
    becomes a space; indented lines and blank lines stay)."""
    doc = re.sub("^[ \t]+$", "", doc.strip(), flags=re.M)
    doc = _trim_docstring(doc)
    return re.sub(r"(?<=\S)\n(?=\S)", " ", doc, flags=re.M)


def _trim_docstring(docstring: str) -> str:
    """PEP 257's trim: the common indentation of lines after the first removed, and
    leading and trailing blank lines."""
    if not docstring:
        return ""
    lines = docstring.expandtabs().splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.lstrip()]
    trimmed = [lines[0].strip()]
    if indents:
        trimmed += [line[min(indents):].rstrip() for line in lines[1:]]
    while trimmed and not trimmed[-1]:
        trimmed.pop()
    while trimmed and not trimmed[0]:
        trimmed.pop(0)
    return "\n".join(trimmed)


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("flags", name)
