"""TF1's ``tf.test``, the part a graph library needs: ``compute_gradient`` and
``compute_gradient_error`` (TF1's gradient checker: the Jacobian ``ds.gradients``
builds against central differences, both run in the default session), and the device
queries ``is_gpu_available``, ``gpu_device_name``, ``is_built_with_cuda`` and
``is_built_with_gpu_support`` (``device_listing.py``).  Every other
``tf.test`` name (``TestCase``, ``main``...) is ``UnsupportedTF1Error``."""

from __future__ import annotations

import numpy as np

from .device_listing import gpu_device_name, is_built_with_cuda, is_gpu_available
from .graph import constant_from_array
from .ops.array import identity
from .session import get_default_session

__all__ = ["compute_gradient", "compute_gradient_error", "is_gpu_available", "gpu_device_name",
           "is_built_with_cuda", "is_built_with_gpu_support"]

is_built_with_gpu_support = is_built_with_cuda


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                     init_targets=None, extra_feed_dict=None):
    """``(theoretical, numerical)`` Jacobians of ``y`` with respect to ``x``, each of
    shape (x size, y size): the first from ``ds.gradients`` (one run per element of
    y), the second from central differences of step ``delta`` (two runs per element
    of x), at ``x_init_value`` (default: uniform in [0, 1)).  ``x`` may be a list (with
    ``x_shape`` and ``x_init_value`` lists too): then a list of pairs.  Runs
    ``init_targets`` first; needs a default session (TF1's)."""
    session = get_default_session()
    if session is None:
        raise ValueError("compute_gradient runs in the default session: call it inside "
                         "'with ds.Session():'.")
    for target in init_targets or ():
        session.run(target)
    if isinstance(x, (list, tuple)):
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        return [_jacobians(session, xi, si, y, y_shape, ii, delta, extra_feed_dict)
                for xi, si, ii in zip(x, x_shape, inits)]
    return _jacobians(session, x, x_shape, y, y_shape, x_init_value, delta, extra_feed_dict)


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                           init_targets=None, extra_feed_dict=None) -> float:
    """The largest difference between the theoretical and the numerical Jacobian."""
    found = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    pairs = found if isinstance(found, list) else [found]
    return max((float(np.max(np.abs(t - n))) if t.size else 0.0) for t, n in pairs)


def _jacobians(session, x, x_shape, y, y_shape, x_init_value, delta, extra_feed_dict):
    from .gradients import UnconnectedGradients, gradients

    if not x.dtype.is_floating:
        raise TypeError(f"compute_gradient differentiates floating-point tensors, not "
                        f"{x.dtype.name} ('{x.name}').")
    x_shape, y_shape = tuple(int(d) for d in x_shape), tuple(int(d) for d in y_shape)
    if x_init_value is not None:
        x_data = np.asarray(x_init_value, x.dtype.np)
        if x_data.shape != x_shape:
            raise ValueError(f"x_shape = {list(x_shape)}, init_data shape = "
                             f"{list(x_data.shape)}")
    else:
        x_data = np.random.default_rng().random(x_shape).astype(x.dtype.np)
    with y.graph.as_default():
        dy = identity(constant_from_array(np.ones(y_shape, y.dtype.np), name="dy"))
        (dx,) = gradients(y, x, dy, unconnected_gradients=UnconnectedGradients.ZERO)
    feeds = dict(extra_feed_dict or {})
    x_size, y_size = x_data.size, int(np.prod(y_shape, dtype=np.int64))
    theoretical = np.zeros((x_size, y_size), x.dtype.np)
    for col in range(y_size):
        one_hot = np.zeros(y_size, y.dtype.np)
        one_hot[col] = 1
        got = session.run(dx, {**feeds, x: x_data, dy: one_hot.reshape(y_shape)})
        theoretical[:, col] = np.asarray(got).reshape(x_size)
    numerical = np.zeros((x_size, y_size), x.dtype.np)
    flat = x_data.reshape(-1).copy()
    for row in range(x_size):
        values = []
        for step in (delta, -delta):
            moved = flat.copy()
            moved[row] += step
            values.append(np.asarray(session.run(y, {**feeds, x: moved.reshape(x_shape)}),
                                     np.float64).reshape(-1))
        numerical[row, :] = (values[0] - values[1]) / (2 * delta)
    return theoretical, numerical


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("test", name)
