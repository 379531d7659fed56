"""``ds.flags`` and ``ds.app.run`` (TF1's ``tf.flags`` / ``tf.app``, absl's behaviour),
on fresh ``FlagValues`` so that no test sees another's flags; the tests of the global
``FLAGS`` restore it (``global_flags``)."""

from __future__ import annotations

import contextlib
import sys
import types

import pytest

import devsession as ds
from devsession import flags as F
from devsession.unsupported import UnsupportedTF1Error


@pytest.fixture
def fv():
    values = F.FlagValues()
    F.DEFINE_string("name", "alice", "Who.", flag_values=values)
    F.DEFINE_integer("steps", 3, "How many steps.", lower_bound=0, flag_values=values)
    F.DEFINE_float("lr", 0.1, "Learning rate.", flag_values=values)
    F.DEFINE_boolean("fast", False, "Go fast.", flag_values=values)
    F.DEFINE_bool("cache", True, "Cache things.", flag_values=values)
    F.DEFINE_list("layers", "a,b", "Layer names.", flag_values=values)
    F.DEFINE_enum("mode", "train", ["train", "eval"], "What to do.", flag_values=values)
    F.DEFINE_multi_string("tag", None, "Tags.", flag_values=values)
    return values


@contextlib.contextmanager
def restored_global_flags():
    """ds.flags.FLAGS as it was, after the block (its flags, their values, the required
    ones, whether it was parsed)."""
    saved = dict(F.FLAGS._flags), F.FLAGS.is_parsed()
    required = list(F.FLAGS._required)
    values = {name: (flag.value, flag.present) for name, flag in F.FLAGS._flags.items()}
    try:
        yield F.FLAGS
    finally:
        F.FLAGS._flags.clear()
        F.FLAGS._flags.update(saved[0])
        for name, (value, present) in values.items():
            F.FLAGS[name].value, F.FLAGS[name].present = value, present
        F.FLAGS.__dict__["_parsed"] = saved[1]
        F.FLAGS._required[:] = required


@pytest.fixture
def global_flags():
    with restored_global_flags() as flags:
        yield flags


def test_the_global_flags_are_restored_with_their_required_ones():
    with restored_global_flags():
        F.DEFINE_string("needed_in_one_test", None, "Required here only.")
        F.mark_flag_as_required("needed_in_one_test")
    assert "needed_in_one_test" not in F.FLAGS._flags
    assert "needed_in_one_test" not in F.FLAGS._required


def test_the_namespaces_are_tf1s():
    assert ds.flags is F and ds.app.flags is F
    assert ds.app.flags.FLAGS is ds.flags.FLAGS
    assert callable(ds.app.run)


def test_defaults_are_readable_before_parsing_as_flag_objects(fv):
    assert fv["steps"].default == 3 and fv["layers"].default == ["a", "b"]
    assert fv["tag"].default is None and fv["fast"].help == "Go fast."
    assert fv(["prog"]) == ["prog"]
    assert fv.flag_values_dict() == {"name": "alice", "steps": 3, "lr": 0.1, "fast": False,
                                     "cache": True, "layers": ["a", "b"], "mode": "train",
                                     "tag": None}


def test_every_type_parses_with_equals_or_a_separate_value(fv):
    rest = fv(["prog", "--name=bob", "--steps", "7", "--lr=-0.5", "--layers=x, y,z",
               "--mode", "eval", "--tag=a", "--tag", "b", "-fast"])
    assert rest == ["prog"]
    assert (fv.name, fv.steps, fv.lr, fv.fast, fv.layers, fv.mode, fv.tag) == \
        ("bob", 7, -0.5, True, ["x", "y", "z"], "eval", ["a", "b"])
    assert type(fv.steps) is int and type(fv.lr) is float


@pytest.mark.parametrize("args, fast, cache", [
    (["--fast", "--nocache"], True, False),
    (["--fast=false", "--cache=true"], False, True),
    (["--fast=T", "--cache=0"], True, False),
    (["--fast=1", "--nofast"], False, True),          # the last one wins
])
def test_booleans_take_no_prefix_and_explicit_values(fv, args, fast, cache):
    fv(["prog", *args])
    assert (fv.fast, fv.cache) == (fast, cache)


def test_a_boolean_does_not_swallow_the_next_argument(fv):
    assert fv(["prog", "--fast", "false"]) == ["prog", "false"]
    assert fv.fast is True


def test_flags_not_given_keep_their_values_and_an_empty_list_is_empty(fv):
    fv(["prog", "--steps=5"])
    fv(["prog", "--layers="])
    assert fv.steps == 5 and fv.layers == []


