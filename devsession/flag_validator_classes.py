"""The validators behind absl's ``register_validator`` and its kin in ``ds.flags``: a
rule on one flag's value or on several, and how a ``FlagValues`` runs them (absl's
``_validators_classes``).  Apart from ``devsession/flag_values.py``, which runs them,
and ``devsession/flags_validators.py``, which registers them, so that both can import
this without importing each other.
"""

from __future__ import annotations

from .flag_parsers import IllegalFlagValueError, ValidationError


class Validator:
    """A rule on the values of ``flag_names``: ``checker`` returns False or raises
    ``ValidationError`` when they break it.  Validators run in the order they were
    made (absl's ``insertion_index``)."""

    count = 0

    def __init__(self, flag_names, checker, message):
        self.flag_names, self.checker, self.message = list(flag_names), checker, message
        Validator.count += 1
        self.insertion_index = Validator.count

    def verify(self, flag_values):
        if not self.checker(self.checker_input(flag_values)):
            raise ValidationError(self.message)


class SingleFlagValidator(Validator):
    """``register_validator``'s: the checker sees the one flag's value."""

    def __init__(self, flag_name, checker, message):
        super().__init__([flag_name], checker, message)
        self.flag_name = flag_name

    def checker_input(self, flag_values):
        return flag_values[self.flag_name].value

    def described(self, flag_values) -> str:
        return f"flag --{self.flag_name}={flag_values[self.flag_name].value}"


class MultiFlagsValidator(Validator):
    """``register_multi_flags_validator``'s: the checker sees {name: value}."""

    def checker_input(self, flag_values):
        return {name: flag_values[name].value for name in self.flag_names}

    def described(self, flag_values) -> str:
        return "flags " + ", ".join(f"{name}={flag_values[name].value}"
                                    for name in self.flag_names)


def assert_validators(flag_values, validators):
    """Runs ``validators`` in the order they were made, skipping one whose flags an
    earlier one already found bad; raises ``IllegalFlagValueError`` with a line
    "flag --x=value: message" per failure, as absl's."""
    messages, bad = [], set()
    for validator in sorted(set(validators), key=lambda v: v.insertion_index):
        if bad.intersection(validator.flag_names):
            continue
        try:
            validator.verify(flag_values)
        except ValidationError as e:
            bad.update(validator.flag_names)
            messages.append(f"{validator.described(flag_values)}: {e}")
    if messages:
        raise IllegalFlagValueError("\n".join(messages))


def add_validator(flag_values, validator):
    """Puts ``validator`` on each flag it checks (``KeyError`` for an undefined one)."""
    flags = [flag_values[name] for name in validator.flag_names]
    for flag in flags:
        flag.validators.append(validator)
