"""Profile options: ``ProfileOptionBuilder`` (TF1's ``tf.profiler.ProfileOptionBuilder``,
its presets and setters, building the same dicts TF's builder builds) and ``Options``,
the checked form the views read."""

from __future__ import annotations

import copy
import dataclasses

from .. import errors
from .model import TRAINABLE_VARIABLES

__all__ = ["ProfileOptionBuilder", "Options", "SHOWN", "ORDER_BY"]

# What ``select`` may name, and what ``order_by`` may.
SHOWN = ("bytes", "micros", "params", "float_ops", "tensor_value", "device", "op_types",
         "occurrence", "input_shapes", "accelerator_micros", "cpu_micros", "peak_bytes",
         "residual_bytes", "output_bytes")
ORDER_BY = ("name", "bytes", "peak_bytes", "residual_bytes", "output_bytes", "micros",
            "accelerator_micros", "cpu_micros", "params", "float_ops", "occurrence")
_OUTPUTS = ("timeline", "stdout", "file", "pprof", "none")


def _preset(**changes) -> dict:
    options = {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0,
               "min_float_ops": 0, "min_occurrence": 0, "order_by": "name",
               "account_type_regexes": [".*"], "start_name_regexes": [".*"],
               "trim_name_regexes": [], "show_name_regexes": [".*"],
               "hide_name_regexes": [], "account_displayed_op_only": True,
               "select": ["params"], "step": -1, "output": "stdout"}
    options.update(changes)
    return options


class ProfileOptionBuilder:
    """Builds the options dict of ``tf.profiler.profile``: start from a preset (or the
    defaults), change what the setters name, ``build()``."""

    def __init__(self, options: dict | None = None):
        if options is not None:
            self._options = copy.deepcopy(options)
        else:
            self._options = _preset(max_depth=100, account_displayed_op_only=False,
                                    select=["micros"])

    @staticmethod
    def trainable_variables_parameter() -> dict:
        """Count the trainable variables' parameters, by name scope."""
        return _preset(account_type_regexes=[TRAINABLE_VARIABLES])

    @staticmethod
    def float_operation() -> dict:
        """Count float operations (ops of known shapes), most first."""
        return _preset(min_float_ops=1, order_by="float_ops", select=["float_ops"])

    @staticmethod
    def time_and_memory(min_micros=1, min_bytes=1, min_accelerator_micros=0, min_cpu_micros=0,
                        min_peak_bytes=0, min_residual_bytes=0, min_output_bytes=0) -> dict:
        """Time (and memory) of traced steps; nodes below the minimums are hidden."""
        options = _preset(min_bytes=min_bytes, min_micros=min_micros, order_by="micros",
                          select=["micros", "bytes"])
        options.update(min_peak_bytes=min_peak_bytes, min_residual_bytes=min_residual_bytes,
                       min_output_bytes=min_output_bytes,
                       min_accelerator_micros=min_accelerator_micros,
                       min_cpu_micros=min_cpu_micros)
        return {key: options[key] for key in _TIME_AND_MEMORY_ORDER}

    def build(self) -> dict:
        return copy.deepcopy(self._options)

    def _set(self, **values) -> "ProfileOptionBuilder":
        self._options.update(values)
        return self

    def with_max_depth(self, max_depth):
        return self._set(max_depth=max_depth)

    def with_min_memory(self, min_bytes=0, min_peak_bytes=0, min_residual_bytes=0,
                        min_output_bytes=0):
        return self._set(min_bytes=min_bytes, min_peak_bytes=min_peak_bytes,
                         min_residual_bytes=min_residual_bytes,
                         min_output_bytes=min_output_bytes)

    def with_min_execution_time(self, min_micros=0, min_accelerator_micros=0,
                                min_cpu_micros=0):
        return self._set(min_micros=min_micros, min_accelerator_micros=min_accelerator_micros,
                         min_cpu_micros=min_cpu_micros)

    def with_min_parameters(self, min_params):
        return self._set(min_params=min_params)

    def with_min_occurrence(self, min_occurrence):
        return self._set(min_occurrence=min_occurrence)

    def with_min_float_operations(self, min_float_ops):
        return self._set(min_float_ops=min_float_ops)

    def with_accounted_types(self, account_type_regexes):
        return self._set(account_type_regexes=copy.copy(account_type_regexes))

    def with_node_names(self, start_name_regexes=None, show_name_regexes=None,
                        hide_name_regexes=None, trim_name_regexes=None):
        given = {"start_name_regexes": start_name_regexes,
                 "show_name_regexes": show_name_regexes,
                 "hide_name_regexes": hide_name_regexes,
                 "trim_name_regexes": trim_name_regexes}
        return self._set(**{k: copy.copy(v) for k, v in given.items() if v is not None})

    def account_displayed_op_only(self, is_true):
        return self._set(account_displayed_op_only=is_true)

    def with_empty_output(self):
        return self._set(output="none")

    def with_stdout_output(self):
        return self._set(output="stdout")

    def with_file_output(self, outfile):
        return self._set(output=f"file:outfile={outfile}")

    def with_timeline_output(self, timeline_file):
        return self._set(output=f"timeline:outfile={timeline_file}")

    def with_pprof_output(self, pprof_file):
        return self._set(output=f"pprof:outfile={pprof_file}")

    def order_by(self, attribute):
        return self._set(order_by=attribute)

    def select(self, attributes):
        return self._set(select=copy.copy(attributes))

    def with_step(self, step):
        return self._set(step=step)


