"""The rest of absl's flags in ``ds.flags`` (TF1's ``tf.flags``): multi and enum_class
flags, aliases, validators, mutual exclusion, ``required``, ``FlagHolder``,
``set_default``/``override_value``, ``--flagfile``, key flags and the text helpers,
compared with absl-py 2.5.1 on the cases of tests/data/absl_flags_cases.py (recorded in
tests/data/absl_flags.json by tests/data/make_absl_flags.py): the same values, how
often each flag was given, error classes and the part of each message the case names
(all of it, or the part naming the flag and its value where devsession's parsers word
the reason their own way)."""

from __future__ import annotations

import json
import pathlib
import sys
import types

import pytest

import devsession as ds
from devsession import flags as F
from absl_flags_cases import CASES, HELPERS, Color, run_case, run_helper

RECORDED = json.loads(pathlib.Path(__file__).with_name("data").joinpath(
    "absl_flags.json").read_text())


def _key(message: str, mode: str) -> str:
    if mode == "prefix":
        return message.split(": ")[0]
    if mode == "sentence":
        return message.split(".")[0]
    return message


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_case_runs_as_in_absl(name, tmp_path):
    mode = CASES[name][3]
    ours, theirs = run_case(F, CASES[name], str(tmp_path)), RECORDED["cases"][name]
    assert [step["step"] for step in ours] == [step["step"] for step in theirs]
    for mine, absl in zip(ours, theirs):
        if mode == "subclass" and "error" in absl:   # devsession's is a kind of absl's
            assert issubclass(getattr(F, mine["error"]), getattr(F, absl["error"]))
            mine = mine | {"error": absl["error"]}
        assert mine.get("error") == absl.get("error"), (mine, absl)
        if "error" in absl and mode == "start":
            assert mine["message"].startswith(absl["message"]), (mine, absl)
        elif "error" in absl:
            assert _key(mine["message"], mode) == _key(absl["message"], mode)
        else:
            assert mine == absl


def test_every_recorded_case_is_run():
    assert sorted(RECORDED["cases"]) == sorted(CASES)
    assert sorted(RECORDED["helpers"]) == sorted(HELPERS)


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_the_text_helpers_give_absls_text(name):
    assert run_helper(F, name) == RECORDED["helpers"][name]


# --- what the recording does not show ------------------------------------------------------

def test_every_name_is_in_both_namespaces():
    for name in ("DEFINE_multi_integer", "DEFINE_multi_float", "DEFINE_multi_enum",
                 "DEFINE_multi_enum_class", "DEFINE_enum_class", "DEFINE_spaceseplist",
                 "DEFINE_alias", "register_validator", "validator",
                 "register_multi_flags_validator", "multi_flags_validator",
                 "mark_flags_as_mutual_exclusive", "mark_bool_flags_as_mutual_exclusive",
                 "ValidationError", "CantOpenFlagFileError",
                 "FlagNameConflictsWithMethodError", "set_default", "override_value",
                 "FlagHolder", "declare_key_flag", "adopt_module_key_flags",
                 "disclaim_key_flags", "flag_dict_to_args", "get_help_width", "text_wrap",
                 "doc_to_help", "DEFINE", "DEFINE_multi", "ArgumentParser",
                 "ArgumentSerializer"):
        assert name in F.__all__
        assert getattr(ds.flags, name) is getattr(ds.app.flags, name)
    assert issubclass(F.ValidationError, F.Error)
    assert issubclass(F.CantOpenFlagFileError, F.Error)


