"""``tf.data.Options`` and its parts, which ``Dataset.with_options`` attaches to a
pipeline and ``Dataset.options()`` returns merged, as TF does:

    options = ds.data.Options()
    options.experimental_distribute.auto_shard_policy = \\
        ds.data.experimental.AutoShardPolicy.DATA
    options.threading.private_threadpool_size = 8
    dataset = dataset.with_options(options)

devsession accepts and keeps them (a pipeline runs on demand in one thread, so none
changes what it gives).  An option is a typed property (TF's ``create_option``): set
to a value of another type it is TF's ``TypeError``, an unknown one TF's
``AttributeError``; the options ``options()`` returns are immutable (TF's
``ValueError``).  Merging keeps every option set to other than its default, the later
one winning (TF's ``merge_options``).  A pipeline keeps its options as a stage
``{"kind": "options", "options": ...}`` holding the options set (``to_dict``), so they
travel with the pipeline through every transformation, ``zip`` and ``concatenate``.
"""

from __future__ import annotations

import enum

__all__ = ["OptionsBase", "Options", "AutotuneOptions", "DistributeOptions",
           "OptimizationOptions", "ServiceOptions", "ThreadingOptions", "AutoShardPolicy",
           "AutotuneAlgorithm", "ExternalStatePolicy", "merge_options"]


class AutoShardPolicy(enum.IntEnum):
    """How a distributed dataset is sharded (TF's values)."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class AutotuneAlgorithm(enum.Enum):
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


def _option(name: str, ty, doc: str, default_factory=lambda: None) -> property:
    """A property of type ``ty`` stored in the options' ``_options`` once read or set."""
    def get(options):
        if name not in options._options:
            options._options[name] = default_factory()
        return options._options[name]

    def set_(options, value):
        if not isinstance(value, ty):
            raise TypeError(f'Property "{name}" must be of type {ty}, got: {value} (type: '
                            f'{type(value)})')
        options._options[name] = value
    prop = property(get, set_, None, doc)
    prop.fget.option_type = ty
    return prop


class OptionsBase:
    """TF's ``OptionsBase``: typed options, compared by value; immutable once a
    dataset's ``options()`` gives them."""

    def __init__(self):
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "_mutable", True)

    def __eq__(self, other):
        if not isinstance(other, self.__class__):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n)
                   for n in set(self._options) | set(other._options))

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def __setattr__(self, name, value):
        if not self._mutable:
            raise ValueError("Mutating `tf.data.Options()` returned by "
                             "`tf.data.Dataset.options()` has no effect. Use "
                             "`tf.data.Dataset.with_options(options)` to set or update "
                             "dataset options.")
        if not hasattr(self, name):
            raise AttributeError(f"Cannot set the property {name} on "
                                 f"{type(self).__name__}.")
        object.__setattr__(self, name, value)

    def _set_mutable(self, mutable: bool) -> None:
        object.__setattr__(self, "_mutable", mutable)
        for value in self._options.values():
            if isinstance(value, OptionsBase):
                value._set_mutable(mutable)

    # --- the form a pipeline stage keeps -------------------------------------------------------

    def to_dict(self) -> dict:
        """The options set to other than their defaults, as JSON holds them."""
        default = type(self)()
        out = {}
        for name in sorted(self._options):
            value = getattr(self, name)
            if isinstance(value, OptionsBase):
                nested = value.to_dict()
                if nested:
                    out[name] = nested
            elif value != getattr(default, name):
                out[name] = value.value if isinstance(value, enum.Enum) else value
        return out

    @classmethod
    def from_dict(cls, values: dict) -> "OptionsBase":
        options = cls()
        for name, value in values.items():
            ty = getattr(cls, name).fget.option_type
            if isinstance(ty, type) and issubclass(ty, OptionsBase):
                value = ty.from_dict(value)
            elif isinstance(ty, type) and issubclass(ty, enum.Enum):
                value = ty(value)
            setattr(options, name, value)
        return options


def merge_options(*options_list):
    """TF's ``merge_options``: the options each sets to other than its default, the
    later one winning (nested options merged the same way)."""
    if not options_list:
        raise ValueError("At least one options should be provided")
    result_type = type(options_list[0])
    for options in options_list:
        if not isinstance(options, result_type):
            raise TypeError(f"Could not merge incompatible options of type "
                            f"{type(options)} and {result_type}.")
    if not isinstance(options_list[0], OptionsBase):
        raise TypeError(f"All options to be merged should inherit from `OptionsBase` but "
                        f"found option of type {type(options_list[0])} which does not.")
    default, result = result_type(), result_type()
    for options in options_list:
        for name in options._options:
            this, that = getattr(result, name), getattr(options, name)
            if that == getattr(default, name):
                continue
            if this == getattr(default, name):
                setattr(result, name, that)
            elif isinstance(this, OptionsBase):
                setattr(result, name, merge_options(this, that))
            elif name == "framework_type":
                setattr(result, name, this + that)
            else:
                setattr(result, name, that)
    return result


