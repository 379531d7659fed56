"""TF1's ``tf.ConfigProto`` and ``tf.GPUOptions``, accepted as TF1 scripts pass them:
``tf.Session(config=tf.ConfigProto(...))``, and ``config.gpu_options.allow_growth = True``
after construction.

They are plain mutable objects (not protobufs); ``session_options(config, base)`` maps the
fields a script set onto ``SessionOptions``:

=====================================  ================================================
ConfigProto / GPUOptions field         SessionOptions
=====================================  ================================================
``allow_soft_placement``               ``allow_soft_placement``
``log_device_placement``               ``log_device_placement``
``device_count={"GPU": 0}``            ``device="cpu"`` (no GPU); other counts ignored
``intra_op_parallelism_threads``       ``intra_op_threads``
``inter_op_parallelism_threads``       ``inter_op_threads``
``operation_timeout_in_ms``            ``operation_timeout_s``
``device_filters``                     ``device_filters`` (a cluster session's devices)
``gpu_options.allow_growth``           nothing to do: the GPU memory pool grows on demand
``gpu_options.per_process_gpu_``       ``gpu_memory_limit_bytes`` (that fraction of GPU:0's
``memory_fraction``                    memory; nothing without a GPU)
``cluster_def``                        checked (a ``ClusterDef``, ``ClusterSpec`` or dict;
                                       TypeError/ValueError otherwise); a cluster session
                                       runs on its target server's cluster, so it is
                                       reported as having no effect.  A ``Server``'s
                                       config carries it in ``server_def``
``graph_options.optimizer_options``    ``optimizer``: TF's ``opt_level=L0`` turns constant
``.opt_level`` (and ``do_constant_``   folding and common subexpression elimination off
``folding``, ``do_common_``            unless their ``do_`` field asks for them, as TF's
``subexpression_elimination``)         graph optimizer does (``global_jit_level``: no
                                       effect, kernels are always compiled)
=====================================  ================================================

Fields a script did not set keep devsession's defaults.  Any other field is accepted
and ignored, with one warning per session naming them.

As ``tf.config`` this module also answers the device queries (``list_physical_devices``,
``list_logical_devices``, ``get_visible_devices``, ``set_visible_devices``,
``experimental.set_memory_growth``: ``device_listing.py``) and TF2's process-wide
settings (``threading``, ``set_soft_device_placement``, ``optimizer``: kept in
``process_settings.py``), which the sessions ``ds.Session`` makes from then on start from.
"""

from __future__ import annotations

import dataclasses
import logging
import types

from .device_listing import (LogicalDevice, PhysicalDevice, get_memory_growth,
                             get_visible_devices, list_logical_devices, list_physical_devices,
                             set_memory_growth, set_visible_devices)
from .process_settings import (enable_tensor_float_32_execution, get_experimental_options,
                               get_jit, get_soft_device_placement, session_defaults,
                               set_experimental_options, set_jit, set_soft_device_placement,
                               tensor_float_32_execution_enabled, thread_setting)

__all__ = ["ConfigProto", "GPUOptions", "GraphOptions", "session_options", "session_defaults",
           "list_physical_devices", "list_logical_devices", "get_visible_devices",
           "set_visible_devices", "set_soft_device_placement", "get_soft_device_placement",
           "threading", "experimental", "optimizer", "PhysicalDevice", "LogicalDevice"]

_set_intra, _get_intra = thread_setting("intra_op_threads", "threads inside one op")
_set_inter, _get_inter = thread_setting("inter_op_threads", "ops run at once")
threading = types.SimpleNamespace(          # tf.config.threading
    set_intra_op_parallelism_threads=_set_intra, get_intra_op_parallelism_threads=_get_intra,
    set_inter_op_parallelism_threads=_set_inter, get_inter_op_parallelism_threads=_get_inter)

experimental = types.SimpleNamespace(       # tf.config.experimental's device calls
    list_physical_devices=list_physical_devices, list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices, set_visible_devices=set_visible_devices,
    set_memory_growth=set_memory_growth, get_memory_growth=get_memory_growth,
    enable_tensor_float_32_execution=enable_tensor_float_32_execution,
    tensor_float_32_execution_enabled=tensor_float_32_execution_enabled)

optimizer = types.SimpleNamespace(          # tf.config.optimizer
    set_jit=set_jit, get_jit=get_jit, set_experimental_options=set_experimental_options,
    get_experimental_options=get_experimental_options)

log = logging.getLogger("devsession")

_CONFIG_DEFAULTS = {
    "allow_soft_placement": False, "log_device_placement": False, "device_count": None,
    "intra_op_parallelism_threads": 0, "inter_op_parallelism_threads": 0,
    "operation_timeout_in_ms": 0,
}
_GPU_DEFAULTS = {"allow_growth": False, "per_process_gpu_memory_fraction": 0.0}
# TF's OptimizerOptions message (config.proto): levels L1 = 0 (the default), L0 = -1
_TF_OPTIMIZER_DEFAULTS = {"do_common_subexpression_elimination": False,
                          "do_constant_folding": False, "opt_level": 0,
                          "do_function_inlining": False, "global_jit_level": 0,
                          "max_folded_constant_in_bytes": 0, "cpu_global_jit": False}
_L0 = -1


class _Fields:
    """Attribute bag that remembers which fields were set (at construction or later)."""

    _defaults: dict = {}

    def __init__(self, **fields):
        object.__setattr__(self, "_set", {})
        for name, value in fields.items():
            setattr(self, name, value)

    def __setattr__(self, name, value):
        self._set[name] = value

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._set:
            return self._set[name]
        if name in self._defaults:
            return self._defaults[name]
        raise AttributeError(f"{type(self).__name__} has no field {name!r} set")

    def set_fields(self) -> dict:
        """The fields set so far, by name."""
        return dict(self._set)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._set.items())
        return f"{type(self).__name__}({fields})"