def test_positional_arguments_and_what_follows_dashdash_are_returned(fv):
    rest = fv(["prog", "in.txt", "--steps=2", "out.txt", "--", "--steps=9", "x"])
    assert rest == ["prog", "in.txt", "out.txt", "--steps=9", "x"]
    assert fv.steps == 2


def test_known_only_passes_unknown_flags_on(fv):
    rest = fv(["prog", "--other=1", "--steps", "4", "--more", "v", "--", "z"],
              known_only=True)
    assert rest == ["prog", "--other=1", "--more", "v", "--", "z"]
    assert fv.steps == 4


def test_an_unknown_flag_is_an_error_naming_it(fv):
    with pytest.raises(F.UnrecognizedFlagError, match=r"Unknown command line flag "
                                                      r"'learning_rate'.*--steps"):
        fv(["prog", "--steps=1", "--learning_rate=0.3"])
    assert isinstance(F.UnrecognizedFlagError("x"), ValueError)


@pytest.mark.parametrize("arg, words", [
    ("--mode=test", r"flag --mode=test: 'test' is not one of <train\|eval>"),
    ("--steps=abc", r"flag --steps=abc: 'abc' is not an integer"),
    ("--steps=-1", r"flag --steps=-1: -1 is outside \[0, None\]"),
    ("--lr=fast", r"flag --lr=fast: 'fast' is not a number"),
    ("--fast=yes", r"flag --fast=yes: 'yes' is not a boolean"),
    ("--nofast=1", r"--nofast=1: a --no<flag> takes no value"),
    ("--steps", r"Missing value for flag --steps"),          # absl's text
])
def test_a_bad_value_names_the_flag_and_changes_nothing(fv, arg, words):
    with pytest.raises(F.IllegalFlagValueError, match=words):
        fv(["prog", "--name=bob", arg])
    assert fv["name"].value == "alice" and not fv.is_parsed()


@pytest.mark.parametrize("args, name, steps, rest", [     # absl-py's results
    (["--name", "-x"], "-x", 3, []),
    (["--name", "--steps=7"], "--steps=7", 3, []),
    (["-name", "--steps=7"], "--steps=7", 3, []),
    (["--name", "--"], "--", 3, []),
    (["--name", "--", "x"], "--", 3, ["x"]),
    (["--name", "--fast", "--steps", "-0"], "--fast", 0, []),
    (["--name", "--unknown"], "--unknown", 3, []),
], ids=str)
def test_a_flags_value_may_start_with_a_dash_as_in_absl(fv, args, name, steps, rest):
    assert fv(["prog"] + args) == ["prog"] + rest
    assert (fv.name, fv.steps, fv.fast) == (name, steps, False)


def test_a_separate_value_is_taken_before_unknown_flags_are_kept(fv):
    assert fv(["prog", "--unk", "--name", "-q"], known_only=True) == ["prog", "--unk"]
    assert fv.name == "-q"
    with pytest.raises(F.IllegalFlagValueError, match="'--fast' is not an integer"):
        fv(["prog", "--steps", "--fast"])


def test_argv_must_hold_the_program_name_as_in_absl(fv):
    for argv in ([], ()):
        with pytest.raises(ValueError, match="argv cannot be an empty list, and must "
                                             "contain the program name"):
            fv(argv)
    for argv in ("prog", b"prog"):
        with pytest.raises(TypeError, match="argv should be a tuple/list of strings"):
            fv(argv)


def test_an_enum_default_is_checked_when_defined(fv):
    with pytest.raises(F.IllegalFlagValueError, match="'test' is not one of"):
        F.DEFINE_enum("phase", "test", ["train", "eval"], "Phase.", flag_values=fv)


def test_defining_a_flag_twice_is_an_error(fv):
    with pytest.raises(F.DuplicateFlagError, match="'steps' is defined twice"):
        F.DEFINE_integer("steps", 10, "Again.", flag_values=fv)
    assert fv["steps"].default == 3


def test_reading_before_parsing_raises_on_a_fresh_flag_values(fv):
    with pytest.raises(F.UnparsedFlagAccessError, match=r"--steps before flags were "
                                                        r"parsed.*app.run"):
        fv.steps  # noqa: B018
    fv(["prog"])
    assert fv.steps == 3