class AutotuneOptions(OptionsBase):
    autotune_algorithm = _option("autotune_algorithm", AutotuneAlgorithm,
                                 "The algorithm autotuning uses.")
    cpu_budget = _option("cpu_budget", int, "The CPU budget of autotuning.")
    enabled = _option("enabled", bool, "Whether autotuning is on.")
    initial_parallelism = _option("initial_parallelism", int,
                                  "The parallelism autotuning starts from.")
    min_parallelism = _option("min_parallelism", int, "The least parallelism it picks.")
    ram_budget = _option("ram_budget", int, "The RAM budget of autotuning, in bytes.")


class DistributeOptions(OptionsBase):
    auto_shard_policy = _option("auto_shard_policy", AutoShardPolicy,
                                "How a distributed dataset is sharded.",
                                lambda: AutoShardPolicy.AUTO)
    num_devices = _option("num_devices", int, "The devices the dataset is split over.")


class OptimizationOptions(OptionsBase):
    apply_default_optimizations = _option("apply_default_optimizations", bool,
                                          "Whether TF's default rewrites apply.")
    filter_fusion = _option("filter_fusion", bool, "A TF graph rewrite.")
    filter_parallelization = _option("filter_parallelization", bool, "A TF graph rewrite.")
    inject_prefetch = _option("inject_prefetch", bool, "A TF graph rewrite.")
    map_and_batch_fusion = _option("map_and_batch_fusion", bool, "A TF graph rewrite.")
    map_and_filter_fusion = _option("map_and_filter_fusion", bool, "A TF graph rewrite.")
    map_fusion = _option("map_fusion", bool, "A TF graph rewrite.")
    map_parallelization = _option("map_parallelization", bool, "A TF graph rewrite.")
    noop_elimination = _option("noop_elimination", bool, "A TF graph rewrite.")
    parallel_batch = _option("parallel_batch", bool, "A TF graph rewrite.")
    seq_interleave_prefetch = _option("seq_interleave_prefetch", bool,
                                      "A TF graph rewrite.")
    shuffle_and_repeat_fusion = _option("shuffle_and_repeat_fusion", bool,
                                        "A TF graph rewrite.")


class ServiceOptions(OptionsBase):
    pinned = _option("pinned", bool, "Whether the tf.data service pins its buffers.")


class ThreadingOptions(OptionsBase):
    max_intra_op_parallelism = _option("max_intra_op_parallelism", int,
                                       "The threads one op may use.")
    private_threadpool_size = _option("private_threadpool_size", int,
                                      "The threads of the dataset's own pool.")


class Options(OptionsBase):
    """TF's ``tf.data.Options`` (see the module docstring);
    ``experimental_deterministic`` and ``experimental_threading`` are TF's aliases of
    ``deterministic`` and ``threading``."""

    autotune = _option("autotune", AutotuneOptions, "Autotuning options.",
                       AutotuneOptions)
    dataset_name = _option("dataset_name", str, "A name for the dataset.")
    deterministic = _option("deterministic", bool,
                            "Whether elements come in a deterministic order.")
    experimental_deterministic = _option("experimental_deterministic", bool,
                                         "TF's old name of deterministic.")
    experimental_distribute = _option("experimental_distribute", DistributeOptions,
                                      "Distribution options.", DistributeOptions)
    experimental_external_state_policy = _option(
        "experimental_external_state_policy", ExternalStatePolicy,
        "What checkpointing does with external state.")
    experimental_optimization = _option("experimental_optimization", OptimizationOptions,
                                        "Graph rewrite options.", OptimizationOptions)
    experimental_service = _option("experimental_service", ServiceOptions,
                                   "tf.data service options.", ServiceOptions)
    experimental_slack = _option("experimental_slack", bool, "Whether to add slack.")
    experimental_symbolic_checkpoint = _option("experimental_symbolic_checkpoint", bool,
                                               "Whether checkpoints are symbolic.")
    experimental_threading = _option("experimental_threading", ThreadingOptions,
                                     "TF's old name of threading.", ThreadingOptions)
    experimental_warm_start = _option("experimental_warm_start", bool,
                                      "Whether to start work before the first request.")
    framework_type = _option("framework_type", list, "The frameworks using the dataset.")
    threading = _option("threading", ThreadingOptions, "Threading options.",
                        ThreadingOptions)

    _ALIASES = {"experimental_deterministic": "deterministic",
                "experimental_threading": "threading"}

    def __getattribute__(self, name):
        aliases = object.__getattribute__(self, "_ALIASES")
        return super().__getattribute__(aliases.get(name, name))

    def __setattr__(self, name, value):
        super().__setattr__(self._ALIASES.get(name, name), value)

    def merge(self, options: "Options") -> "Options":
        """TF's ``Options.merge``: ``merge_options(self, options)``."""
        return merge_options(self, options)
