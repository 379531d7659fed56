"""TF2's process-wide settings that TF1 scripts written for ``tf.compat.v1`` call
(``tf.config.threading``, ``tf.config.set_soft_device_placement``,
``tf.debugging.set_log_device_placement``, ``tf.config.optimizer``...): the
``SessionOptions`` every session made from then on starts from (``session_defaults``;
explicit ``SessionOptions`` replace them, ConfigProto fields override them).  TF refuses
to change some once its runtime started; devsession applies them to the sessions made
after the call.

``tf.config.optimizer.set_experimental_options`` maps TF's graph-rewriter switches onto
devsession's optimizer passes: ``constant_folding`` -> constant folding,
``arithmetic_optimization`` -> common subexpression elimination, ``remapping`` (TF's
fusion of ops into one kernel) -> fusion, ``disable_meta_optimizer`` -> all of them off;
the other switches are kept and reported, with nothing of devsession's to change.
``set_jit`` is kept and reported too: devsession compiles every kernel anyway.
"""

from __future__ import annotations

__all__ = ["session_defaults", "set_soft_device_placement", "get_soft_device_placement",
           "set_log_device_placement", "get_log_device_placement", "set_jit", "get_jit",
           "set_experimental_options", "get_experimental_options", "thread_setting",
           "enable_tensor_float_32_execution", "tensor_float_32_execution_enabled"]

_PROCESS = {"intra_op_threads": 0, "inter_op_threads": 0, "allow_soft_placement": True,
            "log_device_placement": False}
_EXPERIMENTAL = {"disable_model_pruning": False, "disable_meta_optimizer": False}
_PASSES = {"constant_folding": "constant_folding",
           "arithmetic_optimization": "common_subexpression_elimination",
           "remapping": "fusion"}
_FLAGS = {"jit": "", "tensor_float_32": True}


def session_defaults():
    """``SessionOptions`` holding the process-wide settings."""
    from .options import OptimizerOptions, SessionOptions

    if _EXPERIMENTAL["disable_meta_optimizer"]:
        passes = dict.fromkeys(_PASSES.values(), False)
    else:
        passes = {ours: bool(_EXPERIMENTAL[tf]) for tf, ours in _PASSES.items()
                  if tf in _EXPERIMENTAL}
    return SessionOptions(**_PROCESS, optimizer=OptimizerOptions(**passes))


def set_soft_device_placement(enabled: bool) -> None:
    """Whether the sessions made from now on place an op where its device cannot run it
    on one that can (True, TF2's default and devsession's) or fail."""
    _PROCESS["allow_soft_placement"] = bool(enabled)


def get_soft_device_placement() -> bool:
    return _PROCESS["allow_soft_placement"]


def set_log_device_placement(enabled: bool) -> None:
    """Whether the sessions made from now on log where each op runs (TF's
    ``tf.debugging.set_log_device_placement``)."""
    _PROCESS["log_device_placement"] = bool(enabled)


def get_log_device_placement() -> bool:
    return _PROCESS["log_device_placement"]


def thread_setting(key: str, what: str):
    """(set, get) of one of the sessions' thread counts."""
    def set_threads(num_threads: int) -> None:
        if int(num_threads) < 0:
            raise ValueError(f"{what} must be >= 0 (0: picked from the machine), not "
                             f"{num_threads}.")
        _PROCESS[key] = int(num_threads)
    set_threads.__doc__ = f"The {what} of the sessions made from now on (0: the machine's)."
    return set_threads, lambda: _PROCESS[key]


def set_jit(enabled) -> None:
    """TF's XLA auto-clustering switch (True or "autoclustering" on); kept for
    ``get_jit``: devsession compiles every kernel whatever it says."""
    _FLAGS["jit"] = "autoclustering" if enabled else ""


def get_jit() -> str:
    """"autoclustering" after ``set_jit(True)``, else "" (TF's answers)."""
    return _FLAGS["jit"]


def set_experimental_options(options: dict) -> None:
    """Switch TF's graph rewrites by name (see the module docstring for what devsession
    does with each); the sessions made from then on follow."""
    if not isinstance(options, dict):
        raise TypeError(f"set_experimental_options takes a dict of option names to values, "
                        f"not {type(options).__name__}")
    _EXPERIMENTAL.update(options)


def get_experimental_options() -> dict:
    """The options set so far, with TF's two reported defaults."""
    return dict(sorted(_EXPERIMENTAL.items(), key=lambda kv: kv[0].startswith("disable_")))


def enable_tensor_float_32_execution(enabled: bool) -> None:
    """TF's switch for TensorFloat-32 products on Ampere GPUs; kept for the query:
    devsession's products keep full float32 precision on every device."""
    _FLAGS["tensor_float_32"] = bool(enabled)


def tensor_float_32_execution_enabled() -> bool:
    return _FLAGS["tensor_float_32"]
