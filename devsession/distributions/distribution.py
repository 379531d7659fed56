"""TF1's ``tf.distributions.Distribution``: the public methods (``sample``, ``log_prob``,
``prob``, ``cdf``, ``entropy``, ``mean``...) open the distribution's name scope and call
the subclass's ``_``-prefixed method, as TF's do; a subclass writes only those it has.

``sample(sample_shape)`` asks the subclass for ``n = prod(sample_shape)`` draws
(``_sample_n``, shape ``[n] + batch_shape + event_shape``) and reshapes them to
``sample_shape + batch_shape + event_shape``.  ``prob`` is ``exp(log_prob)`` and
``log_prob`` ``log(prob)`` when a subclass writes only one (the same for the CDF and
the survival function, and ``stddev``/``variance``).  A method no subclass writes
raises ``NotImplementedError`` naming it, as TF's.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from ..ops.array import identity, reshape
from ..ops.array_fill import shape as shape_of
from ..ops.assertions import assert_positive
from ..ops.elementwise import exp, log, log1p, negative, sqrt, square
from ..tensor_shape import TensorShape, as_shape, broadcast_static

__all__ = ["Distribution", "VectorEvents", "ReparameterizationType", "FULLY_REPARAMETERIZED",
           "NOT_REPARAMETERIZED"]


class ReparameterizationType:
    """Whether samples are differentiable in the parameters (TF's two instances)."""

    def __init__(self, rep_type: str):
        self._rep_type = rep_type

    def __repr__(self):
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def float_parameters(validate_args=False, positive=(), dtype=None, same_dtype=None,
                     **values) -> list:
    """The parameters as tensors of one floating dtype, named as TF names them (an
    ``Identity`` each).  With ``same_dtype`` (by default: several parameters and no
    ``dtype``, as Normal, Laplace, Uniform, Gamma, Beta, StudentT; Exponential says so)
    each is TF's ``identity`` alone, so a Python number is float32 (an int int32) whatever
    the others are, then TF's ``assert_same_float_dtype``: two dtypes, or one that is not
    floating, are a ValueError (``Normal(float64_loc, 1.0)`` is TF's error).  Otherwise
    (one parameter, a ``dtype``, or ``same_dtype=False`` as DirichletMultinomial's lenient
    conversion) tensors and numpy arrays keep their dtype, Python numbers take theirs
    (else float32), and a mismatch or an integer tensor is a TypeError.  Those named in
    ``positive`` are checked at run time when ``validate_args``."""
    if same_dtype is None:
        same_dtype = dtype is None and len(values) > 1
    if same_dtype:
        tensors = {key: convert_to_tensor(value) for key, value in values.items()}
        _assert_same_float_dtype(tensors)
    else:
        tensors = _hinted_tensors(dtype, values)
    checks = [assert_positive(tensors[k]) for k in positive] if validate_args else []
    with control_dependencies(checks):
        return [identity(t, name=k) for k, t in tensors.items()]


def _assert_same_float_dtype(tensors: dict) -> None:
    """TF's ``check_ops.assert_same_float_dtype`` on the named parameters."""
    (first, expected), *rest = [(key, t.dtype) for key, t in tensors.items()]
    for key, got in rest:
        if got.base_dtype != expected.base_dtype:
            raise ValueError(f"{key}, type={got.name}, must be of the same type "
                             f"({expected.name}) as {first}.")
    if not expected.is_floating:
        raise ValueError(f"Expected floating point type, got {expected.name}.")


def _hinted_tensors(dtype, values: dict) -> dict:
    hint = dtype
    for value in values.values():
        if hint is None and (_is_tensor(value) or isinstance(value, (np.ndarray, np.generic))):
            hint = dtypes.as_dtype(value.dtype)
    hint = hint or dtypes.float32
    tensors = {}
    for key, value in values.items():
        given = _is_tensor(value) or isinstance(value, (np.ndarray, np.generic))
        tensors[key] = convert_to_tensor(value, dtype=None if given else hint)
    kinds = {t.dtype for t in tensors.values()}
    if len(kinds) > 1 or not next(iter(kinds)).is_floating:
        raise TypeError(f"Expected floating point parameters of one dtype, got "
                        f"{ {k: t.dtype.name for k, t in tensors.items()} }.")
    return tensors


def static_batch(*tensors) -> TensorShape:
    out = TensorShape([])
    for t in tensors:
        out = broadcast_static(out, t.shape)
    return out


class Distribution:
    """A batch of probability distributions with the same law and parameters of one
    batch shape (TF1's ``tf.distributions.Distribution``)."""

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats,
                 parameters=None, graph_parents=None, name=None):
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._reparameterization_type = reparameterization_type
        self._validate_args = bool(validate_args)
        self._allow_nan_stats = bool(allow_nan_stats)
        self._parameters = dict(parameters or {})
        self._parameters.pop("self", None)
        self._parameters.pop("__class__", None)
        self._graph_parents = list(graph_parents or [])
        self._name = name or type(self).__name__

    # --- properties ------------------------------------------------------------------
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    parameters = property(lambda self: dict(self._parameters))
    reparameterization_type = property(lambda self: self._reparameterization_type)
    allow_nan_stats = property(lambda self: self._allow_nan_stats)
    validate_args = property(lambda self: self._validate_args)

    def copy(self, **override_parameters):
        """A new distribution of this type, its parameters updated by the overrides."""
        return type(self)(**{**self._parameters, **override_parameters})

    @property
    def batch_shape(self) -> TensorShape:
        return as_shape(self._batch_shape())

    @property
    def event_shape(self) -> TensorShape:
        return as_shape(self._event_shape())

    def batch_shape_tensor(self, name="batch_shape_tensor") -> Tensor:
        with self._scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtypes.int32)
            return self._batch_shape_tensor()

    def event_shape_tensor(self, name="event_shape_tensor") -> Tensor:
        with self._scope(name):
            if self.event_shape.is_fully_defined():
                return convert_to_tensor(self.event_shape.as_list(), dtypes.int32)
            return self._event_shape_tensor()

    def is_scalar_batch(self, name="is_scalar_batch"):
        return self.batch_shape.ndims == 0

    def is_scalar_event(self, name="is_scalar_event"):
        return self.event_shape.ndims == 0

    def _event_shape(self):
        return TensorShape([])

    def _event_shape_tensor(self):
        return convert_to_tensor([], dtypes.int32)

    # --- sampling --------------------------------------------------------------------
    def sample(self, sample_shape=(), seed=None, name="sample") -> Tensor:
        """``sample_shape`` draws: shape ``sample_shape + batch_shape + event_shape``."""
        with self._scope(name):
            if isinstance(sample_shape, Tensor):
                dims = sample_shape
                n = _prod(dims)
            else:
                dims = [int(d) for d in np.reshape(np.asarray(sample_shape, np.int64), -1)]
                n = int(np.prod(dims, dtype=np.int64))
            drawn = self._sample_n(n, seed)
            if not isinstance(dims, Tensor):
                static = TensorShape(dims).concatenate(self.batch_shape).concatenate(
                    self.event_shape)
                if static.is_fully_defined():
                    return reshape(drawn, static.as_list())
            from ..ops.array import concat

            tail = shape_of(drawn)[1:]
            return reshape(drawn, concat([convert_to_tensor(dims, dtypes.int32), tail], 0))

    # --- the methods a subclass may write, and what each falls back on ------------------
    def log_prob(self, value, name="log_prob") -> Tensor:
        with self._scope(name):
            value = self._value(value)
            if _writes(self, "_log_prob"):
                return self._log_prob(value)
            return log(self._call("_prob", "prob", value))

    def prob(self, value, name="prob") -> Tensor:
        with self._scope(name):
            value = self._value(value)
            if _writes(self, "_prob"):
                return self._prob(value)
            return exp(self._call("_log_prob", "prob", value))

    def log_cdf(self, value, name="log_cdf") -> Tensor:
        with self._scope(name):
            value = self._value(value)
            if _writes(self, "_log_cdf"):
                return self._log_cdf(value)
            return log(self._call("_cdf", "log_cdf", value))

    def cdf(self, value, name="cdf") -> Tensor:
        with self._scope(name):
            value = self._value(value)
            if _writes(self, "_cdf"):
                return self._cdf(value)
            return exp(self._call("_log_cdf", "cdf", value))

    def log_survival_function(self, value, name="log_survival_function") -> Tensor:
        with self._scope(name):
            value = self._value(value)
            if _writes(self, "_log_survival_function"):
                return self._log_survival_function(value)
            return log1p(negative(self.cdf(value)))

    def survival_function(self, value, name="survival_function") -> Tensor:
        with self._scope(name):
            value = self._value(value)
            if _writes(self, "_survival_function"):
                return self._survival_function(value)
            return 1.0 - self.cdf(value)

    def quantile(self, value, name="quantile") -> Tensor:
        with self._scope(name):
            return self._call("_quantile", "quantile", self._value(value))

    def entropy(self, name="entropy") -> Tensor:
        with self._scope(name):
            return self._call("_entropy", "entropy")

    def mean(self, name="mean") -> Tensor:
        with self._scope(name):
            return self._call("_mean", "mean")

    def mode(self, name="mode") -> Tensor:
        with self._scope(name):
            return self._call("_mode", "mode")

    def variance(self, name="variance") -> Tensor:
        with self._scope(name):
            if _writes(self, "_variance"):
                return self._variance()
            return square(self._call("_stddev", "variance"))

    def stddev(self, name="stddev") -> Tensor:
        with self._scope(name):
            if _writes(self, "_stddev"):
                return self._stddev()
            return sqrt(self._call("_variance", "stddev"))

    def covariance(self, name="covariance") -> Tensor:
        with self._scope(name):
            return self._call("_covariance", "covariance")

    def cross_entropy(self, other, name="cross_entropy") -> Tensor:
        """``H[self, other] = H[self] + KL[self || other]``."""
        from .kullback_leibler import kl_divergence

        with self._scope(name):
            return self.entropy() + kl_divergence(self, other)

    def kl_divergence(self, other, name="kl_divergence") -> Tensor:
        from .kullback_leibler import kl_divergence

        with self._scope(name):
            return kl_divergence(self, other)

    # --- helpers ---------------------------------------------------------------------
    def _draw_shape(self, n, event=True):
        """``[n] + batch_shape (+ event_shape)``: a list when the graph knows it, else a
        tensor."""
        static = self.batch_shape.concatenate(self.event_shape if event else [])
        if not isinstance(n, Tensor) and static.is_fully_defined():
            return [n] + static.as_list()
        from ..ops.array import concat

        parts = [reshape(convert_to_tensor(n, dtypes.int32), [1]), self.batch_shape_tensor()]
        if event:
            parts.append(self.event_shape_tensor())
        return concat(parts, 0)

    def _scope(self, name):
        return _Scope(self._name, name)

    def _value(self, value) -> Tensor:
        return convert_to_tensor(value, dtype=self._value_dtype(), name="value")

    def _value_dtype(self):
        return self._dtype

    def _call(self, method, public, *args):
        if not _writes(self, method):
            raise NotImplementedError(f"{public} is not implemented: {type(self).__name__}")
        return getattr(self, method)(*args)

    def __repr__(self):
        return (f"<ds.distributions.{type(self).__name__} '{self._name}' batch_shape="
                f"{self.batch_shape} event_shape={self.event_shape} dtype="
                f"{self._dtype.name if self._dtype else None}>")


class VectorEvents:
    """For a distribution whose events are vectors along the last axis of a parameter
    (``_event_parameter``: Dirichlet's concentration, Multinomial's logits)."""

    def _event_shape(self):
        shape = self._event_parameter.shape
        return TensorShape(None) if shape.ndims is None else TensorShape(shape.dims[-1:])

    def _event_shape_tensor(self):
        return shape_of(self._event_parameter)[-1:]


def _writes(dist, method: str) -> bool:
    return hasattr(type(dist), method)


def _prod(dims: Tensor) -> Tensor:
    from ..ops.reduce import reduce_prod

    return reduce_prod(dims)


class _Scope:
    """The distribution's scope (re-entered by its full name), then the method's."""

    def __init__(self, outer, inner):
        self._outer, self._inner = outer, inner

    def __enter__(self):
        self._a = name_scope(self._outer + "/" if not self._outer.endswith("/")
                             else self._outer)
        self._a.__enter__()
        self._b = name_scope(self._inner)
        return self._b.__enter__()

    def __exit__(self, *exc):
        self._b.__exit__(*exc)
        return self._a.__exit__(*exc)
