"""What a TF1 program meets when it uses a TF1 symbol devsession lacks: an
``UnsupportedTF1Error`` (an ``AttributeError``, so ``hasattr`` and ``getattr(ds, name,
default)`` keep working) whose message names the TF1 symbol and says devsession does not
support it yet, raised by the ``__getattr__`` of ``devsession`` and of its TF1 namespaces
(``ds.nn``, ``ds.math``, ``ds.summary``...).

A few TF1 namespaces devsession has nothing of yet (``tf.contrib``, ``tf.estimator``,
``tf.keras``...) are returned as ``UnsupportedNamespace`` objects, so that
``tf.contrib.layers.xavier_initializer`` is reported as that, the symbol the program used.  The
list is kept to namespaces TF1 really has; any other unknown name gets the same message.
"""

from __future__ import annotations

__all__ = ["UnsupportedTF1Error", "UnsupportedNamespace", "missing", "TF1_NAMESPACES"]

# TF1 namespaces (tf.<name>) devsession has no module for.  Kept small and honest:
# namespaces that TF1 programs commonly use.
TF1_NAMESPACES = frozenset({
    "contrib", "estimator", "keras",
    "lite",
    "sysconfig", "user_ops",
    "autograph",
})

_HINTS = {
    "contrib": "tf.contrib is outside devsession's TF1 surface",
    "estimator": "tf.estimator is outside devsession's TF1 surface",
    "keras": "Keras is outside devsession's TF1 surface",
}


# What devsession will not have, and why: TF2's behaviours (it builds graphs and runs them
# in sessions; the switches to TF1's are no-ops, execution_mode.py) and TF2's API.
_NOT_IN_DEVSESSION = {
    "enable_eager_execution": "devsession builds graphs and runs them in sessions only "
                              "(TF1's graph mode); there is no eager execution",
    "enable_v2_behavior": "devsession has TF1's graph-mode behaviour only (graphs run in "
                          "sessions, reference variables)",
    "enable_resource_variables": "devsession's variables are TF1's reference variables "
                                 "(VariableV2)",
    "enable_tensor_equality": "devsession's Tensors compare by identity with == and hash, "
                              "as TF1's",
    "compat.v2": "devsession implements TF1's API (tf.compat.v1, which is devsession "
                 "itself), not TF2's",
    "saved_model.save": "it writes TF2's object-based SavedModel; TF1 programs export "
                        "with tf.saved_model.simple_save or "
                        "tf.saved_model.builder.SavedModelBuilder, which devsession has",
    "saved_model.load_v2": "it loads TF2's object-based SavedModels; TF1 programs load "
                           "with tf.saved_model.loader.load, which devsession has",
}


class UnsupportedTF1Error(AttributeError):
    """A TF1 symbol that devsession does not support (yet)."""


def missing(namespace: str, name: str) -> AttributeError:
    """The error for ``tf.<namespace>.<name>`` (``namespace`` "" for ``tf.<name>``)."""
    if name.startswith("__") and name.endswith("__"):   # Python's own probes
        return AttributeError(name)
    symbol = f"tf.{namespace}.{name}" if namespace else f"tf.{name}"
    reason = _NOT_IN_DEVSESSION.get(symbol[3:])
    if reason is not None:
        return UnsupportedTF1Error(f"{symbol} is not supported by devsession: {reason}.")
    root = (namespace or name).split(".")[0]
    hint = f" ({_HINTS[root]})" if root in _HINTS else ""
    return UnsupportedTF1Error(f"{symbol} is not supported by devsession yet{hint}.")


class UnsupportedNamespace:
    """A TF1 namespace devsession lacks: every attribute raises ``missing``."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        raise missing(self._name, attr)

    def __repr__(self):
        return f"<unsupported TF1 namespace tf.{self._name}>"