def test_a_failed_parse_or_assignment_changes_nothing():
    """absl leaves a rejected command line's values set; devsession puts them back."""
    fv = F.FlagValues()
    F.DEFINE_integer("lo", 0, "Low.", flag_values=fv)
    F.DEFINE_integer("hi", 10, "High.", flag_values=fv)
    F.register_multi_flags_validator(["lo", "hi"], lambda v: v["lo"] <= v["hi"],
                                     flag_values=fv)
    with pytest.raises(F.IllegalFlagValueError, match="flags lo=5, hi=1: Flags validation"):
        fv(["prog", "--lo=5", "--hi=1"])
    assert (fv["lo"].value, fv["hi"].value, fv["lo"].present) == (0, 10, 0)
    assert not fv.is_parsed()
    fv(["prog", "--hi=4"])
    with pytest.raises(F.IllegalFlagValueError):
        fv.lo = 5
    assert fv.lo == 0 and fv["lo"].using_default_value
    with pytest.raises(F.IllegalFlagValueError):
        F.set_default(F.FlagHolder(fv, fv["lo"]), 7)
    assert (fv["lo"].default, fv.lo) == (0, 0)


def test_a_checker_that_raises_something_else_propagates_and_changes_nothing():
    fv = F.FlagValues()
    holder = F.DEFINE_string("name", "a", "Name.", flag_values=fv)

    @F.validator(holder)
    def _broken(value):
        raise KeyError(value)

    with pytest.raises(KeyError):
        fv(["prog", "--name=b"])
    assert fv["name"].value == "a"


def test_the_holder_is_not_its_value():
    fv = F.FlagValues()
    holder = F.DEFINE_integer("steps", 3, "Steps.", flag_values=fv)
    assert isinstance(holder, F.FlagHolder) and holder.name == "steps"
    with pytest.raises(TypeError, match="did you mean to use 'FlagHolder.value'"):
        holder == 3  # noqa: B015
    with pytest.raises(TypeError, match="bool\\(\\) not supported"):
        bool(holder)
    with pytest.raises(F.UnparsedFlagAccessError):
        holder.value  # noqa: B018
    assert holder.default == 3 and holder.present is False


def test_a_holder_of_one_flag_values_cannot_be_checked_in_another():
    one, other = F.FlagValues(), F.FlagValues()
    holder = F.DEFINE_string("a", None, "A.", flag_values=one)
    F.DEFINE_string("b", None, "B.", flag_values=other)
    with pytest.raises(ValueError, match="flag_values must not be customized"):
        F.register_validator(holder, bool, flag_values=other)
    with pytest.raises(ValueError, match="multiple FlagValues instances"):
        F.mark_flags_as_mutual_exclusive([holder, "b"], flag_values=other)
    with pytest.raises(KeyError):
        F.register_validator("nope", bool, flag_values=one)


def test_marking_a_flag_with_a_default_as_required_warns_as_absl():
    fv = F.FlagValues()
    F.DEFINE_integer("n", 1, "N.", flag_values=fv)
    with pytest.warns(UserWarning, match="non-None default value; therefore"):
        F.mark_flag_as_required("n", flag_values=fv)
    with pytest.warns(UserWarning, match="does not make sense with mark_flags_as_mutual"):
        F.mark_flags_as_mutual_exclusive(["n"], flag_values=fv)


def test_enum_class_and_multi_flags_in_help():
    fv = F.FlagValues()
    F.DEFINE_enum_class("color", Color.RED, Color, "Color.", flag_values=fv)
    F.DEFINE_multi_enum_class("cs", ["red", Color.BLUE], Color, "Colors.", flag_values=fv)
    F.DEFINE_multi_integer("n", [1, 2], "Ns.", flag_values=fv)
    text = fv.get_help("p")
    assert "Color. (default: 'RED', one of <red|green|blue>)" in text
    assert "(default: 'RED,BLUE', one of <red|green|blue>; repeat it" in text
    assert "(default: '1,2', an integer; repeat it for a list)" in text


