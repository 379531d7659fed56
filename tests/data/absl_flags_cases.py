"""Cases of absl's flags beyond the basic DEFINE_* (multi and enum_class flags, aliases,
validators, mutual exclusion, required flags, FlagHolder, set_default/override_value,
--flagfile, --undefok, short names, key flags, serializing, the text helpers), run on absl by
make_absl_flags.py (recorded in absl_flags.json) and on ds.flags by
tests/test_tf1_flags_more.py through the same ``run_case``, which takes the flags module
as its argument.

A case is (definitions, argv after the program name, actions after parsing, how much of
an error message must match: "exact", "prefix" (up to the first ": ", the part naming
the flag and its value; devsession's parsers word the reason their own way), "sentence"
(up to the first "."), "start" (devsession's begins with absl's and says more) or
"subclass" (the whole message; devsession's error class is a subclass of absl's, as
its IllegalFlagValueError for a flag missing its value where absl raises its Error)).
``run_case`` records each step's outcome (the definitions, the parse, each action): the
flags' values and how often each was given, or the error's class and message, and
stops at the first error.
"""

from __future__ import annotations

import enum
import os
import types
import warnings


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


# --- definitions: (flags module, FlagValues) -> {key: FlagHolder} --------------------------

def multi(flags, fv):
    return {
        "n": flags.DEFINE_multi_integer("n", None, "Ns.", flag_values=fv),
        "m": flags.DEFINE_multi_integer("m", 5, "One default.", flag_values=fv),
        "k": flags.DEFINE_multi_integer("k", [1, 2], "Bounded.", lower_bound=0,
                                        flag_values=fv),
        "x": flags.DEFINE_multi_float("x", ["0.5", 2], "Floats.", flag_values=fv),
        "e": flags.DEFINE_multi_enum("e", "a", ["a", "b", "C"], "Enum.", flag_values=fv),
        "ei": flags.DEFINE_multi_enum("ei", None, ["a", "B"], "Any case.",
                                      case_sensitive=False, flag_values=fv),
        "c": flags.DEFINE_multi_enum_class("c", None, Color, "Colors.", flag_values=fv),
        "cd": flags.DEFINE_multi_enum_class("cd", [Color.RED, "blue"], Color, "Colors.",
                                            flag_values=fv),
        "s": flags.DEFINE_multi_string("s", [], "Strings.", flag_values=fv),
    }


def enum_class(flags, fv):
    return {
        "color": flags.DEFINE_enum_class("color", "red", Color, "Any case.", flag_values=fv),
        "shade": flags.DEFINE_enum_class("shade", None, Color, "Exact case.",
                                         case_sensitive=True, flag_values=fv),
        "tone": flags.DEFINE_enum_class("tone", Color.GREEN, Color, "Member default.",
                                        flag_values=fv),
    }


def bad_enum_class_default(flags, fv):
    flags.DEFINE_enum_class("color", "purple", Color, "Bad default.", flag_values=fv)


def spaceseplist(flags, fv):
    return {
        "words": flags.DEFINE_spaceseplist("words", "a b", "Words.", flag_values=fv),
        "wc": flags.DEFINE_spaceseplist("wc", None, "Commas too.", comma_compat=True,
                                        flag_values=fv),
        "wl": flags.DEFINE_spaceseplist("wl", ["x"], "List default.", flag_values=fv),
    }


def alias(flags, fv):
    held = {
        "steps": flags.DEFINE_integer("steps", 3, "Steps.", flag_values=fv),
        "tag": flags.DEFINE_multi_string("tag", None, "Tags.", flag_values=fv),
        "fast": flags.DEFINE_boolean("fast", False, "Fast.", flag_values=fv),
    }
    held["s"] = flags.DEFINE_alias("s", "steps", flag_values=fv)
    held["t"] = flags.DEFINE_alias("t", "tag", flag_values=fv)
    held["quick"] = flags.DEFINE_alias("quick", "fast", flag_values=fv)
    return held


