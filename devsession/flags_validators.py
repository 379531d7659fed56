"""absl's flag validators for ``ds.flags`` (TF1's ``tf.flags``): rules on flag values
checked when the command line is parsed and whenever a flag they check is assigned.

    ds.flags.DEFINE_integer("batch", 32, "Batch size.")

    @ds.flags.validator("batch", message="--batch must be positive")
    def _positive(value):
        return value > 0

    ds.flags.mark_flags_as_mutual_exclusive(["train_dir", "eval_dir"], required=True)

A checker returns False (the validator's ``message`` is reported) or raises
``ValidationError`` (its text is).  Either way parsing or ``FLAGS.x = v`` raises
``IllegalFlagValueError`` as absl's, "flag --batch=0: --batch must be positive" (a rule
on several flags: "flags a=1, b=2: ..."), and nothing changes.  A flag is named by its
name or its ``FlagHolder``; ``flag_values`` defaults to ``FLAGS`` (the validators
themselves are in ``devsession/flag_validator_classes.py``, and ``FlagValues`` in
``devsession/flag_values.py`` runs them).
"""

from __future__ import annotations

import warnings

from .flag_parsers import ValidationError
from .flag_validator_classes import MultiFlagsValidator, SingleFlagValidator, add_validator
from .flag_values import resolve_flag_ref, resolve_flag_refs

__all__ = ["register_validator", "validator", "register_multi_flags_validator",
           "multi_flags_validator", "mark_flag_as_required", "mark_flags_as_required",
           "mark_flags_as_mutual_exclusive", "mark_bool_flags_as_mutual_exclusive"]


def register_validator(flag_name, checker, message="Flag validation failed",
                       flag_values=None):
    """Checks flag ``flag_name`` with ``checker(value)`` at parse time and on each
    assignment.  ``KeyError`` if the flag is not defined."""
    name, values = resolve_flag_ref(flag_name, flag_values)
    add_validator(values, SingleFlagValidator(name, checker, message))


def validator(flag_name, message="Flag validation failed", flag_values=None):
    """A decorator that registers the function as ``flag_name``'s checker."""
    def decorate(function):
        register_validator(flag_name, function, message=message, flag_values=flag_values)
        return function
    return decorate


def register_multi_flags_validator(flag_names, multi_flags_checker,
                                   message="Flags validation failed", flag_values=None):
    """Checks ``multi_flags_checker({name: value})`` over ``flag_names`` at parse time
    and whenever one of them is assigned.  ``ValueError`` for names of two
    ``FlagValues`` (or none), ``KeyError`` for an undefined flag."""
    names, values = resolve_flag_refs(flag_names, flag_values)
    add_validator(values, MultiFlagsValidator(names, multi_flags_checker, message))


def multi_flags_validator(flag_names, message="Flag validation failed", flag_values=None):
    """A decorator that registers the function as the checker of ``flag_names``."""
    def decorate(function):
        register_multi_flags_validator(flag_names, function, message=message,
                                       flag_values=flag_values)
        return function
    return decorate


def mark_flag_as_required(flag_name, flag_values=None):
    """Parsing raises ``IllegalFlagValueError`` unless flag ``flag_name`` has a value
    other than None ("Flag --x must have a value other than None."); give it a None
    default (absl's warning otherwise).  ``KeyError`` if it is not defined."""
    name, values = resolve_flag_ref(flag_name, flag_values)
    if name in values and values[name].default is not None:
        warnings.warn(f"Flag --{name} has a non-None default value; therefore, "
                      f"mark_flag_as_required will pass even if flag is not specified "
                      f"in the command line!", stacklevel=2)
    values.mark_as_required(name)


def mark_flags_as_required(flag_names, flag_values=None):
    for flag_name in flag_names:
        mark_flag_as_required(flag_name, flag_values)


def mark_flags_as_mutual_exclusive(flag_names, required=False, flag_values=None):
    """At most one of ``flag_names`` (exactly one with ``required``) may have a value
    other than None; a default counts, so give them None defaults (absl warns)."""
    names, values = resolve_flag_refs(flag_names, flag_values)
    for name in names:
        if values[name].default is not None:
            warnings.warn(f"Flag --{name} has a non-None default value. That does not "
                          f"make sense with mark_flags_as_mutual_exclusive, which checks "
                          f"whether the listed flags have a value other than None.",
                          stacklevel=2)
    add_validator(values, MultiFlagsValidator(
        names, _at_most_one(names, required, lambda value: value is not None,
                            "must have a value other than None"),
        "Flags validation failed"))


def mark_bool_flags_as_mutual_exclusive(flag_names, required=False, flag_values=None):
    """At most one of the boolean flags ``flag_names`` (exactly one with ``required``)
    may be True.  ``ValidationError`` if one is not boolean."""
    names, values = resolve_flag_refs(flag_names, flag_values)
    for name in names:
        if not values[name].boolean:
            raise ValidationError(f"Flag --{name} is not Boolean, which is required for "
                                  f"flags used in mark_bool_flags_as_mutual_exclusive.")
    add_validator(values, MultiFlagsValidator(
        names, _at_most_one(names, required, bool, "must be True"),
        "Flags validation failed"))


def _at_most_one(names, required, counts, must):
    """A checker of {name: value}: one value for which ``counts`` is true (or none,
    unless ``required``), else ``ValidationError`` with absl's sentence."""
    def check(values):
        given = sum(1 for value in values.values() if counts(value))
        if given == 1 or (given == 0 and not required):
            return True
        raise ValidationError(f"{'Exactly' if required else 'At most'} one of "
                              f"({', '.join(names)}) {must}.")
    return check