def test_enum_class_checks_its_class_when_defined():
    class Empty(__import__("enum").Enum):
        pass

    class Twice(__import__("enum").Enum):
        a = 1
        A = 2

    with pytest.raises(TypeError, match="is not a subclass of Enum"):
        F.DEFINE_enum_class("x", None, str, "X.", flag_values=F.FlagValues())
    with pytest.raises(ValueError, match="enum_class cannot be empty"):
        F.DEFINE_enum_class("x", None, Empty, "X.", flag_values=F.FlagValues())
    with pytest.raises(ValueError, match="Duplicate enum values for {'a'}"):
        F.DEFINE_multi_enum_class("x", None, Twice, "X.", flag_values=F.FlagValues())
    fv = F.FlagValues()
    F.DEFINE_enum_class("x", None, Twice, "X.", case_sensitive=True, flag_values=fv)
    fv(["prog", "--x=A"])
    assert fv.x is Twice.A


def test_get_help_width_follows_the_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "123")
    assert F.get_help_width() == 123
    assert F.text_wrap("a b c d", None) == "a b c d"


def test_disclaim_key_flags_gives_a_wrappers_flags_to_its_caller():
    """A module of DEFINE_* wrappers that disclaims key flags: flags its wrappers
    define belong to the module that called the wrapper."""
    wrappers, fv = types.ModuleType("flag_wrappers_for_test"), F.FlagValues()
    wrappers.FV = fv
    sys.modules[wrappers.__name__] = wrappers
    try:
        exec("import devsession.flags as F\n"
             "def define_port(name, fv):\n"
             "    return F.DEFINE_integer(name, 80, 'A port.', flag_values=fv)\n"
             "define_port('before', FV)\n"
             "F.disclaim_key_flags()\n", wrappers.__dict__)
        wrappers.define_port("after", fv)
    finally:
        del sys.modules[wrappers.__name__]
        F._DISCLAIMED.discard(wrappers.__name__)
    assert fv.find_module_defining_flag("before") == "flag_wrappers_for_test"
    assert fv.find_module_defining_flag("after") == __name__
    assert [f.name for f in fv.get_key_flags_for_module(sys.modules[__name__])] == ["after"]


def test_deleting_a_flag_forgets_its_module():
    fv = F.FlagValues()
    F.DEFINE_string("gone", "x", "Gone.", flag_values=fv)
    F.declare_key_flag("gone", flag_values=fv)
    del fv.gone
    assert fv.get_key_flags_for_module(__name__) == []
    assert fv.find_module_defining_flag("gone", "none") == "none"


def test_the_global_flags_take_a_flagfile(tmp_path, monkeypatch):
    from test_tf1_flags import restored_global_flags

    path = tmp_path / "run.flags"
    path.write_text("--utility_more_steps=5\n")
    with restored_global_flags() as flags:
        flags.unparse_flags()
        holder = ds.app.flags.DEFINE_integer("utility_more_steps", 1, "Steps.")
        monkeypatch.setattr(sys, "argv", ["prog", f"--flagfile={path}"])
        assert holder.value == 5 and holder.present


def test_help_groups_the_flags_by_module_and_module_help_lists_key_flags():
    fv = F.FlagValues()
    F.DEFINE_integer("mine", 3, "Mine.", flag_values=fv)
    F.DEFINE_enum_class("theirs", "red", Color, "Theirs.", flag_values=fv,
                        module_name="other_mod")
    F.DEFINE_enum_class("unread", "red", Color, "Not key here.", flag_values=fv,
                        module_name="other_mod")
    sections = {part.split(":\n")[0]: part for part in fv.get_help("prog").split("\n\n")}
    assert "--mine" in sections[__name__] and "--theirs" not in sections[__name__]
    assert "--theirs" in sections["other_mod"] and "--unread" in sections["other_mod"]
    F.declare_key_flag("theirs", flag_values=fv)
    here = fv.module_help(sys.modules[__name__])
    assert "--mine" in here and "--theirs" in here and "--unread" not in here
    assert "Theirs. (default: 'RED', one of <red|green|blue>)" in here
    assert "--mine" not in fv.module_help("other_mod")