def alias_of_nothing(flags, fv):
    flags.DEFINE_alias("s", "nope", flag_values=fv)


def alias_taken(flags, fv):
    flags.DEFINE_integer("steps", 3, "Steps.", flag_values=fv)
    flags.DEFINE_integer("s", 3, "Taken.", flag_values=fv)
    flags.DEFINE_alias("s", "steps", flag_values=fv)


def validators(flags, fv):
    held = {
        "batch": flags.DEFINE_integer("batch", 32, "Batch.", flag_values=fv),
        "mode": flags.DEFINE_string("mode", "train", "Mode.", flag_values=fv),
        "lo": flags.DEFINE_integer("lo", 0, "Low.", flag_values=fv),
        "hi": flags.DEFINE_integer("hi", 10, "High.", flag_values=fv),
        "plain": flags.DEFINE_string("plain", "ok", "Default message.", flag_values=fv),
    }
    flags.register_validator("batch", lambda value: value > 0,
                             message="--batch must be positive", flag_values=fv)

    @flags.validator("mode", flag_values=fv)
    def _known_mode(value):
        if value == "bad":
            raise flags.ValidationError(f"mode {value} is not known")
        return True

    @flags.multi_flags_validator(["lo", held["hi"]], message="lo must not exceed hi",
                                 flag_values=fv)
    def _ordered(values):
        return values["lo"] <= values["hi"]

    flags.register_validator(held["plain"], lambda value: value != "no")
    return held


def exclusive(flags, fv):
    held = {name: flags.DEFINE_string(name, None, name.upper(), flag_values=fv)
            for name in ("a", "b")}
    held["c"] = flags.DEFINE_integer("c", None, "C.", flag_values=fv)
    flags.mark_flags_as_mutual_exclusive(["a", "b", held["c"]], flag_values=fv)
    return held


def exclusive_required(flags, fv):
    held = {name: flags.DEFINE_string(name, None, name.upper(), flag_values=fv)
            for name in ("x", "y")}
    flags.mark_flags_as_mutual_exclusive(["x", "y"], required=True, flag_values=fv)
    return held


