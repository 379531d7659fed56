"""Batch slicing of operators (``op[1:, 0]``), TF's ``slicing.batch_slice``: the
slices apply to the batch axes only; every parameter is first given the
operator's batch rank (leading axes of size 1), slices of the axes it broadcasts
along become ``0`` / ``0:1``, its own matrix axes (``ndims`` of them, the
``_parameter_ndims`` of its class) stay whole, and the operator is rebuilt from
its parameters.  Operator-valued parameters are sliced the same way, recursively.

devsession's version wants the batch shapes known when the graph is built."""

from __future__ import annotations

import numpy as np

from . import tf_api as ds


def _as_tuple(slices):
    return tuple(slices) if isinstance(slices, tuple) else (slices,)


def _sanitized(slices, intended, deficient):
    """``slices`` with those of axes where ``deficient`` broadcasts (size 1 against a
    larger ``intended``) turned into ``0`` or ``0:1``."""
    out, idx = [], 0
    for slc in slices:
        if slc is Ellipsis:
            if idx < 0:
                raise ValueError("Found multiple `...` in slices {}".format(slices))
            idx = -sum(s is not None for s in slices[slices.index(Ellipsis) + 1:])
        elif slc is not None:
            broadcast = intended[idx] > deficient[idx]
            if isinstance(slc, slice):
                slc = slice(None if slc.start is None else (0 if broadcast else slc.start),
                            None if slc.stop is None else (1 if broadcast else slc.stop),
                            None if slc.step is None else (1 if broadcast else slc.step))
            elif broadcast:
                slc = 0
            idx += 1
        out.append(slc)
    return out


def _static_batch(shape, name):
    if not shape.is_fully_defined():
        raise NotImplementedError(
            "Slicing %s needs its batch shape known when the graph is built." % name)
    return shape.as_list()


def _is_operator(param) -> bool:
    """Whether a parameter is itself an operator (one with parameters to slice; this
    module cannot import ``base``, which slices through it)."""
    return hasattr(param, "_parameter_ndims")


def _padded(param, ndims, rank):
    """``param`` with leading axes of size 1 up to batch rank ``rank`` (an operator:
    its parameters padded, as TF's _broadcast_parameter_with_batch_shape)."""
    if isinstance(param, (list, tuple)):
        return type(param)(_padded(p, n, rank) for p, n in zip(param, ndims))
    if _is_operator(param):
        overrides = {name: _padded(getattr(param, name), n, rank)
                     for name, n in param._parameter_ndims().items()
                     if getattr(param, name) is not None}
        return type(param)(**dict(param.parameters, **overrides)) if overrides else param
    param = ds.convert_to_tensor(param)
    shape = param.shape.as_list()
    missing = rank - (len(shape) - ndims)
    return ds.reshape(param, [1] * missing + shape) if missing > 0 else param


def _slice_param(param, ndims, slices, batch):
    """One parameter (a tensor of ``ndims`` matrix axes, or an operator) sliced."""
    if isinstance(param, (list, tuple)):
        return type(param)(_slice_param(p, n, slices, batch) for p, n in zip(param, ndims))
    if _is_operator(param):
        if batch and not _static_batch(param.batch_shape, param.name):
            return param
        param = _padded(param, 0, len(batch))
        own = _static_batch(param.batch_shape, param.name)
        return param[tuple(_sanitized(list(slices), batch, own))]
    param = ds.convert_to_tensor(param)
    shape = param.shape.as_list()
    own = shape[:len(shape) - ndims]
    if batch and not own:
        return param
    if len(own) < len(batch):
        param = ds.reshape(param, [1] * (len(batch) - len(own)) + shape)
        own = [1] * (len(batch) - len(own)) + own
    param_slices = _sanitized(list(slices), batch, own)
    if ndims > 0:
        if Ellipsis not in param_slices:
            param_slices.append(Ellipsis)
        param_slices += [slice(None)] * ndims
    return param[tuple(param_slices)]


def batch_slice(operator, slices):
    """``operator`` restricted to ``slices`` of its batch axes."""
    slices = _as_tuple(slices)
    if slices == (Ellipsis,):
        return operator
    batch = _static_batch(operator.batch_shape, operator.name)
    overrides = {}
    for name, ndims in operator._parameter_ndims().items():
        param = getattr(operator, name)
        if param is not None:
            overrides[name] = _slice_param(param, ndims, slices, batch)
    return type(operator)(**dict(operator.parameters, **overrides))


def sliced_batch_shape(batch_shape, slices):
    """The batch shape an identity or zero operator gets from ``slices``: a proxy
    of ones sliced, as TF's."""
    return list(np.ones(batch_shape)[_as_tuple(slices)].shape)