def test_setting_a_flag_and_an_unknown_name(fv):
    fv(["prog"])
    fv.steps = 11
    assert fv.steps == 11 and fv.flag_values_dict()["steps"] == 11
    with pytest.raises(F.UnrecognizedFlagError, match="FLAGS.stpes"):
        fv.stpes = 1
    with pytest.raises(AttributeError, match="no flag 'nothing'"):
        fv.nothing  # noqa: B018


def test_unparse_flags_restores_the_defaults(fv):
    fv(["prog", "--steps=9"])
    fv.unparse_flags()
    assert not fv.is_parsed() and fv["steps"].value == 3


def test_tf1_keyword_names_are_accepted(fv):
    F.DEFINE_string(flag_name="dir", default_value="/tmp", docstring="Where.", flag_values=fv)
    fv(["prog"])
    assert fv.dir == "/tmp" and fv["dir"].help == "Where."


def test_a_required_flag_must_be_given(fv):
    F.DEFINE_string("data_dir", None, "Where the data is.", flag_values=fv)
    F.mark_flag_as_required("data_dir", flag_values=fv)
    with pytest.raises(F.IllegalFlagValueError, match="--data_dir must have a value other "
                                                      "than None"):
        fv(["prog", "--steps=2"])
    assert fv["steps"].value == 3
    fv(["prog", "--data_dir=/data"])
    assert fv.data_dir == "/data"
    with pytest.raises(KeyError, match="no flag 'nope'"):
        F.mark_flags_as_required(["nope"], flag_values=fv)


def test_a_missing_flags_or_app_symbol_is_named():
    with pytest.raises(UnsupportedTF1Error, match=r"^tf.flags.DEFINE_spaceship is not"):
        ds.flags.DEFINE_spaceship  # noqa: B018
    with pytest.raises(UnsupportedTF1Error, match=r"^tf.app.start is not"):
        ds.app.start  # noqa: B018


def test_help_lists_every_flag_with_its_help_and_default(fv):
    text = fv.get_help("train.py")
    assert "train.py" in text
    assert "--[no]fast" in text and "Go fast. (default: False)" in text
    assert "--steps" in text and "How many steps. (default: 3, an integer)" in text
    assert "one of <train|eval>" in text


# --- the global FLAGS and app.run ------------------------------------------------------------

def test_tf1s_global_flags_parse_sys_argv_when_first_read(global_flags, monkeypatch):
    """TF1's tf.flags.FLAGS parses sys.argv on the first read (absl's would raise)."""
    global_flags.unparse_flags()
    ds.flags.DEFINE_integer("utility_test_steps", 1, "Steps.")
    monkeypatch.setattr(sys, "argv", ["prog", "--utility_test_steps=6"])
    assert ds.flags.FLAGS.utility_test_steps == 6 and global_flags.is_parsed()


def test_app_run_calls_main_with_the_rest_and_exits_with_its_status(global_flags):
    ds.app.flags.DEFINE_string("utility_test_dir", "/tmp", "Dir.")
    seen = []

    def main(argv):
        seen.append((argv, ds.flags.FLAGS.utility_test_dir))
        return 4

    with pytest.raises(SystemExit) as info:
        ds.app.run(main, argv=["prog", "a", "--utility_test_dir=/x", "--unknown=1"])
    assert info.value.code == 4
    assert seen == [(["prog", "a", "--unknown=1"], "/x")]


def test_app_run_defaults_to_main_of_main_module_and_sys_argv(global_flags, monkeypatch):
    called = []
    module = types.ModuleType("__main__")
    module.main = lambda argv: called.append(argv)
    monkeypatch.setitem(sys.modules, "__main__", module)
    monkeypatch.setattr(sys, "argv", ["script.py", "extra"])
    with pytest.raises(SystemExit) as info:
        ds.app.run()
    assert called == [["script.py", "extra"]] and info.value.code is None


def test_app_run_reports_a_bad_flag_and_exits_1(global_flags, capsys):
    ds.flags.DEFINE_integer("utility_test_n", 1, "N.")
    with pytest.raises(SystemExit) as info:
        ds.app.run(lambda argv: 0, argv=["prog", "--utility_test_n=many"])
    assert info.value.code == 1
    assert "FATAL Flags parsing error: flag --utility_test_n=many" in capsys.readouterr().err


def test_app_run_help_prints_the_flags_and_exits_1_as_absl(global_flags, capsys):
    ds.flags.DEFINE_float("utility_test_rate", 0.5, "The rate.")
    with pytest.raises(SystemExit) as info:
        ds.app.run(lambda argv: 0, argv=["prog", "--help"])
    assert info.value.code == 1
    assert "The rate. (default: 0.5, a number)" in capsys.readouterr().out