def exclusive_with_default(flags, fv):
    flags.DEFINE_string("a", "set", "A.", flag_values=fv)
    flags.DEFINE_string("b", None, "B.", flag_values=fv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flags.mark_flags_as_mutual_exclusive(["a", "b"], flag_values=fv)


def bool_exclusive(flags, fv):
    held = {name: flags.DEFINE_boolean(name, False, name.upper(), flag_values=fv)
            for name in ("p", "q", "r")}
    flags.mark_bool_flags_as_mutual_exclusive(["p", "q", "r"], flag_values=fv)
    return held


def bool_exclusive_required(flags, fv):
    for name in ("p", "q"):
        flags.DEFINE_boolean(name, False, name.upper(), flag_values=fv)
    flags.mark_bool_flags_as_mutual_exclusive(["p", "q"], required=True, flag_values=fv)


def bool_exclusive_not_bool(flags, fv):
    flags.DEFINE_boolean("p", False, "P.", flag_values=fv)
    flags.DEFINE_string("s", None, "S.", flag_values=fv)
    flags.mark_bool_flags_as_mutual_exclusive(["p", "s"], flag_values=fv)


def exclusive_of_nothing(flags, fv):
    flags.mark_flags_as_mutual_exclusive([], flag_values=fv)


def required(flags, fv):
    return {"need": flags.DEFINE_string("need", None, "Needed.", required=True,
                                        flag_values=fv),
            "other": flags.DEFINE_integer("other", 1, "Other.", flag_values=fv)}


def required_with_default(flags, fv):
    flags.DEFINE_integer("r", 3, "Has a default.", required=True, flag_values=fv)


def marked_required(flags, fv):
    held = {"need": flags.DEFINE_integer("need", None, "Needed.", flag_values=fv)}
    flags.mark_flags_as_required([held["need"]], flag_values=fv)
    return held


def basic(flags, fv):
    return {
        "steps": flags.DEFINE_integer("steps", 3, "Steps.", lower_bound=0, flag_values=fv),
        "lr": flags.DEFINE_float("lr", 0.5, "Rate.", upper_bound=1.0, flag_values=fv),
        "name": flags.DEFINE_string("name", "bob", "Name.", flag_values=fv),
        "fast": flags.DEFINE_boolean("fast", None, "Fast.", flag_values=fv),
        "tags": flags.DEFINE_multi_string("tags", "xy", "Tags.", flag_values=fv),
        "layers": flags.DEFINE_list("layers", "a,b", "Layers.", flag_values=fv),
    }


def method_name(flags, fv):
    flags.DEFINE_string("set_default", "x", "Shadows a method.", flag_values=fv)


def every_type(flags, fv):
    flags.DEFINE_enum_class("first", "blue", Color, "Defined first, listed last.",
                            flag_values=fv, module_name="zz_mod")
    flags.DEFINE_string("s", "a b", "S.", flag_values=fv)
    flags.DEFINE_string("none", None, "None.", flag_values=fv)
    flags.DEFINE_integer("i", 3, "I.", flag_values=fv)
    flags.DEFINE_float("f", 0.25, "F.", flag_values=fv)
    flags.DEFINE_boolean("yes", True, "Yes.", flag_values=fv)
    flags.DEFINE_boolean("no", False, "No.", flag_values=fv)
    flags.DEFINE_list("l", ["a", "b,c", 'd"e'], "L.", flag_values=fv)
    flags.DEFINE_list("empty", [], "Empty.", flag_values=fv)
    flags.DEFINE_spaceseplist("w", "x y", "W.", flag_values=fv)
    flags.DEFINE_enum("e", "b", ["a", "b"], "E.", flag_values=fv)
    flags.DEFINE_enum_class("c", "green", Color, "C.", flag_values=fv)
    flags.DEFINE_enum_class("cs", "GREEN", Color, "Cs.", case_sensitive=True,
                            flag_values=fv)
    flags.DEFINE_multi_string("ms", ["p", "q r"], "Ms.", flag_values=fv)
    flags.DEFINE_multi_integer("mi", [], "Mi.", flag_values=fv)
    flags.DEFINE_multi_enum_class("mc", ["red", "BLUE"], Color, "Mc.", flag_values=fv)
    flags.DEFINE_alias("alias_of_i", "i", flag_values=fv)
    return {"c": flags.DEFINE_enum_class("c2", Color.RED, Color, "C2.", flag_values=fv,
                                         module_name="other_mod")}


def short_names(flags, fv):
    return {
        "output": flags.DEFINE_string("output", "out", "Output.", short_name="o",
                                      flag_values=fv),
        "verbose": flags.DEFINE_boolean("verbose", False, "Verbose.", short_name="v",
                                        flag_values=fv),
        "tag": flags.DEFINE_multi_string("tag", None, "Tags.", short_name="t",
                                         flag_values=fv),
        "color": flags.DEFINE_enum_class("color", "red", Color, "Color.", short_name="c",
                                         flag_values=fv),
    }


def short_name_taken(flags, fv):
    flags.DEFINE_string("o", "x", "Taken.", flag_values=fv)
    flags.DEFINE_string("output", "out", "Output.", short_name="o", flag_values=fv)


def custom(flags, fv):
    class Pair(flags.ArgumentParser):
        syntactic_help = "two integers a:b"

        def parse(self, argument):
            if isinstance(argument, tuple):
                return argument
            first, sep, second = argument.partition(":")
            if not sep:
                raise ValueError(f"{argument!r} is not a:b")
            return int(first), int(second)

    class PairText(flags.ArgumentSerializer):
        def serialize(self, value):       # absl's help text gives it a list's default
            if isinstance(value, list):
                return ",".join(self.serialize(item) for item in value)
            return f"{value[0]}:{value[1]}"

    return {
        "pair": flags.DEFINE(Pair(), "pair", "1:2", "A pair.", flag_values=fv,
                             serializer=PairText()),
        "raw": flags.DEFINE(flags.ArgumentParser(), "raw", None, "Any string.",
                            flag_values=fv, serializer=flags.ArgumentSerializer()),
        "pairs": flags.DEFINE_multi(Pair(), PairText(), "pairs", ["3:4"], "Pairs.",
                                    flag_values=fv),
        "bare": flags.DEFINE(Pair(), "bare", None, "No serializer.", flag_values=fv),
        "bares": flags.DEFINE_multi(Pair(), None, "bares", None, "No serializer.",
                                    flag_values=fv),
    }


def key_flags(flags, fv):
    held = {"mine": flags.DEFINE_string("mine", "m", "Mine.", flag_values=fv)}
    held["theirs"] = flags.DEFINE_enum_class("theirs", "red", Color, "Theirs.",
                                             flag_values=fv, module_name="other_mod")
    held["also"] = flags.DEFINE_enum_class("also", "red", Color, "Also theirs.",
                                           flag_values=fv, module_name="other_mod")
    return held


# --- actions after parsing ------------------------------------------------------------------

def _act(flags, fv, held, action):
    kind, *args = action
    if kind == "set":
        setattr(fv, args[0], args[1])
    elif kind == "set_default":
        flags.set_default(held[args[0]], args[1])
    elif kind == "override":
        flags.override_value(held[args[0]], args[1])
    elif kind == "holder":
        holder = held[args[0]]
        return {"name": holder.name, "value": plain(holder.value),
                "default": plain(holder.default), "present": holder.present,
                "serialized": holder.serialize()}
    elif kind == "parse":
        return fv(["prog", *args])
    elif kind == "unparse":
        fv.unparse_flags()
        return {"parsed": fv.is_parsed(), "values": _values(fv)}
    elif kind == "declare_key":
        flags.declare_key_flag(held.get(args[0], args[0]), flag_values=fv)
    elif kind == "adopt":
        flags.adopt_module_key_flags(types.ModuleType(args[0]) if args[0] else "other_mod",
                                     flag_values=fv)
    elif kind == "serialize":
        return {"each": {name: fv[name].serialize() for name in fv},
                "string": fv.flags_into_string()}
    elif kind == "key_flags":
        return {module: [flag.name for flag in fv.get_key_flags_for_module(module)]
                for module in (__name__, "other_mod")} | {
            "defined_by": {name: fv.find_module_defining_flag(name) for name in fv}}
    return None


def plain(value):
    """``value`` as JSON: an enum member as "Color.RED"."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def _values(fv):
    return {name: plain(fv[name].value) for name in fv}


def run_case(flags, case, folder):
    """The steps' outcomes of ``case`` on ``flags`` (absl's or ds.flags), its flag
    files written in ``folder`` (which messages name as "{dir}")."""
    definitions, argv, actions, _ = case
    for name, text in FILES.items():
        with open(os.path.join(folder, name), "w") as file:
            file.write(text.replace("{dir}", folder))
    argv = [arg.replace("{dir}", folder) for arg in argv]
    fv = flags.FlagValues()
    steps, held = [], {}
    calls = [("define", lambda: definitions(flags, fv)),
             ("parse", lambda: fv(["prog", *argv]))]
    calls += [(action, lambda action=action: _act(flags, fv, held, action))
              for action in actions]
    for what, call in calls:
        try:
            result = call()
        except Exception as e:          # noqa: BLE001 - the class is what is recorded
            steps.append({"step": str(what), "error": type(e).__name__,
                          "message": str(e).replace(folder, "{dir}")})
            break
        if what == "define":
            held.update(result or {})
            steps.append({"step": "define"})
        elif what == "parse":
            steps.append({"step": "parse", "values": _values(fv),
                          "rest": [arg.replace(folder, "{dir}") for arg in result[1:]],
                          "present": {name: int(fv[name].present) for name in fv}})
        else:
            steps.append({"step": str(what), "values": _values(fv), "result": result})
    return steps


FILES = {
    "a.flags": "# comment\n--steps=7\n\n// another comment\n--tag=x\n--fast\n",
    "b.flags": "--tag=y\n--flagfile={dir}/a.flags\n--steps=8\n",
    "loop.flags": "--steps=9\n--flagfile={dir}/loop.flags\n",
    "bad.flags": "--steps=many\n",
}

CASES = {
    # multi flags: no occurrence, one, several; defaults a value or a list
    "multi/none": (multi, [], [], "exact"),
    "multi/one_each": (multi, ["--n=4", "--m=7", "--k", "0", "--x=1e-3", "--e=C",
                               "--ei=b", "--c=RED", "--cd=green", "--s="], [], "exact"),
    "multi/several": (multi, ["--n=1", "--n", "-2", "--c=blue", "--c", "Red", "--e=a",
                              "--e=b", "--s=a,b", "--s=c"], [], "exact"),
    "multi/holders": (multi, ["--n=1"], [("holder", "n"), ("holder", "m"), ("holder", "cd"),
                                         ("holder", "s")], "exact"),
    "multi/comma_is_one_value": (multi, ["--n=1,2"], [], "prefix"),
    "multi/bad_int": (multi, ["--n=1", "--n=x"], [], "prefix"),
    "multi/below_bound": (multi, ["--k=1", "--k=-1"], [], "prefix"),
    "multi/bad_enum": (multi, ["--e=c"], [], "prefix"),
    "multi/bad_enum_class": (multi, ["--c=purple"], [], "prefix"),
    "multi/set_default_value": (multi, [], [("set_default", "m", 8), ("set_default", "n",
                                                                      ["3", 4])], "exact"),
    "multi/set_default_given": (multi, ["--n=1"], [("set_default", "n", [5])], "exact"),
    "multi/override": (multi, [], [("override", "n", [1, 2]), ("holder", "n")], "exact"),
    # enum_class
    "enum_class/defaults": (enum_class, [], [], "exact"),
    "enum_class/names": (enum_class, ["--color=BLUE", "--shade=GREEN", "--tone=red"], [],
                         "exact"),
    "enum_class/exact_case": (enum_class, ["--shade=green"], [], "prefix"),
    "enum_class/unknown": (enum_class, ["--color=purple"], [], "prefix"),
    "enum_class/bad_default": (bad_enum_class_default, [], [], "prefix"),
    "enum_class/holder": (enum_class, ["--color=green"], [("holder", "color"),
                                                           ("override", "tone", Color.BLUE),
                                                           ("holder", "tone")], "exact"),
    # spaceseplist
    "spaceseplist/defaults": (spaceseplist, [], [], "exact"),
    "spaceseplist/given": (spaceseplist, ["--words= x  y\tz ", "--wc=a,b c", "--wl="], [],
                           "exact"),
    "spaceseplist/no_comma_split": (spaceseplist, ["--words=a,b c"], [], "exact"),
    # aliases
    "alias/none": (alias, [], [], "exact"),
    "alias/through_alias": (alias, ["--s=5", "--t=a", "--quick"], [], "exact"),
    "alias/both_names": (alias, ["--steps=1", "--s=2", "--tag=a", "--t=b", "--tag=c",
                                 "--noquick"], [], "exact"),
    "alias/separate_value": (alias, ["--s", "6"], [("holder", "s")], "exact"),
    "alias/assign": (alias, [], [("set", "s", 11)], "exact"),
    "alias/parsed_again": (alias, ["--t=a", "--steps=2"], [("parse", "--s=4", "x"),
                                                          ("unparse",),
                                                          ("parse", "--tag=c")], "exact"),
    "alias/bad_value": (alias, ["--s=x"], [], "prefix"),
    "alias/of_nothing": (alias_of_nothing, [], [], "exact"),
    "alias/taken": (alias_taken, [], [], "sentence"),
    # validators
    "validators/pass": (validators, [], [], "exact"),
    "validators/fail_at_parse": (validators, ["--batch=0"], [], "exact"),
    "validators/raise_at_parse": (validators, ["--mode=bad"], [], "exact"),
    "validators/two_fail": (validators, ["--mode=bad", "--batch=-3"], [], "exact"),
    "validators/multi_fail": (validators, ["--lo=5", "--hi=1"], [], "exact"),
    "validators/default_message": (validators, ["--plain=no"], [], "exact"),
    "validators/assign_ok": (validators, [], [("set", "batch", 4), ("set", "lo", 10)],
                             "exact"),
    "validators/assign_fails": (validators, [], [("set", "batch", 8), ("set", "batch", -1)],
                                "exact"),
    "validators/assign_multi_fails": (validators, ["--hi=4"], [("set", "lo", 5)], "exact"),
    "validators/set_default_fails": (validators, [], [("set_default", "batch", 0)],
                                     "exact"),
    "validators/set_default_ok": (validators, [], [("set_default", "batch", 64),
                                                   ("holder", "batch")], "exact"),
    "validators/set_default_given": (validators, ["--batch=5"], [
        ("set_default", "batch", 64), ("holder", "batch")], "exact"),
    "validators/set_default_assigned": (validators, [], [
        ("set", "batch", 7), ("set_default", "batch", 64), ("holder", "batch")], "exact"),
    "validators/override_fails": (validators, [], [("override", "batch", -2)], "exact"),
    "validators/override_unparsed": (validators, [], [("override", "batch", "3")],
                                     "exact"),
    # mutual exclusion
    "exclusive/none": (exclusive, [], [], "exact"),
    "exclusive/one": (exclusive, ["--b=v"], [], "exact"),
    "exclusive/two": (exclusive, ["--a=u", "--c=0"], [], "exact"),
    "exclusive/assign_second": (exclusive, ["--a=u"], [("set", "b", "w")], "exact"),
    "exclusive/assign_swap": (exclusive, ["--a=u"], [("set", "a", None), ("set", "b", "w")],
                              "exact"),
    "exclusive/default_counts": (exclusive_with_default, ["--b=v"], [], "exact"),
    "exclusive/empty_list": (exclusive_of_nothing, [], [], "exact"),
    "exclusive_required/none": (exclusive_required, [], [], "exact"),
    "exclusive_required/one": (exclusive_required, ["--y=1"], [], "exact"),
    "exclusive_required/both": (exclusive_required, ["--x=1", "--y=2"], [], "exact"),
    "bool_exclusive/none": (bool_exclusive, [], [], "exact"),
    "bool_exclusive/one": (bool_exclusive, ["--q", "--nop"], [], "exact"),
    "bool_exclusive/two": (bool_exclusive, ["--p", "--r=true"], [], "exact"),
    "bool_exclusive/assign": (bool_exclusive, ["--p"], [("set", "q", True)], "exact"),
    "bool_exclusive_required/none": (bool_exclusive_required, [], [], "exact"),
    "bool_exclusive_required/one": (bool_exclusive_required, ["--p"], [], "exact"),
    "bool_exclusive/not_bool": (bool_exclusive_not_bool, [], [], "exact"),
    # required
    "required/missing": (required, ["--other=2"], [], "exact"),
    "required/given": (required, ["--need=x"], [("holder", "need")], "exact"),
    "required/assign_none": (required, ["--need=x"], [("set", "need", None)], "exact"),
    "required/with_default": (required_with_default, [], [], "exact"),
    "required/marked": (marked_required, [], [], "exact"),
    "required/marked_given": (marked_required, ["--need=0"], [], "exact"),
    # FlagHolder, bounds on assignment, set_default / override_value
    "holder/defaults": (basic, [], [("holder", "steps"), ("holder", "fast"),
                                    ("holder", "tags"), ("holder", "layers")], "exact"),
    "holder/given": (basic, ["--steps=4", "--nofast", "--tags=y"],
                     [("holder", "steps"), ("holder", "fast"), ("holder", "tags")], "exact"),
    "holder/none_for_non_none_default": (basic, [], [("set", "steps", None),
                                                     ("holder", "steps")], "exact"),
    "holder/none_default_may_stay_none": (basic, [], [("holder", "fast"),
                                                      ("set", "fast", True),
                                                      ("holder", "fast")], "exact"),
    "holder/unparse": (basic, ["--steps=9", "--tags=z"], [("unparse",)], "exact"),
    "bounds/assign_below": (basic, [], [("set", "steps", -1)], "prefix"),
    "bounds/assign_above": (basic, [], [("set", "lr", 1.5)], "prefix"),
    "bounds/assign_inside": (basic, [], [("set", "steps", 0), ("set", "lr", 1.0)], "exact"),
    "set_default/parsed_from_text": (basic, [], [("set_default", "steps", "12"),
                                                 ("set_default", "layers", "p,q"),
                                                 ("holder", "steps")], "exact"),
    "set_default/bad": (basic, [], [("set_default", "steps", "x")], "prefix"),
    "set_default/out_of_bounds": (basic, [], [("set_default", "steps", -4)], "prefix"),
    "override/value": (basic, ["--steps=4"], [("override", "steps", 6), ("holder", "steps"),
                                             ("override", "tags", ["a", "b"]),
                                             ("override", "fast", False)], "exact"),
    "override/text_for_int": (basic, [], [("override", "steps", "6")], "exact"),
    "override/list_as_text": (basic, [], [("override", "layers", "a,b")], "exact"),
    "override/bad": (basic, [], [("override", "steps", "x")], "prefix"),
    "method_name": (method_name, [], [], "sentence"),
    # --flagfile
    "flagfile/equals": (alias, ["--flagfile={dir}/a.flags"], [], "exact"),
    "flagfile/separate": (alias, ["--flagfile", "{dir}/a.flags", "--steps=1"], [], "exact"),
    "flagfile/one_dash": (alias, ["-flagfile={dir}/a.flags"], [], "exact"),
    "flagfile/nested": (alias, ["--tag=w", "--flagfile={dir}/b.flags", "pos"], [], "exact"),
    "flagfile/later_wins": (alias, ["--flagfile={dir}/a.flags", "--steps=2", "--nofast"], [],
                            "exact"),
    "flagfile/loop": (alias, ["--flagfile={dir}/loop.flags"], [], "exact"),
    "flagfile/missing": (alias, ["--flagfile={dir}/missing.flags"], [], "exact"),
    "flagfile/no_path": (alias, ["--steps=1", "--flagfile"], [], "exact"),
    "flagfile/empty_path": (alias, ["--flagfile=", "--steps=4"], [], "exact"),
    "flagfile/bad_value": (alias, ["--flagfile={dir}/bad.flags"], [], "prefix"),
    "flagfile/after_dashdash": (alias, ["--", "--flagfile={dir}/a.flags"], [], "exact"),
    "flagfile/as_a_value": (alias, ["--tag", "x", "--flagfile={dir}/a.flags"], [], "exact"),
    # serializing: Flag.serialize, FlagHolder.serialize, FlagValues.flags_into_string
    "serialize/defaults": (every_type, [], [("serialize",), ("holder", "c")], "exact"),
    "serialize/given": (every_type, ["--s=", "--i=-7", "--noyes", "--no", "--l=", "--ms=z",
                                     "--mc=green", "--mi=0", "--f=1e300", "--none=n"],
                        [("serialize",)], "exact"),
    "serialize/assigned": (every_type, [], [("set", "f", 2), ("set", "l", [1, 2]),
                                            ("set", "yes", None), ("serialize",)], "exact"),
    # DEFINE / DEFINE_multi with a parser of one's own
    "custom/defaults": (custom, [], [("holder", "pair"), ("holder", "pairs")], "exact"),
    "custom/given": (custom, ["--pair=5:6", "--pairs", "7:8", "--pairs=9:10", "--raw=x",
                              "--bare=0:0"], [("holder", "pair"), ("holder", "raw")],
                     "exact"),
    "custom/bad": (custom, ["--pair=5"], [], "exact"),
    "custom/bad_multi": (custom, ["--pairs=1:2", "--pairs=x:1"], [], "exact"),
    "custom/override_not_a_string": (custom, [], [("override", "raw", 3)], "exact"),
    "custom/no_serializer": (custom, ["--bare=1:1"], [("holder", "bare")], "exact"),
    "custom/no_serializer_multi": (custom, [], [("holder", "bares")], "exact"),
    # short names
    "short/none": (short_names, [], [("serialize",)], "exact"),
    "short/short": (short_names, ["-o", "x", "-v", "-t=a", "--t", "b", "-c=GREEN"],
                    [("holder", "output"), ("holder", "tag")], "exact"),
    "short/both": (short_names, ["--output=y", "--o=z", "--tag=a", "-t", "b", "--nov"],
                   [("serialize",)], "exact"),
    "short/negated": (short_names, ["--verbose", "--nov"], [], "exact"),
    "short/assign": (short_names, [], [("set", "o", "w"), ("holder", "output")], "exact"),
    "short/unparse": (short_names, ["-o", "x", "-t", "a"], [("unparse",)], "exact"),
    "short/taken": (short_name_taken, [], [], "sentence"),
    # --undefok
    "undefok/listed": (alias, ["--undefok=foo, bar", "--foo=1", "--nobar", "pos", "--bar",
                               "-foo", "--steps=2"], [], "exact"),
    "undefok/separate": (alias, ["--undefok", "foo", "--foo", "x"], [], "exact"),
    "undefok/one_dash": (alias, ["-undefok=foo", "-foo=3"], [], "exact"),
    "undefok/not_listed": (alias, ["--undefok=foo", "--baz=1"], [], "start"),
    "undefok/missing_value": (alias, ["--undefok"], [], "subclass"),
    # key flags
    "key_flags/defined": (key_flags, [], [("key_flags",)], "exact"),
    "key_flags/declared": (key_flags, [], [("declare_key", "theirs"), ("key_flags",)],
                           "exact"),
    "key_flags/adopted": (key_flags, [], [("adopt", "other_mod"), ("key_flags",)], "exact"),
    "key_flags/undefined": (key_flags, [], [("declare_key", "nope")], "exact"),
    "key_flags/adopt_a_name": (key_flags, [], [("adopt", "")], "exact"),
}


# --- absl's text helpers --------------------------------------------------------------------

LONG = ("Number of batches to run; a long sentence that needs wrapping at a narrow "
        "width.\n\n\tTab\tsecond paragraph.\n   \nlast")

HELPERS = {
    "text_wrap/20": lambda flags: flags.text_wrap(LONG, 20),
    "text_wrap/indents": lambda flags: flags.text_wrap(LONG, 30, "  ", "* "),
    "text_wrap/empty": lambda flags: flags.text_wrap("", 10),
    "text_wrap/indent_too_long": lambda flags: flags.text_wrap("x", 4, "    "),
    "text_wrap/first_indent_too_long": lambda flags: flags.text_wrap("x", 4, "", "-----"),
    "doc_to_help/docstring": lambda flags: flags.doc_to_help(
        "  Summary line.\n\n    Body that\n    continues here.\n      Indented kept.\n"
        "    \n    Last paragraph\n    ends.\n  "),
    "doc_to_help/one_line": lambda flags: flags.doc_to_help("Just this."),
    "doc_to_help/empty": lambda flags: flags.doc_to_help(""),
    "flag_dict_to_args": lambda flags: list(flags.flag_dict_to_args(
        {"a": None, "b": True, "c": False, "d": "x y", "e": [1, 2], "f": ("u",),
         "g": 3.5, "h": [], "m": ["p", "q"], "s": b"raw"}, multi_flags={"m"})),
    "flag_dict_to_args/no_multi": lambda flags: list(flags.flag_dict_to_args(
        {"m": ["p", "q"], "n": 0})),
}


def run_helper(flags, name):
    try:
        return {"value": HELPERS[name](flags)}
    except Exception as e:              # noqa: BLE001 - the class is what is recorded
        return {"error": type(e).__name__, "message": str(e)}