_TIME_AND_MEMORY_ORDER = (
    "max_depth", "min_bytes", "min_peak_bytes", "min_residual_bytes", "min_output_bytes",
    "min_micros", "min_accelerator_micros", "min_cpu_micros", "min_params", "min_float_ops",
    "min_occurrence", "order_by", "account_type_regexes", "start_name_regexes",
    "trim_name_regexes", "show_name_regexes", "hide_name_regexes",
    "account_displayed_op_only", "select", "step", "output")


@dataclasses.dataclass(frozen=True)
class Options:
    """An options dict checked and filled in with the defaults TF's profile() uses for
    keys it lacks (``max_depth`` 10, no minimums, by name, everything accounted)."""

    max_depth: int = 10
    min_bytes: int = 0
    min_peak_bytes: int = 0
    min_residual_bytes: int = 0
    min_output_bytes: int = 0
    min_micros: int = 0
    min_accelerator_micros: int = 0
    min_cpu_micros: int = 0
    min_params: int = 0
    min_float_ops: int = 0
    min_occurrence: int = 0
    step: int = -1
    order_by: str = "name"
    account_type_regexes: tuple = ()
    start_name_regexes: tuple = ()
    trim_name_regexes: tuple = ()
    show_name_regexes: tuple = ()
    hide_name_regexes: tuple = ()
    account_displayed_op_only: bool = False
    select: frozenset = frozenset()
    output: str = "stdout"
    output_type: str = "stdout"
    output_file: str = ""

    @classmethod
    def from_dict(cls, options: dict) -> "Options":
        known = {f.name for f in dataclasses.fields(cls)} - {"output_type", "output_file"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise errors.InvalidArgumentError(
                f"Unknown profiler options {unknown}; the options are "
                f"{sorted(known)} (build them with tf.profiler.ProfileOptionBuilder).")
        values = {k: options[k] for k in known if k in options}
        for key in ("account_type_regexes", "start_name_regexes", "trim_name_regexes",
                    "show_name_regexes", "hide_name_regexes"):
            values[key] = tuple(values.get(key, ()))
        values["select"] = frozenset(values.get("select", ()))
        bad = sorted(values["select"] - set(SHOWN))
        if bad:
            raise errors.InvalidArgumentError(
                f"Cannot select {bad}: the profiler shows {list(SHOWN)}.")
        if values.get("order_by", "name") not in ORDER_BY:
            raise errors.InvalidArgumentError(
                f"Cannot order by {values['order_by']!r}: one of {list(ORDER_BY)}.")
        values["output_type"], values["output_file"] = _parse_output(
            values.get("output", "stdout"))
        return cls(**values)


def _parse_output(output: str) -> tuple[str, str]:
    """"stdout", "none", "file:outfile=PATH", "timeline:outfile=PATH"... -> (type, path)."""
    kind, _, rest = output.partition(":")
    if kind not in _OUTPUTS:
        raise errors.InvalidArgumentError(
            f"Unknown profiler output {output!r}: one of stdout, none, "
            f"file:outfile=PATH, timeline:outfile=PATH, pprof:outfile=PATH.")
    if kind in ("stdout", "none"):
        return kind, ""
    key, _, path = rest.partition("=")
    if key != "outfile" or not path:
        raise errors.InvalidArgumentError(
            f"Profiler output {output!r} names no file: write "
            f"'{kind}:outfile=PATH'.")
    return kind, path
