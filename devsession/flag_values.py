"""The state behind ``ds.flags`` (TF1's ``tf.flags``): the ``Flag`` objects, the
``FlagValues`` that holds them and parses a command line into them, the validators it
runs, and the ``FlagHolder`` a ``DEFINE_*`` returns.  ``devsession/flags.py`` is the
public face (the ``DEFINE_*`` functions and absl's helpers); its docstring describes the
command-line syntax.

State: a ``FlagValues`` holds {name: Flag} (an alias is a second name whose ``Flag``
reads and writes the original's value), whether it has been parsed, the names marked
required, and which module defined each flag and which flags are key to a module (help
grouping, as absl's).  Each ``Flag`` keeps its validators; a validator that checks
several flags is on each of them.

Invariant, as absl's: after ``FLAGS(argv)``, after ``FLAGS.x = v`` and after
``set_default``, every validator of the flags concerned passes, else the call raises
``IllegalFlagValueError`` naming the flags and their values ("flag --x=5: <message>").
Unlike absl's, a failed call changes nothing: parsing computes every value first and
puts the old ones back when a validator fails (absl leaves the new values set).
"""

from __future__ import annotations

import argparse
import enum
import sys
from collections.abc import Iterable

from .flag_files import expand_flag_files
from .flag_parsers import (DuplicateFlagError, Error, FlagNameConflictsWithMethodError,
                           IllegalFlagValueError, UnparsedFlagAccessError,
                           UnrecognizedFlagError)
from .flag_validator_classes import SingleFlagValidator, add_validator, assert_validators


# --- flags ----------------------------------------------------------------------------------