def test_flags_written_into_a_file_read_back_with_flagfile(tmp_path):
    def defined():
        fv = F.FlagValues()
        F.DEFINE_list("layers", ["a"], "Layers.", flag_values=fv)
        F.DEFINE_multi_enum_class("colors", None, Color, "Colors.", flag_values=fv)
        F.DEFINE_boolean("fast", True, "Fast.", flag_values=fv)
        F.DEFINE_float("lr", 0.1, "Rate.", flag_values=fv)
        return fv

    first, path = defined(), tmp_path / "saved.flags"
    first(["prog", "--layers=x,\"y,z\"", "--colors=red", "--colors=BLUE", "--nofast",
           "--lr=3e-4"])
    path.write_text("# saved\n")
    first.append_flags_into_file(str(path))
    second = defined()
    second(["prog", f"--flagfile={path}"])
    assert second.flag_values_dict() == first.flag_values_dict()
    assert second.colors == [Color.RED, Color.BLUE] and second.layers == ["x", "y,z"]


def test_an_alias_on_the_command_line_counts_as_its_original_given():
    """absl's alias leaves the original "using its default", so that a later
    set_default replaces what --alias gave, and unparse_flags puts back the default the
    alias saw when defined; here the original is given, and its own default comes back."""
    fv = F.FlagValues()
    steps = F.DEFINE_integer("steps", 3, "Steps.", flag_values=fv)
    F.DEFINE_alias("s", "steps", flag_values=fv)
    fv(["prog", "--s=5"])
    F.set_default(steps, 10)
    assert fv.steps == 5 and steps.present
    fv.unparse_flags()
    fv.mark_as_parsed()
    assert fv.steps == 10 and fv.s == 10 and not fv["s"].present


def test_app_run_reports_a_failed_validator_and_reads_a_flagfile(tmp_path, capsys):
    from test_tf1_flags import restored_global_flags

    path = tmp_path / "run.flags"
    path.write_text("--utility_more_train=/t\n")
    with restored_global_flags():
        ds.flags.DEFINE_string("utility_more_train", None, "Train dir.")
        ds.flags.DEFINE_string("utility_more_eval", None, "Eval dir.")
        ds.flags.mark_flags_as_mutual_exclusive(["utility_more_train", "utility_more_eval"],
                                                required=True)
        with pytest.raises(SystemExit) as info:
            ds.app.run(lambda argv: 0, argv=["prog", f"--flagfile={path}",
                                             "--utility_more_eval=/e"])
        assert info.value.code == 1
        assert ("FATAL Flags parsing error: flags utility_more_train=/t, "
                "utility_more_eval=/e: Exactly one of") in capsys.readouterr().err
        seen = []
        with pytest.raises(SystemExit) as info:
            ds.app.run(lambda argv: seen.append(ds.flags.FLAGS.utility_more_train),
                       argv=["prog", f"--flagfile={path}", "--undefok=gone", "--gone"])
        assert info.value.code is None and seen == ["/t"]


def test_a_short_name_is_in_help_once_and_deleting_one_name_keeps_the_other():
    fv = F.FlagValues()
    F.DEFINE_string("output", "out", "Where.", short_name="o", flag_values=fv)
    text = fv.get_help("prog")
    assert "-o , --output" in text and text.count("Where.") == 1
    del fv.o
    assert "o" not in fv and fv.find_module_defining_flag("output") == __name__
    del fv.output
    assert fv.find_module_defining_flag("output") is None


def test_parsing_again_replaces_a_multi_flags_values():
    """absl's second FLAGS(argv) adds a multi flag's values to the first's; TF1's
    global FLAGS parses sys.argv when first read and again in tf.app.run, which would
    give every value twice, so here the second parse's values replace the first's."""
    fv = F.FlagValues()
    F.DEFINE_multi_string("tag", None, "Tags.", flag_values=fv)
    fv(["prog", "--tag=a"])
    fv(["prog", "--tag=a"])
    assert fv.tag == ["a"] and fv["tag"].present == 2
