"""TF's ragged dispatch: ``tf.add(rt, 1)``, ``tf.math.sin(rt)``, ``tf.reduce_sum(rt,
axis=1)``, ``tf.concat([rt, rt], 0)`` take RaggedTensors, as TF's
``dispatch.add_dispatch_support`` lets them.

``install()`` wraps the listed functions of the TF1 namespaces (``devsession``,
``ds.math``, ``ds.nn``) once: a wrapper calls ``ragged_math`` when an operand is a
RaggedTensor (or RaggedTensorValue) and the original function otherwise, so dense
graphs build exactly as before.  Every name a loaded devsession namespace gives the same
function (``ds.add``, ``ds.math.add``; ``ds.div_no_nan``, ``ds.math.divide_no_nan``)
gets the one wrapper, so TF1's spellings stay the same function.  The op modules
(``devsession.ops``) keep the undispatched functions for internal use.
"""

from __future__ import annotations

import functools
import inspect
import sys

from . import ragged_math
from .ragged_tensor import RaggedTensor
from .ragged_tensor_value import RaggedTensorValue

__all__ = ["install", "UNARY", "BINARY", "REDUCTIONS"]

UNARY = ("abs", "negative", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square",
         "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid",
         "sign", "round", "floor", "ceil", "reciprocal", "logical_not", "erf", "is_nan",
         "is_inf", "is_finite", "cast", "saturate_cast", "relu", "relu6", "elu", "selu",
         "softplus", "softsign", "leaky_relu", "identity", "zeros_like", "ones_like",
         "to_float", "to_int32", "to_int64", "to_double", "unicode_script")
BINARY = ("add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod",
          "maximum", "minimum", "pow", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal", "logical_and", "logical_or", "logical_xor", "squared_difference",
          "realdiv", "div", "div_no_nan", "atan2")
REDUCTIONS = {"reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max",
              "reduce_min": "min", "reduce_prod": "prod", "reduce_any": "any",
              "reduce_all": "all"}
NAMESPACES = ("devsession", "devsession.math", "devsession.nn", "devsession.strings")


def _ragged(value) -> bool:
    return isinstance(value, (RaggedTensor, RaggedTensorValue))


def _operands(fn, count: int):
    """A function giving the first ``count`` operands of a call of ``fn`` and the rest of
    its arguments, however they were passed."""
    names = list(inspect.signature(fn).parameters)[:count]

    def split(args, kwargs):
        kwargs = dict(kwargs)
        operands = list(args[:count])
        for name in names[len(operands):]:
            operands.append(kwargs.pop(name, None))
        return operands, list(args[count:]), kwargs
    return split


def _unary(fn):
    split = _operands(fn, 1)

    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        (x,), rest, others = split(args, kwargs)
        if not _ragged(x):
            return fn(*args, **kwargs)
        return ragged_math.unary(fn, ragged_math.convert_to_ragged_or_tensor(x), *rest,
                                 **others)
    return dispatch


def _binary(fn):
    split = _operands(fn, 2)

    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        (x, y), rest, others = split(args, kwargs)
        if not (_ragged(x) or _ragged(y)):
            return fn(*args, **kwargs)
        return ragged_math.binary(fn, x, y, *rest, **others)
    return dispatch


def _first(args, kwargs, key):
    return args[0] if args else kwargs.get(key)


def _reduction(fn, kind: str):
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        if not _ragged(_first(args, kwargs, "input_tensor")):
            return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        axis = bound.get("axis", bound.get("reduction_indices"))
        keep = bound.get("keepdims", bound.get("keep_dims"))
        rt = ragged_math.convert_to_ragged_or_tensor(bound["input_tensor"])
        return ragged_math.reduce(kind, fn, rt, axis, bool(keep), bound.get("name"))
    return dispatch


def _joiner(fn, join):
    """``concat`` / ``stack``: ``join(values, axis, name)`` when a value is ragged."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        values = _first(args, kwargs, "values")
        if not (isinstance(values, (list, tuple)) and any(_ragged(v) for v in values)):
            return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = bound.arguments
        return join(list(values), arguments["axis"], arguments.get("name"))
    return dispatch


def _gather(fn):
    """``gather(params, indices)`` of a RaggedTensor's rows (axis 0, vector indices)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        params = _first(args, kwargs, "params")
        if not _ragged(params):
            return fn(*args, **kwargs)
        from .ragged_ops import gather_rows
        arguments = signature.bind(*args, **kwargs).arguments
        if arguments.get("axis") not in (None, 0) or arguments.get("batch_dims", 0):
            raise ValueError("devsession gathers a RaggedTensor's rows (axis 0) only.")
        indices = ragged_math.convert_to_ragged_or_tensor(arguments["indices"])
        if isinstance(indices, RaggedTensor) or indices.shape.ndims != 1:
            raise ValueError("devsession gathers a RaggedTensor's rows by a vector of "
                             "indices only.")
        return gather_rows(ragged_math.convert_to_ragged_or_tensor(params), indices,
                           arguments.get("name"))
    return dispatch


_INSTALLED = False


def _namespaces():
    """The loaded modules that hold TF1 names: ``devsession`` and its namespaces (not
    the op, kernel and ragged modules, which keep the undispatched functions)."""
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "devsession" or name.startswith("devsession.")):
            continue
        if name.startswith(("devsession.ops", "devsession.kernels", "devsession.ragged")):
            continue
        yield module


def install():
    """Wrap the listed functions wherever a TF1 namespace holds them (once)."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    makers = {**{n: _unary for n in UNARY}, **{n: _binary for n in BINARY},
              **{n: (lambda f, k=k: _reduction(f, k)) for n, k in REDUCTIONS.items()},
              "concat": lambda f: _joiner(f, ragged_math.concat),
              "stack": lambda f: _joiner(f, ragged_math.stack), "gather": _gather}
    wrapped: dict = {}      # id(original) -> (original, wrapper)
    for module_name in NAMESPACES:
        module = sys.modules.get(module_name)
        for name, make in makers.items():
            original = getattr(module, "__dict__", {}).get(name)
            if callable(original) and id(original) not in wrapped:
                wrapped[id(original)] = (original, make(original))
    for module in _namespaces():       # every name of a wrapped function: one wrapper
        for name, value in list(vars(module).items()):
            entry = wrapped.get(id(value))
            if entry is not None and entry[0] is value:
                setattr(module, name, entry[1])