class Flag:
    """One defined flag: its ``name`` (and ``short_name``, a second name for the
    same flag), ``default``, ``help``, current ``value``, how
    many times the command line gave it (``present``), whether it still has its
    default (``using_default_value``: not given, not assigned) and its ``validators``.
    ``parse`` turns one command-line string into a value, ``serialize_value`` a
    value back into one (``serialize``); a ``multi`` flag's value is the list of
    every occurrence (its default may be one value or a list)."""

    def __init__(self, name, default, help, parse, kind="", multi=False, boolean=False,
                 serialize_value=str, short_name=None):
        self.name, self.help, self.parse, self.kind = name, help or "", parse, kind
        self.short_name = short_name
        self.multi, self.boolean, self.serialize_value = multi, boolean, serialize_value
        self.validators = []
        self.present = 0
        self.using_default_value = True
        self.value = None
        self.set_default(default)

    def set_default(self, default):
        """A new default, parsed as a command-line value; it is also the value while
        the flag has its default."""
        self.default = None if default is None else self.converted(default)
        if self.using_default_value:
            self.value = self.default

    def converted(self, raw):
        """``raw`` (a string, or a value of the flag's type) as the flag's value;
        ``IllegalFlagValueError`` naming the flag if it cannot be."""
        if self.multi:
            items = list(raw) if isinstance(raw, Iterable) and not isinstance(raw, str) \
                else [raw]
            return [self._one(item) for item in items]
        return self._one(raw)

    def _one(self, raw):
        try:
            return self.parse(raw)
        except (TypeError, ValueError, OverflowError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={raw}: {e}") from None

    def parse_command_line(self, texts: list):
        """The value the command line's strings for this flag give (the last, or all
        of them for a multi flag).  A multi flag's values replace those an earlier
        ``FLAGS(argv)`` gave; absl's add to them, so that TF1's global FLAGS, which
        parses sys.argv when first read and again in ``tf.app.run``, doubles them."""
        return self.converted(texts if self.multi else texts[-1])

    def unparse(self):
        """Back to the default, as if never given (absl's ``Flag.unparse``)."""
        self.value, self.present, self.using_default_value = self.default, 0, True

    def serialize(self) -> str:
        """The command-line arguments that give the flag its value, as absl's: ""
        for None, ``--name``/``--noname`` for a boolean, a line per value of a multi
        flag.  ``Error`` for a ``DEFINE`` flag made without a serializer."""
        if self.multi and self.serialize_value is None:
            raise Error(f"Serializer not present for flag {self.name}")
        if self.value is None:
            return ""
        if self.boolean:
            return f"--{self.name}" if self.value else f"--no{self.name}"
        if self.serialize_value is None:
            raise Error(f"Serializer not present for flag {self.name}")
        if self.multi:
            return "\n".join(f"--{self.name}={self.serialize_value(item)}"
                             for item in self.value)
        return f"--{self.name}={self.serialize_value(self.value)}"

    def restore(self, state):
        self.value, self.present, self.using_default_value = state

    def state(self):
        return self.value, self.present, self.using_default_value

    def __repr__(self):
        return f"<Flag --{self.name}={self.value!r}>"


class AliasFlag(Flag):
    """``DEFINE_alias``'s flag: another name for ``original``, whose value it reads and
    writes; the command line's values for either name go to the original."""

    def __init__(self, name, original: Flag):
        self.__dict__["original"] = original
        self.name, self.help = name, f"Alias for --{original.name}."
        self.short_name = None
        self.parse, self.kind = original.parse, original.kind
        self.serialize_value = original.serialize_value
        self.multi, self.boolean = original.multi, original.boolean
        self.validators, self.present, self.using_default_value = [], 0, True
        self.default = original.default

    def unparse(self):
        """Not given any more; the original's own ``unparse`` resets the value (absl's
        alias puts back its snapshot of the original's default, even one that
        ``set_default`` has changed since)."""
        self.present, self.using_default_value = 0, True

    @property
    def value(self):
        return self.original.value

    @value.setter
    def value(self, value):
        self.original.value = value


# --- the registry ---------------------------------------------------------------------------

class FlagValues:
    """The flags a program defined, and their values once parsed (absl's
    ``FlagValues``).  ``parse_argv_on_first_read`` makes reading a flag before parsing
    parse ``sys.argv`` (TF1's global FLAGS) instead of raising."""

    def __init__(self, parse_argv_on_first_read: bool = False):
        self.__dict__["_flags"] = {}
        self.__dict__["_parsed"] = False
        self.__dict__["_parse_argv_on_first_read"] = parse_argv_on_first_read
        self.__dict__["_required"] = []
        self.__dict__["_module_flags"] = {}      # module name -> [Flag] it defined
        self.__dict__["_key_flags"] = {}         # module name -> [Flag] declared key

    # --- defining -----------------------------------------------------------------------
    def define(self, flag: Flag, module_name: str | None = None) -> Flag:
        """Adds ``flag`` (defined by module ``module_name``) under its name and its
        short name; raises ``DuplicateFlagError`` if one is taken,
        ``FlagNameConflictsWithMethodError`` if it is a method's."""
        names = [flag.name] + ([flag.short_name] if flag.short_name else [])
        for name in names:
            if name in self._flags:
                raise DuplicateFlagError(
                    f"The flag '{name}' is defined twice. Flag names are global to the "
                    f"FlagValues (FLAGS); rename one, or define it once in a shared "
                    f"module.")
            if name in dir(FlagValues):
                raise FlagNameConflictsWithMethodError(
                    f'Cannot define a flag named "{name}". It conflicts with a method '
                    f'on class "{type(self).__name__}": FLAGS.{name} would be the '
                    f'method, not the flag value; choose another name.')
        for name in names:
            self._flags[name] = flag
        if module_name is not None:
            self._module_flags.setdefault(module_name, []).append(flag)
        return flag

    def mark_as_required(self, name: str):
        """Parsing (and assigning) fails unless flag ``name`` has a value other than
        None (a validator, as absl's ``mark_flag_as_required``)."""
        if name not in self._flags:
            raise KeyError(f"mark_flag_as_required: no flag '{name}' is defined.")
        if name not in self._required:
            self._required.append(name)
            add_validator(self, SingleFlagValidator(
                name, lambda value: value is not None,
                f"Flag --{name} must have a value other than None."))

    # --- parsing ------------------------------------------------------------------------
    def __call__(self, argv, known_only: bool = False) -> list:
        """Parses ``argv`` (argv[0] is the program); returns argv[0] and the arguments
        that are not flags (with ``known_only``, also the unknown flags and a ``--``).
        ``--flagfile=path`` reads more arguments from a file first; ``--undefok=a,b``
        lets unknown flags ``a`` and ``b`` be given (and drops them).  Raises
        ``UnrecognizedFlagError`` naming an unknown flag, ``IllegalFlagValueError``
        for a value a flag cannot take, a missing one or a failed validator,
        ``CantOpenFlagFileError``, and, as absl, ``ValueError`` for an empty ``argv``,
        ``TypeError`` for a string.  On an error nothing changes."""
        if isinstance(argv, (str, bytes)):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string "
                            "(e.g. FLAGS(sys.argv)).")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program "
                             "name as the first element (e.g. FLAGS(sys.argv)).")
        args = self.read_flags_from_files(list(argv[1:]), force_gnu=False)
        head, tail = self._spelled(args)
        tail = [] if tail is None else ["--"] + tail if known_only else tail
        given, counts, rest = self._split(head)
        rest = self._dropping_undefok(rest)
        if not known_only:
            unknown = [arg for arg in rest if arg.startswith("-") and arg != "-"]
            if unknown:
                raise UnrecognizedFlagError(self._unknown_message(unknown[0]))
        values = {name: self._flags[name].parse_command_line(texts)
                  for name, texts in given.items()}
        saved, was_parsed = self._states(), self._parsed
        try:
            for name, value in values.items():
                self._flags[name].value = value
                self._flags[name].using_default_value = False
            for flag, count in counts.items():
                flag.present += count
            self.__dict__["_parsed"] = True
            self.validate_all_flags()
        except Exception:
            self._restore(saved)
            self.__dict__["_parsed"] = was_parsed
            raise
        return [argv[0]] + rest + tail

    def _states(self):
        return {name: flag.state() for name, flag in self._flags.items()}

    def _restore(self, states):
        for name, state in states.items():
            self._flags[name].restore(state)

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
        if arg.lstrip("-") == "undefok" and "undefok" not in self._flags:
            return "undefok"
        flag = self._flags.get(arg.lstrip("-"))
        return flag.name if flag is not None and not flag.boolean else None

    def _dropping_undefok(self, rest: list) -> list:
        """``rest`` without absl's ``--undefok=a,b`` and without the unknown flags it
        names (``--a``, ``--noa``, ``--b=...``): those are neither errors nor returned."""
        if "undefok" in self._flags:
            return rest
        names, kept = set(), []
        for arg in rest:
            name, has_value, value = arg.lstrip("-").partition("=")
            if arg.startswith("-") and name == "undefok" and has_value:
                names.update(part.strip() for part in value.split(","))
            else:
                kept.append(arg)
        names |= {"no" + name for name in names}
        return [arg for arg in kept
                if not (arg.startswith("-") and arg.lstrip("-").partition("=")[0] in names)]

    def _split(self, spelled: list):
        """From arguments ``_spelled`` made (a defined flag is ``--name=value``
        there, or ``--short_name=value``): {flag name: its command-line strings}, with
        an alias's strings under its original in command-line order; {Flag: how many
        times it was given}, counting an alias's for its original too; and the
        arguments left over.  Not argparse: it would take a value of "--"
        (``--name --``, absl's) as none."""
        given, counts, rest = {}, {}, []
        for arg in spelled:
            name, has_value, value = arg[2:].partition("=")
            if arg.startswith("--") and has_value and name in self._flags:
                flag = self._flags[name]
                target = getattr(flag, "original", flag)
                given.setdefault(target.name, []).append(value)
                for counted in {flag, target}:
                    counts[counted] = counts.get(counted, 0) + 1
            else:
                rest.append(arg)
        return given, counts, rest

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

    # --- flag files ---------------------------------------------------------------------
    def read_flags_from_files(self, argv: list, force_gnu: bool = True) -> list:
        """``argv`` (without the program name) with each ``--flagfile=path`` replaced
        by the arguments in that file (``devsession/flag_files.py``)."""
        del force_gnu          # absl's: positional arguments never end the flags here

        def takes_value(name):
            flag = self._flags.get(name)
            return flag is not None and not flag.boolean
        return expand_flag_files(argv, takes_value)

    # --- state --------------------------------------------------------------------------
    def is_parsed(self) -> bool:
        return self._parsed

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def unparse_flags(self):
        """Every flag back to its default, and unparsed."""
        for flag in self._unique_flags():
            flag.unparse()
        self.__dict__["_parsed"] = False

    def validate_all_flags(self):
        """Runs every validator; ``IllegalFlagValueError`` naming the failures."""
        assert_validators(self, [v for flag in self._unique_flags()
                                 for v in flag.validators])

    def set_default(self, name, value):
        """Flag ``name``'s default becomes ``value`` (parsed as a command-line value),
        and its value too while it has its default; its validators must pass.  Raises
        ``UnrecognizedFlagError``, ``IllegalFlagValueError``."""
        if name not in self._flags:
            raise UnrecognizedFlagError(f"Unknown command line flag '{name}'")
        flag = self._flags[name]
        saved = flag.default, flag.state()
        flag.set_default(value)
        try:
            assert_validators(self, flag.validators)
        except Exception:
            flag.default = saved[0]
            flag.restore(saved[1])
            raise

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
        """``FLAGS.name = value``: the value as given (not parsed), and the flag's
        validators must pass, else ``IllegalFlagValueError`` and it keeps its value."""
        if name not in self._flags:
            raise UnrecognizedFlagError(f"Cannot set FLAGS.{name}: no flag '{name}' is "
                                        f"defined (define it with DEFINE_*).")
        flag = self._flags[name]
        saved = flag.state()
        flag.value = value
        try:
            assert_validators(self, flag.validators)
        except Exception:
            flag.restore(saved)
            raise
        flag.using_default_value = False

    def __delattr__(self, name):
        if name not in self._flags:
            raise AttributeError(name)
        flag = self._flags.pop(name)
        if flag in self._flags.values():        # still there under its other name
            return
        for flags in [*self._module_flags.values(), *self._key_flags.values()]:
            while flag in flags:
                flags.remove(flag)

    def __getitem__(self, name) -> Flag:
        return self._flags[name]

    def __contains__(self, name) -> bool:
        return name in self._flags

    def __iter__(self):
        return iter(list(self._flags))

    def __len__(self):
        return len(self._flags)

    def _unique_flags(self) -> list:
        """Each Flag once (one with a short name is there under two names)."""
        return list({id(flag): flag for flag in self._flags.values()}.values())

    def get_flag_value(self, name, default):
        """The value of flag ``name``, or ``default`` if none is defined."""
        return self._flags[name].value if name in self._flags else default

    def flag_values_dict(self) -> dict:
        """{flag name: value} for every flag."""
        return {name: flag.value for name, flag in self._flags.items()}

    def flags_into_string(self) -> str:
        """A flagfile's text for the flags' values: a line per flag (per value of a
        multi flag) that is not None, by module, then name, as absl's."""
        return "".join(flag.serialize() + "\n"
                       for _, flags in sorted(self._module_flags.items())
                       for flag in sorted(flags, key=lambda f: f.name)
                       if flag.value is not None)

    def append_flags_into_file(self, filename: str):
        """Appends ``flags_into_string()`` to file ``filename`` (read it back with
        ``--flagfile``)."""
        with open(filename, "a") as file:
            file.write(self.flags_into_string())

    def get_help(self, prog: str | None = None) -> str:
        """Every flag with its help text and default, as ``--help`` prints them, under
        the name of the module that defined it (the script's first, as absl's)."""
        groups = {}
        for flag in self._unique_flags():
            module = self.find_module_defining_flag(flag.name, "other flags")
            groups.setdefault(module, []).append(flag)
        main = module_key("__main__")
        order = sorted(groups, key=lambda module: (module != main, module))
        return _help_text(prog, {module: groups[module] for module in order})

    def module_help(self, module) -> str:
        """The help of the flags key to ``module`` (a module or its name): those it
        defined, and those it declared key or adopted."""
        return _help_text(None, {module_key(module): self.get_key_flags_for_module(module)})

    def main_module_help(self) -> str:
        """``module_help`` of the script (``__main__``)."""
        return self.module_help("__main__")

    def __str__(self):
        return self.get_help()

    # --- modules and key flags (help grouping) ------------------------------------------
    def register_key_flag_for_module(self, module_name: str, flag: Flag):
        key = self._key_flags.setdefault(module_name, [])
        if flag not in key:
            key.append(flag)

    def get_flags_for_module(self, module) -> list:
        """The flags module ``module`` (a module or its name) defined."""
        return list(self._module_flags.get(module_key(module), []))

    def get_key_flags_for_module(self, module) -> list:
        """The flags key to ``module``: those it defined, then those it declared key."""
        key = self.get_flags_for_module(module)
        return key + [flag for flag in self._key_flags.get(module_key(module), [])
                      if flag not in key]

    def find_module_defining_flag(self, name, default=None):
        """The name of the module that defined flag ``name``, or ``default``."""
        for module, flags in self._module_flags.items():
            if any(flag.name == name for flag in flags) and name in self._flags:
                return module
        return default