class GPUOptions(_Fields):
    """TF1's ``tf.GPUOptions`` (``allow_growth``, ``per_process_gpu_memory_fraction``...)."""

    _defaults = _GPU_DEFAULTS


class _TFOptimizerOptions(_Fields):
    """TF's ``OptimizerOptions`` message inside ``graph_options`` (devsession's own
    ``ds.OptimizerOptions`` is what ``SessionOptions`` takes; it carries TF's level
    constants, ``ds.OptimizerOptions.L0``, for these fields)."""

    _defaults = _TF_OPTIMIZER_DEFAULTS


class GraphOptions(_Fields):
    """TF1's ``tf.GraphOptions`` (``optimizer_options``...)."""

    def __init__(self, **fields):
        super().__init__(**fields)
        self._set.setdefault("optimizer_options", _TFOptimizerOptions())

    @property
    def optimizer_options(self):
        return self._set["optimizer_options"]


class ConfigProto(_Fields):
    """TF1's ``tf.ConfigProto``; pass it as ``ds.Session(config=...)``."""

    _defaults = _CONFIG_DEFAULTS

    def __init__(self, **fields):
        super().__init__(**fields)
        self._set.setdefault("gpu_options", GPUOptions())
        self._set.setdefault("graph_options", GraphOptions())

    @property
    def gpu_options(self) -> GPUOptions:
        return self._set["gpu_options"]

    @property
    def graph_options(self) -> GraphOptions:
        return self._set["graph_options"]


def session_options(config: ConfigProto, base):
    """``base`` (SessionOptions) with the fields ``config`` set mapped onto it (see the
    module docstring); logs one warning naming the fields that have no effect."""
    fields = config.set_fields()
    gpu = fields.pop("gpu_options", None)
    changes, ignored = {}, []
    _map_graph_options(fields.pop("graph_options", None), base, changes, ignored)
    renames = {"allow_soft_placement": "allow_soft_placement",
               "log_device_placement": "log_device_placement",
               "intra_op_parallelism_threads": "intra_op_threads",
               "inter_op_parallelism_threads": "inter_op_threads"}
    for name, value in fields.items():
        if name in renames:
            changes[renames[name]] = type(getattr(base, renames[name]))(value)
        elif name == "device_filters":
            changes["device_filters"] = tuple(value)
        elif name == "operation_timeout_in_ms":
            changes["operation_timeout_s"] = value / 1000 if value and value > 0 else None
        elif name == "device_count":
            counts = dict(value or {})
            if counts.get("GPU", 1) == 0:
                changes["device"] = "cpu"
            if set(counts) - {"GPU", "CPU"}:
                ignored.append(f"device_count[{sorted(set(counts) - {'GPU', 'CPU'})}]")
        elif name == "cluster_def":
            _check_cluster_def(value)
            ignored.append("cluster_def (a session runs on its target server's cluster)")
        else:
            ignored.append(name)
    if gpu is not None:
        for name, value in gpu.set_fields().items():
            if name == "per_process_gpu_memory_fraction" and value:
                limit = _gpu_memory_fraction(value)
                if limit:
                    changes["gpu_memory_limit_bytes"] = limit
            elif name != "allow_growth":          # growth is what the pool does anyway
                ignored.append(f"gpu_options.{name}")
    if ignored:
        log.warning("devsession: ConfigProto fields with no effect in devsession were "
                    "ignored: %s", ", ".join(ignored))
    return base.replace(**changes)


def _map_graph_options(graph_options, base, changes: dict, ignored: list) -> None:
    """TF's graph optimizer levels onto ``base.optimizer`` (see the module docstring)."""
    if graph_options is None:
        return
    if not isinstance(graph_options, GraphOptions):
        ignored.append("graph_options")
        return
    fields = graph_options.set_fields()
    tf_optimizer = fields.pop("optimizer_options", None)
    ignored.extend(f"graph_options.{name}" for name in fields)
    if isinstance(tf_optimizer, type(base.optimizer)):     # devsession's own passes
        changes["optimizer"] = tf_optimizer
        return
    if tf_optimizer is None:
        return
    chosen = tf_optimizer.set_fields()
    if chosen.pop("opt_level", 0) == _L0:
        changes["optimizer"] = dataclasses.replace(
            base.optimizer,
            constant_folding=bool(chosen.get("do_constant_folding", False)),
            common_subexpression_elimination=bool(
                chosen.get("do_common_subexpression_elimination", False)))
    ignored.extend(f"graph_options.optimizer_options.{name}" for name in chosen
                   if name not in ("do_constant_folding", "do_common_subexpression_elimination"))


def _check_cluster_def(cluster_def) -> None:
    """TypeError / ValueError unless ``cluster_def`` is a cluster (TF's ConfigProto takes
    a ClusterDef there; a ClusterSpec or its dict is accepted too)."""
    if cluster_def is None:
        return
    from .distributed.cluster_spec import ClusterSpec   # the protobuf, no gRPC

    try:
        ClusterSpec(cluster_def)
    except TypeError:
        raise TypeError(f"ConfigProto.cluster_def must be a tf.train.ClusterDef (or a "
                        f"ClusterSpec), not {type(cluster_def).__name__}.") from None


def _gpu_memory_fraction(fraction: float) -> int | None:
    """``fraction`` of GPU:0's memory in bytes, or None on a machine without a GPU."""
    from .devices import gpu_devices

    gpus = gpu_devices()
    if not gpus:
        return None
    return max(1, int(gpus[0].memory_limit * float(fraction)))