def _help_text(prog, groups: dict) -> str:
    """argparse's help of {heading: [Flag]}: each flag with its help, its default and
    what it takes, sorted by name under its heading."""
    parser = argparse.ArgumentParser(prog=prog, add_help=False, usage="%(prog)s [flags]")
    for heading, flags in groups.items():
        group = parser.add_argument_group(f"{heading}")
        for flag in sorted(flags, key=lambda f: f.name):
            default = flag.default
            if isinstance(default, list):
                default = ",".join(str(getattr(item, "name", item)) for item in default)
            elif isinstance(default, enum.Enum):
                default = default.name
            text = f"{flag.help} (default: {default!r}{flag.kind})".replace("%", "%%")
            short = [f"-{flag.short_name}"] if flag.short_name else []
            if flag.boolean:
                group.add_argument(*short, f"--[no]{flag.name}", action="store_true",
                                   help=text)
            else:
                group.add_argument(*short, f"--{flag.name}", metavar="", help=text)
    return parser.format_help()


def module_key(module) -> str:
    """A module's name as flags are filed under it: the script's path for __main__."""
    name = module if isinstance(module, str) else module.__name__
    return sys.argv[0] if name == "__main__" else name


FLAGS = FlagValues(parse_argv_on_first_read=True)


class FlagHolder:
    """What a ``DEFINE_*`` returns (absl's): the flag by name, so that a program can
    read ``.value`` without spelling the name again.  ``.value`` is
    ``IllegalFlagValueError`` when it is None for a flag that must have one (a
    non-None default, or ``required``).  Comparing or testing the holder itself is a
    ``TypeError`` (the value was meant)."""

    def __init__(self, flag_values: FlagValues, flag: Flag, ensure_non_none_value=False):
        self._flagvalues, self._name = flag_values, flag.name
        self._ensure_non_none_value = ensure_non_none_value

    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self):
        value = getattr(self._flagvalues, self._name)
        if self._ensure_non_none_value and value is None:
            raise IllegalFlagValueError(f"Unexpected None value for flag {self._name}")
        return value

    @property
    def default(self):
        return self._flagvalues[self._name].default

    @property
    def present(self) -> bool:
        return bool(self._flagvalues[self._name].present)

    def serialize(self) -> str:
        return self._flagvalues[self._name].serialize()

    def __eq__(self, other):
        raise TypeError(f"unsupported operand type(s) for ==: 'FlagHolder' and "
                        f"'{type(other).__name__}' (did you mean to use "
                        f"'FlagHolder.value' instead?)")

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("bool() not supported for instances of type 'FlagHolder' (did "
                        "you mean to use 'FlagHolder.value' instead?)")

    def __repr__(self):
        return f"<FlagHolder --{self._name}>"


def resolve_flag_ref(ref, flag_values):
    """(name, FlagValues) of ``ref``, a flag's name or its holder; ``flag_values``
    (None: FLAGS) cannot be another than a holder's."""
    if isinstance(ref, FlagHolder):
        if flag_values is not None and flag_values is not FLAGS \
                and flag_values is not ref._flagvalues:
            raise ValueError("flag_values must not be customized when operating on a "
                             "FlagHolder")
        return ref.name, ref._flagvalues
    return ref, FLAGS if flag_values is None else flag_values


def resolve_flag_refs(refs, flag_values):
    """([names], FlagValues) of names or holders that must share one FlagValues."""
    names, found = [], None
    for ref in refs:
        name, values = resolve_flag_ref(ref, None) if isinstance(ref, FlagHolder) \
            else (ref, FLAGS if flag_values is None else flag_values)
        if found is not None and values is not found:
            raise ValueError("multiple FlagValues instances used in invocation. "
                             "FlagHolders must be registered to the same FlagValues "
                             "instance as do flag names, if provided.")
        found = values
        names.append(name)
    if found is None:
        raise ValueError("flag_refs argument must not be empty")
    return names, found
